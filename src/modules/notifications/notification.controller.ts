import { Body, Get, HttpCode, Param, Patch, Post, Put, Query, Req, Res } from '@nestjs/common';
import { ApiBody, ApiQuery, ApiResponse } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { Actor } from '../../shared/auth/actor.js';
import { CurrentActor, SessionOrKey } from '../../shared/auth/decorators.js';
import { UuidParamPipe } from '../../shared/validation/uuid-param.pipe.js';
import { etagMatches, parseInboxQuery } from './domain/notification-request.rules.js';
import { PREFERENCE_FIELDS } from './domain/notification.rules.js';
import { NotificationService } from './notification.service.js';
import { ApiController } from '../../shared/http/api-controller.decorator.js';
import { abortOnClose } from '../../shared/http/client-gone.js';
import { ApiEnvelope } from '../../shared/http/api-docs.js';
import { CountDto, NotificationListDto, NotificationPreferencesDto, NotificationRecordDto } from './dto/notification-record.dto.js';

/**
 * Conditional GET, answered by hand: the tag is compared before any row is read, and a match ends the response as
 * 304 without a body. (Express's own freshness check ignores If-None-Match when the request carries
 * `Cache-Control: no-cache`, which fetch() adds to every conditional request.) Private: per-caller data,
 * revalidated on every use. The tag is only sent with a successful answer, never with an error.
 */
function cacheHeaders(res: Response, tag: string, position: string): void {
  res.setHeader('ETag', tag);
  // notifications.md §3: the recipient's stream position the answer was read at (orders it against stream frames).
  res.setHeader('X-Stream-Position', position);
  res.setHeader('Cache-Control', 'private, no-cache');
  res.vary('Cookie');
  res.vary('Authorization');
}

function notModified(req: Request, res: Response, tag: string, position: string): boolean {
  if (!etagMatches(req.headers['if-none-match'], tag)) return false;
  cacheHeaders(res, tag, position);
  res.status(304).end();
  return true;
}

/** The envelope for the two hand-answered routes (the interceptor does it for the others). */
function sendFresh(res: Response, tag: string, position: string, data: unknown): void {
  cacheHeaders(res, tag, position);
  res.json({ success: true, data });
}

/** The headers of the inbox reads (notifications.md §2, §2.0, §3), for the OpenAPI document. */
const POSITION_HEADER = {
  'X-Stream-Position': { description: "The recipient's notification-stream position this answer reflects (`<epoch>-<n>`): order it against stream frames, or pass it as `after`", schema: { type: 'string' } },
};
const CACHE_HEADERS = {
  ETag: { description: 'Pages and counts, not deltas: send it back as If-None-Match for a 304 while nothing changed', schema: { type: 'string' } },
  ...POSITION_HEADER,
};
const POLL_HEADER = {
  'X-Poll-Interval': { description: 'Seconds the service asks a poller to wait before the next request (0 after a wait answered)', schema: { type: 'integer' } },
};

/**
 * The notification routes (notifications.md §2, §2.0). The recipient is the caller (session cookie or agent key);
 * bodies and queries are parsed by the service, so unknown read-all fields are ignored rather than refused.
 * Static paths come before the `:uuid` ones.
 */
@ApiController('api/notifications')
@SessionOrKey()
export class NotificationController {
  constructor(private readonly notifications: NotificationService) {}

  // Queries and bodies are parsed by the service (out-of-range numbers are clamped, never refused); documented here.
  @Get()
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 }, description: 'Clamped to 1-100' })
  @ApiQuery({ name: 'offset', required: false, schema: { type: 'integer', minimum: 0, default: 0 }, description: 'Floored at 0' })
  @ApiQuery({ name: 'unreadOnly', required: false, schema: { type: 'boolean', default: false } })
  @ApiQuery({ name: 'projectUuid', required: false, schema: { type: 'string', format: 'uuid' }, description: 'Only notifications of this project' })
  @ApiQuery({ name: 'cursor', required: false, schema: { type: 'string' }, description: 'Keyset paging: empty for the first page, then the previous nextCursor' })
  @ApiQuery({ name: 'after', required: false, schema: { type: 'string' }, description: 'A delta: the records changed after this stream position (filters and paging ignored)' })
  @ApiQuery({ name: 'waitSeconds', required: false, schema: { type: 'integer', minimum: 1, maximum: 30 }, description: 'With after: wait up to this long for a change' })
  @ApiEnvelope(NotificationListDto, { description: 'Envelope `{success: true, data}`: a page, or with `after` a delta', headers: { ...CACHE_HEADERS, ...POLL_HEADER } })
  @ApiResponse({ status: 304, description: 'Not modified (If-None-Match matched; not for deltas)', headers: CACHE_HEADERS })
  async list(@CurrentActor() actor: Actor, @Query() query: unknown, @Req() req: Request, @Res() res: Response): Promise<void> {
    const parsed = parseInboxQuery(query);
    if ('delta' in parsed) {
      const delta = await this.notifications.delta(actor, parsed.delta, abortOnClose(res));
      // A delta is never cached; the next delta starts at its position.
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('X-Stream-Position', delta.position);
      res.setHeader('X-Poll-Interval', String(this.notifications.pollAfterSeconds(parsed.delta.waitSeconds !== null)));
      if (!res.writableEnded && !res.destroyed) res.json({ success: true, data: delta });
      return;
    }
    const { tag, position, page } = await this.notifications.listTagged(actor, parsed.list);
    res.setHeader('X-Poll-Interval', String(this.notifications.pollAfterSeconds(false)));
    if (!notModified(req, res, tag, position)) sendFresh(res, tag, position, await page());
  }

  @Get('unread-count')
  @ApiEnvelope(CountDto, { description: 'Envelope `{success: true, data: {count}}`', headers: CACHE_HEADERS })
  @ApiResponse({ status: 304, description: 'Not modified (If-None-Match matched)', headers: CACHE_HEADERS })
  async unreadCount(@CurrentActor() actor: Actor, @Req() req: Request, @Res() res: Response): Promise<void> {
    const { count, tag, position } = await this.notifications.unreadCountTagged(actor);
    if (!notModified(req, res, tag, position)) sendFresh(res, tag, position, { count });
  }

  @Post('read-all')
  @HttpCode(200)
  @ApiEnvelope(CountDto)
  @ApiBody({
    required: false,
    schema: {
      type: 'object',
      properties: {
        projectUuid: { type: 'string', format: 'uuid', description: 'Only this project' },
        upTo: { type: 'string', description: 'Only notifications that arrived at or before this stream position' },
      },
    },
  })
  readAll(@CurrentActor() actor: Actor, @Body() body: unknown) {
    return this.notifications.readAll(actor, body);
  }

  @Get('preferences')
  @ApiEnvelope(NotificationPreferencesDto)
  preferences(@CurrentActor() actor: Actor) {
    return this.notifications.getPreferences(actor);
  }

  @Put('preferences')
  @ApiEnvelope(NotificationPreferencesDto)
  @ApiBody({
    schema: { type: 'object', additionalProperties: false, properties: Object.fromEntries(PREFERENCE_FIELDS.map((f) => [f, { type: 'boolean' }])) },
    description: 'Any subset of the preference flags; unknown fields or non-boolean values are refused',
  })
  updatePreferences(@CurrentActor() actor: Actor, @Body() body: unknown) {
    return this.notifications.updatePreferences(actor, body);
  }

  @Patch(':uuid/read')
  @ApiEnvelope(NotificationRecordDto)
  read(@CurrentActor() actor: Actor, @Param('uuid', new UuidParamPipe('Notification')) uuid: string) {
    return this.notifications.read(actor, uuid);
  }

  @Patch(':uuid/archive')
  @ApiEnvelope(NotificationRecordDto)
  archive(@CurrentActor() actor: Actor, @Param('uuid', new UuidParamPipe('Notification')) uuid: string) {
    return this.notifications.archive(actor, uuid);
  }

  @Patch(':uuid/unarchive')
  @ApiEnvelope(NotificationRecordDto)
  unarchive(@CurrentActor() actor: Actor, @Param('uuid', new UuidParamPipe('Notification')) uuid: string) {
    return this.notifications.unarchive(actor, uuid);
  }

  @Patch(':uuid/snooze')
  @ApiEnvelope(NotificationRecordDto)
  @ApiBody({
    schema: { type: 'object', required: ['until'], properties: { until: { type: 'string', format: 'date-time', description: 'At least 3 minutes ahead' } } },
  })
  snooze(@CurrentActor() actor: Actor, @Param('uuid', new UuidParamPipe('Notification')) uuid: string, @Body() body: unknown) {
    return this.notifications.snoozeFromBody(actor, uuid, body);
  }
}
