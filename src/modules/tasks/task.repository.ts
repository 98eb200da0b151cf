import { randomUUID } from 'node:crypto';
import { In } from 'typeorm';
import { PersonResolver } from '../../shared/database/person.js';
import { preparedQuery, type PreparedStatement } from '../../shared/database/prepared.js';
import { Repository } from '../../shared/database/repository.js';
import { DependencyGraph, type DependencyEdge } from './domain/dependency.rules.js';
import type { Blocker, TaskStatus } from './domain/task-transition.js';
import { AcceptanceCriterionEntity, TaskDependencyEntity, TaskEntity } from './task.entity.js';
import { taskPeople, toAssignee } from './task.records.js';

/** The columns a new task row is given; the rest take their defaults. */
export type NewTaskRow = Pick<
  TaskEntity,
  'uuid' | 'companyUuid' | 'projectUuid' | 'proposalUuid' | 'title' | 'description' | 'status' | 'priority' | 'storyPoints' | 'createdByType' | 'createdByUuid'
> &
  Partial<Pick<TaskEntity, 'createdAt' | 'updatedAt'>>;

/** The marks of a criterion a self-check or a verification writes. */
export type CriterionMarks = Partial<Omit<AcceptanceCriterionEntity, 'uuid' | 'taskUuid' | 'createdAt' | 'updatedAt'>>;

const UNMARKED: CriterionMarks = {
  devStatus: 'pending',
  devEvidence: null,
  devMarkedByType: null,
  devMarkedByUuid: null,
  devMarkedAt: null,
  status: 'pending',
  evidence: null,
  markedByType: null,
  markedByUuid: null,
  markedAt: null,
};

/** A task row's columns in the entity's order, as TaskEntity's properties. */
const TASK_COLUMNS = `uuid, company_uuid AS "companyUuid", project_uuid AS "projectUuid", proposal_uuid AS "proposalUuid", title, description,
  status, priority, story_points::text AS "storyPoints", assignee_type AS "assigneeType", assignee_uuid AS "assigneeUuid",
  assigned_at AS "assignedAt", assigned_by_type AS "assignedByType", assigned_by_uuid AS "assignedByUuid",
  created_by_type AS "createdByType", created_by_uuid AS "createdByUuid", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** Every mutation of a task starts here: a named prepared statement on the transaction's connection. */
const TASK_LOCK: PreparedStatement = { name: 'svc_task_lock', text: `SELECT ${TASK_COLUMNS} FROM task WHERE uuid = $1 AND company_uuid = $2 FOR UPDATE` };

/** The row as TypeORM would have built it: a TaskEntity, story points a number. */
function taskEntity(row: Omit<TaskEntity, 'storyPoints'> & { storyPoints: string | null }): TaskEntity {
  return Object.assign(new TaskEntity(), row, { storyPoints: row.storyPoints === null ? null : Number(row.storyPoints) });
}

/** The columns svc_update_task edits, and the prepared UPDATE of each combination of them (at most 15). */
const EDITABLE: Partial<Record<keyof TaskEntity, string>> = { title: 'title', description: 'description', priority: 'priority', storyPoints: 'story_points' };
const TASK_UPDATES = new Map<string, PreparedStatement>();

function taskUpdate(fields: ReadonlyArray<keyof TaskEntity>): PreparedStatement {
  const key = fields.join(',');
  let statement = TASK_UPDATES.get(key);
  if (!statement) {
    const sets = fields.map((f, i) => `${EDITABLE[f]} = $${i + 2}`).join(', ');
    statement = { name: `svc_task_update_${fields.join('_')}`, text: `UPDATE task SET ${sets}, updated_at = CURRENT_TIMESTAMP WHERE uuid = $1` };
    TASK_UPDATES.set(key, statement);
  }
  return statement;
}

/**
 * The task aggregate's rows — tasks, their acceptance criteria and their dependency edges — for mutations: locks,
 * the reads a transition checks, and every write (README "Table ownership": this module owns the three tables).
 * The answers' reads (records, lists, the tracker) are TaskReadRepository's. Tenant scoping is in each statement
 * that starts from a caller's uuid; statements that start from a locked task reach its rows by its uuid.
 */
export class TaskRepository extends Repository {
  // ---- task rows ----

  /** A task of the company, or null. */
  find(companyUuid: string, uuid: string): Promise<TaskEntity | null> {
    return this.em.findOne(TaskEntity, { where: { uuid, companyUuid } });
  }

  /** A task of the company with a row lock (FOR UPDATE): the status checked next cannot change under the caller. */
  async lock(companyUuid: string, uuid: string): Promise<TaskEntity | null> {
    const [row] = await preparedQuery<Omit<TaskEntity, 'storyPoints'> & { storyPoints: string | null }>(this.em, TASK_LOCK, [uuid, companyUuid]);
    return row ? taskEntity(row) : null;
  }

  /** The row of a task already found, as the transaction now sees it. */
  reload(uuid: string): Promise<TaskEntity> {
    return this.em.findOneByOrFail(TaskEntity, { uuid });
  }

  /** Tasks of the company among `uuids` (unknown ones are missing from the answer). */
  findMany(companyUuid: string, uuids: string[]): Promise<TaskEntity[]> {
    return this.em.find(TaskEntity, { where: { uuid: In(uuids), companyUuid } });
  }

  /** Tasks among `uuids` whatever their company: the other ends of edges a locked task names. */
  findByUuids(uuids: string[]): Promise<TaskEntity[]> {
    return this.em.find(TaskEntity, { where: { uuid: In(uuids) } });
  }

  /** The tasks of a proposal, oldest first, each row locked. */
  lockOfProposal(companyUuid: string, proposalUuid: string): Promise<TaskEntity[]> {
    return this.em.find(TaskEntity, {
      where: { companyUuid, proposalUuid },
      order: { createdAt: 'ASC', uuid: 'ASC' },
      lock: { mode: 'pessimistic_write' },
    });
  }

  async insert(row: NewTaskRow): Promise<void> {
    await this.em.insert(TaskEntity, row);
  }

  async update(uuid: string, patch: Partial<TaskEntity>): Promise<void> {
    // An edit of the editable fields (svc_update_task) is a prepared statement per combination, in a fixed order;
    // any other patch goes through TypeORM. Both set updated_at as the entity's UpdateDateColumn does.
    const fields = (Object.keys(EDITABLE) as Array<keyof TaskEntity>).filter((f) => f in patch);
    if (fields.length && fields.length === Object.keys(patch).length) {
      await preparedQuery(this.em, taskUpdate(fields), [uuid, ...fields.map((f) => patch[f])]);
      return;
    }
    await this.em.update(TaskEntity, { uuid }, patch);
  }

  /** Carries tasks of the company to another project. */
  async moveToProject(companyUuid: string, uuids: readonly string[], projectUuid: string): Promise<void> {
    await this.em.query(`UPDATE task SET project_uuid = $1, updated_at = now() WHERE company_uuid = $2 AND uuid = ANY($3::uuid[])`, [
      projectUuid,
      companyUuid,
      [...uuids],
    ]);
  }

  /** Clears the proposal of its tasks; returns the tasks it had. */
  async unlinkProposal(companyUuid: string, proposalUuid: string): Promise<Array<{ uuid: string; projectUuid: string }>> {
    const scope = { companyUuid, proposalUuid };
    const tasks = await this.em.find(TaskEntity, { where: scope, select: { uuid: true, projectUuid: true } });
    await this.em.update(TaskEntity, scope, { proposalUuid: null });
    return tasks.map((t) => ({ uuid: t.uuid, projectUuid: t.projectUuid }));
  }

  /** The tasks at the other end of a task's dependency edges, either way. */
  async neighbours(uuid: string): Promise<Array<{ uuid: string; projectUuid: string }>> {
    const rows: Array<{ uuid: string; project_uuid: string }> = await this.em.query(
      `SELECT uuid, project_uuid FROM task WHERE uuid IN (
         SELECT depends_on_uuid FROM task_dependency WHERE task_uuid = $1
         UNION SELECT task_uuid FROM task_dependency WHERE depends_on_uuid = $1)`,
      [uuid],
    );
    return rows.map((r) => ({ uuid: r.uuid, projectUuid: r.project_uuid }));
  }

  /** Deletes a task with its edges (both ways) and its criteria. */
  async delete(uuid: string): Promise<void> {
    await this.em.query(`DELETE FROM task_dependency WHERE task_uuid = $1 OR depends_on_uuid = $1`, [uuid]);
    await this.em.delete(AcceptanceCriterionEntity, { taskUuid: uuid });
    await this.em.delete(TaskEntity, { uuid });
  }

  // ---- acceptance criteria ----

  criteria(taskUuid: string): Promise<AcceptanceCriterionEntity[]> {
    return this.em.find(AcceptanceCriterionEntity, { where: { taskUuid } });
  }

  /** Inserts criteria in the given order (their sort order), unmarked. */
  async insertCriteria(taskUuid: string, criteria: ReadonlyArray<{ description: string; required: boolean }>): Promise<void> {
    await this.em.insert(
      AcceptanceCriterionEntity,
      criteria.map((c, i) => ({ uuid: randomUUID(), taskUuid, description: c.description, required: c.required, sortOrder: i })),
    );
  }

  /** Replacing the list deletes every row with its marks and recreates them in input order (docs/domain.md §6.5). */
  async replaceCriteria(taskUuid: string, criteria: ReadonlyArray<{ description: string; required: boolean }>): Promise<void> {
    await this.em.delete(AcceptanceCriterionEntity, { taskUuid });
    await this.insertCriteria(taskUuid, criteria);
  }

  async markCriterion(uuid: string, marks: CriterionMarks): Promise<void> {
    await this.em.update(AcceptanceCriterionEntity, { uuid }, marks);
  }

  /** Resets self-check and verification marks of every criterion of a task (docs/domain.md §6.3 step 6). */
  async resetCriteria(taskUuid: string): Promise<void> {
    await this.em.update(AcceptanceCriterionEntity, { taskUuid }, { ...UNMARKED });
  }

  // ---- dependencies ----

  /**
   * Serialises dependency edits inside one project (a transaction-scoped advisory lock), so two concurrent edits
   * cannot each pass the cycle check and together close a cycle. Taken before the task row lock (see
   * TaskService.update) to keep lock order fixed.
   */
  async lockProjectDependencies(projectUuid: string): Promise<void> {
    await this.em.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`task-dependencies:${projectUuid}`]);
  }

  /** Every dependency edge of the project's tasks. */
  async projectGraph(projectUuid: string): Promise<DependencyGraph> {
    const rows: Array<{ task_uuid: string; depends_on_uuid: string }> = await this.em.query(
      `SELECT d.task_uuid, d.depends_on_uuid FROM task_dependency d JOIN task t ON t.uuid = d.task_uuid WHERE t.project_uuid = $1`,
      [projectUuid],
    );
    return new DependencyGraph(rows.map((r) => ({ taskUuid: r.task_uuid, dependsOnUuid: r.depends_on_uuid })));
  }

  async addDependencies(edges: DependencyEdge[]): Promise<void> {
    await this.em.insert(TaskDependencyEntity, edges);
  }

  async removeDependencies(taskUuid: string, dependsOnUuids: string[]): Promise<void> {
    await this.em.delete(TaskDependencyEntity, { taskUuid, dependsOnUuid: In(dependsOnUuids) });
  }

  /** Prerequisites that are neither done nor closed, as BLOCKED lists them. */
  async blockers(taskUuid: string): Promise<Blocker[]> {
    const prereqs = await this.em
      .createQueryBuilder(TaskEntity, 't')
      .innerJoin('task_dependency', 'd', 'd.depends_on_uuid = t.uuid')
      .where('d.task_uuid = :taskUuid', { taskUuid })
      .andWhere(`t.status NOT IN ('done', 'closed')`)
      .orderBy('d.created_at')
      .addOrderBy('t.uuid')
      .getMany();
    const people = await PersonResolver.load(this.em, prereqs.flatMap(taskPeople));
    return prereqs.map((t) => ({ uuid: t.uuid, title: t.title, status: t.status as TaskStatus, assignee: toAssignee(t, people) }));
  }

  /** Edges where a task outside `own` depends on one of them, with the dependent's project, oldest dependent first. */
  async outsideDependents(own: string[]): Promise<Array<DependencyEdge & { projectUuid: string }>> {
    const rows: Array<{ task_uuid: string; depends_on_uuid: string; project_uuid: string }> = await this.em.query(
      `SELECT d.task_uuid, d.depends_on_uuid, t.project_uuid
         FROM task_dependency d JOIN task t ON t.uuid = d.task_uuid
        WHERE d.depends_on_uuid = ANY($1::uuid[]) AND NOT (d.task_uuid = ANY($1::uuid[]))
        ORDER BY t.created_at, d.task_uuid, d.depends_on_uuid`,
      [own],
    );
    return rows.map((r) => ({ taskUuid: r.task_uuid, dependsOnUuid: r.depends_on_uuid, projectUuid: r.project_uuid }));
  }

  /** Deletes the edges `outsideDependents` lists; edges among `own` stay. */
  async deleteOutsideDependents(own: string[]): Promise<void> {
    await this.em
      .createQueryBuilder()
      .delete()
      .from(TaskDependencyEntity)
      .where('depends_on_uuid IN (:...own) AND task_uuid NOT IN (:...own)', { own })
      .execute();
  }

  // ---- the scope of a task call: other modules' rows, read with plain SQL (README "Table ownership") ----

  /**
   * A project of the company, or null. Plain SQL on purpose: the projects and proposals modules build on this one
   * (task counts, approval), so importing them here would close an import cycle.
   */
  async project(companyUuid: string, projectUuid: string): Promise<{ uuid: string; name: string } | null> {
    const [row]: Array<{ uuid: string; name: string }> = await this.em.query(`SELECT uuid, name FROM project WHERE uuid = $1 AND company_uuid = $2`, [
      projectUuid,
      companyUuid,
    ]);
    return row ?? null;
  }

  /** The status of a proposal of the project, or null: one of another project is as unknown as a missing one. */
  async proposalStatus(companyUuid: string, projectUuid: string, proposalUuid: string): Promise<string | null> {
    const [row]: Array<{ status: string }> = await this.em.query(`SELECT status FROM proposal WHERE uuid = $1 AND company_uuid = $2 AND project_uuid = $3`, [
      proposalUuid,
      companyUuid,
      projectUuid,
    ]);
    return row?.status ?? null;
  }
}
