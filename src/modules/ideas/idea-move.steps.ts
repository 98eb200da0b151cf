import type { Tx } from '../../shared/database/transaction-runner.js';
import { ConflictError, ValidationError } from '../../shared/errors/app-error.js';
import { moveDocumentsToProject } from '../documents/index.js';
import { findProject } from '../projects/index.js';
import { moveProposalsToProject } from '../proposals/index.js';
import { moveTasksToProject } from '../tasks/index.js';
import { IdeaRepository } from './idea.repository.js';

export interface MovedCounts {
  ideas: number;
  proposals: number;
  documents: number;
  tasks: number;
}

/**
 * docs/domain.md §8 "Move idea", inside the caller's transaction: the idea and its whole subtree, every proposal naming one
 * of them as input, and every task and document of those proposals go to the target project. The root leaves its
 * parent behind. Refused when a dependency edge would cross projects. Everything moved is row-locked first (plain
 * reads of the other modules' tables); each owner then moves its own rows.
 */
export async function moveIdea(tx: Tx, input: { ideaUuid: string; targetProjectUuid: string }): Promise<MovedCounts> {
  const ideas = new IdeaRepository(tx.manager);
  const company = tx.actor.companyUuid;
  const idea = await ideas.lock(input.ideaUuid, company);
  const target = await findProject(tx.manager, input.targetProjectUuid, company, 'Target project');
  if (idea.projectUuid === target.uuid) throw new ValidationError('Idea is already in the target project');
  const source = idea.projectUuid;

  const ideaUuids = await ideas.lockSubtree(company, idea.uuid);
  const proposalUuids = await ideas.lockProposalsOf(company, ideaUuids);
  const taskUuids = proposalUuids.length ? await ideas.lockTasksOf(company, proposalUuids) : [];
  const documentUuids = proposalUuids.length ? await ideas.lockDocumentsOf(company, proposalUuids) : [];

  if (taskUuids.length && (await ideas.dependencyCrosses(taskUuids))) {
    throw new ConflictError('Idea cannot be moved: a moved task depends on or is depended on by a task that stays');
  }

  await ideas.moveToProject(company, ideaUuids, target.uuid);
  if (idea.parentUuid) await ideas.clearParent(company, idea.uuid);
  await moveProposalsToProject(tx, proposalUuids, target.uuid);
  await moveTasksToProject(tx, taskUuids, target.uuid);
  await moveDocumentsToProject(tx, documentUuids, target.uuid);

  const moved: MovedCounts = { ideas: ideaUuids.length, proposals: proposalUuids.length, documents: documentUuids.length, tasks: taskUuids.length };
  // A moved idea publishes `updated` in both projects (docs/platform.md §6.1); the parent left behind loses a child.
  for (const uuid of ideaUuids) tx.change('idea', uuid, source, 'updated');
  if (idea.parentUuid) tx.change('idea', idea.parentUuid, source, 'updated');
  for (const uuid of ideaUuids) tx.change('idea', uuid, target.uuid, 'updated');
  for (const uuid of proposalUuids) tx.change('proposal', uuid, target.uuid, 'updated');
  for (const uuid of taskUuids) tx.change('task', uuid, target.uuid, 'updated');
  for (const uuid of documentUuids) tx.change('document', uuid, target.uuid, 'updated');

  const from = { fromProjectUuid: source, toProjectUuid: target.uuid };
  tx.record('idea.moved', { projectUuid: target.uuid, uuid: idea.uuid }, { ...from, detachedFromParentUuid: idea.parentUuid, moved });
  const follow = (name: 'idea.moved' | 'proposal.moved' | 'task.moved' | 'document.moved', list: string[]): void => {
    for (const uuid of list) if (uuid !== idea.uuid) tx.record(name, { projectUuid: target.uuid, uuid }, { ...from, withIdeaUuid: idea.uuid });
  };
  follow('idea.moved', ideaUuids);
  follow('proposal.moved', proposalUuids);
  follow('task.moved', taskUuids);
  follow('document.moved', documentUuids);
  return moved;
}
