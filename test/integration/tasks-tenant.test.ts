import type { Actor } from '../../src/shared/auth/actor.js';
import { SessionService } from '../../src/modules/sessions/session.service.js';
import { TaskService, TaskTrackerService } from '../../src/modules/tasks/index.js';
import type { TaskFactory } from '../factories/task.factory.js';
import { type Harness, userActor, World } from '../utils/world.js';

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
