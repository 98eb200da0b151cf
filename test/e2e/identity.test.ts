import { createHash } from 'node:crypto';
import { World } from '../utils/world.js';
import { HttpClient } from '../utils/http.js';
import { IdentityFactory, type SeededUser } from '../factories/identity.factory.js';
import { AuthService } from '../../src/modules/identity/index.js';

/** One app for the whole file; each block below seeds companies of its own. */
let app: World;
beforeAll(async () => {
  app = await World.start();
});
afterAll(() => app.close());

describe('authentication', () => {
  const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');
  const tokenOf = (cookie: string | null): string => cookie!.replace(/^svc_session=/, '');
  const COOKIE_RE = /^svc_session=[A-Za-z0-9_-]{43}; Max-Age=604800; Path=\/; HttpOnly; SameSite=Lax$/;

  describe('browser authentication (e2e)', () => {
    let f: IdentityFactory;
    let company: { uuid: string; name: string };
    let user: SeededUser;

    beforeAll(async () => {
      f = app.ids;
      company = await f.company('Acme');
      user = await f.user(company.uuid, { email: 'alice@example.test', name: 'Alice', password: 'correct horse' });
    });

    const sessions = async (): Promise<number> => (await app.db.dataSource.query(`SELECT count(*)::int AS n FROM user_session`))[0].n;

    it('logs in with a trimmed, lower-cased email and sets the session cookie', async () => {
      const http = new HttpClient(app.url);
      const res = await http.post('/api/auth/login', { email: '  ALICE@Example.TEST ', password: 'correct horse' });
      expect(res.status).toBe(200);
      const data = { user: { uuid: user.uuid, email: 'alice@example.test', name: 'Alice' }, company: { uuid: company.uuid, name: 'Acme' } };
      expect(res.body).toEqual({ success: true, data });
      expect(res.headers.get('set-cookie')).toMatch(COOKIE_RE);
      const me = await http.get('/api/auth/me');
      expect(me.status).toBe(200);
      expect(me.body).toEqual({ success: true, data });
      // A fresh session is not renewed, so no cookie is set again.
      expect(me.headers.get('set-cookie')).toBeNull();
    });

    it('answers an unknown email and a wrong password identically, without a cookie', async () => {
      const before = await sessions();
      const unknown = await new HttpClient(app.url).post('/api/auth/login', { email: 'nobody@example.test', password: 'correct horse' });
      const wrong = await new HttpClient(app.url).post('/api/auth/login', { email: 'alice@example.test', password: 'wrong horse' });
      for (const res of [unknown, wrong]) {
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ success: false, error: { code: 'UNAUTHORIZED', message: 'Invalid email or password' } });
        expect(res.headers.get('set-cookie')).toBeNull();
      }
      expect(await sessions()).toBe(before);
    });

    it('answers a missing email or password with 400 VALIDATION_ERROR', async () => {
      const res = await new HttpClient(app.url).post('/api/auth/login', { email: 'alice@example.test' });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect([...new Set(res.body.error.details.map((d: { field: string }) => d.field))]).toEqual(['password']);
    });

    it('throttles an email after 10 failed attempts with 429 and Retry-After', async () => {
      const victim = await f.user(company.uuid, { password: 'victim password' });
      const http = new HttpClient(app.url);
      for (let i = 0; i < 10; i++) expect((await http.post('/api/auth/login', { email: victim.email, password: `guess-${i}` })).status).toBe(401);
      const res = await http.post('/api/auth/login', { email: victim.email.toUpperCase(), password: 'victim password' });
      expect(res.status).toBe(429);
      expect(res.body).toEqual({ success: false, error: { code: 'RATE_LIMITED', message: 'Too many login attempts' } });
      const retryAfter = Number(res.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(890);
      expect(retryAfter).toBeLessThanOrEqual(900);
      expect(res.headers.get('set-cookie')).toBeNull();
      // Another email still logs in.
      expect((await http.post('/api/auth/login', { email: 'alice@example.test', password: 'correct horse' })).status).toBe(200);
    });

    it('refuses a session whose expiry has passed with 401', async () => {
      const http = new HttpClient(app.url);
      await http.login('alice@example.test', 'correct horse');
      await app.db.dataSource.query(`UPDATE user_session SET expires_at = now() - interval '1 second' WHERE token_hash = $1`, [sha256(tokenOf(http.cookie))]);
      const res = await http.get('/api/auth/me');
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ success: false, error: { code: 'UNAUTHORIZED', message: 'Authentication required' } });
      expect((await http.get('/api/agents')).status).toBe(401);
    });

    it('logout deletes the session row and clears the cookie; it also answers 200 without a session', async () => {
      const http = new HttpClient(app.url);
      await http.login('alice@example.test', 'correct horse');
      const hash = sha256(tokenOf(http.cookie));
      const cookie = http.cookie!;
      const res = await http.post('/api/auth/logout');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: null });
      expect(res.headers.get('set-cookie')).toBe('svc_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax');
      expect((await app.db.dataSource.query(`SELECT 1 FROM user_session WHERE token_hash = $1`, [hash])).length).toBe(0);
      expect((await http.get('/api/auth/me', { cookie })).status).toBe(401);
      const anonymous = await new HttpClient(app.url).post('/api/auth/logout');
      expect(anonymous.status).toBe(200);
      expect(anonymous.body).toEqual({ success: true, data: null });
    });

    it('renews a session with under 3.5 days left and sets the cookie again', async () => {
      const http = new HttpClient(app.url);
      await http.login('alice@example.test', 'correct horse');
      const token = tokenOf(http.cookie);
      await app.db.dataSource.query(`UPDATE user_session SET expires_at = now() + interval '3 days' WHERE token_hash = $1`, [sha256(token)]);
      const res = await http.get('/api/auth/me');
      expect(res.status).toBe(200);
      expect(res.headers.get('set-cookie')).toBe(`svc_session=${token}; Max-Age=604800; Path=/; HttpOnly; SameSite=Lax`);
      const [row] = await app.db.dataSource.query(`SELECT expires_at FROM user_session WHERE token_hash = $1`, [sha256(token)]);
      expect((row.expires_at as Date).getTime()).toBeGreaterThan(Date.now() + 7 * 86400_000 - 60_000);
      // Renewed: the next request has more than half the lifetime left and sets nothing.
      expect((await http.get('/api/auth/me')).headers.get('set-cookie')).toBeNull();
    });

    describe('cross-site protection without CORS_ORIGINS', () => {
      const agentCount = async (): Promise<number> => (await app.db.dataSource.query(`SELECT count(*)::int AS n FROM agent`))[0].n;

      it('refuses a cookie-authenticated mutation from a foreign Origin before any work', async () => {
        const http = new HttpClient(app.url);
        await http.login('alice@example.test', 'correct horse');
        const before = await agentCount();
        for (const [method, path] of [['POST', '/api/agents'], ['PATCH', `/api/agents/${user.uuid}`], ['DELETE', `/api/agents/${user.uuid}`], ['POST', '/api/auth/logout']]) {
          const res = await http.request(method, path, { json: method === 'DELETE' ? undefined : { name: 'Evil' }, headers: { origin: 'https://evil.example' } });
          expect([method, path, res.status, res.body]).toEqual([method, path, 403, { success: false, error: { code: 'FORBIDDEN', message: 'Cross-site request refused' } }]);
        }
        expect(await agentCount()).toBe(before);
        // The session survived the refused logout.
        expect((await http.get('/api/auth/me')).status).toBe(200);
      });

      it('refuses a login from a foreign Origin without creating a session', async () => {
        const before = await sessions();
        const res = await new HttpClient(app.url).post('/api/auth/login', { email: 'alice@example.test', password: 'correct horse' }, { origin: 'https://evil.example' });
        expect(res.status).toBe(403);
        expect(res.body.error).toEqual({ code: 'FORBIDDEN', message: 'Cross-site request refused' });
        expect(res.headers.get('set-cookie')).toBeNull();
        expect(await sessions()).toBe(before);
      });

      it('allows the own origin and requests without Origin, and sends no CORS headers to a foreign origin', async () => {
        const http = new HttpClient(app.url);
        await http.login('alice@example.test', 'correct horse');
        const own = await http.post('/api/agents', { name: 'Same origin' }, { origin: new URL(app.url).origin });
        expect(own.status).toBe(201);
        const none = await http.post('/api/agents', { name: 'No origin' });
        expect(none.status).toBe(201);
        // GET is not a mutation: served, but without CORS headers for an unlisted origin.
        const read = await http.get('/api/agents', { origin: 'https://evil.example' });
        expect(read.status).toBe(200);
        expect(read.headers.get('access-control-allow-origin')).toBeNull();
        const preflight = await http.request('OPTIONS', '/api/agents', { headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
        expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
        expect(preflight.headers.get('access-control-allow-methods')).toBeNull();
      });
    });

    describe('with CORS_ORIGINS, PUBLIC_URL and COOKIE_SECURE', () => {
      let corsApp: World;
      const listed = 'https://app.example.com';

      beforeAll(async () => {
        corsApp = await World.start({ env: { CORS_ORIGINS: `${listed},http://localhost:5173`, PUBLIC_URL: 'https://svc.example.com/', COOKIE_SECURE: 'true' } });
        const f2 = corsApp.ids;
        const c = await f2.company();
        await f2.user(c.uuid, { email: 'bob@example.test', password: 'bob password' });
      });
      afterAll(() => corsApp.close());

      it('adds Secure to the session cookie and its clearing', async () => {
        const http = new HttpClient(corsApp.url);
        const res = await http.post('/api/auth/login', { email: 'bob@example.test', password: 'bob password' });
        expect(res.headers.get('set-cookie')).toMatch(/^svc_session=[A-Za-z0-9_-]{43}; Max-Age=604800; Path=\/; HttpOnly; SameSite=Lax; Secure$/);
        expect((await http.post('/api/auth/logout')).headers.get('set-cookie')).toBe('svc_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax; Secure');
      });

      it('keeps Secure (and every other attribute) when a renewal sets the cookie again', async () => {
        const http = new HttpClient(corsApp.url);
        await http.login('bob@example.test', 'bob password');
        const token = tokenOf(http.cookie);
        await corsApp.db.dataSource.query(`UPDATE user_session SET expires_at = now() + interval '1 day' WHERE token_hash = $1`, [sha256(token)]);
        const res = await http.get('/api/auth/me');
        expect(res.status).toBe(200);
        expect(res.headers.get('set-cookie')).toBe(`svc_session=${token}; Max-Age=604800; Path=/; HttpOnly; SameSite=Lax; Secure`);
      });

      it('allows a listed origin with CORS headers, and PUBLIC_URL is the own origin', async () => {
        const http = new HttpClient(corsApp.url);
        const login = await http.post('/api/auth/login', { email: 'bob@example.test', password: 'bob password' }, { origin: listed });
        expect(login.status).toBe(200);
        expect(login.headers.get('access-control-allow-origin')).toBe(listed);
        expect(login.headers.get('access-control-allow-credentials')).toBe('true');
        expect(login.headers.get('vary')).toMatch(/Origin/);
        expect((await http.post('/api/agents', { name: 'From the app' }, { origin: listed })).status).toBe(201);
        expect((await http.post('/api/agents', { name: 'Public origin' }, { origin: 'https://svc.example.com' })).status).toBe(201);
        // With PUBLIC_URL set, the request's own scheme and Host no longer count as the service's origin.
        const hostOrigin = await http.post('/api/agents', { name: 'Host origin' }, { origin: new URL(corsApp.url).origin });
        expect(hostOrigin.status).toBe(403);
        const foreign = await http.post('/api/agents', { name: 'Foreign' }, { origin: 'https://evil.example' });
        expect(foreign.status).toBe(403);
        expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
      });

      it('answers a preflight from a listed origin with 204 and the allowed methods and headers', async () => {
        const http = new HttpClient(corsApp.url);
        const res = await http.request('OPTIONS', '/api/agents', {
          headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'content-type' },
        });
        expect(res.status).toBe(204);
        expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
        expect(res.headers.get('access-control-allow-credentials')).toBe('true');
        expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST, PUT, PATCH, DELETE');
        expect(res.headers.get('access-control-allow-headers')).toBe('Content-Type, Authorization, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID');
        expect(res.headers.get('vary')).toMatch(/Origin/);
        expect(res.text).toBe('');
        // The tool endpoint's preflight follows the same rule (docs/platform.md §2.2), not its 405.
        const mcp = await http.request('OPTIONS', '/api/mcp', {
          headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST', 'access-control-request-headers': 'mcp-protocol-version, mcp-method, mcp-name' },
        });
        expect(mcp.status).toBe(204);
        expect(mcp.headers.get('access-control-allow-headers')).toContain('Mcp-Name');
        const unlisted = await http.request('OPTIONS', '/api/agents', { headers: { origin: 'https://evil.example', 'access-control-request-method': 'PATCH' } });
        expect(unlisted.status).not.toBe(204);
        expect(unlisted.headers.get('access-control-allow-origin')).toBeNull();
      });
    });
  });
});

describe('agents', () => {
  const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');
  const FORBIDDEN = { success: false, error: { code: 'FORBIDDEN', message: "Only the agent's owner can manage it" } };
  const AGENT_NOT_FOUND = { success: false, error: { code: 'NOT_FOUND', message: 'Agent not found' } };

  describe('agent management REST (e2e)', () => {
    let owner: HttpClient;
    let colleague: HttpClient;
    let outsider: HttpClient;
    let alice: SeededUser;

    beforeAll(async () => {
      const f = app.ids;
      const a = await f.company('A');
      const b = await f.company('B');
      alice = await f.user(a.uuid, { name: 'Alice' });
      const carol = await f.user(a.uuid, { name: 'Carol' });
      const bob = await f.user(b.uuid, { name: 'Bob' });
      owner = new HttpClient(app.url);
      colleague = new HttpClient(app.url);
      outsider = new HttpClient(app.url);
      await owner.login(alice.email, alice.password);
      await colleague.login(carol.email, carol.password);
      await outsider.login(bob.email, bob.password);
    });

    const createAgent = async (body: Record<string, unknown> = { name: 'Builder' }) => {
      const res = await owner.post('/api/agents', body);
      expect(res.status).toBe(201);
      return res.body.data;
    };

    it('creates an agent owned by the caller, with the developer preset by default', async () => {
      const res = await owner.post('/api/agents', { name: '  Builder  ' });
      expect(res.status).toBe(201);
      expect(res.body.data).toEqual({
        uuid: expect.any(String),
        name: 'Builder',
        preset: 'developer_agent',
        permissions: [],
        effectivePermissions: ['idea:read', 'proposal:read', 'document:read', 'task:read', 'task:write', 'project:read'],
        owner: { uuid: alice.uuid, name: 'Alice', email: alice.email },
        lastActiveAt: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect((await owner.get(`/api/agents/${res.body.data.uuid}`)).body.data).toEqual(res.body.data);
    });

    it('validates presets and permissions with the exact messages', async () => {
      const preset = await owner.post('/api/agents', { name: 'X', preset: 'x' });
      expect(preset.status).toBe(400);
      expect(preset.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'Invalid preset: x' });
      const perm = await owner.post('/api/agents', { name: 'X', permissions: ['x:y'] });
      expect(perm.status).toBe(400);
      expect(perm.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'Invalid permission: x:y' });
      const agent = await createAgent();
      const upd = await owner.patch(`/api/agents/${agent.uuid}`, { preset: 'boss' });
      expect(upd.body.error.message).toBe('Invalid preset: boss');
      expect((await owner.get(`/api/agents/${agent.uuid}`)).body.data.preset).toBe('developer_agent');
    });

    it('updates preset and custom bits; a given list replaces the custom bits', async () => {
      const agent = await createAgent({ name: 'PM', preset: 'pm_agent', permissions: ['task:admin'] });
      expect(agent.permissions).toEqual(['task:admin']);
      expect(agent.effectivePermissions).toContain('task:admin');
      const res = await owner.patch(`/api/agents/${agent.uuid}`, { preset: 'admin_agent', permissions: ['idea:admin'] });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ preset: 'admin_agent', permissions: ['idea:admin'] });
      expect(res.body.data.effectivePermissions).toHaveLength(15);
      const cleared = await owner.patch(`/api/agents/${agent.uuid}`, { preset: 'developer_agent', permissions: [] });
      expect(cleared.body.data.permissions).toEqual([]);
      expect(cleared.body.data.effectivePermissions).not.toContain('task:admin');
    });

    it('issues a key whose raw value appears once; lists show prefixes only, newest first', async () => {
      const agent = await createAgent();
      const first = await owner.post(`/api/agents/${agent.uuid}/keys`, { name: 'laptop' });
      expect(first.status).toBe(201);
      const { key, apiKey } = first.body.data;
      expect(key).toMatch(/^agk_[A-Za-z0-9_-]{43}$/);
      expect(apiKey).toEqual({ uuid: expect.any(String), name: 'laptop', keyPrefix: key.slice(0, 12), createdAt: expect.any(String), expiresAt: null, revokedAt: null, lastUsedAt: null });
      const expiresAt = new Date(Date.now() + 86400_000).toISOString();
      const second = await owner.post(`/api/agents/${agent.uuid}/keys`, { expiresAt });
      expect(second.body.data.apiKey).toMatchObject({ name: null, expiresAt });
      const list = await colleague.get(`/api/agents/${agent.uuid}/keys`);
      expect(list.status).toBe(200);
      expect(list.body.data.keys.map((k: { uuid: string }) => k.uuid)).toEqual([second.body.data.apiKey.uuid, apiKey.uuid]);
      expect(list.text).not.toContain(key);
      expect(list.text).not.toContain(second.body.data.key);
      const [row] = await app.db.dataSource.query(`SELECT key_hash FROM agent_api_key WHERE uuid = $1`, [apiKey.uuid]);
      expect(row.key_hash).toBe(sha256(key));
      // The key authenticates as the agent.
      const ctx = await app.get(AuthService).resolveApiKey(key);
      expect(ctx!.actor).toMatchObject({ type: 'agent', uuid: agent.uuid, ownerUuid: alice.uuid });
    });

    it('refuses an expiry that is not in the future', async () => {
      const agent = await createAgent();
      const res = await owner.post(`/api/agents/${agent.uuid}/keys`, { expiresAt: new Date(Date.now() - 1000).toISOString() });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect((await owner.get(`/api/agents/${agent.uuid}/keys`)).body.data.keys).toEqual([]);
    });

    it('revokes a key idempotently; a key of another agent is 404; a revoked key no longer authenticates', async () => {
      const agent = await createAgent();
      const other = await createAgent({ name: 'Other' });
      const { key, apiKey } = (await owner.post(`/api/agents/${agent.uuid}/keys`, {})).body.data;
      const wrongAgent = await owner.delete(`/api/agents/${other.uuid}/keys/${apiKey.uuid}`);
      expect(wrongAgent.status).toBe(404);
      expect(wrongAgent.body.error).toEqual({ code: 'NOT_FOUND', message: 'API key not found' });
      const revoked = await owner.delete(`/api/agents/${agent.uuid}/keys/${apiKey.uuid}`);
      expect(revoked.status).toBe(200);
      expect(revoked.body.data).toMatchObject({ uuid: apiKey.uuid, revokedAt: expect.any(String) });
      const again = await owner.delete(`/api/agents/${agent.uuid}/keys/${apiKey.uuid}`);
      expect(again.status).toBe(200);
      expect(again.body.data.revokedAt).toBe(revoked.body.data.revokedAt);
      expect(await app.get(AuthService).resolveApiKey(key)).toBeNull();
    });

    it('archives an agent on DELETE: hidden from lists, keys revoked, key refused', async () => {
      const agent = await createAgent({ name: 'Doomed' });
      const { key } = (await owner.post(`/api/agents/${agent.uuid}/keys`, {})).body.data;
      const res = await owner.delete(`/api/agents/${agent.uuid}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ uuid: agent.uuid, deleted: true });
      expect((await owner.get('/api/agents')).body.data.agents.map((a: { uuid: string }) => a.uuid)).not.toContain(agent.uuid);
      expect((await owner.get(`/api/agents/${agent.uuid}`)).body).toEqual(AGENT_NOT_FOUND);
      expect(await app.get(AuthService).resolveApiKey(key)).toBeNull();
    });

    it("lets colleagues read but only the owner change, delete or key an agent", async () => {
      const agent = await createAgent({ name: 'Mine' });
      const { apiKey } = (await owner.post(`/api/agents/${agent.uuid}/keys`, {})).body.data;
      expect((await colleague.get(`/api/agents/${agent.uuid}`)).status).toBe(200);
      expect((await colleague.get('/api/agents')).body.data.agents.map((a: { uuid: string }) => a.uuid)).toContain(agent.uuid);
      for (const res of [
        await colleague.patch(`/api/agents/${agent.uuid}`, { name: 'Taken' }),
        await colleague.delete(`/api/agents/${agent.uuid}`),
        await colleague.post(`/api/agents/${agent.uuid}/keys`, {}),
        await colleague.delete(`/api/agents/${agent.uuid}/keys/${apiKey.uuid}`),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body).toEqual(FORBIDDEN);
      }
      const after = (await owner.get(`/api/agents/${agent.uuid}`)).body.data;
      expect(after.name).toBe('Mine');
      expect((await owner.get(`/api/agents/${agent.uuid}/keys`)).body.data.keys).toEqual([expect.objectContaining({ uuid: apiKey.uuid, revokedAt: null })]);
    });

    it('hides every agent and key of company A from a user of company B', async () => {
      const agent = await createAgent({ name: 'Secret' });
      const { apiKey } = (await owner.post(`/api/agents/${agent.uuid}/keys`, {})).body.data;
      const list = await outsider.get('/api/agents');
      expect(list.status).toBe(200);
      expect(list.body.data.agents).toEqual([]);
      for (const res of [
        await outsider.get(`/api/agents/${agent.uuid}`),
        await outsider.patch(`/api/agents/${agent.uuid}`, { name: 'Mine now' }),
        await outsider.delete(`/api/agents/${agent.uuid}`),
        await outsider.get(`/api/agents/${agent.uuid}/keys`),
        await outsider.post(`/api/agents/${agent.uuid}/keys`, {}),
        await outsider.delete(`/api/agents/${agent.uuid}/keys/${apiKey.uuid}`),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body).toEqual(AGENT_NOT_FOUND);
      }
      expect((await owner.get(`/api/agents/${agent.uuid}`)).body.data.name).toBe('Secret');
      // B's own agents are listed for B only.
      const own = await outsider.post('/api/agents', { name: 'B agent' });
      expect((await outsider.get('/api/agents')).body.data.agents.map((a: { uuid: string }) => a.uuid)).toEqual([own.body.data.uuid]);
      expect((await owner.get('/api/agents')).body.data.agents.map((a: { uuid: string }) => a.uuid)).not.toContain(own.body.data.uuid);
    });

    it('lists non-archived agents by creation time', async () => {
      const list = (await colleague.get('/api/agents')).body.data.agents as Array<{ createdAt: string }>;
      expect(list.length).toBeGreaterThan(3);
      expect(list.map((a) => a.createdAt)).toEqual([...list.map((a) => a.createdAt)].sort());
    });

    it('requires a session: 401 without one, and an agent key is ignored on these routes', async () => {
      const { key } = await app.ids.agent(alice.companyUuid, alice.uuid);
      const anonymous = new HttpClient(app.url);
      expect((await anonymous.get('/api/agents')).status).toBe(401);
      const withKey = await anonymous.get('/api/agents', { authorization: `Bearer ${key}` });
      expect(withKey.status).toBe(401);
      expect(withKey.body.error).toEqual({ code: 'UNAUTHORIZED', message: 'Authentication required' });
    });
  });
});
