import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import type { MetricsService } from '../metrics/metrics.service.js';
import { requestContext, type RequestContext } from '../logging/logger.js';
import { clientAddress } from './client-address.js';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Outermost middleware: request id (reused from `X-Request-Id` when well-formed), per-request log context,
 * one access-log line (with the client address of TRUST_PROXY) and the latency histogram (an SSE stream's lifetime and a long-poll's wait go to their own
 * histograms). Headers, bodies and secrets are never logged.
 */
export function requestLogging(logger: Logger, metrics: MetricsService) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    req.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    // Now, while the socket is open: the line is written when it may already be closed.
    const client = clientAddress(req);
    const ctx: RequestContext = { requestId };
    res.once('finish', () => done(false));
    res.once('close', () => done(true));
    let logged = false;
    function done(closed: boolean): void {
      if (logged) return;
      logged = true;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = (req.route as { path?: string } | undefined)?.path ?? (res.statusCode === 404 ? 'unmatched' : req.baseUrl || 'unmatched');
      if (res.statusCode === 200 && String(res.getHeader('content-type')).startsWith('text/event-stream')) metrics.sseStreamDuration.observe({ route }, seconds);
      else if (ctx.longPoll) metrics.httpWaitDuration.observe({ method: req.method, route, status: String(res.statusCode) }, seconds);
      else metrics.httpDuration.observe({ method: req.method, route, status: String(res.statusCode) }, seconds);
      logger.info(
        {
          requestId,
          clientAddress: client,
          companyUuid: ctx.companyUuid,
          actor: ctx.actor,
          method: req.method,
          route,
          status: res.statusCode,
          durationMs: Math.round(seconds * 1e4) / 10,
          longPoll: ctx.longPoll,
          aborted: closed && !res.writableFinished ? true : undefined,
        },
        'request',
      );
    }
    requestContext.run(ctx, next);
  };
}
