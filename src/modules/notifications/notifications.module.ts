import { Module } from '@nestjs/common';
import { NotificationGenerator } from './notification-generator.js';
import { NotificationController } from './notification.controller.js';
import { NotificationService } from './notification.service.js';
import { NotificationTools } from './notification.tools.js';

/** The inbox routes and services; the generator registers itself on the post-commit hooks at start-up. */
@Module({
  controllers: [NotificationController],
  providers: [NotificationService, NotificationGenerator, NotificationTools],
  exports: [NotificationService],
})
export class NotificationsModule {}
