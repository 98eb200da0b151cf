import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import type { Actor } from '../../shared/auth/actor.js';
import { identitySql } from '../../shared/auth/identity-rule.js';
import { Repository } from '../../shared/database/repository.js';
import { findInCompany } from '../../shared/database/tenant.js';
import { IdeaEntity, type ElaborationStatus, type IdeaStatus } from './idea.entity.js';

/**
 * One query for the derived status of some ideas: the ideas plus their whole descendant subtrees (themes derive
 * from their children), each with its pending round, proposal and latest-approved-task facts. `UNION` (not ALL)
 * keeps a corrupt parent cycle from recursing forever.
 */
const FACTS_SQL = `
WITH RECURSIVE tree AS (
  SELECT i.uuid, i.parent_uuid, i.is_container, i.status, i.elaboration_status
  FROM idea i WHERE i.company_uuid = $1 AND i.uuid = ANY($2::uuid[])
  UNION
  SELECT c.uuid, c.parent_uuid, c.is_container, c.status, c.elaboration_status
  FROM idea c JOIN tree t ON c.parent_uuid = t.uuid WHERE c.company_uuid = $1
)
SELECT t.uuid, t.parent_uuid, t.is_container, t.status, t.elaboration_status,
  EXISTS (SELECT 1 FROM elaboration_round r WHERE r.idea_uuid = t.uuid AND r.status = 'pending_answers') AS has_pending_round,
  pc.pending_count, pc.active_count,
  la.uuid AS latest_uuid, lt.total, lt.to_verify, lt.finished
FROM tree t
LEFT JOIN LATERAL (
  SELECT count(*) FILTER (WHERE p.status = 'pending')::int AS pending_count,
         count(*) FILTER (WHERE p.status IN ('pending', 'approved'))::int AS active_count
  FROM proposal p
  WHERE p.company_uuid = $1 AND p.input_type = 'idea' AND p.input_uuids @> ARRAY[t.uuid]
) pc ON true
LEFT JOIN LATERAL (
  SELECT p.uuid FROM proposal p
  WHERE p.company_uuid = $1 AND p.status = 'approved' AND p.input_type = 'idea' AND p.input_uuids @> ARRAY[t.uuid]
  ORDER BY p.reviewed_at DESC NULLS LAST, p.uuid DESC LIMIT 1
) la ON true
LEFT JOIN LATERAL (
  SELECT count(*)::int AS total,
         count(*) FILTER (WHERE k.status = 'to_verify')::int AS to_verify,
         count(*) FILTER (WHERE k.status IN ('done', 'closed'))::int AS finished
  FROM task k WHERE k.company_uuid = $1 AND k.proposal_uuid = la.uuid
) lt ON true`;

export interface FactsRow {
  uuid: string;
  parent_uuid: string | null;
  is_container: boolean;
  status: IdeaStatus;
  elaboration_status: ElaborationStatus | null;
  has_pending_round: boolean;
  pending_count: number;
  active_count: number;
  latest_uuid: string | null;
  total: number;
  to_verify: number;
  finished: number;
}

export interface TrackedIdeaRow {
  uuid: string;
  title: string;
  status: IdeaStatus;
  elaboration_status: ElaborationStatus | null;
  updated_at: Date;
  project_uuid: string;
  project_name: string;
}

type IdeaChanges = QueryDeepPartialEntity<IdeaEntity>;
const uuids = (rows: Array<{ uuid: string }>): string[] => rows.map((r) => r.uuid);

/**
 * The `idea` table (README "Table ownership": ideas own it), tenant-scoped in every statement. What an idea record
 * and an idea move need of proposals, documents and tasks is read here with plain SQL: those modules cannot be
 * imported back (README "Table ownership", imports follow the writes).
 */
export class IdeaRepository extends Repository {
  /** A page of the project's ideas (of one status, if given), newest first, and their total. */
  page(scope: { companyUuid: string; projectUuid: string }, status: IdeaStatus | undefined, skip: number, take: number): Promise<[IdeaEntity[], number]> {
    return this.em.findAndCount(IdeaEntity, {
      where: { ...scope, ...(status ? { status } : {}) },
      order: { createdAt: 'DESC', uuid: 'ASC' },
      skip,
      take,
    });
  }

  /** The company's idea; another company's is "<displayName> not found". */
  get(uuid: string, companyUuid: string, displayName = 'Idea'): Promise<IdeaEntity> {
    return findInCompany(this.em, IdeaEntity, uuid, companyUuid, displayName);
  }

  /** The idea row, locked FOR UPDATE: every status check of a mutation runs on a locked row. */
  lock(uuid: string, companyUuid: string): Promise<IdeaEntity> {
    return findInCompany(this.em, IdeaEntity, uuid, companyUuid, 'Idea', true);
  }

  async add(row: Omit<IdeaEntity, 'assigneeType' | 'assigneeUuid' | 'assignedAt' | 'assignedByType' | 'assignedByUuid' | 'elaborationDepth' | 'elaborationStatus' | 'createdAt' | 'updatedAt'>): Promise<void> {
    await this.em.insert(IdeaEntity, row);
  }

  async change(uuid: string, companyUuid: string, changes: IdeaChanges): Promise<void> {
    await this.em.update(IdeaEntity, { uuid, companyUuid }, changes);
  }

  async remove(uuid: string, companyUuid: string): Promise<void> {
    await this.em.delete(IdeaEntity, { uuid, companyUuid });
  }

  /** Locks the idea's children and makes them top-level; returns their uuids. */
  async detachChildren(companyUuid: string, parentUuid: string): Promise<string[]> {
    const children = await this.em.find(IdeaEntity, { where: { companyUuid, parentUuid }, select: { uuid: true }, lock: { mode: 'pessimistic_write' } });
    if (children.length) await this.em.update(IdeaEntity, { companyUuid, parentUuid }, { parentUuid: null });
    return uuids(children);
  }

  /** Whether `ideaUuid` is `parentUuid` or one of its ancestors. */
  async isAncestorOrSelf(companyUuid: string, ideaUuid: string, parentUuid: string): Promise<boolean> {
    const cycle: unknown[] = await this.em.query(
      `WITH RECURSIVE up AS (
         SELECT uuid, parent_uuid FROM idea WHERE company_uuid = $1 AND uuid = $2
         UNION
         SELECT i.uuid, i.parent_uuid FROM idea i JOIN up ON i.uuid = up.parent_uuid WHERE i.company_uuid = $1
       ) SELECT 1 FROM up WHERE uuid = $3`,
      [companyUuid, parentUuid, ideaUuid],
    );
    return cycle.length > 0;
  }

  /** Status facts of the ideas and all their descendants (other companies' ideas are never read). */
  facts(companyUuid: string, ideaUuids: readonly string[]): Promise<FactsRow[]> {
    return this.em.query(FACTS_SQL, [companyUuid, [...new Set(ideaUuids)]]);
  }

  /** The ideas assigned to the actor (identity rule), newest update first, with their projects' names. */
  tracked(actor: Actor, projectScope: string[] | null, limit: number | undefined): Promise<TrackedIdeaRow[]> {
    const mine = identitySql(actor, 'i.assignee', 2);
    const params: unknown[] = [actor.companyUuid, ...mine.params];
    let sql = `SELECT i.uuid, i.title, i.status, i.elaboration_status, i.updated_at, i.project_uuid, p.name AS project_name
      FROM idea i JOIN project p ON p.uuid = i.project_uuid AND p.company_uuid = i.company_uuid
      WHERE i.company_uuid = $1 AND ${mine.sql}`;
    if (projectScope) {
      params.push(projectScope);
      sql += ` AND i.project_uuid = ANY($${params.length}::uuid[])`;
    }
    sql += ` ORDER BY i.updated_at DESC, i.uuid ASC`;
    if (limit !== undefined) {
      params.push(limit);
      sql += ` LIMIT $${params.length}`;
    }
    return this.em.query(sql, params);
  }

  // The parts of an idea record.

  async parent(companyUuid: string, uuid: string): Promise<{ uuid: string; title: string } | undefined> {
    const [parent]: Array<{ uuid: string; title: string }> = await this.em.query(`SELECT uuid, title FROM idea WHERE company_uuid = $1 AND uuid = $2`, [companyUuid, uuid]);
    return parent;
  }

  children(companyUuid: string, uuid: string): Promise<Array<{ uuid: string; title: string; status: IdeaStatus }>> {
    return this.em.query(`SELECT uuid, title, status FROM idea WHERE company_uuid = $1 AND parent_uuid = $2 ORDER BY created_at ASC, uuid ASC`, [companyUuid, uuid]);
  }

  /** The proposals listing the idea as input, oldest first. */
  proposals(companyUuid: string, uuid: string): Promise<Array<{ uuid: string; title: string; status: string }>> {
    return this.em.query(
      `SELECT uuid, title, status FROM proposal
     WHERE company_uuid = $1 AND input_type = 'idea' AND input_uuids @> ARRAY[$2::uuid] ORDER BY created_at ASC, uuid ASC`,
      [companyUuid, uuid],
    );
  }

  /** The reports of those proposals, newest first. */
  reports(companyUuid: string, proposalUuids: string[]): Promise<Array<{ uuid: string; title: string; proposal_uuid: string; created_at: Date }>> {
    return this.em.query(
      `SELECT uuid, title, proposal_uuid, created_at FROM document
         WHERE company_uuid = $1 AND type = 'report' AND proposal_uuid = ANY($2::uuid[]) ORDER BY created_at DESC, uuid ASC`,
      [companyUuid, proposalUuids],
    );
  }

  // An idea move: everything moved is row-locked first, in this order; each owner then moves its own rows.

  /** The idea and its whole subtree, oldest first, locked. */
  async lockSubtree(companyUuid: string, uuid: string): Promise<string[]> {
    return uuids(
      await this.em.query(
        `WITH RECURSIVE tree AS (
         SELECT uuid FROM idea WHERE company_uuid = $1 AND uuid = $2
         UNION
         SELECT c.uuid FROM idea c JOIN tree t ON c.parent_uuid = t.uuid WHERE c.company_uuid = $1
       ) SELECT i.uuid FROM idea i JOIN tree USING (uuid) ORDER BY i.created_at ASC, i.uuid ASC FOR UPDATE OF i`,
        [companyUuid, uuid],
      ),
    );
  }

  /** Every proposal naming one of the ideas as input, oldest first, locked. */
  async lockProposalsOf(companyUuid: string, ideaUuids: string[]): Promise<string[]> {
    return uuids(
      await this.em.query(
        `SELECT uuid FROM proposal WHERE company_uuid = $1 AND input_type = 'idea' AND input_uuids && $2::uuid[]
       ORDER BY created_at ASC, uuid ASC FOR UPDATE`,
        [companyUuid, ideaUuids],
      ),
    );
  }

  /** The proposals' tasks, oldest first, locked. */
  async lockTasksOf(companyUuid: string, proposalUuids: string[]): Promise<string[]> {
    return uuids(await this.em.query(`SELECT uuid FROM task WHERE company_uuid = $1 AND proposal_uuid = ANY($2::uuid[]) ORDER BY created_at ASC, uuid ASC FOR UPDATE`, [companyUuid, proposalUuids]));
  }

  /** The proposals' documents, oldest first, locked. */
  async lockDocumentsOf(companyUuid: string, proposalUuids: string[]): Promise<string[]> {
    return uuids(await this.em.query(`SELECT uuid FROM document WHERE company_uuid = $1 AND proposal_uuid = ANY($2::uuid[]) ORDER BY created_at ASC, uuid ASC FOR UPDATE`, [companyUuid, proposalUuids]));
  }

  /** Whether a dependency edge joins one of the tasks to a task outside them. */
  async dependencyCrosses(taskUuids: string[]): Promise<boolean> {
    const crossing: unknown[] = await this.em.query(
      `SELECT 1 FROM task_dependency
       WHERE (task_uuid = ANY($1::uuid[])) <> (depends_on_uuid = ANY($1::uuid[])) LIMIT 1`,
      [taskUuids],
    );
    return crossing.length > 0;
  }

  async moveToProject(companyUuid: string, ideaUuids: string[], projectUuid: string): Promise<void> {
    await this.em.query(`UPDATE idea SET project_uuid = $1, updated_at = now() WHERE company_uuid = $2 AND uuid = ANY($3::uuid[])`, [projectUuid, companyUuid, ideaUuids]);
  }

  async clearParent(companyUuid: string, uuid: string): Promise<void> {
    await this.em.query(`UPDATE idea SET parent_uuid = NULL WHERE company_uuid = $1 AND uuid = $2`, [companyUuid, uuid]);
  }
}
