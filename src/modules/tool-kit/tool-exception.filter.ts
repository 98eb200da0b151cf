import { randomUUID } from 'node:crypto';
import { Catch, Inject, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Logger } from 'pino';
import { AppError, isDatabaseUnavailable } from '../../shared/errors/app-error.js';
import { LOGGER } from '../../shared/logging/logger.js';
import { errorResult, type CallResult } from './tool-result.js';
import { ToolArgumentsError, UnknownToolError } from './tool-errors.js';
import { TOOL_CONTEXT_TYPE } from './tool.metadata.js';

/**
 * The exception filter of every tool: a refused call is a normal result with `isError` (docs/tool-conventions.md §1.4) — invalid
 * arguments, domain refusals with their code and extra fields, an unreachable database — and anything unexpected is
 * INTERNAL_ERROR with an `errorId` that is logged with the cause. Only an unknown or hidden tool stays an exception:
 * the transport answers it as the JSON-RPC error -32602.
 */
@Catch()
export class ToolExceptionFilter implements ExceptionFilter {
  constructor(@Inject(LOGGER) private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): CallResult {
    if (host.getType<string>() !== TOOL_CONTEXT_TYPE || exception instanceof UnknownToolError) throw exception;
    if (exception instanceof ToolArgumentsError) return errorResult('VALIDATION_ERROR', exception.message, { details: exception.issues });
    if (exception instanceof AppError) return errorResult(exception.code, exception.message, exception.extra);
    if (isDatabaseUnavailable(exception)) return errorResult('SERVICE_UNAVAILABLE', 'Service unavailable');
    const errorId = randomUUID();
    this.logger.error({ errorId, err: exception instanceof Error ? { message: exception.message, stack: exception.stack } : String(exception) }, 'tool failed');
    return errorResult('INTERNAL_ERROR', 'Internal error', { errorId });
  }
}
