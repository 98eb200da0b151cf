import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import { mergeMap, type Observable } from 'rxjs';
import type { InboxAnswer } from './inbox-answer.js';

/** Weak comparison of `If-None-Match` against an entity tag (RFC 9110 §13.1.2). */
export function etagMatches(ifNoneMatch: string | undefined, tag: string): boolean {
  if (!ifNoneMatch) return false;
  const strip = (t: string): string => t.trim().replace(/^W\//, '');
  const want = strip(tag);
  return ifNoneMatch.split(',').some((t) => t.trim() === '*' || strip(t) === want);
}

/**
 * Private: per-caller data, revalidated on every use. `X-Stream-Position` (docs/notifications.md §3) is the recipient's
 * stream position the answer was read at (it orders the answer against stream frames).
 */
function cacheHeaders(res: Response, tag: string, position: string): void {
  res.setHeader('ETag', tag);
  res.setHeader('X-Stream-Position', position);
  res.setHeader('Cache-Control', 'private, no-cache');
  res.vary('Cookie');
  res.vary('Authorization');
}

/**
 * The headers of the inbox reads (docs/notifications.md §2.0, §3) and their conditional GET. A page or count is compared
 * with `If-None-Match` before its rows are read, and a match is a 304 without a body. (Express's own freshness check
 * ignores If-None-Match when the request carries `Cache-Control: no-cache`, which fetch() adds to every conditional
 * request.) The tag is only sent with a successful answer, never with an error. A delta is never cached, and the next
 * delta starts at its position.
 */
@Injectable()
export class InboxCacheInterceptor implements NestInterceptor<InboxAnswer, unknown> {
  intercept(ctx: ExecutionContext, next: CallHandler<InboxAnswer>): Observable<unknown> {
    const http = ctx.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    return next.handle().pipe(mergeMap((answer) => this.answer(req, res, answer)));
  }

  private async answer(req: Request, res: Response, a: InboxAnswer): Promise<unknown> {
    if (a.kind === 'delta') {
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('X-Stream-Position', a.position);
      res.setHeader('X-Poll-Interval', String(a.pollAfterSeconds));
      return a.body;
    }
    if (a.pollAfterSeconds !== null) res.setHeader('X-Poll-Interval', String(a.pollAfterSeconds));
    if (etagMatches(req.headers['if-none-match'], a.tag)) {
      cacheHeaders(res, a.tag, a.position);
      // Express sends a 304 without a body (nor Content-Type / Content-Length), whatever the envelope holds.
      res.status(304);
      return null;
    }
    const body = await a.body();
    cacheHeaders(res, a.tag, a.position);
    return body;
  }
}
