import { validateSync, type ValidationError, type ValidatorOptions } from 'class-validator';
import { dtoJsonSchema, nestedDtos, type JsonSchema } from '../../shared/validation/dto-schema.js';
import { firstFailingItem } from '../../shared/validation/each-item.js';
import { cacheValidationMetadata } from '../../shared/validation/metadata-cache.js';
import { findUnstorableText } from '../../shared/validation/storable-text.js';
import { ALL_CHECKS } from '../../shared/validation/surfaces.js';

/** One problem with a tool's arguments: dotted path ('' for the arguments object itself) and message. */
export interface ArgumentIssue {
  path: string;
  message: string;
}

export type ParsedArguments<T> = { ok: true; value: T } | { ok: false; issues: ArgumentIssue[] };

const VALIDATE: ValidatorOptions = {
  ...ALL_CHECKS,
  groups: [...ALL_CHECKS.groups],
  whitelist: true,
  forbidNonWhitelisted: true,
  // A tool without arguments has a DTO without fields; `{}` is then valid and any key is an unknown argument.
  forbidUnknownValues: false,
  // The value is kept to name the failing item of a list (each-item.ts).
  validationError: { target: false, value: true },
};

export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** class-validator messages start with the property name (or "property <name>"); the path already says it. */
function withoutName(message: string, property: string): string {
  if (message.startsWith(`property ${property} `)) return message.slice(`property ${property} `.length);
  if (message.startsWith(`${property} `)) return message.slice(property.length + 1);
  return message;
}

function collect(errors: readonly ValidationError[], prefix: string, out: ArgumentIssue[]): void {
  for (const e of errors) {
    const path = prefix ? `${prefix}.${e.property}` : e.property;
    // The checks stop at a field's first failure, so there is at most one message per field.
    const [constraint, message] = Object.entries(e.constraints ?? {})[0] ?? [];
    if (constraint !== undefined && message !== undefined) {
      const item = firstFailingItem(e.value, e.contexts?.[constraint]);
      out.push({ path: item < 0 ? path : `${path}.${item}`, message: withoutName(message, e.property) });
    }
    if (e.children?.length) collect(e.children, path, out);
  }
}

/** A DTO class with the classes of its nested fields, resolved at boot. */
interface Shape {
  dto: new () => object;
  nested: Map<string, Shape>;
}

function shapeOf(dto: new () => object, seen = new Map<new () => object, Shape>()): Shape {
  let shape = seen.get(dto);
  if (shape) return shape;
  shape = { dto, nested: new Map() };
  seen.set(dto, shape);
  for (const [name, child] of nestedDtos(dto)) shape.nested.set(name, shapeOf(child, seen));
  return shape;
}

/** Keys no DTO has that would change what the instance is (its prototype, or the class class-validator reads). */
const RESERVED = new Set(['__proto__', 'constructor']);

/**
 * The arguments as instances of their DTO classes, nested objects included, which is what class-validator needs to
 * find their checks. It does what class-transformer's plainToInstance does for these DTOs (which carry no
 * @Transform or @Expose) at a fraction of its cost (~4 µs per object). A reserved key is left out and reported as
 * the unknown argument it is.
 */
function instantiate(shape: Shape, plain: Record<string, unknown>, path: string, reserved: ArgumentIssue[]): object {
  const out = Object.create(shape.dto.prototype) as Record<string, unknown>;
  for (const key of Object.keys(plain)) {
    const at = path ? `${path}.${key}` : key;
    if (RESERVED.has(key)) {
      reserved.push({ path: at, message: 'should not exist' });
      continue;
    }
    const value = plain[key];
    const nested = shape.nested.size ? shape.nested.get(key) : undefined;
    if (nested === undefined) out[key] = value;
    else if (Array.isArray(value)) out[key] = value.map((e, i) => (isPlainObject(e) ? instantiate(nested, e, `${at}.${i}`, reserved) : e));
    else out[key] = isPlainObject(value) ? instantiate(nested, value, at, reserved) : value;
  }
  return out;
}

/**
 * A tool's arguments, defined once by a DTO class: its JSON Schema (the `inputSchema` of tools/list) is built when
 * the tool is registered at boot, with the classes of its nested fields; each call only instantiates and validates
 * with class-validator, every check, the first failure of each field reported with its dotted path (an unknown
 * argument names its own path).
 */
export class ToolArguments<T extends object> {
  readonly schema: JsonSchema;
  private readonly shape: Shape;

  constructor(dto: new () => T) {
    this.schema = dtoJsonSchema(dto);
    this.shape = shapeOf(dto);
    cacheValidationMetadata();
  }

  parse(raw: unknown): ParsedArguments<T> {
    const args = raw === undefined ? {} : raw;
    if (!isPlainObject(args)) return { ok: false, issues: [{ path: '', message: 'must be an object' }] };
    const issues: ArgumentIssue[] = [];
    const value = instantiate(this.shape, args, '', issues) as T;
    const errors = validateSync(value, VALIDATE);
    if (errors.length || issues.length) {
      collect(errors, '', issues);
      return { ok: false, issues };
    }
    const unstorable = findUnstorableText(args);
    if (unstorable) return { ok: false, issues: [unstorable] };
    return { ok: true, value };
  }
}
