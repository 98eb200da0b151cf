import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { freePort } from '../../src/shared/database/embedded-postgres.js';
import type { SeededUser } from '../factories/identity.factory.js';
import { requestFrom } from '../utils/http-from.js';
import { FormBrowser, MemoryOAuthClient } from '../utils/oauth.js';
import { World } from '../utils/world.js';

/**
 * Login throttling as deployed (docs/deploy.md, "Client address" and "Abuse limits"): two instances on one database
 * behind a trusted proxy (TRUST_PROXY=127.0.0.1: this test's requests from 127.0.0.1 act as the proxy and name the
 * client in X-Forwarded-For), a client at 127.0.0.2 that is not trusted, and both sign-in paths — the login route and
 * the OAuth sign-in form — counted together.
 */
describe('login throttling behind a trusted proxy, two instances (e2e)', () => {
  let one: World;
  let two: World;
  let base: string;
  let user: SeededUser;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    one = await World.start({ env: { PORT: String(port), PUBLIC_URL: base, TRUST_PROXY: '127.0.0.1' } });
    two = await World.start({ sharing: one, env: { TRUST_PROXY: '127.0.0.1' } });
    user = await one.user((await one.company('Throttled Co')).uuid, { password: 'right password' });
  });
  afterAll(async () => {
    await two?.close();
    await one?.close();
  });

  /** A login through "the proxy" for the client address `client`, on instance `i` (0 or 1). */
  const login = (i: number, client: string, password: string) =>
    [one, two][i].http().post('/api/auth/login', { email: user.email, password }, { 'x-forwarded-for': `${client}` });
  const RATE_LIMITED = { success: false, error: { code: 'RATE_LIMITED', message: 'Too many login attempts' } };

  it('locks a pair after 10 failures spread over both instances; another client address still signs in', async () => {
    for (let i = 0; i < 10; i++) expect((await login(i % 2, '203.0.113.10', `wrong ${i}`)).status).toBe(401);
    for (const i of [0, 1]) {
      const refused = await login(i, '203.0.113.10', 'right password');
      expect([refused.status, refused.body]).toEqual([429, RATE_LIMITED]);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(850);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(900);
      expect(refused.headers.get('set-cookie')).toBeNull();
    }
    expect((await login(1, '203.0.113.11', 'right password')).status).toBe(200);
    expect((await one.metric('svc_login_throttled_total{rule="pair"}')) + (await two.metric('svc_login_throttled_total{rule="pair"}'))).toBe(2);
    // The access log names the client address the proxy reported, not the proxy's.
    const lines = one.logs.filter((l) => l.msg === 'request' && l.route === '/api/auth/login');
    expect(lines.map((l) => l.clientAddress)).toContain('203.0.113.10');
    expect(lines.map((l) => l.clientAddress)).not.toContain('127.0.0.1');
  });

  it('logs a stream the client aborts with its client address, and lives on (the socket is gone by then)', async () => {
    const session = await login(0, '203.0.113.30', 'right password');
    const cookie = session.headers.get('set-cookie')!.split(';')[0];
    const abort = new AbortController();
    const stream = await fetch(`${one.url}/api/events`, { headers: { cookie, 'x-forwarded-for': '203.0.113.30' }, signal: abort.signal });
    expect(stream.status).toBe(200);
    await stream.body!.getReader().read();
    abort.abort();
    const logged = async () => one.logs.find((l) => l.msg === 'request' && l.route === '/api/events' && l.clientAddress === '203.0.113.30');
    for (let i = 0; i < 50 && !(await logged()); i++) await new Promise((r) => setTimeout(r, 100));
    expect(await logged()).toMatchObject({ status: 200, clientAddress: '203.0.113.30' });
    expect((await fetch(`${one.url}/health/live`)).status).toBe(200);
  });

  it('ignores X-Forwarded-For from a socket that is not a trusted proxy', async () => {
    // 127.0.0.2 claims to be the locked client: it is counted as itself, and signs in.
    const claimed = await requestFrom('127.0.0.2', `${one.url}/api/auth/login`, { method: 'POST', headers: { 'x-forwarded-for': '203.0.113.10' }, json: { email: user.email, password: 'right password' } });
    expect(claimed.status).toBe(200);
    // Ten failures claiming ten different addresses are ten failures of 127.0.0.2.
    for (let i = 0; i < 10; i++) {
      const r = await requestFrom('127.0.0.2', `${[one, two][i % 2].url}/api/auth/login`, { method: 'POST', headers: { 'x-forwarded-for': `198.51.100.${i + 1}` }, json: { email: user.email, password: `wrong ${i}` } });
      expect(r.status).toBe(401);
    }
    const locked = await requestFrom('127.0.0.2', `${two.url}/api/auth/login`, { method: 'POST', headers: { 'x-forwarded-for': '198.51.100.99' }, json: { email: user.email, password: 'right password' } });
    expect([locked.status, locked.json]).toEqual([429, RATE_LIMITED]);
    const lines = [...one.logs, ...two.logs].filter((l) => l.msg === 'request' && l.route === '/api/auth/login' && String(l.clientAddress).startsWith('127.0.0.2'));
    expect(lines.length).toBe(12);
    // Through the trusted proxy that address is still free.
    expect((await login(0, '198.51.100.99', 'right password')).status).toBe(200);
  });

  it('the OAuth sign-in form counts with the login route and refuses a locked pair with a 429 page and Retry-After', async () => {
    const provider = new MemoryOAuthClient(undefined, 'Throttled host');
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`), { authProvider: provider });
    await expect(new Client({ name: 'throttled-host', version: '1.0.0' }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    const browser = new FormBrowser(base);
    let location = (await browser.go(provider.authorizationUrl!.href)).headers.get('location');
    while (location && !location.includes('/oauth/interaction/')) location = (await browser.go(location)).headers.get('location');
    const page = await browser.go(location!);
    const action = /<form method="post" action="([^"]+)"/.exec(await page.text())![1];
    const client = { 'x-forwarded-for': '203.0.113.20' };
    // Nine failures on the login route, the tenth on the form: the pair is locked for both paths.
    for (let i = 0; i < 9; i++) expect((await login(i % 2, '203.0.113.20', `wrong ${i}`)).status).toBe(401);
    const tenth = await browser.post(action, { email: user.email, password: 'wrong 9' }, client);
    expect(tenth.status).toBe(401);
    expect(await tenth.text()).toContain('Invalid email or password');
    expect((await login(1, '203.0.113.20', 'right password')).status).toBe(429);
    const refused = await browser.post(action, { email: user.email, password: 'right password' }, client);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(850);
    expect(await refused.text()).toContain('Too many login attempts');
    // Another client address signs in on the form.
    expect((await browser.post(action, { email: user.email, password: 'right password' }, { 'x-forwarded-for': '203.0.113.21' })).status).toBe(303);
  });
});
