import pg from 'pg';
import { In } from 'typeorm';
import type { Actor } from '../../shared/auth/actor.js';
import { identitySql } from '../../shared/auth/identity-rule.js';
import { PersonResolver, type PersonRows } from '../../shared/database/person.js';
import { preparedQuery, type PreparedStatement } from '../../shared/database/prepared.js';
import { Repository } from '../../shared/database/repository.js';
import { toReferenceRecord, type ReferenceEntity } from '../collaboration/index.js';
import { acceptanceStatus, acceptanceSummary, type TaskStatus } from './domain/task-transition.js';
import { TaskEntity, type Priority } from './task.entity.js';
import {
  taskPeople,
  toCriterionRecord,
  toTaskSummary,
  type ActiveSession,
  type CriterionFields,
  type TaskLink,
  type TaskRecord,
  type TaskSummary,
} from './task.records.js';

/** Sort order of every task listing (docs/tool-conventions.md §5.1): priority rank desc, newest first, uuid. */
const TASK_LIST_ORDER = 't.priority_rank DESC, t.created_at DESC, t.uuid ASC';

/** Which tasks of one project a list shows; every field but the scope is optional. */
export interface TaskFilter {
  companyUuid: string;
  projectUuid: string;
  status?: TaskStatus | null;
  priority?: Priority | null;
  /** Tasks of these proposals; null or absent: any proposal or none. An empty list matches nothing. */
  proposalUuids?: readonly string[] | null;
  /**
   * `available`: open, unassigned tasks (docs/tool-conventions.md §5.1); `unblocked`: open or assigned ones (docs/domain.md §6.4). Both
   * only with every prerequisite done or closed.
   */
  readiness?: 'available' | 'unblocked' | null;
}

const PREREQUISITES_RESOLVED = `NOT EXISTS (
  SELECT 1 FROM task_dependency d JOIN task p ON p.uuid = d.depends_on_uuid
   WHERE d.task_uuid = t.uuid AND p.status NOT IN ('done', 'closed'))`;

const READINESS = {
  available: `t.status = 'open' AND t.assignee_uuid IS NULL AND ${PREREQUISITES_RESOLVED}`,
  unblocked: `t.status IN ('open', 'assigned') AND ${PREREQUISITES_RESOLVED}`,
} as const;

/** The WHERE clause of a filter on alias `t`, with its parameters numbered in order ($1, $2 …). */
export function taskFilterSql(filter: TaskFilter): { where: string; params: unknown[] } {
  const params: unknown[] = [];
  const param = (value: unknown): string => `$${params.push(value)}`;
  const clauses = [`t.company_uuid = ${param(filter.companyUuid)}`, `t.project_uuid = ${param(filter.projectUuid)}`];
  if (filter.status) clauses.push(`t.status = ${param(filter.status)}`);
  if (filter.priority) clauses.push(`t.priority = ${param(filter.priority)}`);
  if (filter.readiness) clauses.push(READINESS[filter.readiness]);
  if (filter.proposalUuids != null) clauses.push(`t.proposal_uuid = ANY(${param(filter.proposalUuids)}::uuid[])`);
  return { where: clauses.join(' AND '), params };
}

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
 * ones the separate queries had. The session tables, the comment count and the references are other modules'
 * tables, read here with plain SQL where it is faster (README "Table ownership").
 */
const TASK_RECORD: PreparedStatement = {
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

/** A task of the caller's tracker (svc_get_my_assignments), with its project. */
export interface TrackedTaskRow {
  uuid: string;
  title: string;
  status: TaskStatus;
  priority: Priority;
  assignedAt: Date | null;
  projectUuid: string;
  projectName: string;
  acceptance: { passed: number; total: number };
}

/**
 * The reads the API answers with: task records, summaries, pages of a project's tasks and the caller's tracker.
 * On the pool's manager for reads; on a mutation's (`in(tx)`) for its result, which then sees its writes. Every
 * read is scoped by company through the task rows it starts from.
 */
export class TaskReadRepository extends Repository {
  /**
   * The record of a task of the company, or null: one statement (TASK_RECORD), a named prepared statement on the
   * pool outside a transaction (shared/database/prepared.ts). The hot path of svc_get_task.
   */
  async record(companyUuid: string, taskUuid: string): Promise<TaskRecord | null> {
    const [row] = await preparedQuery<{ record: TaskRecordJson }>(this.em, TASK_RECORD, [taskUuid, companyUuid]);
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
  }

  /** The record of a task row just read (in a mutation: on the transaction's connection, seeing its writes). */
  async recordOf(task: Pick<TaskEntity, 'companyUuid' | 'uuid'>): Promise<TaskRecord> {
    const record = await this.record(task.companyUuid, task.uuid);
    if (!record) throw new Error(`task ${task.uuid} vanished while being read`);
    return record;
  }

  /** Summaries of the given tasks of the company, in the given order (unknown uuids are skipped). */
  async summaries(companyUuid: string, uuids: string[]): Promise<TaskSummary[]> {
    if (!uuids.length) return [];
    const tasks = await this.em.find(TaskEntity, { where: { uuid: In(uuids), companyUuid } });
    const byUuid = new Map(tasks.map((t) => [t.uuid, t]));
    const counts = await this.acceptanceCounts(uuids);
    const people = await PersonResolver.load(this.em, tasks.flatMap(taskPeople));
    return uuids
      .filter((u) => byUuid.has(u))
      .map((u) => toTaskSummary(byUuid.get(u)!, counts.get(u) ?? { passed: 0, total: 0 }, people));
  }

  /** One page of the uuids of the tasks a filter matches, in list order, with their total count. */
  async page(filter: TaskFilter, limit: number, offset: number): Promise<{ uuids: string[]; total: number }> {
    const { where, params } = taskFilterSql(filter);
    const [{ total }]: Array<{ total: number }> = await this.em.query(`SELECT count(*)::int AS total FROM task t WHERE ${where}`, params);
    const rows: Array<{ uuid: string }> = await this.em.query(
      `SELECT t.uuid FROM task t WHERE ${where} ORDER BY ${TASK_LIST_ORDER} LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, limit, offset],
    );
    return { uuids: rows.map((r) => r.uuid), total };
  }

  /**
   * The caller's unfinished tasks under the assignee identity rule, with their project and acceptance counts, in
   * tracker order; `projectScope` null = every project.
   */
  async tracked(actor: Pick<Actor, 'type' | 'uuid' | 'ownerUuid' | 'companyUuid'>, projectScope: readonly string[] | null): Promise<TrackedTaskRow[]> {
    const mine = identitySql(actor, 't.assignee', 2);
    const params: unknown[] = [actor.companyUuid, ...mine.params];
    let scope = '';
    if (projectScope !== null) {
      params.push(projectScope);
      scope = `AND t.project_uuid = ANY($${params.length}::uuid[])`;
    }
    const rows: Array<{
      uuid: string;
      title: string;
      status: TaskStatus;
      priority: Priority;
      assigned_at: Date | null;
      project_uuid: string;
      project_name: string;
      passed: number;
      total: number;
    }> = await this.em.query(
      `SELECT t.uuid, t.title, t.status, t.priority, t.assigned_at, t.project_uuid, p.name AS project_name,
              (SELECT count(*) FROM acceptance_criterion c WHERE c.task_uuid = t.uuid AND c.status = 'passed')::int AS passed,
              (SELECT count(*) FROM acceptance_criterion c WHERE c.task_uuid = t.uuid)::int AS total
         FROM task t JOIN project p ON p.uuid = t.project_uuid
        WHERE t.company_uuid = $1 AND ${mine.sql} AND t.status NOT IN ('done', 'closed') ${scope}
        ORDER BY t.priority_rank DESC, t.assigned_at DESC NULLS LAST, t.uuid ASC`,
      params,
    );
    return rows.map((r) => ({
      uuid: r.uuid,
      title: r.title,
      status: r.status,
      priority: r.priority,
      assignedAt: r.assigned_at,
      projectUuid: r.project_uuid,
      projectName: r.project_name,
      acceptance: { passed: r.passed, total: r.total },
    }));
  }

  private async acceptanceCounts(taskUuids: string[]): Promise<Map<string, { passed: number; total: number }>> {
    const out = new Map<string, { passed: number; total: number }>();
    if (!taskUuids.length) return out;
    const rows: Array<{ task_uuid: string; passed: number; total: number }> = await this.em.query(
      `SELECT task_uuid, count(*)::int AS total, (count(*) FILTER (WHERE status = 'passed'))::int AS passed
         FROM acceptance_criterion WHERE task_uuid = ANY($1::uuid[]) GROUP BY task_uuid`,
      [taskUuids],
    );
    for (const r of rows) out.set(r.task_uuid, { passed: r.passed, total: r.total });
    return out;
  }
}
