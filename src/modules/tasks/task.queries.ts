import pg from 'pg';
import { In, type EntityManager } from 'typeorm';
import { PersonResolver, type PersonRows } from '../../shared/database/person.js';
import { preparedQuery } from '../../shared/database/prepared.js';
import { toReferenceRecord, type ReferenceEntity } from '../collaboration/index.js';
import { acceptanceStatus, acceptanceSummary, type Blocker, type TaskStatus } from './domain/task-transition.js';
import { TaskEntity } from './task.entity.js';
import {
  taskPeople,
  toAssignee,
  toCriterionRecord,
  toTaskSummary,
  type ActiveSession,
  type CriterionFields,
  type TaskLink,
  type TaskRecord,
  type TaskSummary,
} from './task.records.js';

/** Sort order of every task listing (tools.md §5.1): priority rank desc, newest first, uuid. */
export const TASK_LIST_ORDER = 't.priority_rank DESC, t.created_at DESC, t.uuid ASC';

/** The people rows named by a task, its criteria and its references, of one kind (`= 'user'` or `<> 'user'`). */
const peopleOf = (kind: string): string => `
         SELECT t.assignee_uuid WHERE t.assignee_type ${kind} UNION ALL SELECT t.assigned_by_uuid WHERE t.assigned_by_type ${kind}
         UNION ALL SELECT t.created_by_uuid WHERE t.created_by_type ${kind}
         UNION ALL SELECT c.dev_marked_by_uuid FROM acceptance_criterion c WHERE c.task_uuid = t.uuid AND c.dev_marked_by_type ${kind}
         UNION ALL SELECT c.marked_by_uuid FROM acceptance_criterion c WHERE c.task_uuid = t.uuid AND c.marked_by_type ${kind}
         UNION ALL SELECT r.created_by_uuid FROM reference r
          WHERE r.company_uuid = t.company_uuid AND r.target_type = 'task' AND r.target_uuid = t.uuid AND r.created_by_type ${kind}`;

/**
 * A whole TaskRecord in one statement and one JSON value: one round trip instead of eight (on a busy host each
 * round trip is a socket write and a wake-up of the server, the bulk of a read tool's cost), and one column to
 * decode instead of dozens (BENCHMARKS.md "MCP"). Timestamps come as text, parsed below with pg's own timestamptz
 * parser, and story points as numeric text, so every value is the one the column would have given; orders are the
 * ones the separate queries had. The comment count and references are the collaboration module's tables, read here
 * as TaskQueries already reads the session tables.
 */
const TASK_RECORD = {
  name: 'svc_task_record',
  text: `
SELECT json_build_object(
  'uuid', t.uuid, 'companyUuid', t.company_uuid, 'projectUuid', t.project_uuid, 'proposalUuid', t.proposal_uuid, 'title', t.title,
  'description', t.description, 'status', t.status, 'priority', t.priority, 'storyPoints', t.story_points::text,
  'assigneeType', t.assignee_type, 'assigneeUuid', t.assignee_uuid, 'assignedAt', t.assigned_at::text,
  'assignedByType', t.assigned_by_type, 'assignedByUuid', t.assigned_by_uuid, 'createdByType', t.created_by_type,
  'createdByUuid', t.created_by_uuid, 'createdAt', t.created_at::text, 'updatedAt', t.updated_at::text,
  'criteria', (SELECT coalesce(json_agg(json_build_object(
       'uuid', c.uuid, 'description', c.description, 'required', c.required, 'sortOrder', c.sort_order,
       'devStatus', c.dev_status, 'devEvidence', c.dev_evidence, 'devMarkedByType', c.dev_marked_by_type,
       'devMarkedByUuid', c.dev_marked_by_uuid, 'devMarkedAt', c.dev_marked_at::text, 'status', c.status,
       'evidence', c.evidence, 'markedByType', c.marked_by_type, 'markedByUuid', c.marked_by_uuid,
       'markedAt', c.marked_at::text) ORDER BY c.sort_order, c.uuid), '[]') FROM acceptance_criterion c WHERE c.task_uuid = t.uuid),
  'dependsOn', (SELECT coalesce(json_agg(json_build_object('uuid', o.uuid, 'title', o.title, 'status', o.status) ORDER BY d.created_at, o.uuid), '[]')
       FROM task_dependency d JOIN task o ON o.uuid = d.depends_on_uuid WHERE d.task_uuid = t.uuid),
  'dependedBy', (SELECT coalesce(json_agg(json_build_object('uuid', o.uuid, 'title', o.title, 'status', o.status) ORDER BY d.created_at, o.uuid), '[]')
       FROM task_dependency d JOIN task o ON o.uuid = d.task_uuid WHERE d.depends_on_uuid = t.uuid),
  'activeSessions', (SELECT coalesce(json_agg(json_build_object('sessionUuid', c.session_uuid, 'sessionName', s.name,
       'agentUuid', s.agent_uuid, 'checkinAt', c.checkin_at::text) ORDER BY c.checkin_at, c.session_uuid), '[]')
       FROM session_task_checkin c JOIN agent_session s ON s.uuid = c.session_uuid WHERE c.task_uuid = t.uuid AND c.checkout_at IS NULL),
  'commentCount', (SELECT count(*) FROM comment m WHERE m.company_uuid = t.company_uuid AND m.target_type = 'task' AND m.target_uuid = t.uuid),
  'references', (SELECT coalesce(json_agg(json_build_object(
       'uuid', r.uuid, 'companyUuid', r.company_uuid, 'targetType', r.target_type, 'targetUuid', r.target_uuid, 'type', r.type,
       'url', r.url, 'title', r.title, 'notes', r.notes, 'createdByType', r.created_by_type, 'createdByUuid', r.created_by_uuid,
       'createdAt', r.created_at::text, 'updatedAt', r.updated_at::text) ORDER BY r.created_at, r.uuid), '[]')
       FROM reference r WHERE r.company_uuid = t.company_uuid AND r.target_type = 'task' AND r.target_uuid = t.uuid),
  'users', (SELECT coalesce(json_agg(json_build_object('uuid', u.uuid, 'name', u.name, 'email', u.email)), '[]')
       FROM app_user u WHERE u.uuid IN (${peopleOf("= 'user'")})),
  'agents', (SELECT coalesce(json_agg(json_build_object('uuid', a.uuid, 'name', a.name)), '[]')
       FROM agent a WHERE a.uuid IN (${peopleOf("<> 'user'")}))
) AS record
  FROM task t WHERE t.uuid = $1 AND t.company_uuid = $2`,
};

type Stamp = string | null;
type WithStamps<T, K extends keyof T> = Omit<T, K> & { [P in K]: null extends T[P] ? Stamp : string };

/** The JSON of TASK_RECORD: the entities' fields, timestamps and story points as text. */
interface TaskRecordJson extends PersonRows, Omit<WithStamps<TaskEntity, 'assignedAt' | 'createdAt' | 'updatedAt'>, 'storyPoints'> {
  storyPoints: string | null;
  criteria: Array<WithStamps<CriterionFields, 'devMarkedAt' | 'markedAt'>>;
  dependsOn: TaskLink[];
  dependedBy: TaskLink[];
  activeSessions: ActiveSession[];
  commentCount: number;
  references: Array<WithStamps<ReferenceEntity, 'createdAt' | 'updatedAt'>>;
}

/** pg's parser for timestamptz text: the Date a timestamptz column itself would have produced. */
const parseTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (text: string) => Date;
const stamp = (text: Stamp): Date | null => (text === null ? null : parseTimestamptz(text));

/**
 * Loads task records from any EntityManager (the data source for reads, the transaction's manager for results of
 * a mutation). Every query is scoped by company through the task row it starts from.
 */
export const TaskQueries = {
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
    const counts = await TaskQueries.acceptanceCounts(em, uuids);
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

  /** The record of a task of the company, or null; one statement (TASK_RECORD). */
  async load(em: EntityManager, companyUuid: string, taskUuid: string): Promise<TaskRecord | null> {
    const [row] = await preparedQuery<{ record: TaskRecordJson }>(em, TASK_RECORD, [taskUuid, companyUuid]);
    if (!row) return null;
    const { criteria: criteriaJson, dependsOn, dependedBy, activeSessions, commentCount, references, users, agents, ...t } = row.record;
    const task: TaskEntity = {
      ...t,
      storyPoints: t.storyPoints === null ? null : Number(t.storyPoints),
      assignedAt: stamp(t.assignedAt),
      createdAt: parseTimestamptz(t.createdAt),
      updatedAt: parseTimestamptz(t.updatedAt),
    };
    const criteria: CriterionFields[] = criteriaJson.map((c) => ({ ...c, devMarkedAt: stamp(c.devMarkedAt), markedAt: stamp(c.markedAt) }));
    const people = PersonResolver.fromRows(users, agents);
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
      activeSessions: activeSessions.map((a) => ({ ...a, checkinAt: parseTimestamptz(a.checkinAt).toISOString() })),
      commentCount,
      references: references.map((r) => toReferenceRecord({ ...r, createdAt: parseTimestamptz(r.createdAt), updatedAt: parseTimestamptz(r.updatedAt) }, people)),
    };
  },

  /** The record of a task row just read (in a mutation: on the transaction's connection, seeing its writes). */
  async record(em: EntityManager, task: TaskEntity): Promise<TaskRecord> {
    const record = await TaskQueries.load(em, task.companyUuid, task.uuid);
    if (!record) throw new Error(`task ${task.uuid} vanished while being read`);
    return record;
  },
};
