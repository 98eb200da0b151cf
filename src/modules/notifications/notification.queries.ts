import type { EntityManager } from 'typeorm';
import { preparedQuery } from '../../shared/database/prepared.js';
import type { EventBus } from '../../shared/event-bus/event-bus.port.js';
import type { NotificationFrame } from '../../shared/event-bus/events.js';
import type { MetricsService } from '../../shared/metrics/metrics.service.js';
import type { ListQuery } from './domain/notification-request.rules.js';
import type { Ref } from './domain/notification.rules.js';
import { NOTIFICATION_COLUMNS } from './notification.records.js';

/** Whose inbox a query reads: the authenticated caller, always inside its company. */
export interface Recipient extends Ref {
  companyUuid: string;
}

/** `$1..$3` of every inbox query; the partial indexes lead with exactly these columns. */
export const RECIPIENT_SQL = 'recipient_type = $1 AND recipient_uuid = $2 AND company_uuid = $3';
export const recipientParams = (r: Recipient): unknown[] => [r.type, r.uuid, r.companyUuid];

/** The REST list (notifications.md §2): newest first, straight off one of the inbox indexes, no sort step. */
export function listSql(r: Recipient, q: ListQuery): { sql: string; params: unknown[]; name: string } {
  const params = [...recipientParams(r), q.limit, q.offset];
  let where = `${RECIPIENT_SQL} AND archived_at IS NULL`;
  if (q.unreadOnly) where += ' AND read_at IS NULL';
  if (q.projectUuid) where += ` AND project_uuid = $${params.push(q.projectUuid)}`;
  // One prepared statement per shape (4 in all): the name follows the filters, the text only depends on them.
  const name = `svc_notification_list_${q.unreadOnly ? 'u' : 'a'}${q.projectUuid ? 'p' : ''}`;
  return { sql: `SELECT ${NOTIFICATION_COLUMNS} FROM notification WHERE ${where} ORDER BY created_at DESC, uuid LIMIT $4 OFFSET $5`, params, name };
}

/**
 * A recipient's inbox row: version and unread count, kept exact by triggers in the transaction of every write to its
 * notifications (migration 1763795500000), so shared by all instances. One primary-key lookup.
 */
export const INBOX_SQL = 'SELECT version, unread_count AS "unreadCount" FROM notification_inbox WHERE recipient_type = $1 AND recipient_uuid = $2';

export interface InboxState {
  /** '0' before the first notification. */
  version: string;
  /** The global unread count (notifications.md §1). */
  unreadCount: number;
}

const INBOX_STATEMENT = { name: 'svc_notification_inbox', text: INBOX_SQL };

/** Prepared outside a transaction (it runs on every list, count and conditional GET). */
export async function inboxState(em: EntityManager, r: Ref): Promise<InboxState> {
  const rows = await preparedQuery<{ version: string; unreadCount: number }>(em, INBOX_STATEMENT, [r.type, r.uuid]);
  return rows.length ? { version: String(rows[0].version), unreadCount: rows[0].unreadCount } : { version: '0', unreadCount: 0 };
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

/** Notification frames go to the recipient's subject (notifications.md §3); agents' frames currently reach no socket. */
export function publishFrame(bus: EventBus, metrics: MetricsService, r: Ref, frame: NotificationFrame): void {
  bus.publish('notification', { recipientType: r.type, recipientUuid: r.uuid, frame });
  metrics.eventsPublished.inc({ kind: 'notification' });
}
