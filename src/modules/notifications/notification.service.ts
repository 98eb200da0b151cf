import { createHash, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { Actor } from '../../shared/auth/actor.js';
import { NotFoundError } from '../../shared/errors/app-error.js';
import { EventBus } from '../../shared/event-bus/event-bus.port.js';
import { MetricsService } from '../../shared/metrics/metrics.service.js';
import { preparedQuery } from '../../shared/database/prepared.js';
import { formatPosition } from '../../shared/stream-log/position.js';
import { StreamLog } from '../../shared/stream-log/stream-log.js';
import { offsetOf, paging } from '../../shared/validation/paging.js';
import {
  parseAgentListInput,
  parseListQuery,
  parseMarkReadInput,
  parsePreferencesPatch,
  parseReadAllBody,
  type AgentListInput,
  type ListQuery,
  type MarkReadInput,
} from './domain/notification-request.rules.js';
import { PREFERENCE_FIELDS, type PreferenceField } from './domain/notification.rules.js';
import {
  NOTIFICATION_COLUMNS,
  toCheckinNotification,
  toNotificationRecord,
  type CheckinNotification,
  type NotificationPreferences,
  type NotificationRecord,
  type NotificationRow,
} from './notification.records.js';
import {
  countUnread,
  inboxState,
  listSql,
  logFrames,
  publishFrames,
  RECIPIENT_SQL,
  recipientParams,
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
  ) {}

  /**
   * A write to one recipient's notifications, in one transaction: `work` returns its result and how many rows it
   * changed; when that is at least one, the `count_update` frame (with the count read in the transaction) takes the
   * recipient's next position and is logged there, and is published after commit.
   */
  private async write<T>(r: Recipient, work: (em: EntityManager) => Promise<{ result: T; changed: number }>): Promise<{ result: T; unreadCount: number }> {
    let frames: PositionedFrame[] = [];
    const out = await this.db.transaction(async (em) => {
      const { result, changed } = await work(em);
      const unreadCount = await countUnread(em, r);
      if (changed) frames = await logFrames(this.log, em, [{ to: r, frame: { type: 'count_update', unreadCount } }]);
      return { result, unreadCount };
    });
    publishFrames(this.bus, this.metrics, frames);
    return out;
  }

  /** `X-Stream-Position` of a count or list answer. */
  async position(n: number): Promise<string> {
    return formatPosition(await this.log.epoch(), n);
  }

  async list(actor: Actor, query: unknown): Promise<{ notifications: NotificationRecord[]; unreadCount: number }> {
    const r = recipientOf(actor);
    const [notifications, unreadCount] = await Promise.all([this.page(r, parseListQuery(query)), countUnread(this.db.manager, r)]);
    return { notifications, unreadCount };
  }

  /** One page of a recipient's inbox, newest first, off one of its indexes (a prepared statement per list shape). */
  private async page(r: Recipient, q: ListQuery): Promise<NotificationRecord[]> {
    const { sql, params, name } = listSql(r, q);
    const rows = await preparedQuery<NotificationRow>(this.db.manager, { name, text: sql }, params);
    return rows.map(toNotificationRecord);
  }

  /**
   * The REST list with its entity tag (the conditional GET): the inbox row is read first; the tag and the unread
   * count both come from it, so a match costs that one lookup and a miss adds only the page of rows (read after it:
   * the answer is never labelled with a version newer than what it shows). Validates the query before any read.
   */
  async listTagged(
    actor: Actor,
    query: unknown,
  ): Promise<{ tag: string; position: string; page: () => Promise<{ notifications: NotificationRecord[]; unreadCount: number }> }> {
    const parsed = parseListQuery(query);
    const r = recipientOf(actor);
    const state = await inboxState(this.db.manager, r);
    return {
      tag: this.tag(actor, 'list', state.version, parsed),
      position: await this.position(state.position),
      page: async () => ({ notifications: await this.page(r, parsed), unreadCount: state.unreadCount }),
    };
  }

  unreadCount(actor: Actor): Promise<number> {
    return countUnread(this.db.manager, actor);
  }

  /**
   * Entity tag of a list (with its parsed query), derived from the recipient's inbox version, which every write
   * bumps in its own transaction. Validates the list query first.
   */
  async listTag(actor: Actor, query: unknown): Promise<string> {
    return (await this.listTagged(actor, query)).tag;
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

  /** POST read-all: `{count}` of notifications it changed; archived ones are left alone. */
  async readAll(actor: Actor, body: unknown): Promise<{ count: number }> {
    const { projectUuid } = parseReadAllBody(body);
    return { count: await this.markAllRead(actor, projectUuid) };
  }

  read(actor: Actor, uuid: string): Promise<NotificationRecord> {
    return this.stamp(actor, uuid, 'read_at');
  }

  /** Sets `archivedAt`; `readAt` untouched. Archived notifications are no longer listed nor counted. */
  archive(actor: Actor, uuid: string): Promise<NotificationRecord> {
    return this.stamp(actor, uuid, 'archived_at');
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
   * `svc_get_notifications`: rows are returned as fetched; with `status` unread and `autoMarkRead`, the returned
   * rows are then marked read and `unreadCount` is counted after that.
   */
  async getForAgent(
    actor: Actor,
    input: AgentListInput,
  ): Promise<{ notifications: NotificationRecord[]; page: number; pageSize: number; total: number; unreadCount: number }> {
    const p = paging(input);
    const f = parseAgentListInput(input);
    const r = recipientOf(actor);
    const params = recipientParams(r);
    let where = `${RECIPIENT_SQL} AND archived_at IS NULL`;
    if (f.status === 'unread') where += ' AND read_at IS NULL';
    if (f.status === 'read') where += ' AND read_at IS NOT NULL';
    if (f.projectUuid) where += ` AND project_uuid = $${params.push(f.projectUuid)}`;
    const [rows, totals]: [NotificationRow[], Array<{ n: number }>] = await Promise.all([
      this.db.query(
        `SELECT ${NOTIFICATION_COLUMNS} FROM notification WHERE ${where} ORDER BY created_at DESC, uuid LIMIT ${p.pageSize} OFFSET ${offsetOf(p)}`,
        params,
      ),
      this.db.query(`SELECT count(*)::int AS n FROM notification WHERE ${where}`, params),
    ]);
    const marking = f.status === 'unread' && f.autoMarkRead && rows.length > 0;
    const unreadCount = marking
      ? (await this.write(r, async (em) => ({ result: null, changed: await this.markRowsRead(em, r, rows.map((row) => row.uuid)) }))).unreadCount
      : await countUnread(this.db.manager, r);
    return { notifications: rows.map(toNotificationRecord), page: p.page, pageSize: p.pageSize, total: totals[0].n, unreadCount };
  }

  /** `svc_mark_notification_read`: one notification, or all of them (optionally one project's). */
  async markRead(actor: Actor, input: MarkReadInput): Promise<{ notification: NotificationRecord } | { count: number }> {
    const parsed = parseMarkReadInput(input);
    if ('notificationUuid' in parsed) return { notification: await this.read(actor, parsed.notificationUuid) };
    return { count: await this.markAllRead(actor, parsed.projectUuid) };
  }

  /** `svc_checkin`'s `notifications`: the 5 newest unread, then marked read; `unread` counted after that. */
  async checkinSummary(actor: Actor): Promise<{ unread: number; recent: CheckinNotification[] }> {
    const r = recipientOf(actor);
    const rows: NotificationRow[] = await this.db.query(
      `SELECT ${NOTIFICATION_COLUMNS} FROM notification WHERE ${RECIPIENT_SQL} AND read_at IS NULL AND archived_at IS NULL
       ORDER BY created_at DESC, uuid LIMIT ${CHECKIN_RECENT}`,
      recipientParams(r),
    );
    const unread = rows.length
      ? (await this.write(r, async (em) => ({ result: null, changed: await this.markRowsRead(em, r, rows.map((row) => row.uuid)) }))).unreadCount
      : await countUnread(this.db.manager, r);
    return { unread, recent: rows.map(toCheckinNotification) };
  }

  private async markAllRead(actor: Actor, projectUuid: string | null): Promise<number> {
    const r = recipientOf(actor);
    const params = recipientParams(r);
    let where = `${RECIPIENT_SQL} AND read_at IS NULL AND archived_at IS NULL`;
    if (projectUuid) where += ` AND project_uuid = $${params.push(projectUuid)}`;
    const { result } = await this.write(r, async (em) => {
      const rows: Array<{ n: number }> = await em.query(
        `WITH changed AS (UPDATE notification SET read_at = now(), updated_at = now() WHERE ${where} RETURNING 1)
         SELECT count(*)::int AS n FROM changed`,
        params,
      );
      return { result: rows[0].n, changed: rows[0].n };
    });
    return result;
  }

  /** Marks the given unread rows of the recipient read; returns how many changed. */
  private async markRowsRead(em: EntityManager, r: Recipient, uuids: string[]): Promise<number> {
    const rows: Array<{ n: number }> = await em.query(
      `WITH changed AS (UPDATE notification SET read_at = now(), updated_at = now()
                         WHERE ${RECIPIENT_SQL} AND uuid = ANY($4::uuid[]) AND read_at IS NULL RETURNING 1)
       SELECT count(*)::int AS n FROM changed`,
      [...recipientParams(r), uuids],
    );
    return rows[0].n;
  }

  /** Read or archive one notification: idempotent (the first timestamp stays); foreign or missing is NOT_FOUND. */
  private async stamp(actor: Actor, uuid: string, column: 'read_at' | 'archived_at'): Promise<NotificationRecord> {
    if (typeof uuid !== 'string' || !CANONICAL_UUID.test(uuid)) throw new NotFoundError('Notification');
    const r = recipientOf(actor);
    const params = [...recipientParams(r), uuid.toLowerCase()];
    const { result: updated } = await this.write(r, async (em) => {
      const rows: NotificationRow[] = await em.query(
        // Wrapped in a CTE so the driver hands back plain rows (a bare UPDATE answers [rows, count]).
        `WITH changed AS (UPDATE notification SET ${column} = now(), updated_at = now()
                           WHERE ${RECIPIENT_SQL} AND uuid = $4 AND ${column} IS NULL RETURNING *)
         SELECT ${NOTIFICATION_COLUMNS} FROM changed`,
        params,
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
