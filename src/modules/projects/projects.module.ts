import { Module } from '@nestjs/common';
import { ProjectGroupController } from './project-group.controller.js';
import { ProjectGroupService } from './project-group.service.js';
import { ProjectController } from './project.controller.js';
import { ProjectService } from './project.service.js';

@Module({
  controllers: [ProjectController, ProjectGroupController],
  providers: [ProjectService, ProjectGroupService],
  exports: [ProjectService, ProjectGroupService],
})
export class ProjectsModule {}
