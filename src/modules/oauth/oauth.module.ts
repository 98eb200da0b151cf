import { Module, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import express from 'express';
import { AccessTokenResolver } from '../../shared/auth/auth-context.js';
import { IdentityModule } from '../identity/index.js';
import { GrantsController } from './grants.controller.js';
import { InteractionController, InteractionOriginGuard } from './interaction.controller.js';
import { OAuthGrants } from './oauth-grants.js';
import { OAuthMountMiddleware } from './oauth-mount.middleware.js';
import { OAUTH_TEST_OPTIONS, OAuthServer } from './oauth-server.js';
import { OAuthTokens } from './oauth-tokens.js';
import { WellKnownController } from './well-known.controller.js';

/**
 * OAuth for the tool endpoint (platform.md §2.5): the authorization server (mounted as middleware under /oauth), its
 * sign-in and consent pages, the discovery documents, the owner's grants, and the token check the tool endpoint's
 * guard uses (`AccessTokenResolver`). Everything but the grants routes is inert without PUBLIC_URL.
 */
@Module({
  imports: [IdentityModule],
  controllers: [WellKnownController, InteractionController, GrantsController],
  providers: [
    OAuthServer,
    OAuthTokens,
    OAuthGrants,
    InteractionOriginGuard,
    { provide: AccessTokenResolver, useExisting: OAuthTokens },
    { provide: OAUTH_TEST_OPTIONS, useValue: null },
  ],
  exports: [AccessTokenResolver, OAuthGrants],
})
export class OAuthModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    // The pages' forms are form-encoded (the global JSON parser skips /oauth).
    consumer.apply(express.urlencoded({ extended: false, limit: '16kb' })).forRoutes(InteractionController);
    consumer.apply(OAuthMountMiddleware).forRoutes('oauth', 'oauth/*path');
  }
}
