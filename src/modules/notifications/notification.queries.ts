import type { EntityManager } from 'typeorm';
import { preparedQuery } from '../../shared/database/prepared.js';
import type { EventBus } from '../../shared/event-bus/event-bus.port.js';
import type { NotificationFrame } from '../../shared/event-bus/events.js';
import type { MetricsService } from '../../shared/metrics/metrics.service.js';
import { recipientKey } from '../../shared/stream-log/position.js';
import type { StreamLog } from '../../shared/stream-log/stream-log.js';
import type { Cursor, ListQuery } from './domain/notification-request.rules.js';
import type { Ref } from './domain/notification.rules.js';
import { LIST_COLUMNS, NOTIFICATION_COLUMNS } from './notification.records.js';

/** Whose inbox a query reads: the authenticated caller, always inside its company. */
export interface Recipient extends Ref {
  companyUuid: string;
}

/** `$1..$3` of every inbox query; the partial indexes lead with exactly these columns. */
export const RECIPIENT_SQL = 'recipient_type = $1 AND recipient_uuid = $2 AND company_uuid = $3';
export const recipientParams = (r: Recipient): unknown[] => [r.type, r.uuid, r.companyUuid];

/**
 * The listable rows (notifications.md §1): not archived, not snoozed — exactly the predicate of the inbox indexes.
 */
export const LISTED_SQL = 'archived_at IS NULL AND snoozed_until IS NULL';

/** Keyset condition after a cursor (§2.0) on the lists' order `created_at DESC, uuid` (both parameters appended). */
export function afterCursorSql(cursor: Exclude<Cursor, 'top'>, params: unknown[]): string {
  const at = `(timestamptz 'epoch' + $${params.push(cursor.micros)}::bigint * interval '1 microsecond')`;
  return ` AND created_at <= ${at} AND (created_at < ${at} OR uuid > $${params.push(cursor.uuid)}::uuid)`;
}

/**
 * The REST list (notifications.md §2): newest first, straight off one of the inbox indexes, no sort step. In cursor
 * mode (§2.0) it starts after the cursor and reads one row more than the page, to know whether another page follows.
 */
export function listSql(r: Recipient, q: ListQuery): { sql: string; params: unknown[]; name: string } {
  const keyset = q.cursor !== null;
  const params = [...recipientParams(r), keyset ? q.limit + 1 : q.limit];
  let where = `${RECIPIENT_SQL} AND ${LISTED_SQL}`;
  if (q.unreadOnly) where += ' AND read_at IS NULL';
  if (q.projectUuid) where += ` AND project_uuid = $${params.push(q.projectUuid)}`;
  if (q.cursor && q.cursor !== 'top') where += afterCursorSql(q.cursor, params);
  const paging = keyset ? 'LIMIT $4' : `LIMIT $4 OFFSET $${params.push(q.offset)}`;
  // One prepared statement per shape: the name follows the filters and mode, the text only depends on them.
  const name = `svc_notification_list2_${q.unreadOnly ? 'u' : 'a'}${q.projectUuid ? 'p' : ''}${keyset ? (q.cursor === 'top' ? 't' : 'c') : ''}`;
  return { sql: `SELECT ${LIST_COLUMNS} FROM notification WHERE ${where} ORDER BY created_at DESC, uuid ${paging}`, params, name };
}

/**
 * A recipient's inbox row: version and unread count, kept exact by triggers in the transaction of every write to its
 * notifications (migration 1763795500000), so shared by all instances; with the recipient's stream position, read in
 * the same statement (so the same snapshot: every write that changes the count takes a position in its transaction).
 * Two primary-key lookups, always one row.
 */
export const INBOX_SQL = `SELECT i.version::text AS version, i.unread_count AS "unreadCount", h.position::text AS position
  FROM (SELECT $1::text AS t, $2::uuid AS u) AS k
  LEFT JOIN notification_inbox i ON i.recipient_type = k.t AND i.recipient_uuid = k.u
  LEFT JOIN stream_head h ON h.stream = 'n' AND h.key = k.t || ':' || k.u::text`;

export interface InboxState {
  /** '0' before the first notification. */
  version: string;
  /** The global unread count (notifications.md §1). */
  unreadCount: number;
  /** The recipient's stream position at which the count was read (counter only; 0 before any frame). */
  position: number;
}

const INBOX_STATEMENT = { name: 'svc_notification_inbox_v2', text: INBOX_SQL };

/** Prepared outside a transaction (it runs on every list, count and conditional GET). */
export async function inboxState(em: EntityManager, r: Ref): Promise<InboxState> {
  const [row] = await preparedQuery<{ version: string | null; unreadCount: number | null; position: string | null }>(em, INBOX_STATEMENT, [r.type, r.uuid]);
  return { version: row.version ?? '0', unreadCount: row.unreadCount ?? 0, position: Number(row.position ?? 0) };
}

export async function countUnread(em: EntityManager, r: Ref): Promise<number> {
  return (await inboxState(em, r)).unreadCount;
}

/** Unread counts of several recipients in one query; recipients without an inbox row get 0. */
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

/** A frame for one recipient, once it has its position. */
export interface PositionedFrame {
  to: Ref;
  frame: NotificationFrame;
  position: string;
  /** The frame's JSON as logged (sent to the streams as it is). */
  data: string;
}

/**
 * First statement of every write to notification rows (notifications.md §2.0): the recipients' next positions
 * (`recipientKey` → n), heads locked in key order until commit. Every such write locks heads before it touches rows
 * (and, through the triggers, inbox rows), so concurrent writers never deadlock. The write stamps the rows it changes
 * with the position and ends with `recordFrames`, or rolls back when it changed nothing.
 */
export function reservePositions(log: StreamLog, em: EntityManager, refs: readonly Ref[]): Promise<Map<string, number>> {
  return log.reserve(
    em,
    'n',
    refs.map((r) => recipientKey(r.type, r.uuid)),
  );
}

/** The frames at the positions `reservePositions` took in the same transaction (one per recipient), logged. */
export async function recordFrames(
  log: StreamLog,
  em: EntityManager,
  frames: ReadonlyArray<{ to: Ref; frame: NotificationFrame; n: number }>,
): Promise<PositionedFrame[]> {
  const entries = frames.map((f) => ({ key: recipientKey(f.to.type, f.to.uuid), n: f.n, projectUuid: null, payload: JSON.stringify(f.frame) }));
  const positions = await log.record(em, 'n', entries);
  return frames.map((f, i) => ({ to: f.to, frame: f.frame, position: positions[i], data: entries[i].payload }));
}

/**
 * After commit: notification frames go to the recipient's subject with their positions (notifications.md §3);
 * agents' frames reach the waits of their inbox (and no socket).
 */
export function publishFrames(bus: EventBus, metrics: MetricsService, frames: readonly PositionedFrame[]): void {
  for (const { to, frame, position, data } of frames) {
    bus.publish('notification', { recipientType: to.type, recipientUuid: to.uuid, frame }, position, data);
    metrics.eventsPublished.inc({ kind: 'notification' });
  }
}

/**
 * A delta (notifications.md §2.0) in one statement, so one snapshot: the recipient's head and unread count, and the
 * rows changed after `$5`, oldest position first (`notification_delta_idx`; ordered by the column, not the text alias), at most `$6`. Without rows the answer is
 * one row of nulls beside the head. `$4` is the recipient's stream key.
 */
export const DELTA_SQL = `SELECT s.head::text AS head, s.unread AS "unreadCount", r.*
  FROM (SELECT (SELECT position FROM stream_head WHERE stream = 'n' AND key = $4) AS head,
               (SELECT unread_count FROM notification_inbox WHERE recipient_type = $1 AND recipient_uuid = $2) AS unread) AS s
  LEFT JOIN LATERAL (SELECT ${NOTIFICATION_COLUMNS}, position::text AS position FROM notification
                      WHERE ${RECIPIENT_SQL} AND position > $5 ORDER BY notification.position, created_at, uuid LIMIT $6) AS r ON true`;

/** The rows of one position (a batch or bulk change bigger than a delta's bounds is answered whole). */
export const POSITION_ROWS_SQL = `SELECT ${NOTIFICATION_COLUMNS}, position::text AS position FROM notification
  WHERE ${RECIPIENT_SQL} AND position = $4 ORDER BY created_at, uuid`;
