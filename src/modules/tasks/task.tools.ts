import { Injectable } from '@nestjs/common';
import { Tool, type ToolContext } from '../tool-kit/index.js';
import { TaskPageDto, TaskRecordDto } from './dto/task-record.dto.js';
import { SelfCheckArgsDto, SubmitTaskArgsDto, WorkReportArgsDto } from './dto/task-action.dto.js';
import { ListTasksArgsDto, TaskFilterArgsDto, TaskRefDto } from './dto/task-query.dto.js';
import { CreateTasksArgsDto, UpdateTaskArgsDto } from './dto/task.dto.js';
import { TaskService } from './task.service.js';

/** Public task reads and writes, and the developer tools (gate task:write). */
@Injectable()
export class TaskTools {
  constructor(private readonly tasks: TaskService) {}

  @Tool({
    name: 'svc_get_task',
    title: 'Get task',
    hint: 'R',
    description: 'Returns one task with criteria, dependencies, active sessions and references. Claim it with svc_claim_task while it is open.',
    input: TaskRefDto,
    output: TaskRecordDto,
  })
  getTask(args: TaskRefDto, ctx: ToolContext) {
    return this.tasks.get(ctx.actor, args);
  }

  @Tool({
    name: 'svc_list_tasks',
    title: 'List tasks',
    hint: 'R',
    description: "Lists a project's tasks by priority, with optional status, priority and proposal filters. Open one with svc_get_task.",
    input: ListTasksArgsDto,
    output: TaskPageDto,
  })
  listTasks(args: ListTasksArgsDto, ctx: ToolContext) {
    return this.tasks.list(ctx.actor, args);
  }

  @Tool({
    name: 'svc_get_available_tasks',
    title: 'Get available tasks',
    hint: 'R',
    description: "Lists a project's open, unassigned tasks whose prerequisites are finished, by priority. Claim one with svc_claim_task (open -> assigned).",
    input: TaskFilterArgsDto,
    output: TaskPageDto,
  })
  availableTasks(args: TaskFilterArgsDto, ctx: ToolContext) {
    return this.tasks.listAvailable(ctx.actor, args);
  }

  @Tool({
    name: 'svc_get_unblocked_tasks',
    title: 'Get unblocked tasks',
    hint: 'R',
    description: 'Lists open or assigned tasks whose prerequisites are all done or closed. Claim one with svc_claim_task (open -> assigned).',
    input: TaskFilterArgsDto,
    output: TaskPageDto,
  })
  unblockedTasks(args: TaskFilterArgsDto, ctx: ToolContext) {
    return this.tasks.listUnblocked(ctx.actor, args);
  }

  @Tool({
    name: 'svc_create_tasks',
    title: 'Create tasks',
    hint: 'W',
    description: 'Creates tasks in a project (-> open), each with at least one acceptance criterion and optional dependencies. Claim one with svc_claim_task.',
    input: CreateTasksArgsDto,
  })
  createTasks(args: CreateTasksArgsDto, ctx: ToolContext) {
    return this.tasks.createTasks(ctx.actor, args);
  }

  @Tool({
    name: 'svc_update_task',
    title: 'Update task',
    hint: 'W',
    description:
      "Edits a task's fields, criteria or dependencies, or as its assignee moves it (assigned -> in_progress, in_progress -> to_verify, to_verify -> in_progress). Finish with svc_submit_for_verify.",
    input: UpdateTaskArgsDto,
  })
  updateTask(args: UpdateTaskArgsDto, ctx: ToolContext) {
    return this.tasks.update(ctx.actor, args);
  }

  @Tool({
    name: 'svc_claim_task',
    permission: 'task:write',
    title: 'Claim task',
    hint: 'WI',
    description: 'Claims an open task for yourself (open -> assigned). Start it with svc_update_task status in_progress.',
    input: TaskRefDto,
  })
  claimTask(args: TaskRefDto, ctx: ToolContext) {
    return this.tasks.claim(ctx.actor, args);
  }

  @Tool({
    name: 'svc_release_task',
    permission: 'task:write',
    title: 'Release task',
    hint: 'W',
    description: 'Gives back a task you claimed but have not started (assigned -> open). Find other work with svc_get_available_tasks.',
    input: TaskRefDto,
  })
  releaseTask(args: TaskRefDto, ctx: ToolContext) {
    return this.tasks.release(ctx.actor, args);
  }

  @Tool({
    name: 'svc_submit_for_verify',
    permission: 'task:write',
    title: 'Submit task for verification',
    hint: 'W',
    description:
      'Submits your finished task for verification with an optional summary (in_progress -> to_verify). Record criteria results first with svc_report_criteria_self_check.',
    input: SubmitTaskArgsDto,
  })
  submitForVerify(args: SubmitTaskArgsDto, ctx: ToolContext) {
    return this.tasks.submitForVerify(ctx.actor, args);
  }

  @Tool({
    name: 'svc_report_criteria_self_check',
    permission: 'task:write',
    title: 'Report criteria self-check',
    hint: 'WI',
    description:
      "Records your own pass or fail for the task's acceptance criteria; verification still needs an admin. Then call svc_submit_for_verify.",
    input: SelfCheckArgsDto,
  })
  selfCheck(args: SelfCheckArgsDto, ctx: ToolContext) {
    return this.tasks.selfCheck(ctx.actor, args);
  }

  @Tool({
    name: 'svc_report_work',
    permission: 'task:write',
    title: 'Report work',
    hint: 'W',
    description:
      'Posts a progress report on your task as a comment and can move it (assigned -> in_progress, in_progress -> to_verify). Submit with svc_submit_for_verify when finished.',
    input: WorkReportArgsDto,
  })
  reportWork(args: WorkReportArgsDto, ctx: ToolContext) {
    return this.tasks.reportWork(ctx.actor, args);
  }
}
