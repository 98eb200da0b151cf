import fc from 'fast-check';
import type { FuzzWorld, Company } from './fuzz-world.js';
import { conforming, fuzzed, headerSafe, hostileString, hostileValue, hugeString, propertyNames, toJsonText, type JsonSchema, type SchemaContext } from './hostile.js';
import type { RawRequest } from './raw-http.js';

/** One operation of the service's OpenAPI document. */
export interface Operation {
  method: string;
  /** OpenAPI template, e.g. `/api/tasks/{uuid}`. */
  path: string;
  pathParams: string[];
  query: Array<{ name: string; schema: JsonSchema }>;
  body: JsonSchema | null;
}

export interface OpenApiDoc {
  paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string; schema?: JsonSchema }>; requestBody?: { content?: Record<string, { schema?: JsonSchema }> } }>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options']);

/** Every operation the document lists (new routes are picked up automatically). */
export function operationsOf(doc: OpenApiDoc): Operation[] {
  const ops: Operation[] = [];
  for (const [path, byMethod] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(byMethod)) {
      if (!METHODS.has(method)) continue;
      const params = op.parameters ?? [];
      ops.push({
        method: method.toUpperCase(),
        path,
        pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]),
        query: params.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema ?? { type: 'string' } })),
        body: op.requestBody?.content?.['application/json']?.schema ?? null,
      });
    }
  }
  return ops;
}

/** Percent-encodes every byte outside the unreserved set (lone surrogates become U+FFFD, as a browser would send). */
export function pct(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) out += /[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

/** The record kind a path parameter names: the path segment right before it (`/api/agents/{uuid}/keys/{keyUuid}` → keys). */
export function kindOf(path: string, param: string): string | undefined {
  const segments = path.split('/');
  const i = segments.indexOf(`{${param}}`);
  return i > 0 ? segments[i - 1] : undefined;
}

const RAW_SEGMENTS = ['..', '.', '%2e%2e', '%2E%2E%2F..', '..%2F..%2Fetc%2Fpasswd', '%2F', '%00', '%', '%zz', '%C0%AE', '%u002e', ';', '%3B', '*', '~', '-', 'a'.repeat(4_000)];

export type AuthKind = 'a' | 'b' | 'none' | 'garbageCookie' | 'bearerA' | 'bearerGarbage' | 'bothAB';

export interface RestCase {
  op: Operation;
  segments: string[];
  query: string;
  auth: AuthKind;
  garbageCookie: string;
  authorization: string | null;
  origin: string | null;
  extraHeaders: Array<[string, string]>;
  body: { kind: 'none' } | { kind: 'json'; value: unknown } | { kind: 'text'; text: string; contentType: string | null };
}

const GARBAGE_COOKIES = fc.oneof(
  fc.constantFrom('svc_session=', 'svc_session=x', 'svc_session=%00', 'svc_session="quoted"', 'svc_session=a; svc_session=b', '=;=;;', 'svc_session', ';;;;', 'svc_session=' + 'A'.repeat(6_000), 'svc_session=../../etc', 'other=1; svc_session=\u00ff\u00fe'),
  hostileString.map((s) => `svc_session=${headerSafe(s).slice(0, 6_000)}`),
);

const AUTHORIZATION = fc.oneof(
  fc.constantFrom('Bearer', 'Bearer ', 'Bearer agk_', 'Bearer agk_' + 'A'.repeat(43), 'bearer agk_x', 'Basic dXNlcjpwYXNz', 'Digest x', 'Bearer a b', 'Bearer\tagk_x', 'agk_x', 'Token abc', 'Bearer ' + 'x'.repeat(6_000)),
  hostileString.map((s) => headerSafe(`Bearer ${s}`).slice(0, 6_000)),
);

const ORIGINS = fc.constantFrom('null', 'http://evil.example', 'https://127.0.0.1', 'http://127.0.0.1', 'file://', '', 'http://127.0.0.1:1', '*', 'http://[::1]');

const HEADER_NAMES = ['x-request-id', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'accept', 'accept-language', 'if-none-match', 'if-modified-since', 'range', 'x-http-method-override', 'x-service-project', 'x-service-project-group', 'user-agent', 'referer', 'accept-encoding', 'x-custom'];
const EXTRA_HEADERS = fc.array(
  fc.tuple(
    fc.constantFrom(...HEADER_NAMES),
    fc.oneof(hostileString.map((s) => headerSafe(s).slice(0, 4_000)), fc.constantFrom('*', 'W/"0"', '"x"', 'DELETE', 'bytes=0-0', '*/*', 'text/event-stream', 'gzip, br', '0')),
  ),
  { maxLength: 3 },
);

const CONTENT_TYPES = fc.constantFrom(
  null,
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/xml',
  'application/merge-patch+json',
  'APPLICATION/JSON',
  'application/json',
  'application/octet-stream',
  '*/*',
  ';;;',
);

const INVALID_JSON = fc.oneof(
  fc.constantFrom('{', '}', '{"a":}', '{"a":1,}', "{'a':1}", 'undefined', 'NaN', '{"a":NaN}', '{"a":Infinity}', '[1,2', '"unterminated', '\u0000', '{"a":"\\u00"}', '{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"polluted":true}}}', 'null', 'true', '0', '""', '[]', '\ufeff{}', '{"a":1}{"b":2}', '{"a":1} trailing'),
  fc.string({ unit: 'binary', maxLength: 100 }),
  fc.constantFrom(1_100_000, 1_048_577).map((n) => `{"a":"${'x'.repeat(n)}"}`),
);

export function schemaContext(world: FuzzWorld, doc: OpenApiDoc): SchemaContext & { resolveKind(kind?: string): fc.Arbitrary<string> } {
  const schemas = doc.components?.schemas ?? {};
  const knownKeys = [...propertyNames(Object.values(schemas)), 'email', 'password', 'name', 'preset', 'permissions', 'expiresAt', 'projectUuid', 'unreadOnly', 'limit', 'offset'];
  return {
    resolve: (ref) => schemas[ref.replace('#/components/schemas/', '')] ?? {},
    uuids: world.uuidArb(),
    uuidsFor: (field) => world.uuidsForField(field),
    knownKeys: [...new Set(knownKeys)],
    resolveKind: (kind) => world.uuidArb(kind),
  };
}

/** All query parameter names of the document, for extra (undocumented on this route) parameters. */
export function queryNames(ops: Operation[]): string[] {
  return [...new Set(ops.flatMap((o) => o.query.map((q) => q.name)).concat(['unreadOnly', 'projectUuid', 'targetType', 'targetUuid']))].sort();
}

function queryArb(op: Operation, ctx: ReturnType<typeof schemaContext>, allNames: string[]): fc.Arbitrary<string> {
  const valueFor = (schema: JsonSchema): fc.Arbitrary<string> =>
    fc.oneof(
      { weight: 4, arbitrary: conforming(schema.type === 'array' ? (schema.items ?? { type: 'string' }) : schema, ctx).map((v) => (typeof v === 'string' ? v : JSON.stringify(v) ?? '')) },
      { weight: 2, arbitrary: hostileString.map((s) => s.slice(0, 3_000)) },
      { weight: 1, arbitrary: fc.constantFrom('', '-1', '0', '1e309', 'NaN', '-0', '1.5', '999999999999999999999', 'true', 'undefined') },
    );
  const own = op.query.length ? fc.constantFrom(...op.query) : fc.constant({ name: 'page', schema: { type: 'integer' } as JsonSchema });
  const param = fc.oneof(
    { weight: 4, arbitrary: own.chain((q) => fc.tuple(fc.constant(q.name), valueFor(q.schema))) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...allNames), valueFor({ type: 'string' })) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('__proto__', 'constructor', '__proto__[x]', 'a[b][c]', '', '%', 'page[]'), valueFor({ type: 'string' })) },
  );
  const form = fc.constantFrom('plain', 'plain', 'plain', 'brackets', 'indexed', 'repeated', 'nested');
  const entry = fc.tuple(param, form).map(([[name, value], f]) => {
    const n = pct(name).slice(0, 200).replace(/%[0-9A-F]?$/, '');
    const v = pct(value).slice(0, 3_000).replace(/%[0-9A-F]?$/, '');
    switch (f) {
      case 'brackets':
        return `${n}[]=${v}`;
      case 'indexed':
        return `${n}[0]=${v}&${n}[1]=${v}`;
      case 'repeated':
        return `${n}=${v}&${n}=${v}`;
      case 'nested':
        return `${n}[__proto__][x]=${v}`;
      default:
        return `${n}=${v}`;
    }
  });
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant('') },
    { weight: 6, arbitrary: fc.array(entry, { minLength: 1, maxLength: 4 }).map((es) => `?${es.join('&')}`) },
    { weight: 1, arbitrary: fc.constantFrom('?', '?&&==&', '?%', '?a=%zz', '?=x', '?page=1&page=2&page[]=3', `?q=${'x'.repeat(6_000)}`, '?pageSize=100&limit=100&offset=-5') },
  );
}

/** `arb` once in `every` cases, else null. */
const sometimes = <T>(arb: fc.Arbitrary<T>, every: number): fc.Arbitrary<T | null> => fc.oneof({ weight: every - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: arb });

export function caseArb(op: Operation, ctx: ReturnType<typeof schemaContext>, allNames: string[]): fc.Arbitrary<RestCase> {
  const segment = (param: string): fc.Arbitrary<string> =>
    fc.oneof(
      { weight: 8, arbitrary: ctx.resolveKind(kindOf(op.path, param)).map(pct) },
      { weight: 1, arbitrary: fc.constantFrom(...RAW_SEGMENTS) },
      { weight: 1, arbitrary: hostileString.map((s) => pct(s).slice(0, 3_000).replace(/%[0-9A-F]?$/, '')) },
    );
  const segments = op.pathParams.length ? fc.tuple(...op.pathParams.map(segment)) : fc.constant([] as string[]);
  const withBody = op.method === 'POST' || op.method === 'PUT' || op.method === 'PATCH';
  const value = op.body ? fuzzed(op.body, ctx) : hostileValue(ctx.knownKeys);
  const body: fc.Arbitrary<RestCase['body']> = fc.oneof(
    { weight: withBody ? 10 : 1, arbitrary: value.map((v) => ({ kind: 'json' as const, value: v })) },
    { weight: withBody ? 1 : 12, arbitrary: fc.constant({ kind: 'none' as const }) },
    { weight: 1, arbitrary: fc.tuple(INVALID_JSON, fc.constantFrom('application/json', 'application/json; charset=utf-8')).map(([text, contentType]) => ({ kind: 'text' as const, text, contentType })) },
    { weight: 1, arbitrary: fc.tuple(fc.oneof(value.map(toJsonText), fc.constantFrom('a=1&b=2', '<x/>', '')), CONTENT_TYPES).map(([text, contentType]) => ({ kind: 'text' as const, text, contentType })) },
    { weight: 1, arbitrary: hugeString.map((s) => ({ kind: 'text' as const, text: JSON.stringify({ content: s, title: s }), contentType: 'application/json' })) },
  );
  const auth = fc.oneof(
    { weight: 10, arbitrary: fc.constant<AuthKind>('a') },
    { weight: 1, arbitrary: fc.constantFrom<AuthKind>('b', 'none', 'garbageCookie', 'bearerA', 'bearerGarbage', 'bothAB') },
  );
  return fc.record({
    op: fc.constant(op),
    segments,
    query: queryArb(op, ctx, allNames),
    auth,
    garbageCookie: GARBAGE_COOKIES,
    authorization: sometimes(AUTHORIZATION, 6),
    origin: sometimes(ORIGINS, 8),
    extraHeaders: fc.oneof({ weight: 3, arbitrary: fc.constant([] as Array<[string, string]>) }, { weight: 1, arbitrary: EXTRA_HEADERS }),
    body,
  });
}

/** The raw HTTP request of a case. */
export function buildRequest(c: RestCase, a: Company, b: Company): RawRequest {
  let i = 0;
  const path = c.op.path.replace(/\{[^}]+\}/g, () => c.segments[i++]) + c.query;
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of c.extraHeaders) headers[k] = v;
  switch (c.auth) {
    case 'a':
      headers.cookie = a.cookie;
      break;
    case 'b':
      headers.cookie = b.cookie;
      break;
    case 'bothAB':
      headers.cookie = `${a.cookie}; ${b.cookie}`;
      break;
    case 'garbageCookie':
      headers.cookie = c.garbageCookie;
      break;
    case 'bearerA':
      headers.authorization = `Bearer ${a.adminKey}`;
      break;
    case 'bearerGarbage':
      headers.authorization = c.authorization ?? 'Bearer agk_nope';
      break;
    default:
  }
  if (c.authorization && c.auth === 'a') headers.authorization = c.authorization;
  if (c.origin !== null) headers.origin = c.origin;
  let body: string | undefined;
  if (c.body.kind === 'json') {
    body = toJsonText(c.body.value);
    headers['content-type'] = 'application/json';
  } else if (c.body.kind === 'text') {
    body = c.body.text;
    if (c.body.contentType !== null) headers['content-type'] = c.body.contentType;
  }
  return withinHeaderLimit({ method: c.op.method, path, headers, body });
}

/** Node answers 431 itself above 16 KiB of request line + headers; keep hostile sizes just within that limit. */
export const HEADER_BUDGET = 14_000;

function withinHeaderLimit(req: RawRequest): RawRequest {
  const size = (): number => req.path.length + Object.entries(req.headers ?? {}).reduce((n, [k, v]) => n + k.length + String(v).length + 4, 0);
  const headers = req.headers!;
  for (const name of ['x-custom', 'referer', 'user-agent', 'accept-language', 'x-forwarded-for', 'if-none-match', 'x-request-id']) {
    if (size() <= HEADER_BUDGET) break;
    delete headers[name];
  }
  for (const name of Object.keys(headers).filter((k) => k !== 'cookie' && k !== 'authorization' && k !== 'content-type')) {
    if (size() <= HEADER_BUDGET) break;
    headers[name] = String(headers[name]).slice(0, 200);
  }
  if (size() > HEADER_BUDGET) req.path = req.path.slice(0, Math.max(20, req.path.length - (size() - HEADER_BUDGET))).replace(/%[0-9A-Fa-f]?$/, '');
  return req;
}
