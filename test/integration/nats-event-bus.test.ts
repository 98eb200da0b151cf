import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { NatsEventBus } from '../../src/shared/event-bus/nats-event-bus.js';
import type { RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { MetricsService } from '../../src/shared/metrics/metrics.service.js';
import { freePort } from '../../src/shared/database/embedded-postgres.js';
import { TestNatsServer } from '../utils/nats-server.js';

const until = async (cond: () => boolean, timeoutMs = 5000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('NATS event bus (real nats-server)', () => {
  let nats: TestNatsServer;
  let a: NatsEventBus;
  let b: NatsEventBus;
  const prefix = `t${randomUUID().slice(0, 8)}`;
  const received: Record<'a' | 'b', Array<{ e: RealtimeEvent; relayed: boolean }>> = { a: [], b: [] };
  const reconnects = { a: 0, b: 0 };

  const event = (): RealtimeEvent => ({ companyUuid: randomUUID(), projectUuid: randomUUID(), entityType: 'idea', entityUuid: randomUUID(), action: 'created' });

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    const logger = pino({ level: 'silent' });
    a = new NatsEventBus(nats.url, prefix, logger, new MetricsService());
    b = new NatsEventBus(nats.url, prefix, logger, new MetricsService());
    a.start();
    b.start();
    expect(await a.waitUntilUp(5000)).toBe(true);
    expect(await b.waitUntilUp(5000)).toBe(true);
    a.subscribe('change', (e, meta) => received.a.push({ e, relayed: meta.relayed }));
    b.subscribe('change', (e, meta) => received.b.push({ e, relayed: meta.relayed }));
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
    const listed = new NatsEventBus(`${dead},${nats.url}`, prefix, pino({ level: 'silent' }), new MetricsService());
    listed.start();
    try {
      expect(await listed.waitUntilUp(5000)).toBe(true);
      const e = event();
      listed.publish('change', e);
      await until(() => received.a.length === 1 && received.b.length === 1);
      expect(received.a).toEqual([{ e, relayed: true }]);
    } finally {
      await listed.close();
    }
  });

  it('delivers locally at once and exactly once on the other instance, dropping its own echo', async () => {
    const e = event();
    a.publish('change', e);
    expect(received.a).toEqual([{ e, relayed: false }]);
    await until(() => received.b.length === 1);
    await new Promise((r) => setTimeout(r, 150));
    expect(received.b).toEqual([{ e, relayed: true }]);
    expect(received.a).toHaveLength(1);
  });

  it('relays notification frames on per-recipient subjects', async () => {
    const frames: unknown[] = [];
    const off = b.subscribe('notification', (m) => frames.push(m));
    const msg = { recipientType: 'user' as const, recipientUuid: randomUUID(), frame: { type: 'count_update' as const, unreadCount: 2 } };
    a.publish('notification', msg);
    await until(() => frames.length === 1);
    expect(frames[0]).toEqual(msg);
    off();
  });

  it('keeps local delivery through an outage, reports down, and announces the reconnection once', async () => {
    await nats.stop();
    await until(() => a.status().state === 'down' && b.status().state === 'down');
    const e = event();
    expect(() => a.publish('change', e)).not.toThrow();
    expect(received.a).toEqual([{ e, relayed: false }]);
    await nats.start();
    await until(() => a.status().state === 'up' && b.status().state === 'up', 10000);
    expect(reconnects).toEqual({ a: 1, b: 1 });
    // Nothing published during the outage is replayed.
    await new Promise((r) => setTimeout(r, 200));
    expect(received.b).toHaveLength(0);
    const after = event();
    a.publish('change', after);
    await until(() => received.b.length === 1);
    expect(received.b[0]).toEqual({ e: after, relayed: true });
  });
});
