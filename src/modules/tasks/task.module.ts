import { Module } from '@nestjs/common';
import { TaskTrackerService } from './task-tracker.service.js';
import { TaskActionController } from './task-action.controller.js';
import { TaskController } from './task.controller.js';
import { TaskService } from './task.service.js';

@Module({
  providers: [TaskService, TaskTrackerService],
  exports: [TaskService, TaskTrackerService],
  controllers: [TaskController, TaskActionController],
})
export class TaskModule {}
