import type { Actor } from '../../src/shared/auth/actor.js';
import type { SessionRecord } from '../../src/modules/sessions/index.js';
import { SessionService } from '../../src/modules/sessions/session.service.js';
import { TaskService } from '../../src/modules/tasks/index.js';
import { expectRefused, type TaskFactory } from '../factories/task.factory.js';
import { type Harness, userActor, World } from '../utils/world.js';

/** Agent sessions: the state machine of docs/domain.md §7 and the session tools of docs/tool-conventions.md §5.3. */
describe('agent sessions', () => {
  let world: World;
  let h: Harness;
  let f: TaskFactory;
  let sessions: SessionService;
  let tasks: TaskService;
  let companyUuid: string;
  let projectUuid: string;
  /** A user of the company, owner of `dev` and `dev2`, two developer agents. */
  let admin: Actor;
  let dev: Actor;
  let dev2: Actor;
  /** A developer agent of another user of the same company. */
  let otherDev: Actor;

  beforeAll(async () => {
    world = await World.database();
    h = world.h;
    f = world.tasks;
    sessions = world.get(SessionService);
    tasks = world.get(TaskService);
    companyUuid = (await world.company()).uuid;
    admin = userActor(await world.user(companyUuid));
    dev = (await world.agent(companyUuid, admin.uuid, { preset: 'developer_agent', name: 'Dev' })).actor;
    dev2 = (await world.agent(companyUuid, admin.uuid, { preset: 'developer_agent', name: 'Dev2' })).actor;
    const other = await world.user(companyUuid);
    otherDev = (await world.agent(companyUuid, other.uuid, { preset: 'developer_agent', name: 'OtherDev' })).actor;
    projectUuid = await world.project(admin);
  });
  afterAll(() => world.close());
  beforeEach(() => h.takeEvents());

  const updated = (taskUuid: string) => ({ companyUuid, projectUuid, entityType: 'task', entityUuid: taskUuid, action: 'updated' });
  const sessionRow = async (uuid: string) =>
    (await world.ds.query(`SELECT status, last_active_at, closed_at FROM agent_session WHERE uuid = $1`, [uuid]))[0] as { status: string; last_active_at: Date; closed_at: Date | null };
  const checkinRow = async (sessionUuid: string, taskUuid: string) =>
    (await world.ds.query(`SELECT checkin_at, checkout_at FROM session_task_checkin WHERE session_uuid = $1 AND task_uuid = $2`, [sessionUuid, taskUuid]))[0] as
      | { checkin_at: Date; checkout_at: Date | null }
      | undefined;
  const tick = () => new Promise((r) => setTimeout(r, 10));
  const newSession = (name = 'worker'): Promise<SessionRecord> => sessions.create(dev, { name });

  it('create: an active session of the calling agent, no event', async () => {
    const s = await sessions.create(dev, { name: '  worker-1 ', description: 'parallel runner' });
    expect(Object.keys(s)).toEqual(['uuid', 'agentUuid', 'name', 'description', 'status', 'lastActiveAt', 'closedAt', 'checkins', 'createdAt', 'updatedAt']);
    expect(s).toMatchObject({ agentUuid: dev.uuid, name: 'worker-1', description: 'parallel runner', status: 'active', closedAt: null, checkins: [] });
    expect(h.takeEvents()).toEqual([]);
    await expect(sessions.create(dev, { name: ' ' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(sessions.create(admin, { name: 'x' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  describe('check-in', () => {
    it('of an open task claims it through the claim path: one task updated, activities assigned + session_checkin', async () => {
      const s = await newSession();
      const task = await world.task(admin, projectUuid);
      h.takeEvents();
      const r = await sessions.checkinTask(dev, { sessionUuid: s.uuid, taskUuid: task.uuid });
      expect(r).toMatchObject({ sessionUuid: s.uuid, taskUuid: task.uuid, claimed: true, task: { uuid: task.uuid, status: 'assigned', assignee: { type: 'agent', uuid: dev.uuid } } });
      expect(Object.keys(r)).toEqual(['sessionUuid', 'taskUuid', 'checkinAt', 'claimed', 'task']);
      expect(h.takeEvents()).toEqual([updated(task.uuid)]);
      const [act] = (await f.activities(task.uuid)).slice(-1);
      expect(act).toMatchObject({ action: 'assigned', session_uuid: s.uuid, session_name: 'worker' });
      expect((act.value as { changes: Array<{ action: string }> }).changes.map((c) => c.action)).toEqual(['assigned', 'session_checkin']);
      expect((await checkinRow(s.uuid, task.uuid))!.checkout_at).toBeNull();
      const got = await sessions.get(dev, { sessionUuid: s.uuid });
      expect(got.checkins).toEqual([{ taskUuid: task.uuid, taskTitle: task.title, checkinAt: r.checkinAt }]);
    });

    it('of a task held by someone else, or by the caller: no claim, status unchanged', async () => {
      const s = await newSession();
      const theirs = await world.taskIn('in_progress', admin, projectUuid, otherDev);
      const mine = await world.taskIn('assigned', admin, projectUuid, dev);
      h.takeEvents();
      const r1 = await sessions.checkinTask(dev, { sessionUuid: s.uuid, taskUuid: theirs });
      expect(r1).toMatchObject({ claimed: false, task: { status: 'in_progress', assignee: { uuid: otherDev.uuid } } });
      const r2 = await sessions.checkinTask(dev, { sessionUuid: s.uuid, taskUuid: mine });
      expect(r2).toMatchObject({ claimed: false, task: { status: 'assigned' } });
      expect(h.takeEvents()).toEqual([updated(theirs), updated(mine)]);
      expect((await f.activities(theirs)).at(-1)).toMatchObject({ action: 'session_checkin', value: { sessionUuid: s.uuid, sessionName: 'worker' } });
    });

    it('a second check-in re-activates the same row', async () => {
      const s = await newSession();
      const uuid = await world.taskIn('assigned', admin, projectUuid, dev);
      const first = await sessions.checkinTask(dev, { sessionUuid: s.uuid, taskUuid: uuid });
      await sessions.checkoutTask(dev, { sessionUuid: s.uuid, taskUuid: uuid });
      await tick();
      const second = await sessions.checkinTask(dev, { sessionUuid: s.uuid, taskUuid: uuid });
      expect(new Date(second.checkinAt).getTime()).toBeGreaterThan(new Date(first.checkinAt).getTime());
      const rows = await world.ds.query(`SELECT checkin_at, checkout_at FROM session_task_checkin WHERE task_uuid = $1`, [uuid]);
      expect(rows).toEqual([{ checkin_at: new Date(second.checkinAt), checkout_at: null }]);
    });

    it.each(['done', 'closed'] as const)('of a %s task: INVALID_STATE, nothing written', async (status) => {
      const s = await newSession();
      const uuid = await world.taskIn(status, admin, projectUuid, dev);
      await expectRefused(f, h, uuid, () => sessions.checkinTask(dev, { sessionUuid: s.uuid, taskUuid: uuid }), 'INVALID_STATE', `Task is ${status}; check-in requires open, assigned, in_progress or to_verify`);
    });

    it('guards: closed session INVALID_STATE, foreign session FORBIDDEN, unknown session or task NOT_FOUND', async () => {
      const uuid = await world.taskIn('open', admin, projectUuid, dev);
      const closed = await newSession();
      await sessions.close(dev, { sessionUuid: closed.uuid });
      const foreign = await sessions.create(dev2, { name: 'theirs' });
      await expectRefused(f, h, uuid, () => sessions.checkinTask(dev, { sessionUuid: closed.uuid, taskUuid: uuid }), 'INVALID_STATE', 'Session is closed; check-in requires active');
      await expectRefused(f, h, uuid, () => sessions.checkinTask(dev, { sessionUuid: foreign.uuid, taskUuid: uuid }), 'FORBIDDEN', 'Session belongs to another agent');
      await expectRefused(f, h, uuid, () => sessions.checkinTask(dev, { sessionUuid: '00000000-0000-4000-8000-000000000000', taskUuid: uuid }), 'NOT_FOUND', 'Session not found');
      const s = await newSession();
      await expect(sessions.checkinTask(dev, { sessionUuid: s.uuid, taskUuid: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Task not found' });
      expect((await sessions.get(dev, { sessionUuid: s.uuid })).checkins).toEqual([]);
    });
  });

  describe('check-out', () => {
    it('closes the open check-in without touching the task status', async () => {
      const s = await newSession();
      const uuid = await world.taskIn('in_progress', admin, projectUuid, dev);
      const c = await sessions.checkinTask(dev, { sessionUuid: s.uuid, taskUuid: uuid });
      h.takeEvents();
      const r = await sessions.checkoutTask(dev, { sessionUuid: s.uuid, taskUuid: uuid });
      expect(r).toEqual({ sessionUuid: s.uuid, taskUuid: uuid, checkinAt: c.checkinAt, checkoutAt: expect.any(String) });
      expect((await checkinRow(s.uuid, uuid))!.checkout_at).toEqual(new Date(r.checkoutAt));
      expect(h.takeEvents()).toEqual([updated(uuid)]);
      expect((await f.activities(uuid)).at(-1)).toMatchObject({ action: 'session_checkout', session_uuid: s.uuid });
      expect((await tasks.get(dev, { taskUuid: uuid })).status).toBe('in_progress');
      expect((await sessionRow(s.uuid)).last_active_at).toEqual(new Date(r.checkoutAt));
    });

    it('without an open check-in: NOT_FOUND "Check-in not found"; on a closed session: INVALID_STATE', async () => {
      const s = await newSession();
      const uuid = await world.taskIn('assigned', admin, projectUuid, dev);
      await expectRefused(f, h, uuid, () => sessions.checkoutTask(dev, { sessionUuid: s.uuid, taskUuid: uuid }), 'NOT_FOUND', 'Check-in not found');
      await sessions.checkinTask(dev, { sessionUuid: s.uuid, taskUuid: uuid });
      await sessions.checkoutTask(dev, { sessionUuid: s.uuid, taskUuid: uuid });
      await expectRefused(f, h, uuid, () => sessions.checkoutTask(dev, { sessionUuid: s.uuid, taskUuid: uuid }), 'NOT_FOUND', 'Check-in not found');
      await sessions.close(dev, { sessionUuid: s.uuid });
      await expectRefused(f, h, uuid, () => sessions.checkoutTask(dev, { sessionUuid: s.uuid, taskUuid: uuid }), 'INVALID_STATE', 'Session is closed; checkout requires active');
      await expectRefused(f, h, uuid, () => sessions.checkoutTask(dev2, { sessionUuid: s.uuid, taskUuid: uuid }), 'FORBIDDEN');
    });
  });

  describe('heartbeat', () => {
    it('moves lastActiveAt; refused on a closed session; publishes nothing', async () => {
      const s = await newSession();
      await tick();
      const r = await sessions.heartbeat(dev, { sessionUuid: s.uuid });
      expect(r).toEqual({ uuid: s.uuid, status: 'active', lastActiveAt: expect.any(String) });
      expect(new Date(r.lastActiveAt).getTime()).toBeGreaterThan(new Date(s.lastActiveAt).getTime());
      expect((await sessionRow(s.uuid)).last_active_at).toEqual(new Date(r.lastActiveAt));
      expect(h.takeEvents()).toEqual([]);
      await sessions.close(dev, { sessionUuid: s.uuid });
      const before = await sessionRow(s.uuid);
      await expect(sessions.heartbeat(dev, { sessionUuid: s.uuid })).rejects.toMatchObject({ code: 'INVALID_STATE', message: 'Session is closed; heartbeat requires active' });
      expect(await sessionRow(s.uuid)).toEqual(before);
      await expect(sessions.heartbeat(dev2, { sessionUuid: s.uuid })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    });
  });

  describe('close and reopen', () => {
    it('close checks out every open check-in with one task updated per task; closing again is unchanged', async () => {
      const s = await newSession();
      const a = await world.taskIn('assigned', admin, projectUuid, dev);
      const b = await world.taskIn('in_progress', admin, projectUuid, dev);
      await sessions.checkinTask(dev, { sessionUuid: s.uuid, taskUuid: a });
      await sessions.checkinTask(dev, { sessionUuid: s.uuid, taskUuid: b });
      h.takeEvents();
      const r = await sessions.close(dev, { sessionUuid: s.uuid });
      expect(r).toMatchObject({ status: 'closed', checkins: [], closedAt: expect.any(String) });
      expect(h.takeEvents()).toEqual([updated(a), updated(b)]);
      expect((await checkinRow(s.uuid, a))!.checkout_at).not.toBeNull();
      expect((await f.activities(b)).at(-1)).toMatchObject({ action: 'session_checkout', session_uuid: s.uuid });
      expect((await tasks.get(dev, { taskUuid: a })).activeSessions).toEqual([]);

      const again = await sessions.close(dev, { sessionUuid: s.uuid });
      expect(again).toEqual(r);
      expect(h.takeEvents()).toEqual([]);
    });

    it('reopen: closed -> active with closedAt cleared; an active session refuses', async () => {
      const s = await newSession();
      await expect(sessions.reopen(dev, { sessionUuid: s.uuid })).rejects.toMatchObject({ code: 'INVALID_STATE', message: 'Session is active; reopen requires closed' });
      await sessions.close(dev, { sessionUuid: s.uuid });
      const r = await sessions.reopen(dev, { sessionUuid: s.uuid });
      expect(r).toMatchObject({ status: 'active', closedAt: null });
      expect((await sessionRow(s.uuid)).closed_at).toBeNull();
      await expect(sessions.reopen(dev2, { sessionUuid: s.uuid })).rejects.toMatchObject({ code: 'FORBIDDEN' });
      await expect(sessions.close(dev2, { sessionUuid: s.uuid })).rejects.toMatchObject({ code: 'FORBIDDEN', message: 'Session belongs to another agent' });
      expect((await sessionRow(s.uuid)).status).toBe('active');
    });
  });

  describe('reads', () => {
    it('list: the caller\'s own sessions, newest first, optional status; listForCompany for the web', async () => {
      // A company of its own: its admin, and two developer agents of that admin.
      const c = (await world.company()).uuid;
      const theirAdmin = userActor(await world.user(c));
      const theirDev = (await world.agent(c, theirAdmin.uuid, { preset: 'developer_agent' })).actor;
      const theirDev2 = (await world.agent(c, theirAdmin.uuid, { preset: 'developer_agent' })).actor;
      const s1 = await sessions.create(theirDev, { name: 'one' });
      await tick();
      const s2 = await sessions.create(theirDev, { name: 'two' });
      await tick();
      const s3 = await sessions.create(theirDev2, { name: 'three' });
      await sessions.close(theirDev, { sessionUuid: s1.uuid });

      const mine = await sessions.list(theirDev, {});
      expect(mine).toMatchObject({ page: 1, pageSize: 20, total: 2 });
      expect(mine.sessions.map((s) => s.uuid)).toEqual([s2.uuid, s1.uuid]);
      expect((await sessions.list(theirDev, { status: 'closed' })).sessions.map((s) => s.uuid)).toEqual([s1.uuid]);
      expect((await sessions.list(theirDev, { pageSize: 1, page: 2 })).sessions.map((s) => s.uuid)).toEqual([s1.uuid]);
      // An unknown status is the DTO's: src/modules/sessions/dto/session.dto.spec.ts.

      const all = await sessions.listForCompany(theirAdmin, {});
      expect(all.sessions.map((s) => s.uuid)).toEqual([s3.uuid, s2.uuid, s1.uuid]);
      expect((await sessions.listForCompany(theirAdmin, { agentUuid: theirDev2.uuid })).sessions.map((s) => s.uuid)).toEqual([s3.uuid]);
      expect((await sessions.listForCompany(theirAdmin, { status: 'active' })).total).toBe(2);
      // Another company sees none of them.
      expect((await sessions.listForCompany(admin, { agentUuid: theirDev.uuid })).total).toBe(0);
    });

    it('get: own session only', async () => {
      const s = await newSession('mine');
      expect((await sessions.get(dev, { sessionUuid: s.uuid })).name).toBe('mine');
      await expect(sessions.get(dev2, { sessionUuid: s.uuid })).rejects.toMatchObject({ code: 'FORBIDDEN', message: 'Session belongs to another agent' });
      await expect(sessions.get(dev, { sessionUuid: 'x' })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Session not found' });
    });
  });
});
