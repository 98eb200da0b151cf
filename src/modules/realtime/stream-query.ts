import { createParamDecorator, Injectable, type ExecutionContext, type PipeTransform } from '@nestjs/common';
import type { Request } from 'express';
import { PlainTextError } from '../../shared/errors/plain-text-error.js';
import { isUuid } from '../../shared/validation/uuid-param.pipe.js';

/** `?projectUuid=` of the change stream: absent → null (whole company); not a uuid → plain-text 400 (docs/sse.md). */
@Injectable()
export class ProjectFilterPipe implements PipeTransform<unknown, string | null> {
  transform(value: unknown): string | null {
    if (value === undefined) return null;
    if (!isUuid(value)) throw new PlainTextError(400, 'Invalid projectUuid');
    return value.toLowerCase();
  }
}

/** Longest `Last-Event-ID` looked at; a longer one is malformed (answered with `reset`). */
const MAX_EVENT_ID = 64;

/** How a stream starts and what it accepts (docs/sse.md). */
export interface StreamOptions {
  /** The resume position: the `Last-Event-ID` header (a reconnecting EventSource) wins over `?lastEventId=`; '-' when too long. */
  lastEventId: string | null;
  /** `?batch=1` (or `true`): consecutive frames may arrive joined as one `event: batch`. Any other value: one frame per event. */
  batch: boolean;
}

/** Reads a stream's options leniently: nothing here is ever refused (an unusable position is answered with `reset`). */
export const StreamQuery = createParamDecorator((_: unknown, ctx: ExecutionContext): StreamOptions => {
  const req = ctx.switchToHttp().getRequest<Request>();
  const header = req.headers['last-event-id'];
  const query = req.query.lastEventId;
  const given = typeof header === 'string' && header.trim() !== '' ? header.trim() : typeof query === 'string' && query.trim() !== '' ? query.trim() : null;
  return {
    lastEventId: given === null ? null : given.length > MAX_EVENT_ID ? '-' : given,
    batch: req.query.batch === '1' || req.query.batch === 'true',
  };
});
