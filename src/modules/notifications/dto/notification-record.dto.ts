import type { ActorType } from '../../../shared/auth/actor.js';
import type { EntityType } from '../../../shared/event-bus/events.js';
import { Prop } from '../../../shared/validation/response-fields.js';
import type { NotificationPreferences, NotificationRecord } from '../notification.records.js';

// The answers of the notification routes (README "Notifications"): the record, the inbox reads, the preferences.

export class NotificationRecordDto implements NotificationRecord {
  @Prop.string() uuid: string;
  @Prop.string() projectUuid: string;
  @Prop.string() projectName: string;
  @Prop.string() recipientType: ActorType;
  @Prop.string() recipientUuid: string;
  @Prop.string() entityType: EntityType;
  @Prop.string() entityUuid: string;
  @Prop.string() entityTitle: string;
  @Prop.string() action: string;
  @Prop.string() message: string;
  @Prop.string() actorType: ActorType;
  @Prop.string() actorUuid: string;
  @Prop.string() actorName: string;
  @Prop.string({ nullable: true }) readAt: string | null;
  @Prop.string({ nullable: true }) archivedAt: string | null;
  @Prop.string({ nullable: true, description: 'Set while snoozed' }) snoozedUntil: string | null;
  @Prop.string() createdAt: string;
}

/** A page of the inbox (`nextCursor` in cursor mode), or with `after` a delta (`position`). */
export class NotificationListDto {
  @Prop.list(NotificationRecordDto) notifications: NotificationRecordDto[];
  @Prop.integer() unreadCount: number;
  @Prop.string({ optional: true, nullable: true, description: 'Cursor mode: pass it as cursor for the next page; null on the last' }) nextCursor?: string | null;
  @Prop.string({ optional: true, description: 'A delta: the position to pass as after next time' }) position?: string;
}

export class CountDto {
  @Prop.integer() count: number;
}

export class NotificationPreferencesDto implements NotificationPreferences {
  @Prop.string() uuid: string;
  @Prop.string() ownerType: ActorType;
  @Prop.string() ownerUuid: string;
  @Prop.boolean() taskAssigned: boolean;
  @Prop.boolean() taskStatusChanged: boolean;
  @Prop.boolean() taskVerified: boolean;
  @Prop.boolean() taskReopened: boolean;
  @Prop.boolean() proposalSubmitted: boolean;
  @Prop.boolean() proposalApproved: boolean;
  @Prop.boolean() proposalRejected: boolean;
  @Prop.boolean() ideaClaimed: boolean;
  @Prop.boolean() commentAdded: boolean;
  @Prop.boolean() elaborationRequested: boolean;
  @Prop.boolean() elaborationAnswered: boolean;
  @Prop.boolean() mentioned: boolean;
}
