import type { Client } from '@modelcontextprotocol/client';
import type { Actor } from '../../src/shared/auth/actor.js';
import type { RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { ProjectGroupService, ProjectService, type ProjectEntity } from '../../src/modules/projects/index.js';
import { SessionService } from '../../src/modules/sessions/session.service.js';
import { TaskService, type NewTaskInput, type TaskStatus } from '../../src/modules/tasks/index.js';
import { DomainFactory } from '../factories/domain.factory.js';
import type { IdentityFactory, SeededUser } from '../factories/identity.factory.js';
import { LONG_CONTENT, ProposalFactory } from '../factories/proposal.factory.js';
import { TaskFactory } from '../factories/task.factory.js';
import { callTool, okCall, type ToolResult } from './mcp-client.js';
import { unique, userActor, World } from './world.js';

/**
 * The casts of the MCP tool tests, each built on `World.start()` (the app, its seeding helpers, its agents' SDK
 * clients, closed with it): `createIdeaToolWorld` (idea, project and collaboration tools), `McpWorld` (task and
 * session tools) and `seedToolWorld` (proposal and document tools).
 *
 * @deprecated A cast over the one test world (test/utils/world.ts), kept until the suites that use it are rewritten on the
 * world's own seeders (README "Testing"); write new tests on `World` directly.
 */


/** An agent with a key and an official SDK client bound to it. */
export interface McpAgent {
  uuid: string;
  name: string;
  key: string;
  actor: Actor;
  client: Client;
}


/**
 * The task and session tools' cast: the whole app on a random port with company A (owner user, project, agents dev/dev2/pm/admin with clients) and a
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
    this.rows = new TaskFactory(app);
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

/** Field sets of docs/tool-conventions.md §5.9. */
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

/**
 * The idea, project and collaboration tools' cast: the whole app plus company A with users alice and bob and agents pm (pm_agent, owner alice), pm2
 * (pm_agent, owner bob), dev (developer_agent, owner alice) and admin (admin_agent, owner bob); company B with
 * mallory (admin_agent). `events` records every change event of the in-process bus.
 */
export interface IdeaToolWorld {
  app: World;
  companyUuid: string;
  alice: Actor;
  bob: Actor;
  pm: McpAgent;
  pm2: McpAgent;
  dev: McpAgent;
  admin: McpAgent;
  mallory: McpAgent;
  /** Seeds rows the tools under test do not create (proposals, tasks, documents) through the app's runner. */
  f: DomainFactory;
  events: RealtimeEvent[];
  takeEvents(): RealtimeEvent[];
  call<T = any>(agent: McpAgent, name: string, args?: Record<string, unknown>): Promise<{ isError: boolean; data: T }>;
  /** A successful call's result (fails the test on an isError result). */
  ok<T = any>(agent: McpAgent, name: string, args?: Record<string, unknown>): Promise<T>;
  /**
   * A refused call: asserts the error code (and message), that no change event was published and that the domain
   * tables are unchanged; returns the error object.
   */
  refused(agent: McpAgent, name: string, args: Record<string, unknown>, code: string, message?: string): Promise<Record<string, any>>;
  /** The change event shape the bus carries, in company A. */
  ev(entityType: RealtimeEvent['entityType'], entityUuid: string, projectUuid: string, action: RealtimeEvent['action']): RealtimeEvent;
  close(): Promise<void>;
}

const SNAPSHOT_TABLES = ['project', 'project_group', 'idea', 'elaboration_round', 'elaboration_question', 'proposal', 'task', 'document', 'comment', 'reference', 'activity', 'mention'];

export async function createIdeaToolWorld(): Promise<IdeaToolWorld> {
  const app = await World.start();
  const ds = app.ds;
  const a = await app.company();
  const aliceU: SeededUser = await app.user(a.uuid, { name: 'Alice' });
  const bobU: SeededUser = await app.user(a.uuid, { name: 'Bob' });
  const b = await app.company();
  const malloryU = await app.user(b.uuid, { name: 'Mallory' });

  const agent = async (companyUuid: string, ownerUuid: string, preset: string, name: string): Promise<McpAgent> => {
    const { uuid, name: agentName, key, client, actor } = await app.agent(companyUuid, ownerUuid, { preset, name });
    return { uuid, name: agentName, key, client, actor };
  };

  const events = app.recordEvents();
  const takeEvents = (): RealtimeEvent[] => events.splice(0, events.length);

  const snapshot = async (): Promise<unknown[]> => {
    const out: unknown[] = [];
    for (const t of SNAPSHOT_TABLES) out.push(await ds.query(`SELECT * FROM "${t}" ORDER BY uuid`));
    return out;
  };

  const call = <T>(who: McpAgent, name: string, args: Record<string, unknown> = {}): Promise<ToolResult<T>> => app.call<T>(who, name, args);

  return {
    app,
    companyUuid: a.uuid,
    alice: userActor(aliceU),
    bob: userActor(bobU),
    pm: await agent(a.uuid, aliceU.uuid, 'pm_agent', 'PM'),
    pm2: await agent(a.uuid, bobU.uuid, 'pm_agent', 'PM2'),
    dev: await agent(a.uuid, aliceU.uuid, 'developer_agent', 'Dev'),
    admin: await agent(a.uuid, bobU.uuid, 'admin_agent', 'Admin'),
    mallory: await agent(b.uuid, malloryU.uuid, 'admin_agent', 'Mallory'),
    f: new DomainFactory(app, { app: true }),
    events,
    takeEvents,
    call,
    ok: <T>(who: McpAgent, name: string, args: Record<string, unknown> = {}): Promise<T> => app.ok<T>(who, name, args),
    refused: async (who, name, args, code, message) => {
      takeEvents();
      const before = await snapshot();
      const res = await call<{ error: Record<string, any> }>(who, name, args);
      expect(res.isError).toBe(true);
      expect({ code: res.data.error?.code, message: res.data.error?.message }).toEqual({ code, message: message ?? expect.any(String) });
      expect(takeEvents()).toEqual([]);
      expect(await snapshot()).toEqual(before);
      return res.data.error;
    },
    ev: (entityType, entityUuid, projectUuid, action) => ({ companyUuid: a.uuid, projectUuid, entityType, entityUuid, action }),
    close: () => app.close(),
  };
}

/** Events compared without regard to order (the runner publishes them in recording order, which is not the contract). */
export function sortEvents(list: RealtimeEvent[]): RealtimeEvent[] {
  const key = (e: RealtimeEvent): string => `${e.entityType}:${e.entityUuid}:${e.projectUuid}:${e.action}`;
  return [...list].sort((x, y) => key(x).localeCompare(key(y)));
}

/** One agent as a tool caller: its record, its key, an SDK client bound to that key. */
export interface ToolAgent {
  uuid: string;
  name: string;
  key: string;
  client: Client;
  who: { type: 'agent'; uuid: string };
}

/**
 * The proposal and document tools' cast. Company A: a user owning a pm, an admin and a developer agent, a second user owning "another" pm agent, and a
 * project. Company B: a user, an admin agent and a project — the other tenant. Change events of the in-process bus
 * are collected in `events`. Built on the app's `World` (its agents' clients close with it).
 */
export interface ToolWorld {
  app: World;
  f: ProposalFactory;
  companyUuid: string;
  owner: SeededUser;
  project: ProjectEntity;
  pm: ToolAgent;
  otherPm: ToolAgent;
  admin: ToolAgent;
  developer: ToolAgent;
  other: { companyUuid: string; project: ProjectEntity; admin: ToolAgent };
  events: RealtimeEvent[];
  /** The events collected since the last call, emptying the list. */
  takeEvents(): RealtimeEvent[];
}

export async function seedToolWorld(app: World): Promise<ToolWorld> {
  const f = new ProposalFactory(app.ds);
  const agent = async (companyUuid: string, ownerUuid: string, preset: string, name: string): Promise<ToolAgent> => {
    const a = await app.agent(companyUuid, ownerUuid, { preset, name });
    return { uuid: a.uuid, name: a.name, key: a.key, client: a.client, who: { type: 'agent', uuid: a.uuid } };
  };
  const a = await app.company('Tools A');
  const owner = await app.user(a.uuid, { name: 'Owner' });
  const colleague = await app.user(a.uuid, { name: 'Colleague' });
  const b = await app.company('Tools B');
  const outsider = await app.user(b.uuid, { name: 'Outsider' });
  const events = app.recordEvents();
  return {
    app,
    f,
    companyUuid: a.uuid,
    owner,
    project: await f.project(a.uuid, 'Tools project'),
    pm: await agent(a.uuid, owner.uuid, 'pm_agent', 'PM'),
    otherPm: await agent(a.uuid, colleague.uuid, 'pm_agent', 'Other PM'),
    admin: await agent(a.uuid, owner.uuid, 'admin_agent', 'Admin'),
    developer: await agent(a.uuid, owner.uuid, 'developer_agent', 'Developer'),
    other: { companyUuid: b.uuid, project: await f.project(b.uuid, 'Other tenant project'), admin: await agent(b.uuid, outsider.uuid, 'admin_agent', 'Outsider admin') },
    events,
    takeEvents: () => events.splice(0, events.length),
  };
}

/** Calls a tool that must succeed and returns its parsed result. */
export function ok<T = any>(agent: ToolAgent, name: string, args: Record<string, unknown>): Promise<T> {
  return okCall<T>(agent.client, name, args);
}

/** A refused call: the parsed `{error}` of an isError result (fails the test when the call succeeded). */
export async function refusal(agent: ToolAgent, name: string, args: Record<string, unknown>): Promise<{ code: string; message: string; [extra: string]: unknown }> {
  const res = await callTool(agent.client, name, args);
  expect({ isError: res.isError, name }).toEqual({ isError: true, name });
  return res.data.error;
}

/** A change event of company A's project. */
export const change = (w: ToolWorld, entityType: RealtimeEvent['entityType'], entityUuid: string, action: RealtimeEvent['action'], projectUuid = w.project.uuid): RealtimeEvent => ({
  companyUuid: w.companyUuid,
  projectUuid,
  entityType,
  entityUuid,
  action,
});

/**
 * A draft proposal built through the tools by `agent` over one fresh resolved idea assigned to it: one document draft
 * and two task drafts (B depends on A) — it validates. The setup's events are discarded.
 */
export async function draftProposal(w: ToolWorld, agent: ToolAgent = w.pm) {
  const idea = await w.f.idea(w.companyUuid, w.project.uuid, agent.who);
  const p = await ok(agent, 'svc_pm_create_proposal', { projectUuid: w.project.uuid, title: 'Checkout rework', inputType: 'idea', inputUuids: [idea.uuid] });
  const doc = await ok(agent, 'svc_pm_add_document_draft', { proposalUuid: p.uuid, type: 'tech_design', title: 'Design', content: LONG_CONTENT });
  const a = await ok(agent, 'svc_pm_add_task_draft', { proposalUuid: p.uuid, title: 'Task A', priority: 'high', acceptanceCriteriaItems: [{ description: 'A works' }] });
  const b = await ok(agent, 'svc_pm_add_task_draft', {
    proposalUuid: p.uuid,
    title: 'Task B',
    storyPoints: 3,
    acceptanceCriteriaItems: [{ description: 'B works' }, { description: 'B is fast', required: false }],
    dependsOnDraftUuids: [a.draftUuid],
  });
  w.takeEvents();
  return { uuid: p.uuid as string, idea, docDraft: doc.draftUuid as string, taskDrafts: { a: a.draftUuid as string, b: b.draftUuid as string } };
}

/** A proposal driven through the tools to `status` (approval and closing by the admin agent); events discarded. */
export async function proposalIn(w: ToolWorld, status: 'draft' | 'pending' | 'approved' | 'closed', agent: ToolAgent = w.pm) {
  const p = await draftProposal(w, agent);
  if (status !== 'draft') await ok(agent, 'svc_pm_submit_proposal', { proposalUuid: p.uuid });
  if (status === 'approved') await ok(w.admin, 'svc_admin_approve_proposal', { proposalUuid: p.uuid });
  if (status === 'closed') await ok(w.admin, 'svc_admin_close_proposal', { proposalUuid: p.uuid, reviewNote: 'Not now' });
  w.takeEvents();
  return p;
}
