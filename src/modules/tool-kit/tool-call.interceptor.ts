import { Inject, Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Logger } from 'pino';
import { map, type Observable, tap } from 'rxjs';
import { LOGGER, requestContext } from '../../shared/logging/logger.js';
import { MetricsService } from '../../shared/metrics/metrics.service.js';
import { toCallResult, type CallResult } from './tool-result.js';
import { TOOL_METADATA, type ToolOptions } from './tool.metadata.js';

/**
 * Around every permitted tool call: renders the method's record as the tool result (compact JSON text, capped; the
 * same object as `structuredContent` when the tool publishes an output schema), and records the call: the
 * `svc_mcp_calls_total` / duration metrics (no duration for a long-poll) and one `tool call` log line with the outcome. Refusals thrown by the
 * argument pipe or the method pass through here as errors (outcome `error`) on their way to the tool exception filter.
 */
@Injectable()
export class ToolCallInterceptor implements NestInterceptor<unknown, CallResult> {
  constructor(
    private readonly reflector: Reflector,
    private readonly metrics: MetricsService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<CallResult> {
    const { name, output } = this.reflector.get<ToolOptions>(TOOL_METADATA, context.getHandler());
    const structured = output !== undefined;
    const started = process.hrtime.bigint();
    const record = (outcome: 'ok' | 'error'): void => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      // A call that waited on purpose (an inbox long-poll) is counted, but its duration is not a latency.
      const longPoll = requestContext.getStore()?.longPoll;
      this.metrics.mcpCalls.inc({ tool: name, outcome });
      if (!longPoll) this.metrics.mcpDuration.observe({ tool: name }, seconds);
      // The line's fields are built only when it is written (LOG_LEVEL info or finer).
      if (this.logger.isLevelEnabled('info')) this.logger.info({ tool: name, outcome, durationMs: Math.round(seconds * 1e4) / 10, longPoll }, 'tool call');
    };
    return next.handle().pipe(
      map((value: unknown) => toCallResult(value, structured)),
      tap({ complete: () => record('ok'), error: () => record('error') }),
    );
  }
}
