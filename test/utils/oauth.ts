import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthClientProvider, OAuthTokens } from '@modelcontextprotocol/client';

/**
 * A scripted browser for the authorization flow: follows redirects by hand with a cookie jar, signs in and consents
 * through the service's own server-rendered forms (form-encoded posts, as a browser without JavaScript sends them),
 * and returns the callback URL the flow ends at (never fetched).
 */
export class FormBrowser {
  readonly jar = new Map<string, string>();
  readonly pages: string[] = [];

  /**
   * `origin` is the service's public origin (what its pages and redirects name); `target`, when given, is where the
   * requests really go (another instance behind the same public URL).
   */
  constructor(
    private readonly origin: string,
    private readonly target: string = origin,
  ) {}

  async go(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.jar.size) headers.set('cookie', [...this.jar].map(([k, v]) => `${k}=${v}`).join('; '));
    const resolved = new URL(url, this.origin);
    const sent = resolved.origin === this.origin ? new URL(resolved.pathname + resolved.search, this.target) : resolved;
    const res = await fetch(sent, { ...init, headers, redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) {
      const [kv] = c.split(';');
      const i = kv.indexOf('=');
      this.jar.set(kv.slice(0, i), kv.slice(i + 1));
    }
    return res;
  }

  post(url: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
    return this.go(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: this.origin, ...headers }, body: new URLSearchParams(form).toString() });
  }

  /**
   * From the authorization URL to the client's callback: `login` fills the sign-in form, `consent` the consent form
   * (the page's HTML is passed to it, to pick from what it shows).
   */
  async authorize(authorizationUrl: string, steps: { login?: Record<string, string>; consent: (html: string) => Record<string, string> }): Promise<URL> {
    let location = (await this.go(authorizationUrl)).headers.get('location');
    for (let hop = 0; hop < 12 && location; hop++) {
      const url = new URL(location, this.origin);
      if (url.origin !== this.origin) return url;
      if (!url.pathname.startsWith('/oauth/interaction/')) {
        location = (await this.go(url.href)).headers.get('location');
        continue;
      }
      const page = await this.go(url.href);
      if (page.status === 303 || page.status === 302) {
        location = page.headers.get('location');
        continue;
      }
      const html = await page.text();
      this.pages.push(html);
      const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
      if (!action) throw new Error(`no form on ${url.pathname}: ${html.slice(0, 300)}`);
      const form = action.endsWith('/login') ? (steps.login ?? {}) : steps.consent(html);
      const answer = await this.post(action, form);
      if (answer.status !== 303 && answer.status !== 302) throw new Error(`${action} answered ${answer.status}: ${(await answer.text()).slice(0, 4000)}`);
      location = answer.headers.get('location');
    }
    throw new Error(`the flow did not reach the client (last location ${location})`);
  }
}

/** An in-memory OAuth client of the MCP SDK (its OAuthClientProvider interface), as a host application keeps one. */
export class MemoryOAuthClient implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | null = null;
  private discovery: unknown;

  constructor(
    readonly redirectUrl = 'http://127.0.0.1:9/callback',
    private readonly name = 'SDK test host',
    private readonly metadataUrl?: string,
  ) {}

  /** An https URL: the SDK then uses it as the client_id (a client ID metadata document) instead of registering. */
  get clientMetadataUrl(): string | undefined {
    return this.metadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: unknown) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery as never;
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'tokens') this.saved = undefined;
    if (scope === 'all' || scope === 'client') this.client = undefined;
  }
}
