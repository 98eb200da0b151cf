import { userActor, World } from '../utils/world.js';
import { ChangeEvents } from '../utils/change-events.js';
import type { HttpClient } from '../utils/http.js';
import { expectError, expectValidation } from '../utils/rest-expect.js';
import { SessionService } from '../../src/modules/sessions/session.service.js';

describe('REST sessions: the read-only view of agent sessions (e2e)', () => {
  let world: World;
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
    world = await World.start();
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
  afterAll(() => world.close());

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
