import { Injectable } from '@nestjs/common';
import type { Actor } from '../../shared/auth/actor.js';
import { ValidationError } from '../../shared/errors/app-error.js';
import { paging } from '../../shared/validation/paging.js';
import type { DeltaQuery } from './inbox-delta.service.js';
import { InboxDeltaService } from './inbox-delta.service.js';
import { CURSOR_MESSAGE, cursorOf, invalid, isoTimeOf, POSITION_MESSAGE, positionOf, UNTIL_MESSAGE, WAIT_ALONE_MESSAGE, WAIT_MESSAGE, waitSecondsOf } from './inbox-inputs.js';
import type { ListNotificationsArgsDto, MarkNotificationReadArgsDto, SnoozeNotificationArgsDto } from './dto/notification.dto.js';
import { toNotificationRecord, type NotificationRecord, type NotificationRow } from './notification.records.js';
import { NotificationRepository, recipientOf, type AgentFilter } from './notification.repository.js';
import { keysetPage, NotificationService } from './notification.service.js';

/** `svc_get_notifications`: a page (`page`/`total`, or `nextCursor` in cursor mode) or a delta (`position`). */
export interface AgentInboxAnswer {
  notifications: NotificationRecord[];
  unreadCount: number;
  pollAfterSeconds: number;
  page?: number;
  pageSize?: number;
  total?: number;
  nextCursor?: string | null;
  position?: string;
}

/** `after` and `waitSeconds` of a tool: a delta when `after` is given; `waitSeconds` alone is refused. */
function deltaOf(args: { after?: string; waitSeconds?: number }): DeltaQuery | null {
  if (args.after === undefined) {
    if (args.waitSeconds !== undefined) throw invalid('waitSeconds', waitSecondsOf(args.waitSeconds) === null ? WAIT_MESSAGE : WAIT_ALONE_MESSAGE);
    return null;
  }
  const after = positionOf(args.after);
  if (!after) throw invalid('after', POSITION_MESSAGE);
  const waitSeconds = args.waitSeconds === undefined ? null : waitSecondsOf(args.waitSeconds);
  if (args.waitSeconds !== undefined && waitSeconds === null) throw invalid('waitSeconds', WAIT_MESSAGE);
  return { after, waitSeconds };
}

/**
 * The agent-facing shapes of the inbox (docs/notifications.md §7), behind the tools: their arguments' shapes are checked
 * by the tools' DTOs, their rules here — the defaults (unread ones, marked read as they are listed), positions,
 * cursors and snooze times, with the same messages as the REST forms.
 */
@Injectable()
export class AgentInboxService {
  constructor(
    private readonly inbox: NotificationService,
    private readonly deltas: InboxDeltaService,
    private readonly notifications: NotificationRepository,
  ) {}

  /**
   * `svc_get_notifications`: with `after`, a delta (as the REST form; the list arguments are ignored); else a page —
   * by `cursor` (keyset) or by `page`. Page rows are returned as fetched; with `status` unread and `autoMarkRead`,
   * the returned rows are then marked read and `unreadCount` is counted after that.
   */
  async list(actor: Actor, args: ListNotificationsArgsDto, signal?: AbortSignal): Promise<AgentInboxAnswer> {
    const delta = deltaOf(args);
    if (delta) {
      const d = await this.deltas.delta(actor, delta, signal);
      return { ...d, pollAfterSeconds: this.inbox.pollAfterSeconds(delta.waitSeconds !== null) };
    }
    const p = paging(args);
    const filter: AgentFilter = { status: args.status ?? 'unread', projectUuid: args.projectUuid?.toLowerCase() ?? null };
    const cursor = args.cursor === undefined ? null : cursorOf(args.cursor);
    if (cursor === null && args.cursor !== undefined) throw invalid('cursor', CURSOR_MESSAGE);
    const r = recipientOf(actor);
    let rows: NotificationRow[];
    let tail: Pick<AgentInboxAnswer, 'page' | 'pageSize' | 'total' | 'nextCursor'>;
    if (cursor !== null) {
      const read = await this.notifications.agentKeysetPage(r, filter, cursor, p.pageSize + 1);
      rows = read.slice(0, p.pageSize);
      tail = { pageSize: p.pageSize, nextCursor: keysetPage(read, p.pageSize).nextCursor };
    } else {
      const { rows: read, total } = await this.notifications.agentPage(r, filter, p.pageSize, p.offset);
      rows = read;
      tail = { page: p.page, pageSize: p.pageSize, total };
    }
    const marking = filter.status === 'unread' && (args.autoMarkRead ?? true) && rows.length > 0;
    const unreadCount = marking ? await this.inbox.markRowsRead(actor, rows.map((row) => row.uuid)) : await this.notifications.unreadCount(r);
    return { notifications: rows.map(toNotificationRecord), ...tail, unreadCount, pollAfterSeconds: this.inbox.pollAfterSeconds(false) };
  }

  /** `svc_mark_notification_read`: one notification, or all of them (optionally one project's, up to a position). */
  async markRead(actor: Actor, args: MarkNotificationReadArgsDto): Promise<{ notification: NotificationRecord } | { count: number }> {
    const all = args.all === true;
    if ((args.notificationUuid !== undefined) === all) throw new ValidationError('notificationUuid or all=true required');
    if (args.notificationUuid !== undefined) return { notification: await this.inbox.read(actor, args.notificationUuid) };
    const upTo = args.upTo === undefined ? null : positionOf(args.upTo);
    if (args.upTo !== undefined && !upTo) throw invalid('upTo', POSITION_MESSAGE);
    return this.inbox.readAll(actor, { projectUuid: args.projectUuid?.toLowerCase() ?? null, upTo });
  }

  /** `svc_snooze_notification`. */
  async snooze(actor: Actor, args: SnoozeNotificationArgsDto): Promise<{ notification: NotificationRecord }> {
    const until = isoTimeOf(args.until);
    if (!until) throw invalid('until', UNTIL_MESSAGE);
    return { notification: await this.inbox.snooze(actor, args.notificationUuid, until) };
  }
}
