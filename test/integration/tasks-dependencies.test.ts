import type { MutationCommitted } from '../../src/shared/event-bus/events.js';
import { expectRefused, TaskFactory, type TaskWorld } from '../factories/task.factory.js';
import { type Harness, textsOf, World } from '../utils/world.js';
import type { TestDatabase } from '../utils/test-database.js';

/** svc_create_tasks, dependency edits (docs/domain.md §6.4) and task deletion (§8). */
describe('task creation, dependencies and deletion', () => {
  let world: World;
  let tdb: TestDatabase;
  let h: Harness;
  let f: TaskFactory;
  let w: TaskWorld;
  const mutations: MutationCommitted[] = [];

  beforeAll(async () => {
    world = await World.database();
    tdb = world.db;
    h = world.h;
    h.onCommitted((m) => {
      mutations.push(m);
    });
    f = new TaskFactory(world);
    w = await f.world();
  });
  afterAll(() => world.close());
  beforeEach(() => {
    h.takeEvents();
    mutations.length = 0;
  });

  const ev = (uuid: string, action: string, projectUuid = w.projectUuid) => ({ companyUuid: w.companyUuid, projectUuid, entityType: 'task', entityUuid: uuid, action });
  const crit = [{ description: 'done' }];
  const taskCount = async (): Promise<number> => (await tdb.dataSource.query(`SELECT count(*)::int AS n FROM task`))[0].n;
  const edgesOf = async (uuid: string): Promise<string[]> =>
    (await tdb.dataSource.query(`SELECT depends_on_uuid FROM task_dependency WHERE task_uuid = $1 ORDER BY depends_on_uuid`, [uuid])).map((r: { depends_on_uuid: string }) => r.depends_on_uuid);

  describe('svc_create_tasks', () => {
    it('creates a batch with batch-local and existing dependencies, in input order', async () => {
      const existing = await f.task(w.admin, w.projectUuid, { title: 'Existing' });
      h.takeEvents();
      const { tasks } = await f.tasks.createTasks(w.dev, {
        projectUuid: w.projectUuid,
        tasks: [
          { title: '  API  ', description: 'Hi @[Admin](user:' + w.admin.uuid + ')', priority: 'high', storyPoints: 3, draftUuid: 'api', acceptanceCriteriaItems: crit, dependsOnTaskUuids: [existing.uuid] },
          {
            title: 'UI',
            draftUuid: 'ui',
            dependsOnDraftUuids: ['api'],
            acceptanceCriteriaItems: [{ description: ' a ' }, { description: '' }, { description: 'b', required: false }],
            references: [
              { type: 'docs', url: 'https://example.test/a', title: 'First' },
              { type: 'repo', url: 'http://example.test/b', title: 'Second', notes: 'n' },
            ],
          },
        ],
      });
      expect(tasks.map((t) => t.title)).toEqual(['API', 'UI']);
      expect(tasks[0]).toMatchObject({ status: 'open', priority: 'high', storyPoints: 3, assignee: null, proposalUuid: null, acceptance: { passed: 0, total: 1 } });
      expect(tasks[1]).toMatchObject({ priority: 'medium', storyPoints: null, acceptance: { passed: 0, total: 2 } });
      const [api, ui] = tasks.map((t) => t.uuid);
      expect(await edgesOf(api)).toEqual([existing.uuid]);
      expect(await edgesOf(ui)).toEqual([api]);

      const events = h.takeEvents();
      expect(events).toHaveLength(3);
      expect(events).toEqual(expect.arrayContaining([ev(api, 'created'), ev(ui, 'created'), ev(existing.uuid, 'updated')]));

      const record = await f.tasks.get(w.admin, { taskUuid: ui });
      expect(record.createdBy).toEqual({ type: 'agent', uuid: w.dev.uuid, name: w.dev.name });
      expect(record.references.map((r) => [r.title, r.notes])).toEqual([
        ['First', null],
        ['Second', 'n'],
      ]);
      expect(record.references[0]).toMatchObject({ targetType: 'task', targetUuid: ui, type: 'docs', url: 'https://example.test/a', createdBy: { uuid: w.dev.uuid } });
      expect(record.dependsOn).toEqual([{ uuid: api, title: 'API', status: 'open' }]);
      expect((await f.tasks.get(w.admin, { taskUuid: existing.uuid })).dependedBy).toEqual([{ uuid: api, title: 'API', status: 'open' }]);
      expect((await f.activities(api)).map((a) => a.action)).toEqual(['created']);
      // Descriptions are mention sources on creation.
      expect(textsOf(mutations.at(-1)!)).toEqual([
        expect.objectContaining({ sourceType: 'task', sourceUuid: api, entityType: 'task', entityUuid: api, entityTitle: 'API', before: null, after: expect.stringContaining('@[Admin]') }),
      ]);
    });

    it('links an approved proposal of the same project', async () => {
      const proposal = await f.proposal(w.projectUuid, w.admin, 'approved');
      const { tasks } = await f.tasks.createTasks(w.admin, { projectUuid: w.projectUuid, proposalUuid: proposal, tasks: [{ title: 'From proposal', acceptanceCriteriaItems: crit }] });
      expect(tasks[0].proposalUuid).toBe(proposal);
    });

    it('refuses a proposal that is not approved, or of another project', async () => {
      const draft = await f.proposal(w.projectUuid, w.admin, 'draft');
      const otherProject = await f.project(w.companyUuid);
      const elsewhere = await f.proposal(otherProject, w.admin, 'approved');
      const before = await taskCount();
      await expect(f.tasks.createTasks(w.admin, { projectUuid: w.projectUuid, proposalUuid: draft, tasks: [{ title: 'x', acceptanceCriteriaItems: crit }] })).rejects.toMatchObject({
        code: 'INVALID_STATE',
        message: 'Proposal is draft; create tasks requires approved',
      });
      await expect(f.tasks.createTasks(w.admin, { projectUuid: w.projectUuid, proposalUuid: elsewhere, tasks: [{ title: 'x', acceptanceCriteriaItems: crit }] })).rejects.toMatchObject({
        code: 'NOT_FOUND',
        message: 'Proposal not found',
      });
      expect(await taskCount()).toBe(before);
      expect(h.takeEvents()).toEqual([]);
    });

    it('is all-or-nothing: one invalid item refuses the whole batch', async () => {
      // Shapes and limits (story points, list sizes) are the DTO's: src/modules/tasks/dto/task.dto.spec.ts.
      const before = await taskCount();
      const cases: Array<[unknown[], string, string]> = [
        [[{ title: 'ok', acceptanceCriteriaItems: crit }, { title: 'Bad', acceptanceCriteriaItems: [{ description: '  ' }] }], 'VALIDATION_ERROR', 'Task "Bad": At least one acceptance criterion with a non-empty description is required'],
        [[{ title: 'ok', acceptanceCriteriaItems: crit, dependsOnDraftUuids: ['nope'] }], 'VALIDATION_ERROR', 'Task "ok": Unknown draftUuid "nope"'],
        [[{ title: 'a', draftUuid: 'x', acceptanceCriteriaItems: crit }, { title: 'b', draftUuid: 'x', acceptanceCriteriaItems: crit }], 'VALIDATION_ERROR', 'Duplicate draftUuid "x"'],
        [[{ title: 'a', draftUuid: 'x', dependsOnDraftUuids: ['x'], acceptanceCriteriaItems: crit }], 'VALIDATION_ERROR', 'A task cannot depend on itself'],
        [
          [
            { title: 'a', draftUuid: 'a', dependsOnDraftUuids: ['b'], acceptanceCriteriaItems: crit },
            { title: 'b', draftUuid: 'b', dependsOnDraftUuids: ['a'], acceptanceCriteriaItems: crit },
          ],
          'VALIDATION_ERROR',
          'Adding this dependency would create a cycle',
        ],
        [[{ title: 'ok', acceptanceCriteriaItems: crit }, { title: 'x', acceptanceCriteriaItems: crit, dependsOnTaskUuids: ['00000000-0000-4000-8000-000000000000'] }], 'NOT_FOUND', 'Dependency task not found'],
        [[{ title: 'ok', acceptanceCriteriaItems: crit, references: [{ type: 'docs', url: 'ftp://x', title: 't' }] }], 'VALIDATION_ERROR', 'URL must start with http:// or https://'],
        [[{ title: '   ', acceptanceCriteriaItems: crit }], 'VALIDATION_ERROR', 'Title must be 1-200 characters'],
      ];
      for (const [tasks, code, message] of cases) {
        await expect(f.tasks.createTasks(w.admin, { projectUuid: w.projectUuid, tasks: tasks as never })).rejects.toMatchObject({ code, message });
      }
      expect(await taskCount()).toBe(before);
      expect(h.takeEvents()).toEqual([]);
    });

    it('a prerequisite in another project or another company', async () => {
      const otherProject = await f.project(w.companyUuid);
      const there = await f.task(w.admin, otherProject);
      const stranger = await f.world();
      const foreign = await f.task(stranger.admin, stranger.projectUuid);
      h.takeEvents();
      await expect(f.tasks.createTasks(w.admin, { projectUuid: w.projectUuid, tasks: [{ title: 'x', acceptanceCriteriaItems: crit, dependsOnTaskUuids: [there.uuid] }] })).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
        message: 'Tasks must belong to the same project',
      });
      await expect(f.tasks.createTasks(w.admin, { projectUuid: w.projectUuid, tasks: [{ title: 'x', acceptanceCriteriaItems: crit, dependsOnTaskUuids: [foreign.uuid] }] })).rejects.toMatchObject({
        code: 'NOT_FOUND',
        message: 'Dependency task not found',
      });
      await expect(f.tasks.createTasks(w.admin, { projectUuid: stranger.projectUuid, tasks: [{ title: 'x', acceptanceCriteriaItems: crit }] })).rejects.toMatchObject({
        code: 'NOT_FOUND',
        message: 'Project not found',
      });
      expect(h.takeEvents()).toEqual([]);
    });
  });

  describe('svc_update_task dependency edits', () => {
    it('adds and removes edges; events for both ends; activities on the edited task', async () => {
      const a = await f.task(w.admin, w.projectUuid);
      const b = await f.task(w.admin, w.projectUuid);
      const c = await f.task(w.admin, w.projectUuid);
      h.takeEvents();
      const r = await f.tasks.update(w.dev, { taskUuid: a.uuid, addDependsOn: [b.uuid, c.uuid] });
      expect(r.dependsOn.map((d) => d.uuid).sort()).toEqual([b.uuid, c.uuid].sort());
      const events = h.takeEvents();
      expect(events).toHaveLength(3);
      expect(events).toEqual(expect.arrayContaining([ev(a.uuid, 'updated'), ev(b.uuid, 'updated'), ev(c.uuid, 'updated')]));
      const [act] = (await f.activities(a.uuid)).slice(-1);
      expect(act.action).toBe('dependency_added');
      expect((await f.activities(b.uuid)).map((x) => x.action)).toEqual(['created']);

      await f.tasks.update(w.dev, { taskUuid: a.uuid, removeDependsOn: [b.uuid] });
      expect(await edgesOf(a.uuid)).toEqual([c.uuid]);
      expect(h.takeEvents()).toEqual(expect.arrayContaining([ev(a.uuid, 'updated'), ev(b.uuid, 'updated')]));
      expect((await f.activities(a.uuid)).at(-1)).toMatchObject({ action: 'dependency_removed', value: { dependsOnUuid: b.uuid } });
    });

    it('adding an existing edge or removing a missing one is a no-op without event', async () => {
      const a = await f.task(w.admin, w.projectUuid);
      const b = await f.task(w.admin, w.projectUuid);
      await f.tasks.update(w.dev, { taskUuid: a.uuid, addDependsOn: [b.uuid] });
      const before = await f.snapshot(a.uuid);
      h.takeEvents();
      await f.tasks.update(w.dev, { taskUuid: a.uuid, addDependsOn: [b.uuid], removeDependsOn: ['00000000-0000-4000-8000-000000000000'] });
      expect(await f.snapshot(a.uuid)).toEqual(before);
      expect(h.takeEvents()).toEqual([]);
    });

    it('refuses self, other project, missing task and cycles, leaving everything unchanged', async () => {
      const a = await f.task(w.admin, w.projectUuid);
      const b = await f.task(w.admin, w.projectUuid, { dependsOnTaskUuids: [a.uuid] });
      const c = await f.task(w.admin, w.projectUuid, { dependsOnTaskUuids: [b.uuid] });
      const elsewhere = await f.task(w.admin, await f.project(w.companyUuid));
      await expectRefused(f, h, a.uuid, () => f.tasks.update(w.dev, { taskUuid: a.uuid, addDependsOn: [a.uuid] }), 'VALIDATION_ERROR', 'A task cannot depend on itself');
      await expectRefused(f, h, a.uuid, () => f.tasks.update(w.dev, { taskUuid: a.uuid, addDependsOn: [elsewhere.uuid] }), 'VALIDATION_ERROR', 'Tasks must belong to the same project');
      await expectRefused(f, h, a.uuid, () => f.tasks.update(w.dev, { taskUuid: a.uuid, addDependsOn: ['00000000-0000-4000-8000-000000000000'] }), 'NOT_FOUND', 'Dependency task not found');
      await expectRefused(f, h, a.uuid, () => f.tasks.update(w.dev, { taskUuid: a.uuid, addDependsOn: [b.uuid] }), 'VALIDATION_ERROR', 'Adding this dependency would create a cycle');
      await expectRefused(f, h, a.uuid, () => f.tasks.update(w.dev, { taskUuid: a.uuid, addDependsOn: [c.uuid] }), 'VALIDATION_ERROR', 'Adding this dependency would create a cycle');
      // A field edit in the same call is rolled back with the refused edge.
      await expectRefused(f, h, a.uuid, () => f.tasks.update(w.dev, { taskUuid: a.uuid, title: 'renamed', addDependsOn: [c.uuid] }), 'VALIDATION_ERROR');
      // Removing the edge that closes the loop first makes it legal.
      await f.tasks.update(w.dev, { taskUuid: b.uuid, removeDependsOn: [a.uuid] });
      expect((await f.tasks.update(w.dev, { taskUuid: a.uuid, addDependsOn: [c.uuid] })).dependsOn.map((d) => d.uuid)).toEqual([c.uuid]);
    });

    it('concurrent opposite edges cannot both succeed', async () => {
      const a = await f.task(w.admin, w.projectUuid);
      const b = await f.task(w.admin, w.projectUuid);
      const results = await Promise.allSettled([
        f.tasks.update(w.dev, { taskUuid: a.uuid, addDependsOn: [b.uuid] }),
        f.tasks.update(w.dev2, { taskUuid: b.uuid, addDependsOn: [a.uuid] }),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const rejected = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')!;
      expect(rejected.reason).toMatchObject({ code: 'VALIDATION_ERROR', message: 'Adding this dependency would create a cycle' });
    });
  });

  describe('unblocked listing', () => {
    it('lists open/assigned tasks whose prerequisites are all done or closed', async () => {
      const project = await f.project(w.companyUuid);
      const pw = { ...w, projectUuid: project };
      const prereqDone = await f.taskIn('done', pw, w.dev);
      const prereqOpen = await f.taskIn('open', pw, w.dev);
      const free = await f.taskIn('open', pw, w.dev);
      const afterDone = (await f.task(w.admin, project, { dependsOnTaskUuids: [prereqDone] })).uuid;
      const blocked = (await f.task(w.admin, project, { dependsOnTaskUuids: [prereqOpen, prereqDone] })).uuid;
      const assigned = await f.taskIn('assigned', pw, w.dev);
      await f.taskIn('in_progress', pw, w.dev);
      const list = await f.tasks.listUnblocked(w.dev, { projectUuid: project });
      expect(list.tasks.map((t) => t.uuid).sort()).toEqual([prereqOpen, free, afterDone, assigned].sort());
      expect(list.total).toBe(4);
      expect(list.tasks.map((t) => t.uuid)).not.toContain(blocked);
    });
  });

  describe('delete (svc_admin_delete_task)', () => {
    it('removes edges, criteria, check-ins, comments and references; task deleted + neighbours updated', async () => {
      const pre = await f.task(w.admin, w.projectUuid);
      const victim = await f.task(w.admin, w.projectUuid, { dependsOnTaskUuids: [pre.uuid], references: [{ type: 'docs', url: 'https://x.test', title: 'r' }] });
      const post = await f.task(w.admin, w.projectUuid, { dependsOnTaskUuids: [victim.uuid] });
      await f.tasks.claim(w.dev, { taskUuid: victim.uuid });
      await f.tasks.reportWork(w.dev, { taskUuid: victim.uuid, report: 'progress' });
      const session = await f.sessions.create(w.dev, { name: 's' });
      await f.sessions.checkinTask(w.dev, { sessionUuid: session.uuid, taskUuid: victim.uuid });
      h.takeEvents();
      expect(await f.tasks.delete(w.admin, { taskUuid: victim.uuid })).toEqual({ uuid: victim.uuid, deleted: true });
      const events = h.takeEvents();
      expect(events).toHaveLength(3);
      expect(events).toEqual(expect.arrayContaining([ev(victim.uuid, 'deleted'), ev(pre.uuid, 'updated'), ev(post.uuid, 'updated')]));
      const snap = (await f.snapshot(victim.uuid)) as Record<string, unknown[]>;
      expect({ ...snap, activities: [] }).toEqual({ task: [], criteria: [], edges: [], checkins: [], comments: [], activities: [] });
      expect(await tdb.dataSource.query(`SELECT uuid FROM reference WHERE target_uuid = $1`, [victim.uuid])).toEqual([]);
      // Activities are kept, ending with `deleted`.
      expect((await f.activities(victim.uuid)).at(-1)).toMatchObject({ action: 'deleted' });
      expect((await f.tasks.get(w.admin, { taskUuid: post.uuid })).dependsOn).toEqual([]);
      await expect(f.tasks.get(w.admin, { taskUuid: victim.uuid })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Task not found' });
      await expect(f.tasks.delete(w.admin, { taskUuid: victim.uuid })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });
  });
});
