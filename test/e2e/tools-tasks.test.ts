// Scenarios REST and MCP share (create, read, update, transitions, criteria, work reports, delete, tenancy) are in tasks-shared.test.ts.
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../src/shared/auth/actor.js';
import type { RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { RESULT_CAP_BYTES } from '../../src/modules/tool-kit/tool-result.js';
import { SessionService } from '../../src/modules/sessions/session.service.js';
import { TaskService, type NewTaskInput, type TaskStatus } from '../../src/modules/tasks/index.js';
import type { SeededUser } from '../factories/identity.factory.js';
import { expectRefused, keysOf, sortedKeys, TASK_SUMMARY_KEYS } from '../utils/mcp-expect.js';
import { userActor, World, type WorldAgent } from '../utils/world.js';

/** Task tools (docs/tool-conventions.md §5.1, §5.2, §5.4, §5.6 assign, §5.8) through the official SDK client over HTTP: what only MCP has. */
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
