import { randomUUID } from 'node:crypto';
import type { ProposalStatus } from '../../src/modules/proposals/index.js';
import type { SeededUser } from '../factories/identity.factory.js';
import type { HttpClient, HttpResult } from '../utils/http.js';
import { ChangeEvents, ev } from '../utils/change-events.js';
import { expectError, expectInvalid, expectRefused, type Observed, withEvents } from '../utils/rest-expect.js';
import { userActor, World, type WorldAgent } from '../utils/world.js';

/** Task routes of docs/platform.md §9 over a running app, with change events read from a real EventSource. */
describe('REST tasks (e2e)', () => {
  let world: World;
  let n = 0;
  const CRITERIA = [{ description: 'works' }, { description: 'tested' }, { description: 'nice to have', required: false }];
  /**
   * Company A: alice and carol, each owning an agent, and projects A and A2; company B: bob and project B. Clients
   * are logged in.
   */
  let aliceUser: SeededUser;
  let carolUser: SeededUser;
  let bobUser: SeededUser;
  let alice: HttpClient;
  let carol: HttpClient;
  let bob: HttpClient;
  let aliceAgent: WorldAgent;
  let carolAgent: WorldAgent;
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
    carolAgent = await world.agent(companyA, carolUser.uuid, { name: 'Carol bot' });
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
    it('creates a batch in input order (201) with batch and existing prerequisites; task created per task, updated per prerequisite', async () => {
      const x = await newTask();
      const { res, events } = await withEvents(seen, () =>
        alice.post(`/api/projects/${projectA}/tasks`, {
          tasks: [
            { title: ' First ', priority: 'high', storyPoints: 3, acceptanceCriteriaItems: [{ description: 'a' }], draftUuid: 'one' },
            { title: 'Second', acceptanceCriteriaItems: [{ description: 'b' }], dependsOnDraftUuids: ['one'], dependsOnTaskUuids: [x.uuid] },
          ],
        }),
      );
      const [first, second] = data(res, 201).tasks;
      expect(res.body.data).toEqual({ tasks: [expect.objectContaining({ title: 'First', priority: 'high', storyPoints: 3, status: 'open' }), expect.objectContaining({ title: 'Second', priority: 'medium' })] });
      expect(Object.keys(first).sort()).toEqual(['acceptance', 'assignee', 'createdAt', 'priority', 'projectUuid', 'proposalUuid', 'status', 'storyPoints', 'title', 'updatedAt', 'uuid'].sort());
      expect(events).toEqual([ev('task', 'created', first.uuid, projectA), ev('task', 'created', second.uuid, projectA), updated(x)]);
      const record = data(await alice.get(`/api/tasks/${second.uuid}`));
      expect(record.dependsOn.map((d: { uuid: string }) => d.uuid).sort()).toEqual([first.uuid, x.uuid].sort());
      expect(record.createdBy).toEqual({ type: 'user', uuid: aliceUser.uuid, name: 'Alice' });
    });

    it('links the tasks to an approved proposal of the project', async () => {
      const proposalUuid = await proposalRow(projectA, 'approved');
      const { res, events } = await withEvents(seen, () => alice.post(`/api/projects/${projectA}/tasks`, { proposalUuid, tasks: [{ title: 'Linked', acceptanceCriteriaItems: CRITERIA }] }));
      const [t] = data(res, 201).tasks;
      expect(t.proposalUuid).toBe(proposalUuid);
      expect(events).toEqual([ev('task', 'created', t.uuid, projectA)]);
    });

    it('validates the body: 400 VALIDATION_ERROR with details, nothing created', async () => {
      const post = (body: unknown) => () => alice.post(`/api/projects/${projectA}/tasks`, body);
      expectInvalid(await expectRefused(seen, post({ tasks: [] }), 400, 'VALIDATION_ERROR', 'Invalid input'), 'tasks');
      expectInvalid(await expectRefused(seen, post({ tasks: [{ title: 5, acceptanceCriteriaItems: [] }] }), 400, 'VALIDATION_ERROR'), 'tasks.0.title', 'tasks.0.acceptanceCriteriaItems');
      expectInvalid(await expectRefused(seen, post({ tasks: [{ title: 'T', acceptanceCriteriaItems: CRITERIA, storyPoints: 5000 }], extra: 1 }), 400, 'VALIDATION_ERROR'), 'tasks.0.storyPoints', 'extra');
      expectInvalid(await expectRefused(seen, post({ tasks: [{ title: 'T', acceptanceCriteriaItems: [{ description: 'x', extra: true }] }] }), 400, 'VALIDATION_ERROR'), 'tasks.0.acceptanceCriteriaItems.0.extra');
      // Domain rules come from the service, with its exact messages.
      await expectRefused(seen, post({ tasks: [{ title: 'Blank', acceptanceCriteriaItems: [{ description: '  ' }] }] }), 400, 'VALIDATION_ERROR', 'Task "Blank": At least one acceptance criterion with a non-empty description is required');
      await expectRefused(seen, post({ tasks: [{ title: 'T', acceptanceCriteriaItems: CRITERIA, dependsOnDraftUuids: ['ghost'] }] }), 400, 'VALIDATION_ERROR', 'Task "T": Unknown draftUuid "ghost"');
    });

    it('refuses a proposal that is not approved (409 INVALID_STATE), of another project or unknown prerequisites (404)', async () => {
      const post = (body: Record<string, unknown>) => () => alice.post(`/api/projects/${projectA}/tasks`, { tasks: [{ title: 'T', acceptanceCriteriaItems: CRITERIA }], ...body });
      await expectRefused(seen, post({ proposalUuid: await proposalRow(projectA, 'draft') }), 409, 'INVALID_STATE', 'Proposal is draft; create tasks requires approved');
      await expectRefused(seen, post({ proposalUuid: await proposalRow(projectA2, 'approved') }), 404, 'NOT_FOUND', 'Proposal not found');
      await expectRefused(seen, post({ tasks: [{ title: 'T', acceptanceCriteriaItems: CRITERIA, dependsOnTaskUuids: [randomUUID()] }] }), 404, 'NOT_FOUND', 'Dependency task not found');
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

  describe('GET /api/tasks/:uuid', () => {
    it('returns the TaskRecord', async () => {
      const t = await newTask({ description: 'Body' });
      const record = data(await alice.get(`/api/tasks/${t.uuid}`));
      expect(record).toMatchObject({ uuid: t.uuid, projectUuid: projectA, description: 'Body', status: 'open', assignee: null, acceptance: { passed: 0, total: 3 }, commentCount: 0 });
      for (const key of ['acceptanceCriteriaItems', 'acceptanceStatus', 'acceptanceSummary', 'dependsOn', 'dependedBy', 'activeSessions', 'references', 'createdBy']) expect(record).toHaveProperty(key);
      expect(record.acceptanceCriteriaItems.map((c: { description: string; required: boolean }) => [c.description, c.required])).toEqual([
        ['works', true],
        ['tested', true],
        ['nice to have', false],
      ]);
      // A colleague reads it too; the company is what scopes.
      expect(data(await carol.get(`/api/tasks/${t.uuid}`)).uuid).toBe(t.uuid);
    });
  });

  describe('PATCH /api/tasks/:uuid', () => {
    it('edits fields (task updated); an edit that changes nothing emits nothing', async () => {
      const t = await newTask();
      const { res, events } = await withEvents(seen, () => carol.patch(`/api/tasks/${t.uuid}`, { title: 'Renamed', priority: 'low', storyPoints: null, acceptanceCriteriaItems: [{ description: 'only' }] }));
      expect(data(res)).toMatchObject({ title: 'Renamed', priority: 'low', storyPoints: null, acceptance: { passed: 0, total: 1 } });
      expect(events).toEqual([updated(t)]);
      const again = await withEvents(seen, () => alice.patch(`/api/tasks/${t.uuid}`, { title: 'Renamed' }));
      expect(data(again.res).title).toBe('Renamed');
      expect(again.events).toEqual([]);
    });

    it('adds and removes dependencies: task updated for both ends', async () => {
      const t = await newTask();
      const x = await newTask();
      const added = await withEvents(seen, () => alice.patch(`/api/tasks/${t.uuid}`, { addDependsOn: [x.uuid] }));
      expect(data(added.res).dependsOn).toEqual([{ uuid: x.uuid, title: x.title, status: 'open' }]);
      expect(added.events.sort()).toEqual([updated(t), updated(x)].sort());
      const removed = await withEvents(seen, () => alice.patch(`/api/tasks/${t.uuid}`, { removeDependsOn: [x.uuid] }));
      expect(data(removed.res).dependsOn).toEqual([]);
      expect(removed.events.sort()).toEqual([updated(t), updated(x)].sort());
      await expectRefused(seen, () => alice.patch(`/api/tasks/${t.uuid}`, { addDependsOn: [t.uuid] }), 400, 'VALIDATION_ERROR', 'A task cannot depend on itself', read(t.uuid));
    });

    it('moves the status for the assignee, including tasks held by an agent the user owns', async () => {
      const t = await taskIn('assigned');
      const { res, events } = await withEvents(seen, () => alice.patch(`/api/tasks/${t.uuid}`, { status: 'in_progress' }));
      expect(data(res).status).toBe('in_progress');
      expect(events).toEqual([updated(t)]);
      const viaAgent = await newTask();
      data(await alice.post(`/api/tasks/${viaAgent.uuid}/assign`, { assigneeType: 'agent', assigneeUuid: aliceAgent.uuid }));
      expect(data(await alice.patch(`/api/tasks/${viaAgent.uuid}`, { status: 'in_progress' })).status).toBe('in_progress');
      await expectRefused(seen, () => carol.patch(`/api/tasks/${viaAgent.uuid}`, { status: 'to_verify' }), 403, 'FORBIDDEN', "Only the assignee can change this task's status", read(viaAgent.uuid));
    });

    it("refuses a status move by someone else (403), out of order (409 INVALID_STATE) or with open prerequisites (409 BLOCKED)", async () => {
      const t = await taskIn('assigned');
      await expectRefused(seen, () => carol.patch(`/api/tasks/${t.uuid}`, { status: 'in_progress' }), 403, 'FORBIDDEN', "Only the assignee can change this task's status", read(t.uuid));
      const early = await expectRefused(seen, () => alice.patch(`/api/tasks/${t.uuid}`, { status: 'to_verify' }), 409, 'INVALID_STATE', 'Task is assigned; submit requires in_progress', read(t.uuid));
      expect(early.body).toEqual({
        success: false,
        error: { code: 'INVALID_STATE', message: 'Task is assigned; submit requires in_progress', hints: ['Start it first: svc_update_task with status in_progress (the assignee only)'] },
      });
      const x = await newTask();
      const blocked = await taskIn('assigned', alice, { dependsOnTaskUuids: [x.uuid] });
      const res = await expectRefused(seen, () => alice.patch(`/api/tasks/${blocked.uuid}`, { status: 'in_progress', title: 'Not applied' }), 409, 'BLOCKED', 'Cannot move to in_progress: 1 prerequisite(s) not done or closed', read(blocked.uuid));
      expect(res.body.error.blockers).toEqual([expect.objectContaining({ uuid: x.uuid, title: x.title, status: 'open' })]);
      // The same hints as the tool (docs/platform.md §5: same extra fields).
      expect(res.body.error.hints).toEqual([expect.stringContaining(`(${x.uuid}) is open`), expect.stringContaining('svc_get_task')]);
    });

    it('validates the body: 400 with details; an empty patch is "Nothing to update"', async () => {
      const t = await newTask();
      const patch = (body: unknown) => () => alice.patch(`/api/tasks/${t.uuid}`, body);
      expectInvalid(await expectRefused(seen, patch({ storyPoints: 'x', status: 'done' }), 400, 'VALIDATION_ERROR', 'Invalid input', read(t.uuid)), 'storyPoints', 'status');
      expectInvalid(await expectRefused(seen, patch({ addDependsOn: ['nope'], sessionUuid: randomUUID() }), 400, 'VALIDATION_ERROR'), 'addDependsOn', 'sessionUuid');
      expectInvalid(await expectRefused(seen, patch({ acceptanceCriteriaItems: [] }), 400, 'VALIDATION_ERROR'), 'acceptanceCriteriaItems');
      await expectRefused(seen, patch({}), 400, 'VALIDATION_ERROR', 'Nothing to update', read(t.uuid));
      await expectRefused(seen, patch({ title: '   ' }), 400, 'VALIDATION_ERROR', 'Title must be 1-200 characters', read(t.uuid));
    });
  });

  describe('DELETE /api/tasks/:uuid', () => {
    it('deletes the task: {uuid, deleted: true}, task deleted and task updated per neighbour', async () => {
      const x = await newTask();
      const t = await newTask({ dependsOnTaskUuids: [x.uuid] });
      const { res, events } = await withEvents(seen, () => alice.delete(`/api/tasks/${t.uuid}`));
      expect(data(res)).toEqual({ uuid: t.uuid, deleted: true });
      expect(events).toEqual([ev('task', 'deleted', t.uuid, projectA), updated(x)]);
      expectError(await alice.get(`/api/tasks/${t.uuid}`), 404, 'NOT_FOUND', 'Task not found');
      expect(data(await alice.get(`/api/tasks/${x.uuid}`)).dependedBy).toEqual([]);
    });
  });

  describe('claim, release, assign', () => {
    it('claims an open task (200, hints); claiming it again changes nothing; a colleague is refused', async () => {
      const x = await newTask();
      const t = await newTask({ dependsOnTaskUuids: [x.uuid] });
      const { res, events } = await withEvents(seen, () => alice.post(`/api/tasks/${t.uuid}/claim`));
      expect(data(res)).toMatchObject({ status: 'assigned', assignee: { type: 'user', uuid: aliceUser.uuid, name: 'Alice' }, hints: [`BLOCKED: waiting for ${x.title}`] });
      expect(events).toEqual([updated(t)]);
      const again = await withEvents(seen, () => alice.post(`/api/tasks/${t.uuid}/claim`));
      expect(data(again.res).status).toBe('assigned');
      expect(again.events).toEqual([]);
      await expectRefused(seen, () => carol.post(`/api/tasks/${t.uuid}/claim`), 409, 'INVALID_STATE', 'Task is assigned to someone else; claim requires open', read(t.uuid));
    });

    it('releases for the assignee only (assigned -> open)', async () => {
      const t = await taskIn('assigned');
      await expectRefused(seen, () => carol.post(`/api/tasks/${t.uuid}/release`), 403, 'FORBIDDEN', 'Only the assignee can release this task', read(t.uuid));
      const { res, events } = await withEvents(seen, () => alice.post(`/api/tasks/${t.uuid}/release`));
      expect(data(res)).toMatchObject({ status: 'open', assignee: null });
      expect(events).toEqual([updated(t)]);
      const busy = await taskIn('in_progress');
      await expectRefused(seen, () => alice.post(`/api/tasks/${busy.uuid}/release`), 409, 'INVALID_STATE', 'Task is in_progress; release requires assigned', read(busy.uuid));
    });

    it('assigns to a user or an agent (200); the same assignee again changes nothing', async () => {
      const t = await newTask();
      const toCarol = await withEvents(seen, () => alice.post(`/api/tasks/${t.uuid}/assign`, { assigneeType: 'user', assigneeUuid: carolUser.uuid }));
      expect(data(toCarol.res)).toMatchObject({ status: 'assigned', assignee: { type: 'user', uuid: carolUser.uuid, assignedBy: { type: 'user', uuid: aliceUser.uuid, name: 'Alice' } } });
      expect(toCarol.events).toEqual([updated(t)]);
      const same = await withEvents(seen, () => alice.post(`/api/tasks/${t.uuid}/assign`, { assigneeType: 'user', assigneeUuid: carolUser.uuid }));
      expect(data(same.res).assignee.uuid).toBe(carolUser.uuid);
      expect(same.events).toEqual([]);
      const toAgent = await withEvents(seen, () => alice.post(`/api/tasks/${t.uuid}/assign`, { assigneeType: 'agent', assigneeUuid: carolAgent.uuid }));
      expect(data(toAgent.res).assignee).toMatchObject({ type: 'agent', uuid: carolAgent.uuid, name: 'Carol bot' });
      expect(toAgent.events).toEqual([updated(t)]);
    });

    it('refuses bad bodies (400), unknown assignees (404) and tasks already in progress (409)', async () => {
      const t = await newTask();
      const assign = (body: unknown, uuid = t.uuid) => () => alice.post(`/api/tasks/${uuid}/assign`, body);
      expectInvalid(await expectRefused(seen, assign({ assigneeType: 'robot', assigneeUuid: 'x' }), 400, 'VALIDATION_ERROR', 'Invalid input', read(t.uuid)), 'assigneeType', 'assigneeUuid');
      await expectRefused(seen, assign({ assigneeType: 'user', assigneeUuid: bobUser.uuid }), 404, 'NOT_FOUND', 'User not found', read(t.uuid));
      await expectRefused(seen, assign({ assigneeType: 'agent', assigneeUuid: randomUUID() }), 404, 'NOT_FOUND', 'Agent not found', read(t.uuid));
      const busy = await taskIn('in_progress');
      await expectRefused(seen, assign({ assigneeType: 'user', assigneeUuid: carolUser.uuid }, busy.uuid), 409, 'INVALID_STATE', 'Task is in_progress; assign requires open or assigned', read(busy.uuid));
    });
  });

  describe('submit, verify, reopen, close', () => {
    it('submits for the assignee (in_progress -> to_verify)', async () => {
      const t = await taskIn('in_progress');
      await expectRefused(seen, () => carol.post(`/api/tasks/${t.uuid}/submit`, {}), 403, 'FORBIDDEN', 'Only the assignee can submit this task', read(t.uuid));
      expectInvalid(await expectRefused(seen, () => alice.post(`/api/tasks/${t.uuid}/submit`, { summary: 42 }), 400, 'VALIDATION_ERROR', 'Invalid input', read(t.uuid)), 'summary');
      const { res, events } = await withEvents(seen, () => alice.post(`/api/tasks/${t.uuid}/submit`, { summary: 'Done, see PR' }));
      expect(data(res).status).toBe('to_verify');
      expect(events).toEqual([updated(t)]);
      await expectRefused(seen, () => alice.post(`/api/tasks/${t.uuid}/submit`, {}), 409, 'INVALID_STATE', 'Task is to_verify; submit requires in_progress', read(t.uuid));
    });

    it('verifies only when every required criterion passed (409 CRITERIA_NOT_PASSED otherwise)', async () => {
      const t = await taskIn('to_verify');
      const refused = await expectRefused(seen, () => alice.post(`/api/tasks/${t.uuid}/verify`), 409, 'CRITERIA_NOT_PASSED', 'Not all required acceptance criteria are passed (required 2, passed 0, failed 0, pending 2)', read(t.uuid));
      expect(refused.body.error.acceptanceSummary).toMatchObject({ required: 2, requiredPassed: 0, requiredPending: 2 });
      await passAll(t.uuid);
      const { res, events } = await withEvents(seen, () => alice.post(`/api/tasks/${t.uuid}/verify`));
      expect(data(res)).toMatchObject({ status: 'done', acceptanceStatus: 'passed' });
      expect(events).toEqual([updated(t)]);
      const early = await taskIn('in_progress');
      await expectRefused(seen, () => alice.post(`/api/tasks/${early.uuid}/verify`), 409, 'INVALID_STATE', 'Task is in_progress; verify requires to_verify', read(early.uuid));
    });

    it('reopens a task under verification: 409 BLOCKED on open prerequisites unless force', async () => {
      const t = await taskIn('to_verify');
      const x = await newTask();
      data(await alice.patch(`/api/tasks/${t.uuid}`, { addDependsOn: [x.uuid] }));
      await expectRefused(seen, () => alice.post(`/api/tasks/${t.uuid}/reopen`, {}), 409, 'BLOCKED', 'Cannot move to in_progress: 1 prerequisite(s) not done or closed', read(t.uuid));
      expectInvalid(await expectRefused(seen, () => alice.post(`/api/tasks/${t.uuid}/reopen`, { force: 'yes' }), 400, 'VALIDATION_ERROR', 'Invalid input', read(t.uuid)), 'force');
      const { res, events } = await withEvents(seen, () => alice.post(`/api/tasks/${t.uuid}/reopen`, { force: true }));
      expect(data(res).status).toBe('in_progress');
      expect(events).toEqual([updated(t)]);
      const open = await newTask();
      await expectRefused(seen, () => alice.post(`/api/tasks/${open.uuid}/reopen`, {}), 409, 'INVALID_STATE', 'Task is open; reopen requires to_verify', read(open.uuid));
    });

    it('closes a task once (any -> closed)', async () => {
      const t = await taskIn('in_progress');
      expectInvalid(await expectRefused(seen, () => alice.post(`/api/tasks/${t.uuid}/close`, { reason: 5 }), 400, 'VALIDATION_ERROR', 'Invalid input', read(t.uuid)), 'reason');
      const { res, events } = await withEvents(seen, () => alice.post(`/api/tasks/${t.uuid}/close`, { reason: 'Obsolete' }));
      expect(data(res)).toMatchObject({ status: 'closed', assignee: expect.objectContaining({ uuid: aliceUser.uuid }) });
      expect(events).toEqual([updated(t)]);
      await expectRefused(seen, () => alice.post(`/api/tasks/${t.uuid}/close`, {}), 409, 'INVALID_STATE', 'Task is closed; close requires not closed', read(t.uuid));
    });
  });

  describe('criteria marks, self-check, work reports', () => {
    it('marks criteria (200, task updated); identical marks emit nothing', async () => {
      const t = await taskIn('to_verify');
      const [c1, c2] = data(await alice.get(`/api/tasks/${t.uuid}`)).acceptanceCriteriaItems;
      const marks = { criteria: [{ uuid: c1.uuid, status: 'passed', evidence: 'CI green' }, { uuid: c2.uuid, status: 'failed' }] };
      const { res, events } = await withEvents(seen, () => carol.post(`/api/tasks/${t.uuid}/criteria/marks`, marks));
      expect(data(res).acceptanceCriteriaItems.slice(0, 2)).toEqual([
        expect.objectContaining({ status: 'passed', evidence: 'CI green', markedBy: { type: 'user', uuid: carolUser.uuid, name: 'Carol' } }),
        expect.objectContaining({ status: 'failed', evidence: null }),
      ]);
      expect(events).toEqual([updated(t)]);
      expect((await withEvents(seen, () => carol.post(`/api/tasks/${t.uuid}/criteria/marks`, marks))).events).toEqual([]);
    });

    it('refuses bad marks (400), foreign criteria (400) and closed tasks (409)', async () => {
      const t = await taskIn('to_verify');
      const other = data(await alice.get(`/api/tasks/${(await newTask()).uuid}`)).acceptanceCriteriaItems[0].uuid;
      const mark = (body: unknown, uuid = t.uuid) => () => alice.post(`/api/tasks/${uuid}/criteria/marks`, body);
      expectInvalid(await expectRefused(seen, mark({ criteria: [] }), 400, 'VALIDATION_ERROR', 'Invalid input', read(t.uuid)), 'criteria');
      expectInvalid(await expectRefused(seen, mark({ criteria: [{ uuid: 'x', status: 'ok' }] }), 400, 'VALIDATION_ERROR'), 'criteria.0.uuid', 'criteria.0.status');
      await expectRefused(seen, mark({ criteria: [{ uuid: other, status: 'passed' }] }), 400, 'VALIDATION_ERROR', `Criterion ${other} does not belong to this task`, read(t.uuid));
      const closed = await taskIn('closed');
      const c = data(await alice.get(`/api/tasks/${closed.uuid}`)).acceptanceCriteriaItems[0].uuid;
      await expectRefused(seen, mark({ criteria: [{ uuid: c, status: 'passed' }] }, closed.uuid), 409, 'INVALID_STATE', 'Task is closed; marking criteria requires a task that is not closed', read(closed.uuid));
    });

    it('self-checks for the assignee only, and not once done', async () => {
      const t = await taskIn('in_progress');
      const [c1] = data(await alice.get(`/api/tasks/${t.uuid}`)).acceptanceCriteriaItems;
      const body = { criteria: [{ uuid: c1.uuid, devStatus: 'passed', devEvidence: 'tests' }] };
      await expectRefused(seen, () => carol.post(`/api/tasks/${t.uuid}/criteria/self-check`, body), 403, 'FORBIDDEN', 'Only the assignee can self-check this task', read(t.uuid));
      expectInvalid(await expectRefused(seen, () => alice.post(`/api/tasks/${t.uuid}/criteria/self-check`, { criteria: [{ uuid: c1.uuid, devStatus: 'pending' }] }), 400, 'VALIDATION_ERROR', 'Invalid input', read(t.uuid)), 'criteria.0.devStatus');
      const { res, events } = await withEvents(seen, () => alice.post(`/api/tasks/${t.uuid}/criteria/self-check`, body));
      expect(data(res).acceptanceCriteriaItems[0]).toMatchObject({ devStatus: 'passed', devEvidence: 'tests', status: 'pending' });
      expect(events).toEqual([updated(t)]);
      const done = await taskIn('done');
      const d1 = data(await alice.get(`/api/tasks/${done.uuid}`)).acceptanceCriteriaItems[0].uuid;
      await expectRefused(seen, () => alice.post(`/api/tasks/${done.uuid}/criteria/self-check`, { criteria: [{ uuid: d1, devStatus: 'failed' }] }), 409, 'INVALID_STATE', 'Task is done; self-check requires a task that is not done or closed', read(done.uuid));
    });

    it('reports work as a comment (201), optionally moving the status; refusals write nothing', async () => {
      const t = await taskIn('assigned');
      await expectRefused(seen, () => carol.post(`/api/tasks/${t.uuid}/work-reports`, { report: 'Me too' }), 403, 'FORBIDDEN', 'Only the assignee can report work on this task', read(t.uuid));
      expectInvalid(await expectRefused(seen, () => alice.post(`/api/tasks/${t.uuid}/work-reports`, { report: 7, status: 'done' }), 400, 'VALIDATION_ERROR', 'Invalid input', read(t.uuid)), 'report', 'status');
      await expectRefused(seen, () => alice.post(`/api/tasks/${t.uuid}/work-reports`, { report: 'Ready', status: 'to_verify' }), 409, 'INVALID_STATE', 'Task is assigned; submit requires in_progress', read(t.uuid));
      const { res, events } = await withEvents(seen, () => alice.post(`/api/tasks/${t.uuid}/work-reports`, { report: 'Started on it', status: 'in_progress' }));
      const result = data(res, 201);
      expect(result).toEqual({ task: expect.objectContaining({ uuid: t.uuid, status: 'in_progress', commentCount: 1 }), commentUuid: expect.any(String) });
      expect(events).toEqual([updated(t)]);
      const [comment] = await world.ds.query(`SELECT content, author_uuid FROM comment WHERE uuid = $1`, [result.commentUuid]);
      expect(comment).toEqual({ content: 'Started on it', author_uuid: aliceUser.uuid });
      const x = await newTask();
      const blocked = await taskIn('assigned', alice, { dependsOnTaskUuids: [x.uuid] });
      await expectRefused(seen, () => alice.post(`/api/tasks/${blocked.uuid}/work-reports`, { report: 'Go', status: 'in_progress' }), 409, 'BLOCKED', 'Cannot move to in_progress: 1 prerequisite(s) not done or closed', read(blocked.uuid));
    });
  });
});
