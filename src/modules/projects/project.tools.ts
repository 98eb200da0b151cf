import { Injectable } from '@nestjs/common';
import { PagingArgsDto } from '../../shared/validation/paging-args.dto.js';
import { Tool, type ToolContext } from '../tool-kit/index.js';
import { GroupDashboardDto, GroupPageDto, GroupRecordDto, ProjectPageDto, ProjectRecordDto } from './dto/project-record.dto.js';
import { CreateProjectDto, CreateProjectGroupDto, GroupRefDto, MoveProjectArgsDto, ProjectRefDto, UpdateProjectGroupArgsDto } from './dto/project.dto.js';
import { ProjectGroupService } from './project-group.service.js';
import { ProjectService } from './project.service.js';

/** Projects and project groups (docs/tool-conventions.md §5.1 reads, §5.8 admin tools). Projects publish no change events. */
@Injectable()
export class ProjectTools {
  constructor(
    private readonly projects: ProjectService,
    private readonly groups: ProjectGroupService,
  ) {}

  @Tool({
    name: 'svc_list_projects',
    title: 'List projects',
    hint: 'R',
    description: "Lists the company's projects with entity counts. Open one with svc_get_project.",
    input: PagingArgsDto,
    output: ProjectPageDto,
  })
  listProjects(args: PagingArgsDto, ctx: ToolContext) {
    return this.projects.list(ctx.actor, args);
  }

  @Tool({
    name: 'svc_get_project',
    title: 'Get project',
    hint: 'R',
    description: 'Returns one project with its group and entity counts. List its work with svc_get_ideas, svc_get_proposals or svc_list_tasks.',
    input: ProjectRefDto,
    output: ProjectRecordDto,
  })
  getProject(args: ProjectRefDto, ctx: ToolContext) {
    return this.projects.get(ctx.actor, args);
  }

  @Tool({
    name: 'svc_get_project_groups',
    title: 'List project groups',
    hint: 'R',
    description: 'Lists project groups with project counts and the number of ungrouped projects. Open one with svc_get_project_group.',
    input: PagingArgsDto,
    output: GroupPageDto,
  })
  listGroups(args: PagingArgsDto, ctx: ToolContext) {
    return this.groups.list(ctx.actor, args);
  }

  @Tool({
    name: 'svc_get_project_group',
    title: 'Get project group',
    hint: 'R',
    description: 'Returns one project group with its projects. See its progress with svc_get_group_dashboard.',
    input: GroupRefDto,
    output: GroupRecordDto,
  })
  getGroup(args: GroupRefDto, ctx: ToolContext) {
    return this.groups.get(ctx.actor, args);
  }

  @Tool({
    name: 'svc_get_group_dashboard',
    title: 'Get group dashboard',
    hint: 'R',
    description: "Returns a group's task completion, open ideas, active proposals and recent activity. Open a project with svc_get_project.",
    input: GroupRefDto,
    output: GroupDashboardDto,
  })
  groupDashboard(args: GroupRefDto, ctx: ToolContext) {
    return this.groups.dashboard(ctx.actor, args);
  }

  @Tool({
    name: 'svc_admin_create_project',
    permission: 'project:write',
    title: 'Create project',
    hint: 'W',
    description: 'Creates a project, optionally inside a project group. Add ideas with svc_pm_create_idea.',
    input: CreateProjectDto,
  })
  createProject(args: CreateProjectDto, ctx: ToolContext) {
    return this.projects.create(ctx.actor, args);
  }

  @Tool({
    name: 'svc_admin_create_project_group',
    permission: 'project:write',
    title: 'Create project group',
    hint: 'W',
    description: 'Creates an empty project group. Put projects in it with svc_admin_move_project_to_group.',
    input: CreateProjectGroupDto,
  })
  createGroup(args: CreateProjectGroupDto, ctx: ToolContext) {
    return this.groups.create(ctx.actor, args);
  }

  @Tool({
    name: 'svc_admin_update_project_group',
    permission: 'project:write',
    title: 'Update project group',
    hint: 'WI',
    description: 'Renames a project group or changes its description. View it with svc_get_project_group.',
    input: UpdateProjectGroupArgsDto,
  })
  updateGroup(args: UpdateProjectGroupArgsDto, ctx: ToolContext) {
    return this.groups.update(ctx.actor, args);
  }

  @Tool({
    name: 'svc_admin_delete_project_group',
    permission: 'project:write',
    title: 'Delete project group',
    hint: 'D',
    description: 'Deletes a project group and leaves its projects ungrouped. List groups with svc_get_project_groups.',
    input: GroupRefDto,
  })
  deleteGroup(args: GroupRefDto, ctx: ToolContext) {
    return this.groups.delete(ctx.actor, args);
  }

  @Tool({
    name: 'svc_admin_move_project_to_group',
    permission: 'project:write',
    title: 'Move project to group',
    hint: 'WI',
    description: 'Moves a project into a group, or out of every group with null. View the group with svc_get_project_group.',
    input: MoveProjectArgsDto,
  })
  moveProject(args: MoveProjectArgsDto, ctx: ToolContext) {
    return this.projects.update(ctx.actor, { projectUuid: args.projectUuid, groupUuid: args.groupUuid });
  }
}
