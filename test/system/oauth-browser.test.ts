import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import type { Browser, BrowserContext, ConsoleMessage, Page } from 'playwright-core';
import type { SeededUser } from '../factories/identity.factory.js';
import { launchBrowser } from '../utils/browser.js';
import { callTool } from '../utils/mcp-client.js';
import { MemoryOAuthClient } from '../utils/oauth.js';
import { freePort } from '../../src/shared/database/embedded-postgres.js';
import { World } from '../utils/world.js';

/**
 * The authorization flow's sign-in and consent pages (docs/platform.md §2.5) in headless Chromium with JavaScript off: the
 * official SDK client starts the flow, the browser signs in and consents through the plain forms, and the redirect
 * chain must reach the client's redirect_uri on another origin (a small local server here) with no CSP violation on
 * the way (the pages' policy has no `form-action`, which Chromium would apply to the whole redirect chain). The SDK
 * client then finishes the flow with the callback's parameters and works as the agent chosen on the consent page.
 */
const WAIT = 10000; // every browser wait is bounded by this

/** The test helper's client plus an OAuth `state` (the SDK sends one only when the provider makes it), as a host keeps. */
class StatefulOAuthClient extends MemoryOAuthClient {
  issuedState: string | undefined;
  state(): string {
    this.issuedState = randomBytes(16).toString('base64url');
    return this.issuedState;
  }
}

/** The client's redirect_uri: records the query of each callback it receives and answers a small page. */
class CallbackServer {
  private constructor(
    private readonly server: Server,
    readonly url: string,
    readonly hits: URLSearchParams[],
  ) {}

  static async start(): Promise<CallbackServer> {
    const hits: URLSearchParams[] = [];
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname === '/callback') hits.push(url.searchParams);
      res.writeHead(url.pathname === '/callback' ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>Callback</title><p>You can close this window.</p>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new CallbackServer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits);
  }

  get redirectUrl(): string {
    return `${this.url}/callback`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe('OAuth sign-in and consent pages in headless Chromium without JavaScript (e2e)', () => {
  let app: World;
  let base: string;
  let alice: SeededUser;
  let callback: CallbackServer;
  let browser: Browser;
  let context: BrowserContext | undefined;
  let page: Page;
  let messages: string[];

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await World.start({ env: { PORT: String(port), PUBLIC_URL: base } });
    const c = await app.ids.company('Browser OAuth Co');
    alice = await app.user(c.uuid, { name: 'Alice' });
    callback = await CallbackServer.start();
    browser = await launchBrowser();
  }, 60000);

  afterAll(async () => {
    await browser?.close();
    await callback?.close();
    await app?.close();
  });

  beforeEach(async () => {
    callback.hits.length = 0;
    context = await browser.newContext({ javaScriptEnabled: false });
    context.setDefaultTimeout(WAIT);
    context.setDefaultNavigationTimeout(WAIT);
    messages = [];
    // Console messages include the browser's own log entries, among them every CSP violation report.
    // Chromium's own favicon fetch (a 404 from either server, logged or not depending on timing) is not the pages'.
    context.on('console', (m: ConsoleMessage) => {
      if (!/\/favicon\.ico$/.test(m.location().url)) messages.push(`${m.type()}: ${m.text()} (${m.location().url})`);
    });
    page = await context.newPage();
    page.on('pageerror', (err) => messages.push(`pageerror: ${err.message}`));
  });

  afterEach(async () => {
    await context?.close();
    context = undefined;
  });

  const transport = (provider: MemoryOAuthClient) => new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`), { authProvider: provider });
  const newClient = () => new Client({ name: 'browser-host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  const onCallback = (url: URL) => url.origin === callback.url && url.pathname === '/callback';
  const cspViolations = () => messages.filter((m) => /content security policy|violates/i.test(m));

  /** The SDK client's first connect: 401, discovery, registration with the callback server's redirect URL, PKCE. */
  async function startFlow(name: string): Promise<{ provider: StatefulOAuthClient; first: StreamableHTTPClientTransport }> {
    const provider = new StatefulOAuthClient(callback.redirectUrl, name);
    const first = transport(provider);
    await expect(newClient().connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizationUrl).not.toBeNull();
    expect(provider.authorizationUrl!.searchParams.get('redirect_uri')).toBe(callback.redirectUrl);
    expect(provider.authorizationUrl!.searchParams.get('state')).toBe(provider.issuedState);
    return { provider, first };
  }

  /** A failed wait with what the browser was showing and what it logged (a CSP violation, a refused post). */
  async function explained<T>(wait: Promise<T>): Promise<T> {
    try {
      return await wait;
    } catch (err) {
      const body = await page.textContent('body', { timeout: 1000 }).catch(() => '(no page)');
      throw new Error(`${(err as Error).message}\nat ${page.url()}: ${body?.slice(0, 300)}\nbrowser console:\n${messages.join('\n')}`);
    }
  }

  /** Opens the authorization URL and signs in through the sign-in form; ends on the consent page. */
  async function signIn(authorizationUrl: URL, user: SeededUser): Promise<void> {
    const shown = await page.goto(authorizationUrl.href, { timeout: WAIT });
    expect(shown?.status()).toBe(200);
    expect(shown?.headers()['referrer-policy']).toBe('same-origin'); // else Chromium posts the forms with Origin: null
    expect(new URL(page.url()).pathname).toMatch(/^\/oauth\/interaction\/[^/]+$/);
    await expect(page.locator('h1').textContent()).resolves.toBe('Sign in');
    await page.fill('input[name=email]', user.email);
    await page.fill('input[name=password]', user.password);
    await explained(Promise.all([page.waitForURL((u) => u.pathname.startsWith('/oauth/interaction/') && !u.pathname.endsWith('/login'), { timeout: WAIT }), page.click('button:has-text("Sign in")')]));
    await explained(page.waitForSelector('h1:has-text("Allow access")', { timeout: WAIT }));
  }

  /** Submits a consent-page form by its button and waits for the browser to land on the callback server. */
  async function submitToCallback(button: string): Promise<URLSearchParams> {
    await explained(Promise.all([page.waitForURL(onCallback, { timeout: WAIT, waitUntil: 'load' }), page.click(`button:has-text("${button}")`)]));
    expect(callback.hits).toHaveLength(1);
    const params = callback.hits[0];
    expect(new URL(page.url()).search).toBe(`?${params.toString()}`);
    return params;
  }

  it('signs in and consents to a new pm_agent without JavaScript; the callback gets code, state and iss; the SDK client then works as that agent', async () => {
    const { provider, first } = await startFlow('Browser host');
    await signIn(provider.authorizationUrl!, alice);
    expect(await page.textContent('body')).toContain('Browser host');
    await page.check('input[type=radio][name=agent][value=new]');
    await page.fill('input[name=name]', 'Browser PM');
    await page.selectOption('select[name=preset]', 'pm_agent');
    const params = await submitToCallback('Allow');

    expect([...params.keys()].sort()).toEqual(['code', 'iss', 'state']);
    expect(params.get('code')).toMatch(/\S+/);
    expect(params.get('state')).toBe(provider.issuedState);
    expect(params.get('iss')).toBe(base);
    expect(cspViolations()).toEqual([]);
    expect(messages).toEqual([]);

    await first.finishAuth(params);
    expect(provider.saved?.access_token).toEqual(expect.any(String));
    const client = newClient();
    await client.connect(transport(provider));
    try {
      expect((await client.listTools()).tools).toHaveLength(74);
      const agent = (await app.ds.query(`SELECT uuid FROM agent WHERE name = $1`, ['Browser PM']))[0] as { uuid: string };
      const checkin = await callTool(client, 'svc_checkin');
      expect(checkin.isError).toBe(false);
      expect(checkin.data.agent).toMatchObject({ uuid: agent.uuid, name: 'Browser PM' });
    } finally {
      await client.close();
    }
  });

  it('Deny on the consent page lands on the callback with error=access_denied', async () => {
    const { provider } = await startFlow('Denied host');
    await signIn(provider.authorizationUrl!, alice);
    const params = await submitToCallback('Deny');
    expect(params.get('error')).toBe('access_denied');
    expect(params.get('state')).toBe(provider.issuedState);
    expect(params.get('iss')).toBe(base);
    expect(params.has('code')).toBe(false);
    expect(cspViolations()).toEqual([]);
    expect(messages).toEqual([]);
  });
});
