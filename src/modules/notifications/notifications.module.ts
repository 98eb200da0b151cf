import { Module } from '@nestjs/common';
import { NotificationGenerator } from './notification-generator.js';
import { NotificationController } from './notification.controller.js';
import { NotificationService } from './notification.service.js';
import { NotificationTools } from './notification.tools.js';
import { InboxWaits } from './inbox-waits.js';
import { SnoozeWaker } from './snooze-waker.js';

/**
 * The inbox routes and services; the generator reacts to committed activity (`@OnEvent`), the waits to every
 * instance's notification frames (`@OnEvent` on the bus events), the waker brings snoozed notifications back.
 */
@Module({
  controllers: [NotificationController],
  providers: [NotificationService, NotificationGenerator, NotificationTools, InboxWaits, SnoozeWaker],
  exports: [NotificationService],
})
export class NotificationsModule {}
