import { mkdtemp, readdir, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { ProposalFactory } from '../factories/proposal.factory.js';
import { ensureBuilt, runCli } from '../utils/built.js';
import { mcpClient } from '../utils/mcp-client.js';
import { World } from '../utils/world.js';

const SLOW = 90_000;

/** Forwards to the app and remembers the headers of every request, to see what the CLI sends. */
async function recordingProxy(target: string): Promise<{ url: string; seen: http.IncomingHttpHeaders[]; close(): Promise<void> }> {
  const seen: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.headers);
    const upstream = http.request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

describe('CLI tool client: mcp tools / mcp call (e2e, built CLI as a child process)', () => {
  let app: World;
  let pmKey: string;
  let projectUuid: string;
  let dataDir: string;
  /** No database reachable: DATABASE_URL points nowhere, so a command that opened one would fail. */
  const cli = (...args: string[]) => runCli(args, { DATABASE_URL: 'postgres://svc:x@127.0.0.1:1/svc' });

  beforeAll(async () => {
    ensureBuilt();
    app = await World.start();
    const ids = app.ids;
    const c = await ids.company();
    const u = await ids.user(c.uuid);
    pmKey = (await ids.agent(c.uuid, u.uuid, { preset: 'pm_agent' })).key;
    projectUuid = (await new ProposalFactory(app.db.dataSource).project(c.uuid, 'CLI project')).uuid;
    dataDir = await mkdtemp(join(tmpdir(), 'svc-cli-mcp-'));
  }, 180_000);
  afterAll(async () => {
    await app?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('mcp tools prints {tools: [{name, title, description}]} exactly as tools/list shows them to that key', async () => {
    const res = await cli('mcp', 'tools', '--url', app.url, '--key', pmKey);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const client = await mcpClient(app.url, pmKey);
    const { tools } = await client.listTools();
    await client.close();
    expect(JSON.parse(res.stdout)).toEqual({ tools: tools.map((t) => ({ name: t.name, title: t.title, description: t.description })) });
    expect(res.json.tools.map((t: { name: string }) => t.name)).toContain('svc_pm_create_document');
    expect(res.json.tools.map((t: { name: string }) => t.name)).not.toContain('svc_admin_delete_document');
  }, SLOW);

  it('mcp call prints the parsed result, and the call really happened', async () => {
    const res = await cli('mcp', 'call', 'svc_pm_create_document', '--url', app.url, '--key', pmKey, '--args', JSON.stringify({ projectUuid, type: 'spec', title: 'From the CLI', content: 'Hello' }));
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.json).toMatchObject({ uuid: expect.any(String), projectUuid, type: 'spec', title: 'From the CLI', content: 'Hello', version: 1 });
    const [row] = await app.db.dataSource.query(`SELECT title FROM document WHERE uuid = $1`, [res.json.uuid]);
    expect(row).toEqual({ title: 'From the CLI' });
    // The tool name may also follow the options, --url may name the endpoint itself; without --args the arguments are {}.
    const bare = await cli('mcp', 'call', '--url', `${app.url}/api/mcp`, '--key', pmKey, 'svc_get_documents');
    expect(bare.code).toBe(1);
    expect(bare.json).toEqual({ error: { code: 'VALIDATION_ERROR', message: 'Invalid arguments', details: [{ path: 'projectUuid', message: expect.any(String) }] } });
  }, SLOW);

  it('sends --header values with the key on every request', async () => {
    const proxy = await recordingProxy(app.url);
    try {
      const res = await cli('mcp', 'call', 'svc_get_documents', '--url', proxy.url, '--key', pmKey, '--header', `X-Service-Project=${projectUuid}`, '--header', 'X-Trace = abc', '--args', JSON.stringify({ projectUuid }));
      expect([res.code, res.stderr]).toEqual([0, '']);
      expect(res.json).toMatchObject({ documents: [expect.objectContaining({ title: 'From the CLI' })], total: 1 });
      expect(proxy.seen.length).toBeGreaterThanOrEqual(2);
      for (const h of proxy.seen) expect(h).toMatchObject({ authorization: `Bearer ${pmKey}`, 'x-service-project': projectUuid, 'x-trace': 'abc' });
      // The CLI speaks the current protocol: server/discover first, then the call with the 2026-07-28 headers.
      for (const h of proxy.seen) expect(h['mcp-protocol-version']).toBe('2026-07-28');
      expect(proxy.seen.map((h) => h['mcp-method'])).toEqual(['server/discover', 'tools/call']);
      expect(proxy.seen[1]['mcp-name']).toBe('svc_get_documents');
    } finally {
      await proxy.close();
    }
  }, SLOW);

  it('exits 1 with the tool\'s error JSON on stderr for an isError result', async () => {
    const missing = await cli('mcp', 'call', 'svc_get_document', '--url', app.url, '--key', pmKey, '--args', JSON.stringify({ documentUuid: randomUUID() }));
    expect([missing.code, missing.stdout]).toEqual([1, '']);
    expect(JSON.parse(missing.stderr)).toEqual({ error: { code: 'NOT_FOUND', message: 'Document not found' } });
    const invalid = await cli('mcp', 'call', 'svc_get_document', '--url', app.url, '--key', pmKey, '--args', '{"documentUuid":"x"}');
    expect(invalid.code).toBe(1);
    expect(JSON.parse(invalid.stderr)).toEqual({ error: { code: 'VALIDATION_ERROR', message: 'Invalid arguments', details: [{ path: 'documentUuid', message: expect.any(String) }] } });
  }, SLOW);

  it('exits 1 for a hidden tool, a bad key and an unreachable service', async () => {
    const hidden = await cli('mcp', 'call', 'svc_admin_delete_document', '--url', app.url, '--key', pmKey, '--args', JSON.stringify({ documentUuid: randomUUID() }));
    expect([hidden.code, hidden.stdout]).toEqual([1, '']);
    expect(hidden.json).toEqual({ error: { code: 'RPC_ERROR', rpcCode: -32602, message: 'Unknown tool: svc_admin_delete_document' } });
    const badKey = await cli('mcp', 'tools', '--url', app.url, '--key', `agk_${'A'.repeat(43)}`);
    expect(badKey.code).toBe(1);
    expect(badKey.json).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Missing or invalid API key', status: 401 } });
    const down = await cli('mcp', 'tools', '--url', 'http://127.0.0.1:1', '--key', pmKey);
    expect(down.code).toBe(1);
    expect(down.json.error).toEqual({ code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/^Cannot reach http:\/\/127\.0\.0\.1:1\/api\/mcp/) });
  }, SLOW);

  it('exits 2 with the usage for malformed --args, a missing tool name, key or url, and a bad --header', async () => {
    const base = ['--url', app.url, '--key', pmKey];
    const cases: Array<[string[], RegExp]> = [
      [['mcp', 'call', 'svc_list_projects', ...base, '--args', '{not json'], /^Invalid --args/],
      [['mcp', 'call', 'svc_list_projects', ...base, '--args', '[1,2]'], /^Invalid --args: expected a JSON object/],
      [['mcp', 'call', ...base], /^Missing <tool> for "mcp call"/],
      [['mcp', 'call', 'a', 'b', ...base], /^Unexpected argument 'b'/],
      [['mcp', 'tools', '--url', app.url], /^Missing option --key for "mcp tools"/],
      [['mcp', 'tools', '--key', pmKey], /^Missing option --url/],
      [['mcp', 'tools', ...base, '--header', 'NoEquals'], /^Invalid --header NoEquals/],
      [['mcp', 'tools', '--url', 'not a url', '--key', pmKey], /^Invalid --url/],
    ];
    const results = await Promise.all(cases.map(([args]) => cli(...args)));
    for (const [i, [args, message]] of cases.entries()) {
      const res = results[i];
      expect([args, res.code, res.stdout]).toEqual([args, 2, '']);
      expect(res.stderr).toMatch(message);
      expect(res.stderr).toContain('Usage: npm run cli -- <command>');
    }
  }, SLOW);

  it('never opens a database: without DATABASE_URL the embedded data directory stays untouched', async () => {
    const res = await runCli(['mcp', 'tools', '--url', app.url, '--key', pmKey], { DATABASE_URL: undefined, DATA_DIR: dataDir });
    expect([res.code, res.stderr]).toEqual([0, '']);
    expect(await readdir(dataDir)).toEqual([]);
    const help = await runCli(['--help'], {});
    expect(help.stdout).toContain("mcp call <tool> --url <base> --key <agk> [--header Name=Value ...] [--args '<json>']");
    expect(help.stdout).toContain('mcp tools --url <base> --key <agk> [--header Name=Value ...]');
  }, SLOW);
});
