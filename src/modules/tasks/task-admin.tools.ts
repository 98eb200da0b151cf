import { Injectable } from '@nestjs/common';
import { Tool, type ToolContext } from '../tool-kit/index.js';
import { AssignTaskArgsDto, CloseTaskArgsDto, MarkCriteriaArgsDto, ReopenTaskArgsDto } from './dto/task-action.dto.js';
import { TaskRefDto } from './dto/task-query.dto.js';
import { TaskService } from './task.service.js';

/** The PM assignment tool (gate proposal:write) and the task admin tools (gate task:admin). */
@Injectable()
export class TaskAdminTools {
  constructor(private readonly tasks: TaskService) {}

  @Tool({
    name: 'svc_pm_assign_task',
    permission: 'proposal:write',
    title: 'Assign task',
    hint: 'WI',
    description: 'Assigns an open or assigned task to an agent that holds task:write (open -> assigned). That agent starts it with svc_update_task.',
    input: AssignTaskArgsDto,
  })
  assignTask(args: AssignTaskArgsDto, ctx: ToolContext) {
    return this.tasks.assign(ctx.actor, args);
  }

  @Tool({
    name: 'svc_admin_verify_task',
    permission: 'task:admin',
    title: 'Verify task',
    hint: 'W',
    description:
      'Verifies a submitted task once every required criterion is passed (to_verify -> done). Mark criteria first with svc_mark_acceptance_criteria.',
    input: TaskRefDto,
  })
  verifyTask(args: TaskRefDto, ctx: ToolContext) {
    return this.tasks.verify(ctx.actor, args);
  }

  @Tool({
    name: 'svc_admin_reopen_task',
    permission: 'task:admin',
    title: 'Reopen task',
    hint: 'W',
    description:
      'Sends a submitted task back to work, resetting its criteria marks (to_verify -> in_progress). The assignee resubmits with svc_submit_for_verify.',
    input: ReopenTaskArgsDto,
  })
  reopenTask(args: ReopenTaskArgsDto, ctx: ToolContext) {
    return this.tasks.reopen(ctx.actor, args);
  }

  @Tool({
    name: 'svc_admin_close_task',
    permission: 'task:admin',
    title: 'Close task',
    hint: 'D',
    description: 'Closes a task that will not be finished (any -> closed). Review the rest with svc_list_tasks.',
    input: CloseTaskArgsDto,
  })
  closeTask(args: CloseTaskArgsDto, ctx: ToolContext) {
    return this.tasks.close(ctx.actor, args);
  }

  @Tool({
    name: 'svc_mark_acceptance_criteria',
    permission: 'task:admin',
    title: 'Mark acceptance criteria',
    hint: 'WI',
    description: "Marks a task's acceptance criteria passed, failed or pending with evidence. Then call svc_admin_verify_task.",
    input: MarkCriteriaArgsDto,
  })
  markCriteria(args: MarkCriteriaArgsDto, ctx: ToolContext) {
    return this.tasks.markCriteria(ctx.actor, args);
  }

  @Tool({
    name: 'svc_admin_delete_task',
    permission: 'task:admin',
    title: 'Delete task',
    hint: 'D',
    description: 'Deletes a task with its criteria, dependencies, check-ins and comments. Prefer svc_admin_close_task to keep history.',
    input: TaskRefDto,
  })
  deleteTask(args: TaskRefDto, ctx: ToolContext) {
    return this.tasks.delete(ctx.actor, args);
  }
}
