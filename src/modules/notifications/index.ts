export type { NotificationEntity, NotificationPreferenceEntity } from './notification.entity.js';
export { NotificationsModule } from './notifications.module.js';
export { NotificationService } from './notification.service.js';
export { NotificationGenerator } from './notification-generator.js';
export type { NotificationRecord, NotificationPreferences, CheckinNotification } from './notification.records.js';
export { PREFERENCE_FIELDS } from './domain/notification.rules.js';
export type { NotificationAction, PreferenceField } from './domain/notification.rules.js';
