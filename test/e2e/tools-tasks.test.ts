import { randomUUID } from 'node:crypto';
import { RESULT_CAP_BYTES } from '../../src/modules/tool-kit/tool-result.js';
import { AgentService } from '../../src/modules/identity/index.js';
import { CRITERION_KEYS, keysOf, McpWorld, sortedKeys, TASK_RECORD_KEYS, TASK_SUMMARY_KEYS, type McpAgent } from '../utils/mcp-world.js';

/** Task tools (docs/tool-conventions.md §5.1, §5.2, §5.4, §5.6 assign, §5.8) through the official SDK client over HTTP. */
describe('task tools (e2e)', () => {
  let w: McpWorld;
  const count = async (sql: string, params: unknown[] = []): Promise<number> => (await w.app.db.dataSource.query(sql, params))[0].n;
  const crit = (r: { acceptanceCriteriaItems: Array<{ uuid: string }> }, i: number): string => r.acceptanceCriteriaItems[i].uuid;

  beforeAll(async () => {
    w = await McpWorld.start();
  }, 60_000);
  afterAll(() => w.close());
  beforeEach(() => w.takeEvents());

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
      const { tools } = await w.admin.client.listTools();
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
      const names = (await w.dev.client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['svc_get_task', 'svc_create_tasks', 'svc_claim_task', 'svc_report_work']));
      for (const hidden of ['svc_pm_assign_task', 'svc_admin_verify_task', 'svc_admin_reopen_task', 'svc_admin_close_task', 'svc_mark_acceptance_criteria', 'svc_admin_delete_task']) {
        expect(names).not.toContain(hidden);
      }
      expect((await w.pm.client.listTools()).tools.map((t) => t.name)).toContain('svc_pm_assign_task');
      const task = await w.task();
      await expect(w.dev.client.callTool({ name: 'svc_admin_delete_task', arguments: { taskUuid: task } })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Unknown tool: svc_admin_delete_task'),
      });
      await expect(w.dev.client.callTool({ name: 'svc_pm_assign_task', arguments: { taskUuid: task, agentUuid: w.dev.uuid } })).rejects.toMatchObject({ code: -32602 });
      expect(await count(`SELECT count(*)::int AS n FROM task WHERE uuid = $1`, [task])).toBe(1);
      expect(w.takeEvents()).toEqual([]);
    });
  });

  describe('argument validation', () => {
    it('answers a wrong type, an unknown argument and a malformed uuid with every problem listed', async () => {
      const err = await w.refused(w.dev, 'svc_claim_task', { taskUuid: 'not-a-uuid', extra: true }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(err.details).toEqual(
        expect.arrayContaining([
          { path: 'taskUuid', message: expect.any(String) },
          { path: 'extra', message: 'should not exist' },
        ]),
      );
      const typed = await w.refused(w.dev, 'svc_get_task', { taskUuid: 42 }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(typed.details).toEqual([{ path: 'taskUuid', message: expect.any(String) }]);
      const task = await w.taskIn('assigned', w.dev.actor);
      const nested = await w.refused(
        w.dev,
        'svc_report_criteria_self_check',
        { taskUuid: task, criteria: [{ uuid: randomUUID(), devStatus: 'maybe' }] },
        'VALIDATION_ERROR',
        'Invalid arguments',
        [task],
      );
      expect(nested.details).toEqual([{ path: 'criteria.0.devStatus', message: expect.any(String) }]);
      const missing = await w.refused(w.dev, 'svc_create_tasks', { projectUuid: w.projectUuid, tasks: [{ title: 'x' }] }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(missing.details).toEqual([{ path: 'tasks.0.acceptanceCriteriaItems', message: expect.any(String) }]);
    });

    it('rejects out-of-range paging and too many proposal filters', async () => {
      for (const args of [{ pageSize: 101 }, { page: 0 }, { pageSize: 1.5 }, { proposalUuids: Array.from({ length: 21 }, () => randomUUID()) }, { status: 'bogus' }]) {
        await w.refused(w.dev, 'svc_list_tasks', { projectUuid: w.projectUuid, ...args }, 'VALIDATION_ERROR', 'Invalid arguments');
      }
    });
  });

  describe('reads', () => {
    it('svc_get_task returns the full record; a missing or foreign task is not found', async () => {
      const uuid = await w.task({ description: 'Body', priority: 'high', storyPoints: 3 });
      const r = await w.ok(w.dev, 'svc_get_task', { taskUuid: uuid });
      expect(sortedKeys(r)).toEqual(keysOf(TASK_RECORD_KEYS));
      expect(sortedKeys(r.acceptanceCriteriaItems[0])).toEqual(keysOf(CRITERION_KEYS));
      expect(r).toMatchObject({ uuid, projectUuid: w.projectUuid, status: 'open', priority: 'high', storyPoints: 3, description: 'Body', assignee: null });
      expect(r.createdBy).toEqual({ type: 'user', uuid: w.owner.uuid, name: 'Owner' });
      expect(r.acceptance).toEqual({ passed: 0, total: 3 });
      await w.refused(w.dev, 'svc_get_task', { taskUuid: randomUUID() }, 'NOT_FOUND', 'Task not found');
      await w.refused(w.foreign.admin, 'svc_get_task', { taskUuid: uuid }, 'NOT_FOUND', 'Task not found');
    });

    it('svc_list_tasks orders by priority then newest, filters and pages', async () => {
      const project = await w.project(w.owner);
      const proposal = await w.rows.proposal(project, w.owner, 'approved');
      const low = await w.task({ title: 'low', priority: 'low' }, project);
      const high1 = await w.task({ title: 'high1', priority: 'high' }, project);
      const med = await w.task({ title: 'med', priority: 'medium' }, project);
      const high2 = await w.task({ title: 'high2', priority: 'high' }, project);
      const { tasks: fromProposal } = await w.taskService.createTasks(w.owner, {
        projectUuid: project,
        proposalUuid: proposal,
        tasks: [{ title: 'prop', priority: 'low', acceptanceCriteriaItems: [{ description: 'x' }] }],
      });
      await w.taskService.claim(w.dev.actor, { taskUuid: med });
      w.takeEvents();

      const all = await w.ok(w.dev, 'svc_list_tasks', { projectUuid: project });
      expect(all.tasks.map((t: { title: string }) => t.title)).toEqual(['high2', 'high1', 'med', 'prop', 'low']);
      expect(all).toMatchObject({ page: 1, pageSize: 20, total: 5 });
      expect(all.truncated).toBeUndefined();
      expect(sortedKeys(all.tasks[0])).toEqual(keysOf(TASK_SUMMARY_KEYS));

      expect((await w.ok(w.dev, 'svc_list_tasks', { projectUuid: project, status: 'assigned' })).tasks.map((t: { uuid: string }) => t.uuid)).toEqual([med]);
      expect((await w.ok(w.dev, 'svc_list_tasks', { projectUuid: project, priority: 'high' })).tasks.map((t: { uuid: string }) => t.uuid)).toEqual([high2, high1]);
      const byProposal = await w.ok(w.dev, 'svc_list_tasks', { projectUuid: project, proposalUuids: [proposal] });
      expect(byProposal.tasks.map((t: { uuid: string }) => t.uuid)).toEqual([fromProposal[0].uuid]);
      expect(byProposal.tasks[0].proposalUuid).toBe(proposal);
      const page2 = await w.ok(w.dev, 'svc_list_tasks', { projectUuid: project, page: 2, pageSize: 2 });
      expect(page2).toMatchObject({ page: 2, pageSize: 2, total: 5 });
      expect(page2.tasks.map((t: { uuid: string }) => t.uuid)).toEqual([med, fromProposal[0].uuid]);
      expect(low).toBeDefined();

      await w.refused(w.dev, 'svc_list_tasks', { projectUuid: randomUUID() }, 'NOT_FOUND', 'Project not found');
      await w.refused(w.dev, 'svc_list_tasks', { projectUuid: w.foreign.projectUuid }, 'NOT_FOUND', 'Project not found');
    });

    it('svc_get_available_tasks lists open tasks with every prerequisite done or closed; svc_get_unblocked_tasks open/assigned ones', async () => {
      const project = await w.project(w.owner);
      const make = (title: string, extra: Record<string, unknown> = {}): Promise<string> => w.task({ title, ...extra }, project);
      const doneDep = await make('doneDep');
      const openDep = await make('openDep');
      const free = await make('free');
      const blocked = await make('blocked', { dependsOnTaskUuids: [openDep] });
      const afterDone = await make('afterDone', { dependsOnTaskUuids: [doneDep] });
      const mine = await make('mine');
      const started = await make('started');
      for (const t of [mine, started]) await w.taskService.claim(w.dev.actor, { taskUuid: t });
      await w.taskService.update(w.dev.actor, { taskUuid: started, status: 'in_progress' });
      await w.taskService.close(w.owner, { taskUuid: doneDep });
      w.takeEvents();

      // `blocked` waits for an open prerequisite: left out, and not counted (docs/tool-conventions.md §5.1).
      const available = await w.ok(w.dev, 'svc_get_available_tasks', { projectUuid: project });
      expect(new Set(available.tasks.map((t: { uuid: string }) => t.uuid))).toEqual(new Set([openDep, free, afterDone]));
      expect(available.total).toBe(3);
      const unblocked = await w.ok(w.dev, 'svc_get_unblocked_tasks', { projectUuid: project });
      expect(new Set(unblocked.tasks.map((t: { uuid: string }) => t.uuid))).toEqual(new Set([openDep, free, afterDone, mine]));
      // A prerequisite under verification still blocks; once it is done the task becomes available, in list order.
      await w.taskService.claim(w.dev.actor, { taskUuid: openDep });
      await w.taskService.update(w.dev.actor, { taskUuid: openDep, status: 'in_progress' });
      await w.taskService.submitForVerify(w.dev.actor, { taskUuid: openDep });
      const whileVerifying = await w.ok(w.dev, 'svc_get_available_tasks', { projectUuid: project });
      expect({ uuids: new Set(whileVerifying.tasks.map((t: { uuid: string }) => t.uuid)), total: whileVerifying.total }).toEqual({ uuids: new Set([free, afterDone]), total: 2 });
      const r = await w.taskService.get(w.owner, { taskUuid: openDep });
      await w.taskService.markCriteria(w.owner, { taskUuid: openDep, criteria: r.acceptanceCriteriaItems.map((c) => ({ uuid: c.uuid, status: 'passed' as const })) });
      await w.taskService.verify(w.owner, { taskUuid: openDep });
      const after = await w.ok(w.dev, 'svc_get_available_tasks', { projectUuid: project });
      const open = await w.ok(w.dev, 'svc_list_tasks', { projectUuid: project, status: 'open' });
      expect(after.tasks.map((t: { uuid: string }) => t.uuid)).toEqual(open.tasks.map((t: { uuid: string }) => t.uuid));
      expect(new Set(after.tasks.map((t: { uuid: string }) => t.uuid))).toEqual(new Set([free, blocked, afterDone]));
      const page = await w.ok(w.dev, 'svc_get_available_tasks', { projectUuid: project, pageSize: 1, page: 2 });
      expect({ uuids: page.tasks.map((t: { uuid: string }) => t.uuid), total: page.total }).toEqual({ uuids: [after.tasks[1].uuid], total: 3 });
      for (const tool of ['svc_get_available_tasks', 'svc_get_unblocked_tasks']) {
        await w.refused(w.dev, tool, { projectUuid: randomUUID() }, 'NOT_FOUND', 'Project not found');
        await w.refused(w.dev, tool, { projectUuid: w.foreign.projectUuid }, 'NOT_FOUND', 'Project not found');
      }
    });

    it('cuts a list above 64 KiB from the tail, marks it truncated and keeps the total', async () => {
      const project = await w.project(w.owner);
      const title = (i: number): string => `${String(i).padStart(3, '0')}${'€'.repeat(197)}`;
      for (let batch = 0; batch < 2; batch++) {
        await w.taskService.createTasks(w.owner, {
          projectUuid: project,
          tasks: Array.from({ length: 50 }, (_, i) => ({ title: title(batch * 50 + i), acceptanceCriteriaItems: [{ description: 'x' }] })),
        });
      }
      w.takeEvents();
      const res = (await w.dev.client.callTool({ name: 'svc_list_tasks', arguments: { projectUuid: project, pageSize: 100 } })) as { content: Array<{ text: string }> };
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
        const part = await w.ok(w.dev, 'svc_list_tasks', { projectUuid: project, page, pageSize: 20 });
        expect(part.truncated).toBeUndefined();
        full.push(...part.tasks.map((t: { uuid: string }) => t.uuid));
      }
      expect(out.tasks.map((t: { uuid: string }) => t.uuid)).toEqual(full.slice(0, out.tasks.length));
    });
  });

  describe('svc_create_tasks', () => {
    it('creates a batch in input order with draft and existing dependencies, all in one go', async () => {
      const project = await w.project(w.owner);
      const existing = await w.task({ title: 'existing' }, project);
      const res = await w.ok(w.dev, 'svc_create_tasks', {
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
      const events = w.takeEvents();
      expect(events).toHaveLength(3);
      expect(events).toEqual(
        expect.arrayContaining([w.taskEvent(first, 'created', project), w.taskEvent(second, 'created', project), w.taskEvent(existing, 'updated', project)]),
      );
      const record = await w.ok(w.dev, 'svc_get_task', { taskUuid: second });
      expect(new Set(record.dependsOn.map((d: { uuid: string }) => d.uuid))).toEqual(new Set([first, existing]));
      expect(record.references).toHaveLength(1);
      expect(record.createdBy).toEqual({ type: 'agent', uuid: w.dev.uuid, name: 'Dev' });
    });

    it('links tasks to an approved proposal of the same project', async () => {
      const proposal = await w.rows.proposal(w.projectUuid, w.owner, 'approved');
      const res = await w.ok(w.dev, 'svc_create_tasks', { projectUuid: w.projectUuid, proposalUuid: proposal, tasks: [{ title: 'P', acceptanceCriteriaItems: [{ description: 'x' }] }] });
      expect(res.tasks[0].proposalUuid).toBe(proposal);
      expect(w.takeEvents()).toEqual([w.taskEvent(res.tasks[0].uuid, 'created')]);
    });

    it('refuses the whole batch on any problem and writes nothing', async () => {
      const otherProject = await w.project(w.owner);
      const draft = await w.rows.proposal(w.projectUuid, w.owner, 'draft');
      const elsewhere = await w.rows.proposal(otherProject, w.owner, 'approved');
      const otherProjectTask = await w.task({}, otherProject);
      const foreignTask = await w.task({}, w.foreign.projectUuid, w.foreign.owner);
      const good = { title: 'Good', acceptanceCriteriaItems: [{ description: 'ok' }] };
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [{ projectUuid: randomUUID(), tasks: [good] }, 'NOT_FOUND', 'Project not found'],
        [{ projectUuid: w.foreign.projectUuid, tasks: [good] }, 'NOT_FOUND', 'Project not found'],
        [{ projectUuid: w.projectUuid, proposalUuid: randomUUID(), tasks: [good] }, 'NOT_FOUND', 'Proposal not found'],
        [{ projectUuid: w.projectUuid, proposalUuid: elsewhere, tasks: [good] }, 'NOT_FOUND', 'Proposal not found'],
        [{ projectUuid: w.projectUuid, proposalUuid: draft, tasks: [good] }, 'INVALID_STATE', 'Proposal is draft; create tasks requires approved'],
        [{ projectUuid: w.projectUuid, tasks: [good, { ...good, title: 'Dep', dependsOnTaskUuids: [randomUUID()] }] }, 'NOT_FOUND', 'Dependency task not found'],
        [{ projectUuid: w.projectUuid, tasks: [{ ...good, dependsOnTaskUuids: [foreignTask] }] }, 'NOT_FOUND', 'Dependency task not found'],
        [{ projectUuid: w.projectUuid, tasks: [{ ...good, dependsOnTaskUuids: [otherProjectTask] }] }, 'VALIDATION_ERROR', 'Tasks must belong to the same project'],
        [
          { projectUuid: w.projectUuid, tasks: [good, { title: 'Empty', acceptanceCriteriaItems: [{ description: '   ' }] }] },
          'VALIDATION_ERROR',
          'Task "Empty": At least one acceptance criterion with a non-empty description is required',
        ],
        [{ projectUuid: w.projectUuid, tasks: [{ ...good, dependsOnDraftUuids: ['zz'] }] }, 'VALIDATION_ERROR', 'Task "Good": Unknown draftUuid "zz"'],
        [
          { projectUuid: w.projectUuid, tasks: [{ ...good, title: 'A', draftUuid: 'a', dependsOnDraftUuids: ['b'] }, { ...good, title: 'B', draftUuid: 'b', dependsOnDraftUuids: ['a'] }] },
          'VALIDATION_ERROR',
          'Adding this dependency would create a cycle',
        ],
      ];
      const before = await count(`SELECT count(*)::int AS n FROM task`);
      for (const [args, code, message] of cases) await w.refused(w.dev, 'svc_create_tasks', args, code, message, [otherProjectTask]);
      expect(await count(`SELECT count(*)::int AS n FROM task`)).toBe(before);
      await w.refused(w.dev, 'svc_create_tasks', { projectUuid: w.projectUuid, tasks: [] }, 'VALIDATION_ERROR', 'Invalid arguments');
    });
  });

  describe('svc_update_task', () => {
    it('edits fields and criteria for any agent and emits one task update', async () => {
      const uuid = await w.taskIn('assigned', w.dev.actor, { storyPoints: 2 });
      const r = await w.ok(w.dev2, 'svc_update_task', {
        taskUuid: uuid,
        title: 'Renamed',
        priority: 'low',
        storyPoints: null,
        acceptanceCriteriaItems: [{ description: 'only one' }],
      });
      expect(sortedKeys(r)).toEqual(keysOf(TASK_RECORD_KEYS));
      expect(r).toMatchObject({ title: 'Renamed', priority: 'low', storyPoints: null, status: 'assigned', acceptance: { passed: 0, total: 1 } });
      expect(r.acceptanceCriteriaItems.map((c: { description: string }) => c.description)).toEqual(['only one']);
      expect(w.takeEvents()).toEqual([w.taskEvent(uuid)]);
    });

    it('refuses an empty update, blank criteria and dependency rule breaks, unchanged', async () => {
      const uuid = await w.task();
      const other = await w.task({ dependsOnTaskUuids: [uuid] });
      await w.refused(w.dev, 'svc_update_task', { taskUuid: uuid }, 'VALIDATION_ERROR', 'Nothing to update', [uuid]);
      await w.refused(
        w.dev,
        'svc_update_task',
        { taskUuid: uuid, title: 'Changed', acceptanceCriteriaItems: [{ description: ' ' }] },
        'VALIDATION_ERROR',
        'At least one acceptance criterion with a non-empty description is required',
        [uuid],
      );
      await w.refused(w.dev, 'svc_update_task', { taskUuid: uuid, addDependsOn: [uuid] }, 'VALIDATION_ERROR', 'A task cannot depend on itself', [uuid]);
      await w.refused(w.dev, 'svc_update_task', { taskUuid: uuid, addDependsOn: [other] }, 'VALIDATION_ERROR', 'Adding this dependency would create a cycle', [uuid, other]);
      await w.refused(w.dev, 'svc_update_task', { taskUuid: uuid, addDependsOn: [randomUUID()] }, 'NOT_FOUND', 'Dependency task not found', [uuid]);
      await w.refused(w.dev, 'svc_update_task', { taskUuid: randomUUID(), title: 'x' }, 'NOT_FOUND', 'Task not found');
    });

    it('adds and removes dependencies with an update event for both ends', async () => {
      const a = await w.task();
      const b = await w.task();
      await w.ok(w.dev, 'svc_update_task', { taskUuid: a, addDependsOn: [b] });
      expect(w.takeEvents()).toEqual(expect.arrayContaining([w.taskEvent(a), w.taskEvent(b)]));
      expect((await w.ok(w.dev, 'svc_get_task', { taskUuid: b })).dependedBy.map((d: { uuid: string }) => d.uuid)).toEqual([a]);
      const r = await w.ok(w.dev, 'svc_update_task', { taskUuid: a, removeDependsOn: [b] });
      expect(r.dependsOn).toEqual([]);
      const events = w.takeEvents();
      expect(events).toHaveLength(2);
      expect(events).toEqual(expect.arrayContaining([w.taskEvent(a), w.taskEvent(b)]));
    });

    it('moves status for the assignee only, through the transition check', async () => {
      const uuid = await w.taskIn('assigned', w.dev.actor);
      await w.refused(w.dev2, 'svc_update_task', { taskUuid: uuid, status: 'in_progress', title: 'Sneaky' }, 'FORBIDDEN', "Only the assignee can change this task's status", [uuid]);
      const early = await w.refused(w.dev, 'svc_update_task', { taskUuid: uuid, status: 'to_verify' }, 'INVALID_STATE', 'Task is assigned; submit requires in_progress', [uuid]);
      // The refusal names the tool that moves the task on (docs/tool-conventions.md §1.5).
      expect(early).toEqual({ code: 'INVALID_STATE', message: 'Task is assigned; submit requires in_progress', hints: ['Start it first: svc_update_task with status in_progress (the assignee only)'] });
      const r = await w.ok(w.dev, 'svc_update_task', { taskUuid: uuid, status: 'in_progress' });
      expect(r.status).toBe('in_progress');
      expect(w.takeEvents()).toEqual([w.taskEvent(uuid)]);
      expect((await w.ok(w.dev, 'svc_update_task', { taskUuid: uuid, status: 'to_verify' })).status).toBe('to_verify');
      expect((await w.ok(w.dev, 'svc_update_task', { taskUuid: uuid, status: 'in_progress' })).status).toBe('in_progress');
    });

    it('refuses to start a task with an unresolved prerequisite (BLOCKED with blockers)', async () => {
      const prereq = await w.task({ title: 'Prereq' });
      const uuid = await w.taskIn('assigned', w.dev.actor, { dependsOnTaskUuids: [prereq] });
      const err = await w.refused(w.dev, 'svc_update_task', { taskUuid: uuid, status: 'in_progress' }, 'BLOCKED', 'Cannot move to in_progress: 1 prerequisite(s) not done or closed', [
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
      const uuid = await w.taskIn('assigned', w.dev.actor);
      const mine = await w.sessionService.create(w.dev.actor, { name: 'Worker' });
      const theirs = await w.sessionService.create(w.dev2.actor, { name: 'Theirs' });
      const closed = await w.sessionService.create(w.dev.actor, { name: 'Closed' });
      await w.sessionService.close(w.dev.actor, { sessionUuid: closed.uuid });
      await w.refused(w.dev, 'svc_update_task', { taskUuid: uuid, title: 'x', sessionUuid: randomUUID() }, 'NOT_FOUND', 'Session not found', [uuid]);
      await w.refused(w.dev, 'svc_update_task', { taskUuid: uuid, title: 'x', sessionUuid: theirs.uuid }, 'FORBIDDEN', 'Session belongs to another agent', [uuid]);
      await w.refused(w.dev, 'svc_update_task', { taskUuid: uuid, title: 'x', sessionUuid: closed.uuid }, 'INVALID_STATE', 'Session is closed; task update requires active', [uuid]);
      await w.ok(w.dev, 'svc_update_task', { taskUuid: uuid, status: 'in_progress', sessionUuid: mine.uuid });
      const last = (await w.rows.activities(uuid)).at(-1)!;
      expect({ session: last.session_uuid, name: last.session_name }).toEqual({ session: mine.uuid, name: 'Worker' });
      expect(w.takeEvents()).toEqual([w.taskEvent(uuid)]);
    });
  });

  describe('developer tools', () => {
    it('svc_claim_task assigns the caller; claiming again or via the owner identity is a silent success', async () => {
      const uuid = await w.task();
      const r = await w.ok(w.dev, 'svc_claim_task', { taskUuid: uuid });
      expect(sortedKeys(r)).toEqual(keysOf(TASK_RECORD_KEYS));
      expect(r.status).toBe('assigned');
      expect(r.assignee).toMatchObject({ type: 'agent', uuid: w.dev.uuid, name: 'Dev', assignedBy: { type: 'agent', uuid: w.dev.uuid, name: 'Dev' } });
      expect(r.hints).toBeUndefined();
      expect(w.takeEvents()).toEqual([w.taskEvent(uuid)]);
      const before = await w.rows.snapshot(uuid);
      expect((await w.ok(w.dev, 'svc_claim_task', { taskUuid: uuid })).status).toBe('assigned');
      expect(await w.rows.snapshot(uuid)).toEqual(before);
      expect(w.takeEvents()).toEqual([]);

      // The owner's task counts as the agent's own (identity rule).
      const owners = await w.taskIn('in_progress', w.owner);
      expect((await w.ok(w.dev, 'svc_claim_task', { taskUuid: owners })).assignee.uuid).toBe(w.owner.uuid);
      expect(w.takeEvents()).toEqual([]);
    });

    it('svc_claim_task refuses held, closed, missing and foreign tasks', async () => {
      const held = await w.taskIn('in_progress', w.dev.actor);
      const closed = await w.taskIn('closed', w.dev.actor);
      await w.refused(w.dev2, 'svc_claim_task', { taskUuid: held }, 'INVALID_STATE', 'Task is assigned to someone else; claim requires open', [held]);
      await w.refused(w.dev2, 'svc_claim_task', { taskUuid: closed }, 'INVALID_STATE', 'Task is closed; claim requires open', [closed]);
      await w.refused(w.dev, 'svc_claim_task', { taskUuid: randomUUID() }, 'NOT_FOUND', 'Task not found');
      const foreign = await w.task({}, w.foreign.projectUuid, w.foreign.owner);
      await w.refused(w.dev, 'svc_claim_task', { taskUuid: foreign }, 'NOT_FOUND', 'Task not found', [foreign]);
    });

    it('svc_claim_task hints at what blocks the task and what it unblocks', async () => {
      const a = await w.task({ title: 'Alpha' });
      const b = await w.task({ title: 'Beta', dependsOnTaskUuids: [a] });
      await w.task({ title: 'Gamma', dependsOnTaskUuids: [b] });
      const r = await w.ok(w.dev, 'svc_claim_task', { taskUuid: b });
      expect(r.hints).toEqual(['BLOCKED: waiting for Alpha', 'UNBLOCKS: Gamma']);
    });

    it('20 parallel claims by different agents: exactly one wins', async () => {
      const uuid = await w.task();
      const agents: McpAgent[] = [];
      for (let i = 0; i < 20; i++) agents.push(await w.agent(w.companyUuid, w.ownerUser.uuid, 'developer_agent', `Racer ${i}`));
      w.takeEvents();
      const results = await Promise.all(agents.map((a) => w.call(a, 'svc_claim_task', { taskUuid: uuid })));
      const winners = results.filter((r) => !r.isError);
      expect(winners).toHaveLength(1);
      for (const loser of results.filter((r) => r.isError)) {
        expect(loser.data.error).toEqual({ code: 'INVALID_STATE', message: 'Task is assigned to someone else; claim requires open', hints: [expect.stringContaining('svc_get_available_tasks')] });
      }
      const winner = agents[results.indexOf(winners[0])];
      const [row] = await w.app.db.dataSource.query(`SELECT status, assignee_uuid FROM task WHERE uuid = $1`, [uuid]);
      expect(row).toEqual({ status: 'assigned', assignee_uuid: winner.uuid });
      expect(w.takeEvents()).toEqual([w.taskEvent(uuid)]);
    });

    it('svc_release_task gives an unstarted task back, for its assignee only', async () => {
      const uuid = await w.taskIn('assigned', w.dev.actor);
      await w.refused(w.dev2, 'svc_release_task', { taskUuid: uuid }, 'FORBIDDEN', 'Only the assignee can release this task', [uuid]);
      const r = await w.ok(w.dev, 'svc_release_task', { taskUuid: uuid });
      expect(r).toMatchObject({ status: 'open', assignee: null });
      expect(w.takeEvents()).toEqual([w.taskEvent(uuid)]);
      const started = await w.taskIn('in_progress', w.dev.actor);
      await w.refused(w.dev, 'svc_release_task', { taskUuid: started }, 'INVALID_STATE', 'Task is in_progress; release requires assigned', [started]);
      await w.refused(w.dev, 'svc_release_task', { taskUuid: randomUUID() }, 'NOT_FOUND', 'Task not found');
    });

    it('svc_submit_for_verify moves in_progress to to_verify for the assignee', async () => {
      const uuid = await w.taskIn('in_progress', w.dev.actor);
      await w.refused(w.dev2, 'svc_submit_for_verify', { taskUuid: uuid }, 'FORBIDDEN', 'Only the assignee can submit this task', [uuid]);
      await w.refused(w.dev, 'svc_submit_for_verify', { taskUuid: uuid, summary: 'x'.repeat(10_001) }, 'VALIDATION_ERROR', 'Invalid arguments', [uuid]);
      const r = await w.ok(w.dev, 'svc_submit_for_verify', { taskUuid: uuid, summary: 'Done it' });
      expect(r.status).toBe('to_verify');
      expect(w.takeEvents()).toEqual([w.taskEvent(uuid)]);
      expect((await w.rows.activities(uuid)).at(-1)).toMatchObject({ action: 'submitted', value: { summary: 'Done it' } });
      const assigned = await w.taskIn('assigned', w.dev.actor);
      const err = await w.refused(w.dev, 'svc_submit_for_verify', { taskUuid: assigned }, 'INVALID_STATE', 'Task is assigned; submit requires in_progress', [assigned]);
      expect(err.hints).toEqual(['Start it first: svc_update_task with status in_progress (the assignee only)']);
    });

    it('svc_report_criteria_self_check records the assignee\'s own marks', async () => {
      const uuid = await w.taskIn('in_progress', w.dev.actor);
      const rec = await w.taskService.get(w.owner, { taskUuid: uuid });
      const marks = { taskUuid: uuid, criteria: [{ uuid: crit(rec, 0), devStatus: 'passed', devEvidence: 'see PR' }, { uuid: crit(rec, 1), devStatus: 'failed' }] };
      await w.refused(w.dev2, 'svc_report_criteria_self_check', marks, 'FORBIDDEN', 'Only the assignee can self-check this task', [uuid]);
      const other = await w.task();
      const foreignCriterion = crit(await w.taskService.get(w.owner, { taskUuid: other }), 0);
      await w.refused(
        w.dev,
        'svc_report_criteria_self_check',
        { taskUuid: uuid, criteria: [{ uuid: foreignCriterion, devStatus: 'passed' }] },
        'VALIDATION_ERROR',
        `Criterion ${foreignCriterion} does not belong to this task`,
        [uuid],
      );
      const r = await w.ok(w.dev, 'svc_report_criteria_self_check', marks);
      expect(r.acceptanceCriteriaItems[0]).toMatchObject({ devStatus: 'passed', devEvidence: 'see PR', devMarkedBy: { type: 'agent', uuid: w.dev.uuid, name: 'Dev' }, status: 'pending' });
      expect(r.acceptanceCriteriaItems[1].devStatus).toBe('failed');
      expect(w.takeEvents()).toEqual([w.taskEvent(uuid)]);
      await w.ok(w.dev, 'svc_report_criteria_self_check', marks);
      expect(w.takeEvents()).toEqual([]);
      const done = await w.taskIn('done', w.dev.actor);
      const doneCriterion = crit(await w.taskService.get(w.owner, { taskUuid: done }), 0);
      await w.refused(
        w.dev,
        'svc_report_criteria_self_check',
        { taskUuid: done, criteria: [{ uuid: doneCriterion, devStatus: 'passed' }] },
        'INVALID_STATE',
        'Task is done; self-check requires a task that is not done or closed',
        [done],
      );
    });

    it('svc_report_work stores the report as a comment and can move the task; any refusal writes nothing', async () => {
      const uuid = await w.taskIn('assigned', w.dev.actor);
      await w.refused(w.dev2, 'svc_report_work', { taskUuid: uuid, report: 'Hi' }, 'FORBIDDEN', 'Only the assignee can report work on this task', [uuid]);
      await w.refused(w.dev, 'svc_report_work', { taskUuid: uuid, report: 'Hi', status: 'to_verify' }, 'INVALID_STATE', 'Task is assigned; submit requires in_progress', [uuid]);
      const prereq = await w.task();
      const blocked = await w.taskIn('assigned', w.dev.actor, { dependsOnTaskUuids: [prereq] });
      await w.refused(w.dev, 'svc_report_work', { taskUuid: blocked, report: 'Start', status: 'in_progress' }, 'BLOCKED', 'Cannot move to in_progress: 1 prerequisite(s) not done or closed', [blocked]);

      const r = await w.ok(w.dev, 'svc_report_work', { taskUuid: uuid, report: 'Started the work', status: 'in_progress' });
      expect(sortedKeys(r)).toEqual(['commentUuid', 'task']);
      expect(r.task.status).toBe('in_progress');
      expect(r.task.commentCount).toBe(1);
      const [comment] = await w.app.db.dataSource.query(`SELECT content, author_uuid FROM comment WHERE uuid = $1`, [r.commentUuid]);
      expect(comment).toEqual({ content: 'Started the work', author_uuid: w.dev.uuid });
      expect(w.takeEvents()).toEqual([w.taskEvent(uuid)]);
    });
  });

  describe('svc_pm_assign_task', () => {
    it('assigns to an agent with task:write, with hints; the same assignment again changes nothing', async () => {
      const a = await w.task({ title: 'First step' });
      const uuid = await w.task({ title: 'Second step', dependsOnTaskUuids: [a] });
      const r = await w.ok(w.pm, 'svc_pm_assign_task', { taskUuid: uuid, agentUuid: w.dev.uuid });
      expect(r.status).toBe('assigned');
      expect(r.assignee).toMatchObject({ type: 'agent', uuid: w.dev.uuid, assignedBy: { type: 'agent', uuid: w.pm.uuid, name: 'PM' } });
      expect(r.hints).toEqual(['BLOCKED: waiting for First step']);
      expect(w.takeEvents()).toEqual([w.taskEvent(uuid)]);
      const before = await w.rows.snapshot(uuid);
      await w.ok(w.pm, 'svc_pm_assign_task', { taskUuid: uuid, agentUuid: w.dev.uuid });
      expect(await w.rows.snapshot(uuid)).toEqual(before);
      expect(w.takeEvents()).toEqual([]);
      expect((await w.ok(w.pm, 'svc_pm_assign_task', { taskUuid: uuid, agentUuid: w.dev2.uuid })).assignee.uuid).toBe(w.dev2.uuid);
      expect(w.takeEvents()).toEqual([w.taskEvent(uuid)]);
      expect((await w.ok(w.pm, 'svc_pm_assign_task', { taskUuid: a, agentUuid: w.dev.uuid })).hints).toEqual(['UNBLOCKS: Second step']);
    });

    it('refuses missing tasks, unknown, archived or foreign agents and tasks past assigned', async () => {
      const uuid = await w.task();
      const archived = await w.agent(w.companyUuid, w.ownerUser.uuid, 'developer_agent', 'Retired');
      await w.app.seeding(AgentService).archive({ companyUuid: w.companyUuid, userUuid: null }, archived.uuid);
      await w.refused(w.pm, 'svc_pm_assign_task', { taskUuid: randomUUID(), agentUuid: w.dev.uuid }, 'NOT_FOUND', 'Task not found');
      for (const agentUuid of [randomUUID(), archived.uuid, w.foreign.admin.uuid]) {
        await w.refused(w.pm, 'svc_pm_assign_task', { taskUuid: uuid, agentUuid }, 'NOT_FOUND', 'Agent not found', [uuid]);
      }
      const started = await w.taskIn('in_progress', w.dev.actor);
      await w.refused(w.pm, 'svc_pm_assign_task', { taskUuid: started, agentUuid: w.dev2.uuid }, 'INVALID_STATE', 'Task is in_progress; assign requires open or assigned', [started]);
    });
  });

  describe('admin tools', () => {
    it('svc_admin_verify_task needs to_verify and every required criterion passed', async () => {
      const uuid = await w.taskIn('to_verify', w.dev.actor);
      const err = await w.refused(
        w.admin,
        'svc_admin_verify_task',
        { taskUuid: uuid },
        'CRITERIA_NOT_PASSED',
        'Not all required acceptance criteria are passed (required 2, passed 0, failed 0, pending 2)',
        [uuid],
      );
      expect(err.acceptanceSummary).toMatchObject({ total: 3, required: 2, requiredPassed: 0, requiredPending: 2 });
      const rec = await w.taskService.get(w.owner, { taskUuid: uuid });
      await w.taskService.markCriteria(w.owner, { taskUuid: uuid, criteria: [0, 1].map((i) => ({ uuid: crit(rec, i), status: 'passed' })) });
      w.takeEvents();
      expect((await w.ok(w.admin, 'svc_admin_verify_task', { taskUuid: uuid })).status).toBe('done');
      expect(w.takeEvents()).toEqual([w.taskEvent(uuid)]);
      const started = await w.taskIn('in_progress', w.dev.actor);
      const early = await w.refused(w.admin, 'svc_admin_verify_task', { taskUuid: started }, 'INVALID_STATE', 'Task is in_progress; verify requires to_verify', [started]);
      expect(early.hints).toEqual(['Submit it for verification: svc_submit_for_verify (the assignee only)']);
      await w.refused(w.admin, 'svc_admin_verify_task', { taskUuid: randomUUID() }, 'NOT_FOUND', 'Task not found');
    });

    it('svc_admin_reopen_task sends to_verify back to work, resetting marks; BLOCKED unless force', async () => {
      const uuid = await w.taskIn('to_verify', w.dev.actor);
      const rec = await w.taskService.get(w.owner, { taskUuid: uuid });
      await w.taskService.markCriteria(w.owner, { taskUuid: uuid, criteria: [{ uuid: crit(rec, 0), status: 'failed', evidence: 'broken' }] });
      w.takeEvents();
      const r = await w.ok(w.admin, 'svc_admin_reopen_task', { taskUuid: uuid });
      expect(r.status).toBe('in_progress');
      expect(r.acceptanceCriteriaItems[0]).toMatchObject({ status: 'pending', evidence: null, markedBy: null });
      expect(w.takeEvents()).toEqual([w.taskEvent(uuid)]);

      const prereq = await w.task();
      const blocked = await w.taskIn('to_verify', w.dev.actor);
      await w.taskService.update(w.owner, { taskUuid: blocked, addDependsOn: [prereq] });
      w.takeEvents();
      const err = await w.refused(w.admin, 'svc_admin_reopen_task', { taskUuid: blocked }, 'BLOCKED', 'Cannot move to in_progress: 1 prerequisite(s) not done or closed', [blocked]);
      expect(err.hints).toEqual([expect.stringContaining(`(${prereq}) is open`), expect.stringContaining('svc_get_task'), 'svc_admin_reopen_task with force: true reopens it anyway']);
      expect((await w.ok(w.admin, 'svc_admin_reopen_task', { taskUuid: blocked, force: true })).status).toBe('in_progress');
      expect(w.takeEvents()).toEqual([w.taskEvent(blocked)]);
      const assigned = await w.taskIn('assigned', w.dev.actor);
      await w.refused(w.admin, 'svc_admin_reopen_task', { taskUuid: assigned }, 'INVALID_STATE', 'Task is assigned; reopen requires to_verify', [assigned]);
      await w.refused(w.admin, 'svc_admin_reopen_task', { taskUuid: randomUUID() }, 'NOT_FOUND', 'Task not found');
    });

    it('svc_admin_close_task closes from any status but closed', async () => {
      const uuid = await w.taskIn('in_progress', w.dev.actor);
      const session = await w.sessionService.create(w.dev.actor, { name: 'S' });
      await w.sessionService.checkinTask(w.dev.actor, { sessionUuid: session.uuid, taskUuid: uuid });
      w.takeEvents();
      const r = await w.ok(w.admin, 'svc_admin_close_task', { taskUuid: uuid, reason: 'Not needed' });
      expect(r.status).toBe('closed');
      expect(r.activeSessions).toEqual([]);
      expect(w.takeEvents()).toEqual([w.taskEvent(uuid)]);
      expect((await w.rows.activities(uuid)).at(-1)).toMatchObject({ action: 'closed', value: { reason: 'Not needed' } });
      await w.refused(w.admin, 'svc_admin_close_task', { taskUuid: uuid }, 'INVALID_STATE', 'Task is closed; close requires not closed', [uuid]);
      await w.refused(w.admin, 'svc_admin_close_task', { taskUuid: randomUUID() }, 'NOT_FOUND', 'Task not found');
    });

    it('svc_mark_acceptance_criteria marks with evidence; repeats change nothing; closed tasks are refused', async () => {
      const uuid = await w.taskIn('to_verify', w.dev.actor);
      const rec = await w.taskService.get(w.owner, { taskUuid: uuid });
      const args = { taskUuid: uuid, criteria: [{ uuid: crit(rec, 0), status: 'passed', evidence: 'CI green' }, { uuid: crit(rec, 1), status: 'failed' }] };
      const r = await w.ok(w.admin, 'svc_mark_acceptance_criteria', args);
      expect(r.acceptanceCriteriaItems[0]).toMatchObject({ status: 'passed', evidence: 'CI green', markedBy: { type: 'agent', uuid: w.admin.uuid, name: 'Admin' } });
      expect(r.acceptanceStatus).toBe('failed');
      expect(r.acceptance).toEqual({ passed: 1, total: 3 });
      expect(w.takeEvents()).toEqual([w.taskEvent(uuid)]);
      await w.ok(w.admin, 'svc_mark_acceptance_criteria', args);
      expect(w.takeEvents()).toEqual([]);
      const other = await w.task();
      const alien = crit(await w.taskService.get(w.owner, { taskUuid: other }), 0);
      await w.refused(w.admin, 'svc_mark_acceptance_criteria', { taskUuid: uuid, criteria: [{ uuid: alien, status: 'passed' }] }, 'VALIDATION_ERROR', `Criterion ${alien} does not belong to this task`, [
        uuid,
      ]);
      const closed = await w.taskIn('closed', w.dev.actor);
      const closedCriterion = crit(await w.taskService.get(w.owner, { taskUuid: closed }), 0);
      await w.refused(
        w.admin,
        'svc_mark_acceptance_criteria',
        { taskUuid: closed, criteria: [{ uuid: closedCriterion, status: 'passed' }] },
        'INVALID_STATE',
        'Task is closed; marking criteria requires a task that is not closed',
        [closed],
      );
    });

    it('svc_admin_delete_task deletes the task and updates its neighbours', async () => {
      const before = await w.task();
      const uuid = await w.task({ dependsOnTaskUuids: [before] });
      const after = await w.task({ dependsOnTaskUuids: [uuid] });
      expect(await w.ok(w.admin, 'svc_admin_delete_task', { taskUuid: uuid })).toEqual({ uuid, deleted: true });
      const events = w.takeEvents();
      expect(events).toHaveLength(3);
      expect(events).toEqual(expect.arrayContaining([w.taskEvent(uuid, 'deleted'), w.taskEvent(before), w.taskEvent(after)]));
      await w.refused(w.admin, 'svc_get_task', { taskUuid: uuid }, 'NOT_FOUND', 'Task not found');
      expect((await w.ok(w.admin, 'svc_get_task', { taskUuid: after })).dependsOn).toEqual([]);
      await w.refused(w.admin, 'svc_admin_delete_task', { taskUuid: uuid }, 'NOT_FOUND', 'Task not found');
    });
  });

  it('treats another company\'s task as not found for every task tool', async () => {
    const uuid = await w.taskIn('to_verify', w.dev.actor);
    const criterion = crit(await w.taskService.get(w.owner, { taskUuid: uuid }), 0);
    const calls: Array<[string, Record<string, unknown>]> = [
      ['svc_get_task', {}],
      ['svc_update_task', { title: 'x' }],
      ['svc_claim_task', {}],
      ['svc_release_task', {}],
      ['svc_submit_for_verify', {}],
      ['svc_report_criteria_self_check', { criteria: [{ uuid: criterion, devStatus: 'passed' }] }],
      ['svc_report_work', { report: 'x' }],
      ['svc_pm_assign_task', { agentUuid: w.foreign.admin.uuid }],
      ['svc_admin_verify_task', {}],
      ['svc_admin_reopen_task', {}],
      ['svc_admin_close_task', {}],
      ['svc_mark_acceptance_criteria', { criteria: [{ uuid: criterion, status: 'passed' }] }],
      ['svc_admin_delete_task', {}],
    ];
    for (const [tool, extra] of calls) await w.refused(w.foreign.admin, tool, { taskUuid: uuid, ...extra }, 'NOT_FOUND', 'Task not found', [uuid]);
    await w.refused(w.foreign.admin, 'svc_list_tasks', { projectUuid: w.projectUuid }, 'NOT_FOUND', 'Project not found');
  });
});
