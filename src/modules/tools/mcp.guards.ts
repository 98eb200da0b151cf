import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail, type ThrottlerRequest } from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { AppConfig } from '../../config/config.js';
import { AccessTokenResolver, CredentialResolver } from '../../shared/auth/auth-context.js';
import { abortOnClose } from '../../shared/http/client-gone.js';
import { requestContext } from '../../shared/logging/logger.js';
import { MetricsService } from '../../shared/metrics/metrics.service.js';
import { narrowingOf } from './mcp-endpoint.js';
import { McpHttpError, RATE_LIMITED_RPC_CODE } from './mcp-errors.js';
import { MCP_THROTTLER } from './mcp-rate-limit.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * `POST /api/mcp`, first of all (docs/platform.md §4, §2.5): an agent key in `Authorization: Bearer agk_…`, or an OAuth
 * access token issued for this endpoint — or 401 with `WWW-Authenticate` (naming the protected-resource metadata
 * when OAuth is on) and the JSON-RPC body, before the body is read. The caller's permissions are re-read from the
 * database on every request; the narrowing headers are read along (docs/tool-conventions.md §1.5).
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly credentials: CredentialResolver,
    private readonly tokens: AccessTokenResolver,
    private readonly metrics: MetricsService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const header = req.headers.authorization;
    const bearer = BEARER.exec(header ?? '');
    const credential = bearer?.[1];
    const auth = credential
      ? credential.startsWith('agk_')
        ? await this.credentials.resolveApiKey(credential)
        : await this.tokens.resolveAccessToken(credential)
      : null;
    if (!auth) {
      this.metrics.mcpAuthRejected.inc({ credential: !credential ? 'missing' : credential.startsWith('agk_') ? 'key' : 'token' });
      const metadata = this.tokens.resourceMetadataUrl;
      let challenge = 'Bearer realm="svc"';
      if (metadata) challenge += `, resource_metadata="${metadata}"`;
      if (header !== undefined) challenge += ', error="invalid_token", error_description="Missing or invalid API key"';
      throw new McpHttpError(401, -32001, 'Missing or invalid API key', { 'WWW-Authenticate': challenge });
    }
    req.auth = auth;
    const res = context.switchToHttp().getResponse<Response>();
    let signal: AbortSignal | undefined;
    const ctx = {
      actor: auth.actor,
      auth,
      headers: req.headers,
      requestId: req.requestId,
      get signal(): AbortSignal {
        return (signal ??= abortOnClose(res));
      },
    };
    req.mcp = { ctx, narrowing: narrowingOf(req) };
    const store = requestContext.getStore();
    if (store) {
      store.companyUuid = auth.actor.companyUuid;
      store.actor = `agent:${auth.actor.uuid}`;
    }
    return true;
  }
}

/**
 * Per API key (or OAuth grant) and instance, `MCP_RATE_LIMIT_PER_MINUTE` requests a minute, burst as many (0 turns it
 * off), on the app's `@nestjs/throttler` with the in-process store (mcp-rate-limit.ts): 429 with `Retry-After` and
 * JSON-RPC -32000 carrying `data: {code: "RATE_LIMITED", retryAfterSeconds}`. On the hot path of every tool call, so
 * it applies its one throttler directly — options resolved once at start-up, no metadata read per request.
 */
@Injectable()
export class McpRateLimitGuard extends ThrottlerGuard {
  /** The `mcp` throttler's request, but for its context; null while the limit is off. */
  private own: Omit<ThrottlerRequest, 'context'> | null = null;

  override async onModuleInit(): Promise<void> {
    await super.onModuleInit();
    const throttler = this.throttlers.find((t) => t.name === MCP_THROTTLER);
    if (!throttler) return;
    const { limit, ttl, getTracker, generateKey } = throttler;
    if (typeof limit !== 'number' || typeof ttl !== 'number' || !getTracker || !generateKey) throw new Error('the mcp throttler needs a fixed limit and ttl, its tracker and key');
    this.own = { throttler, limit, ttl, blockDuration: ttl, getTracker, generateKey };
  }

  override canActivate(context: ExecutionContext): Promise<boolean> {
    // Off, or no credential (the key guard, first, refuses those).
    if (!this.own || !context.switchToHttp().getRequest<Request>().auth) return Promise.resolve(true);
    return this.handleRequest({ context, ...this.own });
  }

  protected override throwThrottlingException(_context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    const wait = detail.timeToBlockExpire;
    throw new McpHttpError(429, RATE_LIMITED_RPC_CODE, 'Too many requests', { 'Retry-After': String(wait) }, { code: 'RATE_LIMITED', retryAfterSeconds: wait });
  }
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** `http(s)://localhost|127.0.0.1|[::1]` on any port. */
export function isLoopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.has(url.hostname) && url.origin === origin;
  } catch {
    return false;
  }
}

/**
 * DNS-rebinding protection (docs/platform.md §4): a present `Origin` must be `PUBLIC_URL`'s origin or listed in
 * `CORS_ORIGINS`; with neither configured only loopback origins pass. Never an origin derived from `Host`, which a
 * rebinding page controls. No `Origin` (any non-browser client) passes.
 */
@Injectable()
export class McpOriginGuard implements CanActivate {
  private readonly allowed: ReadonlySet<string>;
  private readonly loopbackOnly: boolean;

  constructor(config: AppConfig) {
    this.allowed = new Set([...(config.publicOrigin ? [config.publicOrigin] : []), ...config.corsOrigins]);
    this.loopbackOnly = this.allowed.size === 0;
  }

  canActivate(context: ExecutionContext): boolean {
    const origin = context.switchToHttp().getRequest<Request>().headers.origin;
    if (origin === undefined || this.allowed.has(origin) || (this.loopbackOnly && isLoopbackOrigin(origin))) return true;
    throw new McpHttpError(403, -32000, 'Forbidden: Origin not allowed');
  }
}
