import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../../shared/auth/decorators.js';
import { AppError } from '../../shared/errors/app-error.js';

/** OAuth is off: these paths answer as unknown routes do. */
const off = (): AppError => new AppError('NOT_FOUND', 'Route not found');
import { MCP_SCOPE, OAUTH_PREFIX, OAuthServer } from './oauth-server.js';

/**
 * The discovery documents of the MCP authorization flow (docs/platform.md §2.5): protected-resource metadata (RFC 9728)
 * for the tool endpoint, and the authorization server's metadata (RFC 8414) at the root, which is the provider's own
 * discovery document. 404 when OAuth is off (no PUBLIC_URL).
 */
@Controller('.well-known')
@Public()
@ApiTags('oauth')
export class WellKnownController {
  constructor(private readonly server: OAuthServer) {}

  @Get(['oauth-protected-resource', 'oauth-protected-resource/api/mcp'])
  resource(@Res() res: Response): void {
    if (!this.server.enabled) throw off();
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.json({
      resource: this.server.resource,
      authorization_servers: [this.server.issuer],
      scopes_supported: [MCP_SCOPE],
      bearer_methods_supported: ['header'],
      resource_name: 'svc',
    });
  }

  @Get(['oauth-authorization-server', 'oauth-authorization-server/api/mcp'])
  authorizationServer(@Req() req: Request, @Res() res: Response): void {
    if (!this.server.enabled) throw off();
    // The provider answers its own discovery document; its endpoint URLs then carry the /oauth mount.
    req.originalUrl = `${OAUTH_PREFIX}/.well-known/openid-configuration`;
    this.server.handle(req, res, '/.well-known/openid-configuration');
  }
}
