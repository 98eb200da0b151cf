import { TaskTrackerService } from '../../src/modules/tasks/index.js';
import { TaskFactory, type TaskWorld } from '../factories/task.factory.js';
import { type Harness, World } from '../utils/world.js';
import type { TestDatabase } from '../utils/test-database.js';

/** Tenant isolation: another company's uuids are NOT_FOUND for every task and session read and write. */
describe('task and session tenant isolation', () => {
  let world: World;
  let tdb: TestDatabase;
  let h: Harness;
  let f: TaskFactory;
  let a: TaskWorld;
  let b: TaskWorld;
  let taskA: string;
  let criterionA: string;
  let sessionA: string;
  let proposalA: string;
  let taskB: string;

  beforeAll(async () => {
    world = await World.database();
    tdb = world.db;
    h = world.h;
    f = new TaskFactory(world);
    a = await f.world();
    b = await f.world();
    taskA = await f.taskIn('to_verify', a, a.dev);
    criterionA = (await f.tasks.get(a.admin, { taskUuid: taskA })).acceptanceCriteriaItems[0].uuid;
    sessionA = (await f.sessions.create(a.dev, { name: 'a' })).uuid;
    await f.sessions.checkinTask(a.dev, { sessionUuid: sessionA, taskUuid: taskA });
    proposalA = await f.proposal(a.projectUuid, a.admin, 'approved');
    taskB = await f.taskIn('assigned', b, b.dev);
  });
  afterAll(() => world.close());

  const nf = (message: string) => ({ code: 'NOT_FOUND', message });

  it('every read and write of company A data by company B is NOT_FOUND, and A is unchanged', async () => {
    const before = { task: await f.snapshot(taskA), session: await tdb.dataSource.query(`SELECT * FROM agent_session WHERE uuid = $1`, [sessionA]) };
    h.takeEvents();
    const crit = [{ description: 'x' }];
    const cases: Array<[string, () => Promise<unknown>, object]> = [
      ['list', () => f.tasks.list(b.admin, { projectUuid: a.projectUuid }), nf('Project not found')],
      ['listAvailable', () => f.tasks.listAvailable(b.admin, { projectUuid: a.projectUuid }), nf('Project not found')],
      ['listUnblocked', () => f.tasks.listUnblocked(b.admin, { projectUuid: a.projectUuid }), nf('Project not found')],
      ['get', () => f.tasks.get(b.admin, { taskUuid: taskA }), nf('Task not found')],
      ['createTasks project', () => f.tasks.createTasks(b.admin, { projectUuid: a.projectUuid, tasks: [{ title: 't', acceptanceCriteriaItems: crit }] }), nf('Project not found')],
      ['createTasks proposal', () => f.tasks.createTasks(b.admin, { projectUuid: b.projectUuid, proposalUuid: proposalA, tasks: [{ title: 't', acceptanceCriteriaItems: crit }] }), nf('Proposal not found')],
      ['createTasks dependency', () => f.tasks.createTasks(b.admin, { projectUuid: b.projectUuid, tasks: [{ title: 't', acceptanceCriteriaItems: crit, dependsOnTaskUuids: [taskA] }] }), nf('Dependency task not found')],
      ['update', () => f.tasks.update(b.admin, { taskUuid: taskA, title: 'x' }), nf('Task not found')],
      ['update edge', () => f.tasks.update(b.admin, { taskUuid: taskB, addDependsOn: [taskA] }), nf('Dependency task not found')],
      ['update session', () => f.tasks.update(b.dev, { taskUuid: taskB, title: 'x', sessionUuid: sessionA }), nf('Session not found')],
      ['claim', () => f.tasks.claim(b.dev, { taskUuid: taskA }), nf('Task not found')],
      ['release', () => f.tasks.release(b.dev, { taskUuid: taskA }), nf('Task not found')],
      ['assign', () => f.tasks.assign(b.admin, { taskUuid: taskA, agentUuid: b.dev.uuid }), nf('Task not found')],
      ['assign foreign agent', () => f.tasks.assign(b.admin, { taskUuid: taskB, agentUuid: a.dev.uuid }), nf('Agent not found')],
      ['assign foreign user', () => f.tasks.assign(b.admin, { taskUuid: taskB, assigneeType: 'user', assigneeUuid: a.admin.uuid }), nf('User not found')],
      ['submitForVerify', () => f.tasks.submitForVerify(b.dev, { taskUuid: taskA }), nf('Task not found')],
      ['selfCheck', () => f.tasks.selfCheck(b.dev, { taskUuid: taskA, criteria: [{ uuid: criterionA, devStatus: 'passed' }] }), nf('Task not found')],
      ['selfCheck foreign criterion', () => f.tasks.selfCheck(b.dev, { taskUuid: taskB, criteria: [{ uuid: criterionA, devStatus: 'passed' }] }), { code: 'VALIDATION_ERROR' }],
      ['reportWork', () => f.tasks.reportWork(b.dev, { taskUuid: taskA, report: 'x' }), nf('Task not found')],
      ['verify', () => f.tasks.verify(b.admin, { taskUuid: taskA }), nf('Task not found')],
      ['reopen', () => f.tasks.reopen(b.admin, { taskUuid: taskA, force: true }), nf('Task not found')],
      ['close', () => f.tasks.close(b.admin, { taskUuid: taskA }), nf('Task not found')],
      ['markCriteria', () => f.tasks.markCriteria(b.admin, { taskUuid: taskA, criteria: [{ uuid: criterionA, status: 'passed' }] }), nf('Task not found')],
      ['markCriteria foreign criterion', () => f.tasks.markCriteria(b.admin, { taskUuid: taskB, criteria: [{ uuid: criterionA, status: 'passed' }] }), { code: 'VALIDATION_ERROR' }],
      ['delete', () => f.tasks.delete(b.admin, { taskUuid: taskA }), nf('Task not found')],
      ['session get', () => f.sessions.get(b.dev, { sessionUuid: sessionA }), nf('Session not found')],
      ['session checkin', () => f.sessions.checkinTask(b.dev, { sessionUuid: sessionA, taskUuid: taskB }), nf('Session not found')],
      ['session checkout', () => f.sessions.checkoutTask(b.dev, { sessionUuid: sessionA, taskUuid: taskA }), nf('Session not found')],
      ['session heartbeat', () => f.sessions.heartbeat(b.dev, { sessionUuid: sessionA }), nf('Session not found')],
      ['session close', () => f.sessions.close(b.dev, { sessionUuid: sessionA }), nf('Session not found')],
      ['session reopen', () => f.sessions.reopen(b.dev, { sessionUuid: sessionA }), nf('Session not found')],
    ];
    for (const [name, call, expected] of cases) {
      const outcome = await call().then(
        () => 'succeeded',
        (e: unknown) => e,
      );
      expect([name, outcome]).toEqual([name, expect.objectContaining(expected)]);
    }
    // Own session, foreign task.
    const sessionB = (await f.sessions.create(b.dev, { name: 'b' })).uuid;
    await expect(f.sessions.checkinTask(b.dev, { sessionUuid: sessionB, taskUuid: taskA })).rejects.toMatchObject(nf('Task not found'));
    await expect(f.sessions.checkoutTask(b.dev, { sessionUuid: sessionB, taskUuid: taskA })).rejects.toMatchObject(nf('Task not found'));

    expect(await f.snapshot(taskA)).toEqual(before.task);
    expect(await tdb.dataSource.query(`SELECT * FROM agent_session WHERE uuid = $1`, [sessionA])).toEqual(before.session);
    expect(h.takeEvents()).toEqual([]);
  });

  it('listings and trackers never show another company\'s rows', async () => {
    expect((await f.sessions.listForCompany(b.admin, { agentUuid: a.dev.uuid })).total).toBe(0);
    expect((await f.sessions.listForCompany(b.admin, {})).sessions.every((s) => s.agentUuid !== a.dev.uuid)).toBe(true);
    const tracker = world.get(TaskTrackerService);
    expect(await tracker.tracker(b.dev, [a.projectUuid])).toEqual({});
    expect(Object.keys(await tracker.tracker(b.dev, null))).toEqual([b.projectUuid]);
    expect((await f.tasks.list(b.admin, { projectUuid: b.projectUuid })).tasks.map((t) => t.uuid)).toEqual([taskB]);
  });
});
