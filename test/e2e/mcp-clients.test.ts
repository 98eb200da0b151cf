import { ProposalFactory } from '../factories/proposal.factory.js';
import { mcpClient, mcpClientV1, rpc, type Negotiation } from '../utils/mcp-client.js';
import { World } from '../utils/world.js';

/**
 * Real clients of both protocol eras against the real endpoint (docs/platform.md §4): the official TypeScript SDK v2
 * client pinned to 2026-07-28, negotiating (`auto`) and in its default mode, and the v1 SDK client. The MCP Inspector
 * CLI (a child process) is driven in test/system/external-clients.test.ts.
 */

describe('MCP clients of both eras (e2e)', () => {
  let app: World;
  let key: string;
  let projectUuid: string;

  beforeAll(async () => {
    app = await World.start();
    const ids = app.ids;
    const c = await ids.company();
    const u = await ids.user(c.uuid);
    key = (await ids.agent(c.uuid, u.uuid, { preset: 'developer_agent' })).key;
    projectUuid = (await new ProposalFactory(app.db.dataSource).project(c.uuid, 'Clients project')).uuid;
  }, 120_000);
  afterAll(() => app?.close());

  it.each<[string, Negotiation | undefined, string]>([
    ['v2 pinned to 2026-07-28', { pin: '2026-07-28' }, '2026-07-28'],
    ['v2 negotiating (auto)', 'auto', '2026-07-28'],
    ['v2 in its default mode', undefined, '2025-11-25'],
  ])('%s lists the tools, reads one and gets the instructions, on protocol %s', async (_label, negotiation, version) => {
    const client = await mcpClient(app.url, key, {}, negotiation ?? 'legacy');
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(version);
      expect(client.getServerVersion()?.name).toBe('svc');
      expect(client.getInstructions()).toContain('svc_checkin');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('svc_get_project');
      expect(tools.map((t) => t.name)).not.toContain('svc_admin_create_project');
      const res = await client.callTool({ name: 'svc_get_project', arguments: { projectUuid } });
      expect(res.isError).toBeFalsy();
      expect(JSON.parse((res.content as Array<{ text: string }>)[0].text)).toMatchObject({ uuid: projectUuid, name: 'Clients project' });
      const hidden = client.callTool({ name: 'svc_admin_create_project', arguments: { name: 'x' } });
      await expect(hidden).rejects.toThrow(/Unknown tool: svc_admin_create_project/);
    } finally {
      await client.close();
    }
  });

  it('the v1 SDK client (2025-11-25) lists, reads and sees instructions', async () => {
    const client = await mcpClientV1(app.url, key);
    try {
      expect(client.getServerVersion()?.name).toBe('svc');
      expect(client.getInstructions()).toContain('svc_checkin');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('svc_get_project');
      const res = await client.callTool({ name: 'svc_get_project', arguments: { projectUuid } });
      expect(JSON.parse((res.content as Array<{ text: string }>)[0].text)).toMatchObject({ uuid: projectUuid });
    } finally {
      await client.close();
    }
  });

  it('answers both eras with plain JSON bodies, never SSE', async () => {
    const legacy = await rpc(app.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: `Bearer ${key}`, 'mcp-protocol-version': '2025-11-25' });
    expect(legacy.status).toBe(200);
    expect(legacy.headers.get('content-type')).toMatch(/^application\/json/);
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const modern = await rpc(
      app.url,
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: meta } },
      { authorization: `Bearer ${key}`, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
    );
    expect(modern.status).toBe(200);
    expect(modern.headers.get('content-type')).toMatch(/^application\/json/);
    expect(modern.json.result.tools.length).toBe(legacy.json.result.tools.length);
    expect(modern.json.result).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    // Mcp-Method must agree with the body on the current protocol.
    const mismatch = await rpc(
      app.url,
      { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: meta } },
      { authorization: `Bearer ${key}`, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call' },
    );
    expect(mismatch.status).toBe(400);
    expect(mismatch.json.error.code).toBe(-32020);
  });
});
