import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { Actor } from '../../shared/auth/actor.js';
import { preparedQuery } from '../../shared/database/prepared.js';
import type { Ref } from './domain/notification.rules.js';
import type { AgentStatusFilter } from './dto/notification.dto.js';
import type { Cursor } from './inbox-inputs.js';
import { NotificationEntity } from './notification.entity.js';
import type { NotificationRow } from './notification.records.js';

/** Whose inbox a query reads: the authenticated caller, always inside its company. */
export interface Recipient extends Ref {
  companyUuid: string;
}

export const recipientOf = (actor: Actor): Recipient => ({ type: actor.type, uuid: actor.uuid, companyUuid: actor.companyUuid });

/** A page of the REST list (docs/notifications.md §2.1, §2.0): offset paging, or keyset paging when `cursor` is set. */
export interface ListQuery {
  limit: number;
  offset: number;
  unreadOnly: boolean;
  projectUuid: string | null;
  cursor: Cursor | null;
}

/** The filters of `svc_get_notifications` (docs/notifications.md §7). */
export interface AgentFilter {
  status: AgentStatusFilter;
  projectUuid: string | null;
}

/**
 * A recipient's inbox row: version and unread count, kept exact by triggers in the transaction of every write to its
 * notifications (migration 1763795500000), so shared by all instances; with the recipient's stream position, read in
 * the same statement (so the same snapshot: every write that changes the count takes a position in its transaction).
 */
export interface InboxState {
  /** '0' before the first notification. */
  version: string;
  /** The global unread count (docs/notifications.md §1). */
  unreadCount: number;
  /** The recipient's stream position at which the count was read (counter only; 0 before any frame). */
  position: number;
}

/** A delta read: the recipient's head and unread count beside each row (one row of nulls beside them when none). */
export type DeltaRow = Partial<NotificationRow> & { head: string | null; unreadCount: number | null };

/** One notification's change (docs/notifications.md §2, §2.0): a repeat matches no row, so it changes nothing. */
export type Stamp = 'read' | 'archive' | 'unarchive' | { snoozeUntil: Date };

/** Selected with these aliases, a raw row maps 1:1 onto the record. */
const NOTIFICATION_COLUMNS = `uuid, project_uuid AS "projectUuid", project_name AS "projectName",
  recipient_type AS "recipientType", recipient_uuid AS "recipientUuid", entity_type AS "entityType",
  entity_uuid AS "entityUuid", entity_title AS "entityTitle", action, message, actor_type AS "actorType",
  actor_uuid AS "actorUuid", actor_name AS "actorName", read_at AS "readAt", archived_at AS "archivedAt",
  snoozed_until AS "snoozedUntil", created_at AS "createdAt"`;

/** The list columns plus the row's keyset key (`created_at` in microseconds, exact) for `nextCursor`. */
const LIST_COLUMNS = `${NOTIFICATION_COLUMNS}, (extract(epoch FROM created_at) * 1000000)::bigint::text AS "cursorKey"`;

/** `$1..$3` of every inbox query; the partial indexes lead with exactly these columns. */
const RECIPIENT_SQL = 'recipient_type = $1 AND recipient_uuid = $2 AND company_uuid = $3';
const recipientParams = (r: Recipient): unknown[] => [r.type, r.uuid, r.companyUuid];

/** The listable rows (docs/notifications.md §1): not archived, not snoozed — exactly the predicate of the inbox indexes. */
const LISTED_SQL = 'archived_at IS NULL AND snoozed_until IS NULL';

/** Keyset condition after a cursor (§2.0) on the lists' order `created_at DESC, uuid` (both parameters appended). */
function afterCursorSql(cursor: Exclude<Cursor, 'top'>, params: unknown[]): string {
  const at = `(timestamptz 'epoch' + $${params.push(cursor.micros)}::bigint * interval '1 microsecond')`;
  return ` AND created_at <= ${at} AND (created_at < ${at} OR uuid > $${params.push(cursor.uuid)}::uuid)`;
}

/**
 * The REST list (docs/notifications.md §2): newest first, straight off one of the inbox indexes, no sort step. In cursor
 * mode (§2.0) it starts after the cursor and reads one row more than the page, to know whether another page follows.
 * One prepared statement per shape: the name follows the filters and mode, the text only depends on them.
 */
export function listStatement(r: Recipient, q: ListQuery): { name: string; text: string; params: unknown[] } {
  const keyset = q.cursor !== null;
  const params = [...recipientParams(r), keyset ? q.limit + 1 : q.limit];
  let where = `${RECIPIENT_SQL} AND ${LISTED_SQL}`;
  if (q.unreadOnly) where += ' AND read_at IS NULL';
  if (q.projectUuid) where += ` AND project_uuid = $${params.push(q.projectUuid)}`;
  if (q.cursor && q.cursor !== 'top') where += afterCursorSql(q.cursor, params);
  const paging = keyset ? 'LIMIT $4' : `LIMIT $4 OFFSET $${params.push(q.offset)}`;
  const name = `svc_notification_list2_${q.unreadOnly ? 'u' : 'a'}${q.projectUuid ? 'p' : ''}${keyset ? (q.cursor === 'top' ? 't' : 'c') : ''}`;
  return { name, text: `SELECT ${LIST_COLUMNS} FROM notification WHERE ${where} ORDER BY created_at DESC, uuid ${paging}`, params };
}

/** The inbox row and the stream head: two primary-key lookups, always one row. Prepared (every list, count and 304). */
export const INBOX_STATEMENT = {
  name: 'svc_notification_inbox_v2',
  text: `SELECT i.version::text AS version, i.unread_count AS "unreadCount", h.position::text AS position
  FROM (SELECT $1::text AS t, $2::uuid AS u) AS k
  LEFT JOIN notification_inbox i ON i.recipient_type = k.t AND i.recipient_uuid = k.u
  LEFT JOIN stream_head h ON h.stream = 'n' AND h.key = k.t || ':' || k.u::text`,
};

/**
 * A delta (docs/notifications.md §2.0) in one statement, so one snapshot: the recipient's head and unread count, and the
 * rows changed after `$5`, oldest position first (`notification_delta_idx`; ordered by the column, not the text alias), at most `$6`. Without rows the answer is
 * one row of nulls beside the head. `$4` is the recipient's stream key.
 */
export const DELTA_STATEMENT = {
  name: 'svc_notification_delta_v2',
  text: `SELECT s.head::text AS head, s.unread AS "unreadCount", r.*
  FROM (SELECT (SELECT position FROM stream_head WHERE stream = 'n' AND key = $4) AS head,
               (SELECT unread_count FROM notification_inbox WHERE recipient_type = $1 AND recipient_uuid = $2) AS unread) AS s
  LEFT JOIN LATERAL (SELECT ${NOTIFICATION_COLUMNS}, position::text AS position FROM notification
                      WHERE ${RECIPIENT_SQL} AND position > $5 ORDER BY notification.position, created_at, uuid LIMIT $6) AS r ON true`,
};

/** The rows of one position (a batch or bulk change bigger than a delta's bounds is answered whole). */
const POSITION_ROWS_STATEMENT = {
  name: 'svc_notification_position_rows_v1',
  text: `SELECT ${NOTIFICATION_COLUMNS}, position::text AS position FROM notification
  WHERE ${RECIPIENT_SQL} AND position = $4 ORDER BY created_at, uuid`,
};

/** What each stamp sets, and the condition under which it changes the row (`$6` is the stamp's value). */
const STAMPS: Record<'read' | 'archive' | 'unarchive' | 'snooze', { set: string; when: string }> = {
  read: { set: 'read_at = now()', when: 'read_at IS NULL' },
  archive: { set: 'archived_at = now()', when: 'archived_at IS NULL' },
  unarchive: { set: 'archived_at = NULL', when: 'archived_at IS NOT NULL' },
  snooze: { set: 'snoozed_until = $6', when: 'snoozed_until IS DISTINCT FROM $6' },
};

/** The agent list's condition (`svc_get_notifications`), its parameters appended to `params`. */
function agentWhere(f: AgentFilter, params: unknown[]): string {
  let where = `${RECIPIENT_SQL} AND ${LISTED_SQL}`;
  if (f.status === 'unread') where += ' AND read_at IS NULL';
  if (f.status === 'read') where += ' AND read_at IS NOT NULL';
  if (f.projectUuid) where += ` AND project_uuid = $${params.push(f.projectUuid)}`;
  return where;
}

/**
 * The notification inbox's SQL (docs/notifications.md §1, §2): reads of a recipient's rows — always inside its company —
 * and the writes of the inbox, which run in the caller's transaction and stamp the rows they change with the
 * recipient's position `n` taken first in that transaction (notification-frames.ts). Writes wrap their UPDATE in a
 * CTE so the driver hands back plain rows (a bare UPDATE answers [rows, count]).
 */
@Injectable()
export class NotificationRepository {
  constructor(private readonly db: DataSource) {}

  /** The inbox row and the stream head (outside a transaction: a prepared statement on the pool). */
  async state(r: Ref): Promise<InboxState> {
    const [row] = await preparedQuery<{ version: string | null; unreadCount: number | null; position: string | null }>(this.db.manager, INBOX_STATEMENT, [r.type, r.uuid]);
    return { version: row.version ?? '0', unreadCount: row.unreadCount ?? 0, position: Number(row.position ?? 0) };
  }

  /** The global unread count; inside a write with its manager (the count the write leaves). */
  async unreadCount(r: Ref, em: EntityManager = this.db.manager): Promise<number> {
    const [row] = await preparedQuery<{ unreadCount: number | null }>(em, INBOX_STATEMENT, [r.type, r.uuid]);
    return row.unreadCount ?? 0;
  }

  /** One page of the REST list, newest first (one row more than `limit` in cursor mode). */
  page(r: Recipient, q: ListQuery): Promise<NotificationRow[]> {
    const { name, text, params } = listStatement(r, q);
    return preparedQuery<NotificationRow>(this.db.manager, { name, text }, params);
  }

  /** `svc_get_notifications` by page: the rows and how many match in all. */
  async agentPage(r: Recipient, f: AgentFilter, pageSize: number, offset: number): Promise<{ rows: NotificationRow[]; total: number }> {
    const params = recipientParams(r);
    const where = agentWhere(f, params);
    const [rows, totals]: [NotificationRow[], Array<{ n: number }>] = await Promise.all([
      this.db.query(`SELECT ${NOTIFICATION_COLUMNS} FROM notification WHERE ${where} ORDER BY created_at DESC, uuid LIMIT $${params.length + 1} OFFSET $${params.length + 2}`, [
        ...params,
        pageSize,
        offset,
      ]),
      this.db.query(`SELECT count(*)::int AS n FROM notification WHERE ${where}`, params),
    ]);
    return { rows, total: totals[0].n };
  }

  /** `svc_get_notifications` by cursor: up to `limit` rows after it (with their keyset keys). */
  agentKeysetPage(r: Recipient, f: AgentFilter, cursor: Cursor, limit: number): Promise<NotificationRow[]> {
    const params = recipientParams(r);
    let where = agentWhere(f, params);
    if (cursor !== 'top') where += afterCursorSql(cursor, params);
    return this.db.query(`SELECT ${LIST_COLUMNS} FROM notification WHERE ${where} ORDER BY created_at DESC, uuid LIMIT $${params.length + 1}`, [...params, limit]);
  }

  /** The `limit` newest unread, listable notifications (`svc_checkin`'s summary). */
  newestUnread(r: Recipient, limit: number): Promise<NotificationRow[]> {
    return this.db.query(
      `SELECT ${NOTIFICATION_COLUMNS} FROM notification WHERE ${RECIPIENT_SQL} AND read_at IS NULL AND ${LISTED_SQL}
       ORDER BY created_at DESC, uuid LIMIT $4`,
      [...recipientParams(r), limit],
    );
  }

  /** The recipient's rows changed after position `after`, oldest first, at most `limit`, beside its head and count. */
  delta(r: Recipient, key: string, after: number, limit: number): Promise<DeltaRow[]> {
    return preparedQuery<DeltaRow>(this.db.manager, DELTA_STATEMENT, [...recipientParams(r), key, after, limit]);
  }

  /** Every row of the recipient stamped with position `n`. */
  rowsAt(r: Recipient, n: number): Promise<NotificationRow[]> {
    return preparedQuery<NotificationRow>(this.db.manager, POSITION_ROWS_STATEMENT, [...recipientParams(r), n]);
  }

  /** One of the recipient's notifications, or null (missing, or someone else's). */
  async find(r: Recipient, uuid: string): Promise<NotificationRow | null> {
    const rows: NotificationRow[] = await this.db.query(`SELECT ${NOTIFICATION_COLUMNS} FROM notification WHERE ${RECIPIENT_SQL} AND uuid = $4`, [...recipientParams(r), uuid]);
    return rows[0] ?? null;
  }

  /** Applies `stamp` to one of the recipient's notifications at position `n`; the changed row, or none. */
  stamp(em: EntityManager, r: Recipient, uuid: string, stamp: Stamp, n: number): Promise<NotificationRow[]> {
    const { set, when } = typeof stamp === 'string' ? STAMPS[stamp] : STAMPS.snooze;
    const extra = typeof stamp === 'string' ? [] : [stamp.snoozeUntil];
    return em.query(
      `WITH changed AS (UPDATE notification SET ${set}, position = $5, updated_at = now()
                         WHERE ${RECIPIENT_SQL} AND uuid = $4 AND ${when} RETURNING *)
       SELECT ${NOTIFICATION_COLUMNS} FROM changed`,
      [...recipientParams(r), uuid, n, ...extra],
    );
  }

  /** Marks the given unread rows of the recipient read at position `n`; how many changed. */
  async markRead(em: EntityManager, r: Recipient, uuids: readonly string[], n: number): Promise<number> {
    const [row]: Array<{ n: number }> = await em.query(
      `WITH changed AS (UPDATE notification SET read_at = now(), position = $5, updated_at = now()
                         WHERE ${RECIPIENT_SQL} AND uuid = ANY($4::uuid[]) AND read_at IS NULL RETURNING 1)
       SELECT count(*)::int AS n FROM changed`,
      [...recipientParams(r), uuids, n],
    );
    return row.n;
  }

  /**
   * Read-all at position `n`: every unread, listable notification (optionally of one project, and with `upTo` only
   * those that arrived or woke at or before that position); how many changed.
   */
  async markAllRead(em: EntityManager, r: Recipient, scope: { projectUuid: string | null; upTo: number | null }, n: number): Promise<number> {
    const params = recipientParams(r);
    let where = `${RECIPIENT_SQL} AND read_at IS NULL AND ${LISTED_SQL}`;
    if (scope.projectUuid) where += ` AND project_uuid = $${params.push(scope.projectUuid)}`;
    if (scope.upTo !== null) where += ` AND arrival_position <= $${params.push(scope.upTo)}`;
    const [row]: Array<{ n: number }> = await em.query(
      `WITH changed AS (UPDATE notification SET read_at = now(), position = $${params.length + 1}, updated_at = now() WHERE ${where} RETURNING 1)
       SELECT count(*)::int AS n FROM changed`,
      [...params, n],
    );
    return row.n;
  }

  /**
   * Wakes the given notifications of the recipient whose snooze is due, at position `n` (a new arrival): the woken
   * rows, newest first. Rows another instance woke first no longer match.
   */
  wake(em: EntityManager, r: Recipient, uuids: readonly string[], n: number): Promise<NotificationRow[]> {
    return em.query(
      `WITH changed AS (UPDATE notification SET snoozed_until = NULL, read_at = NULL, position = $5, arrival_position = $5, updated_at = now()
                         WHERE ${RECIPIENT_SQL} AND uuid = ANY($4::uuid[]) AND snoozed_until <= now() RETURNING *)
       SELECT ${NOTIFICATION_COLUMNS} FROM changed ORDER BY created_at DESC, uuid`,
      [...recipientParams(r), uuids, n],
    );
  }

  /** The earliest time any notification is snoozed until, of every recipient, or null. */
  async nextSnoozeDue(): Promise<Date | null> {
    const [row]: Array<{ due: Date | null }> = await this.db.query(`SELECT min(snoozed_until) AS due FROM notification WHERE snoozed_until IS NOT NULL`);
    return row?.due ?? null;
  }

  /** Up to `limit` notifications whose snooze is due, earliest first, grouped by recipient. */
  async dueSnoozes(limit: number): Promise<Array<{ recipient: Recipient; uuids: string[] }>> {
    const rows: Array<{ type: 'user' | 'agent'; uuid: string; company: string; uuids: string[] }> = await this.db.query(
      `SELECT recipient_type AS type, recipient_uuid AS uuid, company_uuid AS company, array_agg(n.uuid::text) AS uuids
         FROM (SELECT uuid, recipient_type, recipient_uuid, company_uuid FROM notification
                WHERE snoozed_until <= now() ORDER BY snoozed_until LIMIT $1) AS n
        GROUP BY 1, 2, 3`,
      [limit],
    );
    return rows.map((d) => ({ recipient: { type: d.type, uuid: d.uuid, companyUuid: d.company }, uuids: d.uuids }));
  }
}

/** Unread counts of several recipients in one query; recipients without an inbox row get 0 (the generator's frames). */
/** Inserts one batch of generated notifications (one statement), in the generation's transaction. */
export async function insertNotifications(em: EntityManager, rows: Array<Partial<NotificationEntity>>): Promise<void> {
  await em.createQueryBuilder().insert().into(NotificationEntity).values(rows).execute();
}

export async function countUnreadMany(em: EntityManager, refs: readonly Ref[]): Promise<Map<string, number>> {
  const out = new Map<string, number>(refs.map((r) => [`${r.type}:${r.uuid}`, 0]));
  if (!refs.length) return out;
  const rows: Array<{ type: string; uuid: string; n: number }> = await em.query(
    `SELECT i.recipient_type AS type, i.recipient_uuid AS uuid, i.unread_count AS n
       FROM unnest($1::text[], $2::uuid[]) AS r(type, uuid)
       JOIN notification_inbox i ON i.recipient_type = r.type AND i.recipient_uuid = r.uuid`,
    [refs.map((r) => r.type), refs.map((r) => r.uuid)],
  );
  for (const row of rows) out.set(`${row.type}:${row.uuid}`, row.n);
  return out;
}
