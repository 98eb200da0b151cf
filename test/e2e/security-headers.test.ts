import { HttpClient } from '../utils/http.js';
import { rpc } from '../utils/mcp-client.js';
import { openRaw } from '../utils/sse.js';
import { World } from '../utils/world.js';

type HeaderSource = { get(name: string): string | null };

/** The headers every answer carries on a plain-http deployment. */
function expectSecurityHeaders(label: string, h: HeaderSource): void {
  const seen = {
    label,
    nosniff: h.get('x-content-type-options'),
    frameOptions: h.get('x-frame-options'),
    referrer: h.get('referrer-policy'),
    poweredBy: h.get('x-powered-by'),
    hsts: h.get('strict-transport-security'),
    coop: h.get('cross-origin-opener-policy'),
    corp: h.get('cross-origin-resource-policy'),
  };
  expect(seen).toEqual({
    label,
    nosniff: 'nosniff',
    frameOptions: 'DENY',
    referrer: 'no-referrer',
    poweredBy: null,
    hsts: null,
    coop: 'same-origin',
    corp: 'same-origin',
  });
  const csp = h.get('content-security-policy') ?? '';
  expect([label, csp]).toEqual([label, expect.stringContaining("frame-ancestors 'none'")]);
  expect(csp).toContain("default-src 'self'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).not.toContain('upgrade-insecure-requests');
}

const fromNode = (headers: Record<string, string | string[] | undefined>): HeaderSource => ({
  get: (name) => {
    const v = headers[name];
    return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
  },
});

describe('security headers (e2e)', () => {
  let app: World;
  let http: HttpClient;
  let key: string;

  beforeAll(async () => {
    app = await World.start();
    const f = app.ids;
    const c = await f.company();
    const u = await f.user(c.uuid);
    key = (await f.agent(c.uuid, u.uuid)).key;
    http = new HttpClient(app.url);
    await http.login(u.email, u.password);
  });
  afterAll(() => app.close());

  it('are on REST answers, successes and errors alike', async () => {
    const anonymous = new HttpClient(app.url);
    const cases: Array<[string, Promise<{ status: number; headers: Headers }>, number]> = [
      ['me', http.get('/api/auth/me'), 200],
      ['list', http.get('/api/agents'), 200],
      ['created', http.post('/api/agents', { name: 'Headers' }), 201],
      ['unauthenticated', anonymous.get('/api/auth/me'), 401],
      ['unknown route', http.get('/api/nope'), 404],
      ['wrong method', http.request('PUT', '/api/auth/login'), 405],
      ['validation', anonymous.post('/api/auth/login', { email: 'x@example.test' }), 400],
      ['bad json', anonymous.request('POST', '/api/auth/login', { body: '{', headers: { 'content-type': 'application/json' } }), 400],
      ['bad login', anonymous.post('/api/auth/login', { email: 'x@example.test', password: 'wrong password' }), 401],
      ['not found', http.get('/api/agents/7b1c7a36-1b7e-4f57-9a3f-0e0a1c7f3b9d'), 404],
      ['live', anonymous.get('/health/live'), 200],
      ['ready', anonymous.get('/health/ready'), 200],
      ['metrics', anonymous.get('/metrics'), 200],
      ['docs', anonymous.get('/api/docs'), 200],
      ['docs json', anonymous.get('/api/docs.json'), 200],
    ];
    for (const [label, pending, status] of cases) {
      const res = await pending;
      expect([label, res.status]).toEqual([label, status]);
      expectSecurityHeaders(label, res.headers);
    }
  });

  it('are on the tool endpoint, which still answers plain JSON-RPC', async () => {
    const ok = await rpc(app.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: `Bearer ${key}` });
    expect(ok.status).toBe(200);
    expect(ok.json.result.tools.length).toBeGreaterThan(0);
    expectSecurityHeaders('mcp 200', ok.headers);
    const refused = await rpc(app.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(refused.status).toBe(401);
    expectSecurityHeaders('mcp 401', refused.headers);
    const get = await fetch(`${app.url}/api/mcp`);
    expect(get.status).toBe(405);
    expectSecurityHeaders('mcp 405', get.headers);
  });

  it('leave SSE streams intact: event-stream headers, unbuffered frames', async () => {
    const stream = await openRaw(`${app.url}/api/events`, { cookie: http.cookie! });
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers['content-type']).toBe('text/event-stream');
      expect(stream.headers['cache-control']).toContain('no-cache');
      expect(stream.headers['x-accel-buffering']).toBe('no');
      expect(stream.headers['content-encoding']).toBeUndefined();
      expectSecurityHeaders('sse', fromNode(stream.headers));
      await stream.waitForText(': connected');
    } finally {
      stream.close();
    }
    const refused = await openRaw(`${app.url}/api/events`);
    expect(refused.status).toBe(401);
    expectSecurityHeaders('sse 401', fromNode(refused.headers));
    refused.close();
  });

  describe('on an https deployment (COOKIE_SECURE=true)', () => {
    let secure: World;
    beforeAll(async () => {
      secure = await World.start({ env: { COOKIE_SECURE: 'true' } });
    });
    afterAll(() => secure.close());

    it('add HSTS (without includeSubDomains) and upgrade-insecure-requests, on errors too', async () => {
      for (const path of ['/health/live', '/api/auth/me', '/api/nope']) {
        const res = await fetch(`${secure.url}${path}`);
        expect([path, res.headers.get('strict-transport-security')]).toEqual([path, 'max-age=15552000']);
        expect(res.headers.get('content-security-policy')).toContain('upgrade-insecure-requests');
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      }
    });
  });
});
