import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { AppError } from '../../shared/errors/app-error.js';
import { OAUTH_PREFIX, OAuthServer } from './oauth-server.js';

const INTERACTION = `${OAUTH_PREFIX}/interaction/`;
/** Registration goes through its controller (its limit is a guard); matched as the router matches it. */
const REGISTRATION = /^\/oauth\/reg\/?(\?|$)/i;

/**
 * Mounts the authorization server's endpoints under /oauth (authorize, token, revocation, JWKS, its discovery
 * document). The interaction pages below /oauth/interaction/ and `POST /oauth/reg` (registration, behind its limit)
 * are this module's own controllers. When OAuth is off, everything falls through to the router's 404.
 */
@Injectable()
export class OAuthMountMiddleware implements NestMiddleware {
  constructor(private readonly server: OAuthServer) {}

  use(req: Request, res: Response, next: NextFunction): void {
    const url = req.originalUrl;
    // While OAuth is off no /oauth path exists: the registration route (POST only) must not turn its other methods
    // into 405s.
    if (!this.server.enabled && REGISTRATION.test(url) && req.method !== 'POST') throw new AppError('NOT_FOUND', 'Route not found');
    if (!this.server.enabled || url.startsWith(INTERACTION) || (req.method === 'POST' && REGISTRATION.test(url)) || !(url === OAUTH_PREFIX || url.startsWith(`${OAUTH_PREFIX}/`) || url.startsWith(`${OAUTH_PREFIX}?`))) {
      next();
      return;
    }
    this.server.handle(req, res, url.slice(OAUTH_PREFIX.length) || '/');
  }
}
