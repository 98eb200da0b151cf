import { IsNull } from 'typeorm';
import { Repository } from '../../shared/database/repository.js';
import { AgentSessionEntity, SessionTaskCheckinEntity, type SessionStatus } from './session.entity.js';

/** Which sessions a list shows: a company's, optionally one agent's, optionally in one status. */
export interface SessionFilter {
  companyUuid: string;
  agentUuid?: string;
  status?: SessionStatus | null;
}

/** An open check-in with its task's title, for session records. */
export interface OpenCheckin {
  sessionUuid: string;
  taskUuid: string;
  taskTitle: string;
  checkinAt: Date;
}

/**
 * Agent sessions and their task check-ins (`agent_session`, `session_task_checkin`: this module's tables, README
 * "Table ownership"). Statements that start from a caller's uuid are scoped by company; the others start from a
 * session already found in the caller's company, or from a task or agent another module's mutation names.
 */
export class SessionRepository extends Repository {
  // ---- sessions ----

  /** A session of the company, or null; `lock` takes a row lock (FOR UPDATE) for status checks. */
  find(companyUuid: string, uuid: string, lock = false): Promise<AgentSessionEntity | null> {
    return this.em.findOne(AgentSessionEntity, {
      where: { uuid, companyUuid },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
  }

  /** The row of a session already found, as the transaction now sees it. */
  reload(uuid: string): Promise<AgentSessionEntity> {
    return this.em.findOneByOrFail(AgentSessionEntity, { uuid });
  }

  /** One page of sessions, newest first, with the total count. */
  page(filter: SessionFilter, limit: number, offset: number): Promise<[AgentSessionEntity[], number]> {
    const { status, ...scope } = filter;
    return this.em.findAndCount(AgentSessionEntity, {
      where: { ...scope, ...(status ? { status } : {}) },
      order: { createdAt: 'DESC', uuid: 'ASC' },
      skip: offset,
      take: limit,
    });
  }

  async insert(row: Pick<AgentSessionEntity, 'uuid' | 'companyUuid' | 'agentUuid' | 'name' | 'description' | 'status' | 'lastActiveAt' | 'closedAt'>): Promise<void> {
    await this.em.insert(AgentSessionEntity, row);
  }

  /** A heartbeat, check-in or check-out at `at`. */
  async touch(uuid: string, at: Date): Promise<void> {
    await this.em.update(AgentSessionEntity, { uuid }, { lastActiveAt: at });
  }

  /** A call naming the session counts as a heartbeat, stamped by the database clock. */
  async markUsed(uuid: string): Promise<void> {
    await this.em.query(`UPDATE agent_session SET last_active_at = now(), updated_at = now() WHERE uuid = $1`, [uuid]);
  }

  async close(uuid: string, at: Date): Promise<void> {
    await this.em.update(AgentSessionEntity, { uuid }, { status: 'closed', closedAt: at });
  }

  async reopen(uuid: string, at: Date): Promise<void> {
    await this.em.update(AgentSessionEntity, { uuid }, { status: 'active', closedAt: null, lastActiveAt: at });
  }

  /** An agent is archived: its open check-ins are checked out, then its active sessions closed. */
  async closeAllOfAgent(agentUuid: string): Promise<void> {
    await this.em.query(
      `UPDATE session_task_checkin SET checkout_at = now() WHERE checkout_at IS NULL
         AND session_uuid IN (SELECT uuid FROM agent_session WHERE agent_uuid = $1)`,
      [agentUuid],
    );
    await this.em.query(`UPDATE agent_session SET status = 'closed', closed_at = now(), updated_at = now() WHERE agent_uuid = $1 AND status = 'active'`, [agentUuid]);
  }

  // ---- check-ins ----

  /** The open check-ins of the sessions with their tasks' titles, oldest first. */
  async openCheckins(sessionUuids: string[]): Promise<OpenCheckin[]> {
    const rows: Array<{ session_uuid: string; task_uuid: string; title: string; checkin_at: Date }> = await this.em.query(
      `SELECT c.session_uuid, c.task_uuid, t.title, c.checkin_at FROM session_task_checkin c JOIN task t ON t.uuid = c.task_uuid
        WHERE c.session_uuid = ANY($1::uuid[]) AND c.checkout_at IS NULL ORDER BY c.checkin_at, c.task_uuid`,
      [sessionUuids],
    );
    return rows.map((r) => ({ sessionUuid: r.session_uuid, taskUuid: r.task_uuid, taskTitle: r.title, checkinAt: r.checkin_at }));
  }

  /** The tasks a session is checked in to, oldest check-in first. */
  async openCheckinTasks(sessionUuid: string): Promise<Array<{ uuid: string; projectUuid: string }>> {
    const rows: Array<{ uuid: string; project_uuid: string }> = await this.em.query(
      `SELECT t.uuid, t.project_uuid FROM session_task_checkin c JOIN task t ON t.uuid = c.task_uuid
        WHERE c.session_uuid = $1 AND c.checkout_at IS NULL ORDER BY c.checkin_at, t.uuid`,
      [sessionUuid],
    );
    return rows.map((r) => ({ uuid: r.uuid, projectUuid: r.project_uuid }));
  }

  /** The session's open check-in to the task, or null. */
  openCheckin(sessionUuid: string, taskUuid: string): Promise<SessionTaskCheckinEntity | null> {
    return this.em.findOne(SessionTaskCheckinEntity, { where: { sessionUuid, taskUuid, checkoutAt: IsNull() } });
  }

  /** Checks the session in to the task at `at`; a check-in checked out before is opened again. */
  async checkin(sessionUuid: string, taskUuid: string, at: Date): Promise<void> {
    await this.em.query(
      `INSERT INTO session_task_checkin (session_uuid, task_uuid, checkin_at, checkout_at) VALUES ($1, $2, $3, NULL)
       ON CONFLICT (session_uuid, task_uuid) DO UPDATE SET checkin_at = EXCLUDED.checkin_at, checkout_at = NULL`,
      [sessionUuid, taskUuid, at],
    );
  }

  async checkout(sessionUuid: string, taskUuid: string, at: Date): Promise<void> {
    await this.em.update(SessionTaskCheckinEntity, { sessionUuid, taskUuid }, { checkoutAt: at });
  }

  /** Checks the session out of every task it is checked in to. */
  async checkoutAll(sessionUuid: string, at: Date): Promise<void> {
    await this.em.update(SessionTaskCheckinEntity, { sessionUuid, checkoutAt: IsNull() }, { checkoutAt: at });
  }

  /** A task closes: its open check-ins are checked out; returns the sessions checked out. */
  async checkoutTask(taskUuid: string): Promise<string[]> {
    const rows: unknown = await this.em.query(
      `UPDATE session_task_checkin SET checkout_at = now() WHERE task_uuid = $1 AND checkout_at IS NULL RETURNING session_uuid`,
      [taskUuid],
    );
    // node-postgres returns [rows, count] for UPDATE … RETURNING through TypeORM.
    const list = (Array.isArray(rows) && Array.isArray(rows[0]) ? rows[0] : rows) as Array<{ session_uuid: string }>;
    return list.map((r) => r.session_uuid);
  }

  /** A task is deleted: its check-ins go with it. */
  async deleteCheckinsOfTask(taskUuid: string): Promise<void> {
    await this.em.query(`DELETE FROM session_task_checkin WHERE task_uuid = $1`, [taskUuid]);
  }

  // ---- the tasks module's rows, read with plain SQL (README "Table ownership") ----

  /** A task of the company, or null: a check-out touches only this module's rows, so a plain read will do. */
  async task(companyUuid: string, taskUuid: string): Promise<{ uuid: string; projectUuid: string } | null> {
    const [task]: Array<{ uuid: string; projectUuid: string }> = await this.em.query(
      `SELECT uuid, project_uuid AS "projectUuid" FROM task WHERE uuid = $1 AND company_uuid = $2`,
      [taskUuid, companyUuid],
    );
    return task ?? null;
  }
}
