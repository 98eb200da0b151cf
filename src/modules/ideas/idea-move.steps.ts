import type { Tx } from '../../shared/database/transaction-runner.js';
import { ConflictError, ValidationError } from '../../shared/errors/app-error.js';
import { findInCompany } from '../../shared/database/tenant.js';
import { moveDocumentsToProject } from '../documents/index.js';
import { findProject } from '../projects/index.js';
import { moveProposalsToProject } from '../proposals/index.js';
import { moveTasksToProject } from '../tasks/index.js';
import { IdeaEntity } from './idea.entity.js';

export interface MovedCounts {
  ideas: number;
  proposals: number;
  documents: number;
  tasks: number;
}

const uuids = (rows: Array<{ uuid: string }>): string[] => rows.map((r) => r.uuid);

/**
 * domain.md §8 "Move idea", inside the caller's transaction: the idea and its whole subtree, every proposal naming one
 * of them as input, and every task and document of those proposals go to the target project. The root leaves its
 * parent behind. Refused when a dependency edge would cross projects. Everything moved is row-locked first (plain
 * reads of the other modules' tables); each owner then moves its own rows.
 */
export async function moveIdea(tx: Tx, input: { ideaUuid: string; targetProjectUuid: string }): Promise<MovedCounts> {
  const em = tx.manager;
  const company = tx.actor.companyUuid;
  const idea = await findInCompany(em, IdeaEntity, input.ideaUuid, company, 'Idea', true);
  const target = await findProject(em, input.targetProjectUuid, company, 'Target project');
  if (idea.projectUuid === target.uuid) throw new ValidationError('Idea is already in the target project');
  const source = idea.projectUuid;

  const ideaUuids = uuids(
    await em.query(
      `WITH RECURSIVE tree AS (
         SELECT uuid FROM idea WHERE company_uuid = $1 AND uuid = $2
         UNION
         SELECT c.uuid FROM idea c JOIN tree t ON c.parent_uuid = t.uuid WHERE c.company_uuid = $1
       ) SELECT i.uuid FROM idea i JOIN tree USING (uuid) ORDER BY i.created_at ASC, i.uuid ASC FOR UPDATE OF i`,
      [company, idea.uuid],
    ),
  );
  const proposalUuids = uuids(
    await em.query(
      `SELECT uuid FROM proposal WHERE company_uuid = $1 AND input_type = 'idea' AND input_uuids && $2::uuid[]
       ORDER BY created_at ASC, uuid ASC FOR UPDATE`,
      [company, ideaUuids],
    ),
  );
  const taskUuids = proposalUuids.length
    ? uuids(await em.query(`SELECT uuid FROM task WHERE company_uuid = $1 AND proposal_uuid = ANY($2::uuid[]) ORDER BY created_at ASC, uuid ASC FOR UPDATE`, [company, proposalUuids]))
    : [];
  const documentUuids = proposalUuids.length
    ? uuids(await em.query(`SELECT uuid FROM document WHERE company_uuid = $1 AND proposal_uuid = ANY($2::uuid[]) ORDER BY created_at ASC, uuid ASC FOR UPDATE`, [company, proposalUuids]))
    : [];

  if (taskUuids.length) {
    const crossing: unknown[] = await em.query(
      `SELECT 1 FROM task_dependency
       WHERE (task_uuid = ANY($1::uuid[])) <> (depends_on_uuid = ANY($1::uuid[])) LIMIT 1`,
      [taskUuids],
    );
    if (crossing.length) throw new ConflictError('Idea cannot be moved: a moved task depends on or is depended on by a task that stays');
  }

  await em.query(`UPDATE idea SET project_uuid = $1, updated_at = now() WHERE company_uuid = $2 AND uuid = ANY($3::uuid[])`, [target.uuid, company, ideaUuids]);
  if (idea.parentUuid) await em.query(`UPDATE idea SET parent_uuid = NULL WHERE company_uuid = $1 AND uuid = $2`, [company, idea.uuid]);
  await moveProposalsToProject(tx, proposalUuids, target.uuid);
  await moveTasksToProject(tx, taskUuids, target.uuid);
  await moveDocumentsToProject(tx, documentUuids, target.uuid);

  const moved: MovedCounts = { ideas: ideaUuids.length, proposals: proposalUuids.length, documents: documentUuids.length, tasks: taskUuids.length };
  // A moved idea publishes `updated` in both projects (platform.md §6.1); the parent left behind loses a child.
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
