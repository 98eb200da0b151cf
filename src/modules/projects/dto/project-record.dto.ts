import { DeletedDto, PageOf, Prop } from '../../../shared/validation/response-fields.js';
import { ActivityRecordDto } from '../../collaboration/index.js';
import type { TaskStatus } from '../../tasks/index.js';

// The answers of the projects module: project and group records (project.records.ts names them), their lists, the
// group dashboard and a group's deletion.

export class ProjectCountsDto {
  @Prop.integer() ideas: number;
  @Prop.integer() proposals: number;
  @Prop.integer() documents: number;
  @Prop.integer() tasks: number;
}

export class ProjectSummaryDto {
  @Prop.string() uuid: string;
  @Prop.string() name: string;
  @Prop.string() description: string;
  @Prop.string({ nullable: true }) groupUuid: string | null;
  @Prop.nested(ProjectCountsDto) counts: ProjectCountsDto;
  @Prop.string() createdAt: string;
  @Prop.string() updatedAt: string;
}

export class ProjectGroupRefDto {
  @Prop.string() uuid: string;
  @Prop.string() name: string;
}

export class TaskStatusCountsDto implements Record<TaskStatus, number> {
  @Prop.integer() open: number;
  @Prop.integer() assigned: number;
  @Prop.integer() in_progress: number;
  @Prop.integer() to_verify: number;
  @Prop.integer() done: number;
  @Prop.integer() closed: number;
}

export class ProjectRecordDto extends ProjectSummaryDto {
  @Prop.nested(ProjectGroupRefDto, { nullable: true }) group: ProjectGroupRefDto | null;
  @Prop.nested(TaskStatusCountsDto) taskStatusCounts: TaskStatusCountsDto;
}

export class GroupSummaryDto {
  @Prop.string() uuid: string;
  @Prop.string() name: string;
  @Prop.string() description: string;
  @Prop.integer() projectCount: number;
  @Prop.string() createdAt: string;
  @Prop.string() updatedAt: string;
}

export class GroupProjectDto {
  @Prop.string() uuid: string;
  @Prop.string() name: string;
  @Prop.string() description: string;
}

export class GroupRecordDto extends GroupSummaryDto {
  @Prop.list(GroupProjectDto, { description: 'By name' }) projects: GroupProjectDto[];
}

export class GroupStatsDto {
  @Prop.integer() projectCount: number;
  @Prop.integer() totalTasks: number;
  @Prop.integer() completedTasks: number;
  @Prop.number() completionRate: number;
  @Prop.integer() openIdeas: number;
  @Prop.integer() activeProposals: number;
}

export class DashboardProjectDto {
  @Prop.string() uuid: string;
  @Prop.string() name: string;
  @Prop.integer() taskCount: number;
  @Prop.number() completionRate: number;
}

export class GroupDashboardDto {
  @Prop.nested(GroupSummaryDto) group: GroupSummaryDto;
  @Prop.nested(GroupStatsDto) stats: GroupStatsDto;
  @Prop.list(DashboardProjectDto) projects: DashboardProjectDto[];
  @Prop.list(ActivityRecordDto) recentActivity: ActivityRecordDto[];
}

export class ProjectPageDto extends PageOf('projects', ProjectSummaryDto) {}

export class GroupPageDto extends PageOf('groups', GroupSummaryDto) {
  @Prop.integer({ description: 'Projects in no group' }) ungroupedCount: number;
}

export class GroupDeletedDto extends DeletedDto {
  @Prop.integer({ description: 'The projects it held, now ungrouped' }) ungroupedProjects: number;
}
