import type { ServerResponse } from 'node:http';
import { Controller, Inject, Query, Req, Sse, UseGuards, type MessageEvent } from '@nestjs/common';
import { ApiOkResponse } from '@nestjs/swagger';
import type { Request } from 'express';
import type { Logger } from 'pino';
import type { Observable } from 'rxjs';
import { AppConfig } from '../../config/config.js';
import type { AuthContext } from '../../shared/auth/auth-context.js';
import { CurrentAuth, SseAuth } from '../../shared/auth/decorators.js';
import { LOGGER } from '../../shared/logging/logger.js';
import { MetricsService } from '../../shared/metrics/metrics.service.js';
import type { StreamKind } from './feed-hub.js';
import { ProjectFilterPipe, StreamQuery, type StreamOptions } from './stream-query.js';
import { StreamLimitGuard } from './stream-limit.guard.js';
import { sseFlow } from './sse-flow.operator.js';
import { MAX_UNSENT_BYTES, StreamService, type StreamRequest } from './stream.service.js';

/**
 * The two SSE streams (docs/sse.md). Each returns the Observable of its frames; Nest's `@Sse` pipeline writes them
 * (headers, `: comment`, `id:`/`retry:`/`event:`/`data:` blocks, the slow-client cut) and unsubscribes when the
 * client leaves. The response stays here: `sseFlow` joins a turn's writes and bounds a stream that stops reading.
 * The stream limit guard runs after authentication.
 */
@Controller('api/events')
@SseAuth()
@UseGuards(StreamLimitGuard)
export class RealtimeController {
  constructor(
    private readonly streams: StreamService,
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  @Sse('', { maxPendingDataLength: MAX_UNSENT_BYTES })
  @ApiOkResponse({ description: 'The frames of docs/sse.md', content: { 'text/event-stream': { schema: { type: 'string' } } } })
  changes(
    @CurrentAuth() auth: AuthContext,
    @Query('projectUuid', ProjectFilterPipe) project: string | null,
    @StreamQuery() options: StreamOptions,
    @Req() req: Request,
  ): Observable<MessageEvent> {
    const res = req.res as ServerResponse;
    return this.streams.changes(auth.actor.companyUuid, project, streamRequest(auth, options, res)).pipe(this.flow('changes', res));
  }

  @Sse('notifications', { maxPendingDataLength: MAX_UNSENT_BYTES })
  @ApiOkResponse({ description: 'The frames of docs/sse.md', content: { 'text/event-stream': { schema: { type: 'string' } } } })
  notifications(@CurrentAuth() auth: AuthContext, @StreamQuery() options: StreamOptions, @Req() req: Request): Observable<MessageEvent> {
    const res = req.res as ServerResponse;
    return this.streams.notifications(auth.actor.type, auth.actor.uuid, streamRequest(auth, options, res)).pipe(this.flow('notifications', res));
  }

  private flow(stream: StreamKind, res: ServerResponse) {
    return sseFlow(res, {
      lagMs: this.config.sseLagMs,
      maxSkippedChars: MAX_UNSENT_BYTES,
      onLag: (first) => {
        this.metrics.sseResets.inc({ stream, reason: 'lagging' });
        if (first) this.logger.warn({ stream, lagMs: this.config.sseLagMs }, 'a stream stopped reading for longer than SSE_LAG_MS; it got reset and continues live');
      },
    });
  }
}

function streamRequest(auth: AuthContext, options: StreamOptions, res: ServerResponse): StreamRequest {
  return {
    sessionUuid: auth.sessionUuid ?? null,
    ...options,
    // A response destroyed with bytes still unsent is the pipeline's (or sseFlow's) cut of a client that did not read.
    endedBy: () => (res.destroyed && !res.writableFinished && res.writableLength > 0 ? 'slow_client' : null),
  };
}
