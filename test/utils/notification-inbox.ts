import type { DataSource } from 'typeorm';
import { AgentInboxService } from '../../src/modules/notifications/agent-inbox.service.js';
import { InboxBodyPipe } from '../../src/modules/notifications/dto/inbox-body.pipe.js';
import { NotificationPreferencesBody, ReadAllNotificationsBody } from '../../src/modules/notifications/dto/notification-body.dto.js';
import { ListNotificationsQuery } from '../../src/modules/notifications/dto/notification-query.dto.js';
import { InboxDeltaService } from '../../src/modules/notifications/inbox-delta.service.js';
import { InboxWaits } from '../../src/modules/notifications/inbox-waits.js';
import { NotificationPreferenceRepository } from '../../src/modules/notifications/notification-preference.repository.js';
import { NotificationPreferenceService } from '../../src/modules/notifications/notification-preference.service.js';
import { NotificationRepository } from '../../src/modules/notifications/notification.repository.js';
import { NotificationService } from '../../src/modules/notifications/notification.service.js';
import { PoolLoad } from '../../src/shared/database/pool-load.js';
import { MetricsService } from '../../src/shared/metrics/metrics.service.js';
import { createValidationPipe } from '../../src/shared/validation/validation.pipe.js';
import { testStreamLog, type Harness } from './world.js';

/** The notification module's services on a harness (its bus and TransactionRunner), wired as the module wires them. */
export function notificationInbox(db: DataSource, h: Harness, metrics = new MetricsService()) {
  const log = testStreamLog(db);
  const repository = new NotificationRepository(db);
  const deltas = new InboxDeltaService(repository, log, h.bus, new InboxWaits(h.bus));
  const inbox = new NotificationService(repository, deltas, h.runner, log, h.bus, metrics, new PoolLoad(db));
  return {
    inbox,
    deltas,
    agent: new AgentInboxService(inbox, deltas, repository),
    preferences: new NotificationPreferenceService(new NotificationPreferenceRepository(db)),
  };
}

/** REST inputs read as the routes read them: the query through the REST pipe, bodies through InboxBody's pipe. */
const rest = createValidationPipe();
export const restInput = {
  listQuery: async (raw: Record<string, unknown>): Promise<ListNotificationsQuery> =>
    (await rest.transform(raw, { type: 'query', metatype: ListNotificationsQuery, data: '' })) as ListNotificationsQuery,
  readAll: (raw: unknown): Promise<ReadAllNotificationsBody> => new InboxBodyPipe(ReadAllNotificationsBody, { optional: true, unknownFields: 'ignore' }).transform(raw),
  preferences: (raw: unknown): Promise<NotificationPreferencesBody> => new InboxBodyPipe(NotificationPreferencesBody, { unknownFields: 'refuse' }).transform(raw),
};
