import { DECORATORS } from '@nestjs/swagger';
import { MAX_LONG_TEXT } from './text-rules.js';

export type JsonSchema = Record<string, unknown>;

/** What `@ApiProperty` records for one property (the subset the field decorators of fields.ts write). */
interface PropertyMetadata {
  type?: unknown;
  isArray?: boolean;
  required?: boolean;
  nullable?: boolean;
  description?: string;
  items?: JsonSchema;
  [constraint: string]: unknown;
}

const VALUE_KEYS = ['enum', 'format', 'pattern', 'minLength', 'maxLength', 'minimum', 'maximum'] as const;
const SCALARS = new Map<unknown, string>([
  [String, 'string'],
  [Number, 'number'],
  [Boolean, 'boolean'],
  ['string', 'string'],
  ['number', 'number'],
  ['integer', 'integer'],
  ['boolean', 'boolean'],
]);

/**
 * The JSON Schema of a DTO class, built from the OpenAPI metadata its field decorators recorded — the same metadata
 * /api/docs is generated from, so a tool's `inputSchema` and a route's body schema cannot drift apart. Nested DTOs are
 * inlined; every object is closed (`additionalProperties: false`), as the validator refuses unknown fields; a
 * nullable scalar is `type: [<type>, "null"]` (`anyOf [schema, null]` for enums and objects). Meant to run once at boot.
 *
 * Kept small for the model's context (docs/tool-conventions.md §1.5): a bound the property's own description already states ("1-200
 * characters", "at most 2000", "up to 10", "from 1") is not repeated as a keyword, and neither `maximum:
 * Number.MAX_SAFE_INTEGER` (no real bound) nor the default long-text limit of docs/domain.md §1 (`maxLength` 100,000 of
 * every description and content, the `str` of docs/tool-conventions.md §5) is stated. Only the schema is trimmed: the validator still
 * checks every bound, and /api/docs still shows them.
 *
 * With `answer`, the DTO is a response DTO and the result a read tool's `outputSchema` (see answerSchema below): the
 * answers' schemas come from the same classes as the REST routes' response schemas in /api/docs.
 */
export function dtoJsonSchema(dto: abstract new () => object, options: { answer?: boolean } = {}): JsonSchema {
  if (options.answer) return answerSchema(dto);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, meta] of dtoProperties(dto)) {
    properties[name] = propertySchema(meta, `${dto.name}.${name}`);
    if (meta.required !== false) required.push(name);
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

/**
 * The output schema of a read tool (README "Agents and the tool endpoint (MCP)"), from a response DTO (fields of response-fields.ts). Clients
 * validate `structuredContent` against it and refuse a mismatch, so it is never stricter than the answer: objects stay
 * open (no `additionalProperties`), a nullable field is `[type, "null"]`, an optional key is not `required`. It stays
 * shallow, as what a host may hand the model: the top-level keys with their types, and for a list of objects each item's keys with their types
 * (nothing deeper, nothing required); a nested object is `object`, any other list `array`. Descriptions and value
 * constraints are left to the OpenAPI document.
 */
function answerSchema(dto: abstract new () => object): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, meta] of dtoProperties(dto)) {
    const item = isList(meta) && typeof meta.type === 'function' && !SCALARS.has(meta.type) ? (meta.type as abstract new () => object) : null;
    properties[name] = item
      ? { type: 'array', items: { type: 'object', properties: Object.fromEntries(dtoProperties(item).map(([k, m]) => [k, { type: answerType(m, `${item.name}.${k}`) }])) } }
      : { type: answerType(meta, `${dto.name}.${name}`) };
    if (meta.required !== false) required.push(name);
  }
  return { type: 'object', properties, required };
}

const isList = (meta: PropertyMetadata): boolean => meta.isArray === true || meta.type === 'array';

/** The JSON type of an answer's property: `array`, `object` (an open object or a DTO) or a scalar; `[type, "null"]` if nullable. */
function answerType(meta: PropertyMetadata, where: string): string | string[] {
  const scalar = SCALARS.get(meta.type);
  const type = isList(meta) ? 'array' : scalar ? scalar : meta.type === 'object' || typeof meta.type === 'function' ? 'object' : null;
  if (!type) throw new Error(`${where}: no JSON Schema for property type ${String(meta.type)}`);
  return meta.nullable ? [type, 'null'] : type;
}

/** The DTO classes of a DTO's nested fields (a nested object or a list of them), by field name. */
export function nestedDtos(dto: abstract new () => object): Map<string, new () => object> {
  const nested = new Map<string, new () => object>();
  for (const [name, meta] of dtoProperties(dto)) if (typeof meta.type === 'function' && !SCALARS.has(meta.type)) nested.set(name, meta.type as new () => object);
  return nested;
}

function dtoProperties(dto: abstract new () => object): Array<[string, PropertyMetadata]> {
  const proto = dto.prototype as object;
  const keys = (Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, proto) as string[] | undefined) ?? [];
  // Stored as ":name".
  return keys.map((key) => [key.slice(1), Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, proto, key.slice(1)) as PropertyMetadata]);
}

function propertySchema(meta: PropertyMetadata, where: string): JsonSchema {
  const value = withoutStatedBounds(meta.isArray || meta.type === 'array' ? arraySchema(meta, where) : valueSchema(meta, where), meta.description);
  const schema = meta.nullable ? nullable(value) : value;
  return meta.description === undefined ? schema : { description: meta.description, ...schema };
}

function nullable(value: JsonSchema): JsonSchema {
  if (typeof value.type === 'string' && value.type !== 'object' && value.enum === undefined) return { ...value, type: [value.type, 'null'] };
  return { anyOf: [value, { type: 'null' }] };
}

const MIN_KEYS = ['minLength', 'minimum', 'minItems'] as const;
const MAX_KEYS = ['maxLength', 'maximum', 'maxItems'] as const;

/**
 * The bounds a description states in words: "A-B" (both), "at most B" / "up to B" (maximum), "from A" / "at least A"
 * (minimum). Digits may carry thousands separators ("20,000").
 */
export function statedBounds(description: string | undefined): { min: Set<number>; max: Set<number> } {
  const min = new Set<number>();
  const max = new Set<number>();
  const text = (description ?? '').replace(/(\d),(?=\d{3}\b)/g, '$1');
  for (const m of text.matchAll(/(?<![\w.-])(\d+)-(\d+)(?![\w.])/g)) {
    min.add(Number(m[1]));
    max.add(Number(m[2]));
  }
  for (const m of text.matchAll(/\b(?:at most|up to) (\d+)(?![\w.])/gi)) max.add(Number(m[1]));
  for (const m of text.matchAll(/\b(?:from|at least) (\d+)(?![\w.])/gi)) min.add(Number(m[1]));
  return { min, max };
}

/** `schema` without the bounds `description` states, a `maximum` of Number.MAX_SAFE_INTEGER or the long-text default. */
function withoutStatedBounds(schema: JsonSchema, description: string | undefined): JsonSchema {
  const stated = statedBounds(description);
  const out = { ...schema };
  for (const k of MIN_KEYS) if (stated.min.has(out[k] as number)) delete out[k];
  for (const k of MAX_KEYS) if (stated.max.has(out[k] as number)) delete out[k];
  if (out.maximum === Number.MAX_SAFE_INTEGER) delete out.maximum;
  if (out.maxLength === MAX_LONG_TEXT) delete out.maxLength;
  return out;
}

function arraySchema(meta: PropertyMetadata, where: string): JsonSchema {
  const items = meta.type === 'array' ? { ...meta.items } : valueSchema({ type: meta.type }, where);
  return { type: 'array', items, ...pick(meta, ['minItems', 'maxItems']) };
}

function valueSchema(meta: PropertyMetadata, where: string): JsonSchema {
  const scalar = SCALARS.get(meta.type);
  if (scalar) return { type: scalar, ...pick(meta, VALUE_KEYS) };
  if (typeof meta.type === 'function') return dtoJsonSchema(meta.type as new () => object);
  throw new Error(`${where}: no JSON Schema for property type ${String(meta.type)}`);
}

function pick(meta: PropertyMetadata, keys: readonly string[]): JsonSchema {
  const out: JsonSchema = {};
  for (const k of keys) if (meta[k] !== undefined) out[k] = meta[k];
  return out;
}
