import type { ServerResponse } from 'node:http';
import { createParamDecorator, type ExecutionContext } from '@nestjs/common';

/**
 * An AbortSignal that aborts once the HTTP exchange is closed — the client left before its answer, or the answer is
 * done (when nothing waits on it any more). For handlers that wait on something other than the database, so a caller
 * that went away stops holding what the wait holds (a wait slot, a timer).
 */
export function abortOnClose(res: ServerResponse): AbortSignal {
  const gone = new AbortController();
  if (res.destroyed || res.writableFinished) gone.abort();
  else res.once('close', () => gone.abort());
  return gone.signal;
}

/**
 * A route parameter: the `abortOnClose` signal of the request's response, for a handler that waits (a long-poll)
 * without taking the response over with `@Res()`.
 */
export const ClientGone = createParamDecorator((_: unknown, ctx: ExecutionContext): AbortSignal => abortOnClose(ctx.switchToHttp().getResponse<ServerResponse>()));
