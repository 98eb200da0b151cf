import { createParamDecorator, SetMetadata, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { Actor } from './actor.js';
import type { AuthContext, AuthMode } from './auth-context.js';

/** No credential needed. */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata('svc:auth-mode', 'public' satisfies AuthMode);
/** A user session cookie, or an agent key in `Authorization` (a present header alone decides). */
export const SessionOrKey = (): MethodDecorator & ClassDecorator => SetMetadata('svc:auth-mode', 'session_or_key' satisfies AuthMode);
/** Session cookie only; failures answer plain-text 401 (SSE streams). */
export const SseAuth = (): MethodDecorator & ClassDecorator => SetMetadata('svc:auth-mode', 'sse' satisfies AuthMode);

export const CurrentAuth = createParamDecorator((_: unknown, ctx: ExecutionContext): AuthContext => {
  const auth = ctx.switchToHttp().getRequest<Request>().auth;
  if (!auth) throw new Error('CurrentAuth used on a route without authentication');
  return auth;
});

export const CurrentActor = createParamDecorator((_: unknown, ctx: ExecutionContext): Actor => {
  const auth = ctx.switchToHttp().getRequest<Request>().auth;
  if (!auth) throw new Error('CurrentActor used on a route without authentication');
  return auth.actor;
});
