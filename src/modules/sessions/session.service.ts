import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, IsNull, type EntityManager, type FindOptionsWhere } from 'typeorm';
import type { Actor } from '../../shared/auth/actor.js';
import { TransactionRunner, type Tx } from '../../shared/database/transaction-runner.js';
import { ForbiddenError, InvalidStateError, NotFoundError, ValidationError } from '../../shared/errors/app-error.js';
import { offsetOf, paging, type PageResult } from '../../shared/validation/paging.js';
import { isUuid } from '../../shared/validation/uuid-param.pipe.js';
import { TaskService, lockTask, type TaskSummary } from '../tasks/index.js';
import { ownSession, requireActive } from './session.checks.js';
import { AgentSessionEntity, SessionTaskCheckinEntity } from './session.entity.js';
import { toSessionRecords, type SessionRecord } from './session.records.js';

type SessionStatus = AgentSessionEntity['status'];

export interface SessionList extends PageResult {
  sessions: SessionRecord[];
}

export interface CheckinResult {
  sessionUuid: string;
  taskUuid: string;
  checkinAt: string;
  claimed: boolean;
  task: TaskSummary;
}

/**
 * Agent sessions (domain.md §7, tools.md §5.3): named workers of an agent that check in to tasks. A check-in of
 * an open task claims it through TaskService's claim path. Lock order is task before session everywhere (see
 * TaskService.update), so a check-in racing a task update on the same session cannot deadlock.
 */
@Injectable()
export class SessionService {
  constructor(
    private readonly db: DataSource,
    private readonly runner: TransactionRunner,
    private readonly tasks: TaskService,
  ) {}

  async create(actor: Actor, input: { name: string; description?: string }): Promise<SessionRecord> {
    if (actor.type !== 'agent') throw new ForbiddenError('Only agents have sessions');
    const name = input.name.trim();
    if (name.length < 1 || name.length > 200) throw new ValidationError('Name must be 1-200 characters');
    const description = input.description ?? '';
    const uuid = randomUUID();
    await this.db.manager.insert(AgentSessionEntity, {
      uuid,
      companyUuid: actor.companyUuid,
      agentUuid: actor.uuid,
      name,
      description,
      status: 'active',
      lastActiveAt: new Date(),
      closedAt: null,
    });
    return this.record(this.db.manager, await this.db.manager.findOneByOrFail(AgentSessionEntity, { uuid }));
  }

  async checkinTask(actor: Actor, input: { sessionUuid: string; taskUuid: string }): Promise<CheckinResult> {
    const result = await this.runner.run({ ...actor }, async (tx) => {
      const em = tx.manager;
      requireActive(await ownSession(em, actor, input.sessionUuid), 'check-in');
      const task = await lockTask(tx, input.taskUuid);
      if (task.status === 'done' || task.status === 'closed') {
        throw new InvalidStateError(`Task is ${task.status}; check-in requires open, assigned, in_progress or to_verify`);
      }
      // Re-read under lock: the session may have been closed since the first look.
      const session = await ownSession(em, actor, input.sessionUuid, true);
      requireActive(session, 'check-in');
      tx.actor.session = { uuid: session.uuid, name: session.name };
      const claimed = task.status === 'open' ? await this.tasks.claimLocked(tx, task) : false;
      const checkinAt = new Date();
      await em.query(
        `INSERT INTO session_task_checkin (session_uuid, task_uuid, checkin_at, checkout_at) VALUES ($1, $2, $3, NULL)
         ON CONFLICT (session_uuid, task_uuid) DO UPDATE SET checkin_at = EXCLUDED.checkin_at, checkout_at = NULL`,
        [session.uuid, task.uuid, checkinAt],
      );
      await em.update(AgentSessionEntity, { uuid: session.uuid }, { lastActiveAt: checkinAt });
      this.checkinActivity(tx, task, 'session_checkin', session);
      return { sessionUuid: session.uuid, taskUuid: task.uuid, checkinAt: checkinAt.toISOString(), claimed };
    });
    return { ...result, task: await this.tasks.summary(actor, result.taskUuid) };
  }

  async checkoutTask(actor: Actor, input: { sessionUuid: string; taskUuid: string }): Promise<{ sessionUuid: string; taskUuid: string; checkinAt: string; checkoutAt: string }> {
    return this.runner.run({ ...actor }, async (tx) => {
      const em = tx.manager;
      const session = await ownSession(em, actor, input.sessionUuid, true);
      requireActive(session, 'checkout');
      if (!isUuid(input.taskUuid)) throw new NotFoundError('Task');
      // A plain read: the check-out touches only this module's rows.
      const [task]: Array<{ uuid: string; projectUuid: string }> = await em.query(
        `SELECT uuid, project_uuid AS "projectUuid" FROM task WHERE uuid = $1 AND company_uuid = $2`,
        [input.taskUuid, actor.companyUuid],
      );
      if (!task) throw new NotFoundError('Task');
      const checkin = await em.findOne(SessionTaskCheckinEntity, { where: { sessionUuid: session.uuid, taskUuid: task.uuid, checkoutAt: IsNull() } });
      if (!checkin) throw new NotFoundError('Check-in');
      tx.actor.session = { uuid: session.uuid, name: session.name };
      const checkoutAt = new Date();
      await em.update(SessionTaskCheckinEntity, { sessionUuid: session.uuid, taskUuid: task.uuid }, { checkoutAt });
      await em.update(AgentSessionEntity, { uuid: session.uuid }, { lastActiveAt: checkoutAt });
      this.checkinActivity(tx, task, 'session_checkout', session);
      return { sessionUuid: session.uuid, taskUuid: task.uuid, checkinAt: checkin.checkinAt.toISOString(), checkoutAt: checkoutAt.toISOString() };
    });
  }

  async heartbeat(actor: Actor, input: { sessionUuid: string }): Promise<{ uuid: string; status: SessionStatus; lastActiveAt: string }> {
    return this.runner.run(actor, async (tx) => {
      const session = await ownSession(tx.manager, actor, input.sessionUuid, true);
      requireActive(session, 'heartbeat');
      const lastActiveAt = new Date();
      await tx.manager.update(AgentSessionEntity, { uuid: session.uuid }, { lastActiveAt });
      return { uuid: session.uuid, status: session.status, lastActiveAt: lastActiveAt.toISOString() };
    });
  }

  /** Checks the session out of every task; closing a closed session succeeds unchanged. */
  async close(actor: Actor, input: { sessionUuid: string }): Promise<SessionRecord> {
    return this.runner.run({ ...actor }, async (tx) => {
      const em = tx.manager;
      const session = await ownSession(em, actor, input.sessionUuid, true);
      if (session.status === 'closed') return this.record(em, session);
      tx.actor.session = { uuid: session.uuid, name: session.name };
      const now = new Date();
      const tasks: Array<{ uuid: string; project_uuid: string }> = await em.query(
        `SELECT t.uuid, t.project_uuid FROM session_task_checkin c JOIN task t ON t.uuid = c.task_uuid
          WHERE c.session_uuid = $1 AND c.checkout_at IS NULL ORDER BY c.checkin_at, t.uuid`,
        [session.uuid],
      );
      await em.update(SessionTaskCheckinEntity, { sessionUuid: session.uuid, checkoutAt: IsNull() }, { checkoutAt: now });
      await em.update(AgentSessionEntity, { uuid: session.uuid }, { status: 'closed', closedAt: now });
      for (const t of tasks) this.checkinActivity(tx, { uuid: t.uuid, projectUuid: t.project_uuid }, 'session_checkout', session);
      return this.record(em, await em.findOneByOrFail(AgentSessionEntity, { uuid: session.uuid }));
    });
  }

  async reopen(actor: Actor, input: { sessionUuid: string }): Promise<SessionRecord> {
    return this.runner.run(actor, async (tx) => {
      const em = tx.manager;
      const session = await ownSession(em, actor, input.sessionUuid, true);
      if (session.status !== 'closed') throw new InvalidStateError(`Session is ${session.status}; reopen requires closed`);
      await em.update(AgentSessionEntity, { uuid: session.uuid }, { status: 'active', closedAt: null, lastActiveAt: new Date() });
      return this.record(em, await em.findOneByOrFail(AgentSessionEntity, { uuid: session.uuid }));
    });
  }

  async get(actor: Actor, input: { sessionUuid: string }): Promise<SessionRecord> {
    return this.record(this.db.manager, await ownSession(this.db.manager, actor, input.sessionUuid));
  }

  /** The caller's own sessions, newest first. */
  async list(actor: Actor, input: { status?: SessionStatus | null; page?: number; pageSize?: number }): Promise<SessionList> {
    return this.page({ companyUuid: actor.companyUuid, agentUuid: actor.uuid }, input);
  }

  /** The company's sessions for the web's read-only view, optionally for one agent. */
  async listForCompany(actor: Actor, input: { agentUuid?: string | null; status?: SessionStatus | null; page?: number; pageSize?: number }): Promise<SessionList> {
    if (input.agentUuid != null && !isUuid(input.agentUuid)) throw new ValidationError('agentUuid must be a uuid');
    return this.page({ companyUuid: actor.companyUuid, ...(input.agentUuid != null ? { agentUuid: input.agentUuid } : {}) }, input);
  }

  private async page(where: FindOptionsWhere<AgentSessionEntity>, input: { status?: SessionStatus | null; page?: number; pageSize?: number }): Promise<SessionList> {
    const p = paging(input);
    const status = input.status ?? null;
    const [rows, total] = await this.db.manager.findAndCount(AgentSessionEntity, {
      where: { ...where, ...(status ? { status } : {}) },
      order: { createdAt: 'DESC', uuid: 'ASC' },
      skip: offsetOf(p),
      take: p.pageSize,
    });
    return { sessions: await toSessionRecords(this.db.manager, rows), page: p.page, pageSize: p.pageSize, total };
  }

  private async record(em: EntityManager, session: AgentSessionEntity): Promise<SessionRecord> {
    return (await toSessionRecords(em, [session]))[0];
  }

  /** Check-ins and check-outs are activities on the task and count as its update (platform.md §6.1). */
  private checkinActivity(tx: Tx, task: { uuid: string; projectUuid: string }, action: 'session_checkin' | 'session_checkout', session: AgentSessionEntity): void {
    tx.record(action === 'session_checkin' ? 'task.session_checkin' : 'task.session_checkout', { projectUuid: task.projectUuid, uuid: task.uuid }, { sessionUuid: session.uuid, sessionName: session.name });
    tx.change('task', task.uuid, task.projectUuid, 'updated');
  }
}
