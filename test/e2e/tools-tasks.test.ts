import { randomUUID } from 'node:crypto';
import type { Actor } from '../../src/shared/auth/actor.js';
import type { RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { RESULT_CAP_BYTES } from '../../src/modules/tool-kit/tool-result.js';
import { AgentService } from '../../src/modules/identity/index.js';
import { SessionService } from '../../src/modules/sessions/session.service.js';
import { TaskService, type NewTaskInput, type TaskStatus } from '../../src/modules/tasks/index.js';
import type { SeededUser } from '../factories/identity.factory.js';
import { CRITERION_KEYS, expectRefused, keysOf, sortedKeys, TASK_RECORD_KEYS, TASK_SUMMARY_KEYS } from '../utils/mcp-expect.js';
import { userActor, World, type WorldAgent } from '../utils/world.js';

/** Task tools (docs/tool-conventions.md §5.1, §5.2, §5.4, §5.6 assign, §5.8) through the official SDK client over HTTP. */
describe('task tools (e2e)', () => {
  let world: World;
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
  const crit = (r: { acceptanceCriteriaItems: Array<{ uuid: string }> }, i: number): string => r.acceptanceCriteriaItems[i].uuid;

  beforeAll(async () => {
    world = await World.start();
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
  afterAll(() => world.close());
  beforeEach(() => takeEvents());

  const takeEvents = (): RealtimeEvent[] => recorded.splice(0, recorded.length);
  /** An open task (criteria works, tested, and an optional one), of company A's project unless told. */
  const seedTask = async (overrides: Partial<NewTaskInput> = {}, project = projectUuid, creator = owner): Promise<string> => (await world.task(creator, project, overrides)).uuid;
  /** A task of company A's project moved to `status`, held by `assignee` for the held statuses. */
  const seedTaskIn = (status: TaskStatus, assignee: Actor, overrides: Partial<NewTaskInput> = {}): Promise<string> => world.taskIn(status, owner, projectUuid, assignee, overrides);
  const taskEvent = (entityUuid: string, action: RealtimeEvent['action'] = 'updated', project = projectUuid): RealtimeEvent => ({ companyUuid, projectUuid: project, entityType: 'task', entityUuid, action });
  /** A refused call: the error code (and message), the named tasks' rows unchanged and no change event; returns the error. */
  const refused = (agent: WorldAgent, name: string, args: Record<string, unknown>, code: string, message?: string, taskUuids: string[] = []) =>
    expectRefused(recorded, agent, name, args, { code, message, unchanged: () => Promise.all(taskUuids.map((u) => world.tasks.snapshot(u))) });

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

    it('rejects out-of-range paging and too many proposal filters', async () => {
      for (const args of [{ pageSize: 101 }, { page: 0 }, { pageSize: 1.5 }, { proposalUuids: Array.from({ length: 21 }, () => randomUUID()) }, { status: 'bogus' }]) {
        await refused(dev, 'svc_list_tasks', { projectUuid: projectUuid, ...args }, 'VALIDATION_ERROR', 'Invalid arguments');
      }
    });
  });

  describe('reads', () => {
    it('svc_get_task returns the full record; a missing or foreign task is not found', async () => {
      const uuid = await seedTask({ description: 'Body', priority: 'high', storyPoints: 3 });
      const r = await world.ok(dev, 'svc_get_task', { taskUuid: uuid });
      expect(sortedKeys(r)).toEqual(keysOf(TASK_RECORD_KEYS));
      expect(sortedKeys(r.acceptanceCriteriaItems[0])).toEqual(keysOf(CRITERION_KEYS));
      expect(r).toMatchObject({ uuid, projectUuid: projectUuid, status: 'open', priority: 'high', storyPoints: 3, description: 'Body', assignee: null });
      expect(r.createdBy).toEqual({ type: 'user', uuid: owner.uuid, name: 'Owner' });
      expect(r.acceptance).toEqual({ passed: 0, total: 3 });
      await refused(dev, 'svc_get_task', { taskUuid: randomUUID() }, 'NOT_FOUND', 'Task not found');
      await refused(foreign.admin, 'svc_get_task', { taskUuid: uuid }, 'NOT_FOUND', 'Task not found');
    });

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

  describe('svc_create_tasks', () => {
    it('creates a batch in input order with draft and existing dependencies, all in one go', async () => {
      const project = await world.project(owner);
      const existing = await seedTask({ title: 'existing' }, project);
      const res = await world.ok(dev, 'svc_create_tasks', {
        projectUuid: project,
        tasks: [
          { title: 'First', draftUuid: 'a', priority: 'high', storyPoints: 5, acceptanceCriteriaItems: [{ description: 'one' }, { description: 'two', required: false }] },
          {
            title: 'Second',
            description: 'Depends',
            dependsOnDraftUuids: ['a'],
            dependsOnTaskUuids: [existing],
            acceptanceCriteriaItems: [{ description: 'three' }],
            references: [{ type: 'docs', url: 'https://example.com/x', title: 'Doc' }],
          },
        ],
      });
      expect(res.tasks.map((t: { title: string }) => t.title)).toEqual(['First', 'Second']);
      expect(sortedKeys(res.tasks[0])).toEqual(keysOf(TASK_SUMMARY_KEYS));
      expect(res.tasks[0]).toMatchObject({ status: 'open', priority: 'high', storyPoints: 5, acceptance: { passed: 0, total: 2 }, projectUuid: project });
      const [first, second] = res.tasks.map((t: { uuid: string }) => t.uuid);
      const events = takeEvents();
      expect(events).toHaveLength(3);
      expect(events).toEqual(
        expect.arrayContaining([taskEvent(first, 'created', project), taskEvent(second, 'created', project), taskEvent(existing, 'updated', project)]),
      );
      const record = await world.ok(dev, 'svc_get_task', { taskUuid: second });
      expect(new Set(record.dependsOn.map((d: { uuid: string }) => d.uuid))).toEqual(new Set([first, existing]));
      expect(record.references).toHaveLength(1);
      expect(record.createdBy).toEqual({ type: 'agent', uuid: dev.uuid, name: 'Dev' });
    });

    it('links tasks to an approved proposal of the same project', async () => {
      const proposal = await world.tasks.proposal(projectUuid, owner, 'approved');
      const res = await world.ok(dev, 'svc_create_tasks', { projectUuid: projectUuid, proposalUuid: proposal, tasks: [{ title: 'P', acceptanceCriteriaItems: [{ description: 'x' }] }] });
      expect(res.tasks[0].proposalUuid).toBe(proposal);
      expect(takeEvents()).toEqual([taskEvent(res.tasks[0].uuid, 'created')]);
    });

    it('refuses the whole batch on any problem and writes nothing', async () => {
      const otherProject = await world.project(owner);
      const draft = await world.tasks.proposal(projectUuid, owner, 'draft');
      const elsewhere = await world.tasks.proposal(otherProject, owner, 'approved');
      const otherProjectTask = await seedTask({}, otherProject);
      const foreignTask = await seedTask({}, foreign.projectUuid, foreign.owner);
      const good = { title: 'Good', acceptanceCriteriaItems: [{ description: 'ok' }] };
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [{ projectUuid: randomUUID(), tasks: [good] }, 'NOT_FOUND', 'Project not found'],
        [{ projectUuid: foreign.projectUuid, tasks: [good] }, 'NOT_FOUND', 'Project not found'],
        [{ projectUuid: projectUuid, proposalUuid: randomUUID(), tasks: [good] }, 'NOT_FOUND', 'Proposal not found'],
        [{ projectUuid: projectUuid, proposalUuid: elsewhere, tasks: [good] }, 'NOT_FOUND', 'Proposal not found'],
        [{ projectUuid: projectUuid, proposalUuid: draft, tasks: [good] }, 'INVALID_STATE', 'Proposal is draft; create tasks requires approved'],
        [{ projectUuid: projectUuid, tasks: [good, { ...good, title: 'Dep', dependsOnTaskUuids: [randomUUID()] }] }, 'NOT_FOUND', 'Dependency task not found'],
        [{ projectUuid: projectUuid, tasks: [{ ...good, dependsOnTaskUuids: [foreignTask] }] }, 'NOT_FOUND', 'Dependency task not found'],
        [{ projectUuid: projectUuid, tasks: [{ ...good, dependsOnTaskUuids: [otherProjectTask] }] }, 'VALIDATION_ERROR', 'Tasks must belong to the same project'],
        [
          { projectUuid: projectUuid, tasks: [good, { title: 'Empty', acceptanceCriteriaItems: [{ description: '   ' }] }] },
          'VALIDATION_ERROR',
          'Task "Empty": At least one acceptance criterion with a non-empty description is required',
        ],
        [{ projectUuid: projectUuid, tasks: [{ ...good, dependsOnDraftUuids: ['zz'] }] }, 'VALIDATION_ERROR', 'Task "Good": Unknown draftUuid "zz"'],
        [
          { projectUuid: projectUuid, tasks: [{ ...good, title: 'A', draftUuid: 'a', dependsOnDraftUuids: ['b'] }, { ...good, title: 'B', draftUuid: 'b', dependsOnDraftUuids: ['a'] }] },
          'VALIDATION_ERROR',
          'Adding this dependency would create a cycle',
        ],
      ];
      const before = await count(`SELECT count(*)::int AS n FROM task`);
      for (const [args, code, message] of cases) await refused(dev, 'svc_create_tasks', args, code, message, [otherProjectTask]);
      expect(await count(`SELECT count(*)::int AS n FROM task`)).toBe(before);
      await refused(dev, 'svc_create_tasks', { projectUuid: projectUuid, tasks: [] }, 'VALIDATION_ERROR', 'Invalid arguments');
    });
  });

  describe('svc_update_task', () => {
    it('edits fields and criteria for any agent and emits one task update', async () => {
      const uuid = await seedTaskIn('assigned', dev.actor, { storyPoints: 2 });
      const r = await world.ok(dev2, 'svc_update_task', {
        taskUuid: uuid,
        title: 'Renamed',
        priority: 'low',
        storyPoints: null,
        acceptanceCriteriaItems: [{ description: 'only one' }],
      });
      expect(sortedKeys(r)).toEqual(keysOf(TASK_RECORD_KEYS));
      expect(r).toMatchObject({ title: 'Renamed', priority: 'low', storyPoints: null, status: 'assigned', acceptance: { passed: 0, total: 1 } });
      expect(r.acceptanceCriteriaItems.map((c: { description: string }) => c.description)).toEqual(['only one']);
      expect(takeEvents()).toEqual([taskEvent(uuid)]);
    });

    it('refuses an empty update, blank criteria and dependency rule breaks, unchanged', async () => {
      const uuid = await seedTask();
      const other = await seedTask({ dependsOnTaskUuids: [uuid] });
      await refused(dev, 'svc_update_task', { taskUuid: uuid }, 'VALIDATION_ERROR', 'Nothing to update', [uuid]);
      await refused(
        dev,
        'svc_update_task',
        { taskUuid: uuid, title: 'Changed', acceptanceCriteriaItems: [{ description: ' ' }] },
        'VALIDATION_ERROR',
        'At least one acceptance criterion with a non-empty description is required',
        [uuid],
      );
      await refused(dev, 'svc_update_task', { taskUuid: uuid, addDependsOn: [uuid] }, 'VALIDATION_ERROR', 'A task cannot depend on itself', [uuid]);
      await refused(dev, 'svc_update_task', { taskUuid: uuid, addDependsOn: [other] }, 'VALIDATION_ERROR', 'Adding this dependency would create a cycle', [uuid, other]);
      await refused(dev, 'svc_update_task', { taskUuid: uuid, addDependsOn: [randomUUID()] }, 'NOT_FOUND', 'Dependency task not found', [uuid]);
      await refused(dev, 'svc_update_task', { taskUuid: randomUUID(), title: 'x' }, 'NOT_FOUND', 'Task not found');
    });

    it('adds and removes dependencies with an update event for both ends', async () => {
      const a = await seedTask();
      const b = await seedTask();
      await world.ok(dev, 'svc_update_task', { taskUuid: a, addDependsOn: [b] });
      expect(takeEvents()).toEqual(expect.arrayContaining([taskEvent(a), taskEvent(b)]));
      expect((await world.ok(dev, 'svc_get_task', { taskUuid: b })).dependedBy.map((d: { uuid: string }) => d.uuid)).toEqual([a]);
      const r = await world.ok(dev, 'svc_update_task', { taskUuid: a, removeDependsOn: [b] });
      expect(r.dependsOn).toEqual([]);
      const events = takeEvents();
      expect(events).toHaveLength(2);
      expect(events).toEqual(expect.arrayContaining([taskEvent(a), taskEvent(b)]));
    });

    it('moves status for the assignee only, through the transition check', async () => {
      const uuid = await seedTaskIn('assigned', dev.actor);
      await refused(dev2, 'svc_update_task', { taskUuid: uuid, status: 'in_progress', title: 'Sneaky' }, 'FORBIDDEN', "Only the assignee can change this task's status", [uuid]);
      const early = await refused(dev, 'svc_update_task', { taskUuid: uuid, status: 'to_verify' }, 'INVALID_STATE', 'Task is assigned; submit requires in_progress', [uuid]);
      // The refusal names the tool that moves the task on (docs/tool-conventions.md §1.5).
      expect(early).toEqual({ code: 'INVALID_STATE', message: 'Task is assigned; submit requires in_progress', hints: ['Start it first: svc_update_task with status in_progress (the assignee only)'] });
      const r = await world.ok(dev, 'svc_update_task', { taskUuid: uuid, status: 'in_progress' });
      expect(r.status).toBe('in_progress');
      expect(takeEvents()).toEqual([taskEvent(uuid)]);
      expect((await world.ok(dev, 'svc_update_task', { taskUuid: uuid, status: 'to_verify' })).status).toBe('to_verify');
      expect((await world.ok(dev, 'svc_update_task', { taskUuid: uuid, status: 'in_progress' })).status).toBe('in_progress');
    });

    it('refuses to start a task with an unresolved prerequisite (BLOCKED with blockers)', async () => {
      const prereq = await seedTask({ title: 'Prereq' });
      const uuid = await seedTaskIn('assigned', dev.actor, { dependsOnTaskUuids: [prereq] });
      const err = await refused(dev, 'svc_update_task', { taskUuid: uuid, status: 'in_progress' }, 'BLOCKED', 'Cannot move to in_progress: 1 prerequisite(s) not done or closed', [
        uuid,
        prereq,
      ]);
      expect(err.blockers).toEqual([{ uuid: prereq, title: 'Prereq', status: 'open', assignee: null }]);
      // hints name each prerequisite's next step and where to follow it (docs/tool-conventions.md §1.5).
      expect(Object.keys(err)).toEqual(['code', 'message', 'blockers', 'hints']);
      expect(err.hints).toEqual([
        `Prerequisite "Prereq" (${prereq}) is open: it needs an assignee (svc_claim_task, or svc_pm_assign_task)`,
        'Follow the prerequisites with svc_get_task; svc_get_available_tasks lists work you can start now',
      ]);
    });

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
    it('svc_claim_task assigns the caller; claiming again or via the owner identity is a silent success', async () => {
      const uuid = await seedTask();
      const r = await world.ok(dev, 'svc_claim_task', { taskUuid: uuid });
      expect(sortedKeys(r)).toEqual(keysOf(TASK_RECORD_KEYS));
      expect(r.status).toBe('assigned');
      expect(r.assignee).toMatchObject({ type: 'agent', uuid: dev.uuid, name: 'Dev', assignedBy: { type: 'agent', uuid: dev.uuid, name: 'Dev' } });
      expect(r.hints).toBeUndefined();
      expect(takeEvents()).toEqual([taskEvent(uuid)]);
      const before = await world.tasks.snapshot(uuid);
      expect((await world.ok(dev, 'svc_claim_task', { taskUuid: uuid })).status).toBe('assigned');
      expect(await world.tasks.snapshot(uuid)).toEqual(before);
      expect(takeEvents()).toEqual([]);

      // The owner's task counts as the agent's own (identity rule).
      const owners = await seedTaskIn('in_progress', owner);
      expect((await world.ok(dev, 'svc_claim_task', { taskUuid: owners })).assignee.uuid).toBe(owner.uuid);
      expect(takeEvents()).toEqual([]);
    });

    it('svc_claim_task refuses held, closed, missing and foreign tasks', async () => {
      const held = await seedTaskIn('in_progress', dev.actor);
      const closed = await seedTaskIn('closed', dev.actor);
      await refused(dev2, 'svc_claim_task', { taskUuid: held }, 'INVALID_STATE', 'Task is assigned to someone else; claim requires open', [held]);
      await refused(dev2, 'svc_claim_task', { taskUuid: closed }, 'INVALID_STATE', 'Task is closed; claim requires open', [closed]);
      await refused(dev, 'svc_claim_task', { taskUuid: randomUUID() }, 'NOT_FOUND', 'Task not found');
      const foreignTask = await seedTask({}, foreign.projectUuid, foreign.owner);
      await refused(dev, 'svc_claim_task', { taskUuid: foreignTask }, 'NOT_FOUND', 'Task not found', [foreignTask]);
    });

    it('svc_claim_task hints at what blocks the task and what it unblocks', async () => {
      const a = await seedTask({ title: 'Alpha' });
      const b = await seedTask({ title: 'Beta', dependsOnTaskUuids: [a] });
      await seedTask({ title: 'Gamma', dependsOnTaskUuids: [b] });
      const r = await world.ok(dev, 'svc_claim_task', { taskUuid: b });
      expect(r.hints).toEqual(['BLOCKED: waiting for Alpha', 'UNBLOCKS: Gamma']);
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

    it('svc_release_task gives an unstarted task back, for its assignee only', async () => {
      const uuid = await seedTaskIn('assigned', dev.actor);
      await refused(dev2, 'svc_release_task', { taskUuid: uuid }, 'FORBIDDEN', 'Only the assignee can release this task', [uuid]);
      const r = await world.ok(dev, 'svc_release_task', { taskUuid: uuid });
      expect(r).toMatchObject({ status: 'open', assignee: null });
      expect(takeEvents()).toEqual([taskEvent(uuid)]);
      const started = await seedTaskIn('in_progress', dev.actor);
      await refused(dev, 'svc_release_task', { taskUuid: started }, 'INVALID_STATE', 'Task is in_progress; release requires assigned', [started]);
      await refused(dev, 'svc_release_task', { taskUuid: randomUUID() }, 'NOT_FOUND', 'Task not found');
    });

    it('svc_submit_for_verify moves in_progress to to_verify for the assignee', async () => {
      const uuid = await seedTaskIn('in_progress', dev.actor);
      await refused(dev2, 'svc_submit_for_verify', { taskUuid: uuid }, 'FORBIDDEN', 'Only the assignee can submit this task', [uuid]);
      await refused(dev, 'svc_submit_for_verify', { taskUuid: uuid, summary: 'x'.repeat(10_001) }, 'VALIDATION_ERROR', 'Invalid arguments', [uuid]);
      const r = await world.ok(dev, 'svc_submit_for_verify', { taskUuid: uuid, summary: 'Done it' });
      expect(r.status).toBe('to_verify');
      expect(takeEvents()).toEqual([taskEvent(uuid)]);
      expect((await world.tasks.activities(uuid)).at(-1)).toMatchObject({ action: 'submitted', value: { summary: 'Done it' } });
      const assigned = await seedTaskIn('assigned', dev.actor);
      const err = await refused(dev, 'svc_submit_for_verify', { taskUuid: assigned }, 'INVALID_STATE', 'Task is assigned; submit requires in_progress', [assigned]);
      expect(err.hints).toEqual(['Start it first: svc_update_task with status in_progress (the assignee only)']);
    });

    it('svc_report_criteria_self_check records the assignee\'s own marks', async () => {
      const uuid = await seedTaskIn('in_progress', dev.actor);
      const rec = await taskService.get(owner, { taskUuid: uuid });
      const marks = { taskUuid: uuid, criteria: [{ uuid: crit(rec, 0), devStatus: 'passed', devEvidence: 'see PR' }, { uuid: crit(rec, 1), devStatus: 'failed' }] };
      await refused(dev2, 'svc_report_criteria_self_check', marks, 'FORBIDDEN', 'Only the assignee can self-check this task', [uuid]);
      const other = await seedTask();
      const foreignCriterion = crit(await taskService.get(owner, { taskUuid: other }), 0);
      await refused(
        dev,
        'svc_report_criteria_self_check',
        { taskUuid: uuid, criteria: [{ uuid: foreignCriterion, devStatus: 'passed' }] },
        'VALIDATION_ERROR',
        `Criterion ${foreignCriterion} does not belong to this task`,
        [uuid],
      );
      const r = await world.ok(dev, 'svc_report_criteria_self_check', marks);
      expect(r.acceptanceCriteriaItems[0]).toMatchObject({ devStatus: 'passed', devEvidence: 'see PR', devMarkedBy: { type: 'agent', uuid: dev.uuid, name: 'Dev' }, status: 'pending' });
      expect(r.acceptanceCriteriaItems[1].devStatus).toBe('failed');
      expect(takeEvents()).toEqual([taskEvent(uuid)]);
      await world.ok(dev, 'svc_report_criteria_self_check', marks);
      expect(takeEvents()).toEqual([]);
      const done = await seedTaskIn('done', dev.actor);
      const doneCriterion = crit(await taskService.get(owner, { taskUuid: done }), 0);
      await refused(
        dev,
        'svc_report_criteria_self_check',
        { taskUuid: done, criteria: [{ uuid: doneCriterion, devStatus: 'passed' }] },
        'INVALID_STATE',
        'Task is done; self-check requires a task that is not done or closed',
        [done],
      );
    });

    it('svc_report_work stores the report as a comment and can move the task; any refusal writes nothing', async () => {
      const uuid = await seedTaskIn('assigned', dev.actor);
      await refused(dev2, 'svc_report_work', { taskUuid: uuid, report: 'Hi' }, 'FORBIDDEN', 'Only the assignee can report work on this task', [uuid]);
      await refused(dev, 'svc_report_work', { taskUuid: uuid, report: 'Hi', status: 'to_verify' }, 'INVALID_STATE', 'Task is assigned; submit requires in_progress', [uuid]);
      const prereq = await seedTask();
      const blocked = await seedTaskIn('assigned', dev.actor, { dependsOnTaskUuids: [prereq] });
      await refused(dev, 'svc_report_work', { taskUuid: blocked, report: 'Start', status: 'in_progress' }, 'BLOCKED', 'Cannot move to in_progress: 1 prerequisite(s) not done or closed', [blocked]);

      const r = await world.ok(dev, 'svc_report_work', { taskUuid: uuid, report: 'Started the work', status: 'in_progress' });
      expect(sortedKeys(r)).toEqual(['commentUuid', 'task']);
      expect(r.task.status).toBe('in_progress');
      expect(r.task.commentCount).toBe(1);
      const [comment] = await world.ds.query(`SELECT content, author_uuid FROM comment WHERE uuid = $1`, [r.commentUuid]);
      expect(comment).toEqual({ content: 'Started the work', author_uuid: dev.uuid });
      expect(takeEvents()).toEqual([taskEvent(uuid)]);
    });
  });

  describe('svc_pm_assign_task', () => {
    it('assigns to an agent with task:write, with hints; the same assignment again changes nothing', async () => {
      const a = await seedTask({ title: 'First step' });
      const uuid = await seedTask({ title: 'Second step', dependsOnTaskUuids: [a] });
      const r = await world.ok(pm, 'svc_pm_assign_task', { taskUuid: uuid, agentUuid: dev.uuid });
      expect(r.status).toBe('assigned');
      expect(r.assignee).toMatchObject({ type: 'agent', uuid: dev.uuid, assignedBy: { type: 'agent', uuid: pm.uuid, name: 'PM' } });
      expect(r.hints).toEqual(['BLOCKED: waiting for First step']);
      expect(takeEvents()).toEqual([taskEvent(uuid)]);
      const before = await world.tasks.snapshot(uuid);
      await world.ok(pm, 'svc_pm_assign_task', { taskUuid: uuid, agentUuid: dev.uuid });
      expect(await world.tasks.snapshot(uuid)).toEqual(before);
      expect(takeEvents()).toEqual([]);
      expect((await world.ok(pm, 'svc_pm_assign_task', { taskUuid: uuid, agentUuid: dev2.uuid })).assignee.uuid).toBe(dev2.uuid);
      expect(takeEvents()).toEqual([taskEvent(uuid)]);
      expect((await world.ok(pm, 'svc_pm_assign_task', { taskUuid: a, agentUuid: dev.uuid })).hints).toEqual(['UNBLOCKS: Second step']);
    });

    it('refuses missing tasks, unknown, archived or foreign agents and tasks past assigned', async () => {
      const uuid = await seedTask();
      const archived = await world.agent(companyUuid, ownerUser.uuid, { preset: 'developer_agent', name: 'Retired' });
      await world.seeding(AgentService).archive({ companyUuid, userUuid: null }, archived.uuid);
      await refused(pm, 'svc_pm_assign_task', { taskUuid: randomUUID(), agentUuid: dev.uuid }, 'NOT_FOUND', 'Task not found');
      for (const agentUuid of [randomUUID(), archived.uuid, foreign.admin.uuid]) {
        await refused(pm, 'svc_pm_assign_task', { taskUuid: uuid, agentUuid }, 'NOT_FOUND', 'Agent not found', [uuid]);
      }
      const started = await seedTaskIn('in_progress', dev.actor);
      await refused(pm, 'svc_pm_assign_task', { taskUuid: started, agentUuid: dev2.uuid }, 'INVALID_STATE', 'Task is in_progress; assign requires open or assigned', [started]);
    });
  });

  describe('admin tools', () => {
    it('svc_admin_verify_task needs to_verify and every required criterion passed', async () => {
      const uuid = await seedTaskIn('to_verify', dev.actor);
      const err = await refused(
        admin,
        'svc_admin_verify_task',
        { taskUuid: uuid },
        'CRITERIA_NOT_PASSED',
        'Not all required acceptance criteria are passed (required 2, passed 0, failed 0, pending 2)',
        [uuid],
      );
      expect(err.acceptanceSummary).toMatchObject({ total: 3, required: 2, requiredPassed: 0, requiredPending: 2 });
      const rec = await taskService.get(owner, { taskUuid: uuid });
      await taskService.markCriteria(owner, { taskUuid: uuid, criteria: [0, 1].map((i) => ({ uuid: crit(rec, i), status: 'passed' })) });
      takeEvents();
      expect((await world.ok(admin, 'svc_admin_verify_task', { taskUuid: uuid })).status).toBe('done');
      expect(takeEvents()).toEqual([taskEvent(uuid)]);
      const started = await seedTaskIn('in_progress', dev.actor);
      const early = await refused(admin, 'svc_admin_verify_task', { taskUuid: started }, 'INVALID_STATE', 'Task is in_progress; verify requires to_verify', [started]);
      expect(early.hints).toEqual(['Submit it for verification: svc_submit_for_verify (the assignee only)']);
      await refused(admin, 'svc_admin_verify_task', { taskUuid: randomUUID() }, 'NOT_FOUND', 'Task not found');
    });

    it('svc_admin_reopen_task sends to_verify back to work, resetting marks; BLOCKED unless force', async () => {
      const uuid = await seedTaskIn('to_verify', dev.actor);
      const rec = await taskService.get(owner, { taskUuid: uuid });
      await taskService.markCriteria(owner, { taskUuid: uuid, criteria: [{ uuid: crit(rec, 0), status: 'failed', evidence: 'broken' }] });
      takeEvents();
      const r = await world.ok(admin, 'svc_admin_reopen_task', { taskUuid: uuid });
      expect(r.status).toBe('in_progress');
      expect(r.acceptanceCriteriaItems[0]).toMatchObject({ status: 'pending', evidence: null, markedBy: null });
      expect(takeEvents()).toEqual([taskEvent(uuid)]);

      const prereq = await seedTask();
      const blocked = await seedTaskIn('to_verify', dev.actor);
      await taskService.update(owner, { taskUuid: blocked, addDependsOn: [prereq] });
      takeEvents();
      const err = await refused(admin, 'svc_admin_reopen_task', { taskUuid: blocked }, 'BLOCKED', 'Cannot move to in_progress: 1 prerequisite(s) not done or closed', [blocked]);
      expect(err.hints).toEqual([expect.stringContaining(`(${prereq}) is open`), expect.stringContaining('svc_get_task'), 'svc_admin_reopen_task with force: true reopens it anyway']);
      expect((await world.ok(admin, 'svc_admin_reopen_task', { taskUuid: blocked, force: true })).status).toBe('in_progress');
      expect(takeEvents()).toEqual([taskEvent(blocked)]);
      const assigned = await seedTaskIn('assigned', dev.actor);
      await refused(admin, 'svc_admin_reopen_task', { taskUuid: assigned }, 'INVALID_STATE', 'Task is assigned; reopen requires to_verify', [assigned]);
      await refused(admin, 'svc_admin_reopen_task', { taskUuid: randomUUID() }, 'NOT_FOUND', 'Task not found');
    });

    it('svc_admin_close_task closes from any status but closed', async () => {
      const uuid = await seedTaskIn('in_progress', dev.actor);
      const session = await sessionService.create(dev.actor, { name: 'S' });
      await sessionService.checkinTask(dev.actor, { sessionUuid: session.uuid, taskUuid: uuid });
      takeEvents();
      const r = await world.ok(admin, 'svc_admin_close_task', { taskUuid: uuid, reason: 'Not needed' });
      expect(r.status).toBe('closed');
      expect(r.activeSessions).toEqual([]);
      expect(takeEvents()).toEqual([taskEvent(uuid)]);
      expect((await world.tasks.activities(uuid)).at(-1)).toMatchObject({ action: 'closed', value: { reason: 'Not needed' } });
      await refused(admin, 'svc_admin_close_task', { taskUuid: uuid }, 'INVALID_STATE', 'Task is closed; close requires not closed', [uuid]);
      await refused(admin, 'svc_admin_close_task', { taskUuid: randomUUID() }, 'NOT_FOUND', 'Task not found');
    });

    it('svc_mark_acceptance_criteria marks with evidence; repeats change nothing; closed tasks are refused', async () => {
      const uuid = await seedTaskIn('to_verify', dev.actor);
      const rec = await taskService.get(owner, { taskUuid: uuid });
      const args = { taskUuid: uuid, criteria: [{ uuid: crit(rec, 0), status: 'passed', evidence: 'CI green' }, { uuid: crit(rec, 1), status: 'failed' }] };
      const r = await world.ok(admin, 'svc_mark_acceptance_criteria', args);
      expect(r.acceptanceCriteriaItems[0]).toMatchObject({ status: 'passed', evidence: 'CI green', markedBy: { type: 'agent', uuid: admin.uuid, name: 'Admin' } });
      expect(r.acceptanceStatus).toBe('failed');
      expect(r.acceptance).toEqual({ passed: 1, total: 3 });
      expect(takeEvents()).toEqual([taskEvent(uuid)]);
      await world.ok(admin, 'svc_mark_acceptance_criteria', args);
      expect(takeEvents()).toEqual([]);
      const other = await seedTask();
      const alien = crit(await taskService.get(owner, { taskUuid: other }), 0);
      await refused(admin, 'svc_mark_acceptance_criteria', { taskUuid: uuid, criteria: [{ uuid: alien, status: 'passed' }] }, 'VALIDATION_ERROR', `Criterion ${alien} does not belong to this task`, [
        uuid,
      ]);
      const closed = await seedTaskIn('closed', dev.actor);
      const closedCriterion = crit(await taskService.get(owner, { taskUuid: closed }), 0);
      await refused(
        admin,
        'svc_mark_acceptance_criteria',
        { taskUuid: closed, criteria: [{ uuid: closedCriterion, status: 'passed' }] },
        'INVALID_STATE',
        'Task is closed; marking criteria requires a task that is not closed',
        [closed],
      );
    });

    it('svc_admin_delete_task deletes the task and updates its neighbours', async () => {
      const before = await seedTask();
      const uuid = await seedTask({ dependsOnTaskUuids: [before] });
      const after = await seedTask({ dependsOnTaskUuids: [uuid] });
      expect(await world.ok(admin, 'svc_admin_delete_task', { taskUuid: uuid })).toEqual({ uuid, deleted: true });
      const events = takeEvents();
      expect(events).toHaveLength(3);
      expect(events).toEqual(expect.arrayContaining([taskEvent(uuid, 'deleted'), taskEvent(before), taskEvent(after)]));
      await refused(admin, 'svc_get_task', { taskUuid: uuid }, 'NOT_FOUND', 'Task not found');
      expect((await world.ok(admin, 'svc_get_task', { taskUuid: after })).dependsOn).toEqual([]);
      await refused(admin, 'svc_admin_delete_task', { taskUuid: uuid }, 'NOT_FOUND', 'Task not found');
    });
  });

  it('treats another company\'s task as not found for every task tool', async () => {
    const uuid = await seedTaskIn('to_verify', dev.actor);
    const criterion = crit(await taskService.get(owner, { taskUuid: uuid }), 0);
    const calls: Array<[string, Record<string, unknown>]> = [
      ['svc_get_task', {}],
      ['svc_update_task', { title: 'x' }],
      ['svc_claim_task', {}],
      ['svc_release_task', {}],
      ['svc_submit_for_verify', {}],
      ['svc_report_criteria_self_check', { criteria: [{ uuid: criterion, devStatus: 'passed' }] }],
      ['svc_report_work', { report: 'x' }],
      ['svc_pm_assign_task', { agentUuid: foreign.admin.uuid }],
      ['svc_admin_verify_task', {}],
      ['svc_admin_reopen_task', {}],
      ['svc_admin_close_task', {}],
      ['svc_mark_acceptance_criteria', { criteria: [{ uuid: criterion, status: 'passed' }] }],
      ['svc_admin_delete_task', {}],
    ];
    for (const [tool, extra] of calls) await refused(foreign.admin, tool, { taskUuid: uuid, ...extra }, 'NOT_FOUND', 'Task not found', [uuid]);
    await refused(foreign.admin, 'svc_list_tasks', { projectUuid: projectUuid }, 'NOT_FOUND', 'Project not found');
  });
});
