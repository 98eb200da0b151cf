import { Module } from '@nestjs/common';
import { AgentInboxService } from './agent-inbox.service.js';
import { InboxDeltaService } from './inbox-delta.service.js';
import { InboxWaits } from './inbox-waits.js';
import { NotificationGenerator } from './notification-generator.js';
import { NotificationPreferenceRepository } from './notification-preference.repository.js';
import { NotificationPreferenceService } from './notification-preference.service.js';
import { NotificationController } from './notification.controller.js';
import { NotificationRepository } from './notification.repository.js';
import { NotificationService } from './notification.service.js';
import { NotificationTools } from './notification.tools.js';
import { SnoozeWaker } from './snooze-waker.js';

/**
 * The inbox routes and services: reads and writes (NotificationService, writing through the TransactionRunner), deltas
 * and waits, preferences, the agent-facing shapes and their tools, over the module's repositories. The generator reacts
 * to committed activity (`@OnEvent`), the waits to every instance's notification frames (`@OnEvent` on the bus
 * events), the waker brings snoozed notifications back.
 */
@Module({
  controllers: [NotificationController],
  providers: [
    NotificationRepository,
    NotificationPreferenceRepository,
    NotificationService,
    InboxDeltaService,
    NotificationPreferenceService,
    AgentInboxService,
    NotificationGenerator,
    NotificationTools,
    InboxWaits,
    SnoozeWaker,
  ],
  exports: [NotificationService],
})
export class NotificationsModule {}
