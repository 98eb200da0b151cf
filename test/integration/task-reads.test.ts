import type { Actor } from '../../src/shared/auth/actor.js';
import { SessionService } from '../../src/modules/sessions/session.service.js';
import { TaskService, TaskTrackerService } from '../../src/modules/tasks/index.js';
import type { TaskFactory } from '../factories/task.factory.js';
import { userActor, World, type Harness } from '../utils/world.js';
import { randomUUID } from 'node:crypto';
import { jest } from '@jest/globals';
import type { Pool } from 'pg';
import type { EntityManager } from 'typeorm';
import { PersonResolver } from '../../src/shared/database/person.js';
import { ReferenceService, countComments, listForTarget } from '../../src/modules/collaboration/index.js';
import { acceptanceStatus, acceptanceSummary } from '../../src/modules/tasks/domain/task-transition.js';
import { AcceptanceCriterionEntity, TaskEntity } from '../../src/modules/tasks/task.entity.js';
import { TaskReadRepository } from '../../src/modules/tasks/task-read.repository.js';
import { taskPeople, toCriterionRecord, toTaskSummary } from '../../src/modules/tasks/task.records.js';
import { IdeaService, IdeaTrackerService, type DerivedStatus } from '../../src/modules/ideas/index.js';
import type { IdeaState } from '../factories/domain.factory.js';

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

describe('the task record query', () => {
  /*
   * TaskReadRepository.record reads a whole TaskRecord in one statement (JSON aggregates, timestamps as text). This test holds
   * it to the plain query-by-query assembly it replaced (kept below as the reference) on tasks covering every part of
   * the record: marks by agents and users, unknown people, fractional story points, unicode and escapes, dependency
   * and session ordering, checked-out sessions, every status; outside and inside a transaction.
   */
  async function links(em: EntityManager, taskUuid: string, direction: 'dependsOn' | 'dependedBy') {
    const [mine, other] = direction === 'dependsOn' ? ['task_uuid', 'depends_on_uuid'] : ['depends_on_uuid', 'task_uuid'];
    return em.query(`SELECT t.uuid, t.title, t.status FROM task_dependency d JOIN task t ON t.uuid = d.${other} WHERE d.${mine} = $1 ORDER BY d.created_at, t.uuid`, [taskUuid]);
  }
  async function activeSessions(em: EntityManager, taskUuid: string) {
    const rows: Array<{ session_uuid: string; name: string; agent_uuid: string; checkin_at: Date }> = await em.query(
      `SELECT c.session_uuid, s.name, s.agent_uuid, c.checkin_at FROM session_task_checkin c JOIN agent_session s ON s.uuid = c.session_uuid
      WHERE c.task_uuid = $1 AND c.checkout_at IS NULL ORDER BY c.checkin_at, c.session_uuid`, [taskUuid]);
    return rows.map((r) => ({ sessionUuid: r.session_uuid, sessionName: r.name, agentUuid: r.agent_uuid, checkinAt: r.checkin_at.toISOString() }));
  }
  async function referenceRecord(em: EntityManager, task: TaskEntity) {
    const criteria = await em.find(AcceptanceCriterionEntity, { where: { taskUuid: task.uuid }, order: { sortOrder: 'ASC', uuid: 'ASC' } });
    const [dependsOn, dependedBy, sessions, commentCount, references] = await Promise.all([
      links(em, task.uuid, 'dependsOn'), links(em, task.uuid, 'dependedBy'), activeSessions(em, task.uuid),
      countComments(em, task.companyUuid, 'task', task.uuid), listForTarget(em, task.companyUuid, 'task', task.uuid),
    ]);
    const refs = [...taskPeople(task), ...criteria.flatMap((c) => [{ type: c.devMarkedByType, uuid: c.devMarkedByUuid }, { type: c.markedByType, uuid: c.markedByUuid }])];
    const people = await PersonResolver.load(em, refs);
    const summary = acceptanceSummary(criteria);
    return {
      ...toTaskSummary(task, { passed: summary.passed, total: summary.total }, people),
      description: task.description,
      createdBy: people.person({ type: task.createdByType, uuid: task.createdByUuid }),
      acceptanceCriteriaItems: criteria.map((c) => toCriterionRecord(c, people)),
      acceptanceStatus: acceptanceStatus(summary),
      acceptanceSummary: summary,
      dependsOn, dependedBy, activeSessions: sessions, commentCount, references,
    };
  }

  describe('TaskReadRepository.record (one statement)', () => {
    let world: World;
    let tasks: TaskService;
    let sessions: SessionService;
    beforeAll(async () => {
      world = await World.database();
      tasks = world.get(TaskService);
      sessions = world.get(SessionService);
    });
    afterAll(() => world.close());

    it('equals the query-by-query record for every task', async () => {
      const companyUuid = (await world.company()).uuid;
      const admin = userActor(await world.user(companyUuid));
      const dev = (await world.agent(companyUuid, admin.uuid, { preset: 'developer_agent', name: 'Dev' })).actor;
      const dev2 = (await world.agent(companyUuid, admin.uuid, { preset: 'developer_agent', name: 'Dev2' })).actor;
      const projectUuid = await world.project(admin);
      const refsSvc = world.get(ReferenceService);
      const pre = await world.task(admin, projectUuid, { title: 'Pre "quoted" \\ back' });
      const pre2 = await world.task(admin, projectUuid, { title: 'Pre2 ünïcödé 🚀' });
      const t = await world.task(admin, projectUuid, {
        title: 'Main', description: 'line1\nline2\t"q" \\ 🚀 <b>&amp;</b>', priority: 'high', storyPoints: 2.5,
        dependsOnTaskUuids: [pre.uuid, pre2.uuid], references: [{ type: 'issue_pr', url: 'https://x.test/1', title: 'PR' }, { type: 'docs', url: 'https://x.test/2', title: 'Docs', notes: 'n\no' }],
      });
      await world.task(admin, projectUuid, { title: 'Post', dependsOnTaskUuids: [t.uuid] });
      await world.task(admin, projectUuid, { title: 'Post2', dependsOnTaskUuids: [t.uuid], storyPoints: 0.1 });
      await tasks.assign(admin, { taskUuid: t.uuid, agentUuid: dev.uuid });
      await tasks.reportWork(dev, { taskUuid: t.uuid, report: 'r1' });
      await refsSvc.add(dev, { targetType: 'task', targetUuid: t.uuid, type: 'repo', url: 'https://x.test/3', title: 'Repo by agent' });
      const rec = await tasks.get(admin, { taskUuid: t.uuid });
      await tasks.selfCheck(dev, { taskUuid: t.uuid, criteria: [{ uuid: rec.acceptanceCriteriaItems[0].uuid, devStatus: 'passed', devEvidence: 'ok' }, { uuid: rec.acceptanceCriteriaItems[2].uuid, devStatus: 'failed' }] });
      await tasks.markCriteria(admin, { taskUuid: t.uuid, criteria: [{ uuid: rec.acceptanceCriteriaItems[1].uuid, status: 'failed', evidence: 'nope' }] });
      const s1 = await sessions.create(dev, { name: 'w1' });
      const s2 = await sessions.create(dev, { name: 'w2' });
      const s3 = await sessions.create(dev, { name: 'w3' });
      await sessions.checkinTask(dev, { sessionUuid: s1.uuid, taskUuid: t.uuid });
      await sessions.checkinTask(dev, { sessionUuid: s2.uuid, taskUuid: t.uuid });
      await sessions.checkinTask(dev, { sessionUuid: s3.uuid, taskUuid: t.uuid });
      await sessions.checkoutTask(dev, { sessionUuid: s2.uuid, taskUuid: t.uuid });
      await world.ds.query(`INSERT INTO reference (uuid, company_uuid, target_type, target_uuid, type, url, title, created_by_type, created_by_uuid) VALUES ($1, $2, 'task', $3, 'docs', 'https://x', 'Ghost', 'agent', $4)`, [randomUUID(), companyUuid, t.uuid, randomUUID()]);
      await world.ds.query(`UPDATE task SET assigned_at = '2025-01-01 00:00:00.57+00', story_points = 1.10 WHERE uuid = $1`, [pre2.uuid]);
      for (const st of ['open', 'assigned', 'in_progress', 'to_verify', 'done', 'closed'] as const) await world.taskIn(st, admin, projectUuid, dev2);
      const all: TaskEntity[] = await world.ds.getRepository(TaskEntity).find();
      expect(all.length).toBeGreaterThan(10);
      let checked = 0;
      for (const task of all) {
        const expected = await referenceRecord(world.ds.manager, task);
        const actual = await world.get(TaskReadRepository).record(task.companyUuid, task.uuid);
        expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
        expect(actual).toEqual(expected);
        const inTx = await world.ds.transaction((em) => new TaskReadRepository(em).recordOf(task));
        expect(JSON.stringify(inTx)).toBe(JSON.stringify(expected));
        checked++;
      }
      expect(checked).toBe(all.length);
      const main = (await world.get(TaskReadRepository).record(companyUuid, t.uuid))!;
      expect(main.references.map((r) => r.createdBy.name)).toContain('(unknown)');
      expect(main.acceptanceCriteriaItems.map((c) => [c.devMarkedBy?.type ?? null, c.markedBy?.type ?? null])).toEqual([['agent', null], [null, 'user'], ['agent', null]]);
      expect(main.activeSessions.map((s) => s.sessionName)).toEqual(['w1', 'w3']);
      expect(main.storyPoints).toBe(2.5);
      // Another company's task is not found.
      expect(await world.get(TaskReadRepository).record(randomUUID(), t.uuid)).toBeNull();
    });

    it("is svc_get_task's only statement: the named prepared svc_task_record, straight on the pool", async () => {
      const companyUuid = (await world.company()).uuid;
      const admin = userActor(await world.user(companyUuid));
      const dev = (await world.agent(companyUuid, admin.uuid, { preset: 'developer_agent', name: 'Dev' })).actor;
      const projectUuid = await world.project(admin);
      const t = await world.task(admin, projectUuid, { title: 'Hot path', dependsOnTaskUuids: [(await world.task(admin, projectUuid, { title: 'Pre' })).uuid] });
      const pool = (world.ds.driver as unknown as { master: Pool }).master;
      const sent: unknown[] = [];
      const query = pool.query;
      pool.query = function (this: Pool, ...args: unknown[]) {
        sent.push(args[0]);
        return (query as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof pool.query;
      // Anything through TypeORM (em.query, find, a query builder) takes a query runner first.
      const runners = jest.spyOn(world.ds, 'createQueryRunner');
      try {
        const record = await tasks.get(dev, { taskUuid: t.uuid });
        expect(record.dependsOn.map((d) => d.title)).toEqual(['Pre']);
      } finally {
        pool.query = query;
        runners.mockRestore();
      }
      expect(sent).toEqual([expect.objectContaining({ name: 'svc_task_record' })]);
      expect(runners).not.toHaveBeenCalled();
    });
  });
});

describe('tasks across companies', () => {
  /** A company of the tenant tests: a user, a developer agent it owns, and a project. */
  interface Tenant {
    admin: Actor;
    dev: Actor;
    projectUuid: string;
  }

  /** Tenant isolation: another company's uuids are NOT_FOUND for every task and session read and write. */
  describe('task and session tenant isolation', () => {
    let world: World;
    let h: Harness;
    let f: TaskFactory;
    let tasks: TaskService;
    let sessions: SessionService;
    let a: Tenant;
    let b: Tenant;
    let taskA: string;
    let criterionA: string;
    let sessionA: string;
    let proposalA: string;
    let taskB: string;

    const tenant = async (): Promise<Tenant> => {
      const companyUuid = (await world.company()).uuid;
      const admin = userActor(await world.user(companyUuid));
      const dev = (await world.agent(companyUuid, admin.uuid, { preset: 'developer_agent' })).actor;
      return { admin, dev, projectUuid: await world.project(admin) };
    };

    beforeAll(async () => {
      world = await World.database();
      h = world.h;
      f = world.tasks;
      tasks = world.get(TaskService);
      sessions = world.get(SessionService);
      a = await tenant();
      b = await tenant();
      taskA = await world.taskIn('to_verify', a.admin, a.projectUuid, a.dev);
      criterionA = (await tasks.get(a.admin, { taskUuid: taskA })).acceptanceCriteriaItems[0].uuid;
      sessionA = (await sessions.create(a.dev, { name: 'a' })).uuid;
      await sessions.checkinTask(a.dev, { sessionUuid: sessionA, taskUuid: taskA });
      proposalA = await f.proposal(a.projectUuid, a.admin, 'approved');
      taskB = await world.taskIn('assigned', b.admin, b.projectUuid, b.dev);
    });
    afterAll(() => world.close());

    const nf = (message: string) => ({ code: 'NOT_FOUND', message });

    it('every read and write of company A data by company B is NOT_FOUND, and A is unchanged', async () => {
      const before = { task: await f.snapshot(taskA), session: await world.ds.query(`SELECT * FROM agent_session WHERE uuid = $1`, [sessionA]) };
      h.takeEvents();
      const crit = [{ description: 'x' }];
      const cases: Array<[string, () => Promise<unknown>, object]> = [
        ['list', () => tasks.list(b.admin, { projectUuid: a.projectUuid }), nf('Project not found')],
        ['listAvailable', () => tasks.listAvailable(b.admin, { projectUuid: a.projectUuid }), nf('Project not found')],
        ['listUnblocked', () => tasks.listUnblocked(b.admin, { projectUuid: a.projectUuid }), nf('Project not found')],
        ['get', () => tasks.get(b.admin, { taskUuid: taskA }), nf('Task not found')],
        ['createTasks project', () => tasks.createTasks(b.admin, { projectUuid: a.projectUuid, tasks: [{ title: 't', acceptanceCriteriaItems: crit }] }), nf('Project not found')],
        ['createTasks proposal', () => tasks.createTasks(b.admin, { projectUuid: b.projectUuid, proposalUuid: proposalA, tasks: [{ title: 't', acceptanceCriteriaItems: crit }] }), nf('Proposal not found')],
        ['createTasks dependency', () => tasks.createTasks(b.admin, { projectUuid: b.projectUuid, tasks: [{ title: 't', acceptanceCriteriaItems: crit, dependsOnTaskUuids: [taskA] }] }), nf('Dependency task not found')],
        ['update', () => tasks.update(b.admin, { taskUuid: taskA, title: 'x' }), nf('Task not found')],
        ['update edge', () => tasks.update(b.admin, { taskUuid: taskB, addDependsOn: [taskA] }), nf('Dependency task not found')],
        ['update session', () => tasks.update(b.dev, { taskUuid: taskB, title: 'x', sessionUuid: sessionA }), nf('Session not found')],
        ['claim', () => tasks.claim(b.dev, { taskUuid: taskA }), nf('Task not found')],
        ['release', () => tasks.release(b.dev, { taskUuid: taskA }), nf('Task not found')],
        ['assign', () => tasks.assign(b.admin, { taskUuid: taskA, agentUuid: b.dev.uuid }), nf('Task not found')],
        ['assign foreign agent', () => tasks.assign(b.admin, { taskUuid: taskB, agentUuid: a.dev.uuid }), nf('Agent not found')],
        ['assign foreign user', () => tasks.assign(b.admin, { taskUuid: taskB, assigneeType: 'user', assigneeUuid: a.admin.uuid }), nf('User not found')],
        ['submitForVerify', () => tasks.submitForVerify(b.dev, { taskUuid: taskA }), nf('Task not found')],
        ['selfCheck', () => tasks.selfCheck(b.dev, { taskUuid: taskA, criteria: [{ uuid: criterionA, devStatus: 'passed' }] }), nf('Task not found')],
        ['selfCheck foreign criterion', () => tasks.selfCheck(b.dev, { taskUuid: taskB, criteria: [{ uuid: criterionA, devStatus: 'passed' }] }), { code: 'VALIDATION_ERROR' }],
        ['reportWork', () => tasks.reportWork(b.dev, { taskUuid: taskA, report: 'x' }), nf('Task not found')],
        ['verify', () => tasks.verify(b.admin, { taskUuid: taskA }), nf('Task not found')],
        ['reopen', () => tasks.reopen(b.admin, { taskUuid: taskA, force: true }), nf('Task not found')],
        ['close', () => tasks.close(b.admin, { taskUuid: taskA }), nf('Task not found')],
        ['markCriteria', () => tasks.markCriteria(b.admin, { taskUuid: taskA, criteria: [{ uuid: criterionA, status: 'passed' }] }), nf('Task not found')],
        ['markCriteria foreign criterion', () => tasks.markCriteria(b.admin, { taskUuid: taskB, criteria: [{ uuid: criterionA, status: 'passed' }] }), { code: 'VALIDATION_ERROR' }],
        ['delete', () => tasks.delete(b.admin, { taskUuid: taskA }), nf('Task not found')],
        ['session get', () => sessions.get(b.dev, { sessionUuid: sessionA }), nf('Session not found')],
        ['session checkin', () => sessions.checkinTask(b.dev, { sessionUuid: sessionA, taskUuid: taskB }), nf('Session not found')],
        ['session checkout', () => sessions.checkoutTask(b.dev, { sessionUuid: sessionA, taskUuid: taskA }), nf('Session not found')],
        ['session heartbeat', () => sessions.heartbeat(b.dev, { sessionUuid: sessionA }), nf('Session not found')],
        ['session close', () => sessions.close(b.dev, { sessionUuid: sessionA }), nf('Session not found')],
        ['session reopen', () => sessions.reopen(b.dev, { sessionUuid: sessionA }), nf('Session not found')],
      ];
      for (const [name, call, expected] of cases) {
        const outcome = await call().then(
          () => 'succeeded',
          (e: unknown) => e,
        );
        expect([name, outcome]).toEqual([name, expect.objectContaining(expected)]);
      }
      // Own session, foreign task.
      const sessionB = (await sessions.create(b.dev, { name: 'b' })).uuid;
      await expect(sessions.checkinTask(b.dev, { sessionUuid: sessionB, taskUuid: taskA })).rejects.toMatchObject(nf('Task not found'));
      await expect(sessions.checkoutTask(b.dev, { sessionUuid: sessionB, taskUuid: taskA })).rejects.toMatchObject(nf('Task not found'));

      expect(await f.snapshot(taskA)).toEqual(before.task);
      expect(await world.ds.query(`SELECT * FROM agent_session WHERE uuid = $1`, [sessionA])).toEqual(before.session);
      expect(h.takeEvents()).toEqual([]);
    });

    it('listings and trackers never show another company\'s rows', async () => {
      expect((await sessions.listForCompany(b.admin, { agentUuid: a.dev.uuid })).total).toBe(0);
      expect((await sessions.listForCompany(b.admin, {})).sessions.every((s) => s.agentUuid !== a.dev.uuid)).toBe(true);
      const tracker = world.get(TaskTrackerService);
      expect(await tracker.tracker(b.dev, [a.projectUuid])).toEqual({});
      expect(Object.keys(await tracker.tracker(b.dev, null))).toEqual([b.projectUuid]);
      expect((await tasks.list(b.admin, { projectUuid: b.projectUuid })).tasks.map((t) => t.uuid)).toEqual([taskB]);
    });
  });
});

describe('derived status', () => {
  let world: World;
  let ideas: IdeaService;
  let tracker: IdeaTrackerService;
  /** Alice, her pm_agent (who works the ideas) and Mallory of another company. */
  let alice: Actor;
  let pm: Actor;
  let mallory: Actor;
  let projectUuid: string;

  beforeAll(async () => {
    world = await World.database();
    ideas = world.get(IdeaService);
    tracker = world.get(IdeaTrackerService);
    const a = (await world.company()).uuid;
    const aliceU = await world.user(a, { name: 'Alice' });
    alice = userActor(aliceU);
    pm = (await world.agent(a, aliceU.uuid, { preset: 'pm_agent', name: 'PM' })).actor;
    mallory = userActor(await world.user((await world.company()).uuid, { name: 'Mallory' }));
    projectUuid = (await world.domain.project(alice)).uuid;
  });
  afterAll(() => world.close());

  /** Derived status as seen by get, list and the tracker: all three must agree. */
  async function derived(ideaUuid: string, viewer: Actor = pm): Promise<DerivedStatus> {
    const record = await ideas.get(alice, { ideaUuid });
    const listed = (await ideas.list(alice, { projectUuid, pageSize: 100 })).ideas.find((i) => i.uuid === ideaUuid);
    expect(listed?.derivedStatus).toBe(record.derivedStatus);
    const tracked = (await tracker.tracker(viewer, { projectScope: [projectUuid] }))[projectUuid]?.ideas.find((i) => i.uuid === ideaUuid);
    if (tracked) expect(tracked.derivedStatus).toBe(record.derivedStatus);
    return record.derivedStatus;
  }

  const idea = (state: IdeaState, opts: { parentUuid?: string; isContainer?: boolean } = {}) => world.domain.idea(alice, projectUuid, { state, assignee: pm, ...opts });
  const minutesAgo = (n: number): Date => new Date(Date.now() - n * 60_000);

  describe('derived status on read (docs/domain.md §4.2), every row', () => {
    it('open -> todo; elaborating -> in_progress; pending_answers -> human_conduct_required; validating -> in_progress', async () => {
      expect(await derived((await idea('open')).uuid)).toBe('todo');
      expect(await derived((await idea('elaborating')).uuid)).toBe('in_progress');
      expect(await derived((await idea('pending_answers')).uuid)).toBe('human_conduct_required');
      expect(await derived((await idea('validating')).uuid)).toBe('in_progress');
    });

    it('elaborated without proposals -> in_progress; with an appended round pending -> human_conduct_required', async () => {
      expect(await derived((await idea('elaborated')).uuid)).toBe('in_progress');
      expect(await derived((await idea('skipped')).uuid)).toBe('in_progress');
      expect(await derived((await idea('appended')).uuid)).toBe('human_conduct_required');
    });

    it('elaborated with a pending proposal -> human_conduct_required, even when approved work is done', async () => {
      const i = await idea('elaborated');
      const approved = await world.domain.proposal(pm, projectUuid, { inputUuids: [i.uuid], status: 'approved' });
      await world.domain.task(pm, projectUuid, { proposalUuid: approved.uuid, status: 'done' });
      expect(await derived(i.uuid)).toBe('done');
      await world.domain.proposal(pm, projectUuid, { inputUuids: [i.uuid], status: 'pending' });
      expect(await derived(i.uuid)).toBe('human_conduct_required');
    });

    it('latest approved proposal: a task in to_verify -> human_conduct_required; all done or closed -> done; else in_progress', async () => {
      const verify = await idea('elaborated');
      const p1 = await world.domain.proposal(pm, projectUuid, { inputUuids: [verify.uuid], status: 'approved' });
      await world.domain.task(pm, projectUuid, { proposalUuid: p1.uuid, status: 'to_verify' });
      await world.domain.task(pm, projectUuid, { proposalUuid: p1.uuid, status: 'done' });
      expect(await derived(verify.uuid)).toBe('human_conduct_required');

      const finished = await idea('elaborated');
      const p2 = await world.domain.proposal(pm, projectUuid, { inputUuids: [finished.uuid], status: 'approved' });
      await world.domain.task(pm, projectUuid, { proposalUuid: p2.uuid, status: 'done' });
      await world.domain.task(pm, projectUuid, { proposalUuid: p2.uuid, status: 'closed' });
      expect(await derived(finished.uuid)).toBe('done');

      const underway = await idea('elaborated');
      const p3 = await world.domain.proposal(pm, projectUuid, { inputUuids: [underway.uuid], status: 'approved' });
      await world.domain.task(pm, projectUuid, { proposalUuid: p3.uuid, status: 'done' });
      await world.domain.task(pm, projectUuid, { proposalUuid: p3.uuid, status: 'in_progress' });
      expect(await derived(underway.uuid)).toBe('in_progress');

      const noTasks = await idea('elaborated');
      await world.domain.proposal(pm, projectUuid, { inputUuids: [noTasks.uuid], status: 'approved' });
      expect(await derived(noTasks.uuid)).toBe('in_progress');

      const draftOnly = await idea('elaborated');
      await world.domain.proposal(pm, projectUuid, { inputUuids: [draftOnly.uuid], status: 'draft' });
      await world.domain.proposal(pm, projectUuid, { inputUuids: [draftOnly.uuid], status: 'closed' });
      expect(await derived(draftOnly.uuid)).toBe('in_progress');
    });

    it('only the latest approved proposal by reviewedAt counts', async () => {
      const laterOpen = await idea('elaborated');
      const old = await world.domain.proposal(pm, projectUuid, { inputUuids: [laterOpen.uuid], status: 'approved', reviewedAt: minutesAgo(10) });
      await world.domain.task(pm, projectUuid, { proposalUuid: old.uuid, status: 'done' });
      const recent = await world.domain.proposal(pm, projectUuid, { inputUuids: [laterOpen.uuid], status: 'approved', reviewedAt: minutesAgo(1) });
      await world.domain.task(pm, projectUuid, { proposalUuid: recent.uuid, status: 'open' });
      expect(await derived(laterOpen.uuid)).toBe('in_progress');

      const laterDone = await idea('elaborated');
      const recent2 = await world.domain.proposal(pm, projectUuid, { inputUuids: [laterDone.uuid], status: 'approved', reviewedAt: minutesAgo(1) });
      await world.domain.task(pm, projectUuid, { proposalUuid: recent2.uuid, status: 'done' });
      const old2 = await world.domain.proposal(pm, projectUuid, { inputUuids: [laterDone.uuid], status: 'approved', reviewedAt: minutesAgo(10) });
      await world.domain.task(pm, projectUuid, { proposalUuid: old2.uuid, status: 'to_verify' });
      expect(await derived(laterDone.uuid)).toBe('done');
    });

    it('themes derive from their children: all done -> done, all todo -> todo, otherwise in_progress; nested themes too', async () => {
      const doneChild = async (parentUuid: string): Promise<void> => {
        const c = await idea('elaborated', { parentUuid });
        const p = await world.domain.proposal(pm, projectUuid, { inputUuids: [c.uuid], status: 'approved' });
        await world.domain.task(pm, projectUuid, { proposalUuid: p.uuid, status: 'done' });
      };
      const allDone = await idea('elaborating', { isContainer: true });
      await doneChild(allDone.uuid);
      await doneChild(allDone.uuid);
      expect(await derived(allDone.uuid)).toBe('done');

      const allTodo = await idea('elaborated', { isContainer: true });
      await idea('open', { parentUuid: allTodo.uuid });
      await idea('open', { parentUuid: allTodo.uuid });
      expect(await derived(allTodo.uuid)).toBe('todo');

      const mixed = await idea('open', { isContainer: true });
      await idea('open', { parentUuid: mixed.uuid });
      await doneChild(mixed.uuid);
      expect(await derived(mixed.uuid)).toBe('in_progress');

      const top = await idea('open', { isContainer: true });
      const sub = await idea('open', { isContainer: true, parentUuid: top.uuid });
      await doneChild(sub.uuid);
      expect(await derived(sub.uuid)).toBe('done');
      expect(await derived(top.uuid)).toBe('done');
      const record = await ideas.get(alice, { ideaUuid: top.uuid });
      expect(record.children).toEqual([{ uuid: sub.uuid, title: sub.title, status: 'open', derivedStatus: 'done' }]);

      const empty = await idea('pending_answers', { isContainer: true });
      expect(await derived(empty.uuid)).toBe('human_conduct_required');
    });

    it('ignores proposals of another company that name the idea', async () => {
      const i = await idea('elaborated');
      const foreignProject = await world.domain.project(mallory);
      await world.domain.proposal(mallory, foreignProject.uuid, { inputUuids: [i.uuid], status: 'pending' });
      expect(await derived(i.uuid)).toBe('in_progress');
    });
  });
});
