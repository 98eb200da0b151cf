import type { QueryRunner } from 'typeorm';
import { HttpClient } from '../utils/http.js';
import { rpc } from '../utils/mcp-client.js';
import { openRaw } from '../utils/sse.js';
import { World } from '../utils/world.js';

/**
 * Every wait on the database is bounded (docs/platform.md §1: DB_STATEMENT_TIMEOUT_MS, REQUEST_TIMEOUT_MS). A table held
 * under an exclusive lock by another session stands in for a database that does not answer: the service's statements
 * wait on it exactly as they would on a stalled server (the frozen-server case runs in test/system/faults-database).
 */
async function setup(env: Record<string, string>) {
  const app = await World.start({ env });
  const c = await app.ids.company();
  const u = await app.ids.user(c.uuid);
  const http = new HttpClient(app.url);
  await http.login(u.email, u.password);
  const projectUuid = (await http.post('/api/projects', { name: 'Bounded' })).body.data.uuid as string;
  const agent = await app.ids.agent(c.uuid, u.uuid, { preset: 'pm_agent' });
  const mcp = (body: unknown) =>
    rpc(app.url, body, { authorization: `Bearer ${agent.key}`, 'mcp-protocol-version': '2025-11-25' });
  /** Another session takes the ideas table exclusively until `release()`. */
  const lockIdeas = async (): Promise<{ release: () => Promise<void> }> => {
    const runner: QueryRunner = app.ds.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    await runner.query('LOCK TABLE idea IN ACCESS EXCLUSIVE MODE');
    return {
      release: async () => {
        await runner.rollbackTransaction();
        await runner.release();
      },
    };
  };
  return { app, http, projectUuid, mcp, lockIdeas, companyUuid: c.uuid };
}

const call = (name: string, args: Record<string, unknown>) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });

describe('bounded waits: the statement timeout (DB_STATEMENT_TIMEOUT_MS)', () => {
  let s: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    s = await setup({ DB_STATEMENT_TIMEOUT_MS: '300', SSE_HEARTBEAT_MS: '200' });
  });
  afterAll(() => s.app.close());

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After instead of waiting; nothing is written or published; then recovers', async () => {
    const stream = await openRaw(`${s.app.url}/api/events`, { cookie: s.http.cookie! });
    await stream.waitForText('retry: ');
    const lock = await s.lockIdeas();
    try {
      const started = Date.now();
      const [read, write, toolRead, toolWrite] = await Promise.all([
        s.http.get(`/api/projects/${s.projectUuid}/ideas`),
        s.http.post(`/api/projects/${s.projectUuid}/ideas`, { title: 'Never written' }),
        s.mcp(call('svc_get_ideas', { projectUuid: s.projectUuid })),
        s.mcp(call('svc_pm_create_idea', { projectUuid: s.projectUuid, title: 'Never written either' })),
      ]);
      const elapsed = Date.now() - started;
      for (const r of [read, write]) {
        expect(r.status).toBe(503);
        expect(r.headers.get('retry-after')).toBe('5');
        expect(r.body).toEqual({ success: false, error: { code: 'SERVICE_UNAVAILABLE', message: 'Service unavailable' } });
      }
      // A tool reports it as its result (the call itself was served).
      for (const r of [toolRead, toolWrite]) {
        expect(r.status).toBe(200);
        expect(r.json.result.isError).toBe(true);
        expect(JSON.parse(r.json.result.content[0].text)).toMatchObject({ error: { code: 'SERVICE_UNAVAILABLE' } });
      }
      // Bounded by the statement timeout (300 ms), far below what a hang would take.
      expect(elapsed).toBeLessThan(5000);
    } finally {
      await lock.release();
    }
    // Nothing half-written, nothing published.
    const titles = (await s.http.get(`/api/projects/${s.projectUuid}/ideas`)).body.data.ideas?.map((i: { title: string }) => i.title) ?? [];
    expect(titles).not.toContain('Never written');
    expect(titles).not.toContain('Never written either');
    expect((await s.app.ds.query(`SELECT count(*)::int AS n FROM idea WHERE title LIKE 'Never written%'`))[0].n).toBe(0);
    expect(stream.body()).not.toMatch(/^data:/m);
    // The service recovers by itself.
    const after = await s.http.post(`/api/projects/${s.projectUuid}/ideas`, { title: 'After the lock' });
    expect(after.status).toBe(201);
    await stream.waitForText(after.body.data.uuid);
    stream.close();
    expect(s.app.logs.filter((l) => l.msg === 'unhandled error')).toEqual([]);
  }, 30_000);
});

describe('bounded waits: the request deadline (REQUEST_TIMEOUT_MS)', () => {
  let s: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    s = await setup({ DB_STATEMENT_TIMEOUT_MS: '10000', REQUEST_TIMEOUT_MS: '400', SSE_HEARTBEAT_MS: '200' });
  });
  afterAll(() => s.app.close());

  it('ends a REST or tool-endpoint request still waiting at the deadline with 503 (REST) / 503 -32003 (MCP); streams are exempt', async () => {
    const stream = await openRaw(`${s.app.url}/api/events`, { cookie: s.http.cookie! });
    await stream.waitForText('retry: ');
    const lock = await s.lockIdeas();
    try {
      const started = Date.now();
      const [rest, tool] = await Promise.all([s.http.post(`/api/projects/${s.projectUuid}/ideas`, { title: 'Past the deadline' }), s.mcp(call('svc_get_ideas', { projectUuid: s.projectUuid }))]);
      const elapsed = Date.now() - started;
      expect(rest.status).toBe(503);
      expect(rest.headers.get('retry-after')).toBe('5');
      expect(rest.body.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(tool.status).toBe(503);
      expect(tool.headers.get('retry-after')).toBe('5');
      expect(tool.json).toEqual({ jsonrpc: '2.0', error: { code: -32003, message: 'Service unavailable' }, id: null });
      // The deadline (400 ms), not the statement timeout (10 s), ended them.
      expect(elapsed).toBeLessThan(5000);
      // The stream outlives the deadline: heartbeats keep arriving.
      await new Promise((r) => setTimeout(r, 600));
      expect(stream.body().match(/: heartbeat/g)?.length ?? 0).toBeGreaterThanOrEqual(2);
    } finally {
      await lock.release();
    }
    // The cut-off write ran on once the lock was gone; it either committed whole (with its event) or not at all.
    await new Promise((r) => setTimeout(r, 300));
    const rows = (await s.app.ds.query(`SELECT uuid FROM idea WHERE title = 'Past the deadline'`)) as Array<{ uuid: string }>;
    expect(rows.length).toBeLessThanOrEqual(1);
    if (rows.length) await stream.waitForText(rows[0].uuid);
    expect((await s.http.get('/api/auth/me')).status).toBe(200);
    stream.close();
    expect(s.app.logs.filter((l) => l.msg === 'unhandled error')).toEqual([]);
  }, 30_000);
});
