import { Module } from '@nestjs/common';
import { TaskActionController } from './task-action.controller.js';
import { TaskController } from './task.controller.js';
import { TaskTrackerService } from './task-tracker.service.js';
import { TaskService } from './task.service.js';

@Module({
  controllers: [TaskController, TaskActionController],
  providers: [TaskService, TaskTrackerService],
  exports: [TaskService, TaskTrackerService],
})
export class TaskModule {}
