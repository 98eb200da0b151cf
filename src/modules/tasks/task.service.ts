import { Injectable } from '@nestjs/common';
import type { Actor, ActorType } from '../../shared/auth/actor.js';
import { TransactionRunner, type Tx } from '../../shared/database/transaction-runner.js';
import { ForbiddenError, InvalidStateError, NotFoundError, ValidationError } from '../../shared/errors/app-error.js';
import { offsetOf, paging, type PageResult, type PagingInput } from '../../shared/validation/paging.js';
import { isUuid } from '../../shared/validation/uuid-param.pipe.js';
import { deleteTargetCollaboration, writeComment } from '../collaboration/index.js';
import { requireAssignable } from '../identity/index.js';
import { normalizeCriteria } from './domain/criteria.js';
import { isResolved } from './domain/dependency.rules.js';
import { cleanTitle, distinctUuids, MAX_WORK_REPORT, requiredText, type MarkInput, type MarkStatus, type OperationalStatus } from './domain/task-fields.js';
import type { TaskStatus } from './domain/task-transition.js';
import type { MarkCriteriaArgsDto, SelfCheckArgsDto } from './dto/task-action.dto.js';
import type { UpdateTaskArgsDto } from './dto/task.dto.js';
import type { TaskEntity, Priority } from './task.entity.js';
import { requireProject, requireTask } from './task.checks.js';
import { createTasksWithin, prepareTasks, type CreateTasksInput } from './task-create.steps.js';
import { applyMarks } from './task-criteria.steps.js';
import { editDependencies } from './task-dependencies.steps.js';
import { HELD_STATUSES, isAssignee, lockTask, moveTask } from './task-lifecycle.steps.js';
import { TaskReadRepository, type TaskFilter } from './task-read.repository.js';
import type { TaskRecord, TaskRecordWithHints, TaskSummary } from './task.records.js';
import { TaskRepository } from './task.repository.js';

export interface TaskListInput extends PagingInput {
  projectUuid: string;
  status?: TaskStatus | null;
  priority?: Priority | null;
  proposalUuids?: string[] | null;
}

export interface TaskList extends PageResult {
  tasks: TaskSummary[];
}

/** The arguments of svc_update_task (its REST body plus the task of the path), checked by the DTO. */
export type UpdateTaskInput = UpdateTaskArgsDto;

const STATUS_FORBIDDEN = "Only the assignee can change this task's status";
const REPORT_FORBIDDEN = 'Only the assignee can report work on this task';

const mark = (uuid: string, status: MarkStatus, evidence: string | undefined): MarkInput => ({ uuid, status, evidence: evidence ?? null });

/**
 * The task aggregate (docs/domain.md §6, docs/tool-conventions.md §5): reads, edits, dependencies, acceptance marks and every status
 * move. Each move goes through `moveTask`, i.e. the single transition check on a row-locked task.
 */
@Injectable()
export class TaskService {
  constructor(
    private readonly runner: TransactionRunner,
    private readonly tasks: TaskRepository,
    private readonly reads: TaskReadRepository,
  ) {}

  // ---- reads ----

  async list(actor: Actor, input: TaskListInput): Promise<TaskList> {
    return this.listWhere(actor, input, { status: input.status ?? null, priority: input.priority ?? null });
  }

  /** Open, unassigned tasks whose prerequisites are all done or closed (docs/tool-conventions.md §5.1); `total` counts these. */
  async listAvailable(actor: Actor, input: Omit<TaskListInput, 'status' | 'priority'>): Promise<TaskList> {
    return this.listWhere(actor, input, { readiness: 'available' });
  }

  /** Open or assigned tasks whose prerequisites are all done or closed (docs/domain.md §6.4). */
  async listUnblocked(actor: Actor, input: Omit<TaskListInput, 'status' | 'priority'>): Promise<TaskList> {
    return this.listWhere(actor, input, { readiness: 'unblocked' });
  }

  async get(actor: Actor, input: { taskUuid: string }): Promise<TaskRecord> {
    const record = isUuid(input.taskUuid) ? await this.reads.record(actor.companyUuid, input.taskUuid) : null;
    if (!record) throw new NotFoundError('Task');
    return record;
  }

  /** One task's summary (check-in results). */
  async summary(actor: Actor, taskUuid: string): Promise<TaskSummary> {
    const [s] = await this.reads.summaries(actor.companyUuid, [taskUuid]);
    if (!s) throw new NotFoundError('Task');
    return s;
  }

  // ---- creation and edits ----

  async createTasks(actor: Actor, input: CreateTasksInput): Promise<{ tasks: TaskSummary[] }> {
    const prepared = prepareTasks(input.tasks);
    const uuids = await this.runner.run(actor, (tx) => createTasksWithin(tx, input, prepared));
    return { tasks: await this.reads.summaries(actor.companyUuid, uuids) };
  }

  async update(actor: Actor, input: UpdateTaskInput): Promise<TaskRecord> {
    const title = input.title === undefined ? undefined : cleanTitle(input.title);
    const { description, priority, storyPoints } = input;
    const criteria = input.acceptanceCriteriaItems === undefined ? undefined : normalizeCriteria(input.acceptanceCriteriaItems);
    const add = distinctUuids(input.addDependsOn);
    const remove = distinctUuids(input.removeDependsOn);
    const status = input.status ?? null;
    const editsEdges = add.length > 0 || remove.length > 0;
    const anything = [title, description, priority, storyPoints, criteria].some((v) => v !== undefined) || editsEdges || status !== null;
    if (!anything) throw new ValidationError('Nothing to update');

    // A copy: the named session is recorded on this call's activities only.
    return this.runner.run({ ...actor }, async (tx) => {
      const tasks = this.tasks.in(tx);
      // The project's dependency lock before the task row lock: one lock order for every dependency edit.
      if (editsEdges) await tasks.lockProjectDependencies((await requireTask(tasks, actor.companyUuid, input.taskUuid)).projectUuid);
      const task = await lockTask(tx, input.taskUuid);
      if (input.sessionUuid != null) await tx.dispatch('session.used', { actor: tx.actor, sessionUuid: input.sessionUuid, operation: 'task update' });
      if (editsEdges) await editDependencies(tx, task, add, remove);

      const patch: Partial<TaskEntity> = {};
      if (title !== undefined && title !== task.title) patch.title = title;
      if (description !== undefined && description !== task.description) patch.description = description;
      if (priority !== undefined && priority !== task.priority) patch.priority = priority;
      if (storyPoints !== undefined && storyPoints !== task.storyPoints) patch.storyPoints = storyPoints;
      const fields: string[] = Object.keys(patch);
      const before = task.description;
      if (fields.length) {
        await tasks.update(task.uuid, patch);
        Object.assign(task, patch);
      }
      if (criteria) {
        await tasks.replaceCriteria(task.uuid, criteria);
        fields.push('acceptanceCriteriaItems');
      }
      if (fields.length) {
        tx.record('task.edited', { projectUuid: task.projectUuid, uuid: task.uuid }, { fields });
        tx.change('task', task.uuid, task.projectUuid, 'updated');
      }
      if (patch.description !== undefined) {
        tx.text({ sourceType: 'task', sourceUuid: task.uuid, entityType: 'task', entityUuid: task.uuid, entityTitle: task.title, projectUuid: task.projectUuid, before, after: task.description });
      }
      if (status) await this.operationalMove(tx, task, status, STATUS_FORBIDDEN);
      return this.result(tx, task);
    });
  }

  // ---- assignment ----

  /** Self-claim (docs/tool-conventions.md §5.4): the holder claiming again gets the record unchanged. */
  async claim(actor: Actor, input: { taskUuid: string }): Promise<TaskRecordWithHints> {
    return this.runner.run(actor, async (tx) => {
      const task = await lockTask(tx, input.taskUuid);
      await this.claimLocked(tx, task);
      return this.withHints(await this.result(tx, task));
    });
  }

  /**
   * The claim path on an already locked task, shared by claim and the session check-in's auto-claim. Returns
   * whether the task was claimed now (false: the caller already held it).
   */
  async claimLocked(tx: Tx, task: TaskEntity): Promise<boolean> {
    if (HELD_STATUSES.includes(task.status) && (await isAssignee(tx.manager, tx.actor, task))) return false;
    await moveTask(tx, task, 'claim');
    return true;
  }

  async release(actor: Actor, input: { taskUuid: string }): Promise<TaskRecord> {
    return this.move(actor, input.taskUuid, (tx, task) => moveTask(tx, task, 'release'));
  }

  /**
   * Assign to a user or a non-archived agent holding task:write (svc_pm_assign_task takes `agentUuid`; REST takes
   * `assigneeType` + `assigneeUuid`). Assigning the current assignee again changes nothing.
   */
  async assign(actor: Actor, input: { taskUuid: string; agentUuid?: string; assigneeType?: ActorType; assigneeUuid?: string }): Promise<TaskRecordWithHints> {
    const target = input.agentUuid !== undefined ? { type: 'agent' as const, uuid: input.agentUuid } : { type: input.assigneeType, uuid: input.assigneeUuid };
    if (target.type !== 'user' && target.type !== 'agent') throw new ValidationError('assigneeType must be user or agent');
    const type: ActorType = target.type;
    return this.runner.run(actor, async (tx) => {
      const task = await lockTask(tx, input.taskUuid);
      const uuid = await requireAssignable(tx.manager, actor.companyUuid, type, target.uuid, 'task:write');
      const unchanged = task.status === 'assigned' && task.assigneeType === type && task.assigneeUuid === uuid;
      if (!unchanged) await moveTask(tx, task, 'assign', { assignee: { type, uuid } });
      return this.withHints(await this.result(tx, task));
    });
  }

  // ---- work ----

  async submitForVerify(actor: Actor, input: { taskUuid: string; summary?: string }): Promise<TaskRecord> {
    const summary = input.summary ?? null;
    return this.move(actor, input.taskUuid, (tx, task) => moveTask(tx, task, 'submit', { activityValue: { summary } }));
  }

  /** The assignee's own pass/fail marks (devStatus); they never count for verification. */
  async selfCheck(actor: Actor, input: SelfCheckArgsDto): Promise<TaskRecord> {
    const marks = input.criteria.map((c) => mark(c.uuid, c.devStatus, c.devEvidence));
    return this.move(actor, input.taskUuid, async (tx, task) => {
      if (!(await isAssignee(tx.manager, actor, task))) throw new ForbiddenError('Only the assignee can self-check this task');
      if (task.status === 'done' || task.status === 'closed') {
        throw new InvalidStateError(`Task is ${task.status}; self-check requires a task that is not done or closed`);
      }
      await applyMarks(tx, task, marks, 'dev');
    });
  }

  /** A work report is a comment by the caller, optionally with a status move; any refusal rejects the whole call. */
  async reportWork(
    actor: Actor,
    input: { taskUuid: string; report: string; status?: OperationalStatus; sessionUuid?: string },
  ): Promise<{ task: TaskRecord; commentUuid: string }> {
    const report = requiredText(input.report, MAX_WORK_REPORT, 'Report');
    const status = input.status ?? null;
    return this.runner.run({ ...actor }, async (tx) => {
      const task = await lockTask(tx, input.taskUuid);
      if (input.sessionUuid != null) await tx.dispatch('session.used', { actor: tx.actor, sessionUuid: input.sessionUuid, operation: 'work report' });
      if (!(await isAssignee(tx.manager, actor, task))) throw new ForbiddenError(REPORT_FORBIDDEN);
      if (status) await this.operationalMove(tx, task, status, REPORT_FORBIDDEN);
      const comment = await writeComment(tx, { type: 'task', uuid: task.uuid, projectUuid: task.projectUuid, title: task.title }, report);
      return { task: await this.result(tx, task), commentUuid: comment.uuid };
    });
  }

  // ---- admin ----

  async verify(actor: Actor, input: { taskUuid: string }): Promise<TaskRecord> {
    return this.move(actor, input.taskUuid, (tx, task) => moveTask(tx, task, 'verify'));
  }

  async reopen(actor: Actor, input: { taskUuid: string; force?: boolean }): Promise<TaskRecord> {
    const force = input.force === true;
    return this.move(actor, input.taskUuid, (tx, task) => moveTask(tx, task, 'reopen', { force, activityValue: { force } }));
  }

  async close(actor: Actor, input: { taskUuid: string; reason?: string }): Promise<TaskRecord> {
    const reason = input.reason ?? null;
    return this.move(actor, input.taskUuid, (tx, task) => moveTask(tx, task, 'close', { activityValue: { reason } }));
  }

  /** Verification marks (status passed / failed / back to pending) with evidence; refused on a closed task. */
  async markCriteria(actor: Actor, input: MarkCriteriaArgsDto): Promise<TaskRecord> {
    const marks = input.criteria.map((c) => mark(c.uuid, c.status, c.evidence));
    return this.move(actor, input.taskUuid, async (tx, task) => {
      if (task.status === 'closed') throw new InvalidStateError('Task is closed; marking criteria requires a task that is not closed');
      await applyMarks(tx, task, marks, 'verify');
    });
  }

  /** Deletes the task with its edges, criteria, check-ins, comments and references (docs/domain.md §8). */
  async delete(actor: Actor, input: { taskUuid: string }): Promise<{ uuid: string; deleted: true }> {
    return this.runner.run(actor, async (tx) => {
      const tasks = this.tasks.in(tx);
      const task = await lockTask(tx, input.taskUuid);
      const neighbours = await tasks.neighbours(task.uuid);
      await deleteTargetCollaboration(tx.manager, actor.companyUuid, 'task', [task.uuid]);
      await tx.dispatch('task.deleting', { taskUuid: task.uuid });
      await tasks.delete(task.uuid);
      tx.record('task.deleted', { projectUuid: task.projectUuid, uuid: task.uuid }, { title: task.title });
      tx.change('task', task.uuid, task.projectUuid, 'deleted');
      for (const n of neighbours) tx.change('task', n.uuid, n.projectUuid, 'updated');
      return { uuid: task.uuid, deleted: true as const };
    });
  }

  // ---- internals ----

  /** Runs one mutation on a locked task and returns the task's record as the transaction left it. */
  private move(actor: Actor, taskUuid: string, work: (tx: Tx, task: TaskEntity) => Promise<unknown>): Promise<TaskRecord> {
    return this.runner.run(actor, async (tx) => {
      const task = await lockTask(tx, taskUuid);
      await work(tx, task);
      return this.result(tx, task);
    });
  }

  /** A mutation's answer: the task's record as its transaction left it. */
  private async result(tx: Tx, task: TaskEntity): Promise<TaskRecord> {
    // The record is read in the transaction, so it sees every write: it needs only the task's uuid and company,
    // not the row read back first.
    return this.reads.in(tx).recordOf(task);
  }

  /** svc_update_task / svc_report_work status: start, submit or pull back, chosen by the current status. */
  private async operationalMove(tx: Tx, task: TaskEntity, status: OperationalStatus, forbiddenMessage: string): Promise<void> {
    const trigger = status === 'to_verify' ? 'submit' : task.status === 'to_verify' ? 'pull_back' : 'start';
    await moveTask(tx, task, trigger, { forbiddenMessage });
  }

  private async listWhere(
    actor: Actor,
    input: Omit<TaskListInput, 'status' | 'priority'>,
    filter: Pick<TaskFilter, 'status' | 'priority' | 'readiness'>,
  ): Promise<TaskList> {
    const p = paging(input);
    await requireProject(this.tasks, actor.companyUuid, input.projectUuid);
    const { uuids, total } = await this.reads.page(
      {
        companyUuid: actor.companyUuid,
        projectUuid: input.projectUuid,
        ...filter,
        proposalUuids: input.proposalUuids != null ? distinctUuids(input.proposalUuids) : null,
      },
      p.pageSize,
      offsetOf(p),
    );
    return { tasks: await this.reads.summaries(actor.companyUuid, uuids), page: p.page, pageSize: p.pageSize, total };
  }

  /** `hints` of claim and assign results (docs/tool-conventions.md §5.4), present only when there is something to say. */
  private withHints(record: TaskRecord): TaskRecordWithHints {
    const hints: string[] = [];
    const waiting = record.dependsOn.filter((d) => !isResolved(d.status));
    if (waiting.length) hints.push(`BLOCKED: waiting for ${waiting.map((d) => d.title).join(', ')}`);
    if (record.dependedBy.length) hints.push(`UNBLOCKS: ${record.dependedBy.map((d) => d.title).join(', ')}`);
    return hints.length ? { ...record, hints } : record;
  }

}
