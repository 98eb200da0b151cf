import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import type { SeededUser } from '../factories/identity.factory.js';
import { World } from '../utils/world.js';
import { ensureBuilt, startServiceProcess, type ServiceProcess } from '../utils/built.js';
import { callTool } from '../utils/mcp-client.js';
import { FormBrowser, MemoryOAuthClient } from '../utils/oauth.js';
import { freePort } from '../../src/shared/database/embedded-postgres.js';
import { createTestDatabase, type TestDatabase } from '../utils/test-database.js';

/**
 * OAuth client ID metadata documents (docs/platform.md §2.5): an MCP host whose client_id is the https URL of its own
 * metadata document, served here by a local TLS fixture (self-signed certificate for localhost). The authorization
 * server fetches it only from public addresses unless OAUTH_PRIVATE_CLIENT_METADATA=true; the fixture's certificate is
 * trusted through NODE_EXTRA_CA_CERTS, which Node reads at process start — so that service runs as a child process.
 */
const REDIRECT = 'http://127.0.0.1:9/callback';
const CLIENT_NAME = 'CIMD host';

describe('OAuth with a client ID metadata document on a private address (e2e)', () => {
  let box: string;
  let fixture: Server;
  let clientId: string;
  let documentFetches = 0;
  let db: TestDatabase;
  let service: ServiceProcess | undefined;
  let base: string;
  let alice: SeededUser;

  beforeAll(async () => {
    ensureBuilt();
    box = await mkdtemp(join(tmpdir(), 'svc-cimd-'));
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', join(box, 'key.pem'), '-out', join(box, 'cert.pem')],
      { stdio: 'ignore', timeout: 20_000 },
    );
    fixture = createServer({ key: await readFile(join(box, 'key.pem')), cert: await readFile(join(box, 'cert.pem')) }, (req, res) => {
      if (req.method !== 'GET' || req.url !== '/client.json') {
        res.writeHead(404).end();
        return;
      }
      documentFetches++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          client_id: clientId,
          client_name: CLIENT_NAME,
          redirect_uris: [REDIRECT],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        }),
      );
    });
    await new Promise<void>((r) => fixture.listen(0, '127.0.0.1', r));
    clientId = `https://localhost:${(fixture.address() as { port: number }).port}/client.json`;

    db = await createTestDatabase();
    const seed = await World.over(db.dataSource);
    const company = await seed.company('CIMD Co');
    alice = await seed.user(company.uuid, { name: 'Alice' });
    await seed.close();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    service = await startServiceProcess(
      { DATABASE_URL: db.url, NATS_URL: undefined, PUBLIC_URL: base, OAUTH_PRIVATE_CLIENT_METADATA: 'true', NODE_EXTRA_CA_CERTS: join(box, 'cert.pem') },
      { port },
    );
  }, 240_000);

  afterAll(async () => {
    service?.kill();
    await service?.exited;
    await new Promise((r) => (fixture ? fixture.close(r) : r(undefined)));
    await db?.drop();
    if (box) await rm(box, { recursive: true, force: true });
  });

  it('uses the document URL as client_id (no registration), signs in, consents and lists the agent’s tools', async () => {
    const requests: string[] = [];
    const fetchFn = (url: string | URL, init?: RequestInit) => {
      requests.push(`${init?.method ?? 'GET'} ${new URL(url).pathname}`);
      return fetch(url, { ...init, signal: init?.signal ?? AbortSignal.timeout(15_000) });
    };
    const provider = new MemoryOAuthClient(REDIRECT, 'ignored: the document names the client', clientId);
    const transport = () => new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`), { authProvider: provider, fetch: fetchFn });
    const newClient = () => new Client({ name: 'cimd-host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });

    const first = transport();
    await expect(newClient().connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizationUrl!.searchParams.get('client_id')).toBe(clientId);
    const browser = new FormBrowser(base);
    const callback = await browser.authorize(provider.authorizationUrl!.href, {
      login: { email: alice.email, password: alice.password },
      consent: () => ({ agent: 'new', name: 'CIMD agent', preset: 'developer_agent' }),
    });
    // The consent page names the client as its document does.
    expect(browser.pages[1]).toContain('Allow access');
    expect(browser.pages[1]).toContain(CLIENT_NAME);
    expect(callback.origin + callback.pathname).toBe(REDIRECT);
    await first.finishAuth(callback.searchParams);
    const client = newClient();
    await client.connect(transport());

    expect((await client.listTools()).tools).toHaveLength(44);
    const checkin = await callTool(client, 'svc_checkin');
    expect(checkin.data.agent).toMatchObject({ name: 'CIMD agent' });
    await client.close();

    // No registration: neither a request to it nor a stored client; the grant names the document's client.
    expect(requests.filter((r) => r.startsWith('POST /oauth/reg'))).toEqual([]);
    expect(await db.dataSource.query(`SELECT count(*)::int AS n FROM oauth_payload WHERE kind = 'Client'`)).toEqual([{ n: 0 }]);
    expect(provider.client).toMatchObject({ client_id: clientId });
    expect(await db.dataSource.query(`SELECT client_id, client_name FROM oauth_grant`)).toEqual([{ client_id: clientId, client_name: CLIENT_NAME }]);
    expect(documentFetches).toBeGreaterThanOrEqual(1);
  }, 60_000);

  it('refuses the same client_id without OAUTH_PRIVATE_CLIENT_METADATA (the default): the document is never fetched', async () => {
    // A child process too, with the fixture's certificate trusted: the refusal can only come from the SSRF guard (in
    // jest's VM context oidc-provider cannot set that guard up, and there the untrusted certificate alone would refuse).
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const plain = await startServiceProcess({ DATABASE_URL: db.url, NATS_URL: undefined, PUBLIC_URL: url, NODE_EXTRA_CA_CERTS: join(box, 'cert.pem') }, { port });
    try {
      const before = documentFetches;
      const auth = new URL(`${url}/oauth/auth`);
      for (const [k, v] of Object.entries({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: REDIRECT,
        scope: 'mcp',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        resource: `${url}/api/mcp`,
      })) {
        auth.searchParams.set(k, v);
      }
      const res = await fetch(auth, { redirect: 'manual', signal: AbortSignal.timeout(15_000) });
      // An error page, not a redirect to the sign-in form (nor to the client: its redirect URIs are unknown).
      expect(res.headers.get('location')).toBeNull();
      expect(res.status).toBe(400);
      const html = await res.text();
      expect(html).toContain('invalid_client');
      expect(html).not.toContain('Sign in');
      expect(documentFetches).toBe(before);
      expect(plain.output()).not.toContain('failed to setup SSRF protection');
    } finally {
      plain.kill();
      await plain.exited;
    }
  }, 60_000);
});
