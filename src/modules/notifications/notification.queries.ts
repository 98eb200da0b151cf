import type { EntityManager } from 'typeorm';
import type { EventBus } from '../../shared/event-bus/event-bus.port.js';
import type { NotificationFrame } from '../../shared/event-bus/events.js';
import type { MetricsService } from '../../shared/metrics/metrics.service.js';
import type { ListQuery } from './domain/notification-input.js';
import type { Ref } from './domain/notification-rules.js';
import { NOTIFICATION_COLUMNS } from './notification.records.js';

/** Whose inbox a query reads: the authenticated caller, always inside its company. */
export interface Recipient extends Ref {
  companyUuid: string;
}

/** `$1..$3` of every inbox query; the partial indexes lead with exactly these columns. */
export const RECIPIENT_SQL = 'recipient_type = $1 AND recipient_uuid = $2 AND company_uuid = $3';
export const recipientParams = (r: Recipient): unknown[] => [r.type, r.uuid, r.companyUuid];

/** The REST list (notifications.md §2): newest first, straight off one of the inbox indexes, no sort step. */
export function listSql(r: Recipient, q: ListQuery): { sql: string; params: unknown[] } {
  const params = [...recipientParams(r), q.limit, q.offset];
  let where = `${RECIPIENT_SQL} AND archived_at IS NULL`;
  if (q.unreadOnly) where += ' AND read_at IS NULL';
  if (q.projectUuid) where += ` AND project_uuid = $${params.push(q.projectUuid)}`;
  return { sql: `SELECT ${NOTIFICATION_COLUMNS} FROM notification WHERE ${where} ORDER BY created_at DESC, uuid LIMIT $4 OFFSET $5`, params };
}

export const UNREAD_COUNT_SQL = `SELECT count(*)::int AS n FROM notification WHERE ${RECIPIENT_SQL} AND read_at IS NULL AND archived_at IS NULL`;
export const VERSION_SQL = 'SELECT version FROM notification_version WHERE recipient_type = $1 AND recipient_uuid = $2';

/** The global unread count (notifications.md §1): an index-only count on the unread partial index. */
export async function countUnread(em: EntityManager, r: Recipient): Promise<number> {
  const rows: Array<{ n: number }> = await em.query(UNREAD_COUNT_SQL, recipientParams(r));
  return rows[0].n;
}

/** Unread counts of several recipients of one company in one query; recipients without unread rows get 0. */
export async function countUnreadMany(em: EntityManager, companyUuid: string, refs: readonly Ref[]): Promise<Map<string, number>> {
  const out = new Map<string, number>(refs.map((r) => [`${r.type}:${r.uuid}`, 0]));
  if (!refs.length) return out;
  const rows: Array<{ type: string; uuid: string; n: number }> = await em.query(
    `SELECT n.recipient_type AS type, n.recipient_uuid AS uuid, count(*)::int AS n
       FROM unnest($2::text[], $3::uuid[]) AS r(type, uuid)
       JOIN notification n ON n.recipient_type = r.type AND n.recipient_uuid = r.uuid AND n.company_uuid = $1
                          AND n.read_at IS NULL AND n.archived_at IS NULL
      GROUP BY 1, 2`,
    [companyUuid, refs.map((r) => r.type), refs.map((r) => r.uuid)],
  );
  for (const row of rows) out.set(`${row.type}:${row.uuid}`, row.n);
  return out;
}

/**
 * The inbox version of a recipient: bumped by a trigger in the transaction of every write to its rows (migration
 * 1763795500000), so it is shared by all instances. '0' before the first notification.
 */
export async function inboxVersion(em: EntityManager, r: Ref): Promise<string> {
  const rows: Array<{ version: string }> = await em.query(VERSION_SQL, [r.type, r.uuid]);
  return rows.length ? String(rows[0].version) : '0';
}

/** Notification frames go to the recipient's subject (notifications.md §3); agents' frames currently reach no socket. */
export function publishFrame(bus: EventBus, metrics: MetricsService, r: Ref, frame: NotificationFrame): void {
  bus.publish('notification', { recipientType: r.type, recipientUuid: r.uuid, frame });
  metrics.eventsPublished.inc({ kind: 'notification' });
}
