import { World } from '../utils/world.js';
import { HttpClient } from '../utils/http.js';

describe('ops endpoints (e2e)', () => {
  let app: World;
  let http: HttpClient;

  beforeAll(async () => {
    app = await World.start();
    http = new HttpClient(app.url);
  });
  afterAll(() => app.close());

  it('serves liveness and readiness without auth or envelope', async () => {
    expect((await http.get('/health/live')).body).toEqual({ status: 'ok' });
    const ready = await http.get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok', checks: { database: 'up', bus: 'disabled' } });
  });

  it('serves Prometheus metrics with the HTTP histogram by route pattern', async () => {
    await http.get('/api/agents/00000000-0000-4000-8000-000000000000');
    const res = await http.get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(res.text).toContain('svc_http_request_duration_seconds_bucket');
    expect(res.text).toMatch(/route="\/api\/agents\/:uuid"/);
    expect(res.text).not.toContain('00000000-0000-4000-8000-000000000000');
  });

  it('reports 503 when the database goes away and 200 when it returns', async () => {
    // Terminate every pool connection and block new ones, as a server outage would.
    const { adminQuery } = await import('../utils/test-database.js');
    await adminQuery(`ALTER DATABASE "${app.db.name}" WITH ALLOW_CONNECTIONS false`);
    await adminQuery(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${app.db.name}'`);
    const down = await http.get('/health/ready');
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ status: 'unavailable', checks: { database: 'down', bus: 'disabled' } });
    const rest = await http.get('/api/auth/me', { cookie: 'svc_session=abc' });
    expect(rest.status).toBe(503);
    expect(rest.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(rest.headers.get('retry-after')).toBe('5');
    await adminQuery(`ALTER DATABASE "${app.db.name}" WITH ALLOW_CONNECTIONS true`);
    let up = await http.get('/health/ready');
    for (let i = 0; i < 20 && up.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      up = await http.get('/health/ready');
    }
    expect(up.status).toBe(200);
  });
});
