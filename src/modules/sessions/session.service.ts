import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Actor } from '../../shared/auth/actor.js';
import { TransactionRunner, type Tx } from '../../shared/database/transaction-runner.js';
import { ForbiddenError, InvalidStateError, NotFoundError, ValidationError } from '../../shared/errors/app-error.js';
import { offsetOf, paging, type PageResult } from '../../shared/validation/paging.js';
import { isUuid } from '../../shared/validation/uuid-param.pipe.js';
import { TaskService, lockTask, type TaskSummary } from '../tasks/index.js';
import { ownSession, requireActive, sessionName } from './session.checks.js';
import type { AgentSessionEntity } from './session.entity.js';
import { toSessionRecords, type SessionRecord } from './session.records.js';
import { SessionRepository, type SessionFilter } from './session.repository.js';

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
 * Agent sessions (docs/domain.md §7, docs/tool-conventions.md §5.3): named workers of an agent that check in to tasks. A check-in of
 * an open task claims it through TaskService's claim path. Lock order is task before session everywhere (see
 * TaskService.update), so a check-in racing a task update on the same session cannot deadlock.
 */
@Injectable()
export class SessionService {
  constructor(
    private readonly runner: TransactionRunner,
    private readonly sessions: SessionRepository,
    private readonly tasks: TaskService,
  ) {}

  async create(actor: Actor, input: { name: string; description?: string }): Promise<SessionRecord> {
    if (actor.type !== 'agent') throw new ForbiddenError('Only agents have sessions');
    const name = sessionName(input.name);
    const description = input.description ?? '';
    const uuid = randomUUID();
    await this.sessions.insert({
      uuid,
      companyUuid: actor.companyUuid,
      agentUuid: actor.uuid,
      name,
      description,
      status: 'active',
      lastActiveAt: new Date(),
      closedAt: null,
    });
    return this.record(this.sessions, await this.sessions.reload(uuid));
  }

  async checkinTask(actor: Actor, input: { sessionUuid: string; taskUuid: string }): Promise<CheckinResult> {
    const result = await this.runner.run({ ...actor }, async (tx) => {
      const sessions = this.sessions.in(tx);
      requireActive(await ownSession(sessions, actor, input.sessionUuid), 'check-in');
      const task = await lockTask(tx, input.taskUuid);
      if (task.status === 'done' || task.status === 'closed') {
        throw new InvalidStateError(`Task is ${task.status}; check-in requires open, assigned, in_progress or to_verify`);
      }
      // Re-read under lock: the session may have been closed since the first look.
      const session = await ownSession(sessions, actor, input.sessionUuid, true);
      requireActive(session, 'check-in');
      tx.actor.session = { uuid: session.uuid, name: session.name };
      const claimed = task.status === 'open' ? await this.tasks.claimLocked(tx, task) : false;
      const checkinAt = new Date();
      await sessions.checkin(session.uuid, task.uuid, checkinAt);
      await sessions.touch(session.uuid, checkinAt);
      this.checkinActivity(tx, task, 'session_checkin', session);
      return { sessionUuid: session.uuid, taskUuid: task.uuid, checkinAt: checkinAt.toISOString(), claimed };
    });
    return { ...result, task: await this.tasks.summary(actor, result.taskUuid) };
  }

  async checkoutTask(actor: Actor, input: { sessionUuid: string; taskUuid: string }): Promise<{ sessionUuid: string; taskUuid: string; checkinAt: string; checkoutAt: string }> {
    return this.runner.run({ ...actor }, async (tx) => {
      const sessions = this.sessions.in(tx);
      const session = await ownSession(sessions, actor, input.sessionUuid, true);
      requireActive(session, 'checkout');
      // A plain read, no task lock: the check-out touches only this module's rows.
      const task = isUuid(input.taskUuid) ? await sessions.task(actor.companyUuid, input.taskUuid) : null;
      if (!task) throw new NotFoundError('Task');
      const checkin = await sessions.openCheckin(session.uuid, task.uuid);
      if (!checkin) throw new NotFoundError('Check-in');
      tx.actor.session = { uuid: session.uuid, name: session.name };
      const checkoutAt = new Date();
      await sessions.checkout(session.uuid, task.uuid, checkoutAt);
      await sessions.touch(session.uuid, checkoutAt);
      this.checkinActivity(tx, task, 'session_checkout', session);
      return { sessionUuid: session.uuid, taskUuid: task.uuid, checkinAt: checkin.checkinAt.toISOString(), checkoutAt: checkoutAt.toISOString() };
    });
  }

  async heartbeat(actor: Actor, input: { sessionUuid: string }): Promise<{ uuid: string; status: SessionStatus; lastActiveAt: string }> {
    return this.runner.run(actor, async (tx) => {
      const sessions = this.sessions.in(tx);
      const session = await ownSession(sessions, actor, input.sessionUuid, true);
      requireActive(session, 'heartbeat');
      const lastActiveAt = new Date();
      await sessions.touch(session.uuid, lastActiveAt);
      return { uuid: session.uuid, status: session.status, lastActiveAt: lastActiveAt.toISOString() };
    });
  }

  /** Checks the session out of every task; closing a closed session succeeds unchanged. */
  async close(actor: Actor, input: { sessionUuid: string }): Promise<SessionRecord> {
    return this.runner.run({ ...actor }, async (tx) => {
      const sessions = this.sessions.in(tx);
      const session = await ownSession(sessions, actor, input.sessionUuid, true);
      if (session.status === 'closed') return this.record(sessions, session);
      tx.actor.session = { uuid: session.uuid, name: session.name };
      const now = new Date();
      const tasks = await sessions.openCheckinTasks(session.uuid);
      await sessions.checkoutAll(session.uuid, now);
      await sessions.close(session.uuid, now);
      for (const t of tasks) this.checkinActivity(tx, t, 'session_checkout', session);
      return this.record(sessions, await sessions.reload(session.uuid));
    });
  }

  async reopen(actor: Actor, input: { sessionUuid: string }): Promise<SessionRecord> {
    return this.runner.run(actor, async (tx) => {
      const sessions = this.sessions.in(tx);
      const session = await ownSession(sessions, actor, input.sessionUuid, true);
      if (session.status !== 'closed') throw new InvalidStateError(`Session is ${session.status}; reopen requires closed`);
      await sessions.reopen(session.uuid, new Date());
      return this.record(sessions, await sessions.reload(session.uuid));
    });
  }

  async get(actor: Actor, input: { sessionUuid: string }): Promise<SessionRecord> {
    return this.record(this.sessions, await ownSession(this.sessions, actor, input.sessionUuid));
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

  private async page(scope: Omit<SessionFilter, 'status'>, input: { status?: SessionStatus | null; page?: number; pageSize?: number }): Promise<SessionList> {
    const p = paging(input);
    const [rows, total] = await this.sessions.page({ ...scope, status: input.status ?? null }, p.pageSize, offsetOf(p));
    return { sessions: await toSessionRecords(this.sessions, rows), page: p.page, pageSize: p.pageSize, total };
  }

  private async record(sessions: SessionRepository, session: AgentSessionEntity): Promise<SessionRecord> {
    return (await toSessionRecords(sessions, [session]))[0];
  }

  /** Check-ins and check-outs are activities on the task and count as its update (docs/platform.md §6.1). */
  private checkinActivity(tx: Tx, task: { uuid: string; projectUuid: string }, action: 'session_checkin' | 'session_checkout', session: AgentSessionEntity): void {
    tx.record(action === 'session_checkin' ? 'task.session_checkin' : 'task.session_checkout', { projectUuid: task.projectUuid, uuid: task.uuid }, { sessionUuid: session.uuid, sessionName: session.name });
    tx.change('task', task.uuid, task.projectUuid, 'updated');
  }
}
