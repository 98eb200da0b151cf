import { Module, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import express from 'express';
import { AccessTokenResolver } from '../../shared/auth/auth-context.js';
import { repositoryProvider } from '../../shared/database/repository.js';
import { IdentityModule } from '../identity/index.js';
import { GrantsController } from './grants.controller.js';
import { InteractionController, InteractionOriginGuard } from './interaction.controller.js';
import { OAuthGrantRepository } from './oauth-grant.repository.js';
import { OAuthGrants } from './oauth-grants.js';
import { OAuthMountMiddleware } from './oauth-mount.middleware.js';
import { OAuthPruner } from './oauth-pruner.js';
import { RegistrationController } from './registration.controller.js';
import { OAUTH_TEST_OPTIONS, OAuthServer } from './oauth-server.js';
import { OAuthTokens } from './oauth-tokens.js';
import { WellKnownController } from './well-known.controller.js';

/**
 * OAuth for the tool endpoint (docs/platform.md §2.5): the authorization server (mounted as middleware under /oauth), its
 * registration route behind a shared limit, sign-in and consent pages, the discovery documents, the owner's grants,
 * the background pruning of stale clients, and the token check the tool endpoint's guard uses
 * (`AccessTokenResolver`). Everything but the grants routes is inert without PUBLIC_URL. The app root registers
 * `REGISTRATION_THROTTLER` with the app's `@nestjs/throttler` module.
 */
@Module({
  imports: [IdentityModule],
  controllers: [WellKnownController, RegistrationController, InteractionController, GrantsController],
  providers: [
    repositoryProvider(OAuthGrantRepository),
    OAuthServer,
    OAuthPruner,
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
