import { randomUUID } from 'node:crypto';
import { ensureBuilt, startServiceProcess, type ServiceProcess } from '../utils/built.js';
import { HttpClient } from '../utils/http.js';
import { TestNatsServer } from '../utils/nats-server.js';
import { openRaw, type RawStream } from '../utils/sse.js';
import type { TestDatabase } from '../utils/test-database.js';
import { World } from '../utils/world.js';

/**
 * Fault injection: the private nats-server joining two built instances A and B is killed (SIGKILL) and started again
 * on the same port, twice. multi-instance.test.ts covers the basic outage on B; this covers both directions, both
 * instances' streams, notification relaying after the return and a second outage.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await sleep(50);
  }
}

async function health(base: string, path: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(10_000) });
  return { status: res.status, body: await res.json() };
}

describe('faults: nats-server killed and restarted between two instances', () => {
  let world: World;
  let db: TestDatabase;
  let nats: TestNatsServer;
  let a: ServiceProcess;
  let b: ServiceProcess;
  let onA: HttpClient;
  let onB: HttpClient;
  let mentioner: HttpClient;
  let userUuid: string;
  let projectUuid: string;

  // A stale dist/ is rebuilt first (one build at a time across test files), which may take a while on a busy machine.
  beforeAll(() => ensureBuilt(), 180_000);

  beforeAll(async () => {
    world = await World.database();
    db = world.db;
    const f = world.ids;
    const company = await f.company();
    const user = await f.user(company.uuid);
    const other = await f.user(company.uuid, { name: 'Mentioner' });
    userUuid = user.uuid;
    nats = await TestNatsServer.start();
    const env = { DATABASE_URL: db.url, NATS_URL: nats.url, BUS_SUBJECT_PREFIX: `fn${randomUUID().slice(0, 8)}`, SSE_HEARTBEAT_MS: '30000' };
    [a, b] = await Promise.all([startServiceProcess(env), startServiceProcess(env)]);
    await until('both ready', async () => (await health(a.url, '/health/ready')).status === 200 && (await health(b.url, '/health/ready')).status === 200);
    onA = new HttpClient(a.url);
    await onA.login(user.email, user.password);
    // The same session cookie is valid on both instances (one database).
    onB = new HttpClient(b.url);
    onB.cookie = onA.cookie;
    mentioner = new HttpClient(a.url);
    await mentioner.login(other.email, other.password);
    projectUuid = (await onA.post('/api/projects', { name: 'Faults over NATS' })).body.data.uuid;
  }, 120_000);

  afterAll(async () => {
    a?.kill();
    b?.kill();
    await nats?.stop();
    await world?.close();
  });

  const changeStream = async (svc: ServiceProcess): Promise<RawStream> => {
    const s = await openRaw(`${svc.url}/api/events?projectUuid=${projectUuid}`, { cookie: onA.cookie! });
    expect(s.status).toBe(200);
    await s.waitForText(': connected');
    return s;
  };
  const createIdea = async (client: HttpClient, title: string): Promise<string> => {
    const res = await client.post(`/api/projects/${projectUuid}/ideas`, { title });
    expect(res.status).toBe(201);
    return res.body.data.uuid;
  };
  const framesOf = (s: RawStream) =>
    s
      .body()
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as { entityUuid: string });

  /** A mutation on `from` reaches the streams of both instances, exactly once each. */
  async function expectCrossDelivery(from: HttpClient, streams: RawStream[], title: string): Promise<void> {
    const idea = await createIdea(from, title);
    for (const s of streams) await s.waitForText(idea, 10_000);
    await sleep(200);
    for (const s of streams) expect(framesOf(s).filter((f) => f.entityUuid === idea)).toHaveLength(1);
  }

  it('keeps local delivery during each outage, never crashes, and once NATS is back delivers what the other instance committed meanwhile, on the same streams', async () => {
    for (const round of [1, 2]) {
      const streamA = await changeStream(a);
      const streamB = await changeStream(b);
      await expectCrossDelivery(onA, [streamA, streamB], `Before outage ${round} (A)`);
      await expectCrossDelivery(onB, [streamA, streamB], `Before outage ${round} (B)`);

      await nats.stop();
      for (const svc of [a, b]) {
        await until(`${svc.url} not ready`, async () => (await health(svc.url, '/health/ready')).status === 503);
        expect(await health(svc.url, '/health/ready')).toEqual({ status: 503, body: { status: 'unavailable', checks: { database: 'up', bus: 'down' } } });
        expect(await health(svc.url, '/health/live')).toEqual({ status: 200, body: { status: 'ok' } });
      }
      // Mutations still succeed and each instance's own streams get its events at once. A's event is not relayed; but
      // B's own event, committed after it, takes the next position: B's sequencer sees the hole and fills it from the
      // log. A's stream, whose last event comes first, cannot know about B's until the channel is back.
      const duringA = await createIdea(onA, `During outage ${round} (A)`);
      const duringB = await createIdea(onB, `During outage ${round} (B)`);
      await streamA.waitForText(duringA);
      await streamB.waitForText(duringB);
      await sleep(300);
      expect(framesOf(streamA).map((f) => f.entityUuid)).not.toContain(duringB);
      expect(framesOf(streamB).map((f) => f.entityUuid).slice(-2)).toEqual([duringA, duringB]);

      await nats.start();
      for (const svc of [a, b]) await until(`${svc.url} ready again`, async () => (await health(svc.url, '/health/ready')).status === 200);
      // No silent staleness and no forced reconnect: each instance reads what it missed from the log, on the open
      // streams, each event once.
      await streamA.waitForText(duringB, 10_000);
      await streamB.waitForText(duringA, 10_000);
      await expectCrossDelivery(onA, [streamA, streamB], `After outage ${round} (A)`);
      await expectCrossDelivery(onB, [streamA, streamB], `After outage ${round} (B)`);
      for (const s of [streamA, streamB]) {
        const ids = framesOf(s).map((f) => f.entityUuid);
        expect(ids.filter((id) => id === duringA || id === duringB)).toHaveLength(2);
        expect(new Set(ids).size).toBe(ids.length);
      }
      expect(streamA.body()).not.toContain('event: reset');
      streamA.close();
      streamB.close();
    }

    // Notification frames are relayed again too: a mention written on A reaches the recipient's stream on B.
    const bell = await openRaw(`${b.url}/api/events/notifications`, { cookie: onA.cookie! });
    await bell.waitForText(': connected');
    const idea = await createIdea(onA, 'Mention target');
    expect((await mentioner.post('/api/comments', { targetType: 'idea', targetUuid: idea, content: `see @[Me](user:${userUuid})` })).status).toBe(201);
    await bell.waitForText('new_notification', 10_000);
    const frames = bell
      .body()
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)));
    expect(frames[0]).toMatchObject({ type: 'new_notification', action: 'mentioned', entityUuid: idea });
    bell.close();

    for (const svc of [a, b]) {
      expect(svc.proc.exitCode).toBeNull();
      expect(svc.output()).not.toMatch(/"level":"fatal"|"unhandled error"|"event listener failed"|"reconnect listener failed"/);
      // Each instance announced the loss and the two returns.
      expect(svc.output().match(/NATS connection restored; open streams catch up from the log/g)).toHaveLength(2);
    }
  }, 120_000);
});
