import type { Actor } from '../../src/shared/auth/actor.js';
import { SessionService } from '../../src/modules/sessions/session.service.js';
import { TaskService } from '../../src/modules/tasks/index.js';
import type { MutationCommitted } from '../../src/shared/event-bus/events.js';
import { expectRefused, type TaskFactory } from '../factories/task.factory.js';
import { type Harness, textsOf, userActor, World } from '../utils/world.js';

/** svc_create_tasks, dependency edits (docs/domain.md §6.4) and task deletion (§8). */
describe('task creation, dependencies and deletion', () => {
  let world: World;
  let h: Harness;
  let f: TaskFactory;
  let tasks: TaskService;
  let sessions: SessionService;
  let companyUuid: string;
  let projectUuid: string;
  /** A user of the company, owner of `dev` and `dev2`, two developer agents. */
  let admin: Actor;
  let dev: Actor;
  let dev2: Actor;
  const mutations: MutationCommitted[] = [];

  beforeAll(async () => {
    world = await World.database();
    h = world.h;
    h.onCommitted((m) => {
      mutations.push(m);
    });
    f = world.tasks;
    tasks = world.get(TaskService);
    sessions = world.get(SessionService);
    companyUuid = (await world.company()).uuid;
    admin = userActor(await world.user(companyUuid));
    dev = (await world.agent(companyUuid, admin.uuid, { preset: 'developer_agent', name: 'Dev' })).actor;
    dev2 = (await world.agent(companyUuid, admin.uuid, { preset: 'developer_agent', name: 'Dev2' })).actor;
    projectUuid = await world.project(admin);
  });
  afterAll(() => world.close());
  beforeEach(() => {
    h.takeEvents();
    mutations.length = 0;
  });

  const ev = (uuid: string, action: string, project = projectUuid) => ({ companyUuid, projectUuid: project, entityType: 'task', entityUuid: uuid, action });
  const crit = [{ description: 'done' }];
  const taskCount = async (): Promise<number> => (await world.ds.query(`SELECT count(*)::int AS n FROM task`))[0].n;
  const edgesOf = async (uuid: string): Promise<string[]> =>
    (await world.ds.query(`SELECT depends_on_uuid FROM task_dependency WHERE task_uuid = $1 ORDER BY depends_on_uuid`, [uuid])).map((r: { depends_on_uuid: string }) => r.depends_on_uuid);

  describe('svc_create_tasks', () => {
    it('creates a batch with batch-local and existing dependencies, in input order', async () => {
      const existing = await world.task(admin, projectUuid, { title: 'Existing' });
      h.takeEvents();
      const { tasks: created } = await tasks.createTasks(dev, {
        projectUuid,
        tasks: [
          { title: '  API  ', description: 'Hi @[Admin](user:' + admin.uuid + ')', priority: 'high', storyPoints: 3, draftUuid: 'api', acceptanceCriteriaItems: crit, dependsOnTaskUuids: [existing.uuid] },
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
      expect(created.map((t) => t.title)).toEqual(['API', 'UI']);
      expect(created[0]).toMatchObject({ status: 'open', priority: 'high', storyPoints: 3, assignee: null, proposalUuid: null, acceptance: { passed: 0, total: 1 } });
      expect(created[1]).toMatchObject({ priority: 'medium', storyPoints: null, acceptance: { passed: 0, total: 2 } });
      const [api, ui] = created.map((t) => t.uuid);
      expect(await edgesOf(api)).toEqual([existing.uuid]);
      expect(await edgesOf(ui)).toEqual([api]);

      const events = h.takeEvents();
      expect(events).toHaveLength(3);
      expect(events).toEqual(expect.arrayContaining([ev(api, 'created'), ev(ui, 'created'), ev(existing.uuid, 'updated')]));

      const record = await tasks.get(admin, { taskUuid: ui });
      expect(record.createdBy).toEqual({ type: 'agent', uuid: dev.uuid, name: dev.name });
      expect(record.references.map((r) => [r.title, r.notes])).toEqual([
        ['First', null],
        ['Second', 'n'],
      ]);
      expect(record.references[0]).toMatchObject({ targetType: 'task', targetUuid: ui, type: 'docs', url: 'https://example.test/a', createdBy: { uuid: dev.uuid } });
      expect(record.dependsOn).toEqual([{ uuid: api, title: 'API', status: 'open' }]);
      expect((await tasks.get(admin, { taskUuid: existing.uuid })).dependedBy).toEqual([{ uuid: api, title: 'API', status: 'open' }]);
      expect((await f.activities(api)).map((a) => a.action)).toEqual(['created']);
      // Descriptions are mention sources on creation.
      expect(textsOf(mutations.at(-1)!)).toEqual([
        expect.objectContaining({ sourceType: 'task', sourceUuid: api, entityType: 'task', entityUuid: api, entityTitle: 'API', before: null, after: expect.stringContaining('@[Admin]') }),
      ]);
    });

    it('links an approved proposal of the same project', async () => {
      const proposal = await f.proposal(projectUuid, admin, 'approved');
      const { tasks: created } = await tasks.createTasks(admin, { projectUuid, proposalUuid: proposal, tasks: [{ title: 'From proposal', acceptanceCriteriaItems: crit }] });
      expect(created[0].proposalUuid).toBe(proposal);
    });

    it('refuses a proposal that is not approved, or of another project', async () => {
      const draft = await f.proposal(projectUuid, admin, 'draft');
      const otherProject = await world.project(admin);
      const elsewhere = await f.proposal(otherProject, admin, 'approved');
      const before = await taskCount();
      await expect(tasks.createTasks(admin, { projectUuid, proposalUuid: draft, tasks: [{ title: 'x', acceptanceCriteriaItems: crit }] })).rejects.toMatchObject({
        code: 'INVALID_STATE',
        message: 'Proposal is draft; create tasks requires approved',
      });
      await expect(tasks.createTasks(admin, { projectUuid, proposalUuid: elsewhere, tasks: [{ title: 'x', acceptanceCriteriaItems: crit }] })).rejects.toMatchObject({
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
      for (const [items, code, message] of cases) {
        await expect(tasks.createTasks(admin, { projectUuid, tasks: items as never })).rejects.toMatchObject({ code, message });
      }
      expect(await taskCount()).toBe(before);
      expect(h.takeEvents()).toEqual([]);
    });

    it('a prerequisite in another project or another company', async () => {
      const otherProject = await world.project(admin);
      const there = await world.task(admin, otherProject);
      const strangerCompany = (await world.company()).uuid;
      const stranger = userActor(await world.user(strangerCompany));
      const strangerProject = await world.project(stranger);
      const foreign = await world.task(stranger, strangerProject);
      h.takeEvents();
      await expect(tasks.createTasks(admin, { projectUuid, tasks: [{ title: 'x', acceptanceCriteriaItems: crit, dependsOnTaskUuids: [there.uuid] }] })).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
        message: 'Tasks must belong to the same project',
      });
      await expect(tasks.createTasks(admin, { projectUuid, tasks: [{ title: 'x', acceptanceCriteriaItems: crit, dependsOnTaskUuids: [foreign.uuid] }] })).rejects.toMatchObject({
        code: 'NOT_FOUND',
        message: 'Dependency task not found',
      });
      await expect(tasks.createTasks(admin, { projectUuid: strangerProject, tasks: [{ title: 'x', acceptanceCriteriaItems: crit }] })).rejects.toMatchObject({
        code: 'NOT_FOUND',
        message: 'Project not found',
      });
      expect(h.takeEvents()).toEqual([]);
    });
  });

  describe('svc_update_task dependency edits', () => {
    it('adds and removes edges; events for both ends; activities on the edited task', async () => {
      const a = await world.task(admin, projectUuid);
      const b = await world.task(admin, projectUuid);
      const c = await world.task(admin, projectUuid);
      h.takeEvents();
      const r = await tasks.update(dev, { taskUuid: a.uuid, addDependsOn: [b.uuid, c.uuid] });
      expect(r.dependsOn.map((d) => d.uuid).sort()).toEqual([b.uuid, c.uuid].sort());
      const events = h.takeEvents();
      expect(events).toHaveLength(3);
      expect(events).toEqual(expect.arrayContaining([ev(a.uuid, 'updated'), ev(b.uuid, 'updated'), ev(c.uuid, 'updated')]));
      const [act] = (await f.activities(a.uuid)).slice(-1);
      expect(act.action).toBe('dependency_added');
      expect((await f.activities(b.uuid)).map((x) => x.action)).toEqual(['created']);

      await tasks.update(dev, { taskUuid: a.uuid, removeDependsOn: [b.uuid] });
      expect(await edgesOf(a.uuid)).toEqual([c.uuid]);
      expect(h.takeEvents()).toEqual(expect.arrayContaining([ev(a.uuid, 'updated'), ev(b.uuid, 'updated')]));
      expect((await f.activities(a.uuid)).at(-1)).toMatchObject({ action: 'dependency_removed', value: { dependsOnUuid: b.uuid } });
    });

    it('adding an existing edge or removing a missing one is a no-op without event', async () => {
      const a = await world.task(admin, projectUuid);
      const b = await world.task(admin, projectUuid);
      await tasks.update(dev, { taskUuid: a.uuid, addDependsOn: [b.uuid] });
      const before = await f.snapshot(a.uuid);
      h.takeEvents();
      await tasks.update(dev, { taskUuid: a.uuid, addDependsOn: [b.uuid], removeDependsOn: ['00000000-0000-4000-8000-000000000000'] });
      expect(await f.snapshot(a.uuid)).toEqual(before);
      expect(h.takeEvents()).toEqual([]);
    });

    it('refuses self, other project, missing task and cycles, leaving everything unchanged', async () => {
      const a = await world.task(admin, projectUuid);
      const b = await world.task(admin, projectUuid, { dependsOnTaskUuids: [a.uuid] });
      const c = await world.task(admin, projectUuid, { dependsOnTaskUuids: [b.uuid] });
      const elsewhere = await world.task(admin, await world.project(admin));
      await expectRefused(f, h, a.uuid, () => tasks.update(dev, { taskUuid: a.uuid, addDependsOn: [a.uuid] }), 'VALIDATION_ERROR', 'A task cannot depend on itself');
      await expectRefused(f, h, a.uuid, () => tasks.update(dev, { taskUuid: a.uuid, addDependsOn: [elsewhere.uuid] }), 'VALIDATION_ERROR', 'Tasks must belong to the same project');
      await expectRefused(f, h, a.uuid, () => tasks.update(dev, { taskUuid: a.uuid, addDependsOn: ['00000000-0000-4000-8000-000000000000'] }), 'NOT_FOUND', 'Dependency task not found');
      await expectRefused(f, h, a.uuid, () => tasks.update(dev, { taskUuid: a.uuid, addDependsOn: [b.uuid] }), 'VALIDATION_ERROR', 'Adding this dependency would create a cycle');
      await expectRefused(f, h, a.uuid, () => tasks.update(dev, { taskUuid: a.uuid, addDependsOn: [c.uuid] }), 'VALIDATION_ERROR', 'Adding this dependency would create a cycle');
      // A field edit in the same call is rolled back with the refused edge.
      await expectRefused(f, h, a.uuid, () => tasks.update(dev, { taskUuid: a.uuid, title: 'renamed', addDependsOn: [c.uuid] }), 'VALIDATION_ERROR');
      // Removing the edge that closes the loop first makes it legal.
      await tasks.update(dev, { taskUuid: b.uuid, removeDependsOn: [a.uuid] });
      expect((await tasks.update(dev, { taskUuid: a.uuid, addDependsOn: [c.uuid] })).dependsOn.map((d) => d.uuid)).toEqual([c.uuid]);
    });

    it('concurrent opposite edges cannot both succeed', async () => {
      const a = await world.task(admin, projectUuid);
      const b = await world.task(admin, projectUuid);
      const results = await Promise.allSettled([
        tasks.update(dev, { taskUuid: a.uuid, addDependsOn: [b.uuid] }),
        tasks.update(dev2, { taskUuid: b.uuid, addDependsOn: [a.uuid] }),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const rejected = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')!;
      expect(rejected.reason).toMatchObject({ code: 'VALIDATION_ERROR', message: 'Adding this dependency would create a cycle' });
    });
  });

  describe('unblocked listing', () => {
    it('lists open/assigned tasks whose prerequisites are all done or closed', async () => {
      const project = await world.project(admin);
      const prereqDone = await world.taskIn('done', admin, project, dev);
      const prereqOpen = await world.taskIn('open', admin, project, dev);
      const free = await world.taskIn('open', admin, project, dev);
      const afterDone = (await world.task(admin, project, { dependsOnTaskUuids: [prereqDone] })).uuid;
      const blocked = (await world.task(admin, project, { dependsOnTaskUuids: [prereqOpen, prereqDone] })).uuid;
      const assigned = await world.taskIn('assigned', admin, project, dev);
      await world.taskIn('in_progress', admin, project, dev);
      const list = await tasks.listUnblocked(dev, { projectUuid: project });
      expect(list.tasks.map((t) => t.uuid).sort()).toEqual([prereqOpen, free, afterDone, assigned].sort());
      expect(list.total).toBe(4);
      expect(list.tasks.map((t) => t.uuid)).not.toContain(blocked);
    });
  });

  describe('delete (svc_admin_delete_task)', () => {
    it('removes edges, criteria, check-ins, comments and references; task deleted + neighbours updated', async () => {
      const pre = await world.task(admin, projectUuid);
      const victim = await world.task(admin, projectUuid, { dependsOnTaskUuids: [pre.uuid], references: [{ type: 'docs', url: 'https://x.test', title: 'r' }] });
      const post = await world.task(admin, projectUuid, { dependsOnTaskUuids: [victim.uuid] });
      await tasks.claim(dev, { taskUuid: victim.uuid });
      await tasks.reportWork(dev, { taskUuid: victim.uuid, report: 'progress' });
      const session = await sessions.create(dev, { name: 's' });
      await sessions.checkinTask(dev, { sessionUuid: session.uuid, taskUuid: victim.uuid });
      h.takeEvents();
      expect(await tasks.delete(admin, { taskUuid: victim.uuid })).toEqual({ uuid: victim.uuid, deleted: true });
      const events = h.takeEvents();
      expect(events).toHaveLength(3);
      expect(events).toEqual(expect.arrayContaining([ev(victim.uuid, 'deleted'), ev(pre.uuid, 'updated'), ev(post.uuid, 'updated')]));
      const snap = (await f.snapshot(victim.uuid)) as Record<string, unknown[]>;
      expect({ ...snap, activities: [] }).toEqual({ task: [], criteria: [], edges: [], checkins: [], comments: [], activities: [] });
      expect(await world.ds.query(`SELECT uuid FROM reference WHERE target_uuid = $1`, [victim.uuid])).toEqual([]);
      // Activities are kept, ending with `deleted`.
      expect((await f.activities(victim.uuid)).at(-1)).toMatchObject({ action: 'deleted' });
      expect((await tasks.get(admin, { taskUuid: post.uuid })).dependsOn).toEqual([]);
      await expect(tasks.get(admin, { taskUuid: victim.uuid })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Task not found' });
      await expect(tasks.delete(admin, { taskUuid: victim.uuid })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });
  });
});
