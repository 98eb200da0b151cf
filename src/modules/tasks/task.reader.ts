import { In, type EntityManager } from 'typeorm';
import { PersonResolver } from '../../shared/database/person.js';
import { countComments, listForTarget } from '../collaboration/index.js';
import { acceptanceStatus, acceptanceSummary, type Blocker, type TaskStatus } from './domain/task-transition.js';
import { AcceptanceCriterionEntity, TaskEntity } from './task.entity.js';
import {
  criterionPeople,
  taskPeople,
  toAssignee,
  toCriterionRecord,
  toTaskSummary,
  type ActiveSession,
  type TaskLink,
  type TaskRecord,
  type TaskSummary,
} from './task.records.js';

/** Sort order of every task listing (tools.md §5.1): priority rank desc, newest first, uuid. */
export const TASK_LIST_ORDER = 't.priority_rank DESC, t.created_at DESC, t.uuid ASC';

/**
 * Loads task records from any EntityManager (the data source for reads, the transaction's manager for results of
 * a mutation). Every query is scoped by company through the task row it starts from.
 */
export const TaskReader = {
  async acceptanceCounts(em: EntityManager, taskUuids: string[]): Promise<Map<string, { passed: number; total: number }>> {
    const out = new Map<string, { passed: number; total: number }>();
    if (!taskUuids.length) return out;
    const rows: Array<{ task_uuid: string; passed: number; total: number }> = await em.query(
      `SELECT task_uuid, count(*)::int AS total, (count(*) FILTER (WHERE status = 'passed'))::int AS passed
         FROM acceptance_criterion WHERE task_uuid = ANY($1::uuid[]) GROUP BY task_uuid`,
      [taskUuids],
    );
    for (const r of rows) out.set(r.task_uuid, { passed: r.passed, total: r.total });
    return out;
  },

  /** Summaries of the given tasks of the company, in the given order (unknown uuids are skipped). */
  async summaries(em: EntityManager, companyUuid: string, uuids: string[]): Promise<TaskSummary[]> {
    if (!uuids.length) return [];
    const tasks = await em.find(TaskEntity, { where: { uuid: In(uuids), companyUuid } });
    const byUuid = new Map(tasks.map((t) => [t.uuid, t]));
    const counts = await TaskReader.acceptanceCounts(em, uuids);
    const people = await PersonResolver.load(em, tasks.flatMap(taskPeople));
    return uuids
      .filter((u) => byUuid.has(u))
      .map((u) => toTaskSummary(byUuid.get(u)!, counts.get(u) ?? { passed: 0, total: 0 }, people));
  },

  /** One page of task uuids matching `where` (SQL on alias `t`), with the total count. */
  async page(em: EntityManager, where: string, params: unknown[], limit: number, offset: number): Promise<{ uuids: string[]; total: number }> {
    const [{ total }]: Array<{ total: number }> = await em.query(`SELECT count(*)::int AS total FROM task t WHERE ${where}`, params);
    const rows: Array<{ uuid: string }> = await em.query(
      `SELECT t.uuid FROM task t WHERE ${where} ORDER BY ${TASK_LIST_ORDER} LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, limit, offset],
    );
    return { uuids: rows.map((r) => r.uuid), total };
  },

  async links(em: EntityManager, taskUuid: string, direction: 'dependsOn' | 'dependedBy'): Promise<TaskLink[]> {
    const [mine, other] = direction === 'dependsOn' ? ['task_uuid', 'depends_on_uuid'] : ['depends_on_uuid', 'task_uuid'];
    return em.query(
      `SELECT t.uuid, t.title, t.status FROM task_dependency d JOIN task t ON t.uuid = d.${other}
        WHERE d.${mine} = $1 ORDER BY d.created_at, t.uuid`,
      [taskUuid],
    );
  },

  /** Prerequisites that are neither done nor closed, as BLOCKED lists them. */
  async blockers(em: EntityManager, taskUuid: string): Promise<Blocker[]> {
    const prereqs = await em
      .createQueryBuilder(TaskEntity, 't')
      .innerJoin('task_dependency', 'd', 'd.depends_on_uuid = t.uuid')
      .where('d.task_uuid = :taskUuid', { taskUuid })
      .andWhere(`t.status NOT IN ('done', 'closed')`)
      .orderBy('d.created_at')
      .addOrderBy('t.uuid')
      .getMany();
    const people = await PersonResolver.load(em, prereqs.flatMap(taskPeople));
    return prereqs.map((t) => ({ uuid: t.uuid, title: t.title, status: t.status as TaskStatus, assignee: toAssignee(t, people) }));
  },

  async activeSessions(em: EntityManager, taskUuid: string): Promise<ActiveSession[]> {
    const rows: Array<{ session_uuid: string; name: string; agent_uuid: string; checkin_at: Date }> = await em.query(
      `SELECT c.session_uuid, s.name, s.agent_uuid, c.checkin_at FROM session_task_checkin c
         JOIN agent_session s ON s.uuid = c.session_uuid
        WHERE c.task_uuid = $1 AND c.checkout_at IS NULL ORDER BY c.checkin_at, c.session_uuid`,
      [taskUuid],
    );
    return rows.map((r) => ({ sessionUuid: r.session_uuid, sessionName: r.name, agentUuid: r.agent_uuid, checkinAt: r.checkin_at.toISOString() }));
  },

  async record(em: EntityManager, task: TaskEntity): Promise<TaskRecord> {
    const criteria = await em.find(AcceptanceCriterionEntity, { where: { taskUuid: task.uuid }, order: { sortOrder: 'ASC', uuid: 'ASC' } });
    const [dependsOn, dependedBy, activeSessions, commentCount, references] = await Promise.all([
      TaskReader.links(em, task.uuid, 'dependsOn'),
      TaskReader.links(em, task.uuid, 'dependedBy'),
      TaskReader.activeSessions(em, task.uuid),
      countComments(em, task.companyUuid, 'task', task.uuid),
      listForTarget(em, task.companyUuid, 'task', task.uuid),
    ]);
    const people = await PersonResolver.load(em, [...taskPeople(task), ...criteria.flatMap(criterionPeople)]);
    const summary = acceptanceSummary(criteria);
    return {
      ...toTaskSummary(task, { passed: summary.passed, total: summary.total }, people),
      description: task.description,
      createdBy: people.person({ type: task.createdByType, uuid: task.createdByUuid }),
      acceptanceCriteriaItems: criteria.map((c) => toCriterionRecord(c, people)),
      acceptanceStatus: acceptanceStatus(summary),
      acceptanceSummary: summary,
      dependsOn,
      dependedBy,
      activeSessions,
      commentCount,
      references,
    };
  },
};
