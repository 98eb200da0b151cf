import { jest } from '@jest/globals';
import { CredentialResolver } from '../../src/shared/auth/auth-context.js';
import { McpEndpoint } from '../../src/modules/tools/index.js';
import { mcpClient, rpc } from '../utils/mcp-client.js';
import { adminQuery } from '../utils/test-database.js';
import { World } from '../utils/world.js';

describe('tool endpoint transport (e2e)', () => {
  let app: World;
  let key: string;
  let revokedKey: string;
  const auth = () => ({ authorization: `Bearer ${key}` });

  beforeAll(async () => {
    app = await World.start({ env: { CORS_ORIGINS: 'http://cors.example' } });
    const f = app.ids;
    const c = await f.company();
    const u = await f.user(c.uuid);
    key = (await f.agent(c.uuid, u.uuid, { preset: 'developer_agent' })).key;
    const revoked = await f.agent(c.uuid, u.uuid);
    revokedKey = revoked.key;
    await app.db.dataSource.query(`UPDATE agent_api_key SET revoked_at = now() WHERE uuid = $1`, [revoked.keyUuid]);
  });
  afterAll(() => app.close());

  it.each([
    ['missing', undefined],
    ['malformed', 'Bearer nope'],
    ['unknown', `Bearer agk_${'A'.repeat(43)}`],
    ['revoked', 'revoked'],
  ])('answers a %s key with 401, WWW-Authenticate and JSON-RPC -32001', async (_label, header) => {
    const headers: Record<string, string> = {};
    if (header === 'revoked') headers.authorization = `Bearer ${revokedKey}`;
    else if (header) headers.authorization = header;
    const res = await rpc(app.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers);
    expect(res.status).toBe(401);
    // docs/platform.md §2.5: the invalid_token error only when a credential was sent.
    expect(res.headers.get('www-authenticate')).toBe(
      header === undefined ? 'Bearer realm="svc"' : 'Bearer realm="svc", error="invalid_token", error_description="Missing or invalid API key"',
    );
    expect(res.json).toEqual({ jsonrpc: '2.0', error: { code: -32001, message: 'Missing or invalid API key' }, id: null });
  });

  it('comes before every REST route in Express\'s router: the tool endpoint module is scanned first, so agents never walk the REST routes', () => {
    const express = app.service.app.getHttpAdapter().getInstance() as { router: { stack: Array<{ route?: { path: string } }> } };
    const routes = express.router.stack.filter((l) => l.route).map((l) => l.route!.path);
    expect(routes.length).toBeGreaterThan(50);
    // Only the API document's routes (set up before the modules' routes) and the OAuth pages, which the tool
    // endpoint's module imports, come first; no REST route of the domain does.
    const ahead = routes.slice(0, routes.indexOf('/api/mcp'));
    expect(ahead.filter((path) => !path.startsWith('/api/docs') && !path.startsWith('/oauth/'))).toEqual([]);
    expect(ahead.length).toBeLessThan(15);
  });

  it('authenticates before it reads the body: no key answers 401 even for malformed, too deep or too large bodies', async () => {
    const bodies = ['{"jsonrpc": "2.0", "id": 1, "method": ', '['.repeat(100) + ']'.repeat(100), JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(1_100_000) } })];
    for (const body of bodies) {
      const res = await fetch(`${app.url}/api/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body,
      });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ jsonrpc: '2.0', error: { code: -32001, message: 'Missing or invalid API key' }, id: null });
    }
    // With a key the same malformed body is the parse error, as before.
    const parsed = await fetch(`${app.url}/api/mcp`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: bodies[0],
    });
    expect(parsed.status).toBe(400);
    expect(((await parsed.json()) as { error: { code: number } }).error.code).toBe(-32700);
  });

  it('answers GET and DELETE with 405, Allow: POST and a JSON-RPC body', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${app.url}/api/mcp`, { method, headers: auth() });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(await res.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed' }, id: null });
    }
  });

  it('checks Accept (406) and Content-Type (415) after authentication', async () => {
    const noAccept = await rpc(app.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { ...auth(), accept: 'application/json' });
    expect(noAccept.status).toBe(406);
    expect(noAccept.json.error.code).toBe(-32000);
    const wrongType = await rpc(app.url, 'x', { ...auth(), 'content-type': 'text/plain' });
    expect(wrongType.status).toBe(415);
    expect(wrongType.json.jsonrpc).toBe('2.0');
  });

  it('answers malformed JSON with 400 -32700 and batches with a JSON-RPC error', async () => {
    const bad = await rpc(app.url, '{"jsonrpc":', auth());
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: the body is empty or not valid JSON' }, id: null });
    const batch = await rpc(app.url, [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }], auth());
    expect(batch.status).toBe(400);
    expect(batch.json.error.code).toBe(-32600);
    const shapeless = await rpc(app.url, { hello: 'world' }, auth());
    expect(shapeless.status).toBe(400);
    expect(shapeless.json.error.code).toBe(-32600);
  });

  it('answers a body nested thousands of levels deep with 400 -32700, not 500', async () => {
    const deep = '['.repeat(20_000) + ']'.repeat(20_000);
    const res = await rpc(app.url, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"svc_checkin","arguments":{"x":${deep}}}}`, auth());
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: 'JSON body is nested too deeply (at most 64 levels)' }, id: null });
  });

  it('answers a message the SDK would drop unanswered with 400 -32600 at once instead of hanging', async () => {
    const dropped = [
      { jsonrpc: '2.0', id: 1, method: 'tools/list', result: {} },
      { jsonrpc: '2.0', id: 2, method: 'ping', error: { code: -32000, message: 'x' } },
      { jsonrpc: '2.0', id: 1.5, method: 'ping' },
      { jsonrpc: '2.0', id: 4, method: 'tools/list', stray: true },
    ];
    for (const body of dropped) {
      const res = await fetch(`${app.url}/api/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...auth() },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(5_000),
      });
      // The SDK names the request's id when the message has a usable one.
      const json = (await res.json()) as { error: { code: number; message: string }; id: unknown };
      expect({ body, status: res.status, code: json.error.code, message: json.error.message }).toEqual({ body, status: 400, code: -32600, message: expect.stringMatching(/^(Bad Request|Invalid Request)/) });
      expect([null, body.id]).toContainEqual(json.id);
    }
  });

  it('answers params its method refuses with -32602 "Invalid params", never -32603 with the validator\'s dump', async () => {
    for (const [id, method, params] of [
      [1, 'tools/call', {}],
      [2, 'tools/call', { name: 5 }],
      [3, 'initialize', {}],
      [4, 'tools/list', { cursor: 5 }],
      [5, 'ping', { _meta: 5 }],
    ] as const) {
      const res = await rpc(app.url, { jsonrpc: '2.0', id, method, params }, auth());
      expect({ method, status: res.status, json: res.json }).toEqual({ method, status: 200, json: { jsonrpc: '2.0', id, error: { code: -32602, message: 'Invalid params' } } });
    }
    // Task augmentation: no tasks capability; the request is served as a plain one (never -32603).
    for (const method of ['ping', 'tools/list']) {
      const res = await rpc(app.url, { jsonrpc: '2.0', id: 5, method, params: { task: { ttl: 1000 } } }, auth());
      expect(res.status).toBe(200);
      expect(res.json.result).toBeDefined();
    }
  });

  it('answers a known tool called with non-object arguments with its VALIDATION_ERROR result (path ""), an unknown one with -32602', async () => {
    for (const args of ['x', null, [], 5]) {
      const res = await rpc(app.url, { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'svc_list_projects', arguments: args } }, auth());
      expect(res.status).toBe(200);
      expect(res.json.id).toBe(9);
      expect(res.json.result.isError).toBe(true);
      expect(JSON.parse(res.json.result.content[0].text)).toEqual({
        error: { code: 'VALIDATION_ERROR', message: 'Invalid arguments', details: [{ path: '', message: expect.any(String) }] },
      });
    }
    const unknown = await rpc(app.url, { jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'svc_nope', arguments: 'x' } }, auth());
    expect(unknown.json).toEqual({ jsonrpc: '2.0', id: 10, error: { code: -32602, message: 'Unknown tool: svc_nope' } });
  });

  it('refuses text PostgreSQL cannot store (NUL, unpaired surrogates) in any string argument with VALIDATION_ERROR naming its path (was 500)', async () => {
    for (const [query, message] of [
      ['a\u0000b', 'must not contain NUL (U+0000) characters'],
      ['\ud800x', 'must be well-formed Unicode (no unpaired surrogates)'],
    ]) {
      const res = await rpc(app.url, { jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'svc_search', arguments: { query } } }, auth());
      expect(res.json.result.isError).toBe(true);
      expect(JSON.parse(res.json.result.content[0].text)).toEqual({ error: { code: 'VALIDATION_ERROR', message: 'Invalid arguments', details: [{ path: 'query', message }] } });
    }
  });

  it('answers 413 with a JSON-RPC body over 1 MiB', async () => {
    const res = await rpc(app.url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: { pad: 'x'.repeat(1.1 * 1024 * 1024) } } }, auth());
    expect(res.status).toBe(413);
    expect(res.json.jsonrpc).toBe('2.0');
  });

  it('works without initialize, issues no session id, answers notifications with 202', async () => {
    const list = await rpc(app.url, { jsonrpc: '2.0', id: 7, method: 'tools/list' }, auth());
    expect(list.status).toBe(200);
    expect(list.headers.get('content-type')).toMatch(/^application\/json/);
    expect(list.headers.get('mcp-session-id')).toBeNull();
    expect(list.json.id).toBe(7);
    expect(Array.isArray(list.json.result.tools)).toBe(true);
    const note = await rpc(app.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, auth());
    expect(note.status).toBe(202);
    expect(note.text).toBe('');
    const unknownMethod = await rpc(app.url, { jsonrpc: '2.0', id: 8, method: 'resources/list' }, auth());
    expect(unknownMethod.json.error.code).toBe(-32601);
  });

  it('answers initialize as server "svc" with the tools capability', async () => {
    const res = await rpc(app.url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } } }, auth());
    expect(res.status).toBe(200);
    expect(res.json.result.serverInfo.name).toBe('svc');
    expect(Object.keys(res.json.result.capabilities)).toEqual(['tools']);
  });

  it('serves the official SDK client and answers an unknown tool with -32602', async () => {
    const client = await mcpClient(app.url, key);
    const { tools } = await client.listTools();
    expect(Array.isArray(tools)).toBe(true);
    await expect(client.callTool({ name: 'svc_does_not_exist', arguments: {} })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('Unknown tool: svc_does_not_exist') });
    await client.close();
  });

  it('serves POST through the controller with the request id, CORS, the access log line and the latency metric', async () => {
    const auth0 = await app.get(CredentialResolver).resolveApiKey(key);
    const res = await rpc(app.url, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'svc_list_projects', arguments: {} } }, { ...auth(), 'x-request-id': 'mcp-fast-path-1' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('mcp-fast-path-1');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const cors = await rpc(app.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { ...auth(), origin: 'http://cors.example' });
    expect(cors.status).toBe(200);
    expect(cors.headers.get('access-control-allow-origin')).toBe('http://cors.example');
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(res.text));
    const lines = app.logs.filter((l) => l.requestId === 'mcp-fast-path-1');
    expect(lines.filter((l) => l.msg === 'request')).toEqual([
      expect.objectContaining({ method: 'POST', route: '/api/mcp', status: 200, companyUuid: auth0!.actor.companyUuid, actor: `agent:${auth0!.actor.uuid}` }),
    ]);
    expect(lines.filter((l) => l.msg === 'tool call')).toEqual([expect.objectContaining({ tool: 'svc_list_projects', outcome: 'ok' })]);
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    expect(metrics).toMatch(/svc_http_request_duration_seconds_count\{method="POST",route="\/api\/mcp",status="200"\} [1-9]/);
    expect(metrics).toMatch(/svc_mcp_calls_total\{tool="svc_list_projects",outcome="ok"\} [1-9]/);
  });

  it('serves every request, tools/list and tools/call included, with a fresh per-request SDK server', async () => {
    const endpoint = app.get(McpEndpoint);
    const spy = jest.spyOn(endpoint as unknown as { createServer: (...a: unknown[]) => unknown }, 'createServer');
    try {
      await rpc(app.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, auth());
      await rpc(app.url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'svc_list_projects', arguments: {} } }, auth());
      expect(spy).toHaveBeenCalledTimes(2);
      expect(spy.mock.results[0].value).not.toBe(spy.mock.results[1].value);
    } finally {
      spy.mockRestore();
    }
  });

  it('answers an unreachable database with 503 -32003 and Retry-After, anything else with 500 -32603 and a logged errorId', async () => {
    const resolver = app.get(CredentialResolver);
    const original = resolver.resolveApiKey;
    resolver.resolveApiKey = () => Promise.reject(new Error('unexpected'));
    try {
      const res = await rpc(app.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { ...auth(), 'x-request-id': 'mcp-internal-1' });
      expect(res.status).toBe(500);
      expect(res.json).toEqual({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error', data: { errorId: expect.any(String) } }, id: null });
      expect(app.logs.find((l) => l.requestId === 'mcp-internal-1' && l.msg === 'unhandled error')).toMatchObject({ errorId: res.json.error.data.errorId });
    } finally {
      resolver.resolveApiKey = original;
    }

    await adminQuery(`ALTER DATABASE "${app.db.name}" WITH ALLOW_CONNECTIONS false`);
    try {
      await adminQuery(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${app.db.name}'`);
      const down = await rpc(app.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, auth());
      expect(down.status).toBe(503);
      expect(down.headers.get('retry-after')).toBe('5');
      expect(down.json).toEqual({ jsonrpc: '2.0', error: { code: -32003, message: 'Service unavailable' }, id: null });
    } finally {
      await adminQuery(`ALTER DATABASE "${app.db.name}" WITH ALLOW_CONNECTIONS true`);
    }
    let up = await rpc(app.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, auth());
    for (let i = 0; i < 20 && up.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      up = await rpc(app.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, auth());
    }
    expect(up.status).toBe(200);
  });
});
