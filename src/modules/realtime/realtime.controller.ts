import type { ServerResponse } from 'node:http';
import { Controller, Query, Res, Sse } from '@nestjs/common';
import type { Response } from 'express';
import { EMPTY, Observable } from 'rxjs';
import type { AuthContext } from '../../shared/auth/auth-context.js';
import { CurrentAuth, SseAuth } from '../../shared/auth/decorators.js';
import { RawResponse } from '../../shared/http/envelope.interceptor.js';
import { isUuid } from '../../shared/validation/uuid-param.pipe.js';
import { SseHub, type StreamKind } from './sse-hub.js';

/**
 * The two SSE streams (platform.md §6.2). Each handler returns an Observable that lives as long as the stream: it
 * completes when the hub ends the stream and its teardown unregisters the subscriber when the client leaves.
 * Frames are written by the hub straight to the socket (one Buffer shared by all subscribers), because the @Sse
 * pipeline would serialize per connection and add `id:` fields, which the contract forbids.
 */
@Controller('api/events')
@SseAuth()
@RawResponse()
export class RealtimeController {
  constructor(private readonly hub: SseHub) {}

  @Sse()
  changes(@CurrentAuth() auth: AuthContext, @Query('projectUuid') projectUuid: unknown, @Res() res: Response): Observable<never> {
    if (projectUuid !== undefined && !isUuid(projectUuid)) {
      res.status(400).type('text/plain').send('Invalid projectUuid');
      return EMPTY;
    }
    return this.stream('changes', res, auth.actor.companyUuid, projectUuid === undefined ? null : projectUuid.toLowerCase());
  }

  @Sse('notifications')
  notifications(@CurrentAuth() auth: AuthContext, @Res() res: Response): Observable<never> {
    return this.stream('notifications', res, `${auth.actor.type}:${auth.actor.uuid}`, null);
  }

  private stream(kind: StreamKind, res: ServerResponse, key: string, project: string | null): Observable<never> {
    return new Observable<never>((subscriber) => {
      const sub = this.hub.open(kind, res, key, project, () => subscriber.complete());
      // Our headers are out; Nest's SSE stream would write its own (and a second status line) a tick later.
      res.writeHead = (() => res) as unknown as ServerResponse['writeHead'];
      return () => this.hub.remove(sub);
    });
  }
}
