import { randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Logger } from '@nestjs/common';
import { pino } from 'pino';
import { NatsEventBus } from '../../src/shared/event-bus/nats-event-bus.js';
import type { NotificationMessage, RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { MetricsService } from '../../src/shared/metrics/metrics.service.js';
import { freePort } from '../../src/shared/database/embedded-postgres.js';
import { TestNatsServer } from '../utils/nats-server.js';

const until = async (cond: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The company both buses of the first suite are interested in (a relay needs interest: docs/platform.md §7). */
const COMPANY = randomUUID();
const event = (companyUuid = COMPANY): RealtimeEvent => ({ companyUuid, projectUuid: randomUUID(), entityType: 'idea', entityUuid: randomUUID(), action: 'created' });
const silent = pino({ level: 'silent' });
const newBus = (url: string, prefix: string, metrics = new MetricsService()) => new NatsEventBus(url, prefix, silent, metrics, { interestLingerMs: 300 });
const metric = async (m: MetricsService, name: string, labels: Record<string, string>): Promise<number> =>
  (await m.registry.getSingleMetric(name)!.get()).values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value ?? 0;

// The transport logs through Nest's static logger; these tests read state, not log lines.
beforeAll(() => Logger.overrideLogger(false));

describe('NATS event bus (real nats-server)', () => {
  let nats: TestNatsServer;
  let a: NatsEventBus;
  let b: NatsEventBus;
  const prefix = `t${randomUUID().slice(0, 8)}`;
  const received: Record<'a' | 'b', Array<{ e: RealtimeEvent; relayed: boolean }>> = { a: [], b: [] };
  const reconnects = { a: 0, b: 0 };
  const positions: Record<'a' | 'b', Array<string | null>> = { a: [], b: [] };
  const metricsA = new MetricsService();

  beforeAll(async () => {
    nats = await TestNatsServer.start({ monitor: true });
    a = newBus(nats.url, prefix, metricsA);
    b = newBus(nats.url, prefix);
    a.start();
    b.start();
    expect(await a.waitUntilUp(5000)).toBe(true);
    expect(await b.waitUntilUp(5000)).toBe(true);
    // Held for the whole suite: both buses receive COMPANY's change events.
    await Promise.all([a.interest({ kind: 'change', companyUuid: COMPANY }).ready, b.interest({ kind: 'change', companyUuid: COMPANY }).ready]);
    a.subscribe('change', (e, meta) => (received.a.push({ e, relayed: meta.relayed }), positions.a.push(meta.position)));
    b.subscribe('change', (e, meta) => (received.b.push({ e, relayed: meta.relayed }), positions.b.push(meta.position)));
    a.onReconnect(() => reconnects.a++);
    b.onReconnect(() => reconnects.b++);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await nats.stop();
  });

  beforeEach(() => {
    received.a.length = 0;
    received.b.length = 0;
  });

  it('connects through a comma-separated list of seed servers when one of them is down', async () => {
    const dead = `nats://127.0.0.1:${await freePort()}`;
    const listed = newBus(`${dead},${nats.url}`, prefix);
    listed.start();
    try {
      expect(await listed.waitUntilUp(5000)).toBe(true);
      const e = event();
      listed.publish('change', e, 'e1-1');
      await until(() => received.a.length === 1 && received.b.length === 1);
      expect(received.a).toEqual([{ e, relayed: true }]);
    } finally {
      await listed.close();
    }
  });

  it('subscribes to `<prefix>.session` always and to a company or recipient only while interested (plus the linger), never in a queue group', async () => {
    const subjects = async () => {
      const receiver = (await nats.connections()).find((c) => c.name === `svc-${a.instanceId}-sub`);
      expect(receiver?.subscriptions_list_detail?.every((s) => !s.qgroup)).toBe(true);
      return receiver?.subscriptions_list_detail?.map((s) => s.subject).sort();
    };
    expect(await subjects()).toEqual([`${prefix}.change.${COMPANY}`, `${prefix}.session`].sort());
    const recipient = randomUUID();
    const held = a.interest({ kind: 'notification', recipientType: 'agent', recipientUuid: recipient });
    expect(held.continuous).toBe(false);
    await held.ready;
    // Active at the server once ready: no wildcard anywhere.
    expect(await subjects()).toEqual([`${prefix}.change.${COMPANY}`, `${prefix}.notify.agent.${recipient}`, `${prefix}.session`].sort());
    expect(await metric(metricsA, 'svc_bus_subscriptions', { kind: 'notification' })).toBe(1);
    held.release();
    await sleep(100);
    expect(await subjects()).toContain(`${prefix}.notify.agent.${recipient}`);
    await until(async () => !(await subjects())?.includes(`${prefix}.notify.agent.${recipient}`), 3000);
    expect(await metric(metricsA, 'svc_bus_subscriptions', { kind: 'notification' })).toBe(0);
    expect(await metric(metricsA, 'svc_bus_unsubscribes_total', { kind: 'notification' })).toBe(1);
    expect(await metric(metricsA, 'svc_bus_subscriptions', { kind: 'control' })).toBe(1);
  });

  it('receives nothing of a company it is not interested in: only the interested instance gets it', async () => {
    const elsewhere = randomUUID();
    const bOnly = b.interest({ kind: 'change', companyUuid: elsewhere });
    await bOnly.ready;
    const before = await metric(metricsA, 'svc_bus_messages_received_total', { kind: 'change' });
    const e = event(elsewhere);
    const listed = newBus(nats.url, prefix);
    listed.start();
    try {
      expect(await listed.waitUntilUp(5000)).toBe(true);
      listed.publish('change', e, 'e1-1');
      await until(() => received.b.length === 1);
      await sleep(200);
      expect(received.b).toEqual([{ e, relayed: true }]);
      expect(received.a).toEqual([]);
      expect(await metric(metricsA, 'svc_bus_messages_received_total', { kind: 'change' })).toBe(before);
    } finally {
      bOnly.release();
      await listed.close();
    }
  });

  it('delivers locally at once and exactly once on the other instance, dropping its own echo', async () => {
    const e = event();
    a.publish('change', e, 'e1-2');
    expect(received.a).toEqual([{ e, relayed: false }]);
    expect(positions.a.at(-1)).toBe('e1-2');
    await until(() => received.b.length === 1);
    expect(positions.b.at(-1)).toBe('e1-2');
    await sleep(150);
    expect(received.b).toEqual([{ e, relayed: true }]);
    expect(received.a).toHaveLength(1);
  });

  it('relays notification frames on per-recipient subjects to an instance interested in the recipient', async () => {
    const frames: unknown[] = [];
    const off = b.subscribe('notification', (m) => frames.push(m));
    const msg = { recipientType: 'user' as const, recipientUuid: randomUUID(), frame: { type: 'count_update' as const, unreadCount: 2 } };
    a.publish('notification', msg, 'e1-3');
    await sleep(150);
    expect(frames).toEqual([]);
    const interest = b.interest({ kind: 'notification', recipientType: 'user', recipientUuid: msg.recipientUuid });
    await interest.ready;
    a.publish('notification', msg, 'e1-4');
    await until(() => frames.length === 1);
    expect(frames[0]).toEqual(msg);
    interest.release();
    off();
  });

  it('relays session-ended messages on `<prefix>.session` (streams of a logged-out session end everywhere)', async () => {
    const ended: string[] = [];
    const off = b.subscribe('session', (m) => ended.push(m.sessionUuid));
    const sessionUuid = randomUUID();
    a.publish('session', { sessionUuid }, null);
    await until(() => ended.length === 1);
    expect(ended).toEqual([sessionUuid]);
    off();
  });

  describe('the body on the wire is exactly {origin, position, payload}, both ways (rolling restarts with the raw client)', () => {
    let raw: NatsConnection;
    beforeAll(async () => {
      raw = await connect({ servers: nats.url });
    });
    afterAll(() => raw.close());

    it('publishes exactly {origin, position, payload} on the per-company and per-recipient subjects', async () => {
      const seen: Array<{ subject: string; body: string }> = [];
      const sub = raw.subscribe(`${prefix}.>`, { callback: (_err, m) => void seen.push({ subject: m.subject, body: m.string() }) });
      await raw.flush();
      const e = event();
      const n: NotificationMessage = { recipientType: 'agent', recipientUuid: randomUUID(), frame: { type: 'count_update', unreadCount: 3 } };
      a.publish('change', e, 'e1-5');
      a.publish('notification', n, 'e1-1');
      // Publishing does not depend on anyone's interest: the raw subscriber gets both.
      await until(() => seen.length === 2);
      sub.unsubscribe();
      expect(seen).toEqual([
        { subject: `${prefix}.change.${e.companyUuid}`, body: JSON.stringify({ origin: a.instanceId, position: 'e1-5', payload: e }) },
        { subject: `${prefix}.notify.agent.${n.recipientUuid}`, body: JSON.stringify({ origin: a.instanceId, position: 'e1-1', payload: n }) },
      ]);
      expect(seen.some((s) => s.body.includes('"pattern"'))).toBe(false);
    });

    it('receives a raw {origin, position, payload} as relayed; drops its own origin, wrapped, malformed and unpositioned bodies, and extra fields', async () => {
      const e = event();
      const bad = event();
      raw.publish(`${prefix}.change.${bad.companyUuid}`, 'not json');
      raw.publish(`${prefix}.change.${bad.companyUuid}`, JSON.stringify({ pattern: 'x', data: { origin: 'other', position: 'e1-1', payload: bad } }));
      raw.publish(`${prefix}.change.${bad.companyUuid}`, JSON.stringify({ origin: b.instanceId, position: 'e1-1', payload: bad }));
      raw.publish(`${prefix}.change.${bad.companyUuid}`, JSON.stringify({ origin: 'old-instance', position: 'e1-1', payload: { ...bad, entityType: 'bogus' } }));
      // Without a position a frame cannot be sequenced: dropped.
      raw.publish(`${prefix}.change.${bad.companyUuid}`, JSON.stringify({ origin: 'old-instance', payload: bad }));
      raw.publish(`${prefix}.change.${e.companyUuid}`, JSON.stringify({ origin: 'old-instance', position: 'e1-1', payload: { ...e, extra: 'dropped' } }));
      await until(() => received.b.length === 1 && received.a.length === 2);
      await sleep(150);
      expect(received.b).toEqual([{ e, relayed: true }]);
      // b's origin is only b's own echo: a relays it.
      expect(received.a).toEqual([
        { e: bad, relayed: true },
        { e, relayed: true },
      ]);
    });
  });

  it('keeps local delivery through an outage, reports down, and announces the reconnection once', async () => {
    await nats.stop();
    await until(() => a.status().state === 'down' && b.status().state === 'down');
    const e = event();
    expect(() => a.publish('change', e, 'e1-9')).not.toThrow();
    expect(received.a).toEqual([{ e, relayed: false }]);
    await nats.start();
    await until(() => a.status().state === 'up' && b.status().state === 'up', 10000);
    // The announcement follows 'up' once the server holds the interest subscriptions (an async step): wait for it, then
    // make sure it came exactly once per bus.
    await until(() => reconnects.a >= 1 && reconnects.b >= 1);
    // Nothing published during the outage is replayed by the bus (the streams read the log on the resync).
    await sleep(200);
    expect(reconnects).toEqual({ a: 1, b: 1 });
    expect(received.b).toHaveLength(0);
    const after = event();
    a.publish('change', after, 'e1-10');
    await until(() => received.b.length === 1);
    expect(received.b[0]).toEqual({ e: after, relayed: true });
  });
});

describe('NATS event bus started while NATS is down', () => {
  it('starts at once, reports down, delivers locally, and connects, resyncs (a first connect too) and relays once NATS is up', async () => {
    const nats = await TestNatsServer.reserve();
    const prefix = `d${randomUUID().slice(0, 8)}`;
    const bus = newBus(nats.url, prefix);
    const local: Array<{ e: RealtimeEvent; relayed: boolean }> = [];
    let resyncs = 0;
    // Taken while NATS is down: ready at once (the resync covers it), subscribed at the first connect.
    const interest = bus.interest({ kind: 'change', companyUuid: COMPANY });
    await interest.ready;
    bus.subscribe('change', (e, meta) => local.push({ e, relayed: meta.relayed }));
    bus.onReconnect(() => resyncs++);
    let raw: NatsConnection | null = null;
    try {
      bus.start();
      expect(bus.status()).toEqual({ state: 'down' });
      expect(await bus.waitUntilUp(300)).toBe(false);
      const during = event();
      bus.publish('change', during, 'e1-1');
      expect(local).toEqual([{ e: during, relayed: false }]);

      await nats.start();
      expect(await bus.waitUntilUp(10_000)).toBe(true);
      // The streams of an instance that started while NATS was down must read what others published meanwhile.
      await until(() => resyncs === 1);
      raw = await connect({ servers: nats.url });
      const bodies: string[] = [];
      raw.subscribe(`${prefix}.change.*`, { callback: (_err, m) => void bodies.push(m.string()) });
      await raw.flush();
      const out = event();
      bus.publish('change', out, 'e1-2');
      await until(() => bodies.length === 1);
      expect(JSON.parse(bodies[0])).toEqual({ origin: bus.instanceId, position: 'e1-2', payload: out });
      const inbound = event();
      raw.publish(`${prefix}.change.${inbound.companyUuid}`, JSON.stringify({ origin: 'peer', position: 'e1-3', payload: inbound }));
      await until(() => local.length === 3);
      expect(local.at(-1)).toEqual({ e: inbound, relayed: true });
    } finally {
      await raw?.close();
      await bus.close();
      await nats.stop();
    }
  });

  it('closing while NATS is down ends the connect attempts: the bus never connects afterwards', async () => {
    const nats = await TestNatsServer.reserve({ monitor: true });
    const bus = newBus(nats.url, `c${randomUUID().slice(0, 8)}`);
    bus.start();
    await sleep(100);
    await bus.close();
    await nats.start();
    await sleep(1500);
    try {
      // Not even a connection that was closed again: the dial loop ended with the close.
      expect((await nats.connections('all')).filter((c) => c.name?.startsWith(`svc-${bus.instanceId}`))).toEqual([]);
      expect(bus.status()).toEqual({ state: 'down' });
    } finally {
      await nats.stop();
    }
  });
});
