export { NotificationEntity, NotificationPreferenceEntity } from './notification.entity.js';
