import type { ServerResponse } from 'node:http';
import { Controller, Query, Req, Sse, type MessageEvent } from '@nestjs/common';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import type { AuthContext } from '../../shared/auth/auth-context.js';
import { CurrentAuth, SseAuth } from '../../shared/auth/decorators.js';
import { ProjectFilterPipe } from './project-filter.pipe.js';
import { MAX_UNSENT_BYTES, StreamService } from './stream.service.js';

/**
 * The two SSE streams (platform.md §6.2). Each returns the Observable of its frames; Nest's `@Sse` pipeline writes
 * them (headers, `: comment` and `data:` blocks, the slow-client cut) and unsubscribes when the client leaves.
 * The request's response is handed to the stream service only to batch one turn's writes (see StreamService).
 */
@Controller('api/events')
@SseAuth()
export class RealtimeController {
  constructor(private readonly streams: StreamService) {}

  @Sse('', { maxPendingDataLength: MAX_UNSENT_BYTES })
  changes(@CurrentAuth() auth: AuthContext, @Query('projectUuid', ProjectFilterPipe) project: string | null, @Req() req: Request): Observable<MessageEvent> {
    return this.streams.changes(auth.actor.companyUuid, project, req.res as ServerResponse);
  }

  @Sse('notifications', { maxPendingDataLength: MAX_UNSENT_BYTES })
  notifications(@CurrentAuth() auth: AuthContext, @Req() req: Request): Observable<MessageEvent> {
    return this.streams.notifications(auth.actor.type, auth.actor.uuid, req.res as ServerResponse);
  }
}
