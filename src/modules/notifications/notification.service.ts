import { createHash, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { DataSource, type EntityManager } from 'typeorm';
import type { Actor } from '../../shared/auth/actor.js';
import { NotFoundError, ValidationError } from '../../shared/errors/app-error.js';
import { EventBus } from '../../shared/event-bus/event-bus.port.js';
import type { NotificationFrame } from '../../shared/event-bus/events.js';
import { liftRequestDeadline } from '../../shared/http/request-deadline.interceptor.js';
import { MetricsService } from '../../shared/metrics/metrics.service.js';
import { preparedQuery } from '../../shared/database/prepared.js';
import { formatPosition, recipientKey } from '../../shared/stream-log/position.js';
import { StreamLog } from '../../shared/stream-log/stream-log.js';
import { offsetOf, paging } from '../../shared/validation/paging.js';
import {
  formatCursor,
  parseAgentDelta,
  parseAgentListInput,
  parseListQuery,
  parseMarkReadInput,
  parsePreferencesPatch,
  parseReadAllBody,
  parseSnoozeBody,
  parseSnoozeUntil,
  type AgentListInput,
  type DeltaQuery,
  type ListQuery,
  type MarkReadInput,
  type PositionInput,
} from './domain/notification-request.rules.js';
import { InboxWaits } from './inbox-waits.js';
import { PREFERENCE_FIELDS, type PreferenceField } from './domain/notification.rules.js';
import {
  LIST_COLUMNS,
  NOTIFICATION_COLUMNS,
  toCheckinNotification,
  toNotificationRecord,
  type CheckinNotification,
  type NotificationPreferences,
  type NotificationRecord,
  type NotificationRow,
} from './notification.records.js';
import {
  afterCursorSql,
  countUnread,
  DELTA_SQL,
  inboxState,
  LISTED_SQL,
  listSql,
  POSITION_ROWS_SQL,
  publishFrames,
  recordFrames,
  RECIPIENT_SQL,
  recipientParams,
  reservePositions,
  type PositionedFrame,
  type Recipient,
} from './notification.queries.js';

const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CHECKIN_RECENT = 5;

/** Column names of the twelve preference fields (fixed here, never taken from input). */
const PREFERENCE_COLUMNS: Record<PreferenceField, string> = Object.fromEntries(
  PREFERENCE_FIELDS.map((f) => [f, f.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)]),
) as Record<PreferenceField, string>;
const PREFERENCE_SELECT = `uuid, owner_type AS "ownerType", owner_uuid AS "ownerUuid", ${PREFERENCE_FIELDS.map((f) => `${PREFERENCE_COLUMNS[f]} AS "${f}"`).join(', ')}`;

const recipientOf = (actor: Actor): Recipient => ({ type: actor.type, uuid: actor.uuid, companyUuid: actor.companyUuid });

/** A delta answer holds at most this many records and this many bytes of them (a position is never split). */
export const DELTA_MAX_RECORDS = 100;
export const DELTA_MAX_BYTES = 64 * 1024;
/** `pollAfterSeconds` of a list or delta answer on an idle service; a wait's answer asks for no pause then. */
export const BASE_POLL_SECONDS = 2;

const DELTA_STATEMENT = { name: 'svc_notification_delta_v2', text: DELTA_SQL };
const POSITION_ROWS_STATEMENT = { name: 'svc_notification_position_rows_v1', text: POSITION_ROWS_SQL };

type DeltaRow = Partial<NotificationRow> & { head: string | null; unreadCount: number | null };

/** A delta (notifications.md §2.0): records changed after the caller's position, the position to pass next. */
export interface InboxDelta {
  notifications: NotificationRecord[];
  position: string;
  unreadCount: number;
}

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

/** One read of a delta: the answer's parts, by counter, and the recipient's head in the same snapshot. */
interface DeltaRead {
  notifications: NotificationRecord[];
  position: number;
  unreadCount: number;
  head: number;
}

/** A write that changed nothing: rolled back (its position given back), its result still answered. */
class Unchanged<T> {
  constructor(
    readonly result: T,
    readonly unreadCount: number,
  ) {}
}

const unknownPosition = (field: string): ValidationError =>
  new ValidationError('Invalid input', [{ field, message: 'unknown position: list the notifications to get a current one' }]);

/**
 * The caller's inbox (notifications.md §2, §6, §7): listing, counting, marking, archiving and preferences. The
 * recipient is always the authenticated actor. Every write that changes at least one row publishes one
 * `count_update` frame with the new unread count, at the recipient's next stream position taken and logged in the
 * write's transaction; a write that changes nothing publishes nothing.
 */
@Injectable()
export class NotificationService {
  constructor(
    private readonly db: DataSource,
    private readonly bus: EventBus,
    private readonly metrics: MetricsService,
    private readonly log: StreamLog,
    private readonly waits: InboxWaits,
  ) {}

  /**
   * A write to one recipient's notifications, in one transaction (notifications.md §2.0): it first takes the
   * recipient's next position, which `work` stamps on the rows it changes; when it changed at least one row, the frame
   * (`count_update` unless `work` names another, e.g. a wake-up's `new_notification`) is logged at that position with
   * the unread count read in the transaction, and published after commit. A write that changed nothing rolls back,
   * so it takes no position and publishes nothing.
   */
  private async write<T>(
    r: Recipient,
    work: (em: EntityManager, n: number) => Promise<{ result: T; changed: number; frame?: (unreadCount: number) => NotificationFrame }>,
  ): Promise<{ result: T; unreadCount: number }> {
    let frames: PositionedFrame[] = [];
    try {
      const out = await this.db.transaction(async (em) => {
        const n = (await reservePositions(this.log, em, [r])).get(recipientKey(r.type, r.uuid))!;
        const { result, changed, frame } = await work(em, n);
        const unreadCount = await countUnread(em, r);
        if (!changed) throw new Unchanged(result, unreadCount);
        frames = await recordFrames(this.log, em, [{ to: r, n, frame: frame ? frame(unreadCount) : { type: 'count_update', unreadCount } }]);
        return { result, unreadCount };
      });
      publishFrames(this.bus, this.metrics, frames);
      return out;
    } catch (err) {
      if (err instanceof Unchanged) return { result: err.result as T, unreadCount: err.unreadCount };
      throw err;
    }
  }

  /** `X-Stream-Position` of a count or list answer. */
  async position(n: number): Promise<string> {
    return formatPosition(await this.log.epoch(), n);
  }

  /**
   * `pollAfterSeconds` / `X-Poll-Interval` (notifications.md §2.0): the pause the service asks for before the next
   * poll — BASE_POLL_SECONDS when idle, none after a wait's answer (waiting again at once is the intended pattern),
   * and longer the more requests queue for a database connection (up to five times, plus 2 s for a wait's answer).
   */
  pollAfterSeconds(waited: boolean): number {
    const pool = (this.db.driver as unknown as { master?: Pool & { options?: { max?: number } } }).master;
    const max = pool?.options?.max ?? 10;
    const load = Math.min(4, Math.floor((4 * (pool?.waitingCount ?? 0)) / Math.max(1, max)));
    return waited ? BASE_POLL_SECONDS * load : BASE_POLL_SECONDS * (1 + load);
  }

  /** One page of a recipient's inbox, newest first, off one of its indexes (a prepared statement per list shape). */
  private async page(r: Recipient, q: ListQuery): Promise<{ notifications: NotificationRecord[]; nextCursor?: string | null }> {
    const { sql, params, name } = listSql(r, q);
    const rows = await preparedQuery<NotificationRow>(this.db.manager, { name, text: sql }, params);
    if (q.cursor === null) return { notifications: rows.map(toNotificationRecord) };
    return this.keysetPage(rows, q.limit);
  }

  /** Cursor mode: the page and the cursor of its last row when another row follows (one more was read). */
  private keysetPage(rows: NotificationRow[], limit: number): { notifications: NotificationRecord[]; nextCursor: string | null } {
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { notifications: page.map(toNotificationRecord), nextCursor: rows.length > limit && last ? formatCursor(last.cursorKey!, last.uuid) : null };
  }

  /**
   * The REST list with its entity tag (the conditional GET): the inbox row is read first; the tag and the unread
   * count both come from it, so a match costs that one lookup and a miss adds only the page of rows (read after it:
   * the answer is never labelled with a version newer than what it shows). Validates the query before any read.
   */
  async listTagged(
    actor: Actor,
    query: ListQuery,
  ): Promise<{ tag: string; position: string; page: () => Promise<{ notifications: NotificationRecord[]; unreadCount: number; nextCursor?: string | null }> }> {
    const r = recipientOf(actor);
    const state = await inboxState(this.db.manager, r);
    return {
      tag: this.tag(actor, 'list', state.version, query),
      position: await this.position(state.position),
      page: async () => ({ ...(await this.page(r, query)), unreadCount: state.unreadCount }),
    };
  }

  /** The list without its entity tag (a page and the unread count, read side by side). */
  async list(actor: Actor, query: unknown): Promise<{ notifications: NotificationRecord[]; unreadCount: number; nextCursor?: string | null }> {
    const q = parseListQuery(query);
    const r = recipientOf(actor);
    const [page, unreadCount] = await Promise.all([this.page(r, q), countUnread(this.db.manager, r)]);
    return { ...page, unreadCount };
  }

  /** Entity tag of a list (with its parsed query). Validates the query first. */
  async listTag(actor: Actor, query: unknown): Promise<string> {
    return (await this.listTagged(actor, parseListQuery(query))).tag;
  }

  unreadCount(actor: Actor): Promise<number> {
    return countUnread(this.db.manager, actor);
  }

  /**
   * The unread count with its entity tag and the stream position it was read at, all from one statement (one lookup
   * answers 200 and 304 alike).
   */
  async unreadCountTagged(actor: Actor): Promise<{ count: number; tag: string; position: string }> {
    const state = await inboxState(this.db.manager, actor);
    return { count: state.unreadCount, tag: this.tag(actor, 'count', state.version, null), position: await this.position(state.position) };
  }

  private tag(actor: Actor, kind: 'list' | 'count', version: string, query: ListQuery | null): string {
    const scope = createHash('sha256')
      .update(JSON.stringify([actor.companyUuid, actor.type, actor.uuid, kind, query]))
      .digest('base64url')
      .slice(0, 16);
    return `"${kind}-${version}-${scope}"`;
  }

  /**
   * A delta (notifications.md §2.0): the caller's records changed after `after`, in their current state, oldest
   * position first, and the position to pass next. Marks nothing. With `waitSeconds` it answers as soon as the delta
   * is not empty — a frame for the caller on any instance wakes it — or empty at the deadline or at shutdown; no
   * database connection is held while it waits, and the request deadline is lifted for it; `signal` ends the wait early. An unknown position
   * (another log's, or ahead of the caller's head) is VALIDATION_ERROR on `after`.
   */
  async delta(actor: Actor, q: DeltaQuery, signal?: AbortSignal): Promise<InboxDelta> {
    const r = recipientOf(actor);
    if (q.after.epoch !== (await this.log.epoch())) throw unknownPosition('after');
    if (q.waitSeconds === null) return this.answer(await this.readDelta(r, q.after.n, true));
    const release = this.waits.acquire(r.type, r.uuid);
    liftRequestDeadline();
    // Watching starts before the first read: a change committed between the read and the wait still wakes it.
    const watch = this.waits.watch(r.type, r.uuid);
    // A caller that went away stops waiting (its slot is given back at once).
    const onAbort = (): void => watch.end();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();
    try {
      const deadline = Date.now() + q.waitSeconds * 1000;
      // Frames from other instances reach this one from here on (the recipient's subscription is active): read after it.
      await watch.ready;
      let d = await this.readDelta(r, q.after.n, true);
      while (!d.notifications.length) {
        const left = deadline - Date.now();
        if (left <= 0) break;
        const outcome = await watch.next(d.head, left);
        if (outcome === 'shutdown') break;
        // At the deadline, one last look only when frames may have been lost (the channel was down meanwhile).
        if (outcome === 'timeout' && !watch.busTroubled && this.bus.status().state !== 'down') break;
        d = await this.readDelta(r, q.after.n, false);
        if (outcome === 'timeout') break;
      }
      return this.answer(d);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      watch.close();
      release();
    }
  }

  private async answer(d: DeltaRead): Promise<InboxDelta> {
    return { notifications: d.notifications, position: await this.position(d.position), unreadCount: d.unreadCount };
  }

  /**
   * One delta read: whole positions, oldest first, up to DELTA_MAX_RECORDS records and DELTA_MAX_BYTES — except that
   * the first position is always answered whole (a bulk change bigger than that is read on its own), so a caller
   * always advances. `position` is the last position covered completely: the head when everything after `after`
   * fitted.
   */
  private async readDelta(r: Recipient, after: number, checkAfter: boolean): Promise<DeltaRead> {
    const params = [...recipientParams(r), recipientKey(r.type, r.uuid), after];
    const rows = await preparedQuery<DeltaRow>(this.db.manager, DELTA_STATEMENT, [...params, DELTA_MAX_RECORDS + 1]);
    const head = Number(rows[0]?.head ?? 0);
    const unreadCount = rows[0]?.unreadCount ?? 0;
    if (checkAfter && after > head) throw unknownPosition('after');
    const found = rows.filter((row) => row.uuid !== null && row.uuid !== undefined) as NotificationRow[];
    if (!found.length) return { notifications: [], position: head, unreadCount, head };

    const complete = found.length <= DELTA_MAX_RECORDS;
    const groups: NotificationRow[][] = [];
    for (const row of found) {
      const g = groups[groups.length - 1];
      if (g && g[0].position === row.position) g.push(row);
      else groups.push([row]);
    }
    // The last group of a cut read may continue beyond it.
    if (!complete) groups.pop();
    if (!groups.length) {
      const n = Number(found[0].position);
      const whole = await preparedQuery<NotificationRow>(this.db.manager, POSITION_ROWS_STATEMENT, [...recipientParams(r), n]);
      return { notifications: whole.map(toNotificationRecord), position: n, unreadCount, head };
    }
    const out: NotificationRecord[] = [];
    let bytes = 0;
    let position = after;
    let taken = 0;
    for (const g of groups) {
      const records = g.map(toNotificationRecord);
      const size = records.reduce((sum, rec) => sum + Buffer.byteLength(JSON.stringify(rec)), 0);
      if (out.length && (out.length + records.length > DELTA_MAX_RECORDS || bytes + size > DELTA_MAX_BYTES)) break;
      out.push(...records);
      bytes += size;
      position = Number(g[0].position);
      taken += 1;
    }
    return { notifications: out, position: complete && taken === groups.length ? head : position, unreadCount, head };
  }

  /** POST read-all: `{count}` of notifications it changed; archived and snoozed ones are left alone. */
  async readAll(actor: Actor, body: unknown): Promise<{ count: number }> {
    const { projectUuid, upTo } = parseReadAllBody(body);
    return { count: await this.markAllRead(actor, projectUuid, upTo) };
  }

  read(actor: Actor, uuid: string): Promise<NotificationRecord> {
    return this.stamp(actor, uuid, 'read_at = now()', 'read_at IS NULL', []);
  }

  /** Sets `archivedAt`; `readAt` untouched. Archived notifications are no longer listed nor counted. */
  archive(actor: Actor, uuid: string): Promise<NotificationRecord> {
    return this.stamp(actor, uuid, 'archived_at = now()', 'archived_at IS NULL', []);
  }

  /** Clears `archivedAt` (idempotent). */
  unarchive(actor: Actor, uuid: string): Promise<NotificationRecord> {
    return this.stamp(actor, uuid, 'archived_at = NULL', 'archived_at IS NOT NULL', []);
  }

  /**
   * Hides a notification until `until` (3 minutes to a year ahead), when the waker brings it back unread with a
   * `new_notification` frame. Snoozing again to the same time changes nothing.
   */
  snooze(actor: Actor, uuid: string, until: Date): Promise<NotificationRecord> {
    return this.stamp(actor, uuid, 'snoozed_until = $6', 'snoozed_until IS DISTINCT FROM $6', [until]);
  }

  /** PATCH …/snooze: the body checked against the current time first. */
  snoozeFromBody(actor: Actor, uuid: string, body: unknown): Promise<NotificationRecord> {
    return this.snooze(actor, uuid, parseSnoozeBody(body, Date.now()));
  }

  /**
   * Wakes the given notifications of one recipient whose snooze is due: `snoozedUntil` and `readAt` cleared, a new
   * arrival position, one `new_notification` frame copied from the newest of them. Rows another instance woke first
   * no longer match, so each wake-up happens (and is announced) exactly once. Returns how many woke.
   */
  async wake(r: Recipient, uuids: readonly string[]): Promise<number> {
    const { result } = await this.write(r, async (em, n) => {
      const rows: NotificationRow[] = await em.query(
        `WITH changed AS (UPDATE notification SET snoozed_until = NULL, read_at = NULL, position = $5, arrival_position = $5, updated_at = now()
                           WHERE ${RECIPIENT_SQL} AND uuid = ANY($4::uuid[]) AND snoozed_until <= now() RETURNING *)
         SELECT ${NOTIFICATION_COLUMNS} FROM changed ORDER BY created_at DESC, uuid`,
        [...recipientParams(r), uuids, n],
      );
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

  async getPreferences(actor: Actor): Promise<NotificationPreferences> {
    const r = recipientOf(actor);
    const existing = await this.findPreferences(r);
    if (existing) return existing;
    // Created lazily; a concurrent first read may win the insert, then we read its row.
    await this.db.query(
      `INSERT INTO notification_preference (uuid, company_uuid, owner_type, owner_uuid) VALUES ($1, $2, $3, $4)
       ON CONFLICT (owner_type, owner_uuid) DO NOTHING`,
      [randomUUID(), r.companyUuid, r.type, r.uuid],
    );
    return (await this.findPreferences(r))!;
  }

  /** Updates any subset of the twelve booleans; an invalid body saves nothing. `{}` changes nothing. */
  async updatePreferences(actor: Actor, body: unknown): Promise<NotificationPreferences> {
    const patch = parsePreferencesPatch(body);
    const fields = Object.keys(patch) as PreferenceField[];
    if (!fields.length) return this.getPreferences(actor);
    const r = recipientOf(actor);
    const cols = fields.map((f) => PREFERENCE_COLUMNS[f]);
    const rows: NotificationPreferences[] = await this.db.query(
      `INSERT INTO notification_preference (uuid, company_uuid, owner_type, owner_uuid, ${cols.join(', ')})
       VALUES ($1, $2, $3, $4, ${cols.map((_, i) => `$${i + 5}`).join(', ')})
       ON CONFLICT (owner_type, owner_uuid) DO UPDATE SET ${cols.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}, updated_at = now()
       RETURNING ${PREFERENCE_SELECT}`,
      [randomUUID(), r.companyUuid, r.type, r.uuid, ...fields.map((f) => patch[f])],
    );
    return rows[0];
  }

  /**
   * `svc_get_notifications`: with `after`, a delta (as the REST form); else a page — by `cursor` (keyset) or by
   * `page`. Page rows are returned as fetched; with `status` unread and `autoMarkRead`, the returned rows are then
   * marked read and `unreadCount` is counted after that.
   */
  async getForAgent(actor: Actor, input: AgentListInput, signal?: AbortSignal): Promise<AgentInboxAnswer> {
    const delta = parseAgentDelta(input);
    if (delta) {
      const d = await this.delta(actor, delta, signal);
      return { ...d, pollAfterSeconds: this.pollAfterSeconds(delta.waitSeconds !== null) };
    }
    const p = paging(input);
    const f = parseAgentListInput(input);
    const r = recipientOf(actor);
    const params = recipientParams(r);
    let where = `${RECIPIENT_SQL} AND ${LISTED_SQL}`;
    if (f.status === 'unread') where += ' AND read_at IS NULL';
    if (f.status === 'read') where += ' AND read_at IS NOT NULL';
    if (f.projectUuid) where += ` AND project_uuid = $${params.push(f.projectUuid)}`;
    let rows: NotificationRow[];
    let tail: Pick<AgentInboxAnswer, 'page' | 'pageSize' | 'total' | 'nextCursor'>;
    if (f.cursor !== null) {
      const keyset = f.cursor === 'top' ? where : where + afterCursorSql(f.cursor, params);
      const read: NotificationRow[] = await this.db.query(`SELECT ${LIST_COLUMNS} FROM notification WHERE ${keyset} ORDER BY created_at DESC, uuid LIMIT ${p.pageSize + 1}`, params);
      const { nextCursor } = this.keysetPage(read, p.pageSize);
      rows = read.slice(0, p.pageSize);
      tail = { pageSize: p.pageSize, nextCursor };
    } else {
      const [read, totals]: [NotificationRow[], Array<{ n: number }>] = await Promise.all([
        this.db.query(`SELECT ${NOTIFICATION_COLUMNS} FROM notification WHERE ${where} ORDER BY created_at DESC, uuid LIMIT ${p.pageSize} OFFSET ${offsetOf(p)}`, params),
        this.db.query(`SELECT count(*)::int AS n FROM notification WHERE ${where}`, params),
      ]);
      rows = read;
      tail = { page: p.page, pageSize: p.pageSize, total: totals[0].n };
    }
    const marking = f.status === 'unread' && f.autoMarkRead && rows.length > 0;
    const unreadCount = marking
      ? (await this.write(r, async (em, n) => ({ result: null, changed: await this.markRowsRead(em, r, rows.map((row) => row.uuid), n) }))).unreadCount
      : await countUnread(this.db.manager, r);
    return { notifications: rows.map(toNotificationRecord), ...tail, unreadCount, pollAfterSeconds: this.pollAfterSeconds(false) };
  }

  /** `svc_mark_notification_read`: one notification, or all of them (optionally one project's, up to a position). */
  async markRead(actor: Actor, input: MarkReadInput): Promise<{ notification: NotificationRecord } | { count: number }> {
    const parsed = parseMarkReadInput(input);
    if ('notificationUuid' in parsed) return { notification: await this.read(actor, parsed.notificationUuid) };
    return { count: await this.markAllRead(actor, parsed.projectUuid, parsed.upTo) };
  }

  /** `svc_snooze_notification`. */
  snoozeForAgent(actor: Actor, input: { notificationUuid: string; until: string }): Promise<NotificationRecord> {
    return this.snooze(actor, input.notificationUuid, parseSnoozeUntil(input.until, Date.now()));
  }

  /** `svc_checkin`'s `notifications`: the 5 newest unread, then marked read; `unread` counted after that. */
  async checkinSummary(actor: Actor): Promise<{ unread: number; recent: CheckinNotification[] }> {
    const r = recipientOf(actor);
    const rows: NotificationRow[] = await this.db.query(
      `SELECT ${NOTIFICATION_COLUMNS} FROM notification WHERE ${RECIPIENT_SQL} AND read_at IS NULL AND ${LISTED_SQL}
       ORDER BY created_at DESC, uuid LIMIT ${CHECKIN_RECENT}`,
      recipientParams(r),
    );
    const unread = rows.length
      ? (await this.write(r, async (em, n) => ({ result: null, changed: await this.markRowsRead(em, r, rows.map((row) => row.uuid), n) }))).unreadCount
      : await countUnread(this.db.manager, r);
    return { unread, recent: rows.map(toCheckinNotification) };
  }

  /**
   * Read-all: every unread notification (optionally of one project, and with `upTo` only those that arrived or woke
   * at or before that position — later arrivals stay unread). An `upTo` of another log or ahead of the caller's head
   * is VALIDATION_ERROR on `upTo`.
   */
  private async markAllRead(actor: Actor, projectUuid: string | null, upTo: PositionInput | null): Promise<number> {
    const r = recipientOf(actor);
    if (upTo && upTo.epoch !== (await this.log.epoch())) throw unknownPosition('upTo');
    const params = recipientParams(r);
    let where = `${RECIPIENT_SQL} AND read_at IS NULL AND ${LISTED_SQL}`;
    if (projectUuid) where += ` AND project_uuid = $${params.push(projectUuid)}`;
    if (upTo) where += ` AND arrival_position <= $${params.push(upTo.n)}`;
    const { result } = await this.write(r, async (em, n) => {
      // The reserved position is the head plus one: anything at or above it is not a position handed out yet.
      if (upTo && upTo.n >= n) throw unknownPosition('upTo');
      const rows: Array<{ n: number }> = await em.query(
        `WITH changed AS (UPDATE notification SET read_at = now(), position = $${params.length + 1}, updated_at = now() WHERE ${where} RETURNING 1)
         SELECT count(*)::int AS n FROM changed`,
        [...params, n],
      );
      return { result: rows[0].n, changed: rows[0].n };
    });
    return result;
  }

  /** Marks the given unread rows of the recipient read at position `n`; returns how many changed. */
  private async markRowsRead(em: EntityManager, r: Recipient, uuids: string[], n: number): Promise<number> {
    const rows: Array<{ n: number }> = await em.query(
      `WITH changed AS (UPDATE notification SET read_at = now(), position = $5, updated_at = now()
                         WHERE ${RECIPIENT_SQL} AND uuid = ANY($4::uuid[]) AND read_at IS NULL RETURNING 1)
       SELECT count(*)::int AS n FROM changed`,
      [...recipientParams(r), uuids, n],
    );
    return rows[0].n;
  }

  /**
   * One notification's change (`set` where `unless` holds — so a repeat is a no-op): idempotent, the row stamped with
   * the write's position; foreign or missing is NOT_FOUND. `extra` are `$6…`.
   */
  private async stamp(actor: Actor, uuid: string, set: string, unless: string, extra: unknown[]): Promise<NotificationRecord> {
    if (typeof uuid !== 'string' || !CANONICAL_UUID.test(uuid)) throw new NotFoundError('Notification');
    const r = recipientOf(actor);
    const params = [...recipientParams(r), uuid.toLowerCase()];
    const { result: updated } = await this.write(r, async (em, n) => {
      const rows: NotificationRow[] = await em.query(
        // Wrapped in a CTE so the driver hands back plain rows (a bare UPDATE answers [rows, count]).
        `WITH changed AS (UPDATE notification SET ${set}, position = $5, updated_at = now()
                           WHERE ${RECIPIENT_SQL} AND uuid = $4 AND ${unless} RETURNING *)
         SELECT ${NOTIFICATION_COLUMNS} FROM changed`,
        [...params, n, ...extra],
      );
      return { result: rows, changed: rows.length };
    });
    if (updated.length) return toNotificationRecord(updated[0]);
    const rows: NotificationRow[] = await this.db.query(`SELECT ${NOTIFICATION_COLUMNS} FROM notification WHERE ${RECIPIENT_SQL} AND uuid = $4`, params);
    if (!rows.length) throw new NotFoundError('Notification');
    return toNotificationRecord(rows[0]);
  }

  private async findPreferences(r: Recipient): Promise<NotificationPreferences | null> {
    const rows: NotificationPreferences[] = await this.db.query(
      `SELECT ${PREFERENCE_SELECT} FROM notification_preference WHERE owner_type = $1 AND owner_uuid = $2 AND company_uuid = $3`,
      recipientParams(r),
    );
    return rows[0] ?? null;
  }
}
