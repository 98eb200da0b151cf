import { Module } from '@nestjs/common';
import { repositoryProvider } from '../../shared/database/repository.js';
import { TaskAdminTools } from './task-admin.tools.js';
import { TaskTrackerService } from './task-tracker.service.js';
import { TaskActionController } from './task-action.controller.js';
import { TaskReadRepository } from './task-read.repository.js';
import { TaskController } from './task.controller.js';
import { TaskRepository } from './task.repository.js';
import { TaskService } from './task.service.js';
import { TaskTools } from './task.tools.js';

@Module({
  providers: [repositoryProvider(TaskRepository), repositoryProvider(TaskReadRepository), TaskService, TaskTrackerService, TaskTools, TaskAdminTools],
  exports: [TaskService, TaskTrackerService],
  controllers: [TaskController, TaskActionController],
})
export class TasksModule {}
