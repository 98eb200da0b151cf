import { Module } from '@nestjs/common';
import { repositoryProvider } from '../../shared/database/repository.js';
import { ProjectGroupController } from './project-group.controller.js';
import { ProjectGroupRepository } from './project-group.repository.js';
import { ProjectGroupService } from './project-group.service.js';
import { ProjectController } from './project.controller.js';
import { ProjectRepository } from './project.repository.js';
import { ProjectService } from './project.service.js';
import { ProjectTools } from './project.tools.js';

@Module({
  controllers: [ProjectController, ProjectGroupController],
  providers: [repositoryProvider(ProjectRepository), repositoryProvider(ProjectGroupRepository), ProjectService, ProjectGroupService, ProjectTools],
  exports: [ProjectService, ProjectGroupService],
})
export class ProjectsModule {}
