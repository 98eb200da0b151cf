import type { Actor } from '../../src/shared/auth/actor.js';
import { SessionService } from '../../src/modules/sessions/session.service.js';
import { TaskService, TaskTrackerService } from '../../src/modules/tasks/index.js';
import type { TaskFactory } from '../factories/task.factory.js';
import { userActor, World } from '../utils/world.js';

/** Listings, the TaskRecord shape of docs/tool-conventions.md §5.9 and the task tracker of docs/tool-conventions.md §3. */
describe('task reads', () => {
  let world: World;
  let f: TaskFactory;
  let tasks: TaskService;
  let sessions: SessionService;
  let projectUuid: string;
  /** A user of the company and `dev`, a developer agent it owns. */
  let admin: Actor;
  let dev: Actor;

  beforeAll(async () => {
    world = await World.database();
    f = world.tasks;
    tasks = world.get(TaskService);
    sessions = world.get(SessionService);
    const companyUuid = (await world.company()).uuid;
    admin = userActor(await world.user(companyUuid));
    dev = (await world.agent(companyUuid, admin.uuid, { preset: 'developer_agent', name: 'Dev' })).actor;
    projectUuid = await world.project(admin);
  });
  afterAll(() => world.close());

  describe('list', () => {
    let project: string;
    const made: Record<string, string> = {};

    beforeAll(async () => {
      project = await world.project(admin);
      // One call each: distinct createdAt.
      for (const [key, priority] of [['low1', 'low'], ['high1', 'high'], ['med1', 'medium'], ['high2', 'high'], ['low2', 'low']] as const) {
        made[key] = (await world.task(admin, project, { title: key, priority })).uuid;
      }
      await tasks.claim(dev, { taskUuid: made.high2 });
    });

    it('orders by priority rank (never alphabetically), then newest first', async () => {
      const r = await tasks.list(dev, { projectUuid: project });
      expect(r.tasks.map((t) => t.title)).toEqual(['high2', 'high1', 'med1', 'low2', 'low1']);
      expect(r).toMatchObject({ page: 1, pageSize: 20, total: 5 });
    });

    it('filters by status and priority, and pages with the full total', async () => {
      expect((await tasks.list(dev, { projectUuid: project, status: 'assigned' })).tasks.map((t) => t.title)).toEqual(['high2']);
      expect((await tasks.list(dev, { projectUuid: project, priority: 'low' })).tasks.map((t) => t.title)).toEqual(['low2', 'low1']);
      const page2 = await tasks.list(dev, { projectUuid: project, page: 2, pageSize: 2 });
      expect(page2).toMatchObject({ page: 2, pageSize: 2, total: 5 });
      expect(page2.tasks.map((t) => t.title)).toEqual(['med1', 'low2']);
      expect((await tasks.list(dev, { projectUuid: project, page: 9 })).tasks).toEqual([]);
    });

    it('filters by proposal', async () => {
      const proposal = await f.proposal(project, admin, 'approved');
      const { tasks: created } = await tasks.createTasks(admin, { projectUuid: project, proposalUuid: proposal, tasks: [{ title: 'from proposal', acceptanceCriteriaItems: [{ description: 'x' }] }] });
      const r = await tasks.list(dev, { projectUuid: project, proposalUuids: [proposal] });
      expect(r.tasks.map((t) => t.uuid)).toEqual([created[0].uuid]);
      expect((await tasks.listAvailable(dev, { projectUuid: project, proposalUuids: [proposal] })).total).toBe(1);
      await tasks.delete(admin, { taskUuid: created[0].uuid });
    });

    it('available lists only open tasks', async () => {
      const r = await tasks.listAvailable(dev, { projectUuid: project });
      expect(r.tasks.map((t) => t.title)).toEqual(['high1', 'med1', 'low2', 'low1']);
      expect(r.tasks.every((t) => t.status === 'open' && t.assignee === null)).toBe(true);
    });

    it('refuses bad arguments and unknown projects', async () => {
      await expect(tasks.list(dev, { projectUuid: project, pageSize: 101 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
      await expect(tasks.list(dev, { projectUuid: project, page: 0 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
      // An unknown status and too many proposal filters are the DTO's: src/modules/tasks/dto/task.dto.spec.ts.
      await expect(tasks.list(dev, { projectUuid: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Project not found' });
      await expect(tasks.listUnblocked(dev, { projectUuid: 'x' })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Project not found' });
    });
  });

  describe('get', () => {
    it('renders the full TaskRecord', async () => {
      const pre = await world.task(admin, projectUuid, { title: 'Pre' });
      const t = await world.task(admin, projectUuid, {
        title: 'Main',
        description: 'desc',
        priority: 'high',
        storyPoints: 5,
        dependsOnTaskUuids: [pre.uuid],
        references: [{ type: 'issue_pr', url: 'https://x.test/1', title: 'PR' }],
      });
      const post = await world.task(admin, projectUuid, { title: 'Post', dependsOnTaskUuids: [t.uuid] });
      await tasks.assign(admin, { taskUuid: t.uuid, agentUuid: dev.uuid });
      await tasks.reportWork(dev, { taskUuid: t.uuid, report: 'r1' });
      await tasks.reportWork(dev, { taskUuid: t.uuid, report: 'r2' });
      const session = await sessions.create(dev, { name: 'worker-1' });
      const checkin = await sessions.checkinTask(dev, { sessionUuid: session.uuid, taskUuid: t.uuid });

      const r = await tasks.get(dev, { taskUuid: t.uuid });
      expect(Object.keys(r)).toEqual([
        'uuid', 'projectUuid', 'proposalUuid', 'title', 'status', 'priority', 'storyPoints', 'assignee', 'acceptance', 'createdAt', 'updatedAt',
        'description', 'createdBy', 'acceptanceCriteriaItems', 'acceptanceStatus', 'acceptanceSummary', 'dependsOn', 'dependedBy', 'activeSessions', 'commentCount', 'references',
      ]);
      expect(r).toMatchObject({
        uuid: t.uuid,
        projectUuid,
        proposalUuid: null,
        title: 'Main',
        status: 'assigned',
        priority: 'high',
        storyPoints: 5,
        assignee: { type: 'agent', uuid: dev.uuid, name: dev.name, assignedBy: { type: 'user', uuid: admin.uuid, name: admin.name } },
        acceptance: { passed: 0, total: 3 },
        description: 'desc',
        createdBy: { type: 'user', uuid: admin.uuid, name: admin.name },
        acceptanceStatus: 'not_started',
        acceptanceSummary: { total: 3, required: 2, passed: 0, failed: 0, pending: 3, requiredPassed: 0, requiredFailed: 0, requiredPending: 2 },
        dependsOn: [{ uuid: pre.uuid, title: 'Pre', status: 'open' }],
        dependedBy: [{ uuid: post.uuid, title: 'Post', status: 'open' }],
        activeSessions: [{ sessionUuid: session.uuid, sessionName: 'worker-1', agentUuid: dev.uuid, checkinAt: checkin.checkinAt }],
        commentCount: 2,
        references: [{ targetType: 'task', targetUuid: t.uuid, type: 'issue_pr', url: 'https://x.test/1', title: 'PR', notes: null, createdBy: { uuid: admin.uuid } }],
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
      await expect(tasks.get(dev, { taskUuid: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Task not found' });
      await expect(tasks.get(dev, { taskUuid: 'abc' })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Task not found' });
    });
  });

  describe('task tracker', () => {
    it('lists my unfinished tasks under the identity rule, grouped by project in order', async () => {
      const tracker = world.get(TaskTrackerService);
      // A company of its own: a user `owner` with two agents (`mine`, `sibling`), another user's agent, two projects.
      const c = (await world.company()).uuid;
      const owner = userActor(await world.user(c));
      const mine = (await world.agent(c, owner.uuid, { preset: 'developer_agent' })).actor;
      const sibling = (await world.agent(c, owner.uuid, { preset: 'developer_agent' })).actor;
      const otherDev = (await world.agent(c, (await world.user(c)).uuid, { preset: 'developer_agent' })).actor;
      const p1 = await world.project(owner);
      const p2 = await world.project(owner, { name: 'Second' });
      const [nameOf] = await world.ds.query(`SELECT name FROM project WHERE uuid = $1`, [p1]);
      const lowMine = await world.taskIn('assigned', owner, p1, mine, { priority: 'low' });
      const highOwner = await world.taskIn('in_progress', owner, p1, owner, { priority: 'high' });
      const medMine = await world.taskIn('to_verify', owner, p1, mine, { priority: 'medium' });
      const highP2 = await world.taskIn('assigned', owner, p2, mine, { priority: 'high' });
      const laterHigh = await world.taskIn('assigned', owner, p1, mine, { priority: 'high' });
      await world.taskIn('done', owner, p1, mine);
      await world.taskIn('assigned', owner, p1, sibling); // a sibling agent's task is not mine
      await world.taskIn('assigned', owner, p1, otherDev);
      const closed = await world.taskIn('assigned', owner, p1, mine);
      await tasks.close(owner, { taskUuid: closed });
      const rec = await tasks.get(owner, { taskUuid: medMine });
      await tasks.markCriteria(owner, { taskUuid: medMine, criteria: [{ uuid: rec.acceptanceCriteriaItems[0].uuid, status: 'passed' }] });

      const all = await tracker.tracker(mine, null);
      expect(Object.keys(all)).toEqual([p1, p2]);
      expect(all[p1].name).toBe(nameOf.name);
      expect(all[p1].tasks.map((t) => t.uuid)).toEqual([laterHigh, highOwner, medMine, lowMine]);
      expect(all[p2]).toEqual({ name: 'Second', tasks: [expect.objectContaining({ uuid: highP2 })] });
      const med = all[p1].tasks[2];
      expect(med).toEqual({ uuid: medMine, title: expect.any(String), status: 'to_verify', priority: 'medium', assignedAt: expect.any(String), acceptance: { passed: 1, total: 3 } });

      expect(Object.keys(await tracker.tracker(mine, [p2]))).toEqual([p2]);
      expect(await tracker.tracker(mine, [])).toEqual({});
      // Another company's project in the scope matches nothing.
      expect(await tracker.tracker(mine, [projectUuid])).toEqual({});
      // The owner user sees the tasks of its agents too.
      expect(Object.keys(await tracker.tracker(owner, null))).toEqual([p1, p2]);
    });
  });
});
