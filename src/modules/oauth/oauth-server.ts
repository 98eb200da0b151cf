import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type Provider from 'oidc-provider';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../config/config.js';
import { LOGGER } from '../../shared/logging/logger.js';
import { MetricsService } from '../../shared/metrics/metrics.service.js';
import type { Request as ExpressRequest } from 'express';
import { clientAddress } from '../../shared/http/client-address.js';
import { loadKeys, pgAdapter } from './oauth.store.js';

/** Where the authorization server's endpoints are mounted (and its interaction pages live). */
export const OAUTH_PREFIX = '/oauth';
/** The one scope of the tool endpoint. */
export const MCP_SCOPE = 'mcp';
const ACCESS_TOKEN_TTL_S = 3600;

/** Extra provider options for tests only (e.g. a `fetch` that trusts a local TLS fixture). */
export const OAUTH_TEST_OPTIONS = Symbol('OAUTH_TEST_OPTIONS');

/**
 * The OAuth 2.1 authorization server of the tool endpoint (docs/platform.md §2.5), on oidc-provider — on only when
 * PUBLIC_URL is set; its origin is the issuer. Authorization code with PKCE (S256 only), open dynamic client
 * registration and client ID metadata documents, resource indicators (every token is bound to `<PUBLIC_URL>/api/mcp`,
 * opaque, so revocation is immediate), refresh tokens for every client (MCP clients do not ask for `offline_access`)
 * rotated on use, revocation. State, signing and cookie keys in PostgreSQL.
 */
@Injectable()
export class OAuthServer implements OnModuleInit {
  provider: Provider | null = null;
  readonly issuer: string | null;
  readonly resource: string | null;

  constructor(
    private readonly db: DataSource,
    private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(OAUTH_TEST_OPTIONS) private readonly testOptions: Partial<Configuration> | null,
    private readonly metrics: MetricsService,
  ) {
    this.issuer = config.publicOrigin;
    this.resource = config.publicUrl ? `${config.publicUrl.replace(/\/+$/, '')}/api/mcp` : null;
  }

  get enabled(): boolean {
    return this.provider !== null;
  }

  async onModuleInit(): Promise<void> {
    if (!this.issuer || !this.resource) return;
    // Loaded only when OAuth is on (the library warns on import under Node 20; the CLI and key-only deployments never load it).
    const { default: OidcProvider, errors } = await import('oidc-provider');
    const keys = await loadKeys(this.db);
    const resource = this.resource;
    const secure = this.issuer.startsWith('https:');
    const cookie = { httpOnly: true, sameSite: 'lax' as const, secure };
    const provider = new OidcProvider(this.issuer, {
      adapter: pgAdapter(this.db),
      // The account is the user who signed in (a user uuid); no OpenID claims are offered.
      findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
      jwks: keys.jwks as Configuration['jwks'],
      cookies: { keys: keys.cookieKeys, long: cookie, short: cookie },
      scopes: [MCP_SCOPE],
      responseTypes: ['code'],
      clientDefaults: { grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' },
      pkce: { required: () => true },
      interactions: { url: (_ctx, interaction) => `${OAUTH_PREFIX}/interaction/${interaction.uid}` },
      features: {
        devInteractions: { enabled: false },
        registration: { enabled: true, initialAccessToken: false, issueRegistrationAccessToken: false },
        revocation: { enabled: true },
        userinfo: { enabled: false },
        rpInitiatedLogout: { enabled: false },
        clientIdMetadataDocument: { enabled: true, ack: 'draft-02' },
        resourceIndicators: {
          enabled: true,
          defaultResource: (_ctx, _client, oneOf) => oneOf ?? resource,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx, indicator) => {
            if (indicator !== resource) throw new errors.InvalidTarget();
            return { scope: MCP_SCOPE, audience: resource, accessTokenTTL: ACCESS_TOKEN_TTL_S, accessTokenFormat: 'opaque' };
          },
        },
      } as Configuration['features'],
      // MCP clients never ask for offline_access: every client allowed the refresh grant gets one, rotated on use.
      issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
      rotateRefreshToken: () => true,
      ttl: { AccessToken: ACCESS_TOKEN_TTL_S, AuthorizationCode: 60, RefreshToken: 30 * 86400, Interaction: 600, Session: 86400, Grant: 365 * 86400 },
      renderError: (ctx: KoaContextWithOIDC, out: { error: string; error_description?: string }) => {
        ctx.type = 'html';
        ctx.body = `<!doctype html><meta charset="utf-8"><title>Authorization error</title><h1>Authorization error</h1><p>${escapeHtml(String(out.error))}: ${escapeHtml(String(out.error_description ?? ''))}</p>`;
      },
      // Client ID metadata documents are fetched through the provider's SSRF guard, which refuses loopback and private
      // addresses. OAUTH_PRIVATE_CLIENT_METADATA=true is for deployments whose MCP hosts publish their client documents
      // on a private network: the guard's dispatcher is dropped (Node's own fetch then connects anywhere, trusting the
      // system CAs plus NODE_EXTRA_CA_CERTS); the provider's timeout and body limits still apply.
      ...(this.config.oauthPrivateClientMetadata
        ? { fetch: (url: string | URL | Request, options?: RequestInit) => globalThis.fetch(url, { ...options, dispatcher: undefined } as RequestInit) }
        : {}),
      ...(this.testOptions ?? {}),
    });
    // Endpoint URLs are built from the request's host and scheme: the middleware sets both from PUBLIC_URL.
    provider.proxy = true;
    const on = provider.on.bind(provider) as (event: string, listener: (ctx: KoaContextWithOIDC, err?: { message?: string; error_description?: string }) => void) => void;
    const errorEvents = ['server_error', 'authorization.error', 'grant.error', 'registration_create.error', 'revocation.error'] as const;
    for (const event of errorEvents) {
      on(event, (_ctx, err) => {
        this.metrics.oauthErrors.inc({ event });
        this.logger.warn({ event, err: err?.message, description: err?.error_description }, 'oauth error');
      });
    }
    on('registration_create.success', () => this.metrics.oauthClientsRegistered.inc());
    on('grant.success', (ctx) => {
      const type = String(ctx.oidc?.params?.grant_type ?? '');
      this.metrics.oauthTokensIssued.inc({ grant_type: type === 'authorization_code' || type === 'refresh_token' ? type : 'other' });
    });
    this.provider = provider;
  }

  /**
   * Hands a request to the provider. Its endpoint URLs are built from the request's host and scheme, so both are set
   * from PUBLIC_URL here (never taken from the client), and its view of the client (`ctx.ip`) is the client address
   * of TRUST_PROXY, the one hop it is given; `path` is the request's path below the mount.
   */
  handle(req: ExpressRequest, res: ServerResponse, path: string): void {
    const provider = this.provider;
    if (!provider || !this.issuer) throw new Error('OAuth is off');
    const own = new URL(this.issuer);
    req.headers['x-forwarded-host'] = own.host;
    req.headers['x-forwarded-proto'] = own.protocol.slice(0, -1);
    req.headers['x-forwarded-for'] = clientAddress(req);
    req.url = path;
    void provider.callback()(req as IncomingMessage, res);
  }

  /** The RFC 9728 metadata document's URL for the tool endpoint. */
  get resourceMetadataUrl(): string | null {
    return this.issuer ? `${this.issuer}/.well-known/oauth-protected-resource/api/mcp` : null;
  }
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
