import { Catch, Injectable, SetMetadata, type ArgumentsHost, type ExceptionFilter, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerLimitDetail,
  type ThrottlerModuleOptions,
  type ThrottlerRequest,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import type { Response } from 'express';
import type { AppThrottler } from '../../shared/throttling/throttling.module.js';
import { MetricsService } from '../../shared/metrics/metrics.service.js';
import { OAuthServer } from './oauth-server.js';

const REGISTRATION_ROUTE = 'svc:oauth-registration-route';
/** Marks the route the registration limit counts. */
export const RegistrationRoute = (): MethodDecorator => SetMetadata(REGISTRATION_ROUTE, true);

/**
 * Dynamic client registration stays open, as MCP hosts need, but bounded: at most 20 registrations per client
 * address per hour, counted by all instances together (docs/deploy.md, "Abuse limits").
 */
export const REGISTRATION_THROTTLER: AppThrottler = {
  name: 'oauth-registration',
  limit: 20,
  ttl: 3_600_000,
  store: 'shared',
  setHeaders: false,
  // Opt-in: any ThrottlerGuard elsewhere in the app (for its own throttler) leaves this one to the route marked below.
  skipIf: (context) => Reflect.getMetadata(REGISTRATION_ROUTE, context.getHandler()) !== true,
};


/** A registration refused by the limit: 429 with `Retry-After` and an RFC 7591 error body. */
export class RegistrationRefused extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('Too many client registrations from this address');
  }
}

/**
 * The registration route's limit, on `@nestjs/throttler` with the shared store. It applies the registration
 * throttler only (any other throttler of the app is for other routes), and not when OAuth is off (the route is a
 * 404 then, and counts nothing).
 */
@Injectable()
export class RegistrationThrottleGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly server: OAuthServer,
    private readonly metrics: MetricsService,
  ) {
    super(options, storage, reflector);
  }

  protected override shouldSkip(): Promise<boolean> {
    return Promise.resolve(!this.server.enabled);
  }

  protected override handleRequest(request: ThrottlerRequest): Promise<boolean> {
    if (request.throttler.name !== REGISTRATION_THROTTLER.name) return Promise.resolve(true);
    return super.handleRequest(request);
  }

  protected override throwThrottlingException(_context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    this.metrics.oauthRegistrationsRefused.inc();
    return Promise.reject(new RegistrationRefused(detail.timeToBlockExpire));
  }
}

/** The refusal in the registration endpoint's own error format (RFC 7591 §3.2.2), as MCP clients parse it. */
@Catch(RegistrationRefused)
export class RegistrationRefusedFilter implements ExceptionFilter {
  catch(refused: RegistrationRefused, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    res
      .status(429)
      .set({ 'Retry-After': String(refused.retryAfterSeconds), 'Cache-Control': 'no-store' })
      // `too_many_requests`: the code the MCP SDK's own authorization server answers its registration limit with.
      .json({ error: 'too_many_requests', error_description: `${refused.message}; retry after ${refused.retryAfterSeconds} seconds` });
  }
}
