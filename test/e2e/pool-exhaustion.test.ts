import { DataSource, type QueryRunner } from 'typeorm';
import { HttpClient } from '../utils/http.js';
import { rpc } from '../utils/mcp-client.js';
import { World } from '../utils/world.js';

/**
 * Overload found by `npm run bench:soak`: when every connection of the pool stays busy past the pool's connection
 * timeout, pg-pool fails the request with "timeout exceeded when trying to connect". That is the database being
 * unavailable to the request (docs/platform.md §5: 503 SERVICE_UNAVAILABLE, Retry-After: 5; MCP: 503 -32003), not an
 * internal error (500 with a stack-logged errorId).
 */
describe('database pool exhausted (e2e)', () => {
  let app: World;
  let http: HttpClient;
  let key: string;
  const held: QueryRunner[] = [];

  beforeAll(async () => {
    app = await World.start();
    const f = app.ids;
    const c = await f.company();
    const u = await f.user(c.uuid);
    key = (await f.agent(c.uuid, u.uuid, { preset: 'developer_agent' })).key;
    http = new HttpClient(app.url);
    await http.login(u.email, u.password);
  });
  afterAll(async () => {
    await Promise.all(held.map((r) => r.release()));
    await app.close();
  });

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After (REST and MCP) while no connection frees up, then serves again', async () => {
    // Take every connection of the service's pool.
    const pool = app.get(DataSource);
    const max = (pool.driver as unknown as { master: { options: { max: number } } }).master.options.max;
    for (let i = 0; i < max; i++) {
      const runner = pool.createQueryRunner();
      await runner.connect();
      held.push(runner);
    }
    const [rest, mcp] = await Promise.all([
      http.request('GET', '/api/auth/me', { headers: { 'x-request-id': 'pool-rest' } }),
      rpc(app.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: `Bearer ${key}`, 'x-request-id': 'pool-mcp' }),
    ]);
    expect(rest.status).toBe(503);
    expect(rest.headers.get('retry-after')).toBe('5');
    expect(rest.body).toEqual({ success: false, error: { code: 'SERVICE_UNAVAILABLE', message: 'Service unavailable' } });
    expect(mcp.status).toBe(503);
    expect(mcp.headers.get('retry-after')).toBe('5');
    expect(mcp.json).toEqual({ jsonrpc: '2.0', error: { code: -32003, message: 'Service unavailable' }, id: null });
    expect(app.logs.filter((l) => l.msg === 'unhandled error' && (l.requestId === 'pool-rest' || l.requestId === 'pool-mcp'))).toEqual([]);

    await Promise.all(held.splice(0).map((r) => r.release()));
    const again = await http.request('GET', '/api/auth/me');
    expect(again.status).toBe(200);
    const list = await rpc(app.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: `Bearer ${key}` });
    expect(list.status).toBe(200);
  }, 30_000);
});
