import type { EntityManager } from 'typeorm';
import type { Actor, ActorType } from '../../shared/auth/actor.js';
import type { Tx } from '../../shared/database/transaction-runner.js';
import type { DomainEventName, TaskTransition } from '../../shared/events/domain-events.js';
import { AppError, BlockedError, ForbiddenError, InvalidStateError, NotFoundError } from '../../shared/errors/app-error.js';
import { isUuid } from '../../shared/validation/uuid-param.pipe.js';
import { matchesActor } from '../identity/index.js';
import {
  acceptanceSummary,
  checkTaskTransition,
  sideEffectsOf,
  type TaskStatus,
  type TaskTrigger,
} from './domain/task-transition.js';
import type { TaskEntity } from './task.entity.js';
import { TaskRepository } from './task.repository.js';

/** The domain event each trigger records (shared/events/domain-events.ts). */
const EVENT = {
  claim: 'task.assigned',
  assign: 'task.assigned',
  release: 'task.released',
  start: 'task.status_changed',
  pull_back: 'task.status_changed',
  submit: 'task.submitted',
  verify: 'task.verified',
  reopen: 'task.reopened',
  close: 'task.closed',
  revoke_close: 'task.closed',
} as const satisfies Record<TaskTrigger, DomainEventName>;

const NEEDS_BLOCKERS: ReadonlySet<TaskTrigger> = new Set(['start', 'pull_back', 'reopen']);

/** Statuses in which a task is held by an assignee (claim by the holder is a no-op). */
export const HELD_STATUSES: readonly TaskStatus[] = ['assigned', 'in_progress', 'to_verify'];

/** Loads a task of the caller's company with a row lock: the status checked below cannot change under us. */
export async function lockTask(tx: Tx, taskUuid: string, displayName = 'Task'): Promise<TaskEntity> {
  const task = isUuid(taskUuid) ? await new TaskRepository(tx.manager).lock(tx.actor.companyUuid, taskUuid) : null;
  if (!task) throw new NotFoundError(displayName);
  return task;
}

/** The assignee identity rule (docs/domain.md §3); a user also matches the agents it owns. */
export function isAssignee(em: EntityManager, actor: Actor, task: Pick<TaskEntity, 'assigneeType' | 'assigneeUuid'>): Promise<boolean> {
  return matchesActor(em, actor, { type: task.assigneeType, uuid: task.assigneeUuid });
}

export interface MoveOptions {
  force?: boolean;
  /** FORBIDDEN message of the calling tool for the assignee rule. */
  forbiddenMessage?: string;
  /** The new assignee for assign (claim takes the caller). */
  assignee?: { type: ActorType; uuid: string };
  /** What the transition's event carries besides what the step adds (from/to, assignee, checked-out sessions). */
  activityValue?: TaskTransition | null;
}

/**
 * Every status change of a task goes through here: the single transition check (docs/domain.md §6.3, steps 2–5) on the
 * locked row, then its side effects (step 6), the trigger's activity and the `task updated` event.
 */
export async function moveTask(tx: Tx, task: TaskEntity, trigger: TaskTrigger, opts: MoveOptions = {}): Promise<{ from: TaskStatus; to: TaskStatus }> {
  const tasks = new TaskRepository(tx.manager);
  const actor = tx.actor;
  const criteria = trigger === 'verify' ? await tasks.criteria(task.uuid) : [];
  const result = checkTaskTransition({
    trigger,
    status: task.status,
    callerIsAssignee: await isAssignee(tx.manager, actor, task),
    unresolvedPrerequisites: NEEDS_BLOCKERS.has(trigger) ? await tasks.blockers(task.uuid) : [],
    acceptance: acceptanceSummary(criteria),
    force: opts.force,
    forbiddenMessage: opts.forbiddenMessage,
  });
  if (!result.ok) {
    const { ok: _ok, code, message, ...extra } = result;
    if (code === 'FORBIDDEN') throw new ForbiddenError(message);
    if (code === 'INVALID_STATE') throw new InvalidStateError(message);
    if (result.code === 'BLOCKED') throw new BlockedError(message, result.blockers, { forceable: trigger === 'reopen' });
    throw new AppError(code, message, extra);
  }
  const from = task.status;
  const to = result.to;
  const fx = sideEffectsOf(from, to);
  const patch: Partial<TaskEntity> = { status: to };
  if (fx.clearAssignee) {
    Object.assign(patch, { assigneeType: null, assigneeUuid: null, assignedAt: null, assignedByType: null, assignedByUuid: null });
  }
  if (fx.setAssignee) {
    const who = opts.assignee ?? { type: actor.type, uuid: actor.uuid };
    Object.assign(patch, { assigneeType: who.type, assigneeUuid: who.uuid, assignedAt: new Date(), assignedByType: actor.type, assignedByUuid: actor.uuid });
  }
  if (fx.resetCriteria) await tasks.resetCriteria(task.uuid);
  const closing = { taskUuid: task.uuid, checkedOutSessions: [] as string[] };
  if (fx.checkoutSessions) await tx.dispatch('task.closing', closing);
  const checkedOut = closing.checkedOutSessions;
  await tasks.update(task.uuid, patch);
  Object.assign(task, patch);

  let value: TaskTransition = opts.activityValue ?? {};
  if (EVENT[trigger] === 'task.status_changed') value = { from, to, ...value };
  if (fx.setAssignee) value = { assignee: { type: task.assigneeType, uuid: task.assigneeUuid }, ...value };
  // A revocation's close names its proposal instead (docs/domain.md §5.4); its activity has never listed the sessions.
  if (checkedOut.length && trigger !== 'revoke_close') value = { ...value, checkedOutSessions: checkedOut };
  tx.record(EVENT[trigger], { projectUuid: task.projectUuid, uuid: task.uuid }, value);
  tx.change('task', task.uuid, task.projectUuid, 'updated');
  return { from, to };
}
