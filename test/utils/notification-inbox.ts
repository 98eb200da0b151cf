import { InboxBodyPipe } from '../../src/modules/notifications/dto/inbox-body.pipe.js';
import { NotificationPreferencesBody, ReadAllNotificationsBody } from '../../src/modules/notifications/dto/notification-body.dto.js';
import { ListNotificationsQuery } from '../../src/modules/notifications/dto/notification-query.dto.js';
import { createValidationPipe } from '../../src/shared/validation/validation.pipe.js';

/** REST inputs read as the routes read them: the query through the REST pipe, bodies through InboxBody's pipe. */
const rest = createValidationPipe();
export const restInput = {
  listQuery: async (raw: Record<string, unknown>): Promise<ListNotificationsQuery> =>
    (await rest.transform(raw, { type: 'query', metatype: ListNotificationsQuery, data: '' })) as ListNotificationsQuery,
  readAll: (raw: unknown): Promise<ReadAllNotificationsBody> => new InboxBodyPipe(ReadAllNotificationsBody, { optional: true, unknownFields: 'ignore' }).transform(raw),
  preferences: (raw: unknown): Promise<NotificationPreferencesBody> => new InboxBodyPipe(NotificationPreferencesBody, { unknownFields: 'refuse' }).transform(raw),
};
