import pg from 'pg';
import { In, type EntityManager } from 'typeorm';
import type { ActorType } from '../../shared/auth/actor.js';
import { PersonResolver, type PersonRows } from '../../shared/database/person.js';
import { preparedQuery } from '../../shared/database/prepared.js';
import { toReferenceRecord, type ReferenceEntity } from '../collaboration/index.js';
import { acceptanceStatus, acceptanceSummary, type Blocker, type TaskStatus } from './domain/task-transition.js';
import { TaskEntity, type Priority } from './task.entity.js';
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

/**
 * A whole TaskRecord in one statement (one round trip instead of eight: on a busy host each round trip is a socket
 * write and a wake-up of the server, the bulk of a read tool's cost — BENCHMARKS.md "MCP"). The nested rows come as
 * JSON with their timestamps as text, parsed below with pg's own timestamptz parser, so every value is the one the
 * column would have given. Orders as the separate queries had them. The comment count and references are the
 * collaboration module's tables, read here as TaskReader already reads the session tables.
 */
const TASK_RECORD = {
  name: 'svc_task_record',
  text: `
WITH t AS (SELECT * FROM task WHERE uuid = $1 AND company_uuid = $2),
     crit AS (SELECT * FROM acceptance_criterion WHERE task_uuid = $1),
     refs AS (SELECT * FROM reference WHERE company_uuid = $2 AND target_type = 'task' AND target_uuid = $1),
     people AS (
       SELECT assignee_type AS type, assignee_uuid AS uuid FROM t UNION SELECT assigned_by_type, assigned_by_uuid FROM t
       UNION SELECT created_by_type, created_by_uuid FROM t
       UNION SELECT dev_marked_by_type, dev_marked_by_uuid FROM crit UNION SELECT marked_by_type, marked_by_uuid FROM crit
       UNION SELECT created_by_type, created_by_uuid FROM refs)
SELECT t.uuid, t.company_uuid, t.project_uuid, t.proposal_uuid, t.title, t.description, t.status, t.priority, t.story_points,
       t.assignee_type, t.assignee_uuid, t.assigned_at, t.assigned_by_type, t.assigned_by_uuid, t.created_by_type,
       t.created_by_uuid, t.created_at, t.updated_at,
       (SELECT coalesce(json_agg(json_build_object(
                 'uuid', c.uuid, 'description', c.description, 'required', c.required, 'sortOrder', c.sort_order,
                 'devStatus', c.dev_status, 'devEvidence', c.dev_evidence, 'devMarkedByType', c.dev_marked_by_type,
                 'devMarkedByUuid', c.dev_marked_by_uuid, 'devMarkedAt', c.dev_marked_at::text, 'status', c.status,
                 'evidence', c.evidence, 'markedByType', c.marked_by_type, 'markedByUuid', c.marked_by_uuid,
                 'markedAt', c.marked_at::text) ORDER BY c.sort_order, c.uuid), '[]') FROM crit c) AS criteria,
       (SELECT coalesce(json_agg(json_build_object('uuid', o.uuid, 'title', o.title, 'status', o.status) ORDER BY d.created_at, o.uuid), '[]')
          FROM task_dependency d JOIN task o ON o.uuid = d.depends_on_uuid WHERE d.task_uuid = t.uuid) AS depends_on,
       (SELECT coalesce(json_agg(json_build_object('uuid', o.uuid, 'title', o.title, 'status', o.status) ORDER BY d.created_at, o.uuid), '[]')
          FROM task_dependency d JOIN task o ON o.uuid = d.task_uuid WHERE d.depends_on_uuid = t.uuid) AS depended_by,
       (SELECT coalesce(json_agg(json_build_object('sessionUuid', c.session_uuid, 'sessionName', s.name, 'agentUuid', s.agent_uuid,
                 'checkinAt', c.checkin_at::text) ORDER BY c.checkin_at, c.session_uuid), '[]')
          FROM session_task_checkin c JOIN agent_session s ON s.uuid = c.session_uuid
         WHERE c.task_uuid = t.uuid AND c.checkout_at IS NULL) AS active_sessions,
       (SELECT count(*)::int FROM comment m WHERE m.company_uuid = t.company_uuid AND m.target_type = 'task' AND m.target_uuid = t.uuid) AS comment_count,
       (SELECT coalesce(json_agg(json_build_object(
                 'uuid', r.uuid, 'companyUuid', r.company_uuid, 'targetType', r.target_type, 'targetUuid', r.target_uuid, 'type', r.type,
                 'url', r.url, 'title', r.title, 'notes', r.notes, 'createdByType', r.created_by_type, 'createdByUuid', r.created_by_uuid,
                 'createdAt', r.created_at::text, 'updatedAt', r.updated_at::text) ORDER BY r.created_at, r.uuid), '[]') FROM refs r) AS refs,
       (SELECT coalesce(json_agg(json_build_object('uuid', u.uuid, 'name', u.name, 'email', u.email)), '[]')
          FROM app_user u WHERE u.uuid IN (SELECT p.uuid FROM people p WHERE p.type = 'user')) AS users,
       (SELECT coalesce(json_agg(json_build_object('uuid', a.uuid, 'name', a.name)), '[]')
          FROM agent a WHERE a.uuid IN (SELECT p.uuid FROM people p WHERE p.type <> 'user')) AS agents
  FROM t`,
};

type Stamp = string | null;
type JsonCriterion = Omit<CriterionFields, 'devMarkedAt' | 'markedAt'> & { devMarkedAt: Stamp; markedAt: Stamp };
type JsonReference = Omit<ReferenceEntity, 'createdAt' | 'updatedAt'> & { createdAt: string; updatedAt: string };

interface TaskRecordRow extends PersonRows {
  uuid: string; company_uuid: string; project_uuid: string; proposal_uuid: string | null; title: string; description: string;
  status: TaskStatus; priority: Priority; story_points: string | null; assignee_type: ActorType | null; assignee_uuid: string | null;
  assigned_at: Date | null; assigned_by_type: ActorType | null; assigned_by_uuid: string | null; created_by_type: ActorType;
  created_by_uuid: string; created_at: Date; updated_at: Date;
  criteria: JsonCriterion[]; depends_on: TaskLink[]; depended_by: TaskLink[];
  active_sessions: Array<Omit<ActiveSession, 'checkinAt'> & { checkinAt: string }>; comment_count: number; refs: JsonReference[];
}

/** pg's parser for timestamptz text: the Date a timestamptz column itself would have produced. */
const parseTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (text: string) => Date;
const stamp = (text: Stamp): Date | null => (text === null ? null : parseTimestamptz(text));

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

  /** The record of a task of the company, or null; one statement (TASK_RECORD). */
  async load(em: EntityManager, companyUuid: string, taskUuid: string): Promise<TaskRecord | null> {
    const [row] = await preparedQuery<TaskRecordRow>(em, TASK_RECORD, [taskUuid, companyUuid]);
    if (!row) return null;
    const task: TaskEntity = {
      uuid: row.uuid,
      companyUuid: row.company_uuid,
      projectUuid: row.project_uuid,
      proposalUuid: row.proposal_uuid,
      title: row.title,
      description: row.description,
      status: row.status,
      priority: row.priority,
      storyPoints: row.story_points === null ? null : Number(row.story_points),
      assigneeType: row.assignee_type,
      assigneeUuid: row.assignee_uuid,
      assignedAt: row.assigned_at,
      assignedByType: row.assigned_by_type,
      assignedByUuid: row.assigned_by_uuid,
      createdByType: row.created_by_type,
      createdByUuid: row.created_by_uuid,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
    const criteria: CriterionFields[] = row.criteria.map((c) => ({ ...c, devMarkedAt: stamp(c.devMarkedAt), markedAt: stamp(c.markedAt) }));
    const people = PersonResolver.fromRows(row.users, row.agents);
    const summary = acceptanceSummary(criteria);
    return {
      ...toTaskSummary(task, { passed: summary.passed, total: summary.total }, people),
      description: task.description,
      createdBy: people.person({ type: task.createdByType, uuid: task.createdByUuid }),
      acceptanceCriteriaItems: criteria.map((c) => toCriterionRecord(c, people)),
      acceptanceStatus: acceptanceStatus(summary),
      acceptanceSummary: summary,
      dependsOn: row.depends_on,
      dependedBy: row.depended_by,
      activeSessions: row.active_sessions.map((a) => ({ ...a, checkinAt: parseTimestamptz(a.checkinAt).toISOString() })),
      commentCount: row.comment_count,
      references: row.refs.map((r) => toReferenceRecord({ ...r, createdAt: parseTimestamptz(r.createdAt), updatedAt: parseTimestamptz(r.updatedAt) }, people)),
    };
  },

  /** The record of a task row just read (in a mutation: on the transaction's connection, seeing its writes). */
  async record(em: EntityManager, task: TaskEntity): Promise<TaskRecord> {
    const record = await TaskReader.load(em, task.companyUuid, task.uuid);
    if (!record) throw new Error(`task ${task.uuid} vanished while being read`);
    return record;
  },
};
