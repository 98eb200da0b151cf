import { randomUUID } from 'node:crypto';
import type { ProposalStatus } from '../../src/modules/proposals/index.js';
import type { SeededUser } from '../factories/identity.factory.js';
import type { HttpClient, HttpResult } from '../utils/http.js';
import { ChangeEvents, ev } from '../utils/change-events.js';
import { expectInvalid, expectRefused, type Observed, withEvents } from '../utils/rest-expect.js';
import { userActor, World, type WorldAgent } from '../utils/world.js';
import type { Actor } from '../../src/shared/auth/actor.js';
import type { RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { RESULT_CAP_BYTES } from '../../src/modules/tool-kit/tool-result.js';
import { SessionService } from '../../src/modules/sessions/session.service.js';
import { TaskService, type NewTaskInput, type TaskStatus, TaskTrackerService } from '../../src/modules/tasks/index.js';
import { expectRefused as expectToolRefused, keysOf, sortedKeys, TASK_SUMMARY_KEYS } from '../utils/mcp-expect.js';
import type { Client } from '@modelcontextprotocol/client';
import { IdeaService } from '../../src/modules/ideas/index.js';

/** One app for the whole file; each block below seeds companies of its own. */
let world: World;
beforeAll(async () => {
  world = await World.start();
});
afterAll(() => world.close());

// Scenarios REST and MCP share (create, read, update, transitions, criteria, work reports, delete, tenancy) are in tasks-shared.test.ts.

/** Task routes of docs/platform.md §9 over a running app, with change events read from a real EventSource. */
describe('REST tasks (e2e)', () => {
  let n = 0;
  const CRITERIA = [{ description: 'works' }, { description: 'tested' }, { description: 'nice to have', required: false }];
  /**
   * Company A: alice (owning an agent) and carol, and projects A and A2; company B: bob and project B. Clients
   * are logged in.
   */
  let aliceUser: SeededUser;
  let carolUser: SeededUser;
  let bobUser: SeededUser;
  let alice: HttpClient;
  let carol: HttpClient;
  let bob: HttpClient;
  let aliceAgent: WorldAgent;
  let projectA: string;
  let projectA2: string;
  let projectB: string;
  /** Alice's company stream and the app's database. */
  let seen: Observed;

  beforeAll(async () => {
    const [companyA, companyB] = [(await world.company()).uuid, (await world.company()).uuid];
    [aliceUser, carolUser, bobUser] = [await world.user(companyA, { name: 'Alice' }), await world.user(companyA, { name: 'Carol' }), await world.user(companyB, { name: 'Bob' })];
    [alice, carol, bob] = [await world.login(aliceUser), await world.login(carolUser), await world.login(bobUser)];
    aliceAgent = await world.agent(companyA, aliceUser.uuid, { name: 'Alice bot' });
    [projectA, projectA2, projectB] = [await world.project(userActor(aliceUser)), await world.project(userActor(aliceUser)), await world.project(userActor(bobUser))];
    seen = { changes: await ChangeEvents.open(world, alice.cookie!, companyA), companyUuid: companyA, ds: world.ds };
  });
  afterAll(async () => {
    seen.changes.close();
  });

  const read = (uuid: string, client: HttpClient = alice) => () => client.get(`/api/tasks/${uuid}`);
  const data = (res: HttpResult, status = 200) => {
    expect({ status: res.status, body: res.status === status ? 'ok' : res.body }).toEqual({ status, body: 'ok' });
    return res.body.data;
  };

  async function newTask(overrides: Record<string, unknown> = {}, project = projectA, client = alice) {
    const res = await client.post(`/api/projects/${project}/tasks`, { tasks: [{ title: `Task ${++n}`, acceptanceCriteriaItems: CRITERIA, ...overrides }] });
    return data(res, 201).tasks[0] as { uuid: string; title: string; projectUuid: string };
  }

  /** A task of project A driven to `status` through the routes, held by `holder` (default alice). */
  async function taskIn(status: 'open' | 'assigned' | 'in_progress' | 'to_verify' | 'done' | 'closed', holder = alice, overrides = {}) {
    const t = await newTask(overrides);
    if (status === 'open') return t;
    if (status === 'closed') return data(await alice.post(`/api/tasks/${t.uuid}/close`, {})) && t;
    data(await holder.post(`/api/tasks/${t.uuid}/claim`));
    if (status === 'assigned') return t;
    data(await holder.patch(`/api/tasks/${t.uuid}`, { status: 'in_progress' }));
    if (status === 'in_progress') return t;
    data(await holder.post(`/api/tasks/${t.uuid}/submit`, {}));
    if (status === 'to_verify') return t;
    await passAll(t.uuid);
    data(await alice.post(`/api/tasks/${t.uuid}/verify`));
    return t;
  }

  async function passAll(uuid: string) {
    const record = data(await alice.get(`/api/tasks/${uuid}`));
    data(await alice.post(`/api/tasks/${uuid}/criteria/marks`, { criteria: record.acceptanceCriteriaItems.map((c: { uuid: string }) => ({ uuid: c.uuid, status: 'passed' })) }));
  }

  /** A proposal row of alice's in `status` (its input never read), for tasks to link to. */
  async function proposalRow(projectUuid: string, status: ProposalStatus): Promise<string> {
    return (await world.domain.proposal(userActor(aliceUser), projectUuid, { inputUuids: [randomUUID()], status, title: `Proposal ${++n}` })).uuid;
  }

  const updated = (t: { uuid: string; projectUuid?: string }) => ev('task', 'updated', t.uuid, t.projectUuid ?? projectA);

  describe('authentication and tenancy', () => {
    const taskRoutes = (uuid: string): Array<[string, string, unknown?]> => [
      ['GET', `/api/tasks/${uuid}`],
      ['PATCH', `/api/tasks/${uuid}`, { title: 'Taken' }],
      ['DELETE', `/api/tasks/${uuid}`],
      ['POST', `/api/tasks/${uuid}/claim`],
      ['POST', `/api/tasks/${uuid}/release`],
      ['POST', `/api/tasks/${uuid}/submit`, {}],
      ['POST', `/api/tasks/${uuid}/verify`],
      ['POST', `/api/tasks/${uuid}/reopen`, {}],
      ['POST', `/api/tasks/${uuid}/close`, {}],
      ['POST', `/api/tasks/${uuid}/assign`, { assigneeType: 'user', assigneeUuid: aliceUser.uuid }],
      ['POST', `/api/tasks/${uuid}/criteria/marks`, { criteria: [{ uuid: randomUUID(), status: 'passed' }] }],
      ['POST', `/api/tasks/${uuid}/criteria/self-check`, { criteria: [{ uuid: randomUUID(), devStatus: 'passed' }] }],
      ['POST', `/api/tasks/${uuid}/work-reports`, { report: 'Did it' }],
    ];
    const projectRoutes = (uuid: string): Array<[string, string, unknown?]> => [
      ['GET', `/api/projects/${uuid}/tasks`],
      ['POST', `/api/projects/${uuid}/tasks`, { tasks: [{ title: 'T', acceptanceCriteriaItems: CRITERIA }] }],
      ['GET', `/api/projects/${uuid}/tasks/available`],
      ['GET', `/api/projects/${uuid}/tasks/unblocked`],
    ];
    const call = (c: HttpClient, [method, path, json]: [string, string, unknown?]) => c.request(method, path, { json });

    it('answers 401 UNAUTHORIZED without a session cookie on every route, changing nothing', async () => {
      const t = await newTask();
      for (const route of [...taskRoutes(t.uuid), ...projectRoutes(projectA)]) {
        await expectRefused(seen, () => call(world.http(), route), 401, 'UNAUTHORIZED', 'Authentication required', read(t.uuid));
      }
    });

    it('answers 404 for a missing, malformed or other-company uuid on every route, with no event', async () => {
      const theirs = await newTask({}, projectB, bob);
      const before = (await bob.get(`/api/tasks/${theirs.uuid}`)).body;
      for (const uuid of [randomUUID(), 'not-a-uuid', theirs.uuid]) {
        for (const route of taskRoutes(uuid)) await expectRefused(seen, () => call(alice, route), 404, 'NOT_FOUND', 'Task not found');
      }
      for (const uuid of [randomUUID(), 'nope', projectB]) {
        for (const route of projectRoutes(uuid)) await expectRefused(seen, () => call(alice, route), 404, 'NOT_FOUND', 'Project not found');
      }
      expect((await bob.get(`/api/tasks/${theirs.uuid}`)).body).toEqual(before);
    });
  });

  describe('POST /api/projects/:uuid/tasks', () => {
    it('validates the body: 400 VALIDATION_ERROR with details, nothing created', async () => {
      const post = (body: unknown) => () => alice.post(`/api/projects/${projectA}/tasks`, body);
      expectInvalid(await expectRefused(seen, post({ tasks: [] }), 400, 'VALIDATION_ERROR', 'Invalid input'), 'tasks');
      expectInvalid(await expectRefused(seen, post({ tasks: [{ title: 5, acceptanceCriteriaItems: [] }] }), 400, 'VALIDATION_ERROR'), 'tasks.0.title', 'tasks.0.acceptanceCriteriaItems');
      expectInvalid(await expectRefused(seen, post({ tasks: [{ title: 'T', acceptanceCriteriaItems: CRITERIA, storyPoints: 5000 }], extra: 1 }), 400, 'VALIDATION_ERROR'), 'tasks.0.storyPoints', 'extra');
      expectInvalid(await expectRefused(seen, post({ tasks: [{ title: 'T', acceptanceCriteriaItems: [{ description: 'x', extra: true }] }] }), 400, 'VALIDATION_ERROR'), 'tasks.0.acceptanceCriteriaItems.0.extra');
    });
  });

  describe('GET lists', () => {
    let t: Record<'low' | 'high' | 'medium' | 'linked', { uuid: string }>;
    let proposalUuid: string;
    const list = (query: string, path = 'tasks') => alice.get(`/api/projects/${projectA2}/${path}${query}`);
    const uuids = (res: HttpResult) => data(res).tasks.map((x: { uuid: string }) => x.uuid);

    beforeAll(async () => {
      proposalUuid = await proposalRow(projectA2, 'approved');
      const low = await newTask({ priority: 'low' }, projectA2);
      const high = await newTask({ priority: 'high' }, projectA2);
      const medium = await newTask({ priority: 'medium', dependsOnTaskUuids: [low.uuid] }, projectA2);
      const res = await alice.post(`/api/projects/${projectA2}/tasks`, { proposalUuid, tasks: [{ title: 'Linked', priority: 'high', acceptanceCriteriaItems: CRITERIA }] });
      t = { low, high, medium, linked: data(res, 201).tasks[0] };
      data(await alice.post(`/api/tasks/${high.uuid}/claim`));
    });

    it('lists by priority rank then newest, with the filters and {tasks, page, pageSize, total}', async () => {
      const all = data(await list(''));
      expect(all).toEqual({ tasks: expect.any(Array), page: 1, pageSize: 20, total: 4 });
      expect(all.tasks.map((x: { uuid: string }) => x.uuid)).toEqual([t.linked.uuid, t.high.uuid, t.medium.uuid, t.low.uuid]);
      expect(uuids(await list('?status=assigned'))).toEqual([t.high.uuid]);
      expect(uuids(await list('?priority=high'))).toEqual([t.linked.uuid, t.high.uuid]);
      expect(uuids(await list(`?proposalUuids=${proposalUuid}`))).toEqual([t.linked.uuid]);
      expect(uuids(await list(`?proposalUuids=${proposalUuid},${randomUUID()}&status=open`))).toEqual([t.linked.uuid]);
    });

    it('pages with page/pageSize (validated) or limit/offset (clamped)', async () => {
      expect(data(await list('?page=2&pageSize=2'))).toEqual({ tasks: [expect.objectContaining({ uuid: t.medium.uuid }), expect.objectContaining({ uuid: t.low.uuid })], page: 2, pageSize: 2, total: 4 });
      expect(data(await list('?limit=2&offset=1'))).toMatchObject({ page: 1, pageSize: 2, total: 4 });
      expect(uuids(await list('?limit=2&offset=1'))).toEqual([t.high.uuid, t.medium.uuid]);
      expect(data(await list('?limit=1000&offset=-3'))).toMatchObject({ page: 1, pageSize: 100, total: 4 });
      expect(data(await list('?limit=abc'))).toMatchObject({ pageSize: 20 });
    });

    it('lists available (open, prerequisites resolved) and unblocked (open or assigned, prerequisites resolved) tasks', async () => {
      // medium waits for the open low: not available (docs/tool-conventions.md §5.1, same operation as svc_get_available_tasks).
      expect(data(await list('', 'tasks/available'))).toMatchObject({ total: 2 });
      expect(uuids(await list('', 'tasks/available'))).toEqual([t.linked.uuid, t.low.uuid]);
      expect(uuids(await list(`?proposalUuids=${proposalUuid}`, 'tasks/available'))).toEqual([t.linked.uuid]);
      expect(uuids(await list('', 'tasks/unblocked'))).toEqual([t.linked.uuid, t.high.uuid, t.low.uuid]);
      expect(data(await list('?pageSize=1', 'tasks/unblocked'))).toMatchObject({ page: 1, pageSize: 1, total: 3 });
    });

    it('answers 400 VALIDATION_ERROR with details for bad filters and paging', async () => {
      expectInvalid(await list('?status=bogus&priority=urgent'), 'status', 'priority');
      expectInvalid(await list('?proposalUuids=nope'), 'proposalUuids');
      expectInvalid(await list(`?proposalUuids=${Array.from({ length: 21 }, () => randomUUID()).join(',')}`), 'proposalUuids');
      expectInvalid(await list('?page=0'), 'page');
      expectInvalid(await list('?pageSize=101', 'tasks/available'), 'pageSize');
      expectInvalid(await list('?page=x', 'tasks/unblocked'), 'page');
    });
  });

  describe('PATCH /api/tasks/:uuid', () => {
    it('moves the status of a task held by an agent the user owns; a colleague is refused', async () => {
      const viaAgent = await newTask();
      data(await alice.post(`/api/tasks/${viaAgent.uuid}/assign`, { assigneeType: 'agent', assigneeUuid: aliceAgent.uuid }));
      expect(data(await alice.patch(`/api/tasks/${viaAgent.uuid}`, { status: 'in_progress' })).status).toBe('in_progress');
      await expectRefused(seen, () => carol.patch(`/api/tasks/${viaAgent.uuid}`, { status: 'to_verify' }), 403, 'FORBIDDEN', "Only the assignee can change this task's status", read(viaAgent.uuid));
    });

    it('validates the body: 400 with details', async () => {
      const t = await newTask();
      const patch = (body: unknown) => () => alice.patch(`/api/tasks/${t.uuid}`, body);
      expectInvalid(await expectRefused(seen, patch({ storyPoints: 'x', status: 'done' }), 400, 'VALIDATION_ERROR', 'Invalid input', read(t.uuid)), 'storyPoints', 'status');
      expectInvalid(await expectRefused(seen, patch({ addDependsOn: ['nope'], sessionUuid: randomUUID() }), 400, 'VALIDATION_ERROR'), 'addDependsOn', 'sessionUuid');
      expectInvalid(await expectRefused(seen, patch({ acceptanceCriteriaItems: [] }), 400, 'VALIDATION_ERROR'), 'acceptanceCriteriaItems');
    });
  });

  describe('claim, release, assign', () => {
    it('assigns to a user (200); the same assignee again changes nothing', async () => {
      const t = await newTask();
      const toCarol = await withEvents(seen, () => alice.post(`/api/tasks/${t.uuid}/assign`, { assigneeType: 'user', assigneeUuid: carolUser.uuid }));
      expect(data(toCarol.res)).toMatchObject({ status: 'assigned', assignee: { type: 'user', uuid: carolUser.uuid, assignedBy: { type: 'user', uuid: aliceUser.uuid, name: 'Alice' } } });
      expect(toCarol.events).toEqual([updated(t)]);
      const same = await withEvents(seen, () => alice.post(`/api/tasks/${t.uuid}/assign`, { assigneeType: 'user', assigneeUuid: carolUser.uuid }));
      expect(data(same.res).assignee.uuid).toBe(carolUser.uuid);
      expect(same.events).toEqual([]);
    });

    it('refuses bad bodies (400) and unknown users (404)', async () => {
      const t = await newTask();
      const assign = (body: unknown, uuid = t.uuid) => () => alice.post(`/api/tasks/${uuid}/assign`, body);
      expectInvalid(await expectRefused(seen, assign({ assigneeType: 'robot', assigneeUuid: 'x' }), 400, 'VALIDATION_ERROR', 'Invalid input', read(t.uuid)), 'assigneeType', 'assigneeUuid');
      await expectRefused(seen, assign({ assigneeType: 'user', assigneeUuid: bobUser.uuid }), 404, 'NOT_FOUND', 'User not found', read(t.uuid));
    });
  });

  describe('submit, reopen, close: body validation', () => {
    it('refuses a bad submit summary (400)', async () => {
      const t = await taskIn('in_progress');
      expectInvalid(await expectRefused(seen, () => alice.post(`/api/tasks/${t.uuid}/submit`, { summary: 42 }), 400, 'VALIDATION_ERROR', 'Invalid input', read(t.uuid)), 'summary');
    });

    it('refuses a non-boolean reopen force (400)', async () => {
      const t = await taskIn('to_verify');
      expectInvalid(await expectRefused(seen, () => alice.post(`/api/tasks/${t.uuid}/reopen`, { force: 'yes' }), 400, 'VALIDATION_ERROR', 'Invalid input', read(t.uuid)), 'force');
    });

    it('refuses a non-string close reason (400)', async () => {
      const t = await taskIn('in_progress');
      expectInvalid(await expectRefused(seen, () => alice.post(`/api/tasks/${t.uuid}/close`, { reason: 5 }), 400, 'VALIDATION_ERROR', 'Invalid input', read(t.uuid)), 'reason');
    });
  });

  describe('criteria marks, self-check, work reports: body validation', () => {
    it('refuses bad marks (400)', async () => {
      const t = await taskIn('to_verify');
      const mark = (body: unknown, uuid = t.uuid) => () => alice.post(`/api/tasks/${uuid}/criteria/marks`, body);
      expectInvalid(await expectRefused(seen, mark({ criteria: [] }), 400, 'VALIDATION_ERROR', 'Invalid input', read(t.uuid)), 'criteria');
      expectInvalid(await expectRefused(seen, mark({ criteria: [{ uuid: 'x', status: 'ok' }] }), 400, 'VALIDATION_ERROR'), 'criteria.0.uuid', 'criteria.0.status');
    });

    it('refuses a self-check of a dev status other than passed or failed (400)', async () => {
      const t = await taskIn('in_progress');
      const [c1] = data(await alice.get(`/api/tasks/${t.uuid}`)).acceptanceCriteriaItems;
      expectInvalid(await expectRefused(seen, () => alice.post(`/api/tasks/${t.uuid}/criteria/self-check`, { criteria: [{ uuid: c1.uuid, devStatus: 'pending' }] }), 400, 'VALIDATION_ERROR', 'Invalid input', read(t.uuid)), 'criteria.0.devStatus');
    });

    it('refuses a bad work report (400)', async () => {
      const t = await taskIn('assigned');
      expectInvalid(await expectRefused(seen, () => alice.post(`/api/tasks/${t.uuid}/work-reports`, { report: 7, status: 'done' }), 400, 'VALIDATION_ERROR', 'Invalid input', read(t.uuid)), 'report', 'status');
    });
  });
});


/** Task tools (docs/tool-conventions.md §5.1, §5.2, §5.4, §5.6 assign, §5.8) through the official SDK client over HTTP: what only MCP has. */
describe('task tools (e2e)', () => {
  let recorded: RealtimeEvent[];
  let companyUuid: string;
  let ownerUser: SeededUser;
  let owner: Actor;
  let projectUuid: string;
  // Company A (its user "Owner" owns every agent): developers dev and dev2, a pm and an admin agent; a foreign
  // company's owner, project and admin agent.
  let dev: WorldAgent;
  let dev2: WorldAgent;
  let pm: WorldAgent;
  let admin: WorldAgent;
  let foreign: { owner: Actor; projectUuid: string; admin: WorldAgent };
  /** The seeders' services (test/utils/world.ts): moves made behind the tools' back. */
  let taskService: TaskService;
  let sessionService: SessionService;
  const count = async (sql: string, params: unknown[] = []): Promise<number> => (await world.ds.query(sql, params))[0].n;

  beforeAll(async () => {
    const c = await world.company();
    companyUuid = c.uuid;
    ownerUser = await world.user(c.uuid, { name: 'Owner' });
    owner = userActor(ownerUser);
    projectUuid = await world.project(owner);
    dev = await world.agent(c.uuid, ownerUser.uuid, { preset: 'developer_agent', name: 'Dev' });
    dev2 = await world.agent(c.uuid, ownerUser.uuid, { preset: 'developer_agent', name: 'Dev2' });
    pm = await world.agent(c.uuid, ownerUser.uuid, { preset: 'pm_agent', name: 'PM' });
    admin = await world.agent(c.uuid, ownerUser.uuid, { preset: 'admin_agent', name: 'Admin' });
    const f = await world.company();
    const mallory = userActor(await world.user(f.uuid, { name: 'Mallory' }));
    foreign = { owner: mallory, projectUuid: await world.project(mallory), admin: await world.agent(f.uuid, mallory.uuid, { preset: 'admin_agent', name: 'Evil' }) };
    taskService = world.tasks.tasks;
    sessionService = world.tasks.sessions;
    recorded = world.recordEvents();
  }, 60_000);

  beforeEach(() => takeEvents());

  const takeEvents = (): RealtimeEvent[] => recorded.splice(0, recorded.length);
  /** An open task (criteria works, tested, and an optional one), of company A's project unless told. */
  const seedTask = async (overrides: Partial<NewTaskInput> = {}, project = projectUuid, creator = owner): Promise<string> => (await world.task(creator, project, overrides)).uuid;
  /** A task of company A's project moved to `status`, held by `assignee` for the held statuses. */
  const seedTaskIn = (status: TaskStatus, assignee: Actor, overrides: Partial<NewTaskInput> = {}): Promise<string> => world.taskIn(status, owner, projectUuid, assignee, overrides);
  const taskEvent = (entityUuid: string, action: RealtimeEvent['action'] = 'updated', project = projectUuid): RealtimeEvent => ({ companyUuid, projectUuid: project, entityType: 'task', entityUuid, action });
  /** A refused call: the error code (and message), the named tasks' rows unchanged and no change event; returns the error. */
  const refused = (agent: WorldAgent, name: string, args: Record<string, unknown>, code: string, message?: string, taskUuids: string[] = []) =>
    expectToolRefused(recorded, agent, name, args, { code, message, unchanged: () => Promise.all(taskUuids.map((u) => world.tasks.snapshot(u))) });

  describe('metadata', () => {
    const HINTS: Record<string, [string, boolean, boolean, boolean]> = {
      svc_get_task: ['Get task', true, false, true],
      svc_list_tasks: ['List tasks', true, false, true],
      svc_get_available_tasks: ['Get available tasks', true, false, true],
      svc_get_unblocked_tasks: ['Get unblocked tasks', true, false, true],
      svc_create_tasks: ['Create tasks', false, false, false],
      svc_update_task: ['Update task', false, false, false],
      svc_claim_task: ['Claim task', false, false, true],
      svc_release_task: ['Release task', false, false, false],
      svc_submit_for_verify: ['Submit task for verification', false, false, false],
      svc_report_criteria_self_check: ['Report criteria self-check', false, false, true],
      svc_report_work: ['Report work', false, false, false],
      svc_pm_assign_task: ['Assign task', false, false, true],
      svc_admin_verify_task: ['Verify task', false, false, false],
      svc_admin_reopen_task: ['Reopen task', false, false, false],
      svc_admin_close_task: ['Close task', false, true, true],
      svc_mark_acceptance_criteria: ['Mark acceptance criteria', false, false, true],
      svc_admin_delete_task: ['Delete task', false, true, true],
    };

    it('publishes every task tool with its annotations and a strict schema', async () => {
      const { tools } = await admin.client.listTools();
      for (const [name, [title, readOnlyHint, destructiveHint, idempotentHint]] of Object.entries(HINTS)) {
        const tool = tools.find((t) => t.name === name);
        expect(tool).toBeDefined();
        expect(tool!.annotations).toEqual({ title, readOnlyHint, destructiveHint, idempotentHint, openWorldHint: false });
        expect(tool!.inputSchema.additionalProperties).toBe(false);
        expect(tool!.description!.length).toBeGreaterThan(20);
      }
      expect(tools.find((t) => t.name === 'svc_claim_task')!.description).toBe(
        'Claims an open task for yourself (open -> assigned). Start it with svc_update_task status in_progress.',
      );
    });

    it('shows the admin tools and assign only to holders of their bit, and refuses hidden ones as unknown', async () => {
      const names = (await dev.client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['svc_get_task', 'svc_create_tasks', 'svc_claim_task', 'svc_report_work']));
      for (const hidden of ['svc_pm_assign_task', 'svc_admin_verify_task', 'svc_admin_reopen_task', 'svc_admin_close_task', 'svc_mark_acceptance_criteria', 'svc_admin_delete_task']) {
        expect(names).not.toContain(hidden);
      }
      expect((await pm.client.listTools()).tools.map((t) => t.name)).toContain('svc_pm_assign_task');
      const task = await seedTask();
      await expect(dev.client.callTool({ name: 'svc_admin_delete_task', arguments: { taskUuid: task } })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Unknown tool: svc_admin_delete_task'),
      });
      await expect(dev.client.callTool({ name: 'svc_pm_assign_task', arguments: { taskUuid: task, agentUuid: dev.uuid } })).rejects.toMatchObject({ code: -32602 });
      expect(await count(`SELECT count(*)::int AS n FROM task WHERE uuid = $1`, [task])).toBe(1);
      expect(takeEvents()).toEqual([]);
    });
  });

  describe('argument validation', () => {
    it('answers a wrong type, an unknown argument and a malformed uuid with every problem listed', async () => {
      const err = await refused(dev, 'svc_claim_task', { taskUuid: 'not-a-uuid', extra: true }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(err.details).toEqual(
        expect.arrayContaining([
          { path: 'taskUuid', message: expect.any(String) },
          { path: 'extra', message: 'should not exist' },
        ]),
      );
      const typed = await refused(dev, 'svc_get_task', { taskUuid: 42 }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(typed.details).toEqual([{ path: 'taskUuid', message: expect.any(String) }]);
      const task = await seedTaskIn('assigned', dev.actor);
      const nested = await refused(
        dev,
        'svc_report_criteria_self_check',
        { taskUuid: task, criteria: [{ uuid: randomUUID(), devStatus: 'maybe' }] },
        'VALIDATION_ERROR',
        'Invalid arguments',
        [task],
      );
      expect(nested.details).toEqual([{ path: 'criteria.0.devStatus', message: expect.any(String) }]);
      const missing = await refused(dev, 'svc_create_tasks', { projectUuid: projectUuid, tasks: [{ title: 'x' }] }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(missing.details).toEqual([{ path: 'tasks.0.acceptanceCriteriaItems', message: expect.any(String) }]);
    });

    it('refuses an empty batch and an over-long summary as invalid arguments, unchanged', async () => {
      await refused(dev, 'svc_create_tasks', { projectUuid: projectUuid, tasks: [] }, 'VALIDATION_ERROR', 'Invalid arguments');
      const uuid = await seedTaskIn('in_progress', dev.actor);
      await refused(dev, 'svc_submit_for_verify', { taskUuid: uuid, summary: 'x'.repeat(10_001) }, 'VALIDATION_ERROR', 'Invalid arguments', [uuid]);
    });
    it('rejects out-of-range paging and too many proposal filters', async () => {
      for (const args of [{ pageSize: 101 }, { page: 0 }, { pageSize: 1.5 }, { proposalUuids: Array.from({ length: 21 }, () => randomUUID()) }, { status: 'bogus' }]) {
        await refused(dev, 'svc_list_tasks', { projectUuid: projectUuid, ...args }, 'VALIDATION_ERROR', 'Invalid arguments');
      }
    });
  });

  describe('reads', () => {

    it('svc_list_tasks orders by priority then newest, filters and pages', async () => {
      const project = await world.project(owner);
      const proposal = await world.tasks.proposal(project, owner, 'approved');
      const low = await seedTask({ title: 'low', priority: 'low' }, project);
      const high1 = await seedTask({ title: 'high1', priority: 'high' }, project);
      const med = await seedTask({ title: 'med', priority: 'medium' }, project);
      const high2 = await seedTask({ title: 'high2', priority: 'high' }, project);
      const { tasks: fromProposal } = await taskService.createTasks(owner, {
        projectUuid: project,
        proposalUuid: proposal,
        tasks: [{ title: 'prop', priority: 'low', acceptanceCriteriaItems: [{ description: 'x' }] }],
      });
      await taskService.claim(dev.actor, { taskUuid: med });
      takeEvents();

      const all = await world.ok(dev, 'svc_list_tasks', { projectUuid: project });
      expect(all.tasks.map((t: { title: string }) => t.title)).toEqual(['high2', 'high1', 'med', 'prop', 'low']);
      expect(all).toMatchObject({ page: 1, pageSize: 20, total: 5 });
      expect(all.truncated).toBeUndefined();
      expect(sortedKeys(all.tasks[0])).toEqual(keysOf(TASK_SUMMARY_KEYS));

      expect((await world.ok(dev, 'svc_list_tasks', { projectUuid: project, status: 'assigned' })).tasks.map((t: { uuid: string }) => t.uuid)).toEqual([med]);
      expect((await world.ok(dev, 'svc_list_tasks', { projectUuid: project, priority: 'high' })).tasks.map((t: { uuid: string }) => t.uuid)).toEqual([high2, high1]);
      const byProposal = await world.ok(dev, 'svc_list_tasks', { projectUuid: project, proposalUuids: [proposal] });
      expect(byProposal.tasks.map((t: { uuid: string }) => t.uuid)).toEqual([fromProposal[0].uuid]);
      expect(byProposal.tasks[0].proposalUuid).toBe(proposal);
      const page2 = await world.ok(dev, 'svc_list_tasks', { projectUuid: project, page: 2, pageSize: 2 });
      expect(page2).toMatchObject({ page: 2, pageSize: 2, total: 5 });
      expect(page2.tasks.map((t: { uuid: string }) => t.uuid)).toEqual([med, fromProposal[0].uuid]);
      expect(low).toBeDefined();

      await refused(dev, 'svc_list_tasks', { projectUuid: randomUUID() }, 'NOT_FOUND', 'Project not found');
      await refused(dev, 'svc_list_tasks', { projectUuid: foreign.projectUuid }, 'NOT_FOUND', 'Project not found');
    });

    it('svc_get_available_tasks lists open tasks with every prerequisite done or closed; svc_get_unblocked_tasks open/assigned ones', async () => {
      const project = await world.project(owner);
      const make = (title: string, extra: Record<string, unknown> = {}): Promise<string> => seedTask({ title, ...extra }, project);
      const doneDep = await make('doneDep');
      const openDep = await make('openDep');
      const free = await make('free');
      const blocked = await make('blocked', { dependsOnTaskUuids: [openDep] });
      const afterDone = await make('afterDone', { dependsOnTaskUuids: [doneDep] });
      const mine = await make('mine');
      const started = await make('started');
      for (const t of [mine, started]) await taskService.claim(dev.actor, { taskUuid: t });
      await taskService.update(dev.actor, { taskUuid: started, status: 'in_progress' });
      await taskService.close(owner, { taskUuid: doneDep });
      takeEvents();

      // `blocked` waits for an open prerequisite: left out, and not counted (docs/tool-conventions.md §5.1).
      const available = await world.ok(dev, 'svc_get_available_tasks', { projectUuid: project });
      expect(new Set(available.tasks.map((t: { uuid: string }) => t.uuid))).toEqual(new Set([openDep, free, afterDone]));
      expect(available.total).toBe(3);
      const unblocked = await world.ok(dev, 'svc_get_unblocked_tasks', { projectUuid: project });
      expect(new Set(unblocked.tasks.map((t: { uuid: string }) => t.uuid))).toEqual(new Set([openDep, free, afterDone, mine]));
      // A prerequisite under verification still blocks; once it is done the task becomes available, in list order.
      await taskService.claim(dev.actor, { taskUuid: openDep });
      await taskService.update(dev.actor, { taskUuid: openDep, status: 'in_progress' });
      await taskService.submitForVerify(dev.actor, { taskUuid: openDep });
      const whileVerifying = await world.ok(dev, 'svc_get_available_tasks', { projectUuid: project });
      expect({ uuids: new Set(whileVerifying.tasks.map((t: { uuid: string }) => t.uuid)), total: whileVerifying.total }).toEqual({ uuids: new Set([free, afterDone]), total: 2 });
      const r = await taskService.get(owner, { taskUuid: openDep });
      await taskService.markCriteria(owner, { taskUuid: openDep, criteria: r.acceptanceCriteriaItems.map((c) => ({ uuid: c.uuid, status: 'passed' as const })) });
      await taskService.verify(owner, { taskUuid: openDep });
      const after = await world.ok(dev, 'svc_get_available_tasks', { projectUuid: project });
      const open = await world.ok(dev, 'svc_list_tasks', { projectUuid: project, status: 'open' });
      expect(after.tasks.map((t: { uuid: string }) => t.uuid)).toEqual(open.tasks.map((t: { uuid: string }) => t.uuid));
      expect(new Set(after.tasks.map((t: { uuid: string }) => t.uuid))).toEqual(new Set([free, blocked, afterDone]));
      const page = await world.ok(dev, 'svc_get_available_tasks', { projectUuid: project, pageSize: 1, page: 2 });
      expect({ uuids: page.tasks.map((t: { uuid: string }) => t.uuid), total: page.total }).toEqual({ uuids: [after.tasks[1].uuid], total: 3 });
      for (const tool of ['svc_get_available_tasks', 'svc_get_unblocked_tasks']) {
        await refused(dev, tool, { projectUuid: randomUUID() }, 'NOT_FOUND', 'Project not found');
        await refused(dev, tool, { projectUuid: foreign.projectUuid }, 'NOT_FOUND', 'Project not found');
      }
    });

    it('cuts a list above 64 KiB from the tail, marks it truncated and keeps the total', async () => {
      const project = await world.project(owner);
      const title = (i: number): string => `${String(i).padStart(3, '0')}${'€'.repeat(197)}`;
      for (let batch = 0; batch < 2; batch++) {
        await taskService.createTasks(owner, {
          projectUuid: project,
          tasks: Array.from({ length: 50 }, (_, i) => ({ title: title(batch * 50 + i), acceptanceCriteriaItems: [{ description: 'x' }] })),
        });
      }
      takeEvents();
      const res = (await dev.client.callTool({ name: 'svc_list_tasks', arguments: { projectUuid: project, pageSize: 100 } })) as { content: Array<{ text: string }> };
      const text = res.content[0].text;
      expect(Buffer.byteLength(text, 'utf8')).toBeLessThanOrEqual(RESULT_CAP_BYTES);
      const out = JSON.parse(text);
      expect(out.truncated).toBe(true);
      expect(out.total).toBe(100);
      expect(out.tasks.length).toBeGreaterThan(0);
      expect(out.tasks.length).toBeLessThan(100);
      // The kept rows are the head of the full ordering, read in uncut pages of 20.
      const full: string[] = [];
      for (let page = 1; page <= 5; page++) {
        const part = await world.ok(dev, 'svc_list_tasks', { projectUuid: project, page, pageSize: 20 });
        expect(part.truncated).toBeUndefined();
        full.push(...part.tasks.map((t: { uuid: string }) => t.uuid));
      }
      expect(out.tasks.map((t: { uuid: string }) => t.uuid)).toEqual(full.slice(0, out.tasks.length));
    });
  });

  describe('svc_update_task', () => {
    it('takes a sessionUuid of the caller\'s own active session and records it', async () => {
      const uuid = await seedTaskIn('assigned', dev.actor);
      const mine = await sessionService.create(dev.actor, { name: 'Worker' });
      const theirs = await sessionService.create(dev2.actor, { name: 'Theirs' });
      const closed = await sessionService.create(dev.actor, { name: 'Closed' });
      await sessionService.close(dev.actor, { sessionUuid: closed.uuid });
      await refused(dev, 'svc_update_task', { taskUuid: uuid, title: 'x', sessionUuid: randomUUID() }, 'NOT_FOUND', 'Session not found', [uuid]);
      await refused(dev, 'svc_update_task', { taskUuid: uuid, title: 'x', sessionUuid: theirs.uuid }, 'FORBIDDEN', 'Session belongs to another agent', [uuid]);
      await refused(dev, 'svc_update_task', { taskUuid: uuid, title: 'x', sessionUuid: closed.uuid }, 'INVALID_STATE', 'Session is closed; task update requires active', [uuid]);
      await world.ok(dev, 'svc_update_task', { taskUuid: uuid, status: 'in_progress', sessionUuid: mine.uuid });
      const last = (await world.tasks.activities(uuid)).at(-1)!;
      expect({ session: last.session_uuid, name: last.session_name }).toEqual({ session: mine.uuid, name: 'Worker' });
      expect(takeEvents()).toEqual([taskEvent(uuid)]);
    });
  });

  describe('developer tools', () => {
    it("svc_claim_task of a task the caller's owner holds is a silent success (identity rule)", async () => {
      // The owner's task counts as the agent's own.
      const owners = await seedTaskIn('in_progress', owner);
      const before = await world.tasks.snapshot(owners);
      expect((await world.ok(dev, 'svc_claim_task', { taskUuid: owners })).assignee.uuid).toBe(owner.uuid);
      expect(await world.tasks.snapshot(owners)).toEqual(before);
      expect(takeEvents()).toEqual([]);
    });

    it('20 parallel claims by different agents: exactly one wins', async () => {
      const uuid = await seedTask();
      const agents: WorldAgent[] = [];
      for (let i = 0; i < 20; i++) agents.push(await world.agent(companyUuid, ownerUser.uuid, { preset: 'developer_agent', name: `Racer ${i}` }));
      takeEvents();
      const results = await Promise.all(agents.map((a) => world.call(a, 'svc_claim_task', { taskUuid: uuid })));
      const winners = results.filter((r) => !r.isError);
      expect(winners).toHaveLength(1);
      for (const loser of results.filter((r) => r.isError)) {
        expect(loser.data.error).toEqual({ code: 'INVALID_STATE', message: 'Task is assigned to someone else; claim requires open', hints: [expect.stringContaining('svc_get_available_tasks')] });
      }
      const winner = agents[results.indexOf(winners[0])];
      const [row] = await world.ds.query(`SELECT status, assignee_uuid FROM task WHERE uuid = $1`, [uuid]);
      expect(row).toEqual({ status: 'assigned', assignee_uuid: winner.uuid });
      expect(takeEvents()).toEqual([taskEvent(uuid)]);
    });
  });
});

/** svc_get_my_assignments (docs/tool-conventions.md §2, §3) through the official SDK client, with the scoping headers. */
describe('svc_get_my_assignments (e2e)', () => {
  let events: RealtimeEvent[];
  let companyUuid: string;
  let ownerUser: SeededUser;
  let owner: Actor;
  let dev: WorldAgent;
  let ideas: IdeaService;
  let taskService: TaskService;
  let me: WorldAgent;
  let myOwner: Actor;
  // Group g1 holds p1 and p2, p3 is ungrouped, g2 is empty; fg/fp belong to the foreign company.
  let g1: string;
  let g2: string;
  let p1: string;
  let p2: string;
  let p3: string;
  let fg: string;
  let fp: string;
  const mine: Record<string, string> = {};

  const takeEvents = (): RealtimeEvent[] => events.splice(0, events.length);
  const scoped = (headers: Record<string, string>): Promise<Client> => world.mcp(me.key, headers);
  const assignments = async (client: Client | WorldAgent): Promise<any> => {
    const res = await world.call(client, 'svc_get_my_assignments');
    expect(res.isError).toBe(false);
    return res.data;
  };
  const projectsOf = (r: { ideaTracker: object; taskTracker: object }) => ({ ideas: Object.keys(r.ideaTracker), tasks: Object.keys(r.taskTracker) });

  beforeAll(async () => {
    const c = await world.company();
    companyUuid = c.uuid;
    ownerUser = await world.user(c.uuid, { name: 'Owner' });
    owner = userActor(ownerUser);
    dev = await world.agent(c.uuid, ownerUser.uuid, { preset: 'developer_agent', name: 'Dev' });
    const f = await world.company();
    const foreignOwner = userActor(await world.user(f.uuid, { name: 'Mallory' }));
    events = world.recordEvents();
    ideas = world.seeding(IdeaService);
    taskService = world.seeding(TaskService);
    const u = await world.user(companyUuid, { name: 'My owner' });
    myOwner = userActor(u);
    me = await world.agent(companyUuid, u.uuid, { preset: 'pm_agent', name: 'Me' });
    g1 = (await world.group(owner, { name: 'G1' })).uuid;
    g2 = (await world.group(owner, { name: 'G2' })).uuid;
    p1 = await world.project(owner, { groupUuid: g1 });
    p2 = await world.project(owner, { groupUuid: g1 });
    p3 = await world.project(owner);
    fg = (await world.group(foreignOwner, { name: 'FG' })).uuid;
    fp = await world.project(foreignOwner, { groupUuid: fg });

    // Ideas: mine in p1 and p3 (one through my owner), someone else's in p2.
    const idea = async (project: string, assignee: Actor, title: string): Promise<string> => {
      const created = await ideas.create(owner, { projectUuid: project, title });
      await ideas.claim(assignee, { ideaUuid: created.uuid });
      return created.uuid;
    };
    mine.ideaP1 = await idea(p1, me.actor, 'Idea p1');
    mine.ideaP3 = await idea(p3, myOwner, 'Idea p3 (owner)');
    await idea(p2, dev.actor, 'Not mine');

    // Tasks: mine in every project of company A, plus finished and other people's ones that must not show.
    const task = async (project: string, assignee: Actor, title: string, priority: 'low' | 'medium' | 'high' = 'medium'): Promise<string> => {
      const uuid = (await world.task(owner, project, { title, priority })).uuid;
      await taskService.claim(assignee, { taskUuid: uuid });
      return uuid;
    };
    mine.p1low = await task(p1, me.actor, 'p1 low', 'low');
    mine.p1high = await task(p1, me.actor, 'p1 high', 'high');
    mine.p1high2 = await task(p1, myOwner, 'p1 high later (owner)', 'high');
    mine.p2 = await task(p2, me.actor, 'p2');
    mine.p3 = await task(p3, me.actor, 'p3');
    const done = await task(p3, me.actor, 'p3 done');
    await taskService.close(owner, { taskUuid: done });
    await task(p2, dev.actor, 'dev task');
    takeEvents();
  }, 60_000);

  it('returns both trackers across every project without headers, shaped and ordered per docs/tool-conventions.md §3', async () => {
    const r = await assignments(me);
    expect(sortedKeys(r)).toEqual(['ideaTracker', 'taskTracker']);
    // Keys follow each project's first row: ideas by latest update, tasks by priority then latest assignment.
    expect(Object.keys(r.ideaTracker)).toEqual([p3, p1]);
    expect(Object.keys(r.taskTracker)).toEqual([p1, p3, p2]);
    expect(r.taskTracker[p1].name).toEqual(expect.stringMatching(/^Project /));
    expect(r.taskTracker[p1].tasks.map((t: { uuid: string }) => t.uuid)).toEqual([mine.p1high2, mine.p1high, mine.p1low]);
    expect(r.taskTracker[p3].tasks.map((t: { uuid: string }) => t.uuid)).toEqual([mine.p3]);
    const row = r.taskTracker[p2].tasks[0];
    expect(row).toEqual({ uuid: mine.p2, title: 'p2', status: 'assigned', priority: 'medium', assignedAt: expect.any(String), acceptance: { passed: 0, total: 3 } });
    expect(r.ideaTracker[p1].ideas).toEqual([
      {
        uuid: mine.ideaP1,
        title: 'Idea p1',
        status: 'elaborating',
        derivedStatus: expect.any(String),
        elaborationStatus: null,
        proposalCount: 0,
        taskCount: 0,
        updatedAt: expect.any(String),
      },
    ]);
    expect(r.ideaTracker[p3].ideas.map((i: { uuid: string }) => i.uuid)).toEqual([mine.ideaP3]);
    expect(r.truncated).toBeUndefined();
    expect(takeEvents()).toEqual([]);
  });

  it('scopes to the projects of a group, and the group header wins over the project header', async () => {
    expect(projectsOf(await assignments(await scoped({ 'X-Service-Project-Group': g1 })))).toEqual({ ideas: [p1], tasks: [p1, p2] });
    expect(projectsOf(await assignments(await scoped({ 'X-Service-Project-Group': ` ${g1.toUpperCase()} `, 'X-Service-Project': p3 })))).toEqual({ ideas: [p1], tasks: [p1, p2] });
  });

  it('gives an empty scope for an empty, unknown, foreign or malformed group, never all projects; unknown ones warn', async () => {
    // A known group without projects is a plain empty scope, without warnings.
    expect(await assignments(await scoped({ 'X-Service-Project-Group': g2, 'X-Service-Project': p3 }))).toEqual({ ideaTracker: {}, taskTracker: {} });
    for (const group of [randomUUID(), fg, 'not-a-group']) {
      expect(await assignments(await scoped({ 'X-Service-Project-Group': ` ${group} `, 'X-Service-Project': p3 }))).toEqual({
        ideaTracker: {},
        taskTracker: {},
        warnings: [`X-Service-Project-Group: ${group} matches no project group of your company; the scope is empty`],
      });
    }
  });

  it('scopes to a project list, ignoring blanks, junk, foreign and unknown projects, with a warning for each ignored value', async () => {
    const exact = await assignments(await scoped({ 'X-Service-Project': p3 }));
    expect(projectsOf(exact)).toEqual({ ideas: [p3], tasks: [p3] });
    expect(exact.warnings).toBeUndefined();
    const unknown = randomUUID();
    const messy = ` ${p3} ,, junk , ${fp}, ${unknown} ,${p2.toUpperCase()}, junk`;
    const r = await assignments(await scoped({ 'X-Service-Project': messy }));
    expect(projectsOf(r)).toEqual({ ideas: [p3], tasks: [p3, p2] });
    expect(r.warnings).toEqual([
      'X-Service-Project: junk matches no project of your company; ignored',
      `X-Service-Project: ${fp} matches no project of your company; ignored`,
      `X-Service-Project: ${unknown} matches no project of your company; ignored`,
    ]);
    // A blank group header does not count: the project list decides.
    expect(projectsOf(await assignments(await scoped({ 'X-Service-Project-Group': '  ', 'X-Service-Project': p2 })))).toEqual({ ideas: [], tasks: [p2] });
    for (const [list, ignored] of [
      ['junk, nope', ['junk', 'nope']],
      [`${fp}`, [fp]],
      [`${unknown},`, [unknown]],
    ] as const) {
      expect(await assignments(await scoped({ 'X-Service-Project': list }))).toEqual({
        ideaTracker: {},
        taskTracker: {},
        warnings: ignored.map((v) => `X-Service-Project: ${v} matches no project of your company; ignored`),
      });
    }
  });

  it('warns about a project header made only of separators (empty scope)', async () => {
    expect(await assignments(await scoped({ 'X-Service-Project': ' , ,' }))).toEqual({
      ideaTracker: {},
      taskTracker: {},
      warnings: ['X-Service-Project: , , names no project; the scope is empty'],
    });
  });

  it('caps the warnings: long values are cut and at most 20 are named', async () => {
    const long = 'x'.repeat(300);
    const values = [long, ...Array.from({ length: 24 }, (_, i) => `bad${i}`)];
    const r = await assignments(await scoped({ 'X-Service-Project': [p1, ...values].join(',') }));
    expect(projectsOf(r)).toEqual({ ideas: [p1], tasks: [p1] });
    expect(r.warnings).toHaveLength(21);
    expect(r.warnings[0]).toBe(`X-Service-Project: ${'x'.repeat(100)}… matches no project of your company; ignored`);
    expect(r.warnings[20]).toBe('X-Service-Project: 5 more value(s) match no project of your company; ignored');
  });

  it('does not warn without headers, for a known group, or from svc_checkin', async () => {
    expect((await assignments(me)).warnings).toBeUndefined();
    expect((await assignments(await scoped({ 'X-Service-Project-Group': g1, 'X-Service-Project': 'junk' }))).warnings).toBeUndefined();
    const checkin = await world.call(await scoped({ 'X-Service-Project': 'junk' }), 'svc_checkin');
    expect(checkin.data.warnings).toBeUndefined();
  });

  it('treats blank headers as no scope', async () => {
    const all = projectsOf(await assignments(me));
    expect(all).toEqual({ ideas: [p3, p1], tasks: [p1, p3, p2] });
    expect(projectsOf(await assignments(await scoped({ 'X-Service-Project-Group': ' ', 'X-Service-Project': '  ' })))).toEqual(all);
  });

  it('refuses arguments (it takes none)', async () => {
    const err = await expectToolRefused(events, me, 'svc_get_my_assignments', { projectUuid: p1 }, { code: 'VALIDATION_ERROR', message: 'Invalid arguments' });
    expect(err.details).toEqual([{ path: 'projectUuid', message: 'should not exist' }]);
  });

  it('cuts the task tracker from its tail above 64 KiB, keeping the ideas', async () => {
    const busy = await world.agent(companyUuid, ownerUser.uuid, { preset: 'pm_agent', name: 'Busy' });
    const created = await ideas.create(owner, { projectUuid: p1, title: 'Busy idea' });
    await ideas.claim(busy.actor, { ideaUuid: created.uuid });
    const title = (i: number): string => `${String(i).padStart(3, '0')}${'€'.repeat(197)}`;
    for (const [project, offset] of [
      [p1, 0],
      [p3, 50],
    ] as const) {
      const { tasks } = await taskService.createTasks(owner, {
        projectUuid: project,
        tasks: Array.from({ length: 50 }, (_, i) => ({ title: title(offset + i), acceptanceCriteriaItems: [{ description: 'x' }] })),
      });
      for (const t of tasks) await taskService.claim(busy.actor, { taskUuid: t.uuid });
    }
    takeEvents();
    const res = (await busy.client.callTool({ name: 'svc_get_my_assignments', arguments: {} })) as { content: Array<{ text: string }> };
    const text = res.content[0].text;
    expect(Buffer.byteLength(text, 'utf8')).toBeLessThanOrEqual(RESULT_CAP_BYTES);
    const out = JSON.parse(text);
    expect(out.truncated).toBe(true);
    expect(out.ideaTracker[p1].ideas.map((i: { uuid: string }) => i.uuid)).toEqual([created.uuid]);
    const full = await world.get(TaskTrackerService).tracker(busy.actor, null);
    const flat = (tracker: Record<string, { tasks: Array<{ uuid: string }> }>): string[] => Object.values(tracker).flatMap((p) => p.tasks.map((t) => t.uuid));
    const kept = flat(out.taskTracker);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(100);
    expect(kept).toEqual(flat(full).slice(0, kept.length));
  });
});
