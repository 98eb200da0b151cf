import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { Tool, uuid, type ToolContext } from '../tools/index.js';
import { TaskService } from './task.service.js';

/** Inputs of tools.md §5.6 (assign) and §5.8 (task admin tools). */
const taskRef = z.strictObject({ taskUuid: uuid('The task') });
const assign = z.strictObject({
  taskUuid: uuid('The task, open or assigned'),
  agentUuid: uuid('A non-archived agent of your company that holds task:write'),
});
const reopen = z.strictObject({
  taskUuid: uuid('The task, in to_verify'),
  force: z.boolean().optional().describe('Reopen even while prerequisites are not done or closed (default false)'),
});
const close = z.strictObject({
  taskUuid: uuid('The task, in any status but closed'),
  reason: z.string().max(2000).optional().describe('Why the task will not be finished, at most 2000 characters'),
});
const mark = z.strictObject({
  taskUuid: uuid('The task, not closed'),
  criteria: z
    .array(
      z.strictObject({
        uuid: uuid('A criterion of this task'),
        status: z.enum(['passed', 'failed', 'pending']).describe('Verification result; pending clears the mark'),
        evidence: z.string().max(2000).optional().describe('Evidence, at most 2000 characters'),
      }),
    )
    .min(1)
    .max(50)
    .describe('1-50 criteria marks'),
});

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
    input: assign,
  })
  assignTask(args: z.infer<typeof assign>, ctx: ToolContext) {
    return this.tasks.assign(ctx.actor, args);
  }

  @Tool({
    name: 'svc_admin_verify_task',
    permission: 'task:admin',
    title: 'Verify task',
    hint: 'W',
    description:
      'Verifies a submitted task once every required criterion is passed (to_verify -> done). Mark criteria first with svc_mark_acceptance_criteria.',
    input: taskRef,
  })
  verifyTask(args: z.infer<typeof taskRef>, ctx: ToolContext) {
    return this.tasks.verify(ctx.actor, args);
  }

  @Tool({
    name: 'svc_admin_reopen_task',
    permission: 'task:admin',
    title: 'Reopen task',
    hint: 'W',
    description:
      'Sends a submitted task back to work, resetting its criteria marks (to_verify -> in_progress). The assignee resubmits with svc_submit_for_verify.',
    input: reopen,
  })
  reopenTask(args: z.infer<typeof reopen>, ctx: ToolContext) {
    return this.tasks.reopen(ctx.actor, args);
  }

  @Tool({
    name: 'svc_admin_close_task',
    permission: 'task:admin',
    title: 'Close task',
    hint: 'D',
    description: 'Closes a task that will not be finished (any -> closed). Review the rest with svc_list_tasks.',
    input: close,
  })
  closeTask(args: z.infer<typeof close>, ctx: ToolContext) {
    return this.tasks.close(ctx.actor, args);
  }

  @Tool({
    name: 'svc_mark_acceptance_criteria',
    permission: 'task:admin',
    title: 'Mark acceptance criteria',
    hint: 'WI',
    description: "Marks a task's acceptance criteria passed, failed or pending with evidence. Then call svc_admin_verify_task.",
    input: mark,
  })
  markCriteria(args: z.infer<typeof mark>, ctx: ToolContext) {
    return this.tasks.markCriteria(ctx.actor, args);
  }

  @Tool({
    name: 'svc_admin_delete_task',
    permission: 'task:admin',
    title: 'Delete task',
    hint: 'D',
    description: 'Deletes a task with its criteria, dependencies, check-ins and comments. Prefer svc_admin_close_task to keep history.',
    input: taskRef,
  })
  deleteTask(args: z.infer<typeof taskRef>, ctx: ToolContext) {
    return this.tasks.delete(ctx.actor, args);
  }
}
