import { Injectable, SetMetadata, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { SSE_METADATA } from '@nestjs/common/constants.js';
import { Reflector } from '@nestjs/core';
import { Observable } from 'rxjs';
import { AppConfig } from '../../config/config.js';
import { ServiceUnavailableError } from '../errors/app-error.js';
import { requestContext, type RequestContext } from '../logging/logger.js';

const NO_DEADLINE = 'svc:no-request-deadline';

/** A route whose answer may legitimately take longer than REQUEST_TIMEOUT_MS (a long-poll with a bound of its own). */
export const NoRequestDeadline = (): MethodDecorator & ClassDecorator => SetMetadata(NO_DEADLINE, true);

/** The running deadline of a request, by its request context (REST and tool-endpoint requests alike). */
const running = new WeakMap<RequestContext, () => void>();

/**
 * Lifts the current request's deadline, for a wait with a bound of its own (docs/notifications.md §2.0: waits are exempt
 * from the request deadline); the reads around the wait stay bounded by the statement timeouts. The request is marked
 * a long-poll, so its duration goes to the wait histogram rather than the request-latency one. No-op outside a
 * request; the deadline stays passed if it already did.
 */
export function liftRequestDeadline(): void {
  const store = requestContext.getStore();
  if (!store) return;
  store.longPoll = true;
  running.get(store)?.();
}

/** The request deadline ran out: 503 `SERVICE_UNAVAILABLE` with `Retry-After` (REST) or -32003 (tool endpoint). */
export class RequestDeadlineError extends ServiceUnavailableError {
  constructor() {
    super('Service unavailable: the request did not complete in time');
  }
}

/**
 * The deadline of every REST and tool-endpoint request (docs/platform.md §1, REQUEST_TIMEOUT_MS): when the handler has not
 * answered in time the request fails with `RequestDeadlineError`, which the exception filters answer as 503. The work
 * behind it is bounded separately (the statement timeouts of the pool) and rolls back whole. Streams (`@Sse`) and
 * routes marked `@NoRequestDeadline()` are exempt, and a handler may lift the deadline while it waits
 * (`liftRequestDeadline`). Guards run before it; theirs are database reads bounded the same way.
 */
@Injectable()
export class RequestDeadlineInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly config: AppConfig,
  ) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (ctx.getType() !== 'http') return next.handle();
    const handler = ctx.getHandler();
    if (this.reflector.get<boolean | undefined>(SSE_METADATA, handler) || this.reflector.getAllAndOverride<boolean | undefined>(NO_DEADLINE, [handler, ctx.getClass()])) {
      return next.handle();
    }
    // One plain timer per request: past it the request fails; an answer in time clears it.
    const ms = this.config.requestTimeoutMs;
    return new Observable<unknown>((subscriber) => {
      const timer = setTimeout(() => subscriber.error(new RequestDeadlineError()), ms);
      const store = requestContext.getStore();
      if (store) running.set(store, () => clearTimeout(timer));
      const inner = next.handle().subscribe({
        next: (value) => subscriber.next(value),
        error: (err: unknown) => subscriber.error(err),
        complete: () => subscriber.complete(),
      });
      return () => {
        clearTimeout(timer);
        if (store) running.delete(store);
        inner.unsubscribe();
      };
    });
  }
}
