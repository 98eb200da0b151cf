import { Module } from '@nestjs/common';
import { NotificationGenerator } from './notification-generator.js';
import { NotificationController } from './notification.controller.js';
import { NotificationService } from './notification.service.js';
import { NotificationTools } from './notification.tools.js';

/** The inbox routes and services; the generator reacts to committed activity (`@OnEvent`). */
@Module({
  controllers: [NotificationController],
  providers: [NotificationService, NotificationGenerator, NotificationTools],
  exports: [NotificationService],
})
export class NotificationsModule {}
