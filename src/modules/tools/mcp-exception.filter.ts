import { randomUUID } from 'node:crypto';
import { Catch, Inject, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import type { Logger } from 'pino';
import { isDatabaseUnavailable, ServiceUnavailableError } from '../../shared/errors/app-error.js';
import { LOGGER } from '../../shared/logging/logger.js';
import { McpHttpError } from './mcp-errors.js';

/**
 * The exception filter of `/api/mcp` (in place of the global REST one): every failure is an HTTP status with a
 * JSON-RPC error body (docs/platform.md §4) — the guards' and the body's refusals as they say, an unreachable database or
 * a request past its deadline 503 -32003, anything else 500 -32603 with an `errorId` logged with the cause.
 */
@Catch()
export class McpExceptionFilter implements ExceptionFilter {
  constructor(@Inject(LOGGER) private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    if (res.headersSent) {
      if (!res.writableEnded) res.end();
      return;
    }
    if (exception instanceof McpHttpError) {
      send(res, exception.status, exception.rpcCode, exception.message, exception.headers, exception.data, exception.id);
      return;
    }
    const describe = exception instanceof Error ? { type: exception.name, message: exception.message, stack: exception.stack } : { value: String(exception) };
    if (exception instanceof ServiceUnavailableError || isDatabaseUnavailable(exception)) {
      this.logger.warn({ err: describe }, 'database unavailable');
      send(res, 503, -32003, 'Service unavailable', { 'Retry-After': '5' });
      return;
    }
    const errorId = randomUUID();
    this.logger.error({ errorId, err: describe }, 'unhandled error');
    send(res, 500, -32603, 'Internal server error', {}, { errorId });
  }
}

export function send(res: Response, status: number, code: number, message: string, headers: Record<string, string> = {}, data?: Record<string, unknown>, id: unknown = null): void {
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  const rpcId = typeof id === 'string' || typeof id === 'number' ? id : null;
  res.status(status).json({ jsonrpc: '2.0', error: data ? { code, message, data } : { code, message }, id: rpcId });
}
