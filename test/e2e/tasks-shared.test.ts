import { randomUUID } from 'node:crypto';
import type { Actor } from '../../src/shared/auth/actor.js';
import { AgentService } from '../../src/modules/identity/index.js';
import type { NewTaskInput, TaskStatus } from '../../src/modules/tasks/index.js';
import type { SeededUser } from '../factories/identity.factory.js';
import { ChangeEvents, compact, ev } from '../utils/change-events.js';
import { tableCounts } from '../utils/expect-error.js';
import type { HttpClient, HttpResult } from '../utils/http.js';
import { CRITERION_KEYS, keysOf, sortedKeys, TASK_RECORD_KEYS, TASK_SUMMARY_KEYS } from '../utils/mcp-expect.js';
import { userActor, World, type WorldAgent } from '../utils/world.js';

/**
 * Task scenarios REST and MCP share (docs/platform.md §9, docs/tool-conventions.md §5), written once and run against
 * both surfaces: each `TaskSurface` drives the same use case over its transport (a logged-in user's REST routes, or an
 * agent's SDK client and tools) and answers a normalised `{ ok, data } | { ok: false, code, message, error }`. Change
 * events are read for both from a real EventSource of the company; a refusal changes no row, no record and emits
 * nothing. What only one surface has (HTTP statuses beyond the code's, query parsing, paging, tool metadata, argument
 * schemas, truncation) stays in tasks.test.ts.
 */

type Ref = { type: 'user' | 'agent'; uuid: string; name: string };
type Outcome = { ok: true; data: any } | { ok: false; code: string; message: string; error: Record<string, any> };
type Criterion = { uuid: string; [k: string]: unknown };

/** The operations of one caller on one surface. */
interface Caller {
  ref: Ref;
  create(projectUuid: string, body: Record<string, unknown>): Promise<Outcome>;
  list(projectUuid: string): Promise<Outcome>;
  get(taskUuid: string): Promise<Outcome>;
  update(taskUuid: string, patch: Record<string, unknown>): Promise<Outcome>;
  claim(taskUuid: string): Promise<Outcome>;
  release(taskUuid: string): Promise<Outcome>;
  assign(taskUuid: string, agentUuid: string): Promise<Outcome>;
  submit(taskUuid: string, summary?: string): Promise<Outcome>;
  verify(taskUuid: string): Promise<Outcome>;
  reopen(taskUuid: string, force?: boolean): Promise<Outcome>;
  close(taskUuid: string, reason?: string): Promise<Outcome>;
  mark(taskUuid: string, criteria: Criterion[]): Promise<Outcome>;
  selfCheck(taskUuid: string, criteria: Criterion[]): Promise<Outcome>;
  report(taskUuid: string, report: string, status?: string): Promise<Outcome>;
  remove(taskUuid: string): Promise<Outcome>;
}

/**
 * A surface: its callers by role (`worker` claims and works tasks, `colleague` is another worker of the company,
 * `lead` assigns, `admin` verifies, reopens, closes, marks and deletes, `foreign` belongs to another company), the
 * actors tasks are seeded for, and two agents of the company to assign to.
 */
interface TaskSurface {
  name: 'rest' | 'mcp';
  worker: Caller;
  colleague: Caller;
  lead: Caller;
  admin: Caller;
  foreign: Caller;
  workerActor: Actor;
  /** An agent that holds tasks and checks in on them (sessions are agents'): the worker itself, or the worker's own agent. */
  agentHolder: WorldAgent;
  assignees: [WorldAgent, WorldAgent];
}

/** The HTTP status of each error code (docs/platform.md §5). */
const STATUS: Record<string, number> = { NOT_FOUND: 404, VALIDATION_ERROR: 400, INVALID_STATE: 409, BLOCKED: 409, CRITERIA_NOT_PASSED: 409, FORBIDDEN: 403 };

function restCaller(http: HttpClient, ref: Ref): Caller {
  const outcome = (res: HttpResult): Outcome => {
    if (res.status >= 200 && res.status < 300) {
      expect(res.body.success).toBe(true);
      return { ok: true, data: res.body.data };
    }
    const error = res.body?.error ?? {};
    // Every refusal has the envelope and the status of its code.
    expect({ status: res.status, success: res.body?.success }).toEqual({ status: STATUS[error.code] ?? `no status for ${error.code}`, success: false });
    return { ok: false, code: error.code, message: error.message, error };
  };
  const post = async (path: string, json?: unknown) => outcome(await http.post(path, json));
  return {
    ref,
    create: async (projectUuid, body) => {
      const res = await http.post(`/api/projects/${projectUuid}/tasks`, body);
      if (res.status < 300) expect(res.status).toBe(201);
      return outcome(res);
    },
    list: async (projectUuid) => outcome(await http.get(`/api/projects/${projectUuid}/tasks`)),
    get: async (uuid) => outcome(await http.get(`/api/tasks/${uuid}`)),
    update: async (uuid, patch) => outcome(await http.patch(`/api/tasks/${uuid}`, patch)),
    claim: (uuid) => post(`/api/tasks/${uuid}/claim`),
    release: (uuid) => post(`/api/tasks/${uuid}/release`),
    assign: (uuid, agentUuid) => post(`/api/tasks/${uuid}/assign`, { assigneeType: 'agent', assigneeUuid: agentUuid }),
    submit: (uuid, summary) => post(`/api/tasks/${uuid}/submit`, summary === undefined ? {} : { summary }),
    verify: (uuid) => post(`/api/tasks/${uuid}/verify`),
    reopen: (uuid, force) => post(`/api/tasks/${uuid}/reopen`, force === undefined ? {} : { force }),
    close: (uuid, reason) => post(`/api/tasks/${uuid}/close`, reason === undefined ? {} : { reason }),
    mark: (uuid, criteria) => post(`/api/tasks/${uuid}/criteria/marks`, { criteria }),
    selfCheck: (uuid, criteria) => post(`/api/tasks/${uuid}/criteria/self-check`, { criteria }),
    report: async (uuid, report, status) => {
      const res = await http.post(`/api/tasks/${uuid}/work-reports`, status === undefined ? { report } : { report, status });
      if (res.status < 300) expect(res.status).toBe(201);
      return outcome(res);
    },
    remove: async (uuid) => outcome(await http.delete(`/api/tasks/${uuid}`)),
  };
}

function mcpCaller(world: World, agent: WorldAgent): Caller {
  const tool = async (name: string, args: Record<string, unknown>): Promise<Outcome> => {
    const res = await world.call(agent, name, args);
    if (!res.isError) return { ok: true, data: res.data };
    const error = res.data?.error ?? {};
    return { ok: false, code: error.code, message: error.message, error };
  };
  const opt = <T>(key: string, value: T | undefined) => (value === undefined ? {} : { [key]: value });
  return {
    ref: { type: 'agent', uuid: agent.uuid, name: agent.name },
    create: (projectUuid, body) => tool('svc_create_tasks', { projectUuid, ...body }),
    list: (projectUuid) => tool('svc_list_tasks', { projectUuid }),
    get: (taskUuid) => tool('svc_get_task', { taskUuid }),
    update: (taskUuid, patch) => tool('svc_update_task', { taskUuid, ...patch }),
    claim: (taskUuid) => tool('svc_claim_task', { taskUuid }),
    release: (taskUuid) => tool('svc_release_task', { taskUuid }),
    assign: (taskUuid, agentUuid) => tool('svc_pm_assign_task', { taskUuid, agentUuid }),
    submit: (taskUuid, summary) => tool('svc_submit_for_verify', { taskUuid, ...opt('summary', summary) }),
    verify: (taskUuid) => tool('svc_admin_verify_task', { taskUuid }),
    reopen: (taskUuid, force) => tool('svc_admin_reopen_task', { taskUuid, ...opt('force', force) }),
    close: (taskUuid, reason) => tool('svc_admin_close_task', { taskUuid, ...opt('reason', reason) }),
    mark: (taskUuid, criteria) => tool('svc_mark_acceptance_criteria', { taskUuid, criteria }),
    selfCheck: (taskUuid, criteria) => tool('svc_report_criteria_self_check', { taskUuid, criteria }),
    report: (taskUuid, report, status) => tool('svc_report_work', { taskUuid, report, ...opt('status', status) }),
    remove: (taskUuid) => tool('svc_admin_delete_task', { taskUuid }),
  };
}

describe('tasks over REST and MCP (e2e)', () => {
  let world: World;
  let companyUuid: string;
  /** Company A's user who seeds tasks and owns the MCP agents. */
  let owner: Actor;
  let ownerUser: SeededUser;
  let foreign: { owner: Actor; projectUuid: string };
  let changes: ChangeEvents;
  const surfaces: Record<'rest' | 'mcp', TaskSurface> = {} as never;

  beforeAll(async () => {
    world = await World.start();
    companyUuid = (await world.company()).uuid;
    const other = (await world.company()).uuid;
    ownerUser = await world.user(companyUuid, { name: 'Owner' });
    owner = userActor(ownerUser);
    const [aliceUser, carolUser, bobUser] = [await world.user(companyUuid, { name: 'Alice' }), await world.user(companyUuid, { name: 'Carol' }), await world.user(other, { name: 'Bob' })];
    const [alice, carol, bob] = [await world.login(aliceUser), await world.login(carolUser), await world.login(bobUser)];
    const aliceAgent = await world.agent(companyUuid, aliceUser.uuid, { name: 'Alice bot' });
    const carolAgent = await world.agent(companyUuid, carolUser.uuid, { name: 'Carol bot' });
    const user = (u: SeededUser): Ref => ({ type: 'user', uuid: u.uuid, name: u.name });
    surfaces.rest = {
      name: 'rest',
      worker: restCaller(alice, user(aliceUser)),
      colleague: restCaller(carol, user(carolUser)),
      lead: restCaller(alice, user(aliceUser)),
      admin: restCaller(carol, user(carolUser)),
      foreign: restCaller(bob, user(bobUser)),
      workerActor: userActor(aliceUser),
      agentHolder: aliceAgent,
      assignees: [aliceAgent, carolAgent],
    };
    const dev = await world.agent(companyUuid, ownerUser.uuid, { preset: 'developer_agent', name: 'Dev' });
    const dev2 = await world.agent(companyUuid, ownerUser.uuid, { preset: 'developer_agent', name: 'Dev2' });
    const pm = await world.agent(companyUuid, ownerUser.uuid, { preset: 'pm_agent', name: 'PM' });
    const admin = await world.agent(companyUuid, ownerUser.uuid, { preset: 'admin_agent', name: 'Admin' });
    const mallory = userActor(await world.user(other, { name: 'Mallory' }));
    const evil = await world.agent(other, mallory.uuid, { preset: 'admin_agent', name: 'Evil' });
    foreign = { owner: mallory, projectUuid: await world.project(mallory) };
    surfaces.mcp = {
      name: 'mcp',
      worker: mcpCaller(world, dev),
      colleague: mcpCaller(world, dev2),
      lead: mcpCaller(world, pm),
      admin: mcpCaller(world, admin),
      foreign: mcpCaller(world, evil),
      workerActor: dev.actor,
      agentHolder: dev,
      assignees: [dev, dev2],
    };
    changes = await ChangeEvents.open(world, alice.cookie!, companyUuid);
  }, 60_000);
  afterAll(async () => {
    changes.close();
    await world.close();
  });

  describe.each(['rest', 'mcp'] as const)('%s', (name) => {
    let S: TaskSurface;
    let project: string;
    beforeAll(async () => {
      S = surfaces[name];
      project = await world.project(owner);
    });

    /** An open task of the surface's project (criteria works, tested, and an optional nice to have), seeded by Owner. */
    const seed = async (overrides: Partial<NewTaskInput> = {}, projectUuid = project, creator = owner): Promise<string> => (await world.task(creator, projectUuid, overrides)).uuid;
    /** A task moved to `status`, held by the worker (or `holder`) for the held statuses. */
    const seedIn = (status: TaskStatus, overrides: Partial<NewTaskInput> = {}, holder: Actor = S.workerActor): Promise<string> => world.taskIn(status, owner, project, holder, overrides);
    const updated = (uuid: string, p = project) => ev('task', 'updated', uuid, p);
    const criteriaOf = async (uuid: string): Promise<string[]> => (await world.tasks.tasks.get(owner, { taskUuid: uuid })).acceptanceCriteriaItems.map((c) => c.uuid);

    /** The outcome of `call` with the change events it emitted (all of company A), compacted. */
    async function withEvents(call: () => Promise<Outcome>): Promise<{ out: Outcome; events: string[] }> {
      const { result, events } = await changes.during(call);
      for (const e of events) expect(e.companyUuid).toBe(companyUuid);
      return { out: result, events: compact(events) };
    }
    /** A successful call's data, with the events it emitted. */
    async function success(call: () => Promise<Outcome>): Promise<{ data: any; events: string[] }> {
      const { out, events } = await withEvents(call);
      expect(out.ok ? 'ok' : out).toBe('ok');
      return { data: (out as { data: unknown }).data, events };
    }
    const ok = async (call: Promise<Outcome>): Promise<any> => {
      const out = await call;
      expect(out.ok ? 'ok' : out).toBe('ok');
      return (out as { data: unknown }).data;
    };
    /**
     * A refused call: `code` and `message`, no change event, no new or removed row in the task tables, and the named
     * tasks' rows and records (as the worker reads them) the same before and after. Returns the error.
     */
    async function refused(call: () => Promise<Outcome>, code: string, message: string, taskUuids: string[] = []): Promise<Record<string, any>> {
      const state = async () => ({
        counts: await tableCounts(world.ds, ['proposal', 'task', 'document', 'acceptance_criterion', 'task_dependency', 'comment', 'reference', 'activity']),
        rows: await Promise.all(taskUuids.map((u) => world.tasks.snapshot(u))),
        records: await Promise.all(taskUuids.map((u) => S.worker.get(u))),
      });
      const before = await state();
      const { out, events } = await withEvents(call);
      expect(out.ok ? out : { code: out.code, message: out.message }).toEqual({ code, message });
      expect(events).toEqual([]);
      expect(await state()).toEqual(before);
      return (out as { error: Record<string, any> }).error;
    }

    describe('create', () => {
      it('creates a batch in input order with draft and existing prerequisites: task created per task, updated per prerequisite', async () => {
        const existing = await seed({ title: 'existing' });
        const { data, events } = await success(() =>
          S.worker.create(project, {
            tasks: [
              { title: ' First ', draftUuid: 'a', priority: 'high', storyPoints: 5, acceptanceCriteriaItems: [{ description: 'one' }, { description: 'two', required: false }] },
              {
                title: 'Second',
                description: 'Depends',
                dependsOnDraftUuids: ['a'],
                dependsOnTaskUuids: [existing],
                acceptanceCriteriaItems: [{ description: 'three' }],
                references: [{ type: 'docs', url: 'https://example.com/x', title: 'Doc' }],
              },
            ],
          }),
        );
        expect(Object.keys(data)).toEqual(['tasks']);
        expect(data.tasks.map((t: { title: string }) => t.title)).toEqual(['First', 'Second']);
        expect(sortedKeys(data.tasks[0])).toEqual(keysOf(TASK_SUMMARY_KEYS));
        expect(data.tasks[0]).toMatchObject({ status: 'open', priority: 'high', storyPoints: 5, acceptance: { passed: 0, total: 2 }, projectUuid: project });
        expect(data.tasks[1]).toMatchObject({ status: 'open', priority: 'medium' });
        const [first, second] = data.tasks.map((t: { uuid: string }) => t.uuid);
        expect(events).toEqual([ev('task', 'created', first, project), ev('task', 'created', second, project), updated(existing)]);
        const record = await ok(S.worker.get(second));
        expect(record.dependsOn.map((d: { uuid: string }) => d.uuid).sort()).toEqual([first, existing].sort());
        expect(record.references).toHaveLength(1);
        expect(record.createdBy).toEqual(S.worker.ref);
      });

      it('links the tasks to an approved proposal of the project', async () => {
        const proposalUuid = await world.tasks.proposal(project, owner, 'approved');
        const { data, events } = await success(() => S.worker.create(project, { proposalUuid, tasks: [{ title: 'Linked', acceptanceCriteriaItems: [{ description: 'x' }] }] }));
        expect(data.tasks[0].proposalUuid).toBe(proposalUuid);
        expect(events).toEqual([ev('task', 'created', data.tasks[0].uuid, project)]);
      });

      it('refuses the whole batch on any domain problem and writes nothing', async () => {
        const otherProject = await world.project(owner);
        const draft = await world.tasks.proposal(project, owner, 'draft');
        const elsewhere = await world.tasks.proposal(otherProject, owner, 'approved');
        const otherProjectTask = await seed({}, otherProject);
        const foreignTask = await seed({}, foreign.projectUuid, foreign.owner);
        const good = { title: 'Good', acceptanceCriteriaItems: [{ description: 'ok' }] };
        const cases: Array<[string, Record<string, unknown>, string, string]> = [
          [randomUUID(), { tasks: [good] }, 'NOT_FOUND', 'Project not found'],
          [foreign.projectUuid, { tasks: [good] }, 'NOT_FOUND', 'Project not found'],
          [project, { proposalUuid: randomUUID(), tasks: [good] }, 'NOT_FOUND', 'Proposal not found'],
          [project, { proposalUuid: elsewhere, tasks: [good] }, 'NOT_FOUND', 'Proposal not found'],
          [project, { proposalUuid: draft, tasks: [good] }, 'INVALID_STATE', 'Proposal is draft; create tasks requires approved'],
          [project, { tasks: [good, { ...good, title: 'Dep', dependsOnTaskUuids: [randomUUID()] }] }, 'NOT_FOUND', 'Dependency task not found'],
          [project, { tasks: [{ ...good, dependsOnTaskUuids: [foreignTask] }] }, 'NOT_FOUND', 'Dependency task not found'],
          [project, { tasks: [{ ...good, dependsOnTaskUuids: [otherProjectTask] }] }, 'VALIDATION_ERROR', 'Tasks must belong to the same project'],
          [project, { tasks: [good, { title: 'Empty', acceptanceCriteriaItems: [{ description: '   ' }] }] }, 'VALIDATION_ERROR', 'Task "Empty": At least one acceptance criterion with a non-empty description is required'],
          [project, { tasks: [{ ...good, dependsOnDraftUuids: ['zz'] }] }, 'VALIDATION_ERROR', 'Task "Good": Unknown draftUuid "zz"'],
          [
            project,
            { tasks: [{ ...good, title: 'A', draftUuid: 'a', dependsOnDraftUuids: ['b'] }, { ...good, title: 'B', draftUuid: 'b', dependsOnDraftUuids: ['a'] }] },
            'VALIDATION_ERROR',
            'Adding this dependency would create a cycle',
          ],
        ];
        for (const [projectUuid, body, code, message] of cases) await refused(() => S.worker.create(projectUuid, body), code, message, [otherProjectTask]);
      });
    });

    describe('read', () => {
      it('returns the full record to any member of the company; a missing or foreign task is not found', async () => {
        const uuid = await seed({ description: 'Body', priority: 'high', storyPoints: 3 });
        const r = await ok(S.worker.get(uuid));
        expect(sortedKeys(r)).toEqual(keysOf(TASK_RECORD_KEYS));
        expect(sortedKeys(r.acceptanceCriteriaItems[0])).toEqual(keysOf(CRITERION_KEYS));
        expect(r).toMatchObject({ uuid, projectUuid: project, status: 'open', priority: 'high', storyPoints: 3, description: 'Body', assignee: null, commentCount: 0 });
        expect(r.createdBy).toEqual({ type: 'user', uuid: owner.uuid, name: 'Owner' });
        expect(r.acceptance).toEqual({ passed: 0, total: 3 });
        expect(r.acceptanceCriteriaItems.map((c: { description: string; required: boolean }) => [c.description, c.required])).toEqual([
          ['works', true],
          ['tested', true],
          ['nice to have', false],
        ]);
        // A colleague reads it too; the company is what scopes.
        expect((await ok(S.colleague.get(uuid))).uuid).toBe(uuid);
        await refused(() => S.worker.get(randomUUID()), 'NOT_FOUND', 'Task not found');
        await refused(() => S.foreign.get(uuid), 'NOT_FOUND', 'Task not found', [uuid]);
      });
    });

    describe('update', () => {
      it('edits fields and criteria for anyone of the company (task updated); an edit that changes nothing emits nothing', async () => {
        const uuid = await seedIn('assigned', { storyPoints: 2 });
        const { data: r, events } = await success(() =>
          S.colleague.update(uuid, { title: 'Renamed', priority: 'low', storyPoints: null, acceptanceCriteriaItems: [{ description: 'only one' }] }),
        );
        expect(sortedKeys(r)).toEqual(keysOf(TASK_RECORD_KEYS));
        expect(r).toMatchObject({ title: 'Renamed', priority: 'low', storyPoints: null, status: 'assigned', acceptance: { passed: 0, total: 1 } });
        expect(r.acceptanceCriteriaItems.map((c: { description: string }) => c.description)).toEqual(['only one']);
        expect(events).toEqual([updated(uuid)]);
        const again = await success(() => S.worker.update(uuid, { title: 'Renamed' }));
        expect(again.data.title).toBe('Renamed');
        expect(again.events).toEqual([]);
      });

      it('refuses an empty update, a blank title or criteria and dependency rule breaks, unchanged', async () => {
        const uuid = await seed();
        const other = await seed({ dependsOnTaskUuids: [uuid] });
        await refused(() => S.worker.update(uuid, {}), 'VALIDATION_ERROR', 'Nothing to update', [uuid]);
        await refused(() => S.worker.update(uuid, { title: '   ' }), 'VALIDATION_ERROR', 'Title must be 1-200 characters', [uuid]);
        await refused(
          () => S.worker.update(uuid, { title: 'Changed', acceptanceCriteriaItems: [{ description: ' ' }] }),
          'VALIDATION_ERROR',
          'At least one acceptance criterion with a non-empty description is required',
          [uuid],
        );
        await refused(() => S.worker.update(uuid, { addDependsOn: [uuid] }), 'VALIDATION_ERROR', 'A task cannot depend on itself', [uuid]);
        await refused(() => S.worker.update(uuid, { addDependsOn: [other] }), 'VALIDATION_ERROR', 'Adding this dependency would create a cycle', [uuid, other]);
        await refused(() => S.worker.update(uuid, { addDependsOn: [randomUUID()] }), 'NOT_FOUND', 'Dependency task not found', [uuid]);
        await refused(() => S.worker.update(randomUUID(), { title: 'x' }), 'NOT_FOUND', 'Task not found');
      });

      it('adds and removes dependencies: task updated for both ends', async () => {
        const a = await seed();
        const b = await seed({ title: 'Bee' });
        const added = await success(() => S.worker.update(a, { addDependsOn: [b] }));
        expect(added.data.dependsOn).toEqual([{ uuid: b, title: 'Bee', status: 'open' }]);
        expect(added.events.sort()).toEqual([updated(a), updated(b)].sort());
        expect((await ok(S.worker.get(b))).dependedBy.map((d: { uuid: string }) => d.uuid)).toEqual([a]);
        const removed = await success(() => S.worker.update(a, { removeDependsOn: [b] }));
        expect(removed.data.dependsOn).toEqual([]);
        expect(removed.events.sort()).toEqual([updated(a), updated(b)].sort());
      });

      it('moves the status for the assignee only, through the transition check', async () => {
        const uuid = await seedIn('assigned');
        await refused(() => S.colleague.update(uuid, { status: 'in_progress', title: 'Sneaky' }), 'FORBIDDEN', "Only the assignee can change this task's status", [uuid]);
        const early = await refused(() => S.worker.update(uuid, { status: 'to_verify' }), 'INVALID_STATE', 'Task is assigned; submit requires in_progress', [uuid]);
        // The refusal names the tool that moves the task on (docs/tool-conventions.md §1.5), on both surfaces.
        expect(early).toEqual({ code: 'INVALID_STATE', message: 'Task is assigned; submit requires in_progress', hints: ['Start it first: svc_update_task with status in_progress (the assignee only)'] });
        const { data, events } = await success(() => S.worker.update(uuid, { status: 'in_progress' }));
        expect(data.status).toBe('in_progress');
        expect(events).toEqual([updated(uuid)]);
        expect((await ok(S.worker.update(uuid, { status: 'to_verify' }))).status).toBe('to_verify');
        expect((await ok(S.worker.update(uuid, { status: 'in_progress' }))).status).toBe('in_progress');
      });

      it('refuses to start a task with an unresolved prerequisite (BLOCKED with blockers and hints), applying nothing', async () => {
        const prereq = await seed({ title: 'Prereq' });
        const uuid = await seedIn('assigned', { dependsOnTaskUuids: [prereq] });
        const err = await refused(() => S.worker.update(uuid, { status: 'in_progress', title: 'Not applied' }), 'BLOCKED', 'Cannot move to in_progress: 1 prerequisite(s) not done or closed', [uuid, prereq]);
        expect(err.blockers).toEqual([{ uuid: prereq, title: 'Prereq', status: 'open', assignee: null }]);
        // hints name each prerequisite's next step and where to follow it (docs/tool-conventions.md §1.5; docs/platform.md §5: same extra fields).
        expect(Object.keys(err)).toEqual(['code', 'message', 'blockers', 'hints']);
        expect(err.hints).toEqual([
          `Prerequisite "Prereq" (${prereq}) is open: it needs an assignee (svc_claim_task, or svc_pm_assign_task)`,
          'Follow the prerequisites with svc_get_task; svc_get_available_tasks lists work you can start now',
        ]);
      });
    });

    describe('claim, release, assign', () => {
      it('claims an open task for the caller; claiming again changes nothing; a colleague is refused', async () => {
        const uuid = await seed();
        const { data: r, events } = await success(() => S.worker.claim(uuid));
        expect(sortedKeys(r)).toEqual(keysOf(TASK_RECORD_KEYS));
        expect(r.status).toBe('assigned');
        expect(r.assignee).toMatchObject({ ...S.worker.ref, assignedBy: S.worker.ref });
        expect(r.hints).toBeUndefined();
        expect(events).toEqual([updated(uuid)]);
        const before = await world.tasks.snapshot(uuid);
        const again = await success(() => S.worker.claim(uuid));
        expect(again.data.status).toBe('assigned');
        expect(again.events).toEqual([]);
        expect(await world.tasks.snapshot(uuid)).toEqual(before);
        await refused(() => S.colleague.claim(uuid), 'INVALID_STATE', 'Task is assigned to someone else; claim requires open', [uuid]);
      });

      it('hints at what blocks the claimed task and what it unblocks', async () => {
        const a = await seed({ title: 'Alpha' });
        const b = await seed({ title: 'Beta', dependsOnTaskUuids: [a] });
        expect((await ok(S.worker.claim(b))).hints).toEqual(['BLOCKED: waiting for Alpha']);
        const c = await seed({ title: 'Gamma', dependsOnTaskUuids: [a] });
        await seed({ title: 'Delta', dependsOnTaskUuids: [c] });
        expect((await ok(S.worker.claim(c))).hints).toEqual(['BLOCKED: waiting for Alpha', 'UNBLOCKS: Delta']);
      });

      it('refuses to claim held, closed, missing and foreign tasks', async () => {
        const held = await seedIn('in_progress');
        const closed = await seedIn('closed');
        await refused(() => S.colleague.claim(held), 'INVALID_STATE', 'Task is assigned to someone else; claim requires open', [held]);
        await refused(() => S.colleague.claim(closed), 'INVALID_STATE', 'Task is closed; claim requires open', [closed]);
        await refused(() => S.worker.claim(randomUUID()), 'NOT_FOUND', 'Task not found');
        const foreignTask = await seed({}, foreign.projectUuid, foreign.owner);
        await refused(() => S.worker.claim(foreignTask), 'NOT_FOUND', 'Task not found', [foreignTask]);
      });

      it('releases an unstarted task for its assignee only (assigned -> open)', async () => {
        const uuid = await seedIn('assigned');
        await refused(() => S.colleague.release(uuid), 'FORBIDDEN', 'Only the assignee can release this task', [uuid]);
        const { data, events } = await success(() => S.worker.release(uuid));
        expect(data).toMatchObject({ status: 'open', assignee: null });
        expect(events).toEqual([updated(uuid)]);
        const started = await seedIn('in_progress');
        await refused(() => S.worker.release(started), 'INVALID_STATE', 'Task is in_progress; release requires assigned', [started]);
        await refused(() => S.worker.release(randomUUID()), 'NOT_FOUND', 'Task not found');
      });

      it('assigns to an agent of the company, with hints; the same assignment again changes nothing', async () => {
        const [one, two] = S.assignees;
        const a = await seed({ title: 'First step' });
        const uuid = await seed({ title: 'Second step', dependsOnTaskUuids: [a] });
        const { data: r, events } = await success(() => S.lead.assign(uuid, one.uuid));
        expect(r.status).toBe('assigned');
        expect(r.assignee).toMatchObject({ type: 'agent', uuid: one.uuid, name: one.name, assignedBy: S.lead.ref });
        expect(r.hints).toEqual(['BLOCKED: waiting for First step']);
        expect(events).toEqual([updated(uuid)]);
        const before = await world.tasks.snapshot(uuid);
        const same = await success(() => S.lead.assign(uuid, one.uuid));
        expect(same.data.assignee.uuid).toBe(one.uuid);
        expect(same.events).toEqual([]);
        expect(await world.tasks.snapshot(uuid)).toEqual(before);
        const other = await success(() => S.lead.assign(uuid, two.uuid));
        expect(other.data.assignee).toMatchObject({ type: 'agent', uuid: two.uuid, name: two.name });
        expect(other.events).toEqual([updated(uuid)]);
        expect((await ok(S.lead.assign(a, one.uuid))).hints).toEqual(['UNBLOCKS: Second step']);
      });

      it('refuses to assign missing tasks, to unknown, archived or foreign agents and tasks past assigned', async () => {
        const uuid = await seed();
        const [one, two] = S.assignees;
        const archived = await world.agent(companyUuid, ownerUser.uuid, { preset: 'developer_agent', name: `Retired ${name}` });
        await world.seeding(AgentService).archive({ companyUuid, userUuid: null }, archived.uuid);
        const stranger = await world.agent(foreign.owner.companyUuid, foreign.owner.uuid, { preset: 'developer_agent', name: `Stranger ${name}` });
        await refused(() => S.lead.assign(randomUUID(), one.uuid), 'NOT_FOUND', 'Task not found');
        for (const agentUuid of [randomUUID(), archived.uuid, stranger.uuid]) await refused(() => S.lead.assign(uuid, agentUuid), 'NOT_FOUND', 'Agent not found', [uuid]);
        const started = await seedIn('in_progress');
        await refused(() => S.lead.assign(started, two.uuid), 'INVALID_STATE', 'Task is in_progress; assign requires open or assigned', [started]);
      });
    });

    describe('submit, verify, reopen, close', () => {
      it('submits for the assignee only (in_progress -> to_verify), recording the summary', async () => {
        const uuid = await seedIn('in_progress');
        await refused(() => S.colleague.submit(uuid), 'FORBIDDEN', 'Only the assignee can submit this task', [uuid]);
        const { data, events } = await success(() => S.worker.submit(uuid, 'Done it'));
        expect(data.status).toBe('to_verify');
        expect(events).toEqual([updated(uuid)]);
        expect((await world.tasks.activities(uuid)).at(-1)).toMatchObject({ action: 'submitted', value: { summary: 'Done it' } });
        await refused(() => S.worker.submit(uuid), 'INVALID_STATE', 'Task is to_verify; submit requires in_progress', [uuid]);
        const assigned = await seedIn('assigned');
        const err = await refused(() => S.worker.submit(assigned), 'INVALID_STATE', 'Task is assigned; submit requires in_progress', [assigned]);
        expect(err.hints).toEqual(['Start it first: svc_update_task with status in_progress (the assignee only)']);
      });

      it('verifies only under verification with every required criterion passed', async () => {
        const uuid = await seedIn('to_verify');
        const err = await refused(() => S.admin.verify(uuid), 'CRITERIA_NOT_PASSED', 'Not all required acceptance criteria are passed (required 2, passed 0, failed 0, pending 2)', [uuid]);
        expect(err.acceptanceSummary).toMatchObject({ total: 3, required: 2, requiredPassed: 0, requiredPending: 2 });
        const [c1, c2] = await criteriaOf(uuid);
        await world.tasks.tasks.markCriteria(owner, { taskUuid: uuid, criteria: [c1, c2].map((c) => ({ uuid: c, status: 'passed' as const })) });
        const { data, events } = await success(() => S.admin.verify(uuid));
        expect(data).toMatchObject({ status: 'done', acceptanceStatus: 'passed' });
        expect(events).toEqual([updated(uuid)]);
        const started = await seedIn('in_progress');
        const early = await refused(() => S.admin.verify(started), 'INVALID_STATE', 'Task is in_progress; verify requires to_verify', [started]);
        expect(early.hints).toEqual(['Submit it for verification: svc_submit_for_verify (the assignee only)']);
        await refused(() => S.admin.verify(randomUUID()), 'NOT_FOUND', 'Task not found');
      });

      it('reopens a task under verification, resetting its marks; BLOCKED on open prerequisites unless force', async () => {
        const uuid = await seedIn('to_verify');
        const [c1] = await criteriaOf(uuid);
        await world.tasks.tasks.markCriteria(owner, { taskUuid: uuid, criteria: [{ uuid: c1, status: 'failed', evidence: 'broken' }] });
        const { data: r, events } = await success(() => S.admin.reopen(uuid));
        expect(r.status).toBe('in_progress');
        expect(r.acceptanceCriteriaItems[0]).toMatchObject({ status: 'pending', evidence: null, markedBy: null });
        expect(events).toEqual([updated(uuid)]);

        const prereq = await seed();
        const blocked = await seedIn('to_verify');
        await world.tasks.tasks.update(owner, { taskUuid: blocked, addDependsOn: [prereq] });
        const err = await refused(() => S.admin.reopen(blocked), 'BLOCKED', 'Cannot move to in_progress: 1 prerequisite(s) not done or closed', [blocked]);
        expect(err.hints).toEqual([expect.stringContaining(`(${prereq}) is open`), expect.stringContaining('svc_get_task'), 'svc_admin_reopen_task with force: true reopens it anyway']);
        const forced = await success(() => S.admin.reopen(blocked, true));
        expect(forced.data.status).toBe('in_progress');
        expect(forced.events).toEqual([updated(blocked)]);
        const open = await seed();
        await refused(() => S.admin.reopen(open), 'INVALID_STATE', 'Task is open; reopen requires to_verify', [open]);
        const assigned = await seedIn('assigned');
        await refused(() => S.admin.reopen(assigned), 'INVALID_STATE', 'Task is assigned; reopen requires to_verify', [assigned]);
        await refused(() => S.admin.reopen(randomUUID()), 'NOT_FOUND', 'Task not found');
      });

      it('closes from any status but closed, ending check-ins and recording the reason', async () => {
        const holder = S.agentHolder;
        const uuid = await seedIn('in_progress', {}, holder.actor);
        const session = await world.tasks.sessions.create(holder.actor, { name: 'S' });
        await world.tasks.sessions.checkinTask(holder.actor, { sessionUuid: session.uuid, taskUuid: uuid });
        const { data: r, events } = await success(() => S.admin.close(uuid, 'Not needed'));
        expect(r).toMatchObject({ status: 'closed', activeSessions: [], assignee: expect.objectContaining({ uuid: holder.uuid }) });
        expect(events).toEqual([updated(uuid)]);
        expect((await world.tasks.activities(uuid)).at(-1)).toMatchObject({ action: 'closed', value: { reason: 'Not needed' } });
        await refused(() => S.admin.close(uuid), 'INVALID_STATE', 'Task is closed; close requires not closed', [uuid]);
        await refused(() => S.admin.close(randomUUID()), 'NOT_FOUND', 'Task not found');
      });
    });

    describe('criteria marks, self-check, work reports', () => {
      it('marks criteria with evidence; identical marks emit nothing; foreign criteria and closed tasks are refused', async () => {
        const uuid = await seedIn('to_verify');
        const [c1, c2] = await criteriaOf(uuid);
        const marks = [
          { uuid: c1, status: 'passed', evidence: 'CI green' },
          { uuid: c2, status: 'failed' },
        ];
        const { data: r, events } = await success(() => S.admin.mark(uuid, marks));
        expect(r.acceptanceCriteriaItems.slice(0, 2)).toEqual([
          expect.objectContaining({ status: 'passed', evidence: 'CI green', markedBy: S.admin.ref }),
          expect.objectContaining({ status: 'failed', evidence: null }),
        ]);
        expect(r.acceptanceStatus).toBe('failed');
        expect(r.acceptance).toEqual({ passed: 1, total: 3 });
        expect(events).toEqual([updated(uuid)]);
        expect((await success(() => S.admin.mark(uuid, marks))).events).toEqual([]);
        const [alien] = await criteriaOf(await seed());
        await refused(() => S.admin.mark(uuid, [{ uuid: alien, status: 'passed' }]), 'VALIDATION_ERROR', `Criterion ${alien} does not belong to this task`, [uuid]);
        const closed = await seedIn('closed');
        const [c] = await criteriaOf(closed);
        await refused(() => S.admin.mark(closed, [{ uuid: c, status: 'passed' }]), 'INVALID_STATE', 'Task is closed; marking criteria requires a task that is not closed', [closed]);
      });

      it("records the assignee's own self-check marks, for the assignee only and not once done", async () => {
        const uuid = await seedIn('in_progress');
        const [c1, c2] = await criteriaOf(uuid);
        const marks = [
          { uuid: c1, devStatus: 'passed', devEvidence: 'see PR' },
          { uuid: c2, devStatus: 'failed' },
        ];
        await refused(() => S.colleague.selfCheck(uuid, marks), 'FORBIDDEN', 'Only the assignee can self-check this task', [uuid]);
        const [alien] = await criteriaOf(await seed());
        await refused(() => S.worker.selfCheck(uuid, [{ uuid: alien, devStatus: 'passed' }]), 'VALIDATION_ERROR', `Criterion ${alien} does not belong to this task`, [uuid]);
        const { data: r, events } = await success(() => S.worker.selfCheck(uuid, marks));
        expect(r.acceptanceCriteriaItems[0]).toMatchObject({ devStatus: 'passed', devEvidence: 'see PR', devMarkedBy: S.worker.ref, status: 'pending' });
        expect(r.acceptanceCriteriaItems[1].devStatus).toBe('failed');
        expect(events).toEqual([updated(uuid)]);
        expect((await success(() => S.worker.selfCheck(uuid, marks))).events).toEqual([]);
        const done = await seedIn('done');
        const [d1] = await criteriaOf(done);
        await refused(() => S.worker.selfCheck(done, [{ uuid: d1, devStatus: 'failed' }]), 'INVALID_STATE', 'Task is done; self-check requires a task that is not done or closed', [done]);
      });

      it('reports work as a comment, optionally moving the status; any refusal writes nothing', async () => {
        const uuid = await seedIn('assigned');
        await refused(() => S.colleague.report(uuid, 'Me too'), 'FORBIDDEN', 'Only the assignee can report work on this task', [uuid]);
        await refused(() => S.worker.report(uuid, 'Ready', 'to_verify'), 'INVALID_STATE', 'Task is assigned; submit requires in_progress', [uuid]);
        const prereq = await seed();
        const blocked = await seedIn('assigned', { dependsOnTaskUuids: [prereq] });
        await refused(() => S.worker.report(blocked, 'Start', 'in_progress'), 'BLOCKED', 'Cannot move to in_progress: 1 prerequisite(s) not done or closed', [blocked]);
        const { data: r, events } = await success(() => S.worker.report(uuid, 'Started the work', 'in_progress'));
        expect(sortedKeys(r)).toEqual(['commentUuid', 'task']);
        expect(r).toEqual({ task: expect.objectContaining({ uuid, status: 'in_progress', commentCount: 1 }), commentUuid: expect.any(String) });
        expect(events).toEqual([updated(uuid)]);
        const [comment] = await world.ds.query(`SELECT content, author_uuid FROM comment WHERE uuid = $1`, [r.commentUuid]);
        expect(comment).toEqual({ content: 'Started the work', author_uuid: S.worker.ref.uuid });
      });
    });

    describe('delete', () => {
      it('deletes the task: {uuid, deleted: true}, task deleted and task updated per neighbour', async () => {
        const before = await seed();
        const uuid = await seed({ dependsOnTaskUuids: [before] });
        const after = await seed({ dependsOnTaskUuids: [uuid] });
        const { data, events } = await success(() => S.admin.remove(uuid));
        expect(data).toEqual({ uuid, deleted: true });
        expect(events[0]).toBe(ev('task', 'deleted', uuid, project));
        expect(events.slice(1).sort()).toEqual([updated(before), updated(after)].sort());
        await refused(() => S.worker.get(uuid), 'NOT_FOUND', 'Task not found');
        expect((await ok(S.worker.get(after))).dependsOn).toEqual([]);
        expect((await ok(S.worker.get(before))).dependedBy).toEqual([]);
        await refused(() => S.admin.remove(uuid), 'NOT_FOUND', 'Task not found');
      });
    });

    it("treats another company's task and project as not found for every operation", async () => {
      const uuid = await seedIn('to_verify');
      const [criterion] = await criteriaOf(uuid);
      const F = S.foreign;
      const calls: Array<() => Promise<Outcome>> = [
        () => F.get(uuid),
        () => F.update(uuid, { title: 'x' }),
        () => F.claim(uuid),
        () => F.release(uuid),
        () => F.submit(uuid),
        () => F.selfCheck(uuid, [{ uuid: criterion, devStatus: 'passed' }]),
        () => F.report(uuid, 'x'),
        () => F.assign(uuid, S.assignees[0].uuid),
        () => F.verify(uuid),
        () => F.reopen(uuid),
        () => F.close(uuid),
        () => F.mark(uuid, [{ uuid: criterion, status: 'passed' }]),
        () => F.remove(uuid),
      ];
      for (const call of calls) await refused(call, 'NOT_FOUND', 'Task not found', [uuid]);
      await refused(() => F.list(project), 'NOT_FOUND', 'Project not found');
      await refused(() => F.create(project, { tasks: [{ title: 'T', acceptanceCriteriaItems: [{ description: 'x' }] }] }), 'NOT_FOUND', 'Project not found');
    });
  });
});
