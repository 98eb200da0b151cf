import { plainToInstance, type ClassTransformOptions } from 'class-transformer';
import { validateSync, type ValidationError, type ValidatorOptions } from 'class-validator';
import { dtoJsonSchema, type JsonSchema } from '../../shared/validation/dto-schema.js';
import { firstFailingItem } from '../../shared/validation/each-item.js';
import { findUnstorableText } from '../../shared/validation/storable-text.js';
import { ALL_CHECKS } from '../../shared/validation/surfaces.js';

/** One problem with a tool's arguments: dotted path ('' for the arguments object itself) and message. */
export interface ArgumentIssue {
  path: string;
  message: string;
}

export type ParsedArguments<T> = { ok: true; value: T } | { ok: false; issues: ArgumentIssue[] };

const TRANSFORM: ClassTransformOptions = { enableImplicitConversion: false };
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

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

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

/**
 * A tool's arguments, defined once by a DTO class: its JSON Schema (the `inputSchema` of tools/list) is built when
 * the tool is registered at boot; each call only transforms and validates with class-validator, every check, the
 * first failure of each field reported with its dotted path (an unknown argument names its own path).
 */
export class ToolArguments<T extends object> {
  readonly schema: JsonSchema;

  constructor(private readonly dto: new () => T) {
    this.schema = dtoJsonSchema(dto);
  }

  parse(raw: unknown): ParsedArguments<T> {
    const args = raw === undefined ? {} : raw;
    if (!isPlainObject(args)) return { ok: false, issues: [{ path: '', message: 'must be an object' }] };
    const value = plainToInstance(this.dto, args, TRANSFORM);
    const errors = validateSync(value, VALIDATE);
    if (errors.length) {
      const issues: ArgumentIssue[] = [];
      collect(errors, '', issues);
      return { ok: false, issues };
    }
    const unstorable = findUnstorableText(args);
    if (unstorable) return { ok: false, issues: [unstorable] };
    return { ok: true, value };
  }
}
