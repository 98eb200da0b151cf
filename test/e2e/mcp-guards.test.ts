import { randomUUID } from 'node:crypto';
import { rpc } from '../utils/mcp-client.js';
import { World } from '../utils/world.js';

/**
 * The tool endpoint's guards and transport MUSTs (docs/platform.md §4, docs/tool-conventions.md §1.5): Origin (DNS rebinding), protocol
 * version, 2026-07-28 header checks, cursors, the permission guard ahead of argument validation, the narrowing
 * headers, and the per-tool interceptor (log line and metrics through Nest's execution context).
 */
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

function modern(method: string, params: Record<string, unknown> = {}, id: number | string = 1) {
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta: META } };
}

describe('tool endpoint guards and MUSTs (e2e)', () => {
  let app: World;
  let dev: string;
  const auth = (key = dev) => ({ authorization: `Bearer ${key}` });
  const modernHeaders = (method: string, name?: string) => ({ ...auth(), 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}) });

  beforeAll(async () => {
    app = await World.start({ env: { MCP_RATE_LIMIT_PER_MINUTE: '0' } });
    const f = app.ids;
    const c = await f.company();
    const u = await f.user(c.uuid);
    dev = (await f.agent(c.uuid, u.uuid, { preset: 'developer_agent' })).key;
  }, 120_000);
  afterAll(() => app?.close());

  it('refuses a foreign Origin with 403 before anything else; loopback origins and no Origin pass (neither PUBLIC_URL nor CORS_ORIGINS set)', async () => {
    for (const origin of ['https://evil.example', 'http://localhost.evil.example', 'null', `http://127.0.0.1.nip.io:${new URL(app.url).port}`]) {
      const res = await rpc(app.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { ...auth(), origin });
      expect({ origin, status: res.status, json: res.json }).toEqual({ origin, status: 403, json: { jsonrpc: '2.0', error: { code: -32000, message: 'Forbidden: Origin not allowed' }, id: null } });
    }
    // A Host header naming the evil site does not make its Origin "our own".
    const rebound = await rpc(app.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { ...auth(), origin: 'http://evil.example', host: 'evil.example' });
    expect(rebound.status).toBe(403);
    for (const origin of ['http://localhost:5173', 'http://127.0.0.1:3000', 'http://[::1]:8080', 'https://localhost']) {
      const res = await rpc(app.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { ...auth(), origin });
      expect({ origin, status: res.status }).toEqual({ origin, status: 200 });
    }
    // Authentication still comes first: a foreign Origin without a key is a 401.
    expect((await rpc(app.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { origin: 'https://evil.example' })).status).toBe(401);
  });

  it('answers an unsupported MCP-Protocol-Version with 400 on both eras', async () => {
    const legacy = await rpc(app.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { ...auth(), 'mcp-protocol-version': '1999-01-01' });
    expect(legacy.status).toBe(400);
    expect(legacy.json.error.message).toMatch(/Unsupported protocol version: 1999-01-01/);
    const future = await rpc(app.url, { ...modern('tools/list'), params: { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } } }, { ...modernHeaders('tools/list'), 'mcp-protocol-version': '2099-01-01' });
    expect(future.status).toBe(400);
    expect(future.json.error).toMatchObject({ code: -32022, data: { requested: '2099-01-01', supported: expect.arrayContaining(['2026-07-28']) } });
  });

  it('checks Mcp-Method and Mcp-Name against the body on 2026-07-28 requests', async () => {
    const body = modern('tools/call', { name: 'svc_list_projects', arguments: {} });
    expect((await rpc(app.url, body, modernHeaders('tools/call', 'svc_list_projects'))).status).toBe(200);
    for (const headers of [modernHeaders('tools/call'), modernHeaders('tools/call', 'svc_get_task'), modernHeaders('tools/list', 'svc_list_projects'), { ...auth(), 'mcp-protocol-version': '2026-07-28' }]) {
      const res = await rpc(app.url, body, headers);
      expect({ headers, status: res.status, code: res.json.error?.code }).toEqual({ headers, status: 400, code: -32020 });
    }
  });

  it('answers server/discover with the instructions, and a cursor it never issued with -32602', async () => {
    const discover = await rpc(app.url, modern('server/discover'), modernHeaders('server/discover'));
    expect(discover.status).toBe(200);
    expect(discover.json.result).toMatchObject({ supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, instructions: expect.stringContaining('svc_checkin') });
    expect(discover.json.result.instructions.length).toBeLessThan(1500);
    for (const [body, headers] of [
      [modern('tools/list', { cursor: 'abc' }), modernHeaders('tools/list')],
      [{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 'abc' } }, auth()],
    ] as const) {
      const res = await rpc(app.url, body, headers);
      expect(res.json.error).toEqual({ code: -32602, message: 'Invalid cursor' });
    }
  });

  it('refuses subscriptions/listen (no streams here) with -32601, and other unknown methods likewise', async () => {
    const listen = await rpc(app.url, modern('subscriptions/listen', { notifications: { toolsListChanged: true } }), modernHeaders('subscriptions/listen'));
    expect(listen.status).toBe(404);
    expect(listen.headers.get('content-type')).toMatch(/^application\/json/);
    expect(listen.json).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found: subscriptions/listen' } });
    const unknown = await rpc(app.url, { jsonrpc: '2.0', id: 2, method: 'resources/list' }, auth());
    expect(unknown.json.error.code).toBe(-32601);
  });

  it('answers the methods 2026-07-28 removed (initialize, ping) with 404 -32601 on a modern request, not 200 -32602', async () => {
    // The conformance suite's server-stateless probes (sep-2575-http-server-method-not-found-404-*).
    for (const method of ['initialize', 'ping', 'logging/setLevel']) {
      const res = await rpc(app.url, modern(method, {}, 500), modernHeaders(method));
      expect({ method, status: res.status, code: res.json.error?.code, id: res.json.id }).toEqual({ method, status: 404, code: -32601, id: 500 });
    }
  });

  it('refuses a hidden tool as unknown whatever its arguments: the permission guard runs before validation', async () => {
    for (const args of [{}, { name: 5, bogus: true }, { name: 'ok' }]) {
      for (const [body, headers] of [
        [{ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'svc_admin_create_project', arguments: args } }, auth()],
        [modern('tools/call', { name: 'svc_admin_create_project', arguments: args }, 7), modernHeaders('tools/call', 'svc_admin_create_project')],
      ] as const) {
        const res = await rpc(app.url, body, headers);
        expect(res.json).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'Unknown tool: svc_admin_create_project' } });
      }
    }
    // A permitted tool with the same bad arguments reaches validation, with paths named.
    const visible = await rpc(app.url, { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'svc_get_task', arguments: { taskUuid: 'x', bogus: 1 } } }, auth());
    expect(JSON.parse(visible.json.result.content[0].text).error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: expect.arrayContaining([expect.objectContaining({ path: 'taskUuid' }), { path: 'bogus', message: 'should not exist' }]),
    });
  });

  it('narrows the list with X-MCP-Tools and X-MCP-Readonly, never widening it, and warns about unknown names', async () => {
    const all = (await rpc(app.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, auth())).json.result.tools as Array<{ name: string; annotations: { readOnlyHint: boolean } }>;
    const readOnly = await rpc(app.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { ...auth(), 'x-mcp-readonly': 'true' });
    expect(readOnly.json.result.tools.map((t: { name: string }) => t.name)).toEqual(all.filter((t) => t.annotations.readOnlyHint).map((t) => t.name));
    expect(readOnly.json.result._meta).toBeUndefined();
    const only = await rpc(app.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { ...auth(), 'x-mcp-tools': 'svc_get_task, svc_admin_create_project,svc_nope,svc_claim_task' });
    // svc_admin_create_project exists but is not permitted: narrowing never adds it, and does not reveal it either.
    expect(only.json.result.tools.map((t: { name: string }) => t.name)).toEqual(['svc_get_task', 'svc_claim_task']);
    expect(only.json.result._meta).toEqual({ warnings: ['X-MCP-Tools names an unknown tool: svc_nope'] });
    const both = await rpc(app.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { ...auth(), 'x-mcp-tools': 'svc_get_task,svc_claim_task', 'x-mcp-readonly': 'true' });
    expect(both.json.result.tools.map((t: { name: string }) => t.name)).toEqual(['svc_get_task']);
    // A narrowed-away tool is not callable on that request.
    const call = await rpc(app.url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'svc_claim_task', arguments: { taskUuid: randomUUID() } } }, { ...auth(), 'x-mcp-readonly': 'true' });
    expect(call.json.error).toEqual({ code: -32602, message: 'Unknown tool: svc_claim_task' });
  });

  it('runs each tool call through its interceptor: one log line and the metrics per tool, on both eras', async () => {
    await rpc(app.url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'svc_list_projects', arguments: {} } }, { ...auth(), 'x-request-id': 'guards-legacy-1' });
    await rpc(app.url, modern('tools/call', { name: 'svc_list_projects', arguments: { page: 0 } }), { ...modernHeaders('tools/call', 'svc_list_projects'), 'x-request-id': 'guards-modern-1' });
    expect(app.logs.filter((l) => l.requestId === 'guards-legacy-1' && l.msg === 'tool call')).toEqual([expect.objectContaining({ tool: 'svc_list_projects', outcome: 'ok' })]);
    expect(app.logs.filter((l) => l.requestId === 'guards-modern-1' && l.msg === 'tool call')).toEqual([expect.objectContaining({ tool: 'svc_list_projects', outcome: 'error' })]);
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    expect(metrics).toMatch(/svc_mcp_calls_total\{tool="svc_list_projects",outcome="ok"\} [1-9]/);
    expect(metrics).toMatch(/svc_mcp_calls_total\{tool="svc_list_projects",outcome="error"\} [1-9]/);
  });
});

describe('tool endpoint Origin guard with PUBLIC_URL and CORS_ORIGINS (e2e)', () => {
  let app: World;
  let key: string;

  beforeAll(async () => {
    app = await World.start({ env: { PUBLIC_URL: 'https://svc.example', CORS_ORIGINS: 'https://app.example' } });
    const f = app.ids;
    const c = await f.company();
    key = (await f.agent(c.uuid, (await f.user(c.uuid)).uuid, { preset: 'developer_agent' })).key;
  }, 120_000);
  afterAll(() => app?.close());

  it("passes only PUBLIC_URL's origin and the listed ones; loopback is no longer implied", async () => {
    const status = async (origin: string) => (await rpc(app.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: `Bearer ${key}`, origin })).status;
    expect(await status('https://svc.example')).toBe(200);
    expect(await status('https://app.example')).toBe(200);
    expect(await status('http://localhost:5173')).toBe(403);
    expect(await status(`http://127.0.0.1:${new URL(app.url).port}`)).toBe(403);
    expect(await status('https://evil.example')).toBe(403);
  });
});
