import { randomUUID } from 'node:crypto';
import { keysOf, McpWorld, SESSION_RECORD_KEYS, sortedKeys, TASK_SUMMARY_KEYS, type McpAgent } from '../utils/mcp-world.js';

/** Session tools (docs/tool-conventions.md §5.3) through the official SDK client over HTTP. */
describe('session tools (e2e)', () => {
  let w: McpWorld;

  beforeAll(async () => {
    w = await McpWorld.start();
  }, 60_000);
  afterAll(() => w.close());
  beforeEach(() => w.takeEvents());

  const sessionRows = (uuid: string): Promise<unknown> =>
    Promise.all([
      w.app.db.dataSource.query(`SELECT * FROM agent_session WHERE uuid = $1`, [uuid]),
      w.app.db.dataSource.query(`SELECT * FROM session_task_checkin WHERE session_uuid = $1 ORDER BY task_uuid`, [uuid]),
    ]);

  /** A refusal that leaves the named sessions (and tasks) as they were and publishes nothing. */
  async function refused(agent: McpAgent, tool: string, args: Record<string, unknown>, code: string, message: string, sessions: string[] = [], tasks: string[] = []): Promise<void> {
    const before = await Promise.all(sessions.map(sessionRows));
    await w.refused(agent, tool, args, code, message, tasks);
    expect(await Promise.all(sessions.map(sessionRows))).toEqual(before);
  }

  const open = (agent: McpAgent, name = 'Worker'): Promise<any> => w.ok(agent, 'svc_create_session', { name });
  const closedSession = async (agent: McpAgent): Promise<string> => {
    const s = await open(agent, 'Closed');
    await w.ok(agent, 'svc_close_session', { sessionUuid: s.uuid });
    return s.uuid;
  };

  it('publishes the session tools ungated with their annotations', async () => {
    const expected: Record<string, [string, boolean, boolean, boolean]> = {
      svc_create_session: ['Create session', false, false, false],
      svc_session_checkin_task: ['Check in to task', false, false, false],
      svc_session_checkout_task: ['Check out of task', false, false, true],
      svc_session_heartbeat: ['Session heartbeat', false, false, true],
      svc_close_session: ['Close session', false, false, true],
      svc_reopen_session: ['Reopen session', false, false, false],
      svc_list_sessions: ['List sessions', true, false, true],
      svc_get_session: ['Get session', true, false, true],
    };
    const { tools } = await w.dev.client.listTools();
    const names = tools.map((t) => t.name);
    expect(names.filter((n) => n in expected)).toEqual(Object.keys(expected));
    for (const [name, [title, readOnlyHint, destructiveHint, idempotentHint]] of Object.entries(expected)) {
      expect(tools.find((t) => t.name === name)!.annotations).toEqual({ title, readOnlyHint, destructiveHint, idempotentHint, openWorldHint: false });
    }
  });

  describe('svc_create_session', () => {
    it('creates an active session of the caller without a change event', async () => {
      const s = await w.ok(w.dev, 'svc_create_session', { name: '  Builder  ', description: 'Builds things' });
      expect(sortedKeys(s)).toEqual(keysOf(SESSION_RECORD_KEYS));
      expect(s).toMatchObject({ agentUuid: w.dev.uuid, name: 'Builder', description: 'Builds things', status: 'active', closedAt: null, checkins: [] });
      expect(w.takeEvents()).toEqual([]);
    });

    it('validates its arguments', async () => {
      const before = (await w.app.db.dataSource.query(`SELECT count(*)::int AS n FROM agent_session`))[0].n;
      const err = await w.refused(w.dev, 'svc_create_session', { description: 5, extra: 1 }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(err.details).toEqual(
        expect.arrayContaining([
          { path: 'name', message: expect.any(String) },
          { path: 'description', message: expect.any(String) },
          { path: 'extra', message: 'should not exist' },
        ]),
      );
      await w.refused(w.dev, 'svc_create_session', { name: '   ' }, 'VALIDATION_ERROR', 'Name must be 1-200 characters');
      expect((await w.app.db.dataSource.query(`SELECT count(*)::int AS n FROM agent_session`))[0].n).toBe(before);
    });
  });

  describe('svc_session_checkin_task', () => {
    it('checks in and claims an open task, with one task update', async () => {
      const s = await open(w.dev);
      const task = await w.task();
      const r = await w.ok(w.dev, 'svc_session_checkin_task', { sessionUuid: s.uuid, taskUuid: task });
      expect(sortedKeys(r)).toEqual(['checkinAt', 'claimed', 'sessionUuid', 'task', 'taskUuid']);
      expect(r).toMatchObject({ sessionUuid: s.uuid, taskUuid: task, claimed: true });
      expect(sortedKeys(r.task)).toEqual(keysOf(TASK_SUMMARY_KEYS));
      expect(r.task).toMatchObject({ status: 'assigned', assignee: { type: 'agent', uuid: w.dev.uuid } });
      expect(w.takeEvents()).toEqual([w.taskEvent(task)]);
      const session = await w.ok(w.dev, 'svc_get_session', { sessionUuid: s.uuid });
      expect(session.checkins).toEqual([{ taskUuid: task, taskTitle: expect.any(String), checkinAt: r.checkinAt }]);
      const record = await w.ok(w.dev, 'svc_get_task', { taskUuid: task });
      expect(record.activeSessions).toEqual([{ sessionUuid: s.uuid, sessionName: 'Worker', agentUuid: w.dev.uuid, checkinAt: r.checkinAt }]);
    });

    it('checks in without claiming a task that is already held', async () => {
      const s = await open(w.dev);
      const others = await w.taskIn('in_progress', w.dev2.actor);
      const r = await w.ok(w.dev, 'svc_session_checkin_task', { sessionUuid: s.uuid, taskUuid: others });
      expect(r.claimed).toBe(false);
      expect(r.task).toMatchObject({ status: 'in_progress', assignee: { uuid: w.dev2.uuid } });
      expect(w.takeEvents()).toEqual([w.taskEvent(others)]);
    });

    it('refuses foreign, other agents\' and closed sessions, missing tasks and finished tasks', async () => {
      const s = await open(w.dev);
      const theirs = await open(w.dev2);
      const closed = await closedSession(w.dev);
      const task = await w.task();
      const done = await w.taskIn('done', w.dev.actor);
      const closedTask = await w.taskIn('closed', w.dev.actor);
      const foreignTask = await w.task({}, w.foreign.projectUuid, w.foreign.owner);
      const call = (sessionUuid: string, taskUuid: string) => ({ sessionUuid, taskUuid });
      await refused(w.dev, 'svc_session_checkin_task', call(randomUUID(), task), 'NOT_FOUND', 'Session not found', [], [task]);
      await refused(w.dev, 'svc_session_checkin_task', call(theirs.uuid, task), 'FORBIDDEN', 'Session belongs to another agent', [theirs.uuid], [task]);
      await refused(w.dev, 'svc_session_checkin_task', call(closed, task), 'INVALID_STATE', 'Session is closed; check-in requires active', [closed], [task]);
      const err = await w.refused(w.dev, 'svc_session_checkin_task', call(closed, task), 'INVALID_STATE', 'Session is closed; check-in requires active');
      expect(err.hints).toEqual(['Reopen it with svc_reopen_session, or start a new one with svc_create_session']);
      await refused(w.dev, 'svc_session_checkin_task', call(s.uuid, randomUUID()), 'NOT_FOUND', 'Task not found', [s.uuid]);
      await refused(w.dev, 'svc_session_checkin_task', call(s.uuid, foreignTask), 'NOT_FOUND', 'Task not found', [s.uuid], [foreignTask]);
      for (const [uuid, status] of [
        [done, 'done'],
        [closedTask, 'closed'],
      ]) {
        await refused(w.dev, 'svc_session_checkin_task', call(s.uuid, uuid), 'INVALID_STATE', `Task is ${status}; check-in requires open, assigned, in_progress or to_verify`, [s.uuid], [uuid]);
      }
    });
  });

  describe('svc_session_checkout_task', () => {
    it('checks out without touching the task status', async () => {
      const s = await open(w.dev);
      const task = await w.taskIn('in_progress', w.dev.actor);
      const checkin = await w.ok(w.dev, 'svc_session_checkin_task', { sessionUuid: s.uuid, taskUuid: task });
      w.takeEvents();
      const r = await w.ok(w.dev, 'svc_session_checkout_task', { sessionUuid: s.uuid, taskUuid: task });
      expect(r).toEqual({ sessionUuid: s.uuid, taskUuid: task, checkinAt: checkin.checkinAt, checkoutAt: expect.any(String) });
      expect(w.takeEvents()).toEqual([w.taskEvent(task)]);
      expect((await w.ok(w.dev, 'svc_get_task', { taskUuid: task })).status).toBe('in_progress');
      expect((await w.ok(w.dev, 'svc_get_session', { sessionUuid: s.uuid })).checkins).toEqual([]);
      await refused(w.dev, 'svc_session_checkout_task', { sessionUuid: s.uuid, taskUuid: task }, 'NOT_FOUND', 'Check-in not found', [s.uuid], [task]);
    });

    it('refuses closed, other agents\' and missing sessions and unknown tasks', async () => {
      const s = await open(w.dev);
      const theirs = await open(w.dev2);
      const closed = await closedSession(w.dev);
      const task = await w.task();
      await refused(w.dev, 'svc_session_checkout_task', { sessionUuid: closed, taskUuid: task }, 'INVALID_STATE', 'Session is closed; checkout requires active', [closed], [task]);
      await refused(w.dev, 'svc_session_checkout_task', { sessionUuid: theirs.uuid, taskUuid: task }, 'FORBIDDEN', 'Session belongs to another agent', [theirs.uuid], [task]);
      await refused(w.dev, 'svc_session_checkout_task', { sessionUuid: randomUUID(), taskUuid: task }, 'NOT_FOUND', 'Session not found', [], [task]);
      await refused(w.dev, 'svc_session_checkout_task', { sessionUuid: s.uuid, taskUuid: randomUUID() }, 'NOT_FOUND', 'Task not found', [s.uuid]);
      await refused(w.dev, 'svc_session_checkout_task', { sessionUuid: s.uuid, taskUuid: task }, 'NOT_FOUND', 'Check-in not found', [s.uuid], [task]);
    });
  });

  describe('svc_session_heartbeat', () => {
    it('refreshes lastActiveAt of an active session without events', async () => {
      const s = await open(w.dev);
      await new Promise((r) => setTimeout(r, 5));
      const r = await w.ok(w.dev, 'svc_session_heartbeat', { sessionUuid: s.uuid });
      expect(r).toEqual({ uuid: s.uuid, status: 'active', lastActiveAt: expect.any(String) });
      expect(Date.parse(r.lastActiveAt)).toBeGreaterThan(Date.parse(s.lastActiveAt));
      expect(w.takeEvents()).toEqual([]);
      expect((await w.ok(w.dev, 'svc_get_session', { sessionUuid: s.uuid })).lastActiveAt).toBe(r.lastActiveAt);
    });

    it('refuses closed, other agents\' and missing sessions', async () => {
      const closed = await closedSession(w.dev);
      const theirs = await open(w.dev2);
      await refused(w.dev, 'svc_session_heartbeat', { sessionUuid: closed }, 'INVALID_STATE', 'Session is closed; heartbeat requires active', [closed]);
      await refused(w.dev, 'svc_session_heartbeat', { sessionUuid: theirs.uuid }, 'FORBIDDEN', 'Session belongs to another agent', [theirs.uuid]);
      await refused(w.dev, 'svc_session_heartbeat', { sessionUuid: randomUUID() }, 'NOT_FOUND', 'Session not found');
    });
  });

  describe('svc_close_session and svc_reopen_session', () => {
    it('closes, checking out of every task with one update each; closing again changes nothing', async () => {
      const s = await open(w.dev);
      const a = await w.task();
      const b = await w.taskIn('in_progress', w.dev.actor);
      for (const t of [a, b]) await w.ok(w.dev, 'svc_session_checkin_task', { sessionUuid: s.uuid, taskUuid: t });
      w.takeEvents();
      const r = await w.ok(w.dev, 'svc_close_session', { sessionUuid: s.uuid });
      expect(sortedKeys(r)).toEqual(keysOf(SESSION_RECORD_KEYS));
      expect(r).toMatchObject({ uuid: s.uuid, status: 'closed', closedAt: expect.any(String), checkins: [] });
      const events = w.takeEvents();
      expect(events).toHaveLength(2);
      expect(events).toEqual(expect.arrayContaining([w.taskEvent(a), w.taskEvent(b)]));
      expect((await w.ok(w.dev, 'svc_get_task', { taskUuid: b })).status).toBe('in_progress');

      const before = await sessionRows(s.uuid);
      expect(await w.ok(w.dev, 'svc_close_session', { sessionUuid: s.uuid })).toEqual(r);
      expect(await sessionRows(s.uuid)).toEqual(before);
      expect(w.takeEvents()).toEqual([]);
    });

    it('reopens a closed session without events and refuses an active one', async () => {
      const s = await open(w.dev);
      await refused(w.dev, 'svc_reopen_session', { sessionUuid: s.uuid }, 'INVALID_STATE', 'Session is active; reopen requires closed', [s.uuid]);
      // Nothing needs moving on: no hints field at all (docs/tool-conventions.md §1.1).
      expect(await w.refused(w.dev, 'svc_reopen_session', { sessionUuid: s.uuid }, 'INVALID_STATE')).toEqual({ code: 'INVALID_STATE', message: 'Session is active; reopen requires closed' });
      await w.ok(w.dev, 'svc_close_session', { sessionUuid: s.uuid });
      w.takeEvents();
      const r = await w.ok(w.dev, 'svc_reopen_session', { sessionUuid: s.uuid });
      expect(sortedKeys(r)).toEqual(keysOf(SESSION_RECORD_KEYS));
      expect(r).toMatchObject({ status: 'active', closedAt: null });
      expect(w.takeEvents()).toEqual([]);
    });

    it('refuses other agents\' and missing sessions', async () => {
      const theirs = await open(w.dev2);
      const theirsClosed = await closedSession(w.dev2);
      await refused(w.dev, 'svc_close_session', { sessionUuid: theirs.uuid }, 'FORBIDDEN', 'Session belongs to another agent', [theirs.uuid]);
      await refused(w.dev, 'svc_reopen_session', { sessionUuid: theirsClosed }, 'FORBIDDEN', 'Session belongs to another agent', [theirsClosed]);
      await refused(w.dev, 'svc_close_session', { sessionUuid: randomUUID() }, 'NOT_FOUND', 'Session not found');
      await refused(w.dev, 'svc_reopen_session', { sessionUuid: randomUUID() }, 'NOT_FOUND', 'Session not found');
    });
  });

  describe('reads', () => {
    it('svc_list_sessions lists only the caller\'s sessions, newest first, by status and page', async () => {
      const me = await w.agent(w.companyUuid, w.ownerUser.uuid, 'developer_agent', 'Lister');
      const first = await open(me, 'first');
      const second = await open(me, 'second');
      const third = await open(me, 'third');
      await w.ok(me, 'svc_close_session', { sessionUuid: second.uuid });
      await open(w.dev2, 'not mine');
      const all = await w.ok(me, 'svc_list_sessions');
      expect(all).toMatchObject({ page: 1, pageSize: 20, total: 3 });
      expect(all.sessions.map((s: { uuid: string }) => s.uuid)).toEqual([third.uuid, second.uuid, first.uuid]);
      expect(sortedKeys(all.sessions[0])).toEqual(keysOf(SESSION_RECORD_KEYS));
      expect((await w.ok(me, 'svc_list_sessions', { status: 'closed' })).sessions.map((s: { uuid: string }) => s.uuid)).toEqual([second.uuid]);
      const page2 = await w.ok(me, 'svc_list_sessions', { page: 2, pageSize: 2 });
      expect(page2).toMatchObject({ page: 2, pageSize: 2, total: 3 });
      expect(page2.sessions.map((s: { uuid: string }) => s.uuid)).toEqual([first.uuid]);
      for (const args of [{ pageSize: 0 }, { page: 0 }, { status: 'sleeping' }]) await w.refused(me, 'svc_list_sessions', args, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(w.takeEvents()).toEqual([]);
    });

    it('svc_get_session returns the caller\'s own session only', async () => {
      const s = await open(w.dev);
      expect(await w.ok(w.dev, 'svc_get_session', { sessionUuid: s.uuid })).toEqual(s);
      await w.refused(w.dev2, 'svc_get_session', { sessionUuid: s.uuid }, 'FORBIDDEN', 'Session belongs to another agent');
      await w.refused(w.dev, 'svc_get_session', { sessionUuid: randomUUID() }, 'NOT_FOUND', 'Session not found');
      const bad = await w.refused(w.dev, 'svc_get_session', { sessionUuid: 'abc' }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(bad.details).toEqual([{ path: 'sessionUuid', message: expect.any(String) }]);
    });
  });

  it('treats another company\'s sessions as not found for every session tool', async () => {
    const s = await open(w.dev);
    const task = await w.task();
    await w.ok(w.dev, 'svc_session_checkin_task', { sessionUuid: s.uuid, taskUuid: task });
    w.takeEvents();
    const foreignTask = await w.task({}, w.foreign.projectUuid, w.foreign.owner);
    const calls: Array<[string, Record<string, unknown>]> = [
      ['svc_session_checkin_task', { taskUuid: foreignTask }],
      ['svc_session_checkout_task', { taskUuid: task }],
      ['svc_session_heartbeat', {}],
      ['svc_close_session', {}],
      ['svc_reopen_session', {}],
      ['svc_get_session', {}],
    ];
    for (const [tool, extra] of calls) await refused(w.foreign.admin, tool, { sessionUuid: s.uuid, ...extra }, 'NOT_FOUND', 'Session not found', [s.uuid], [task]);
    expect((await w.ok(w.foreign.admin, 'svc_list_sessions')).sessions.map((x: { uuid: string }) => x.uuid)).not.toContain(s.uuid);
  });
});
