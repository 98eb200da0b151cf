import fc from 'fast-check';

/**
 * Hostile input generators and a JSON-Schema-driven generator (OpenAPI component schemas for REST bodies, MCP tool
 * input schemas for tool arguments) that mixes well-formed values with hostile ones, so both the validation layer
 * and the code behind it are reached.
 *
 * JSON text that JSON.stringify cannot produce is written as a marker string and expanded by `toJsonText`:
 * `@@num:<literal>@@` becomes a bare number literal (1e309, -0, 30-digit integers) and `@@deep:<a|o>:<n>@@` an array or
 * object nested n levels deep.
 */

export const NASTY_STRINGS: readonly string[] = [
  '',
  ' ',
  '   ',
  '\u0000',
  'a\u0000b',
  'trailing\u0000',
  '\u202eRTL override \u0644\u0645',
  '\u200b\u200c\u200d',
  '\ufeffBOM',
  '😀👍🏽‍👨‍👩‍👧',
  '\ud800',
  'x\udfffy',
  '\uffff\ufffe',
  'İıŞßǅＡ',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e309',
  '-0',
  '0x1F',
  'true',
  'false',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '../../../etc/passwd',
  '..',
  '%00',
  '%',
  '%zz',
  '\\',
  "'; DROP TABLE task; --",
  '" OR 1=1 --',
  '<img src=x onerror=alert(1)>',
  '${7*7}',
  '{{7*7}}',
  '\r\n',
  '\t',
  'line1\nline2',
  '@[Someone](user:00000000-0000-0000-0000-000000000000)',
  'javascript:alert(1)',
  'http://',
  'https://example.com/' + 'a'.repeat(2100),
  'x'.repeat(201),
  'x'.repeat(2001),
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '00000000-0000-0000-0000-00000000000g',
  ' 00000000-0000-0000-0000-000000000000',
  '00000000000000000000000000000000',
  '2024-02-30T25:61:61Z',
  '0000-01-01T00:00:00Z',
  '+275760-09-13T00:00:00.001Z',
];

/** Strings that are almost, but not, canonical uuids (or canonical ones no record has). */
export const MALFORMED_UUIDS: readonly string[] = [
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '00000000-0000-0000-0000-00000000000g',
  ' 00000000-0000-0000-0000-000000000000',
  '00000000000000000000000000000000',
  '{00000000-0000-0000-0000-000000000000}',
  'urn:uuid:00000000-0000-0000-0000-000000000000',
  '0',
  '-1',
  'null',
  '',
];

const RAW_NUMBERS = ['1e309', '-1e309', '-0', '1E400', '1e-400', '123456789012345678901234567890', '1.0', '-0.0', '4.9e-324', '9007199254740993'];

export const raw = (literal: string): string => `@@num:${literal}@@`;
export const deep = (kind: 'a' | 'o', n: number): string => `@@deep:${kind}:${n}@@`;

/** JSON text of a generated value, markers expanded. */
export function toJsonText(value: unknown): string {
  const text = JSON.stringify(value) ?? 'null';
  return text
    .replace(/"@@num:([^"@]+)@@"/g, '$1')
    .replace(/"@@deep:([ao]):(\d+)@@"/g, (_m, kind: string, n: string) => {
      const depth = Number(n);
      return kind === 'a' ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    });
}

/** A plain object whose own enumerable keys are exactly `entries` — `__proto__` included, as JSON.parse would build it. */
export function objectOf(entries: Array<[string, unknown]>): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  return o;
}

export const hugeString = fc.oneof(
  fc.constantFrom(201, 2_049, 20_001, 100_001, 300_000).map((n) => 'x'.repeat(n)),
  fc.tuple(fc.constantFrom('é', '😀', '\u202e', 'ab\u0000'), fc.integer({ min: 1_000, max: 120_000 })).map(([s, n]) => s.repeat(n)),
);

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: hugeString },
);

export const hostileNumber: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(0, -1, 1.5, -0.5, 2 ** 31, 2 ** 53 + 2, -(2 ** 53), 1e308, Number.MIN_VALUE, 101, 1001, 100_000_000),
  fc.integer(),
  fc.double(),
  fc.constantFrom(...RAW_NUMBERS).map(raw),
);

const KEYWORD_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '', ' ', '$where', '$ne', 'a.b', '0'];

/** Keys for extra properties: prototype-pollution names, the known field names of the API, and junk. */
export function keyArb(knownKeys: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...KEYWORD_KEYS) },
    { weight: 3, arbitrary: knownKeys.length ? fc.constantFrom(...knownKeys) : fc.constant('x') },
    { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  );
}

/** Any JSON value, hostile: nasty atoms, small nested arrays/objects with dangerous keys, deep nesting. */
export function hostileValue(knownKeys: readonly string[] = []): fc.Arbitrary<unknown> {
  const atom = fc.oneof(hostileString, hostileNumber, fc.boolean(), fc.constant(null));
  const { value } = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      { weight: 6, arbitrary: atom },
      { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 4 }) },
      { weight: 1, arbitrary: fc.array(fc.tuple(keyArb(knownKeys), tie('value')), { maxLength: 4 }).map(objectOf) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom<'a' | 'o'>('a', 'o'), fc.constantFrom(50, 1_000, 5_000, 20_000)).map(([k, n]) => deep(k, n)) },
    ),
  }));
  return value;
}

export interface JsonSchema {
  type?: string | string[];
  $ref?: string;
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number | boolean;
  exclusiveMaximum?: number | boolean;
  minItems?: number;
  maxItems?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  allOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  nullable?: boolean;
  [k: string]: unknown;
}

export interface SchemaContext {
  /** Resolves `#/components/schemas/X` (OpenAPI); identity when schemas carry no refs. */
  resolve(ref: string): JsonSchema;
  /** Uuids to use where a uuid is expected: mostly records of the caller's company, some of the other one, some random. */
  uuids: fc.Arbitrary<string>;
  /** The same for a named field (`taskUuid`, `inputUuids`, …): records of the kind the name says, when it says one. */
  uuidsFor?(field: string | undefined): fc.Arbitrary<string>;
  /** Field names known anywhere in the API, used as extra keys. */
  knownKeys: readonly string[];
}

const looksUuid = (s: JsonSchema): boolean => s.format === 'uuid' || (typeof s.pattern === 'string' && s.pattern.includes('{12}'));

const niceText = (min: number, max: number): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.string({ minLength: min, maxLength: max }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: min, maxLength: max }) },
    { weight: 1, arbitrary: fc.constantFrom('Ünïcødé 😀', '\u202eتجربة', 'a\u0000b', '\ud800x', '  padded  ', '@[Bob](agent:00000000-0000-0000-0000-000000000000)') },
  ).filter((s) => s.length >= min && s.length <= Math.max(max, min));

function typeOf(schema: JsonSchema): string | undefined {
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== 'null');
  if (schema.type) return schema.type;
  if (schema.properties) return 'object';
  if (schema.items) return 'array';
  return undefined;
}

function deref(schema: JsonSchema, ctx: SchemaContext): JsonSchema {
  let s = schema;
  for (let i = 0; s.$ref && i < 10; i++) s = ctx.resolve(s.$ref);
  return s;
}

/** A value that fits the schema (as far as the schema says), with realistic but occasionally unusual content. */
export function conforming(schema: JsonSchema, ctx: SchemaContext, depth = 0, field?: string): fc.Arbitrary<unknown> {
  const s = deref(schema, ctx);
  const alts = s.anyOf ?? s.oneOf;
  if (alts?.length) return fc.oneof(...alts.map((a) => conforming(a, ctx, depth + 1, field)));
  if (s.allOf?.length) return conforming(s.allOf[0], ctx, depth + 1, field);
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum?.length) return fc.constantFrom(...s.enum);
  switch (typeOf(s)) {
    case 'string': {
      if (looksUuid(s) || (field !== undefined && /uuids?$/i.test(field))) return ctx.uuidsFor ? ctx.uuidsFor(field) : ctx.uuids;
      if (s.format === 'date-time') return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
      if (s.format === 'uri' || /url/i.test(String(s.description ?? ''))) return fc.constantFrom('https://example.com/a', 'http://localhost/x?y=1', 'ftp://example.com');
      const min = s.minLength ?? 0;
      return niceText(min, Math.min(s.maxLength ?? 40, Math.max(min, 40)));
    }
    case 'integer':
      return fc.integer({ min: Math.max(s.minimum ?? -5, -1_000_000), max: Math.min(s.maximum ?? 1_000, 1_000_000) });
    case 'number':
      return fc.oneof(fc.integer({ min: Math.ceil(s.minimum ?? -5), max: Math.floor(s.maximum ?? 1_000) }), fc.double({ min: s.minimum ?? -5, max: s.maximum ?? 1_000, noNaN: true, noDefaultInfinity: true }));
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      if (depth > 4) return fc.constant([]);
      const min = Math.min(s.minItems ?? 0, 3);
      return fc.array(conforming(s.items ?? {}, ctx, depth + 1, field), { minLength: min, maxLength: Math.max(min, Math.min(s.maxItems ?? 3, 3)) });
    }
    case 'object': {
      if (depth > 4) return fc.constant({});
      const props = s.properties ?? {};
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(props)) model[k] = conforming(v, ctx, depth + 1, k === 'uuid' ? field : k);
      return fc.record(model, { requiredKeys: (s.required ?? []).filter((k) => k in props) });
    }
    default:
      return hostileValue(ctx.knownKeys);
  }
}

/** A hostile value aimed at the schema's type: the wrong kinds of string, number and shape for it. */
function againstType(s: JsonSchema, ctx: SchemaContext): fc.Arbitrary<unknown> {
  switch (typeOf(s)) {
    case 'string':
      return fc.oneof(hostileString, hostileNumber, fc.constant(null), fc.constant(['array', 'instead']), fc.constant({ object: 'instead' }));
    case 'integer':
    case 'number':
      return fc.oneof(hostileNumber, fc.constantFrom('1', '1e309', 'NaN', '-0', '', '0x10'), fc.constant(null), fc.constant([1]));
    case 'boolean':
      return fc.constantFrom('true', 'false', 0, 1, null, 'yes', [], {});
    case 'array':
      return fc.oneof(fc.constant({ 0: 'not', length: 1 }), hostileString, fc.array(hostileValue(ctx.knownKeys), { maxLength: 3 }), fc.constant(Array.from({ length: 1_000 }, () => 'x')));
    case 'object':
      return fc.oneof(fc.constant([]), fc.constant([{}]), hostileString, fc.constant(null));
    default:
      return hostileValue(ctx.knownKeys);
  }
}

/**
 * The fuzzing generator: mostly-conforming values where each field is, independently, sometimes replaced by a
 * hostile value, required fields are sometimes missing and extra (prototype-pollution, known, junk) keys are added.
 */
export function fuzzed(schema: JsonSchema, ctx: SchemaContext, depth = 0, field?: string): fc.Arbitrary<unknown> {
  const s = deref(schema, ctx);
  const t = typeOf(s);
  const alts = s.anyOf ?? s.oneOf;
  if (alts?.length && !t) return fc.oneof(...alts.map((a) => fuzzed(a, ctx, depth + 1, field)));
  if (t === 'object' && depth <= 4) {
    const props = s.properties ?? {};
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [k, v] of Object.entries(props)) model[k] = fuzzed(v, ctx, depth + 1, k === 'uuid' ? field : k);
    const required = (s.required ?? []).filter((k) => k in props);
    const body = fc.record(model, { requiredKeys: required });
    const extras = fc.oneof({ weight: 4, arbitrary: fc.constant([] as Array<[string, unknown]>) }, { weight: 1, arbitrary: fc.array(fc.tuple(keyArb(ctx.knownKeys), hostileValue(ctx.knownKeys)), { minLength: 1, maxLength: 3 }) });
    const drop = fc.oneof({ weight: 5, arbitrary: fc.constant([] as string[]) }, ...(required.length ? [{ weight: 1, arbitrary: fc.subarray(required, { minLength: 1 }) }] : []));
    const shaped = fc.tuple(body, extras, drop).map(([o, extra, dropped]) => objectOf([...Object.entries(o as Record<string, unknown>).filter(([k]) => !dropped.includes(k)), ...extra]));
    return fc.oneof({ weight: 8, arbitrary: shaped }, { weight: 1, arbitrary: againstType(s, ctx) });
  }
  if (t === 'array' && depth <= 4) {
    const min = Math.min(s.minItems ?? 0, 3);
    const items = fc.array(fuzzed(s.items ?? {}, ctx, depth + 1, field), { minLength: min, maxLength: Math.max(min, 3) });
    return fc.oneof({ weight: 6, arbitrary: items }, { weight: 1, arbitrary: againstType(s, ctx) });
  }
  return fc.oneof({ weight: 12, arbitrary: conforming(s, ctx, depth, field) }, { weight: 2, arbitrary: againstType(s, ctx) }, { weight: 1, arbitrary: hostileValue(ctx.knownKeys) });
}

/** Every property name declared anywhere in a set of schemas (for extra-key generation). */
export function propertyNames(schemas: Iterable<JsonSchema>): string[] {
  const out = new Set<string>();
  const walk = (s: unknown, depth: number): void => {
    if (!s || typeof s !== 'object' || depth > 8) return;
    const o = s as JsonSchema;
    if (o.properties) for (const k of Object.keys(o.properties)) out.add(k);
    for (const v of Object.values(o)) if (v && typeof v === 'object') walk(v, depth + 1);
  };
  for (const s of schemas) walk(s, 0);
  return [...out].sort();
}

/** Header-safe text: node:http only sends \t and 0x20-0xff; unicode goes out as its UTF-8 bytes (latin1-mapped). */
export function headerSafe(s: string): string {
  return Buffer.from(s, 'utf8')
    .toString('latin1')
    .replace(/[^\t\x20-\x7e\x80-\xff]/g, '');
}
