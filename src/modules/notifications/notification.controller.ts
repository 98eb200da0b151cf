import { Get, HttpCode, Param, Patch, Post, Put, Query, UseInterceptors } from '@nestjs/common';
import { ApiBody, ApiResponse } from '@nestjs/swagger';
import type { Actor } from '../../shared/auth/actor.js';
import { CurrentActor, SessionOrKey } from '../../shared/auth/decorators.js';
import { ApiController } from '../../shared/http/api-controller.decorator.js';
import { ApiEnvelope } from '../../shared/http/api-docs.js';
import { CountDto, NotificationListDto, NotificationPreferencesDto, NotificationRecordDto } from './dto/notification-record.dto.js';
import { ClientGone } from '../../shared/http/client-gone.js';
import { UuidParamPipe } from '../../shared/validation/uuid-param.pipe.js';
import { InboxBody } from './dto/inbox-body.pipe.js';
import { NotificationPreferencesBody, ReadAllNotificationsBody, SnoozeNotificationBody } from './dto/notification-body.dto.js';
import { ListNotificationsQuery } from './dto/notification-query.dto.js';
import { InboxCacheInterceptor } from './inbox-cache.interceptor.js';
import { NotificationPreferenceService } from './notification-preference.service.js';
import { NotificationService } from './notification.service.js';

/** The headers of the inbox reads (docs/notifications.md §2, §2.0, §3), for the OpenAPI document. */
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
 * The notification routes (docs/notifications.md §2, §2.0). The recipient is the caller (session cookie or agent key).
 * The inbox reads answer their ETag / 304, `X-Stream-Position` and `X-Poll-Interval` through InboxCacheInterceptor;
 * bodies are read by InboxBody (unknown read-all and snooze fields are ignored rather than refused). Static paths come
 * before the `:uuid` ones.
 */
@ApiController('api/notifications')
@SessionOrKey()
export class NotificationController {
  constructor(
    private readonly notifications: NotificationService,
    private readonly preferenceService: NotificationPreferenceService,
  ) {}

  @Get()
  @UseInterceptors(InboxCacheInterceptor)
  @ApiEnvelope(NotificationListDto, { description: 'Envelope `{success: true, data}`: a page, or with `after` a delta', headers: { ...CACHE_HEADERS, ...POLL_HEADER } })
  @ApiResponse({ status: 304, description: 'Not modified (If-None-Match matched; not for deltas)', headers: CACHE_HEADERS })
  list(@CurrentActor() actor: Actor, @Query() query: ListNotificationsQuery, @ClientGone() gone: AbortSignal) {
    return this.notifications.list(actor, query, gone);
  }

  @Get('unread-count')
  @UseInterceptors(InboxCacheInterceptor)
  @ApiEnvelope(CountDto, { description: 'Envelope `{success: true, data: {count}}`', headers: CACHE_HEADERS })
  @ApiResponse({ status: 304, description: 'Not modified (If-None-Match matched)', headers: CACHE_HEADERS })
  unreadCount(@CurrentActor() actor: Actor) {
    return this.notifications.unreadCount(actor);
  }

  @Post('read-all')
  @HttpCode(200)
  @ApiEnvelope(CountDto)
  @ApiBody({ type: ReadAllNotificationsBody, required: false })
  readAll(@CurrentActor() actor: Actor, @InboxBody(ReadAllNotificationsBody, { optional: true, unknownFields: 'ignore' }) body: ReadAllNotificationsBody) {
    return this.notifications.readAll(actor, body);
  }

  @Get('preferences')
  @ApiEnvelope(NotificationPreferencesDto)
  preferences(@CurrentActor() actor: Actor) {
    return this.preferenceService.get(actor);
  }

  @Put('preferences')
  @ApiEnvelope(NotificationPreferencesDto)
  @ApiBody({ type: NotificationPreferencesBody, description: 'Any subset of the preference flags; unknown fields or non-boolean values are refused' })
  updatePreferences(@CurrentActor() actor: Actor, @InboxBody(NotificationPreferencesBody, { unknownFields: 'refuse' }) body: NotificationPreferencesBody) {
    return this.preferenceService.update(actor, body);
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
  @ApiBody({ type: SnoozeNotificationBody })
  snooze(
    @CurrentActor() actor: Actor,
    @Param('uuid', new UuidParamPipe('Notification')) uuid: string,
    @InboxBody(SnoozeNotificationBody, { unknownFields: 'ignore' }) body: SnoozeNotificationBody,
  ) {
    return this.notifications.snooze(actor, uuid, body.until);
  }
}
