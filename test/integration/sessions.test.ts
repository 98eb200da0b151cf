import type { SessionRecord } from '../../src/modules/sessions/index.js';
import { expectRefused, TaskFactory, type TaskWorld } from '../factories/task.factory.js';
import { type Harness, World } from '../utils/world.js';
import type { TestDatabase } from '../utils/test-database.js';

/** Agent sessions: the state machine of docs/domain.md §7 and the session tools of docs/tool-conventions.md §5.3. */
describe('agent sessions', () => {
  let world: World;
  let tdb: TestDatabase;
  let h: Harness;
  let f: TaskFactory;
  let w: TaskWorld;

  beforeAll(async () => {
    world = await World.database();
    tdb = world.db;
    h = world.h;
    f = new TaskFactory(world);
    w = await f.world();
  });
  afterAll(() => world.close());
  beforeEach(() => h.takeEvents());

  const updated = (taskUuid: string) => ({ companyUuid: w.companyUuid, projectUuid: w.projectUuid, entityType: 'task', entityUuid: taskUuid, action: 'updated' });
  const sessionRow = async (uuid: string) =>
    (await tdb.dataSource.query(`SELECT status, last_active_at, closed_at FROM agent_session WHERE uuid = $1`, [uuid]))[0] as { status: string; last_active_at: Date; closed_at: Date | null };
  const checkinRow = async (sessionUuid: string, taskUuid: string) =>
    (await tdb.dataSource.query(`SELECT checkin_at, checkout_at FROM session_task_checkin WHERE session_uuid = $1 AND task_uuid = $2`, [sessionUuid, taskUuid]))[0] as
      | { checkin_at: Date; checkout_at: Date | null }
      | undefined;
  const tick = () => new Promise((r) => setTimeout(r, 10));
  const newSession = (name = 'worker'): Promise<SessionRecord> => f.sessions.create(w.dev, { name });

  it('create: an active session of the calling agent, no event', async () => {
    const s = await f.sessions.create(w.dev, { name: '  worker-1 ', description: 'parallel runner' });
    expect(Object.keys(s)).toEqual(['uuid', 'agentUuid', 'name', 'description', 'status', 'lastActiveAt', 'closedAt', 'checkins', 'createdAt', 'updatedAt']);
    expect(s).toMatchObject({ agentUuid: w.dev.uuid, name: 'worker-1', description: 'parallel runner', status: 'active', closedAt: null, checkins: [] });
    expect(h.takeEvents()).toEqual([]);
    await expect(f.sessions.create(w.dev, { name: ' ' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(f.sessions.create(w.admin, { name: 'x' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  describe('check-in', () => {
    it('of an open task claims it through the claim path: one task updated, activities assigned + session_checkin', async () => {
      const s = await newSession();
      const task = await f.task(w.admin, w.projectUuid);
      h.takeEvents();
      const r = await f.sessions.checkinTask(w.dev, { sessionUuid: s.uuid, taskUuid: task.uuid });
      expect(r).toMatchObject({ sessionUuid: s.uuid, taskUuid: task.uuid, claimed: true, task: { uuid: task.uuid, status: 'assigned', assignee: { type: 'agent', uuid: w.dev.uuid } } });
      expect(Object.keys(r)).toEqual(['sessionUuid', 'taskUuid', 'checkinAt', 'claimed', 'task']);
      expect(h.takeEvents()).toEqual([updated(task.uuid)]);
      const [act] = (await f.activities(task.uuid)).slice(-1);
      expect(act).toMatchObject({ action: 'assigned', session_uuid: s.uuid, session_name: 'worker' });
      expect((act.value as { changes: Array<{ action: string }> }).changes.map((c) => c.action)).toEqual(['assigned', 'session_checkin']);
      expect((await checkinRow(s.uuid, task.uuid))!.checkout_at).toBeNull();
      const got = await f.sessions.get(w.dev, { sessionUuid: s.uuid });
      expect(got.checkins).toEqual([{ taskUuid: task.uuid, taskTitle: task.title, checkinAt: r.checkinAt }]);
    });

    it('of a task held by someone else, or by the caller: no claim, status unchanged', async () => {
      const s = await newSession();
      const theirs = await f.taskIn('in_progress', w, w.otherDev);
      const mine = await f.taskIn('assigned', w, w.dev);
      h.takeEvents();
      const r1 = await f.sessions.checkinTask(w.dev, { sessionUuid: s.uuid, taskUuid: theirs });
      expect(r1).toMatchObject({ claimed: false, task: { status: 'in_progress', assignee: { uuid: w.otherDev.uuid } } });
      const r2 = await f.sessions.checkinTask(w.dev, { sessionUuid: s.uuid, taskUuid: mine });
      expect(r2).toMatchObject({ claimed: false, task: { status: 'assigned' } });
      expect(h.takeEvents()).toEqual([updated(theirs), updated(mine)]);
      expect((await f.activities(theirs)).at(-1)).toMatchObject({ action: 'session_checkin', value: { sessionUuid: s.uuid, sessionName: 'worker' } });
    });

    it('a second check-in re-activates the same row', async () => {
      const s = await newSession();
      const uuid = await f.taskIn('assigned', w, w.dev);
      const first = await f.sessions.checkinTask(w.dev, { sessionUuid: s.uuid, taskUuid: uuid });
      await f.sessions.checkoutTask(w.dev, { sessionUuid: s.uuid, taskUuid: uuid });
      await tick();
      const second = await f.sessions.checkinTask(w.dev, { sessionUuid: s.uuid, taskUuid: uuid });
      expect(new Date(second.checkinAt).getTime()).toBeGreaterThan(new Date(first.checkinAt).getTime());
      const rows = await tdb.dataSource.query(`SELECT checkin_at, checkout_at FROM session_task_checkin WHERE task_uuid = $1`, [uuid]);
      expect(rows).toEqual([{ checkin_at: new Date(second.checkinAt), checkout_at: null }]);
    });

    it.each(['done', 'closed'] as const)('of a %s task: INVALID_STATE, nothing written', async (status) => {
      const s = await newSession();
      const uuid = await f.taskIn(status, w, w.dev);
      await expectRefused(f, h, uuid, () => f.sessions.checkinTask(w.dev, { sessionUuid: s.uuid, taskUuid: uuid }), 'INVALID_STATE', `Task is ${status}; check-in requires open, assigned, in_progress or to_verify`);
    });

    it('guards: closed session INVALID_STATE, foreign session FORBIDDEN, unknown session or task NOT_FOUND', async () => {
      const uuid = await f.taskIn('open', w, w.dev);
      const closed = await newSession();
      await f.sessions.close(w.dev, { sessionUuid: closed.uuid });
      const foreign = await f.sessions.create(w.dev2, { name: 'theirs' });
      await expectRefused(f, h, uuid, () => f.sessions.checkinTask(w.dev, { sessionUuid: closed.uuid, taskUuid: uuid }), 'INVALID_STATE', 'Session is closed; check-in requires active');
      await expectRefused(f, h, uuid, () => f.sessions.checkinTask(w.dev, { sessionUuid: foreign.uuid, taskUuid: uuid }), 'FORBIDDEN', 'Session belongs to another agent');
      await expectRefused(f, h, uuid, () => f.sessions.checkinTask(w.dev, { sessionUuid: '00000000-0000-4000-8000-000000000000', taskUuid: uuid }), 'NOT_FOUND', 'Session not found');
      const s = await newSession();
      await expect(f.sessions.checkinTask(w.dev, { sessionUuid: s.uuid, taskUuid: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Task not found' });
      expect((await f.sessions.get(w.dev, { sessionUuid: s.uuid })).checkins).toEqual([]);
    });
  });

  describe('check-out', () => {
    it('closes the open check-in without touching the task status', async () => {
      const s = await newSession();
      const uuid = await f.taskIn('in_progress', w, w.dev);
      const c = await f.sessions.checkinTask(w.dev, { sessionUuid: s.uuid, taskUuid: uuid });
      h.takeEvents();
      const r = await f.sessions.checkoutTask(w.dev, { sessionUuid: s.uuid, taskUuid: uuid });
      expect(r).toEqual({ sessionUuid: s.uuid, taskUuid: uuid, checkinAt: c.checkinAt, checkoutAt: expect.any(String) });
      expect((await checkinRow(s.uuid, uuid))!.checkout_at).toEqual(new Date(r.checkoutAt));
      expect(h.takeEvents()).toEqual([updated(uuid)]);
      expect((await f.activities(uuid)).at(-1)).toMatchObject({ action: 'session_checkout', session_uuid: s.uuid });
      expect((await f.tasks.get(w.dev, { taskUuid: uuid })).status).toBe('in_progress');
      expect((await sessionRow(s.uuid)).last_active_at).toEqual(new Date(r.checkoutAt));
    });

    it('without an open check-in: NOT_FOUND "Check-in not found"; on a closed session: INVALID_STATE', async () => {
      const s = await newSession();
      const uuid = await f.taskIn('assigned', w, w.dev);
      await expectRefused(f, h, uuid, () => f.sessions.checkoutTask(w.dev, { sessionUuid: s.uuid, taskUuid: uuid }), 'NOT_FOUND', 'Check-in not found');
      await f.sessions.checkinTask(w.dev, { sessionUuid: s.uuid, taskUuid: uuid });
      await f.sessions.checkoutTask(w.dev, { sessionUuid: s.uuid, taskUuid: uuid });
      await expectRefused(f, h, uuid, () => f.sessions.checkoutTask(w.dev, { sessionUuid: s.uuid, taskUuid: uuid }), 'NOT_FOUND', 'Check-in not found');
      await f.sessions.close(w.dev, { sessionUuid: s.uuid });
      await expectRefused(f, h, uuid, () => f.sessions.checkoutTask(w.dev, { sessionUuid: s.uuid, taskUuid: uuid }), 'INVALID_STATE', 'Session is closed; checkout requires active');
      await expectRefused(f, h, uuid, () => f.sessions.checkoutTask(w.dev2, { sessionUuid: s.uuid, taskUuid: uuid }), 'FORBIDDEN');
    });
  });

  describe('heartbeat', () => {
    it('moves lastActiveAt; refused on a closed session; publishes nothing', async () => {
      const s = await newSession();
      await tick();
      const r = await f.sessions.heartbeat(w.dev, { sessionUuid: s.uuid });
      expect(r).toEqual({ uuid: s.uuid, status: 'active', lastActiveAt: expect.any(String) });
      expect(new Date(r.lastActiveAt).getTime()).toBeGreaterThan(new Date(s.lastActiveAt).getTime());
      expect((await sessionRow(s.uuid)).last_active_at).toEqual(new Date(r.lastActiveAt));
      expect(h.takeEvents()).toEqual([]);
      await f.sessions.close(w.dev, { sessionUuid: s.uuid });
      const before = await sessionRow(s.uuid);
      await expect(f.sessions.heartbeat(w.dev, { sessionUuid: s.uuid })).rejects.toMatchObject({ code: 'INVALID_STATE', message: 'Session is closed; heartbeat requires active' });
      expect(await sessionRow(s.uuid)).toEqual(before);
      await expect(f.sessions.heartbeat(w.dev2, { sessionUuid: s.uuid })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    });
  });

  describe('close and reopen', () => {
    it('close checks out every open check-in with one task updated per task; closing again is unchanged', async () => {
      const s = await newSession();
      const a = await f.taskIn('assigned', w, w.dev);
      const b = await f.taskIn('in_progress', w, w.dev);
      await f.sessions.checkinTask(w.dev, { sessionUuid: s.uuid, taskUuid: a });
      await f.sessions.checkinTask(w.dev, { sessionUuid: s.uuid, taskUuid: b });
      h.takeEvents();
      const r = await f.sessions.close(w.dev, { sessionUuid: s.uuid });
      expect(r).toMatchObject({ status: 'closed', checkins: [], closedAt: expect.any(String) });
      expect(h.takeEvents()).toEqual([updated(a), updated(b)]);
      expect((await checkinRow(s.uuid, a))!.checkout_at).not.toBeNull();
      expect((await f.activities(b)).at(-1)).toMatchObject({ action: 'session_checkout', session_uuid: s.uuid });
      expect((await f.tasks.get(w.dev, { taskUuid: a })).activeSessions).toEqual([]);

      const again = await f.sessions.close(w.dev, { sessionUuid: s.uuid });
      expect(again).toEqual(r);
      expect(h.takeEvents()).toEqual([]);
    });

    it('reopen: closed -> active with closedAt cleared; an active session refuses', async () => {
      const s = await newSession();
      await expect(f.sessions.reopen(w.dev, { sessionUuid: s.uuid })).rejects.toMatchObject({ code: 'INVALID_STATE', message: 'Session is active; reopen requires closed' });
      await f.sessions.close(w.dev, { sessionUuid: s.uuid });
      const r = await f.sessions.reopen(w.dev, { sessionUuid: s.uuid });
      expect(r).toMatchObject({ status: 'active', closedAt: null });
      expect((await sessionRow(s.uuid)).closed_at).toBeNull();
      await expect(f.sessions.reopen(w.dev2, { sessionUuid: s.uuid })).rejects.toMatchObject({ code: 'FORBIDDEN' });
      await expect(f.sessions.close(w.dev2, { sessionUuid: s.uuid })).rejects.toMatchObject({ code: 'FORBIDDEN', message: 'Session belongs to another agent' });
      expect((await sessionRow(s.uuid)).status).toBe('active');
    });
  });

  describe('reads', () => {
    it('list: the caller\'s own sessions, newest first, optional status; listForCompany for the web', async () => {
      const world = await f.world();
      const s1 = await f.sessions.create(world.dev, { name: 'one' });
      await tick();
      const s2 = await f.sessions.create(world.dev, { name: 'two' });
      await tick();
      const s3 = await f.sessions.create(world.dev2, { name: 'three' });
      await f.sessions.close(world.dev, { sessionUuid: s1.uuid });

      const mine = await f.sessions.list(world.dev, {});
      expect(mine).toMatchObject({ page: 1, pageSize: 20, total: 2 });
      expect(mine.sessions.map((s) => s.uuid)).toEqual([s2.uuid, s1.uuid]);
      expect((await f.sessions.list(world.dev, { status: 'closed' })).sessions.map((s) => s.uuid)).toEqual([s1.uuid]);
      expect((await f.sessions.list(world.dev, { pageSize: 1, page: 2 })).sessions.map((s) => s.uuid)).toEqual([s1.uuid]);
      // An unknown status is the DTO's: src/modules/sessions/dto/session.dto.spec.ts.

      const all = await f.sessions.listForCompany(world.admin, {});
      expect(all.sessions.map((s) => s.uuid)).toEqual([s3.uuid, s2.uuid, s1.uuid]);
      expect((await f.sessions.listForCompany(world.admin, { agentUuid: world.dev2.uuid })).sessions.map((s) => s.uuid)).toEqual([s3.uuid]);
      expect((await f.sessions.listForCompany(world.admin, { status: 'active' })).total).toBe(2);
      // Another company sees none of them.
      expect((await f.sessions.listForCompany(w.admin, { agentUuid: world.dev.uuid })).total).toBe(0);
    });

    it('get: own session only', async () => {
      const s = await newSession('mine');
      expect((await f.sessions.get(w.dev, { sessionUuid: s.uuid })).name).toBe('mine');
      await expect(f.sessions.get(w.dev2, { sessionUuid: s.uuid })).rejects.toMatchObject({ code: 'FORBIDDEN', message: 'Session belongs to another agent' });
      await expect(f.sessions.get(w.dev, { sessionUuid: 'x' })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Session not found' });
    });
  });
});
