import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Actor } from '../../src/shared/auth/actor.js';
import type { RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { ProjectGroupService, ProjectService } from '../../src/modules/projects/index.js';
import { TaskService, type NewTaskInput, type TaskStatus } from '../../src/modules/tasks/index.js';
import type { ToolResult } from '../utils/mcp-client.js';
import { userActor, World } from '../utils/world.js';
import type { IdentityFactory, SeededUser } from './identity.factory.js';
import { TaskFactory } from './task.factory.js';
import { SessionService } from '../../src/modules/sessions/session.service.js';

const unique = (): string => randomBytes(3).toString('hex');

/** An agent with a key and an official SDK client bound to it. */
export interface McpAgent {
  uuid: string;
  name: string;
  key: string;
  actor: Actor;
  client: Client;
}

export type { ToolResult };

/**
 * The whole app on a random port with company A (owner user, project, agents dev/dev2/pm/admin with clients) and a
 * foreign company B (its own admin agent and project). Every change event published on the app's bus is recorded.
 * Seeding goes through the app's own services; `tasks.snapshot` reads the raw rows for "unchanged on refusal".
 */
export class McpWorld {
  readonly events: RealtimeEvent[];
  readonly ids: IdentityFactory;
  readonly taskService: TaskService;
  readonly sessionService: SessionService;
  readonly projects: ProjectService;
  readonly groups: ProjectGroupService;
  /** Only for `snapshot`/`activities`: its services run on a private bus. */
  readonly rows: TaskFactory;

  companyUuid!: string;
  ownerUser!: SeededUser;
  owner!: Actor;
  projectUuid!: string;
  dev!: McpAgent;
  dev2!: McpAgent;
  pm!: McpAgent;
  admin!: McpAgent;
  foreign!: { companyUuid: string; owner: Actor; projectUuid: string; admin: McpAgent };

  private constructor(readonly app: World) {
    this.ids = app.ids;
    this.taskService = app.get(TaskService);
    this.sessionService = app.get(SessionService);
    this.projects = app.get(ProjectService);
    this.groups = app.get(ProjectGroupService);
    this.rows = new TaskFactory(app.ds, app.h);
    this.events = app.recordEvents();
  }

  static async start(): Promise<McpWorld> {
    const w = new McpWorld(await World.start());
    const company = await w.ids.company();
    w.companyUuid = company.uuid;
    w.ownerUser = await w.ids.user(company.uuid, { name: 'Owner' });
    w.owner = userActor(w.ownerUser);
    w.projectUuid = await w.project(w.owner);
    w.dev = await w.agent(company.uuid, w.ownerUser.uuid, 'developer_agent', 'Dev');
    w.dev2 = await w.agent(company.uuid, w.ownerUser.uuid, 'developer_agent', 'Dev2');
    w.pm = await w.agent(company.uuid, w.ownerUser.uuid, 'pm_agent', 'PM');
    w.admin = await w.agent(company.uuid, w.ownerUser.uuid, 'admin_agent', 'Admin');
    const other = await w.ids.company();
    const otherUser = await w.ids.user(other.uuid, { name: 'Mallory' });
    const otherOwner = userActor(otherUser);
    w.foreign = {
      companyUuid: other.uuid,
      owner: otherOwner,
      projectUuid: await w.project(otherOwner),
      admin: await w.agent(other.uuid, otherUser.uuid, 'admin_agent', 'Evil'),
    };
    return w;
  }

  async project(actor: Actor, groupUuid?: string): Promise<string> {
    return (await this.projects.create(actor, { name: `Project ${unique()}`, groupUuid })).uuid;
  }

  /** A new agent of `companyUuid` with its own key and client; `headers` are sent on every request. */
  async agent(companyUuid: string, ownerUuid: string, preset: string, name = `Agent ${unique()}`, headers: Record<string, string> = {}): Promise<McpAgent> {
    const { uuid, name: agentName, key, actor, client } = await this.app.agent(companyUuid, ownerUuid, { preset, name, headers });
    return { uuid, name: agentName, key, actor, client };
  }

  client(key: string, headers: Record<string, string> = {}): Promise<Client> {
    return this.app.mcp(key, headers);
  }

  call<T = any>(agent: McpAgent | Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult<T>> {
    return this.app.call<T>(agent, name, args);
  }

  /** Clears and returns the recorded change events. */
  takeEvents(): RealtimeEvent[] {
    return this.events.splice(0, this.events.length);
  }

  /** An open task of `projectUuid` with criteria works (required), tested (required), nice (optional). */
  async task(overrides: Partial<NewTaskInput> = {}, projectUuid = this.projectUuid, creator = this.owner): Promise<string> {
    const { tasks } = await this.taskService.createTasks(creator, {
      projectUuid,
      tasks: [
        {
          title: `Task ${unique()}`,
          acceptanceCriteriaItems: [{ description: 'works' }, { description: 'tested' }, { description: 'nice', required: false }],
          ...overrides,
        },
      ],
    });
    this.takeEvents();
    return tasks[0].uuid;
  }

  /** A task driven into `status` through the services, held by `assignee` for the held statuses. */
  async taskIn(status: TaskStatus, assignee: Actor, overrides: Partial<NewTaskInput> = {}): Promise<string> {
    const uuid = await this.task(overrides);
    const t = this.taskService;
    if (status === 'closed') await t.close(this.owner, { taskUuid: uuid });
    if (status !== 'open' && status !== 'closed') {
      await t.claim(assignee, { taskUuid: uuid });
      if (status !== 'assigned') await t.update(assignee, { taskUuid: uuid, status: 'in_progress' });
      if (status === 'to_verify' || status === 'done') await t.submitForVerify(assignee, { taskUuid: uuid });
      if (status === 'done') {
        const r = await t.get(this.owner, { taskUuid: uuid });
        await t.markCriteria(this.owner, { taskUuid: uuid, criteria: r.acceptanceCriteriaItems.map((c) => ({ uuid: c.uuid, status: 'passed' })) });
        await t.verify(this.owner, { taskUuid: uuid });
      }
    }
    this.takeEvents();
    return uuid;
  }

  /**
   * A refused call: an isError result with `code` (and `message`), the named tasks' rows unchanged and no change
   * event. Returns the error object for further checks.
   */
  async refused(agent: McpAgent, name: string, args: Record<string, unknown>, code: string, message?: string, taskUuids: string[] = []): Promise<any> {
    const before = await Promise.all(taskUuids.map((u) => this.rows.snapshot(u)));
    this.takeEvents();
    const res = await this.call(agent, name, args);
    expect(res.isError).toBe(true);
    expect(res.data.error.code).toBe(code);
    if (message !== undefined) expect(res.data.error.message).toBe(message);
    expect(await Promise.all(taskUuids.map((u) => this.rows.snapshot(u)))).toEqual(before);
    expect(this.takeEvents()).toEqual([]);
    return res.data.error;
  }

  /** A successful call: its result data (fails the test with the error otherwise). */
  ok<T = any>(agent: McpAgent, name: string, args: Record<string, unknown> = {}): Promise<T> {
    return this.app.ok<T>(agent, name, args);
  }

  /** The change event shape of a task in this world's company. */
  taskEvent(entityUuid: string, action: RealtimeEvent['action'] = 'updated', projectUuid = this.projectUuid): RealtimeEvent {
    return { companyUuid: this.companyUuid, projectUuid, entityType: 'task', entityUuid, action };
  }

  close(): Promise<void> {
    return this.app.close();
  }
}

/** Field sets of tools.md §5.9. */
export const TASK_SUMMARY_KEYS = ['uuid', 'projectUuid', 'proposalUuid', 'title', 'status', 'priority', 'storyPoints', 'assignee', 'acceptance', 'createdAt', 'updatedAt'];
export const TASK_RECORD_KEYS = [
  ...TASK_SUMMARY_KEYS,
  'description',
  'createdBy',
  'acceptanceCriteriaItems',
  'acceptanceStatus',
  'acceptanceSummary',
  'dependsOn',
  'dependedBy',
  'activeSessions',
  'commentCount',
  'references',
];
export const CRITERION_KEYS = ['uuid', 'description', 'required', 'sortOrder', 'devStatus', 'devEvidence', 'devMarkedBy', 'devMarkedAt', 'status', 'evidence', 'markedBy', 'markedAt'];
export const SESSION_RECORD_KEYS = ['uuid', 'agentUuid', 'name', 'description', 'status', 'lastActiveAt', 'closedAt', 'checkins', 'createdAt', 'updatedAt'];

export const sortedKeys = (o: object): string[] => Object.keys(o).sort();
export const keysOf = (list: string[]): string[] => [...list].sort();
