import fc from 'fast-check';
import { fuzzParams, fuzzTimeout, OutcomeStats, settle } from './support/config.js';
import { DbChecksum } from './support/db-checksum.js';
import { restProblems, rpcEnvelopeProblems } from './support/expectations.js';
import { FuzzWorld } from './support/fuzz-world.js';
import { headerSafe, hostileString, hostileValue, raw, toJsonText } from './support/hostile.js';
import { MCP_HEADERS } from './support/mcp-cases.js';
import { describeRequest, send, type RawRequest } from './support/raw-http.js';

/**
 * JSON-RPC framing of `POST /api/mcp`: invalid JSON, wrong or missing `jsonrpc`, missing/odd ids (huge, 1e309,
 * objects), missing or unknown methods, non-object params, batches, notifications, and wrong Accept / Content-Type /
 * Authorization / methods. Every answer: no 5xx, no hang, a JSON-RPC body (202 empty for notifications), ids echoed;
 * the database unchanged by anything but a successful tools/call.
 */
const ID = fc.oneof(
  { weight: 4, arbitrary: fc.integer() },
  { weight: 2, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, true, {}, [], 1.5, -0, 2 ** 60, 'x'.repeat(100_000), raw('1e309'), raw('123456789012345678901234567890'), raw('-0')) },
);
const METHOD = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('tools/list', 'tools/call', 'initialize', 'ping') },
  { weight: 2, arbitrary: fc.constantFrom('notifications/initialized', 'notifications/cancelled', 'resources/list', 'prompts/list', 'logging/setLevel', 'completion/complete', 'tasks/get', 'tools/List', 'rpc.discover', '', '__proto__') },
  { weight: 1, arbitrary: hostileString },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(1, null, ['tools/list'], { m: 1 }) },
);
const TOOL_NAME = fc.oneof(fc.constantFrom('svc_list_projects', 'svc_get_project', 'svc_nope', 'svc_admin_delete_task', ''), hostileString, fc.constantFrom<unknown>(1, null, ['svc_checkin']));
const PARAMS = fc.oneof(
  { weight: 4, arbitrary: fc.record({ name: TOOL_NAME, arguments: fc.oneof(fc.constant({}), fc.constant({ projectUuid: 'x' }), hostileValue()) }, { requiredKeys: [] }) },
  { weight: 1, arbitrary: fc.record({ cursor: fc.oneof(hostileString, fc.integer()), _meta: hostileValue(), task: hostileValue() }, { requiredKeys: [] }) },
  { weight: 1, arbitrary: fc.record({ protocolVersion: fc.oneof(fc.constantFrom('2025-06-18', '2025-03-26', '1.0'), hostileString), capabilities: hostileValue(), clientInfo: hostileValue() }, { requiredKeys: [] }) },
  { weight: 2, arbitrary: hostileValue() },
);
const JSONRPC = fc.oneof({ weight: 8, arbitrary: fc.constant<unknown>('2.0') }, { weight: 1, arbitrary: fc.constantFrom<unknown>('1.0', '2', 2, 2.0, null, '2.0 ', '') });
const MESSAGE = fc.oneof(
  // request-shaped: reaches the SDK server most of the time
  { weight: 6, arbitrary: fc.record({ jsonrpc: JSONRPC, id: ID, method: METHOD, params: PARAMS }, { requiredKeys: ['jsonrpc', 'id', 'method'] }) },
  // notification-shaped
  { weight: 1, arbitrary: fc.record({ jsonrpc: JSONRPC, method: METHOD, params: PARAMS }, { requiredKeys: ['jsonrpc', 'method'] }) },
  // anything: responses, requests carrying result/error members, missing members
  {
    weight: 2,
    arbitrary: fc.record(
      { jsonrpc: JSONRPC, id: ID, method: METHOD, params: PARAMS, result: hostileValue(), error: fc.oneof(fc.constant<unknown>({ code: -32000, message: 'x' }), hostileValue()) },
      { requiredKeys: [] },
    ),
  },
);

const BODY = fc.oneof(
  { weight: 10, arbitrary: MESSAGE.map(toJsonText) },
  { weight: 2, arbitrary: fc.array(MESSAGE, { maxLength: 4 }).map(toJsonText) },
  { weight: 1, arbitrary: fc.constantFrom('', '{', '{"jsonrpc":"2.0",', 'null', '[]', '"x"', '1', 'true', '{"jsonrpc":"2.0","id":1,"method":"tools/list"}{}', '\ufeff{"jsonrpc":"2.0","id":1,"method":"ping"}', '{"jsonrpc":"2.0","id":1,"method":"ping","params":' + '['.repeat(10_000) + ']'.repeat(10_000) + '}') },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
);

const ACCEPT = fc.oneof(
  { weight: 8, arbitrary: fc.constant<string | null>(MCP_HEADERS.accept) },
  { weight: 1, arbitrary: fc.constantFrom<string | null>(null, 'application/json', 'text/event-stream', '*/*', 'text/event-stream, application/json;q=0', 'application/json,text/event-stream', '', 'text/html') },
);
const CONTENT_TYPE = fc.oneof(
  { weight: 8, arbitrary: fc.constant<string | null>('application/json') },
  { weight: 1, arbitrary: fc.constantFrom<string | null>(null, 'text/plain', 'application/json; charset=utf-8', 'application/jsonx', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', 'APPLICATION/JSON') },
);
type Auth = 'a' | 'b' | 'none' | 'cookie' | 'garbage';
const AUTH = fc.oneof({ weight: 8, arbitrary: fc.constant<Auth>('a') }, { weight: 1, arbitrary: fc.constantFrom<Auth>('b', 'none', 'cookie', 'garbage') });
const HTTP_METHOD = fc.oneof({ weight: 12, arbitrary: fc.constant('POST') }, { weight: 1, arbitrary: fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD') });

interface FramingCase {
  method: string;
  path: string;
  body: string;
  accept: string | null;
  contentType: string | null;
  auth: Auth;
  garbage: string;
}

const CASE: fc.Arbitrary<FramingCase> = fc.record({
  method: HTTP_METHOD,
  path: fc.oneof({ weight: 12, arbitrary: fc.constant('/api/mcp') }, { weight: 1, arbitrary: fc.constantFrom('/api/mcp/', '/api/mcp?x=1', '/api/mcp/..', '/api/MCP', '/api/mcp%2F', '/api//mcp') }),
  body: BODY,
  accept: ACCEPT,
  contentType: CONTENT_TYPE,
  auth: AUTH,
  garbage: hostileString.map((s) => headerSafe(`Bearer ${s}`).slice(0, 4_000)),
});

/** Whether a 200 answer is a JSON-RPC response (or a list of them) with well-formed result/error members. */
function responseProblems(json: unknown, text: string): string[] {
  const one = (m: unknown): string[] => {
    if (typeof m !== 'object' || m === null || Array.isArray(m)) return [`not a JSON-RPC response: ${text.slice(0, 200)}`];
    const r = m as Record<string, unknown>;
    if (r.jsonrpc !== '2.0') return [`response without jsonrpc 2.0: ${text.slice(0, 200)}`];
    if ('error' in r) {
      const e = r.error as Record<string, unknown> | null;
      if (!e || typeof e.code !== 'number' || typeof e.message !== 'string') return [`malformed JSON-RPC error: ${text.slice(0, 200)}`];
      if (e.code === -32603) return [`JSON-RPC internal error: ${text.slice(0, 300)}`];
      if (/"code"\s*:\s*"invalid_|ZodError|\bat \w+ \(/.test(e.message)) return [`JSON-RPC error leaks validator/stack internals: ${e.message.slice(0, 300)}`];
      return [];
    }
    if (!('result' in r)) return [`response without result or error: ${text.slice(0, 200)}`];
    const result = r.result as { isError?: boolean; content?: Array<{ text?: string }> } | null;
    if (result?.isError) {
      const code = (JSON.parse(result.content?.[0]?.text ?? '{}') as { error?: { code?: string } }).error?.code;
      if (code === 'INTERNAL_ERROR' || code === 'SERVICE_UNAVAILABLE') return [`tool error ${code}: ${text.slice(0, 300)}`];
    }
    return [];
  };
  return Array.isArray(json) ? json.flatMap(one) : one(json);
}

describe('fuzz: MCP JSON-RPC framing', () => {
  let world: FuzzWorld;
  const stats = new OutcomeStats();

  beforeAll(async () => {
    world = await FuzzWorld.start();
  }, 60_000);
  afterAll(async () => {
    stats.print('MCP framing');
    await world?.close();
  });

  function request(c: FramingCase): RawRequest {
    const headers: Record<string, string> = {};
    if (c.accept !== null) headers.accept = c.accept;
    if (c.contentType !== null) headers['content-type'] = c.contentType;
    if (c.auth === 'a') headers.authorization = `Bearer ${world.a.adminKey}`;
    if (c.auth === 'b') headers.authorization = `Bearer ${world.b.adminKey}`;
    if (c.auth === 'cookie') headers.cookie = world.a.cookie;
    if (c.auth === 'garbage') headers.authorization = c.garbage;
    return { method: c.method, path: c.path, headers, body: c.method === 'GET' || c.method === 'HEAD' ? undefined : c.body };
  }

  it(
    'hostile JSON-RPC messages and headers: JSON-RPC answers only, no 5xx, no state change',
    async () => {
      await fc.assert(
        fc.asyncProperty(CASE, async (c) => {
          const req = request(c);
          const before = await world.checksum.take();
          let problems: string[] = [];
          try {
            const res = await send(world.url, req);
            stats.add(`${res.status} ${(res.json as { error?: { code?: number } } | undefined)?.error?.code ?? ''}`);
            if (res.status >= 500) problems.push(`HTTP ${res.status}: ${res.text.slice(0, 300)}`);
            if (req.method === 'HEAD') {
              // no body to check
            } else if (res.status === 200) {
              problems.push(...responseProblems(res.json, res.text));
              if (!String(res.headers['content-type']).startsWith('application/json')) problems.push(`content-type ${res.headers['content-type']}`);
            } else if (req.path.split('?')[0] !== '/api/mcp' && res.status !== 202 && !(res.json as { jsonrpc?: unknown } | undefined)?.jsonrpc) {
              // A path next to the endpoint (`/api//mcp`, `/api/MCP`) that the endpoint did not serve: a REST answer.
              problems.push(...restProblems({ ...req, path: '/api/other' }, res));
            } else {
              problems.push(...rpcEnvelopeProblems(res));
            }
            const toolCalled = res.status === 200 && /"method"\s*:\s*"tools\/call"/.test(c.body) && !/"isError":true/.test(res.text);
            if (!toolCalled) problems.push(...DbChecksum.diff(before, await world.checksum.take()).map((p) => `HTTP ${res.status} but ${p}`));
          } catch (err) {
            problems = [`request failed: ${String(err)}`];
          }
          settle(problems, () => describeRequest(req));
        }),
        fuzzParams(6),
      );
    },
    fuzzTimeout(6),
  );
});
