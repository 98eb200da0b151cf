import { jest } from '@jest/globals';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { SchedulerRegistry } from '@nestjs/schedule';
import { OAuthPruner } from '../../src/modules/oauth/oauth-pruner.js';
import { freePort } from '../../src/shared/database/embedded-postgres.js';
import type { SeededUser } from '../factories/identity.factory.js';
import { ManualClock } from '../utils/clock.js';
import { requestFrom } from '../utils/http-from.js';
import { rpc } from '../utils/mcp-client.js';
import { FormBrowser, MemoryOAuthClient } from '../utils/oauth.js';
import { World } from '../utils/world.js';

const DAY = 24 * 3_600_000;
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

/**
 * Dynamic client registration bounded (docs/deploy.md, "Abuse limits"): 20 per client address per hour counted by
 * both instances together, then 429 with Retry-After and an RFC 7591 error body; stale clients pruned in the
 * background, and a host whose client was pruned recovers with the official SDK's OAuth client by registering again.
 * Two instances on one database behind the same public URL; TRUST_PROXY=127.0.0.1 lets this test name client
 * addresses in X-Forwarded-For; one clock both instances read, moved by the test.
 */
describe('OAuth client registration, bounded and pruned (e2e)', () => {
  const clock = new ManualClock();
  let one: World;
  let two: World;
  let base: string;
  let user: SeededUser;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    one = await World.start({ env: { PORT: String(port), PUBLIC_URL: base, TRUST_PROXY: '127.0.0.1' }, clock });
    two = await World.start({ sharing: one, env: { PUBLIC_URL: base, TRUST_PROXY: '127.0.0.1' }, clock });
    user = await one.user((await one.company('Registrations Co')).uuid, { password: 'right password' });
  });
  afterAll(async () => {
    await two?.close();
    await one?.close();
  });

  const metadata = (name: string) => ({ client_name: name, redirect_uris: ['http://127.0.0.1:9/callback'], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' });
  /** A registration through "the proxy" for client address `client`, on instance `w`. */
  const register = (w: World, client: string, path = '/oauth/reg') =>
    fetch(`${w.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': client }, body: JSON.stringify(metadata(`Host of ${client}`)) });

  it('allows 20 registrations per client address per hour across both instances, then 429 with Retry-After and an RFC 7591 body', async () => {
    for (let i = 0; i < 20; i++) expect((await register([one, two][i % 2], '203.0.113.50')).status).toBe(201);
    for (const w of [one, two]) {
      const refused = await register(w, '203.0.113.50');
      expect(refused.status).toBe(429);
      expect(refused.headers.get('content-type')).toMatch(/^application\/json/);
      expect(refused.headers.get('cache-control')).toBe('no-store');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3500);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(3600);
      expect(await refused.json()).toEqual({ error: 'too_many_requests', error_description: expect.stringMatching(/^Too many client registrations from this address; retry after \d+ seconds$/) });
    }
    // The same route spelled with a trailing slash is the same limit.
    expect((await register(one, '203.0.113.50', '/oauth/reg/')).status).toBe(429);
    expect((await one.metric('svc_oauth_registrations_refused_total')) + (await two.metric('svc_oauth_registrations_refused_total'))).toBe(3);
    // Another address still registers; so does a client that only claims the limited address from an untrusted socket.
    expect((await register(two, '203.0.113.51')).status).toBe(201);
    const claimed = await requestFrom('127.0.0.2', `${one.url}/oauth/reg`, { method: 'POST', headers: { 'x-forwarded-for': '203.0.113.50' }, json: metadata('Claimer') });
    expect(claimed.status).toBe(201);
    // The window frees an hour after the first of the twenty.
    clock.advance(3_600_000 + 1000);
    expect((await register(one, '203.0.113.50')).status).toBe(201);
  });

  it('prunes never-authorized clients after 7 days and unused ones after 90 (on the scheduler); a pruned host gets invalid_client and recovers by registering again', async () => {
    expect(one.get(SchedulerRegistry).getIntervals()).toEqual(expect.arrayContaining(['oauth-client-prune', 'oauth-expired-purge', 'login-throttle-purge', 'throttle-hit-purge', 'throttle-instance-sweep', 'user-session-purge']));
    const newClient = () => new Client({ name: 'pruned-host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const transport = (provider: MemoryOAuthClient) => new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`), { authProvider: provider });
    const authorize = async (provider: MemoryOAuthClient, first: StreamableHTTPClientTransport, agentName: string) => {
      const callback = await new FormBrowser(base).authorize(provider.authorizationUrl!.href, {
        login: { email: user.email, password: 'right password' },
        consent: () => ({ agent: 'new', name: agentName, preset: 'developer_agent' }),
      });
      await first.finishAuth(callback.searchParams);
    };
    // A host that registered and never finished an authorization, and one that did and uses its token.
    const abandoned = new MemoryOAuthClient(undefined, 'Abandoned host');
    await expect(newClient().connect(transport(abandoned))).rejects.toBeInstanceOf(UnauthorizedError);
    const active = new MemoryOAuthClient(undefined, 'Active host');
    const first = transport(active);
    await expect(newClient().connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    await authorize(active, first, 'Pruning agent');
    const client = newClient();
    await client.connect(transport(active));
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    const [abandonedId, activeId] = [abandoned.client!.client_id, active.client!.client_id];

    // Six days: nothing is stale yet.
    clock.advance(6 * DAY);
    expect(await one.get(OAuthPruner).pruneClients()).toEqual([]);
    // Eight days: the abandoned registration goes; the active client stays (its grant is in use).
    clock.advance(2 * DAY);
    const pruned = await one.get(OAuthPruner).pruneClients();
    expect(pruned).toContainEqual({ clientId: abandonedId, reason: 'no_grant' });
    expect(pruned.map((p) => p.clientId)).not.toContain(activeId);
    expect(await one.ds.query(`SELECT id FROM oauth_payload WHERE kind = 'Client' AND id = $1`, [abandonedId])).toEqual([]);
    // Its client_id is now unknown: the authorization server answers invalid_client.
    const token = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'whatever', client_id: abandonedId }),
    });
    expect([token.status, ((await token.json()) as { error: string }).error]).toEqual([401, 'invalid_client']);
    const page = await fetch(`${base}/oauth/auth?${new URLSearchParams({ client_id: abandonedId, response_type: 'code', redirect_uri: 'http://127.0.0.1:9/callback', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256', scope: 'mcp' })}`, { redirect: 'manual' });
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('invalid_client');

    // Ninety-one days: every grant of the active client has been unused for 90 days — client, grant and tokens go.
    clock.advance(83 * DAY);
    const later = await two.get(OAuthPruner).pruneClients();
    expect(later).toContainEqual({ clientId: activeId, reason: 'unused' });
    expect(await one.ds.query(`SELECT grant_id FROM oauth_grant WHERE client_id = $1`, [activeId])).toEqual([]);
    expect((await rpc(base, INIT, { authorization: `Bearer ${active.saved!.access_token}` })).status).toBe(401);
    expect((await one.metric('svc_oauth_clients_pruned_total{reason="no_grant"}')) + (await two.metric('svc_oauth_clients_pruned_total{reason="no_grant"}'))).toBeGreaterThanOrEqual(1);
    expect(await two.metric('svc_oauth_clients_pruned_total{reason="unused"}')).toBeGreaterThanOrEqual(1);

    // The host's next call: 401, its refresh answers invalid_client, the SDK drops the client and registers again,
    // then asks for the browser; the user consents once more and the host is back.
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      await expect(client.listTools()).rejects.toBeInstanceOf(UnauthorizedError);
      expect(warn.mock.calls.map((c) => String(c[0])).some((m) => m.includes('"invalid_client"'))).toBe(true);
    } finally {
      warn.mockRestore();
    }
    const reregistered = active.client!.client_id;
    expect(reregistered).not.toBe(activeId);
    const again = transport(active);
    await expect(newClient().connect(again)).rejects.toBeInstanceOf(UnauthorizedError);
    await authorize(active, again, 'Pruning agent again');
    const back = newClient();
    await back.connect(transport(active));
    expect((await back.listTools()).tools.length).toBeGreaterThan(0);
    expect(await one.ds.query(`SELECT client_id FROM oauth_grant WHERE client_id = $1`, [reregistered])).toEqual([{ client_id: reregistered }]);
    await back.close();
    await client.close();
  });
});
