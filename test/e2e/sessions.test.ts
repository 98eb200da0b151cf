import { userActor, World, type WorldAgent } from '../utils/world.js';
import { ChangeEvents } from '../utils/change-events.js';
import { HttpClient } from '../utils/http.js';
import { expectError, expectValidation } from '../utils/rest-expect.js';
import { SessionService } from '../../src/modules/sessions/session.service.js';
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../src/shared/auth/actor.js';
import type { RealtimeEvent } from '../../src/shared/event-bus/events.js';
import type { NewTaskInput } from '../../src/modules/tasks/index.js';
import type { SeededUser } from '../factories/identity.factory.js';
import { expectRefused, keysOf, SESSION_RECORD_KEYS, sortedKeys, TASK_SUMMARY_KEYS } from '../utils/mcp-expect.js';
import { callTool, mcpClient } from '../utils/mcp-client.js';
import type { Client } from '@modelcontextprotocol/client';

/** One app for the whole file; each block below seeds companies of its own. */
let world: World;
beforeAll(async () => {
  world = await World.start();
});
afterAll(() => world.close());

describe('REST sessions: the read-only view of agent sessions (e2e)', () => {
  let companyA: string;
  /** Logged-in users of company A and of company B. */
  let clientA: HttpClient;
  let clientB: HttpClient;
  let worker: string;
  let planner: string;
  let foreignAgent: string;
  /** Company A's sessions, newest first. */
  let sessions: { closed: string; checkedIn: string; idle: string };
  let taskUuid: string;

  beforeAll(async () => {
    companyA = (await world.company()).uuid;
    const companyB = (await world.company()).uuid;
    const [userA, userB] = [await world.user(companyA), await world.user(companyB)];
    [clientA, clientB] = [await world.login(userA), await world.login(userB)];
    const service = world.get(SessionService);
    const dev = await world.agent(companyA, userA.uuid, { preset: 'developer_agent' });
    const pm = await world.agent(companyA, userA.uuid, { preset: 'pm_agent' });
    const outsider = await world.agent(companyB, userB.uuid);
    [worker, planner, foreignAgent] = [dev.uuid, pm.uuid, outsider.uuid];
    const actorA = userActor(userA);
    const project = await world.project(actorA);
    taskUuid = (await world.domain.task(actorA, project, { title: 'Build it' })).uuid;

    const idle = (await service.create(dev.actor, { name: 'idle' })).uuid;
    const checkedIn = (await service.create(dev.actor, { name: 'worker' })).uuid;
    await service.checkinTask(dev.actor, { sessionUuid: checkedIn, taskUuid });
    const closed = (await service.create(pm.actor, { name: 'planner' })).uuid;
    await service.close(pm.actor, { sessionUuid: closed });
    await service.create(outsider.actor, { name: 'theirs' });
    sessions = { closed, checkedIn, idle };
  });

  const uuids = (res: { body: { data: { sessions: Array<{ uuid: string }> } } }) => res.body.data.sessions.map((s) => s.uuid);

  it('answers 401 without a session cookie', async () => {
    expectError(await world.http().get('/api/sessions'), 401, 'UNAUTHORIZED');
  });

  it("lists the company's sessions newest first with their open check-ins, and publishes nothing", async () => {
    const changes = await ChangeEvents.open(world, clientA.cookie!, companyA);
    const res = await clientA.get('/api/sessions');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ sessions: expect.any(Array), page: 1, pageSize: 20, total: 3 });
    expect(uuids(res)).toEqual([sessions.closed, sessions.checkedIn, sessions.idle]);
    expect(res.body.data.sessions[1]).toEqual({
      uuid: sessions.checkedIn,
      agentUuid: worker,
      name: 'worker',
      description: '',
      status: 'active',
      lastActiveAt: expect.any(String),
      closedAt: null,
      checkins: [{ taskUuid, taskTitle: 'Build it', checkinAt: expect.any(String) }],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(res.body.data.sessions[0]).toEqual(expect.objectContaining({ agentUuid: planner, status: 'closed', closedAt: expect.any(String), checkins: [] }));
    await changes.expectQuiet();
    changes.close();
  });

  it('filters by agent and status and pages; a foreign agent has no sessions here', async () => {
    expect(uuids(await clientA.get(`/api/sessions?agentUuid=${worker}`))).toEqual([sessions.checkedIn, sessions.idle]);
    expect(uuids(await clientA.get('/api/sessions?status=closed'))).toEqual([sessions.closed]);
    expect(uuids(await clientA.get(`/api/sessions?agentUuid=${worker}&status=active&page=2&pageSize=1`))).toEqual([sessions.idle]);
    expect(uuids(await clientA.get('/api/sessions?limit=1&offset=1'))).toEqual([sessions.checkedIn]);
    const foreign = await clientA.get(`/api/sessions?agentUuid=${foreignAgent}`);
    expect(foreign.body.data).toEqual({ sessions: [], page: 1, pageSize: 20, total: 0 });
    const theirs = await clientB.get('/api/sessions');
    expect(theirs.body.data.sessions.map((s: { name: string }) => s.name)).toEqual(['theirs']);
  });

  it('refuses bad filters and paging with 400 details', async () => {
    expectValidation(await clientA.get('/api/sessions?agentUuid=x'), 'agentUuid');
    expectValidation(await clientA.get('/api/sessions?status=paused'), 'status');
    expectValidation(await clientA.get('/api/sessions?pageSize=0'), 'pageSize');
    expect((await clientA.get('/api/sessions?taskUuid=x')).status).toBe(200);
  });
});

/** Session tools (docs/tool-conventions.md §5.3) through the official SDK client over HTTP. */
describe('session tools (e2e)', () => {
  let events: RealtimeEvent[];
  let companyUuid: string;
  let ownerUser: SeededUser;
  let owner: Actor;
  let projectUuid: string;
  // Two developer agents of company A (owned by its user "Owner"), and a foreign company's admin agent and project.
  let dev: WorldAgent;
  let dev2: WorldAgent;
  let foreign: { owner: Actor; projectUuid: string; admin: WorldAgent };

  beforeAll(async () => {
    const c = await world.company();
    companyUuid = c.uuid;
    ownerUser = await world.user(c.uuid, { name: 'Owner' });
    owner = userActor(ownerUser);
    projectUuid = await world.project(owner);
    dev = await world.agent(c.uuid, ownerUser.uuid, { preset: 'developer_agent', name: 'Dev' });
    dev2 = await world.agent(c.uuid, ownerUser.uuid, { preset: 'developer_agent', name: 'Dev2' });
    const f = await world.company();
    const mallory = userActor(await world.user(f.uuid, { name: 'Mallory' }));
    foreign = { owner: mallory, projectUuid: await world.project(mallory), admin: await world.agent(f.uuid, mallory.uuid, { preset: 'admin_agent', name: 'Evil' }) };
    events = world.recordEvents();
  }, 60_000);

  beforeEach(() => takeEvents());

  const takeEvents = (): RealtimeEvent[] => events.splice(0, events.length);
  /** An open task (criteria works, tested, and an optional one), of company A's project unless told. */
  const seedTask = async (overrides: Partial<NewTaskInput> = {}, project = projectUuid, creator = owner): Promise<string> => (await world.task(creator, project, overrides)).uuid;
  const seedTaskIn = (status: Parameters<World['taskIn']>[0], assignee: Actor): Promise<string> => world.taskIn(status, owner, projectUuid, assignee);
  const taskEvent = (entityUuid: string, action: RealtimeEvent['action'] = 'updated'): RealtimeEvent => ({ companyUuid, projectUuid, entityType: 'task', entityUuid, action });
  /** A refused call: the error code (and message), the named tasks' rows unchanged and no change event; returns the error. */
  const refusedCall = (agent: WorldAgent, name: string, args: Record<string, unknown>, code: string, message?: string, taskUuids: string[] = []) =>
    expectRefused(events, agent, name, args, { code, message, unchanged: () => Promise.all(taskUuids.map((u) => world.tasks.snapshot(u))) });

  const sessionRows = (uuid: string): Promise<unknown> =>
    Promise.all([
      world.ds.query(`SELECT * FROM agent_session WHERE uuid = $1`, [uuid]),
      world.ds.query(`SELECT * FROM session_task_checkin WHERE session_uuid = $1 ORDER BY task_uuid`, [uuid]),
    ]);

  /** A refusal that leaves the named sessions (and tasks) as they were and publishes nothing. */
  async function refused(agent: WorldAgent, tool: string, args: Record<string, unknown>, code: string, message: string, sessions: string[] = [], tasks: string[] = []): Promise<void> {
    const before = await Promise.all(sessions.map(sessionRows));
    await refusedCall(agent, tool, args, code, message, tasks);
    expect(await Promise.all(sessions.map(sessionRows))).toEqual(before);
  }

  const open = (agent: WorldAgent, name = 'Worker'): Promise<any> => world.ok(agent, 'svc_create_session', { name });
  const closedSession = async (agent: WorldAgent): Promise<string> => {
    const s = await open(agent, 'Closed');
    await world.ok(agent, 'svc_close_session', { sessionUuid: s.uuid });
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
    const { tools } = await dev.client.listTools();
    const names = tools.map((t) => t.name);
    expect(names.filter((n) => n in expected)).toEqual(Object.keys(expected));
    for (const [name, [title, readOnlyHint, destructiveHint, idempotentHint]] of Object.entries(expected)) {
      expect(tools.find((t) => t.name === name)!.annotations).toEqual({ title, readOnlyHint, destructiveHint, idempotentHint, openWorldHint: false });
    }
  });

  describe('svc_create_session', () => {
    it('creates an active session of the caller without a change event', async () => {
      const s = await world.ok(dev, 'svc_create_session', { name: '  Builder  ', description: 'Builds things' });
      expect(sortedKeys(s)).toEqual(keysOf(SESSION_RECORD_KEYS));
      expect(s).toMatchObject({ agentUuid: dev.uuid, name: 'Builder', description: 'Builds things', status: 'active', closedAt: null, checkins: [] });
      expect(takeEvents()).toEqual([]);
    });

    it('validates its arguments', async () => {
      const before = (await world.ds.query(`SELECT count(*)::int AS n FROM agent_session`))[0].n;
      const err = await refusedCall(dev, 'svc_create_session', { description: 5, extra: 1 }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(err.details).toEqual(
        expect.arrayContaining([
          { path: 'name', message: expect.any(String) },
          { path: 'description', message: expect.any(String) },
          { path: 'extra', message: 'should not exist' },
        ]),
      );
      await refusedCall(dev, 'svc_create_session', { name: '   ' }, 'VALIDATION_ERROR', 'Name must be 1-200 characters');
      expect((await world.ds.query(`SELECT count(*)::int AS n FROM agent_session`))[0].n).toBe(before);
    });
  });

  describe('svc_session_checkin_task', () => {
    it('checks in and claims an open task, with one task update', async () => {
      const s = await open(dev);
      const task = await seedTask();
      const r = await world.ok(dev, 'svc_session_checkin_task', { sessionUuid: s.uuid, taskUuid: task });
      expect(sortedKeys(r)).toEqual(['checkinAt', 'claimed', 'sessionUuid', 'task', 'taskUuid']);
      expect(r).toMatchObject({ sessionUuid: s.uuid, taskUuid: task, claimed: true });
      expect(sortedKeys(r.task)).toEqual(keysOf(TASK_SUMMARY_KEYS));
      expect(r.task).toMatchObject({ status: 'assigned', assignee: { type: 'agent', uuid: dev.uuid } });
      expect(takeEvents()).toEqual([taskEvent(task)]);
      const session = await world.ok(dev, 'svc_get_session', { sessionUuid: s.uuid });
      expect(session.checkins).toEqual([{ taskUuid: task, taskTitle: expect.any(String), checkinAt: r.checkinAt }]);
      const record = await world.ok(dev, 'svc_get_task', { taskUuid: task });
      expect(record.activeSessions).toEqual([{ sessionUuid: s.uuid, sessionName: 'Worker', agentUuid: dev.uuid, checkinAt: r.checkinAt }]);
    });

    it('checks in without claiming a task that is already held', async () => {
      const s = await open(dev);
      const others = await seedTaskIn('in_progress', dev2.actor);
      const r = await world.ok(dev, 'svc_session_checkin_task', { sessionUuid: s.uuid, taskUuid: others });
      expect(r.claimed).toBe(false);
      expect(r.task).toMatchObject({ status: 'in_progress', assignee: { uuid: dev2.uuid } });
      expect(takeEvents()).toEqual([taskEvent(others)]);
    });

    it('refuses foreign, other agents\' and closed sessions, missing tasks and finished tasks', async () => {
      const s = await open(dev);
      const theirs = await open(dev2);
      const closed = await closedSession(dev);
      const task = await seedTask();
      const done = await seedTaskIn('done', dev.actor);
      const closedTask = await seedTaskIn('closed', dev.actor);
      const foreignTask = await seedTask({}, foreign.projectUuid, foreign.owner);
      const call = (sessionUuid: string, taskUuid: string) => ({ sessionUuid, taskUuid });
      await refused(dev, 'svc_session_checkin_task', call(randomUUID(), task), 'NOT_FOUND', 'Session not found', [], [task]);
      await refused(dev, 'svc_session_checkin_task', call(theirs.uuid, task), 'FORBIDDEN', 'Session belongs to another agent', [theirs.uuid], [task]);
      await refused(dev, 'svc_session_checkin_task', call(closed, task), 'INVALID_STATE', 'Session is closed; check-in requires active', [closed], [task]);
      const err = await refusedCall(dev, 'svc_session_checkin_task', call(closed, task), 'INVALID_STATE', 'Session is closed; check-in requires active');
      expect(err.hints).toEqual(['Reopen it with svc_reopen_session, or start a new one with svc_create_session']);
      await refused(dev, 'svc_session_checkin_task', call(s.uuid, randomUUID()), 'NOT_FOUND', 'Task not found', [s.uuid]);
      await refused(dev, 'svc_session_checkin_task', call(s.uuid, foreignTask), 'NOT_FOUND', 'Task not found', [s.uuid], [foreignTask]);
      for (const [uuid, status] of [
        [done, 'done'],
        [closedTask, 'closed'],
      ]) {
        await refused(dev, 'svc_session_checkin_task', call(s.uuid, uuid), 'INVALID_STATE', `Task is ${status}; check-in requires open, assigned, in_progress or to_verify`, [s.uuid], [uuid]);
      }
    });
  });

  describe('svc_session_checkout_task', () => {
    it('checks out without touching the task status', async () => {
      const s = await open(dev);
      const task = await seedTaskIn('in_progress', dev.actor);
      const checkin = await world.ok(dev, 'svc_session_checkin_task', { sessionUuid: s.uuid, taskUuid: task });
      takeEvents();
      const r = await world.ok(dev, 'svc_session_checkout_task', { sessionUuid: s.uuid, taskUuid: task });
      expect(r).toEqual({ sessionUuid: s.uuid, taskUuid: task, checkinAt: checkin.checkinAt, checkoutAt: expect.any(String) });
      expect(takeEvents()).toEqual([taskEvent(task)]);
      expect((await world.ok(dev, 'svc_get_task', { taskUuid: task })).status).toBe('in_progress');
      expect((await world.ok(dev, 'svc_get_session', { sessionUuid: s.uuid })).checkins).toEqual([]);
      await refused(dev, 'svc_session_checkout_task', { sessionUuid: s.uuid, taskUuid: task }, 'NOT_FOUND', 'Check-in not found', [s.uuid], [task]);
    });

    it('refuses closed, other agents\' and missing sessions and unknown tasks', async () => {
      const s = await open(dev);
      const theirs = await open(dev2);
      const closed = await closedSession(dev);
      const task = await seedTask();
      await refused(dev, 'svc_session_checkout_task', { sessionUuid: closed, taskUuid: task }, 'INVALID_STATE', 'Session is closed; checkout requires active', [closed], [task]);
      await refused(dev, 'svc_session_checkout_task', { sessionUuid: theirs.uuid, taskUuid: task }, 'FORBIDDEN', 'Session belongs to another agent', [theirs.uuid], [task]);
      await refused(dev, 'svc_session_checkout_task', { sessionUuid: randomUUID(), taskUuid: task }, 'NOT_FOUND', 'Session not found', [], [task]);
      await refused(dev, 'svc_session_checkout_task', { sessionUuid: s.uuid, taskUuid: randomUUID() }, 'NOT_FOUND', 'Task not found', [s.uuid]);
      await refused(dev, 'svc_session_checkout_task', { sessionUuid: s.uuid, taskUuid: task }, 'NOT_FOUND', 'Check-in not found', [s.uuid], [task]);
    });
  });

  describe('svc_session_heartbeat', () => {
    it('refreshes lastActiveAt of an active session without events', async () => {
      const s = await open(dev);
      await new Promise((r) => setTimeout(r, 5));
      const r = await world.ok(dev, 'svc_session_heartbeat', { sessionUuid: s.uuid });
      expect(r).toEqual({ uuid: s.uuid, status: 'active', lastActiveAt: expect.any(String) });
      expect(Date.parse(r.lastActiveAt)).toBeGreaterThan(Date.parse(s.lastActiveAt));
      expect(takeEvents()).toEqual([]);
      expect((await world.ok(dev, 'svc_get_session', { sessionUuid: s.uuid })).lastActiveAt).toBe(r.lastActiveAt);
    });

    it('refuses closed, other agents\' and missing sessions', async () => {
      const closed = await closedSession(dev);
      const theirs = await open(dev2);
      await refused(dev, 'svc_session_heartbeat', { sessionUuid: closed }, 'INVALID_STATE', 'Session is closed; heartbeat requires active', [closed]);
      await refused(dev, 'svc_session_heartbeat', { sessionUuid: theirs.uuid }, 'FORBIDDEN', 'Session belongs to another agent', [theirs.uuid]);
      await refused(dev, 'svc_session_heartbeat', { sessionUuid: randomUUID() }, 'NOT_FOUND', 'Session not found');
    });
  });

  describe('svc_close_session and svc_reopen_session', () => {
    it('closes, checking out of every task with one update each; closing again changes nothing', async () => {
      const s = await open(dev);
      const a = await seedTask();
      const b = await seedTaskIn('in_progress', dev.actor);
      for (const t of [a, b]) await world.ok(dev, 'svc_session_checkin_task', { sessionUuid: s.uuid, taskUuid: t });
      takeEvents();
      const r = await world.ok(dev, 'svc_close_session', { sessionUuid: s.uuid });
      expect(sortedKeys(r)).toEqual(keysOf(SESSION_RECORD_KEYS));
      expect(r).toMatchObject({ uuid: s.uuid, status: 'closed', closedAt: expect.any(String), checkins: [] });
      const events = takeEvents();
      expect(events).toHaveLength(2);
      expect(events).toEqual(expect.arrayContaining([taskEvent(a), taskEvent(b)]));
      expect((await world.ok(dev, 'svc_get_task', { taskUuid: b })).status).toBe('in_progress');

      const before = await sessionRows(s.uuid);
      expect(await world.ok(dev, 'svc_close_session', { sessionUuid: s.uuid })).toEqual(r);
      expect(await sessionRows(s.uuid)).toEqual(before);
      expect(takeEvents()).toEqual([]);
    });

    it('reopens a closed session without events and refuses an active one', async () => {
      const s = await open(dev);
      await refused(dev, 'svc_reopen_session', { sessionUuid: s.uuid }, 'INVALID_STATE', 'Session is active; reopen requires closed', [s.uuid]);
      // Nothing needs moving on: no hints field at all (docs/tool-conventions.md §1.1).
      expect(await refusedCall(dev, 'svc_reopen_session', { sessionUuid: s.uuid }, 'INVALID_STATE')).toEqual({ code: 'INVALID_STATE', message: 'Session is active; reopen requires closed' });
      await world.ok(dev, 'svc_close_session', { sessionUuid: s.uuid });
      takeEvents();
      const r = await world.ok(dev, 'svc_reopen_session', { sessionUuid: s.uuid });
      expect(sortedKeys(r)).toEqual(keysOf(SESSION_RECORD_KEYS));
      expect(r).toMatchObject({ status: 'active', closedAt: null });
      expect(takeEvents()).toEqual([]);
    });

    it('refuses other agents\' and missing sessions', async () => {
      const theirs = await open(dev2);
      const theirsClosed = await closedSession(dev2);
      await refused(dev, 'svc_close_session', { sessionUuid: theirs.uuid }, 'FORBIDDEN', 'Session belongs to another agent', [theirs.uuid]);
      await refused(dev, 'svc_reopen_session', { sessionUuid: theirsClosed }, 'FORBIDDEN', 'Session belongs to another agent', [theirsClosed]);
      await refused(dev, 'svc_close_session', { sessionUuid: randomUUID() }, 'NOT_FOUND', 'Session not found');
      await refused(dev, 'svc_reopen_session', { sessionUuid: randomUUID() }, 'NOT_FOUND', 'Session not found');
    });
  });

  describe('reads', () => {
    it('svc_list_sessions lists only the caller\'s sessions, newest first, by status and page', async () => {
      const me = await world.agent(companyUuid, ownerUser.uuid, { preset: 'developer_agent', name: 'Lister' });
      const first = await open(me, 'first');
      const second = await open(me, 'second');
      const third = await open(me, 'third');
      await world.ok(me, 'svc_close_session', { sessionUuid: second.uuid });
      await open(dev2, 'not mine');
      const all = await world.ok(me, 'svc_list_sessions');
      expect(all).toMatchObject({ page: 1, pageSize: 20, total: 3 });
      expect(all.sessions.map((s: { uuid: string }) => s.uuid)).toEqual([third.uuid, second.uuid, first.uuid]);
      expect(sortedKeys(all.sessions[0])).toEqual(keysOf(SESSION_RECORD_KEYS));
      expect((await world.ok(me, 'svc_list_sessions', { status: 'closed' })).sessions.map((s: { uuid: string }) => s.uuid)).toEqual([second.uuid]);
      const page2 = await world.ok(me, 'svc_list_sessions', { page: 2, pageSize: 2 });
      expect(page2).toMatchObject({ page: 2, pageSize: 2, total: 3 });
      expect(page2.sessions.map((s: { uuid: string }) => s.uuid)).toEqual([first.uuid]);
      for (const args of [{ pageSize: 0 }, { page: 0 }, { status: 'sleeping' }]) await refusedCall(me, 'svc_list_sessions', args, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(takeEvents()).toEqual([]);
    });

    it('svc_get_session returns the caller\'s own session only', async () => {
      const s = await open(dev);
      expect(await world.ok(dev, 'svc_get_session', { sessionUuid: s.uuid })).toEqual(s);
      await refusedCall(dev2, 'svc_get_session', { sessionUuid: s.uuid }, 'FORBIDDEN', 'Session belongs to another agent');
      await refusedCall(dev, 'svc_get_session', { sessionUuid: randomUUID() }, 'NOT_FOUND', 'Session not found');
      const bad = await refusedCall(dev, 'svc_get_session', { sessionUuid: 'abc' }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(bad.details).toEqual([{ path: 'sessionUuid', message: expect.any(String) }]);
    });
  });

  it('treats another company\'s sessions as not found for every session tool', async () => {
    const s = await open(dev);
    const task = await seedTask();
    await world.ok(dev, 'svc_session_checkin_task', { sessionUuid: s.uuid, taskUuid: task });
    takeEvents();
    const foreignTask = await seedTask({}, foreign.projectUuid, foreign.owner);
    const calls: Array<[string, Record<string, unknown>]> = [
      ['svc_session_checkin_task', { taskUuid: foreignTask }],
      ['svc_session_checkout_task', { taskUuid: task }],
      ['svc_session_heartbeat', {}],
      ['svc_close_session', {}],
      ['svc_reopen_session', {}],
      ['svc_get_session', {}],
    ];
    for (const [tool, extra] of calls) await refused(foreign.admin, tool, { sessionUuid: s.uuid, ...extra }, 'NOT_FOUND', 'Session not found', [s.uuid], [task]);
    expect((await world.ok(foreign.admin, 'svc_list_sessions')).sessions.map((x: { uuid: string }) => x.uuid)).not.toContain(s.uuid);
  });
});

describe('svc_checkin and the notification tools (e2e, SDK client)', () => {
  let http: HttpClient;
  let client: Client;
  let agentUuid: string;
  let owner: { uuid: string; name: string; email: string };
  let projects: string[];
  let ideaUuid: string;

  /** A user comment mentioning the agent: one `mentioned` notification for it. */
  const mention = async (projectIdx = 0) => {
    const res = await http.post('/api/comments', { targetType: 'idea', targetUuid: projectIdx === 0 ? ideaUuid : ideaInSecond, content: `ping @[Bot](agent:${agentUuid})` });
    expect(res.status).toBe(201);
  };
  let ideaInSecond: string;

  beforeAll(async () => {
    const f = world.ids;
    const company = await f.company();
    const user = await f.user(company.uuid, { name: 'Owner Person' });
    owner = { uuid: user.uuid, name: user.name, email: user.email };
    const { agent, key } = await f.agent(company.uuid, user.uuid, { preset: 'pm_agent', name: 'Bot' });
    agentUuid = agent.uuid;
    http = new HttpClient(world.url);
    await http.login(user.email, user.password);
    projects = [];
    for (const name of ['P1', 'P2']) projects.push((await http.post('/api/projects', { name })).body.data.uuid);
    client = await mcpClient(world.url, key, { 'X-Service-Project': projects[1] });
    // 12 ideas claimed by the agent, alternating projects, so the checkin tracker must cut to the newest 10.
    for (let i = 0; i < 12; i++) {
      const created = await callTool(client, 'svc_pm_create_idea', { projectUuid: projects[i % 2], title: `Idea ${i}` });
      expect(created.isError).toBe(false);
      expect((await callTool(client, 'svc_claim_idea', { ideaUuid: created.data.uuid })).isError).toBe(false);
    }
    ideaUuid = (await http.post(`/api/projects/${projects[0]}/ideas`, { title: 'Mention host' })).body.data.uuid;
    ideaInSecond = (await http.post(`/api/projects/${projects[1]}/ideas`, { title: 'Mention host 2' })).body.data.uuid;
  }, 60000);
  afterAll(async () => {
    await client?.close();
  });

  it('checks in: identity with effective permissions and owner, the ten newest ideas across projects, headers ignored', async () => {
    for (let i = 0; i < 7; i++) await mention();
    const res = await callTool(client, 'svc_checkin');
    expect(res.isError).toBe(false);
    expect(res.data.agent).toEqual({
      uuid: agentUuid,
      name: 'Bot',
      permissions: ['idea:read', 'idea:write', 'proposal:read', 'proposal:write', 'document:read', 'document:write', 'task:read', 'task:write', 'project:read', 'project:write'],
      owner,
    });
    const ideas = Object.values(res.data.ideaTracker as Record<string, { name: string; ideas: Array<{ title: string; updatedAt: string }> }>).flatMap((p) => p.ideas);
    expect(ideas).toHaveLength(10);
    // Both projects appear although the request carried X-Service-Project of the second one only.
    expect(Object.keys(res.data.ideaTracker).sort()).toEqual([...projects].sort());
    const titles = ideas.map((i) => i.title);
    expect(titles).not.toContain('Idea 0');
    expect(titles).not.toContain('Idea 1');
    // The summary: the 5 newest unread, then marked read; `unread` counted after the marking.
    expect(res.data.notifications.recent).toHaveLength(5);
    expect(res.data.notifications.unread).toBe(2);
    expect(res.data.notifications.recent[0]).toEqual({
      uuid: expect.any(String), action: 'mentioned', entityType: 'idea', entityUuid: ideaUuid, entityTitle: 'Mention host',
      projectUuid: projects[0], actorName: 'Owner Person', message: expect.stringContaining('Owner Person mentioned you'), createdAt: expect.any(String),
    });
    const again = await callTool(client, 'svc_checkin');
    expect(again.data.notifications.recent).toHaveLength(2);
    expect(again.data.notifications.unread).toBe(0);
    const agentRecord = await http.get(`/api/agents/${agentUuid}`);
    expect(agentRecord.body.data.lastActiveAt).not.toBeNull();
  });

  it('lists unread notifications and marks the returned ones read unless autoMarkRead is false', async () => {
    await mention();
    await mention(1);
    const peek = await callTool(client, 'svc_get_notifications', { autoMarkRead: false });
    expect(peek.data).toMatchObject({ page: 1, pageSize: 20, total: 2, unreadCount: 2 });
    const onlySecond = await callTool(client, 'svc_get_notifications', { projectUuid: projects[1], autoMarkRead: false });
    expect(onlySecond.data.notifications.map((n: { projectUuid: string }) => n.projectUuid)).toEqual([projects[1]]);
    const got = await callTool(client, 'svc_get_notifications', {});
    expect(got.data.notifications).toHaveLength(2);
    expect(got.data.notifications.every((n: { readAt: string | null }) => n.readAt === null)).toBe(true);
    expect(got.data.unreadCount).toBe(0);
    const read = await callTool(client, 'svc_get_notifications', { status: 'read', pageSize: 100 });
    expect(read.data.total).toBe(9);
    const all = await callTool(client, 'svc_get_notifications', { status: 'all', pageSize: 1, page: 2 });
    expect(all.data).toMatchObject({ page: 2, pageSize: 1, total: 9 });
    const bad = await callTool(client, 'svc_get_notifications', { status: 'unknown' });
    expect(bad.isError).toBe(true);
    expect(bad.data.error.code).toBe('VALIDATION_ERROR');
  });

  it('marks one or all notifications read, with its guards', async () => {
    await mention();
    await mention(1);
    const [first] = (await callTool(client, 'svc_get_notifications', { autoMarkRead: false })).data.notifications;
    const one = await callTool(client, 'svc_mark_notification_read', { notificationUuid: first.uuid });
    expect(one.isError).toBe(false);
    expect(one.data.notification.uuid).toBe(first.uuid);
    expect(one.data.notification.readAt).not.toBeNull();
    const all = await callTool(client, 'svc_mark_notification_read', { all: true, projectUuid: projects[1] });
    expect(all.data).toEqual({ count: first.projectUuid === projects[1] ? 0 : 1 });
    for (const args of [{}, { notificationUuid: first.uuid, all: true }]) {
      const res = await callTool(client, 'svc_mark_notification_read', args);
      expect(res).toEqual({ isError: true, data: { error: { code: 'VALIDATION_ERROR', message: 'notificationUuid or all=true required' } } });
    }
    const missing = await callTool(client, 'svc_mark_notification_read', { notificationUuid: '00000000-0000-4000-8000-000000000000' });
    expect(missing).toEqual({ isError: true, data: { error: { code: 'NOT_FOUND', message: 'Notification not found' } } });
  });
});
