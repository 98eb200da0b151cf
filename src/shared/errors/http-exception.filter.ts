import { randomUUID } from 'node:crypto';
import { Catch, HttpException, Inject, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { LOGGER } from '../logging/logger.js';
import { RouteTable } from '../http/route-table.js';
import { PlainTextError } from './plain-text-error.js';
import { AppError, HTTP_STATUS, isDatabaseUnavailable, RateLimitedError, type ErrorCode } from './app-error.js';

interface BodyParserError {
  type?: string;
  status?: number;
}

const NEST_STATUS_CODES: Record<number, ErrorCode> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'RATE_LIMITED',
  503: 'SERVICE_UNAVAILABLE',
};

/**
 * The one exception filter: maps every error to the JSON envelope of docs/platform.md §5 (or plain text for SSE; the tool endpoint
 * has its own, McpExceptionFilter). Unknown errors become 500 with a logged `errorId` and nothing internal.
 */
@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  constructor(
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly routes: RouteTable,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<Request>();
    const res = ctx.getResponse<Response>();
    if (res.headersSent) {
      if (!res.writableEnded) res.end();
      return;
    }
    if (exception instanceof PlainTextError) {
      for (const [k, v] of Object.entries(exception.headers)) res.setHeader(k, v);
      res.status(exception.status).type('text/plain').send(exception.text);
      return;
    }
    const { code, message, extra, headers } = this.classify(exception, req);
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    this.send(res, HTTP_STATUS[code], { code, message, ...extra });
  }

  /** Writes the classified error; a filter for pages (HTML) overrides this, keeping the classification and logging. */
  protected send(res: Response, status: number, error: { code: ErrorCode; message: string; errorId?: unknown }): void {
    res.status(status).json({ success: false, error });
  }

  private classify(
    exception: unknown,
    req: Request,
  ): { code: ErrorCode; message: string; extra: Record<string, unknown>; headers: Record<string, string> } {
    if (exception instanceof AppError) {
      const headers: Record<string, string> = {};
      if (exception instanceof RateLimitedError) headers['Retry-After'] = String(exception.retryAfterSeconds);
      if (exception.code === 'SERVICE_UNAVAILABLE') headers['Retry-After'] = '5';
      return { code: exception.code, message: exception.message, extra: exception.extra, headers };
    }
    // Nest wraps body-parser and URI errors into HttpExceptions; classify by the original.
    const raw = exception instanceof HttpException && exception.cause ? exception.cause : exception;
    if (raw instanceof URIError) return { code: 'BAD_REQUEST', message: 'Malformed URL', extra: {}, headers: {} };
    const bp = raw as BodyParserError;
    if (bp && typeof bp.type === 'string' && typeof bp.status === 'number') {
      if (bp.type === 'entity.too.large') return { code: 'PAYLOAD_TOO_LARGE', message: 'Request body exceeds 1 MiB', extra: {}, headers: {} };
      if (bp.type === 'entity.parse.failed') return { code: 'BAD_REQUEST', message: 'Invalid JSON body', extra: {}, headers: {} };
      return { code: 'BAD_REQUEST', message: 'Unreadable request body', extra: {}, headers: {} };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status === 404) {
        const allowed = this.routes.methodsFor(req.path);
        // A route answers this method, so a handler (or a library under it) threw the 404: not a routing miss.
        if (allowed.includes(req.method)) return { code: 'NOT_FOUND', message: 'Not found', extra: {}, headers: {} };
        if (allowed.length > 0) {
          return { code: 'METHOD_NOT_ALLOWED', message: `Method ${req.method} not allowed`, extra: {}, headers: { Allow: allowed.join(', ') } };
        }
        return { code: 'NOT_FOUND', message: 'Route not found', extra: {}, headers: {} };
      }
      const code = NEST_STATUS_CODES[status];
      if (code) return { code, message: exception.message, extra: {}, headers: {} };
    }
    if (isDatabaseUnavailable(exception)) {
      this.logger.warn({ err: describe(exception) }, 'database unavailable');
      return { code: 'SERVICE_UNAVAILABLE', message: 'Service unavailable', extra: {}, headers: { 'Retry-After': '5' } };
    }
    const errorId = randomUUID();
    this.logger.error({ errorId, err: describe(exception) }, 'unhandled error');
    return { code: 'INTERNAL_ERROR', message: 'Internal server error', extra: { errorId }, headers: {} };
  }
}

function describe(err: unknown): Record<string, unknown> {
  if (err instanceof Error) return { type: err.name, message: err.message, stack: err.stack };
  return { value: String(err) };
}
