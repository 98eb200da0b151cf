import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { Actor } from '../../src/shared/auth/actor.js';
import type { ProposalStatus } from '../../src/modules/proposals/index.js';
import { TaskService, type NewTaskInput, type TaskStatus, type TaskSummary } from '../../src/modules/tasks/index.js';
import { agentActor, unique, type Harness, type World } from '../utils/world.js';
import type { IdentityFactory } from './identity.factory.js';
import { ProjectEntity, ProposalEntity } from '../../src/entities.js';
import { SessionService } from '../../src/modules/sessions/session.service.js';

/**
 * Builders for task and session tests: data is created through the world's DI-built services (projects inserted
 * directly, their service being another module's). `taskIn` drives a task to any status along the legal path.
 */
export class TaskFactory {
  readonly ids: IdentityFactory;
  readonly tasks: TaskService;
  readonly sessions: SessionService;
  private readonly db: DataSource;

  constructor(world: World) {
    this.db = world.ds;
    this.ids = world.ids;
    this.tasks = world.seeding(TaskService);
    this.sessions = world.seeding(SessionService);
  }

  async project(companyUuid: string, name = `Project ${unique()}`): Promise<string> {
    const uuid = randomUUID();
    await this.db.getRepository(ProjectEntity).insert({ uuid, companyUuid, name, description: '', groupUuid: null });
    return uuid;
  }

  /** A proposal row in `status` (inserted directly: its state machine belongs to the proposals module). */
  async proposal(projectUuid: string, creator: Actor, status: ProposalStatus): Promise<string> {
    const uuid = randomUUID();
    await this.db.getRepository(ProposalEntity).insert({
      uuid,
      companyUuid: creator.companyUuid,
      projectUuid,
      title: `Proposal ${unique()}`,
      inputType: 'idea',
      inputUuids: [randomUUID()],
      status,
      createdByType: creator.type,
      createdByUuid: creator.uuid,
    });
    return uuid;
  }

  async agent(companyUuid: string, ownerUuid: string, opts: { preset?: string; permissions?: string[]; name?: string } = {}): Promise<Actor> {
    const { agent } = await this.ids.agent(companyUuid, ownerUuid, opts);
    return agentActor(agent, companyUuid);
  }

  /** One open task with two required criteria and one optional one. */
  async task(actor: Actor, projectUuid: string, overrides: Partial<NewTaskInput> = {}): Promise<TaskSummary> {
    const { tasks } = await this.tasks.createTasks(actor, {
      projectUuid,
      tasks: [
        {
          title: `Task ${unique()}`,
          acceptanceCriteriaItems: [{ description: 'works' }, { description: 'tested' }, { description: 'nice to have', required: false }],
          ...overrides,
        },
      ],
    });
    return tasks[0];
  }

  /**
   * A task in `status`, assigned to `assignee` (ignored for open), moved there through the services:
   * claim, start, submit, admin marks + verify, admin close.
   */
  async taskIn(status: TaskStatus, w: { admin: Actor; projectUuid: string }, assignee: Actor, overrides: Partial<NewTaskInput> = {}): Promise<string> {
    const { uuid } = await this.task(w.admin, w.projectUuid, overrides);
    if (status === 'open') return uuid;
    if (status === 'closed') {
      await this.tasks.close(w.admin, { taskUuid: uuid });
      return uuid;
    }
    await this.tasks.claim(assignee, { taskUuid: uuid });
    if (status === 'assigned') return uuid;
    await this.tasks.update(assignee, { taskUuid: uuid, status: 'in_progress' });
    if (status === 'in_progress') return uuid;
    await this.tasks.submitForVerify(assignee, { taskUuid: uuid });
    if (status === 'to_verify') return uuid;
    const record = await this.tasks.get(w.admin, { taskUuid: uuid });
    await this.tasks.markCriteria(w.admin, { taskUuid: uuid, criteria: record.acceptanceCriteriaItems.map((c) => ({ uuid: c.uuid, status: 'passed' })) });
    await this.tasks.verify(w.admin, { taskUuid: uuid });
    return uuid;
  }

  /** Raw rows of a task and everything hanging off it, for "unchanged on refusal" assertions. */
  async snapshot(taskUuid: string): Promise<unknown> {
    const q = (sql: string): Promise<unknown[]> => this.db.query(sql, [taskUuid]);
    return {
      task: await q(`SELECT * FROM task WHERE uuid = $1`),
      criteria: await q(`SELECT * FROM acceptance_criterion WHERE task_uuid = $1 ORDER BY sort_order`),
      edges: await q(`SELECT * FROM task_dependency WHERE task_uuid = $1 OR depends_on_uuid = $1 ORDER BY task_uuid, depends_on_uuid`),
      checkins: await q(`SELECT * FROM session_task_checkin WHERE task_uuid = $1 ORDER BY session_uuid`),
      comments: await q(`SELECT * FROM comment WHERE target_uuid = $1 ORDER BY uuid`),
      activities: await q(`SELECT * FROM activity WHERE target_uuid = $1 ORDER BY created_at, uuid`),
    };
  }

  /** Activity rows of a target, oldest first. */
  async activities(targetUuid: string): Promise<Array<{ action: string; value: Record<string, unknown> | null; session_uuid: string | null; session_name: string | null; actor_uuid: string }>> {
    return this.db.query(`SELECT action, value, session_uuid, session_name, actor_uuid FROM activity WHERE target_uuid = $1 ORDER BY created_at, uuid`, [targetUuid]);
  }
}

/**
 * Asserts a refused call: the error code (and message when given), no change to the task's rows and no event.
 */
export async function expectRefused(
  f: TaskFactory,
  h: Harness,
  taskUuid: string,
  call: () => Promise<unknown>,
  code: string,
  message?: string,
): Promise<void> {
  const before = await f.snapshot(taskUuid);
  h.takeEvents();
  await expect(call()).rejects.toMatchObject({ code, ...(message !== undefined ? { message } : {}) });
  expect(await f.snapshot(taskUuid)).toEqual(before);
  expect(h.takeEvents()).toEqual([]);
}
