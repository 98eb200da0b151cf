import type { ActorType } from '../../shared/auth/actor.js';
import type { EntityType } from '../../shared/event-bus/events.js';
import type { PreferenceField } from './domain/notification.rules.js';

/** notifications.md §1: the JSON form used by every route and tool (`companyUuid`, `updatedAt` stay inside). */
export interface NotificationRecord {
  uuid: string;
  projectUuid: string;
  projectName: string;
  recipientType: ActorType;
  recipientUuid: string;
  entityType: EntityType;
  entityUuid: string;
  entityTitle: string;
  action: string;
  message: string;
  actorType: ActorType;
  actorUuid: string;
  actorName: string;
  readAt: string | null;
  archivedAt: string | null;
  /** Set while snoozed (notifications.md §2.0). */
  snoozedUntil: string | null;
  createdAt: string;
}

/** notifications.md §6. */
export type NotificationPreferences = { uuid: string; ownerType: ActorType; ownerUuid: string } & Record<PreferenceField, boolean>;

/** The item of `svc_checkin`'s `notifications.recent` (notifications.md §7). */
export interface CheckinNotification {
  uuid: string;
  action: string;
  entityType: EntityType;
  entityUuid: string;
  entityTitle: string;
  projectUuid: string;
  actorName: string;
  message: string;
  createdAt: string;
}

/** Selected with these aliases, a raw row maps 1:1 onto the record. */
export const NOTIFICATION_COLUMNS = `uuid, project_uuid AS "projectUuid", project_name AS "projectName",
  recipient_type AS "recipientType", recipient_uuid AS "recipientUuid", entity_type AS "entityType",
  entity_uuid AS "entityUuid", entity_title AS "entityTitle", action, message, actor_type AS "actorType",
  actor_uuid AS "actorUuid", actor_name AS "actorName", read_at AS "readAt", archived_at AS "archivedAt",
  snoozed_until AS "snoozedUntil", created_at AS "createdAt"`;

/** The list columns plus the row's keyset key (`created_at` in microseconds, exact) for `nextCursor`. */
export const LIST_COLUMNS = `${NOTIFICATION_COLUMNS}, (extract(epoch FROM created_at) * 1000000)::bigint::text AS "cursorKey"`;

export type NotificationRow = Omit<NotificationRecord, 'readAt' | 'archivedAt' | 'snoozedUntil' | 'createdAt'> & {
  readAt: Date | null;
  archivedAt: Date | null;
  snoozedUntil: Date | null;
  createdAt: Date;
  /** Only selected by the lists (LIST_COLUMNS). */
  cursorKey?: string;
  /** Only selected by deltas. */
  position?: string;
};

export function toNotificationRecord(r: NotificationRow): NotificationRecord {
  return {
    uuid: r.uuid,
    projectUuid: r.projectUuid,
    projectName: r.projectName,
    recipientType: r.recipientType,
    recipientUuid: r.recipientUuid,
    entityType: r.entityType,
    entityUuid: r.entityUuid,
    entityTitle: r.entityTitle,
    action: r.action,
    message: r.message,
    actorType: r.actorType,
    actorUuid: r.actorUuid,
    actorName: r.actorName,
    readAt: r.readAt ? r.readAt.toISOString() : null,
    archivedAt: r.archivedAt ? r.archivedAt.toISOString() : null,
    snoozedUntil: r.snoozedUntil ? r.snoozedUntil.toISOString() : null,
    createdAt: r.createdAt.toISOString(),
  };
}

export function toCheckinNotification(r: NotificationRow): CheckinNotification {
  return {
    uuid: r.uuid,
    action: r.action,
    entityType: r.entityType,
    entityUuid: r.entityUuid,
    entityTitle: r.entityTitle,
    projectUuid: r.projectUuid,
    actorName: r.actorName,
    message: r.message,
    createdAt: r.createdAt.toISOString(),
  };
}
