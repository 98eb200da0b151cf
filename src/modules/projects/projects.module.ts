import { Module } from '@nestjs/common';
import { ProjectGroupService } from './project-group.service.js';
import { ProjectService } from './project.service.js';
import { ProjectTools } from './project.tools.js';

@Module({
  providers: [ProjectService, ProjectGroupService, ProjectTools],
  exports: [ProjectService, ProjectGroupService],
})
export class ProjectsModule {}
