import { randomUUID } from 'node:crypto';
import type { ActorType } from '../../shared/auth/actor.js';
import type { Tx } from '../../shared/database/transaction-runner.js';
import { moveTask } from './task-lifecycle.steps.js';
import type { Priority } from './task.entity.js';
import { TaskRepository } from './task.repository.js';

/*
 * What other modules do to tasks inside their own transactions: a proposal's approval creates them, its revocation
 * closes them through the single transition, its deletion unlinks them, and an idea move carries them along.
 */

/** The approved proposal the tasks come from: they belong to its project and count as created by its creator. */
export interface TaskOrigin {
  uuid: string;
  companyUuid: string;
  projectUuid: string;
  createdByType: ActorType;
  createdByUuid: string;
}

/** A proposal's task draft (docs/domain.md §5.2), as stored on the proposal. */
export interface TaskDraftSource {
  uuid: string;
  title: string;
  description: string;
  priority: Priority | null;
  storyPoints: number | null;
  acceptanceCriteriaItems: Array<{ description: string; required: boolean }>;
  dependsOnDraftUuids: string[];
}

/**
 * Approval (docs/domain.md §5.3 steps 3–4): one open task per draft, with its criteria in order and the dependencies
 * between drafts. `at` stamps the drafts in order (now() is fixed for the transaction). Records each task's
 * `created` event, activity and mentions.
 */
export async function createTasksFromProposal(
  tx: Tx,
  origin: TaskOrigin,
  drafts: readonly TaskDraftSource[],
  at: number,
): Promise<Array<{ draftUuid: string; taskUuid: string; title: string }>> {
  const tasks = new TaskRepository(tx.manager);
  const taskOfDraft = new Map<string, string>();
  const created: Array<{ draftUuid: string; taskUuid: string; title: string }> = [];
  for (const [i, t] of drafts.entries()) {
    const taskUuid = randomUUID();
    taskOfDraft.set(t.uuid, taskUuid);
    await tasks.insert({
      companyUuid: origin.companyUuid,
      projectUuid: origin.projectUuid,
      proposalUuid: origin.uuid,
      createdByType: origin.createdByType,
      createdByUuid: origin.createdByUuid,
      createdAt: new Date(at + i),
      updatedAt: new Date(at + i),
      uuid: taskUuid,
      title: t.title,
      description: t.description ?? '',
      status: 'open',
      priority: t.priority ?? 'medium',
      storyPoints: t.storyPoints ?? null,
    });
    const criteria = t.acceptanceCriteriaItems.filter((c) => c.description.trim() !== '');
    if (criteria.length) {
      await tasks.insertCriteria(
        taskUuid,
        criteria.map((c) => ({ description: c.description.trim(), required: c.required ?? true })),
      );
    }
    created.push({ draftUuid: t.uuid, taskUuid, title: t.title });
    tx.change('task', taskUuid, origin.projectUuid, 'created');
    tx.record('task.created', { projectUuid: origin.projectUuid, uuid: taskUuid }, { proposalUuid: origin.uuid });
    tx.text({ sourceType: 'task', sourceUuid: taskUuid, entityType: 'task', entityUuid: taskUuid, entityTitle: t.title, projectUuid: origin.projectUuid, before: null, after: t.description ?? '' });
  }
  // Submission validated the draft graph (E7); entries that name no draft are skipped rather than trusted.
  const edges = drafts.flatMap((t) =>
    (t.dependsOnDraftUuids ?? [])
      .filter((dep) => dep !== t.uuid && taskOfDraft.has(dep))
      .map((dep) => ({ taskUuid: taskOfDraft.get(t.uuid)!, dependsOnUuid: taskOfDraft.get(dep)! })),
  );
  if (edges.length) await tasks.addDependencies(edges);
  return created;
}

/**
 * Revocation (docs/domain.md §5.4 steps 1–2): every task of the proposal that is not closed is closed through the single
 * transition (`revoke_close`: criteria reset, check-ins checked out), then edges where an outside task depends on
 * one of them are deleted. Returns the tasks closed.
 */
export async function closeTasksOfRevokedProposal(tx: Tx, proposalUuid: string): Promise<Array<{ uuid: string; title: string }>> {
  const tasks = await new TaskRepository(tx.manager).lockOfProposal(tx.actor.companyUuid, proposalUuid);
  const closed: Array<{ uuid: string; title: string }> = [];
  for (const task of tasks.filter((t) => t.status !== 'closed')) {
    // The revoke's own guard (creator or proposal:admin) stands in for the task's actor rule.
    await moveTask(tx, task, 'revoke_close', { activityValue: { from: task.status, proposalUuid, reason: 'proposal_revoked' } });
    closed.push({ uuid: task.uuid, title: task.title });
  }
  await unlinkOutsideDependents(tx, tasks.map((t) => t.uuid));
  return closed;
}

/** Deletes edges where a task outside `own` depends on one of them; edges among `own` stay. */
async function unlinkOutsideDependents(tx: Tx, own: string[]): Promise<void> {
  if (own.length === 0) return;
  const tasks = new TaskRepository(tx.manager);
  const edges = await tasks.outsideDependents(own);
  if (edges.length === 0) return;
  await tasks.deleteOutsideDependents(own);
  for (const e of edges) {
    tx.change('task', e.taskUuid, e.projectUuid, 'updated');
    tx.record('task.dependency_removed', { projectUuid: e.projectUuid, uuid: e.taskUuid }, { dependsOnUuid: e.dependsOnUuid });
  }
}

/** A deleted proposal's tasks stay, unlinked; returns them for the caller's change events. */
export async function unlinkTasksFromProposal(tx: Tx, proposalUuid: string): Promise<Array<{ uuid: string; projectUuid: string }>> {
  return new TaskRepository(tx.manager).unlinkProposal(tx.actor.companyUuid, proposalUuid);
}

/** An idea move (docs/domain.md §8) carries these tasks, already locked by the caller, to the target project. */
export async function moveTasksToProject(tx: Tx, taskUuids: readonly string[], projectUuid: string): Promise<void> {
  if (!taskUuids.length) return;
  await new TaskRepository(tx.manager).moveToProject(tx.actor.companyUuid, taskUuids, projectUuid);
}
