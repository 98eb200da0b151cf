import type { ServerResponse } from 'node:http';
import { Controller, Query, Req, Sse, UseGuards, type MessageEvent } from '@nestjs/common';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import type { AuthContext } from '../../shared/auth/auth-context.js';
import { CurrentAuth, SseAuth } from '../../shared/auth/decorators.js';
import { ProjectFilterPipe } from './project-filter.pipe.js';
import { StreamLimitGuard } from './stream-limit.guard.js';
import { MAX_UNSENT_BYTES, StreamService, type StreamRequest } from './stream.service.js';

/** Longest `Last-Event-ID` looked at; a longer one is malformed (answered with `reset`). */
const MAX_EVENT_ID = 64;

/**
 * The two SSE streams (platform.md §6.2). Each returns the Observable of its frames; Nest's `@Sse` pipeline writes
 * them (headers, `: comment`, `id:`/`retry:`/`event:`/`data:` blocks, the slow-client cut) and unsubscribes when the
 * client leaves. The stream limit guard runs after authentication.
 */
@Controller('api/events')
@SseAuth()
@UseGuards(StreamLimitGuard)
export class RealtimeController {
  constructor(private readonly streams: StreamService) {}

  @Sse('', { maxPendingDataLength: MAX_UNSENT_BYTES })
  changes(@CurrentAuth() auth: AuthContext, @Query('projectUuid', ProjectFilterPipe) project: string | null, @Req() req: Request): Observable<MessageEvent> {
    return this.streams.changes(auth.actor.companyUuid, project, streamRequest(auth, req));
  }

  @Sse('notifications', { maxPendingDataLength: MAX_UNSENT_BYTES })
  notifications(@CurrentAuth() auth: AuthContext, @Req() req: Request): Observable<MessageEvent> {
    return this.streams.notifications(auth.actor.type, auth.actor.uuid, streamRequest(auth, req));
  }
}

/** The resume position: the `Last-Event-ID` header (what a reconnecting EventSource sends) wins over `?lastEventId=`. */
function streamRequest(auth: AuthContext, req: Request): StreamRequest {
  const header = req.headers['last-event-id'];
  const query = req.query.lastEventId;
  const given = typeof header === 'string' && header.trim() !== '' ? header.trim() : typeof query === 'string' && query.trim() !== '' ? query.trim() : null;
  return {
    sessionUuid: auth.sessionUuid ?? null,
    lastEventId: given === null ? null : given.length > MAX_EVENT_ID ? '-' : given,
    res: req.res as ServerResponse,
  };
}
