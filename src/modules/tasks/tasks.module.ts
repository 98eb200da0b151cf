import { Module } from '@nestjs/common';
import { TaskAdminTools } from './task-admin.tools.js';
import { TaskTrackerService } from './task-tracker.service.js';
import { TaskActionController } from './task-action.controller.js';
import { TaskController } from './task.controller.js';
import { TaskService } from './task.service.js';
import { TaskTools } from './task.tools.js';

@Module({
  providers: [TaskService, TaskTrackerService, TaskTools, TaskAdminTools],
  exports: [TaskService, TaskTrackerService],
  controllers: [TaskController, TaskActionController],
})
export class TasksModule {}
