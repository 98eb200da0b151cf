import { randomUUID } from 'node:crypto';
import { EventBus } from '../../src/shared/event-bus/event-bus.port.js';
import { NatsEventBus } from '../../src/shared/event-bus/nats-event-bus.js';
import { MetricsService } from '../../src/shared/metrics/metrics.service.js';
import type { SeededUser } from '../factories/identity.factory.js';
import { HttpClient } from '../utils/http.js';
import { TestNatsServer } from '../utils/nats-server.js';
import { positionReader, type PositionReader } from '../utils/sse-positions.js';
import { World } from '../utils/world.js';

/**
 * Interest, not broadcast (docs/platform.md §7; docs/deploy.md "What an instance subscribes to"): two instances on one
 * database and a private nats-server whose monitoring endpoint shows each connection's subscriptions and the
 * messages the server sent it. The heartbeat is left at its default (30 s), so no audit repairs what a late
 * subscription would have lost: what the streams get, they got from the bus and the ordering of subscribe → head.
 */
const LINGER_MS = 1500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async (what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
};

interface Connz {
  name?: string;
  out_msgs?: number;
  subscriptions_list_detail?: Array<{ subject: string; qgroup?: string }>;
}

describe('subscriptions follow interest (e2e, two instances, private nats-server)', () => {
  let nats: TestNatsServer;
  let prefix: string;
  let a: World;
  let b: World;
  let alice: SeededUser;
  let cookie: string;
  let onA: HttpClient;
  let onB: HttpClient;
  let project: string;
  const readers: PositionReader[] = [];

  beforeAll(async () => {
    nats = await TestNatsServer.start({ monitor: true });
    prefix = `int${randomUUID().slice(0, 8)}`;
    const env = { NATS_URL: nats.url, BUS_SUBJECT_PREFIX: prefix, BUS_INTEREST_LINGER_MS: String(LINGER_MS) };
    a = await World.start({ env });
    b = await World.start({ env, sharing: a });
    const company = await a.ids.company('Interest');
    alice = await a.user(company.uuid, { name: 'Alice' });
    onA = await a.login(alice);
    cookie = onA.cookie!;
    onB = b.http();
    onB.cookie = cookie;
    project = (await onA.post('/api/projects', { name: 'Interest project' })).body.data.uuid as string;
  });
  afterAll(async () => {
    for (const r of readers) r.stop();
    await b?.close();
    await a?.close();
    await nats?.stop();
  });

  /** The receiving connection of an instance as nats-server sees it. */
  const receiver = async (w: World): Promise<Connz> => {
    const name = `svc-${(w.get(EventBus) as NatsEventBus).instanceId}-sub`;
    const res = await fetch(`http://127.0.0.1:${nats.monitorPort}/connz?subs=detail`);
    const conn = ((await res.json()) as { connections: Connz[] }).connections.find((c) => c.name === name);
    if (!conn) throw new Error(`no connection ${name}`);
    return conn;
  };
  const subjects = async (w: World): Promise<string[]> => (await receiver(w)).subscriptions_list_detail?.map((s) => s.subject).sort() ?? [];
  const metric = async (w: World, name: string, labels: Record<string, string> = {}): Promise<number> => {
    const values = (await w.get(MetricsService).registry.getSingleMetric(name)!.get()).values;
    return values.filter((v) => Object.entries(labels).every(([k, x]) => v.labels[k as keyof typeof v.labels] === x)).reduce((s, v) => s + v.value, 0);
  };
  const changes = (companyUuid: string) => `${prefix}.change.${companyUuid}`;
  const open = (w: World, name: string, who = cookie): PositionReader => {
    const r = positionReader(name, `${w.url}/api/events`, who);
    readers.push(r);
    return r;
  };
  const idea = async (via: HttpClient, title: string, where = project): Promise<void> => {
    const res = await via.post(`/api/projects/${where}/ideas`, { title });
    expect(res.status).toBe(201);
  };
  const head = async (companyUuid: string): Promise<number> =>
    Number((await a.ds.query(`SELECT coalesce(max(position), 0)::int AS p FROM stream_head WHERE stream = 'c' AND key = $1`, [companyUuid]))[0].p);

  it('a company whose streams are all on A sends B nothing; a stream opened on B subscribes B and gets every event from its start on, no gap, no duplicate', async () => {
    const companyUuid = alice.companyUuid;
    const onlyA = open(a, 'onA');
    await until('A stream connected', () => onlyA.startedAfter !== null);
    expect(await subjects(a)).toContain(changes(companyUuid));
    expect(await subjects(b)).toEqual([`${prefix}.session`]);
    const sentToB = (await receiver(b)).out_msgs ?? 0;

    // Writes through both instances: A's stream gets all of them; B's connection receives none.
    for (let i = 0; i < 10; i++) await idea(i % 2 ? onB : onA, `before ${i}`);
    await until('A stream has the ten', () => onlyA.frames.length === 10);
    await sleep(200);
    expect((await receiver(b)).out_msgs ?? 0).toBe(sentToB);
    expect(await metric(b, 'svc_bus_messages_received_total')).toBe(0);
    expect(await metric(a, 'svc_bus_messages_received_total', { kind: 'change' })).toBeGreaterThanOrEqual(10);

    // A writer on A, one idea at a time, while a stream opens on B in the middle of it.
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        await idea(onA, `during ${written}`);
        written++;
      }
    })();
    await until('writer going', () => written >= 5);
    const onB_ = open(b, 'onB');
    await until('B stream connected', () => onB_.startedAfter !== null);
    await until('more written after B connected', () => written >= 25);
    writing = false;
    await writer;
    const final = await head(companyUuid);
    await until('B stream reached the head', () => (onB_.lastN() ?? 0) >= final);
    await sleep(200);

    expect(await subjects(b)).toContain(changes(companyUuid));
    const start = onB_.startedAfter!;
    expect(start).toBeLessThan(final);
    expect(onB_.frames.map((f) => f.n)).toEqual(Array.from({ length: final - start }, (_, i) => start + i + 1));
    expect(onB_.resets).toEqual([]);
    // Nothing had to be read back from the log: the subscription was active before the head was read.
    expect(await metric(b, 'svc_stream_gaps_repaired_total')).toBe(0);
    expect(await metric(b, 'svc_bus_messages_received_total', { kind: 'change' })).toBeGreaterThan(0);
    expect(onlyA.frames.map((f) => f.n)).toEqual(Array.from({ length: final - onlyA.startedAfter! }, (_, i) => onlyA.startedAfter! + i + 1));
    onlyA.stop();
    onB_.stop();
  });

  it('a notification wait on B subscribes B to the recipient while it waits, and a change committed on A answers it', async () => {
    const bot = await b.agent(alice.companyUuid, alice.uuid, { name: 'Waiter' });
    const botOnB = new HttpClient(b.url, { authorization: `Bearer ${bot.key}` });
    const subject = `${prefix}.notify.agent.${bot.uuid}`;
    const from = (await botOnB.get('/api/notifications/unread-count')).headers.get('x-stream-position')!;
    expect(await subjects(b)).not.toContain(subject);
    const waiting = botOnB.get<{ data: { notifications: Array<{ message: string }>; position: string } }>(`/api/notifications?after=${encodeURIComponent(from)}&waitSeconds=20`);
    await until('B subscribed to the recipient', async () => (await subjects(b)).includes(subject));
    expect(await subjects(a)).not.toContain(subject);
    const ideaUuid = (await onA.post(`/api/projects/${project}/ideas`, { title: 'Mention target' })).body.data.uuid as string;
    const t0 = Date.now();
    const posted = await onA.post('/api/comments', { targetType: 'idea', targetUuid: ideaUuid, content: `@[Waiter](agent:${bot.uuid}) look` });
    expect(posted.status).toBe(201);
    const res = await waiting;
    expect(res.status).toBe(200);
    expect(res.body.data.notifications).toHaveLength(1);
    expect(res.body.data.notifications[0].message).toContain('look');
    // Woken by the relayed frame, far from its 20 s deadline.
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(await metric(b, 'svc_bus_messages_received_total', { kind: 'notification' })).toBeGreaterThan(0);
    // Released with the wait: gone after the linger.
    await until('B unsubscribed from the recipient', async () => !(await subjects(b)).includes(subject), LINGER_MS + 5000);
  });

  it('closing and reopening a stream within the linger keeps the subscription; after the linger it is gone', async () => {
    const company = await a.ids.company('Lingering');
    const bob = await a.user(company.uuid, { name: 'Bob' });
    const bobCookie = (await b.login(bob)).cookie!;
    const subject = changes(company.uuid);
    const subscribes = await metric(b, 'svc_bus_subscribes_total', { kind: 'change' });
    const unsubscribes = await metric(b, 'svc_bus_unsubscribes_total', { kind: 'change' });

    const first = open(b, 'first', bobCookie);
    await until('first connected', () => first.startedAfter !== null);
    expect(await subjects(b)).toContain(subject);
    expect(await metric(b, 'svc_bus_subscribes_total', { kind: 'change' })).toBe(subscribes + 1);
    first.stop();
    await sleep(LINGER_MS / 3);
    const second = open(b, 'second', bobCookie);
    await until('second connected', () => second.startedAfter !== null);
    await sleep(LINGER_MS);
    // Past the first stream's linger: still subscribed, never unsubscribed, not subscribed again.
    expect(await subjects(b)).toContain(subject);
    expect(await metric(b, 'svc_bus_subscribes_total', { kind: 'change' })).toBe(subscribes + 1);
    expect(await metric(b, 'svc_bus_unsubscribes_total', { kind: 'change' })).toBe(unsubscribes);
    second.stop();
    await sleep(LINGER_MS / 2);
    expect(await subjects(b)).toContain(subject);
    await until('unsubscribed after the linger', async () => !(await subjects(b)).includes(subject), LINGER_MS + 5000);
    expect(await metric(b, 'svc_bus_unsubscribes_total', { kind: 'change' })).toBe(unsubscribes + 1);
    expect(await metric(b, 'svc_bus_subscriptions', { kind: 'change' })).toBe(0);
  });
});
