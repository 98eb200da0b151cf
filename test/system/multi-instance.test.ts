import { randomUUID } from 'node:crypto';
import { ensureBuilt, startServiceProcess, type ServiceProcess } from '../utils/built.js';
import { HttpClient } from '../utils/http.js';
import { TestNatsServer } from '../utils/nats-server.js';
import { openEventSource, openRaw } from '../utils/sse.js';
import type { TestDatabase } from '../utils/test-database.js';
import { World } from '../utils/world.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Instance = ServiceProcess;

/** A built service process (a real instance) on the shared database and NATS, once it reports ready. */
const startInstance = (env: Record<string, string>): Promise<Instance> => startServiceProcess(env, { until: 'ready' });

async function until(cond: () => boolean | Promise<boolean>, timeoutMs = 15000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(50);
  }
}

describe('two instances over a real nats-server', () => {
  let world: World;
  let db: TestDatabase;
  let nats: TestNatsServer;
  let a: Instance;
  let b: Instance;
  let httpA: HttpClient;
  let cookie: string;
  let userUuid: string;
  let projectUuid: string;

  beforeAll(async () => {
    ensureBuilt();
    world = await World.database();
    db = world.db;
    const f = world.ids;
    const company = await f.company();
    const user = await f.user(company.uuid);
    userUuid = user.uuid;
    nats = await TestNatsServer.start();
    const env = { DATABASE_URL: db.url, NATS_URL: nats.url, BUS_SUBJECT_PREFIX: `mi${randomUUID().slice(0, 8)}`, SSE_HEARTBEAT_MS: '30000' };
    [a, b] = await Promise.all([startInstance(env), startInstance(env)]);
    httpA = new HttpClient(a.url);
    await httpA.login(user.email, user.password);
    cookie = httpA.cookie!;
    const project = await httpA.post('/api/projects', { name: 'Shared' });
    expect(project.status).toBe(201);
    projectUuid = project.body.data.uuid;
  }, 120_000);

  afterAll(async () => {
    for (const i of [a, b]) i?.proc.kill('SIGKILL');
    await nats?.stop();
    await world?.close();
  });

  const createIdea = async (title: string) => {
    const res = await httpA.post(`/api/projects/${projectUuid}/ideas`, { title });
    expect(res.status).toBe(201);
    return res.body.data.uuid as string;
  };

  it('reports the bus in readiness', async () => {
    const ready = await (await fetch(`${b.url}/health/ready`)).json();
    expect(ready).toEqual({ status: 'ok', checks: { database: 'up', bus: 'up' } });
  });

  it('delivers a mutation on A to a stream on B exactly once', async () => {
    const onB = openEventSource(`${b.url}/api/events?projectUuid=${projectUuid}`, cookie);
    const onA = openEventSource(`${a.url}/api/events?projectUuid=${projectUuid}`, cookie);
    await Promise.all([onB.opened, onA.opened]);
    const idea = await createIdea('Cross-instance');
    const expected = { companyUuid: expect.any(String), projectUuid, entityType: 'idea', entityUuid: idea, action: 'created' };
    expect((await onB.waitFor(1)).map((m) => JSON.parse(m))).toEqual([expected]);
    expect((await onA.waitFor(1)).map((m) => JSON.parse(m))).toEqual([expected]);
    await sleep(300);
    expect(onB.messages).toHaveLength(1);
    expect(onA.messages).toHaveLength(1);
    onB.close();
    onA.close();
  });

  it('relays notification frames to the recipient’s stream on the other instance', async () => {
    const bell = openEventSource(`${b.url}/api/events/notifications`, cookie);
    await bell.opened;
    // A second user comments on A mentioning the first; the notification row and frame are made on A.
    const f = world.ids;
    const companyUuid = (await db.dataSource.query(`SELECT company_uuid FROM app_user WHERE uuid = $1`, [userUuid]))[0].company_uuid as string;
    const other = await f.user(companyUuid, { name: 'Other' });
    const http2 = new HttpClient(a.url);
    await http2.login(other.email, other.password);
    const idea = await createIdea('Mention target');
    const res = await http2.post('/api/comments', { targetType: 'idea', targetUuid: idea, content: `hi @[Me](user:${userUuid})` });
    expect(res.status).toBe(201);
    const frames = (await bell.waitFor(1, 10000)).map((m) => JSON.parse(m));
    expect(frames[0]).toMatchObject({ type: 'new_notification', action: 'mentioned', entityUuid: idea, unreadCount: expect.any(Number) });
    bell.close();
  });

  it('keeps local delivery and mutations through a NATS outage, then B’s open stream catches up from the log', async () => {
    const rawB = await openRaw(`${b.url}/api/events`, { cookie });
    await rawB.waitForText(': connected');
    const onA = openEventSource(`${a.url}/api/events`, cookie);
    await onA.opened;
    await nats.stop();
    await until(async () => (await fetch(`${b.url}/health/ready`)).status === 503);
    const during = await createIdea('During outage');
    expect((await onA.waitFor(1)).map((m) => JSON.parse(m).entityUuid)).toEqual([during]);
    expect(rawB.body()).not.toContain(during);
    await nats.start();
    // Both must be back: an instance that has not reconnected yet publishes locally only.
    await until(async () => (await fetch(`${b.url}/health/ready`)).status === 200 && (await fetch(`${a.url}/health/ready`)).status === 200);
    // B's stream stays open and gets the event it missed, from the log, once.
    await rawB.waitForText(during, 10_000);
    const after = await createIdea('After outage');
    await rawB.waitForText(after, 10_000);
    const ids = rawB
      .body()
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)).entityUuid);
    expect(ids.slice(-2)).toEqual([during, after]);
    expect(ids.filter((id: string) => id === during)).toHaveLength(1);
    expect(a.output()).not.toMatch(/"level":"fatal"/);
    rawB.close();
    onA.close();
  });
});
