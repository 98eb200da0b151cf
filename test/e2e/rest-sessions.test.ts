import { agentActor } from '../utils/world.js';
import { ChangeEvents } from '../utils/change-events.js';
import { createRestWorld, expectError, expectValidation, type RestWorld } from '../utils/rest-world.js';
import { SessionService } from '../../src/modules/sessions/session.service.js';

describe('REST sessions: the read-only view of agent sessions (e2e)', () => {
  let w: RestWorld;
  let worker: string;
  let planner: string;
  let foreignAgent: string;
  /** Company A's sessions, newest first. */
  let sessions: { closed: string; checkedIn: string; idle: string };
  let taskUuid: string;

  beforeAll(async () => {
    w = await createRestWorld();
    const service = w.app.get(SessionService);
    const dev = await w.identity.agent(w.a.companyUuid, w.a.user.uuid, { preset: 'developer_agent' });
    const pm = await w.identity.agent(w.a.companyUuid, w.a.user.uuid, { preset: 'pm_agent' });
    const outsider = await w.identity.agent(w.b.companyUuid, w.b.user.uuid);
    [worker, planner, foreignAgent] = [dev.agent.uuid, pm.agent.uuid, outsider.agent.uuid];
    const devActor = agentActor(dev.agent, w.a.companyUuid);
    const project = await w.seed.project(w.a.actor);
    taskUuid = (await w.seed.task(w.a.actor, project.uuid, { title: 'Build it' })).uuid;

    const idle = (await service.create(devActor, { name: 'idle' })).uuid;
    const checkedIn = (await service.create(devActor, { name: 'worker' })).uuid;
    await service.checkinTask(devActor, { sessionUuid: checkedIn, taskUuid });
    const closed = (await service.create(agentActor(pm.agent, w.a.companyUuid), { name: 'planner' })).uuid;
    await service.close(agentActor(pm.agent, w.a.companyUuid), { sessionUuid: closed });
    await service.create(agentActor(outsider.agent, w.b.companyUuid), { name: 'theirs' });
    sessions = { closed, checkedIn, idle };
  });
  afterAll(() => w.app.close());

  const uuids = (res: { body: { data: { sessions: Array<{ uuid: string }> } } }) => res.body.data.sessions.map((s) => s.uuid);

  it('answers 401 without a session cookie', async () => {
    expectError(await w.anon.get('/api/sessions'), 401, 'UNAUTHORIZED');
  });

  it("lists the company's sessions newest first with their open check-ins, and publishes nothing", async () => {
    const changes = await ChangeEvents.open(w.app, w.a.http.cookie!, w.a.companyUuid);
    const res = await w.a.http.get('/api/sessions');
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
    expect(uuids(await w.a.http.get(`/api/sessions?agentUuid=${worker}`))).toEqual([sessions.checkedIn, sessions.idle]);
    expect(uuids(await w.a.http.get('/api/sessions?status=closed'))).toEqual([sessions.closed]);
    expect(uuids(await w.a.http.get(`/api/sessions?agentUuid=${worker}&status=active&page=2&pageSize=1`))).toEqual([sessions.idle]);
    expect(uuids(await w.a.http.get('/api/sessions?limit=1&offset=1'))).toEqual([sessions.checkedIn]);
    const foreign = await w.a.http.get(`/api/sessions?agentUuid=${foreignAgent}`);
    expect(foreign.body.data).toEqual({ sessions: [], page: 1, pageSize: 20, total: 0 });
    const theirs = await w.b.http.get('/api/sessions');
    expect(theirs.body.data.sessions.map((s: { name: string }) => s.name)).toEqual(['theirs']);
  });

  it('refuses bad filters and paging with 400 details', async () => {
    expectValidation(await w.a.http.get('/api/sessions?agentUuid=x'), 'agentUuid');
    expectValidation(await w.a.http.get('/api/sessions?status=paused'), 'status');
    expectValidation(await w.a.http.get('/api/sessions?pageSize=0'), 'pageSize');
    expect((await w.a.http.get('/api/sessions?taskUuid=x')).status).toBe(200);
  });
});
