export type { ProjectEntity, ProjectGroupEntity } from './project.entity.js';
export { findProject } from './project.queries.js';
export { ProjectsModule } from './projects.module.js';
export { ProjectService, type ProjectUpdate } from './project.service.js';
export { ProjectGroupService } from './project-group.service.js';
export type {
  ProjectSummary,
  ProjectRecord,
  ProjectCounts,
  GroupSummary,
  GroupRecord,
  GroupDashboard,
} from './project.records.js';
