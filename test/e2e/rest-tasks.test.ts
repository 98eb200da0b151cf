// Scenarios REST and MCP share (create, read, update, transitions, criteria, work reports, delete, tenancy) are in tasks-shared.test.ts.
import { randomUUID } from 'node:crypto';
import type { ProposalStatus } from '../../src/modules/proposals/index.js';
import type { SeededUser } from '../factories/identity.factory.js';
import type { HttpClient, HttpResult } from '../utils/http.js';
import { ChangeEvents, ev } from '../utils/change-events.js';
import { expectInvalid, expectRefused, type Observed, withEvents } from '../utils/rest-expect.js';
import { userActor, World, type WorldAgent } from '../utils/world.js';

/** Task routes of docs/platform.md §9 over a running app, with change events read from a real EventSource. */
describe('REST tasks (e2e)', () => {
  let world: World;
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
    world = await World.start();
    const [companyA, companyB] = [(await world.company()).uuid, (await world.company()).uuid];
    [aliceUser, carolUser, bobUser] = [await world.user(companyA, { name: 'Alice' }), await world.user(companyA, { name: 'Carol' }), await world.user(companyB, { name: 'Bob' })];
    [alice, carol, bob] = [await world.login(aliceUser), await world.login(carolUser), await world.login(bobUser)];
    aliceAgent = await world.agent(companyA, aliceUser.uuid, { name: 'Alice bot' });
    [projectA, projectA2, projectB] = [await world.project(userActor(aliceUser)), await world.project(userActor(aliceUser)), await world.project(userActor(bobUser))];
    seen = { changes: await ChangeEvents.open(world, alice.cookie!, companyA), companyUuid: companyA, ds: world.ds };
  });
  afterAll(async () => {
    seen.changes.close();
    await world.close();
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
