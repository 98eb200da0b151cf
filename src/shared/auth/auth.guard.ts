import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { AppConfig } from '../../config/config.js';
import { ForbiddenError, UnauthorizedError } from '../errors/app-error.js';
import { PlainTextError } from '../errors/plain-text-error.js';
import { readCookie, SESSION_COOKIE, sessionCookie } from '../http/cookies.js';
import { isMutation, originAllowed } from '../http/origin.js';
import { requestContext } from '../logging/logger.js';
import { AUTH_MODE_KEY, CredentialResolver, type AuthContext, type AuthMode } from './auth-context.js';

/** Thrown for SSE routes: the filter answers plain-text 401 `Unauthorized`. */
export class SseUnauthorizedError extends PlainTextError {
  constructor() {
    super(401, 'Unauthorized');
  }
}

/**
 * The one auth guard: resolves the session cookie or `Authorization: Bearer agk_…` into an AuthContext per the
 * route's mode (default: session), and refuses cross-site cookie-authenticated mutations.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly credentials: CredentialResolver,
    private readonly config: AppConfig,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    if (ctx.getType() !== 'http') return true;
    const mode =
      this.reflector.getAllAndOverride<AuthMode | undefined>(AUTH_MODE_KEY, [ctx.getHandler(), ctx.getClass()]) ?? 'session';
    const req = ctx.switchToHttp().getRequest<Request>();
    const res = ctx.switchToHttp().getResponse<Response>();
    if (mode === 'public') return true;

    const authorization = req.headers.authorization;
    let auth: AuthContext | null = null;
    if (mode === 'session_or_key' && authorization !== undefined) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      auth = m ? await this.credentials.resolveApiKey(m[1]) : null;
    } else {
      const token = readCookie(req.headers.cookie, SESSION_COOKIE);
      const resolved = token ? await this.credentials.resolveSession(token) : null;
      if (resolved) {
        auth = resolved.context;
        if (resolved.renew && token) res.append('Set-Cookie', sessionCookie(token, this.config.cookieSecure));
        if (isMutation(req.method) && !originAllowed(req, this.config.publicOrigin, this.config.corsOrigins)) {
          throw new ForbiddenError('Cross-site request refused');
        }
      }
    }
    if (!auth) {
      if (mode === 'sse') throw new SseUnauthorizedError();
      throw new UnauthorizedError();
    }
    req.auth = auth;
    const store = requestContext.getStore();
    if (store) {
      store.companyUuid = auth.actor.companyUuid;
      store.actor = `${auth.actor.type}:${auth.actor.uuid}`;
    }
    return true;
  }
}
