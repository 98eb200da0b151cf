import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { criteriaItems, paging, priority, references, storyPoints, taskStatus, title, Tool, uuid, type ToolContext } from '../tools/index.js';
import { TaskService } from './task.service.js';

/** Inputs of tools.md §5.1, §5.2 and §5.4; the service applies the text limits after trimming. */
const taskRef = z.strictObject({ taskUuid: uuid('The task') });
const proposalFilter = z.array(uuid()).max(20).optional().describe('Only tasks of these proposals, at most 20 uuids');
const listScope = {
  projectUuid: uuid('The project whose tasks are listed'),
  proposalUuids: proposalFilter,
  ...paging,
};
const listTasks = z.strictObject({
  ...listScope,
  status: taskStatus.optional().describe('Only tasks in this status'),
  priority: priority.optional().describe('Only tasks of this priority'),
});
const filteredList = z.strictObject(listScope);
const operationalStatus = z.enum(['in_progress', 'to_verify']);
const sessionUuid = uuid('One of your active sessions; recorded on the activity and counted as a heartbeat').optional();
const description = z.string().max(100_000);

const newTask = z.strictObject({
  title: title('Task title, 1-200 characters'),
  description: description.optional().describe('Markdown description, at most 100000 characters; @mentions notify'),
  priority: priority.optional().describe('Priority (default medium)'),
  storyPoints: storyPoints.optional().describe('Estimate, 0-1000'),
  acceptanceCriteriaItems: criteriaItems,
  draftUuid: z.string().min(1).max(64).optional().describe('Batch-local id, unique in this call, that other items can depend on'),
  dependsOnDraftUuids: z.array(z.string().min(1).max(64)).optional().describe('draftUuids of other items of this call that must finish first'),
  dependsOnTaskUuids: z.array(uuid()).optional().describe('Existing tasks of the project that must finish first'),
  references,
});
const createTasks = z.strictObject({
  projectUuid: uuid('The project to create the tasks in'),
  proposalUuid: uuid('An approved proposal of the same project the tasks belong to').optional(),
  tasks: z.array(newTask).min(1).max(50).describe('1-50 tasks, created all or nothing, returned in input order'),
});
const updateTask = z.strictObject({
  taskUuid: uuid('The task'),
  status: operationalStatus.optional().describe('Assignee only: in_progress (from assigned or to_verify) or to_verify (from in_progress)'),
  sessionUuid,
  title: title('New title, 1-200 characters').optional(),
  description: description.optional().describe('New description, at most 100000 characters'),
  priority: priority.optional().describe('New priority'),
  storyPoints: storyPoints.nullable().optional().describe('New estimate 0-1000, or null to clear it'),
  acceptanceCriteriaItems: criteriaItems.optional().describe('Replaces every criterion and discards their marks; 1-50 items'),
  addDependsOn: z.array(uuid()).optional().describe('Tasks of the same project this task now depends on'),
  removeDependsOn: z.array(uuid()).optional().describe('Prerequisites to remove'),
});
const submit = z.strictObject({
  taskUuid: uuid('The task, in_progress and assigned to you'),
  summary: z.string().max(10_000).optional().describe('What was done, at most 10000 characters'),
});
const selfCheck = z.strictObject({
  taskUuid: uuid('The task assigned to you'),
  criteria: z
    .array(
      z.strictObject({
        uuid: uuid('A criterion of this task'),
        devStatus: z.enum(['passed', 'failed']).describe('Your own result'),
        devEvidence: z.string().max(2000).optional().describe('Evidence, at most 2000 characters'),
      }),
    )
    .min(1)
    .max(50)
    .describe('1-50 criteria marks'),
});
const reportWork = z.strictObject({
  taskUuid: uuid('The task assigned to you'),
  report: z.string().min(1).max(20_000).describe('Progress report, 1-20000 characters, stored as your comment on the task'),
  status: operationalStatus.optional().describe('Also move the task: in_progress (from assigned) or to_verify (from in_progress)'),
  sessionUuid,
});

/** Public task reads and writes, and the developer tools (gate task:write). */
@Injectable()
export class TaskTools {
  constructor(private readonly tasks: TaskService) {}

  @Tool({
    name: 'svc_get_task',
    title: 'Get task',
    hint: 'R',
    description: 'Returns one task with criteria, dependencies, active sessions and references. Claim it with svc_claim_task while it is open.',
    input: taskRef,
  })
  getTask(args: z.infer<typeof taskRef>, ctx: ToolContext) {
    return this.tasks.get(ctx.actor, args);
  }

  @Tool({
    name: 'svc_list_tasks',
    title: 'List tasks',
    hint: 'R',
    description: "Lists a project's tasks by priority, with optional status, priority and proposal filters. Open one with svc_get_task.",
    input: listTasks,
  })
  listTasks(args: z.infer<typeof listTasks>, ctx: ToolContext) {
    return this.tasks.list(ctx.actor, args);
  }

  @Tool({
    name: 'svc_get_available_tasks',
    title: 'Get available tasks',
    hint: 'R',
    description: "Lists a project's open, unassigned tasks by priority. Claim one with svc_claim_task (open -> assigned).",
    input: filteredList,
  })
  availableTasks(args: z.infer<typeof filteredList>, ctx: ToolContext) {
    return this.tasks.listAvailable(ctx.actor, args);
  }

  @Tool({
    name: 'svc_get_unblocked_tasks',
    title: 'Get unblocked tasks',
    hint: 'R',
    description: 'Lists open or assigned tasks whose prerequisites are all done or closed. Claim one with svc_claim_task (open -> assigned).',
    input: filteredList,
  })
  unblockedTasks(args: z.infer<typeof filteredList>, ctx: ToolContext) {
    return this.tasks.listUnblocked(ctx.actor, args);
  }

  @Tool({
    name: 'svc_create_tasks',
    title: 'Create tasks',
    hint: 'W',
    description: 'Creates tasks in a project (-> open), each with at least one acceptance criterion and optional dependencies. Claim one with svc_claim_task.',
    input: createTasks,
  })
  createTasks(args: z.infer<typeof createTasks>, ctx: ToolContext) {
    return this.tasks.createTasks(ctx.actor, args);
  }

  @Tool({
    name: 'svc_update_task',
    title: 'Update task',
    hint: 'W',
    description:
      "Edits a task's fields, criteria or dependencies, or as its assignee moves it (assigned -> in_progress, in_progress -> to_verify, to_verify -> in_progress). Finish with svc_submit_for_verify.",
    input: updateTask,
  })
  updateTask(args: z.infer<typeof updateTask>, ctx: ToolContext) {
    return this.tasks.update(ctx.actor, args);
  }

  @Tool({
    name: 'svc_claim_task',
    permission: 'task:write',
    title: 'Claim task',
    hint: 'WI',
    description: 'Claims an open task for yourself (open -> assigned). Start it with svc_update_task status in_progress.',
    input: taskRef,
  })
  claimTask(args: z.infer<typeof taskRef>, ctx: ToolContext) {
    return this.tasks.claim(ctx.actor, args);
  }

  @Tool({
    name: 'svc_release_task',
    permission: 'task:write',
    title: 'Release task',
    hint: 'W',
    description: 'Gives back a task you claimed but have not started (assigned -> open). Find other work with svc_get_available_tasks.',
    input: taskRef,
  })
  releaseTask(args: z.infer<typeof taskRef>, ctx: ToolContext) {
    return this.tasks.release(ctx.actor, args);
  }

  @Tool({
    name: 'svc_submit_for_verify',
    permission: 'task:write',
    title: 'Submit task for verification',
    hint: 'W',
    description:
      'Submits your finished task for verification with an optional summary (in_progress -> to_verify). Record criteria results first with svc_report_criteria_self_check.',
    input: submit,
  })
  submitForVerify(args: z.infer<typeof submit>, ctx: ToolContext) {
    return this.tasks.submitForVerify(ctx.actor, args);
  }

  @Tool({
    name: 'svc_report_criteria_self_check',
    permission: 'task:write',
    title: 'Report criteria self-check',
    hint: 'WI',
    description:
      "Records your own pass or fail for the task's acceptance criteria; verification still needs an admin. Then call svc_submit_for_verify.",
    input: selfCheck,
  })
  selfCheck(args: z.infer<typeof selfCheck>, ctx: ToolContext) {
    return this.tasks.selfCheck(ctx.actor, args);
  }

  @Tool({
    name: 'svc_report_work',
    permission: 'task:write',
    title: 'Report work',
    hint: 'W',
    description:
      'Posts a progress report on your task as a comment and can move it (assigned -> in_progress, in_progress -> to_verify). Submit with svc_submit_for_verify when finished.',
    input: reportWork,
  })
  reportWork(args: z.infer<typeof reportWork>, ctx: ToolContext) {
    return this.tasks.reportWork(ctx.actor, args);
  }
}
