import { randomUUID } from 'node:crypto';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import type { SeededUser } from '../factories/identity.factory.js';
import { HttpClient } from '../utils/http.js';
import { callTool, mcpClient, rpc } from '../utils/mcp-client.js';
import { FormBrowser, MemoryOAuthClient } from '../utils/oauth.js';
import { freePort } from '../../src/shared/database/embedded-postgres.js';
import { World } from '../utils/world.js';

/**
 * OAuth for the tool endpoint (docs/platform.md §2.5) with the official MCP client SDK's OAuth flow against the running
 * service: discovery from the 401, dynamic registration, PKCE, sign-in and consent through the server-rendered forms,
 * then tools as the chosen agent; keys beside it; the 401s of wrong, expired, revoked and foreign tokens.
 */
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

describe('OAuth for the tool endpoint (e2e, official SDK client)', () => {
  let app: World;
  let base: string;
  let alice: SeededUser;
  let bob: SeededUser;
  let companyUuid: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await World.start({ env: { PORT: String(port), PUBLIC_URL: base } });
    const c = await app.ids.company('OAuth Co');
    companyUuid = c.uuid;
    alice = await app.user(c.uuid, { name: 'Alice' });
    bob = await app.user(c.uuid, { name: 'Bob' });
  });
  afterAll(() => app?.close());

  const transport = (provider: MemoryOAuthClient) => new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`), { authProvider: provider });
  const newClient = () => new Client({ name: 'oauth-host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });

  /** The whole flow as a host runs it; `consent` fills the consent form. Returns the connected client and its provider. */
  async function connectByUrl(user: SeededUser, consent: (html: string) => Record<string, string>, name = 'SDK test host', sessionCookie?: string) {
    const provider = new MemoryOAuthClient(undefined, name);
    const first = transport(provider);
    await expect(newClient().connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizationUrl).not.toBeNull();
    const browser = new FormBrowser(base);
    if (sessionCookie) browser.jar.set('svc_session', sessionCookie.replace(/^svc_session=/, '').split(';')[0]);
    const callback = await browser.authorize(provider.authorizationUrl!.href, { login: { email: user.email, password: user.password }, consent });
    expect(callback.origin + callback.pathname).toBe(provider.redirectUrl);
    await first.finishAuth(callback.searchParams);
    const client = newClient();
    await client.connect(transport(provider));
    return { client, provider, browser };
  }

  const newAgent = (preset: string, name: string) => () => ({ agent: 'new', name, preset });
  const agentRow = async (name: string) => (await app.ds.query(`SELECT uuid FROM agent WHERE name = $1`, [name]))[0] as { uuid: string };

  it('publishes the protected-resource and authorization-server metadata, and names it in every 401', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/api/mcp']) {
      const res = await fetch(base + path);
      expect([path, res.status, await res.json()]).toEqual([
        path,
        200,
        { resource: `${base}/api/mcp`, authorization_servers: [base], scopes_supported: ['mcp'], bearer_methods_supported: ['header'], resource_name: 'svc' },
      ]);
    }
    const as = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(as).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth/auth`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/reg`,
      revocation_endpoint: `${base}/oauth/token/revocation`,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
      client_id_metadata_document_supported: true,
    });
    const metadata = `resource_metadata="${base}/.well-known/oauth-protected-resource/api/mcp"`;
    const none = await rpc(base, INIT);
    expect([none.status, none.headers.get('www-authenticate')]).toEqual([401, `Bearer realm="svc", ${metadata}`]);
    const wrong = await rpc(base, INIT, { authorization: 'Bearer not-a-token' });
    expect([wrong.status, wrong.headers.get('www-authenticate')]).toEqual([401, `Bearer realm="svc", ${metadata}, error="invalid_token", error_description="Missing or invalid API key"`]);
    expect(wrong.json).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Missing or invalid API key' } });
  });

  it('connects by URL alone: registration, PKCE, sign-in, consent to a new agent, then tools as that agent; refresh rotates', async () => {
    const { client, provider, browser } = await connectByUrl(alice, newAgent('pm_agent', 'Connected PM'), 'Claude-ish host');
    const agent = await agentRow('Connected PM');
    // The consent page named the client and where it returns to; the sign-in page came first.
    expect(browser.pages[0]).toContain('Sign in');
    expect(browser.pages[1]).toContain('Claude-ish host');
    expect(browser.pages[1]).toContain('127.0.0.1:9');
    expect((await client.listTools()).tools).toHaveLength(74);
    const checkin = await callTool(client, 'svc_checkin');
    expect(checkin.isError).toBe(false);
    expect(checkin.data.agent).toMatchObject({ uuid: agent.uuid, name: 'Connected PM' });
    // The access token is gone server-side: the client refreshes on the 401 (the refresh token rotates) and goes on.
    const before = provider.saved!.refresh_token;
    await app.ds.query(`DELETE FROM oauth_payload WHERE kind = 'AccessToken'`);
    expect((await client.listTools()).tools).toHaveLength(74);
    expect(provider.saved!.refresh_token).not.toBe(before);
    // The owner sees the grant; another user may not; another company's user sees no such agent.
    const asAlice = await app.login(alice);
    const grants = await asAlice.get(`/api/agents/${agent.uuid}/grants`);
    expect(grants.status).toBe(200);
    expect(grants.body.data.grants).toEqual([
      { grantId: expect.any(String), agentUuid: agent.uuid, clientId: provider.client!.client_id, clientName: 'Claude-ish host', redirectHost: '127.0.0.1:9', createdAt: expect.any(String), lastUsedAt: expect.any(String) },
    ]);
    expect((await (await app.login(bob)).get(`/api/agents/${agent.uuid}/grants`)).status).toBe(403);
    // The agents listing shows each agent's grants.
    const listed = (await asAlice.get('/api/agents')).body.data.agents as Array<{ uuid: string; grants: Array<{ clientName: string }> }>;
    expect(listed.find((a) => a.uuid === agent.uuid)!.grants.map((g) => g.clientName)).toEqual(['Claude-ish host']);
    const other = await app.ids.company('Elsewhere');
    const stranger = await app.user(other.uuid);
    expect((await (await app.login(stranger)).get(`/api/agents/${agent.uuid}/grants`)).status).toBe(404);
    // Revoking the grant stops the token at once (and its refresh token).
    const grantId = grants.body.data.grants[0].grantId as string;
    expect((await asAlice.delete(`/api/agents/${agent.uuid}/grants/${grantId}`)).body.data).toEqual({ grantId, revoked: true });
    const after = await rpc(base, INIT, { authorization: `Bearer ${provider.saved!.access_token}` });
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect((await asAlice.delete(`/api/agents/${agent.uuid}/grants/${grantId}`)).status).toBe(404);
    await client.close();
  });

  it('binds to an existing agent; archiving it stops the token; keys keep working beside tokens', async () => {
    const existing = await app.agent(companyUuid, alice.uuid, { name: 'Existing dev', preset: 'developer_agent' });
    const asAlice = await app.login(alice);
    // Signed in to the web app already: the session cookie skips the sign-in form.
    const { client, provider, browser } = await connectByUrl(alice, () => ({ agent: existing.uuid }), 'Second host', asAlice.cookie!);
    expect(browser.pages).toHaveLength(1);
    expect(browser.pages[0]).toContain('Allow access');
    expect(browser.pages[0]).toContain('Existing dev');
    expect((await client.listTools()).tools).toHaveLength(44);
    expect((await callTool(client, 'svc_checkin')).data.agent.uuid).toBe(existing.uuid);
    // The key of the same agent still works.
    const keyed = await mcpClient(base, existing.key);
    expect((await keyed.listTools()).tools).toHaveLength(44);
    await keyed.close();
    expect((await asAlice.delete(`/api/agents/${existing.uuid}`)).status).toBe(200);
    const res = await rpc(base, INIT, { authorization: `Bearer ${provider.saved!.access_token}` });
    expect(res.status).toBe(401);
    await client.close();
  });

  it('a consent whose agent binding fails leaves nothing behind: no grant, no agent it created; a retry creates one agent', async () => {
    // A real failure of the binding's INSERT, injected in the database for this one client.
    await app.ds.query(`
      CREATE FUNCTION fail_binding() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.client_name = 'Unbindable host' THEN RAISE EXCEPTION 'binding refused for the test'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER fail_binding BEFORE INSERT ON oauth_grant FOR EACH ROW EXECUTE FUNCTION fail_binding();`);
    const provider = new MemoryOAuthClient(undefined, 'Unbindable host');
    try {
      await expect(newClient().connect(transport(provider))).rejects.toBeInstanceOf(UnauthorizedError);
      const browser = new FormBrowser(base);
      // The browser gets a page (not the API's JSON) naming the error id the log has.
      await expect(
        browser.authorize(provider.authorizationUrl!.href, { login: { email: alice.email, password: alice.password }, consent: newAgent('developer_agent', 'Unbound dev') }),
      ).rejects.toThrow(/consent answered 500: <!doctype html>.*Something went wrong.*\(error [0-9a-f-]{36}\)/s);
      expect(app.logs.some((l) => l.msg === 'unhandled error' && typeof l.errorId === 'string')).toBe(true);
      const clientId = provider.client!.client_id;
      const grants = await app.ds.query(`SELECT id FROM oauth_payload WHERE kind = 'Grant' AND payload->>'clientId' = $1`, [clientId]);
      expect(grants).toEqual([]);
      expect(await app.ds.query(`SELECT grant_id FROM oauth_grant WHERE client_id = $1`, [clientId])).toEqual([]);
      // The agent the consent created rolled back with the binding (one transaction).
      expect(await app.ds.query(`SELECT uuid FROM agent WHERE name = 'Unbound dev'`)).toEqual([]);
    } finally {
      await app.ds.query(`DROP TRIGGER fail_binding ON oauth_grant; DROP FUNCTION fail_binding()`);
    }
    // The same host tries again once the binding works: one agent, one grant.
    const retry = transport(provider);
    await expect(newClient().connect(retry)).rejects.toBeInstanceOf(UnauthorizedError);
    const callback = await new FormBrowser(base).authorize(provider.authorizationUrl!.href, {
      login: { email: alice.email, password: alice.password },
      consent: newAgent('developer_agent', 'Unbound dev'),
    });
    await retry.finishAuth(callback.searchParams);
    const client = newClient();
    await client.connect(transport(provider));
    await client.close();
    const agents: Array<{ uuid: string }> = await app.ds.query(`SELECT uuid FROM agent WHERE name = 'Unbound dev'`);
    expect(agents).toHaveLength(1);
    expect(await app.ds.query(`SELECT agent_uuid FROM oauth_grant WHERE client_id = $1`, [provider.client!.client_id])).toEqual([{ agent_uuid: agents[0].uuid }]);
  });

  it('a consent with an invalid new agent re-shows the form (400) and creates nothing', async () => {
    const provider = new MemoryOAuthClient(undefined, 'Careless host');
    await expect(newClient().connect(transport(provider))).rejects.toBeInstanceOf(UnauthorizedError);
    const browser = new FormBrowser(base);
    await expect(
      browser.authorize(provider.authorizationUrl!.href, { login: { email: alice.email, password: alice.password }, consent: newAgent('no_such_preset', 'Careless agent') }),
    ).rejects.toThrow(/consent answered 400: .*Invalid preset: no_such_preset/s);
    expect(await app.ds.query(`SELECT uuid FROM agent WHERE name = 'Careless agent'`)).toEqual([]);
    expect(await app.ds.query(`SELECT id FROM oauth_payload WHERE kind = 'Grant' AND payload->>'clientId' = $1`, [provider.client!.client_id])).toEqual([]);
  });

  it('refuses expired tokens and tokens for another resource with 401 invalid_token', async () => {
    const { client, provider } = await connectByUrl(bob, newAgent('developer_agent', `Bob bot ${randomUUID().slice(0, 6)}`));
    await client.close();
    const token = provider.saved!.access_token;
    const call = () => rpc(base, INIT, { authorization: `Bearer ${token}` });
    expect((await call()).status).toBe(200);
    // Issued for another resource (its audience rewritten in storage): refused.
    await app.ds.query(`UPDATE oauth_payload SET payload = jsonb_set(payload, '{aud}', '"https://elsewhere.example/api/mcp"') WHERE kind = 'AccessToken'`);
    expect((await call()).status).toBe(401);
    await app.ds.query(`UPDATE oauth_payload SET payload = jsonb_set(payload, '{aud}', to_jsonb($1::text)) WHERE kind = 'AccessToken'`, [`${base}/api/mcp`]);
    expect((await call()).status).toBe(200);
    // Expired.
    await app.ds.query(`UPDATE oauth_payload SET expires_at = now() - interval '1 second' WHERE kind = 'AccessToken'`);
    const expired = await call();
    expect([expired.status, expired.headers.get('www-authenticate')]).toEqual([401, expect.stringContaining('error="invalid_token"')]);
    // The token authenticates the tool endpoint only: REST refuses it.
    expect((await new HttpClient(base, { authorization: `Bearer ${token}` }).get('/api/notifications')).status).toBe(401);
  });

  it('counts registrations, issued tokens, token errors and refused credentials in /metrics', async () => {
    const metric = async (name: string, labels = ''): Promise<number> => {
      const text = (await app.http().get('/metrics')).text;
      const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
      return line ? Number(line.split(' ').at(-1)) : 0;
    };
    const read = () =>
      Promise.all([
        metric('svc_oauth_clients_registered_total'),
        metric('svc_oauth_tokens_issued_total', 'grant_type="authorization_code"'),
        metric('svc_oauth_tokens_issued_total', 'grant_type="refresh_token"'),
        metric('svc_oauth_errors_total', 'event="grant.error"'),
        metric('svc_mcp_auth_rejected_total', 'credential="missing"'),
        metric('svc_mcp_auth_rejected_total', 'credential="key"'),
        metric('svc_mcp_auth_rejected_total', 'credential="token"'),
      ]);
    const before = await read();
    const { client, provider } = await connectByUrl(alice, newAgent('developer_agent', `Counted ${randomUUID().slice(0, 6)}`));
    // One refresh (the access token removed server-side), one refused code, three refused credentials.
    await app.ds.query(`DELETE FROM oauth_payload WHERE kind = 'AccessToken'`);
    await client.listTools();
    const bad = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: 'not-a-code', code_verifier: 'x'.repeat(43), redirect_uri: provider.redirectUrl, client_id: provider.client!.client_id }),
    });
    expect(bad.status).toBe(400);
    expect((await rpc(base, INIT)).status).toBe(401);
    expect((await rpc(base, INIT, { authorization: 'Bearer agk_unknown' })).status).toBe(401);
    expect((await rpc(base, INIT, { authorization: 'Bearer not-a-token' })).status).toBe(401);
    const after = await read();
    // The host's first connect sent no credential, and its call with the removed access token was refused before it
    // refreshed: one more `missing` and one more `token` than the three sent here.
    expect(after.map((v, i) => v - before[i])).toEqual([1, 1, 1, 1, 2, 1, 2]);
    await client.close();
  });

  it('a token of one company never reads another company’s records', async () => {
    const other = await app.ids.company('Other Co');
    const owner = await app.user(other.uuid);
    const theirs = await app.project({ type: 'user', uuid: owner.uuid, companyUuid: other.uuid, name: 'x', ownerUuid: null, permissions: new Set() } as never, { name: 'Their project' });
    const { client } = await connectByUrl(alice, newAgent('admin_agent', 'Isolation admin'));
    const res = await callTool(client, 'svc_get_project', { projectUuid: theirs });
    expect(res).toMatchObject({ isError: true, data: { error: { code: 'NOT_FOUND' } } });
    await client.close();
  });

  it('a flow crosses instances: started on one, signed in and consented on another, the token accepted by both', async () => {
    const port = await freePort();
    const other = await World.start({ env: { PORT: String(port), PUBLIC_URL: base }, sharing: app });
    try {
      const provider = new MemoryOAuthClient(undefined, 'Cross-instance host');
      const first = transport(provider);
      await expect(newClient().connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
      // Every browser step goes to the second instance (same public URL, as behind a load balancer).
      const browser = new FormBrowser(base, other.url);
      const callback = await browser.authorize(provider.authorizationUrl!.href, {
        login: { email: bob.email, password: bob.password },
        consent: newAgent('developer_agent', `Cross ${randomUUID().slice(0, 6)}`),
      });
      await first.finishAuth(callback.searchParams);
      const auth = { authorization: `Bearer ${provider.saved!.access_token}` };
      expect((await rpc(other.url, INIT, auth)).status).toBe(200);
      expect((await rpc(base, INIT, auth)).status).toBe(200);
    } finally {
      await other.close();
    }
  });

  it('sign-in: wrong password re-shows the form (401), a foreign Origin is refused, PKCE is required', async () => {
    const provider = new MemoryOAuthClient();
    await expect(newClient().connect(transport(provider))).rejects.toBeInstanceOf(UnauthorizedError);
    const browser = new FormBrowser(base);
    const page = (await browser.go(provider.authorizationUrl!.href)).headers.get('location')!;
    const form = await browser.go(page);
    expect(form.headers.get('content-security-policy')).not.toContain('form-action');
    const bad = await browser.post(`${page}/login`, { email: alice.email, password: 'wrong' });
    expect(bad.status).toBe(401);
    expect(await bad.text()).toContain('Invalid email or password');
    // An unknown or expired interaction is the library's refusal: a page saying so, with its 4xx status.
    const gone = await new FormBrowser(base).go(`${base}/oauth/interaction/no-such-interaction`);
    expect([gone.status, gone.headers.get('content-type')]).toEqual([400, expect.stringMatching(/^text\/html/)]);
    expect(await gone.text()).toContain('This sign-in has expired or is unknown');
    const foreign = await browser.post(`${page}/login`, { email: alice.email, password: alice.password }, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('content-type')).toMatch(/^text\/html/);
    expect(foreign.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(await foreign.text()).toContain('Cross-site request refused');
    // Without PKCE the authorization endpoint refuses (redirecting the error to the client).
    const noPkce = new URL(provider.authorizationUrl!.href);
    noPkce.searchParams.delete('code_challenge');
    noPkce.searchParams.delete('code_challenge_method');
    const refused = await new FormBrowser(base).go(noPkce.href);
    expect(refused.headers.get('location')).toContain('error=invalid_request');
  });
});

describe('OAuth off without PUBLIC_URL (e2e)', () => {
  let app: World;
  beforeAll(async () => {
    app = await World.start();
  });
  afterAll(() => app?.close());

  it('answers 404 for the metadata and sends no resource_metadata in 401s', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-authorization-server', '/oauth/reg']) {
      expect([path, (await fetch(app.url + path)).status]).toEqual([path, 404]);
    }
    const res = await rpc(app.url, INIT, { authorization: 'Bearer nope' });
    expect([res.status, res.headers.get('www-authenticate')]).toEqual([401, 'Bearer realm="svc", error="invalid_token", error_description="Missing or invalid API key"']);
  });
});
