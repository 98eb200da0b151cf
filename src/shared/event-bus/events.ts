/** The typed catalogue of everything that crosses the EventBus. A wrong payload fails to compile. */
export type EntityType = 'task' | 'idea' | 'proposal' | 'document';
export type ChangeAction = 'created' | 'updated' | 'deleted';

/** platform.md §6.1: exactly these five fields, nothing else, ever. */
export interface RealtimeEvent {
  companyUuid: string;
  projectUuid: string;
  entityType: EntityType;
  entityUuid: string;
  action: ChangeAction;
}

export interface NewNotificationFrame {
  type: 'new_notification';
  notificationUuid: string;
  unreadCount: number;
  action: string;
  actorName: string;
  entityTitle: string;
  entityType: EntityType;
  entityUuid: string;
  projectUuid: string;
}

export interface CountUpdateFrame {
  type: 'count_update';
  unreadCount: number;
}

export type NotificationFrame = NewNotificationFrame | CountUpdateFrame;

/** A notification frame addressed to one recipient (subject `<prefix>.notify.<type>.<uuid>`). */
export interface NotificationMessage {
  recipientType: 'user' | 'agent';
  recipientUuid: string;
  frame: NotificationFrame;
}

export interface BusEvents {
  change: RealtimeEvent;
  notification: NotificationMessage;
}

export type BusEventKind = keyof BusEvents;
