import type { ActorType } from '../../shared/auth/actor.js';
import type { EntityType } from '../../shared/event-bus/events.js';
import type { PreferenceField } from './domain/notification.rules.js';

/** docs/notifications.md §1: the JSON form used by every route and tool (`companyUuid`, `updatedAt` stay inside). */
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
  /** Set while snoozed (docs/notifications.md §2.0). */
  snoozedUntil: string | null;
  createdAt: string;
}

/** docs/notifications.md §6. */
export type NotificationPreferences = { uuid: string; ownerType: ActorType; ownerUuid: string } & Record<PreferenceField, boolean>;

/** The item of `svc_checkin`'s `notifications.recent` (docs/notifications.md §7). */
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

/** A row as NotificationRepository selects it: its column aliases map it 1:1 onto the record. */
export type NotificationRow = Omit<NotificationRecord, 'readAt' | 'archivedAt' | 'snoozedUntil' | 'createdAt'> & {
  readAt: Date | null;
  archivedAt: Date | null;
  snoozedUntil: Date | null;
  createdAt: Date;
  /** Only selected by the lists (their keyset key). */
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
