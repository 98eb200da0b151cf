import { Module } from '@nestjs/common';
import { ProjectGroupController } from './project-group.controller.js';
import { ProjectGroupService } from './project-group.service.js';
import { ProjectController } from './project.controller.js';
import { ProjectService } from './project.service.js';
import { ProjectTools } from './project.tools.js';

@Module({
  controllers: [ProjectController, ProjectGroupController],
  providers: [ProjectService, ProjectGroupService, ProjectTools],
  exports: [ProjectService, ProjectGroupService],
})
export class ProjectsModule {}
