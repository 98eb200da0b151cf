import { Module } from '@nestjs/common';
import { ProjectGroupService } from './project-group.service.js';
import { ProjectService } from './project.service.js';

@Module({
  providers: [ProjectService, ProjectGroupService],
  exports: [ProjectService, ProjectGroupService],
})
export class ProjectsModule {}
