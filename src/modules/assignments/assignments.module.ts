import { Module } from '@nestjs/common';
import { IdeasModule } from '../ideas/index.js';
import { TasksModule } from '../tasks/index.js';
import { AssignmentTools } from './assignment.tools.js';
import { CheckinTools } from './checkin.tools.js';
import { IdentityModule } from '../identity/index.js';
import { NotificationsModule } from '../notifications/index.js';

@Module({
  imports: [IdeasModule, TasksModule, IdentityModule, NotificationsModule],
  providers: [AssignmentTools, CheckinTools],
})
export class AssignmentsModule {}
