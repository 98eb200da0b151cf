import { TaskTrackerService } from '../../src/modules/tasks/index.js';
import { TaskFactory, type TaskWorld } from '../factories/task.factory.js';
import { World } from '../utils/world.js';
import type { TestDatabase } from '../utils/test-database.js';

/** Listings, the TaskRecord shape of docs/tool-conventions.md §5.9 and the task tracker of docs/tool-conventions.md §3. */
describe('task reads', () => {
  let world: World;
  let tdb: TestDatabase;
  let f: TaskFactory;
  let w: TaskWorld;

  beforeAll(async () => {
    world = await World.database();
    tdb = world.db;
    f = new TaskFactory(world);
    w = await f.world();
  });
  afterAll(() => world.close());

  describe('list', () => {
    let project: string;
    const made: Record<string, string> = {};

    beforeAll(async () => {
      project = await f.project(w.companyUuid);
      // One call each: distinct createdAt.
      for (const [key, priority] of [['low1', 'low'], ['high1', 'high'], ['med1', 'medium'], ['high2', 'high'], ['low2', 'low']] as const) {
        made[key] = (await f.task(w.admin, project, { title: key, priority })).uuid;
      }
      await f.tasks.claim(w.dev, { taskUuid: made.high2 });
    });

    it('orders by priority rank (never alphabetically), then newest first', async () => {
      const r = await f.tasks.list(w.dev, { projectUuid: project });
      expect(r.tasks.map((t) => t.title)).toEqual(['high2', 'high1', 'med1', 'low2', 'low1']);
      expect(r).toMatchObject({ page: 1, pageSize: 20, total: 5 });
    });

    it('filters by status and priority, and pages with the full total', async () => {
      expect((await f.tasks.list(w.dev, { projectUuid: project, status: 'assigned' })).tasks.map((t) => t.title)).toEqual(['high2']);
      expect((await f.tasks.list(w.dev, { projectUuid: project, priority: 'low' })).tasks.map((t) => t.title)).toEqual(['low2', 'low1']);
      const page2 = await f.tasks.list(w.dev, { projectUuid: project, page: 2, pageSize: 2 });
      expect(page2).toMatchObject({ page: 2, pageSize: 2, total: 5 });
      expect(page2.tasks.map((t) => t.title)).toEqual(['med1', 'low2']);
      expect((await f.tasks.list(w.dev, { projectUuid: project, page: 9 })).tasks).toEqual([]);
    });

    it('filters by proposal', async () => {
      const proposal = await f.proposal(project, w.admin, 'approved');
      const { tasks } = await f.tasks.createTasks(w.admin, { projectUuid: project, proposalUuid: proposal, tasks: [{ title: 'from proposal', acceptanceCriteriaItems: [{ description: 'x' }] }] });
      const r = await f.tasks.list(w.dev, { projectUuid: project, proposalUuids: [proposal] });
      expect(r.tasks.map((t) => t.uuid)).toEqual([tasks[0].uuid]);
      expect((await f.tasks.listAvailable(w.dev, { projectUuid: project, proposalUuids: [proposal] })).total).toBe(1);
      await f.tasks.delete(w.admin, { taskUuid: tasks[0].uuid });
    });

    it('available lists only open tasks', async () => {
      const r = await f.tasks.listAvailable(w.dev, { projectUuid: project });
      expect(r.tasks.map((t) => t.title)).toEqual(['high1', 'med1', 'low2', 'low1']);
      expect(r.tasks.every((t) => t.status === 'open' && t.assignee === null)).toBe(true);
    });

    it('refuses bad arguments and unknown projects', async () => {
      await expect(f.tasks.list(w.dev, { projectUuid: project, pageSize: 101 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
      await expect(f.tasks.list(w.dev, { projectUuid: project, page: 0 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
      // An unknown status and too many proposal filters are the DTO's: src/modules/tasks/dto/task.dto.spec.ts.
      await expect(f.tasks.list(w.dev, { projectUuid: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Project not found' });
      await expect(f.tasks.listUnblocked(w.dev, { projectUuid: 'x' })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Project not found' });
    });
  });

  describe('get', () => {
    it('renders the full TaskRecord', async () => {
      const pre = await f.task(w.admin, w.projectUuid, { title: 'Pre' });
      const t = await f.task(w.admin, w.projectUuid, {
        title: 'Main',
        description: 'desc',
        priority: 'high',
        storyPoints: 5,
        dependsOnTaskUuids: [pre.uuid],
        references: [{ type: 'issue_pr', url: 'https://x.test/1', title: 'PR' }],
      });
      const post = await f.task(w.admin, w.projectUuid, { title: 'Post', dependsOnTaskUuids: [t.uuid] });
      await f.tasks.assign(w.admin, { taskUuid: t.uuid, agentUuid: w.dev.uuid });
      await f.tasks.reportWork(w.dev, { taskUuid: t.uuid, report: 'r1' });
      await f.tasks.reportWork(w.dev, { taskUuid: t.uuid, report: 'r2' });
      const session = await f.sessions.create(w.dev, { name: 'worker-1' });
      const checkin = await f.sessions.checkinTask(w.dev, { sessionUuid: session.uuid, taskUuid: t.uuid });

      const r = await f.tasks.get(w.dev, { taskUuid: t.uuid });
      expect(Object.keys(r)).toEqual([
        'uuid', 'projectUuid', 'proposalUuid', 'title', 'status', 'priority', 'storyPoints', 'assignee', 'acceptance', 'createdAt', 'updatedAt',
        'description', 'createdBy', 'acceptanceCriteriaItems', 'acceptanceStatus', 'acceptanceSummary', 'dependsOn', 'dependedBy', 'activeSessions', 'commentCount', 'references',
      ]);
      expect(r).toMatchObject({
        uuid: t.uuid,
        projectUuid: w.projectUuid,
        proposalUuid: null,
        title: 'Main',
        status: 'assigned',
        priority: 'high',
        storyPoints: 5,
        assignee: { type: 'agent', uuid: w.dev.uuid, name: w.dev.name, assignedBy: { type: 'user', uuid: w.admin.uuid, name: w.admin.name } },
        acceptance: { passed: 0, total: 3 },
        description: 'desc',
        createdBy: { type: 'user', uuid: w.admin.uuid, name: w.admin.name },
        acceptanceStatus: 'not_started',
        acceptanceSummary: { total: 3, required: 2, passed: 0, failed: 0, pending: 3, requiredPassed: 0, requiredFailed: 0, requiredPending: 2 },
        dependsOn: [{ uuid: pre.uuid, title: 'Pre', status: 'open' }],
        dependedBy: [{ uuid: post.uuid, title: 'Post', status: 'open' }],
        activeSessions: [{ sessionUuid: session.uuid, sessionName: 'worker-1', agentUuid: w.dev.uuid, checkinAt: checkin.checkinAt }],
        commentCount: 2,
        references: [{ targetType: 'task', targetUuid: t.uuid, type: 'issue_pr', url: 'https://x.test/1', title: 'PR', notes: null, createdBy: { uuid: w.admin.uuid } }],
      });
      expect(Object.keys(r.assignee!)).toEqual(['type', 'uuid', 'name', 'assignedAt', 'assignedBy']);
      expect(r.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(r.acceptanceCriteriaItems[0]).toEqual({
        uuid: expect.any(String),
        description: 'works',
        required: true,
        sortOrder: 0,
        devStatus: 'pending',
        devEvidence: null,
        devMarkedBy: null,
        devMarkedAt: null,
        status: 'pending',
        evidence: null,
        markedBy: null,
        markedAt: null,
      });
    });

    it('NOT_FOUND for unknown or malformed uuids', async () => {
      await expect(f.tasks.get(w.dev, { taskUuid: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Task not found' });
      await expect(f.tasks.get(w.dev, { taskUuid: 'abc' })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Task not found' });
    });
  });

  describe('task tracker', () => {
    it('lists my unfinished tasks under the identity rule, grouped by project in order', async () => {
      const tracker = world.get(TaskTrackerService);
      const tw = await f.world();
      const p2 = await f.project(tw.companyUuid, 'Second');
      const [nameOf] = await tdb.dataSource.query(`SELECT name FROM project WHERE uuid = $1`, [tw.projectUuid]);
      const lowMine = await f.taskIn('assigned', tw, tw.dev, { priority: 'low' });
      const highOwner = await f.taskIn('in_progress', tw, tw.admin, { priority: 'high' });
      const medMine = await f.taskIn('to_verify', tw, tw.dev, { priority: 'medium' });
      const highP2 = await f.taskIn('assigned', { ...tw, projectUuid: p2 }, tw.dev, { priority: 'high' });
      const laterHigh = await f.taskIn('assigned', tw, tw.dev, { priority: 'high' });
      await f.taskIn('done', tw, tw.dev);
      await f.taskIn('assigned', tw, tw.dev2); // a sibling agent's task is not mine
      await f.taskIn('assigned', tw, tw.otherDev);
      const closed = await f.taskIn('assigned', tw, tw.dev);
      await f.tasks.close(tw.admin, { taskUuid: closed });
      const rec = await f.tasks.get(tw.admin, { taskUuid: medMine });
      await f.tasks.markCriteria(tw.admin, { taskUuid: medMine, criteria: [{ uuid: rec.acceptanceCriteriaItems[0].uuid, status: 'passed' }] });

      const all = await tracker.tracker(tw.dev, null);
      expect(Object.keys(all)).toEqual([tw.projectUuid, p2]);
      expect(all[tw.projectUuid].name).toBe(nameOf.name);
      expect(all[tw.projectUuid].tasks.map((t) => t.uuid)).toEqual([laterHigh, highOwner, medMine, lowMine]);
      expect(all[p2]).toEqual({ name: 'Second', tasks: [expect.objectContaining({ uuid: highP2 })] });
      const med = all[tw.projectUuid].tasks[2];
      expect(med).toEqual({ uuid: medMine, title: expect.any(String), status: 'to_verify', priority: 'medium', assignedAt: expect.any(String), acceptance: { passed: 1, total: 3 } });

      expect(Object.keys(await tracker.tracker(tw.dev, [p2]))).toEqual([p2]);
      expect(await tracker.tracker(tw.dev, [])).toEqual({});
      // Another company's project in the scope matches nothing.
      expect(await tracker.tracker(tw.dev, [w.projectUuid])).toEqual({});
      // The owner user sees the tasks of its agents too.
      expect(Object.keys(await tracker.tracker(tw.admin, null))).toEqual([tw.projectUuid, p2]);
    });
  });
});
