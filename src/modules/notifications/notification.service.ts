import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Actor } from '../../shared/auth/actor.js';
import { PoolLoad } from '../../shared/database/pool-load.js';
import { TransactionRunner } from '../../shared/database/transaction-runner.js';
import { NotFoundError } from '../../shared/errors/app-error.js';
import { EventBus } from '../../shared/event-bus/event-bus.port.js';
import type { NotificationFrame } from '../../shared/event-bus/events.js';
import { MetricsService } from '../../shared/metrics/metrics.service.js';
import { formatPosition, recipientKey } from '../../shared/stream-log/position.js';
import { StreamLog } from '../../shared/stream-log/stream-log.js';
import { isUuid } from '../../shared/validation/uuid-param.pipe.js';
import { checkSnoozeWindow, pollAfterSeconds, unknownPosition, type PositionInput } from './domain/inbox.rules.js';
import type { ListNotificationsQuery } from './dto/notification-query.dto.js';
import type { InboxAnswer, TaggedAnswer } from './inbox-answer.js';
import { InboxDeltaService } from './inbox-delta.service.js';
import { formatCursor } from './inbox-inputs.js';
import { publishFrames, recordFrames, reservePositions } from './notification-frames.js';
import { toCheckinNotification, toNotificationRecord, type CheckinNotification, type NotificationRecord, type NotificationRow } from './notification.records.js';
import { NotificationRepository, recipientOf, type ListQuery, type Recipient, type Stamp } from './notification.repository.js';

const CHECKIN_RECENT = 5;

/** A page of the REST list: `nextCursor` in cursor mode only. */
export interface InboxPage {
  notifications: NotificationRecord[];
  nextCursor?: string | null;
  unreadCount: number;
}

/** What one write changed: its result, how many rows, and its frame (a `count_update` unless it names another). */
interface InboxChange<T> {
  result: T;
  changed: number;
  frame?: (unreadCount: number) => NotificationFrame;
}

/**
 * The page of a keyset read (one row more than `limit` was read): the page, and the cursor of its last row when
 * another row follows.
 */
export function keysetPage(rows: NotificationRow[], limit: number): { notifications: NotificationRecord[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { notifications: page.map(toNotificationRecord), nextCursor: rows.length > limit && last ? formatCursor(last.cursorKey!, last.uuid) : null };
}

/**
 * The caller's inbox (docs/notifications.md §2, §2.0): pages and counts with their entity tags, and the writes — read,
 * archive, unarchive, snooze, read-all and the snooze wake-up. The recipient is always the authenticated actor.
 * Every write that changes at least one row publishes one frame with the new unread count, at the recipient's next
 * stream position taken and logged in the write's transaction; a write that changes nothing publishes nothing and
 * takes no position.
 */
@Injectable()
export class NotificationService {
  constructor(
    private readonly notifications: NotificationRepository,
    private readonly deltas: InboxDeltaService,
    private readonly runner: TransactionRunner,
    private readonly log: StreamLog,
    private readonly bus: EventBus,
    private readonly metrics: MetricsService,
    private readonly pool: PoolLoad,
  ) {}

  /** `GET /api/notifications`: with `after` a delta (the list parameters ignored), else a page with its entity tag. */
  async list(actor: Actor, query: ListNotificationsQuery, signal?: AbortSignal): Promise<InboxAnswer> {
    if (query.after === undefined) {
      return this.page(actor, { limit: query.limit, offset: query.offset, unreadOnly: query.unreadOnly, projectUuid: query.projectUuid ?? null, cursor: query.cursor ?? null });
    }
    const waited = query.waitSeconds !== undefined;
    const delta = await this.deltas.delta(actor, { after: query.after, waitSeconds: query.waitSeconds ?? null }, signal);
    return { kind: 'delta', position: delta.position, pollAfterSeconds: this.pollAfterSeconds(waited), body: delta };
  }

  /**
   * A page with its entity tag (the conditional GET): the inbox row is read first; the tag and the unread count both
   * come from it, so a match costs that one lookup and a miss adds only the page of rows (read after it: the answer
   * is never labelled with a version newer than what it shows).
   */
  private async page(actor: Actor, q: ListQuery): Promise<TaggedAnswer<InboxPage>> {
    const r = recipientOf(actor);
    const state = await this.notifications.state(r);
    return {
      kind: 'tagged',
      tag: tagOf(actor, 'list', state.version, q),
      position: await this.position(state.position),
      pollAfterSeconds: this.pollAfterSeconds(false),
      body: async () => {
        const rows = await this.notifications.page(r, q);
        const page = q.cursor === null ? { notifications: rows.map(toNotificationRecord) } : keysetPage(rows, q.limit);
        return { ...page, unreadCount: state.unreadCount };
      },
    };
  }

  /** The global unread count with its entity tag and the stream position it was read at, all from one statement. */
  async unreadCount(actor: Actor): Promise<TaggedAnswer<{ count: number }>> {
    const state = await this.notifications.state(actor);
    return { kind: 'tagged', tag: tagOf(actor, 'count', state.version, null), position: await this.position(state.position), pollAfterSeconds: null, body: async () => ({ count: state.unreadCount }) };
  }

  /**
   * `pollAfterSeconds` / `X-Poll-Interval` (docs/notifications.md §2.0): the pause the service asks for before the next
   * poll, longer while requests queue for a database connection.
   */
  pollAfterSeconds(waited: boolean): number {
    return pollAfterSeconds(waited, this.pool.now());
  }

  read(actor: Actor, uuid: string): Promise<NotificationRecord> {
    return this.stamp(actor, uuid, 'read');
  }

  /** Sets `archivedAt`; `readAt` untouched. Archived notifications are no longer listed nor counted. */
  archive(actor: Actor, uuid: string): Promise<NotificationRecord> {
    return this.stamp(actor, uuid, 'archive');
  }

  /** Clears `archivedAt` (idempotent). */
  unarchive(actor: Actor, uuid: string): Promise<NotificationRecord> {
    return this.stamp(actor, uuid, 'unarchive');
  }

  /**
   * Hides a notification until `until` (3 minutes to a year ahead), when the waker brings it back unread with a
   * `new_notification` frame. Snoozing again to the same time changes nothing.
   */
  async snooze(actor: Actor, uuid: string, until: Date): Promise<NotificationRecord> {
    return this.stamp(actor, uuid, { snoozeUntil: checkSnoozeWindow(until, Date.now()) });
  }

  /**
   * Read-all: every unread notification — optionally of one project, and with `upTo` only those that arrived or woke
   * at or before that position (later arrivals stay unread); archived and snoozed ones are left alone. `{count}` of
   * those it changed. An `upTo` of another log or ahead of the caller's head is VALIDATION_ERROR on `upTo`.
   */
  async readAll(actor: Actor, scope: { projectUuid?: string | null; upTo?: PositionInput | null }): Promise<{ count: number }> {
    const r = recipientOf(actor);
    const upTo = scope.upTo ?? null;
    if (upTo && upTo.epoch !== (await this.log.epoch())) throw unknownPosition('upTo');
    const { result } = await this.write(actor, r, async (em, n) => {
      // The reserved position is the head plus one: anything at or above it is not a position handed out yet.
      if (upTo && upTo.n >= n) throw unknownPosition('upTo');
      const changed = await this.notifications.markAllRead(em, r, { projectUuid: scope.projectUuid ?? null, upTo: upTo?.n ?? null }, n);
      return { result: changed, changed };
    });
    return { count: result };
  }

  /**
   * Marks the given rows of the caller read (those still unread): the auto-marking of `svc_get_notifications` and
   * `svc_checkin`. Returns the unread count after it.
   */
  async markRowsRead(actor: Actor, uuids: readonly string[]): Promise<number> {
    const r = recipientOf(actor);
    const { unreadCount } = await this.write(actor, r, async (em, n) => ({ result: null, changed: await this.notifications.markRead(em, r, uuids, n) }));
    return unreadCount;
  }

  /** `svc_checkin`'s `notifications`: the 5 newest unread, then marked read; `unread` counted after that. */
  async checkinSummary(actor: Actor): Promise<{ unread: number; recent: CheckinNotification[] }> {
    const r = recipientOf(actor);
    const rows = await this.notifications.newestUnread(r, CHECKIN_RECENT);
    const unread = rows.length ? await this.markRowsRead(actor, rows.map((row) => row.uuid)) : await this.notifications.unreadCount(r);
    return { unread, recent: rows.map(toCheckinNotification) };
  }

  /** The earliest time any notification is snoozed until (the waker's next timer), or null. */
  nextSnoozeDue(): Promise<Date | null> {
    return this.notifications.nextSnoozeDue();
  }

  /**
   * One pass of the snooze waker: up to `limit` notifications whose snooze is due, woken recipient by recipient. How
   * many were due, and how many of them this call woke (the others another instance woke first).
   */
  async wakeDue(limit: number): Promise<{ due: number; woke: number }> {
    const due = await this.notifications.dueSnoozes(limit);
    let woke = 0;
    for (const d of due) woke += await this.wake(d.recipient, d.uuids);
    return { due: due.length, woke };
  }

  /**
   * Wakes the given notifications of one recipient whose snooze is due: `snoozedUntil` and `readAt` cleared, a new
   * arrival position, one `new_notification` frame copied from the newest of them. Rows another instance woke first
   * no longer match, so each wake-up happens (and is announced) exactly once. Returns how many woke. The write runs
   * as the recipient itself (its own snooze came due; the runner's actor only scopes change events, and it has none).
   */
  private async wake(r: Recipient, uuids: readonly string[]): Promise<number> {
    const owner: Actor = { type: r.type, uuid: r.uuid, companyUuid: r.companyUuid, name: '', ownerUuid: null, permissions: new Set() };
    const { result } = await this.write(owner, r, async (em, n) => {
      const rows = await this.notifications.wake(em, r, uuids, n);
      const first = rows[0];
      return {
        result: rows.length,
        changed: rows.length,
        frame: (unreadCount: number): NotificationFrame => ({
          type: 'new_notification',
          notificationUuid: first.uuid,
          unreadCount,
          action: first.action,
          actorName: first.actorName,
          entityTitle: first.entityTitle,
          entityType: first.entityType,
          entityUuid: first.entityUuid,
          projectUuid: first.projectUuid,
        }),
      };
    });
    return result;
  }

  /**
   * One notification's stamp: idempotent (a repeat changes nothing), the row stamped with the write's position;
   * foreign or missing is NOT_FOUND.
   */
  private async stamp(actor: Actor, uuid: string, stamp: Stamp): Promise<NotificationRecord> {
    if (!isUuid(uuid)) throw new NotFoundError('Notification');
    const r = recipientOf(actor);
    const id = uuid.toLowerCase();
    const { result: updated } = await this.write(actor, r, async (em, n) => {
      const rows = await this.notifications.stamp(em, r, id, stamp, n);
      return { result: rows, changed: rows.length };
    });
    const row = updated[0] ?? (await this.notifications.find(r, id));
    if (!row) throw new NotFoundError('Notification');
    return toNotificationRecord(row);
  }

  /**
   * A write to one recipient's notifications, in one transaction of the runner (docs/notifications.md §2.0): it first
   * takes the recipient's next position (heads locked in key order), which `change` stamps on the rows it changes;
   * when it changed any, the frame is logged at that position with the unread count read in the transaction, and
   * published after commit. A write that changed nothing is rolled back (`rollbackOnly`): it gives its position
   * back and publishes nothing, and still answers its result and the unread count.
   */
  private async write<T>(actor: Actor, r: Recipient, change: (em: EntityManager, n: number) => Promise<InboxChange<T>>): Promise<{ result: T; unreadCount: number }> {
    const done = await this.runner.run(actor, async (tx) => {
      const n = (await reservePositions(this.log, tx.manager, [r])).get(recipientKey(r.type, r.uuid))!;
      const { result, changed, frame } = await change(tx.manager, n);
      const unreadCount = await this.notifications.unreadCount(r, tx.manager);
      if (!changed) {
        tx.rollbackOnly();
        return { result, unreadCount, frames: [] };
      }
      const frames = await recordFrames(this.log, tx.manager, [{ to: r, n, frame: frame ? frame(unreadCount) : { type: 'count_update', unreadCount } }]);
      return { result, unreadCount, frames };
    });
    publishFrames(this.bus, this.metrics, done.frames);
    return { result: done.result, unreadCount: done.unreadCount };
  }

  /** `X-Stream-Position` of a count or list answer. */
  private async position(n: number): Promise<string> {
    return formatPosition(await this.log.epoch(), n);
  }
}

/** The entity tag of a list (with its query) or of the count: the inbox version, scoped to the caller and the read. */
function tagOf(actor: Actor, kind: 'list' | 'count', version: string, query: ListQuery | null): string {
  const scope = createHash('sha256')
    .update(JSON.stringify([actor.companyUuid, actor.type, actor.uuid, kind, query]))
    .digest('base64url')
    .slice(0, 16);
  return `"${kind}-${version}-${scope}"`;
}
