import { Module } from '@nestjs/common';
import { TaskTrackerService } from './task-tracker.service.js';
import { TaskService } from './task.service.js';

@Module({
  providers: [TaskService, TaskTrackerService],
  exports: [TaskService, TaskTrackerService],
})
export class TaskModule {}
