import { jest } from '@jest/globals';
import type { MessageEvent } from '@nestjs/common';
import { pino } from 'pino';
import type { AppConfig } from '../../config/config.js';
import type { BusInterest, BusTopic, EventBus } from '../../shared/event-bus/event-bus.port.js';
import { changeJson, type RealtimeEvent } from '../../shared/event-bus/events.js';
import { SchedulerRegistry } from '@nestjs/schedule';
import { InProcessEventBus } from '../../shared/event-bus/in-process-event-bus.js';
import { MetricsService } from '../../shared/metrics/metrics.service.js';
import type { LoggedFrame, StreamLog, StreamName } from '../../shared/stream-log/stream-log.js';
import type { AuthService } from '../identity/index.js';
import { FeedHub } from './feed-hub.js';
import type { BatchEvent, PositionedEvent } from './frames.js';
import { PositionSequencer } from './position-sequencer.js';
import { StreamConnections } from './stream-connections.js';
import { StreamReplayer } from './stream-replayer.js';
import { StreamService } from './stream.service.js';

/** The stream log in memory: one company key, counting its reads. */
class FakeLog {
  frames: LoggedFrame[] = [];
  reads = 0;
  headReads = 0;
  async epoch(): Promise<string> {
    return 'ep';
  }
  async heads(_stream: StreamName, keys: readonly string[]): Promise<Map<string, number>> {
    this.headReads++;
    return new Map(keys.map((k) => [k, this.frames.at(-1)?.n ?? 0]));
  }
  async read(_stream: StreamName, _key: string, after: number, upTo: number, limit: number): Promise<LoggedFrame[]> {
    this.reads++;
    return this.frames.filter((f) => f.n > after && f.n <= upTo).slice(0, limit);
  }
  /** Commits an event: logged at the next position; returns the position to publish it with. */
  commit(e: RealtimeEvent): string {
    const n = (this.frames.at(-1)?.n ?? 0) + 1;
    this.frames.push({ n, projectUuid: e.projectUuid, payload: changeJson(e) });
    return `ep-${n}`;
  }
}

/**
 * A bus whose interests the test controls: `ready` settles when the test says, `continuous` is whether the subject
 * was still subscribed (the test's `subscribed` set, emptied to simulate the end of the bus's linger).
 */
class InterestBus {
  readonly taken: BusTopic[] = [];
  held = 0;
  readonly subscribed = new Set<string>();
  private readonly waiting: Array<() => void> = [];
  autoReady = true;
  interest(topic: BusTopic): BusInterest {
    this.taken.push(topic);
    this.held++;
    const subject = JSON.stringify(topic);
    const continuous = this.subscribed.has(subject);
    this.subscribed.add(subject);
    const ready = this.autoReady ? Promise.resolve() : new Promise<void>((r) => this.waiting.push(r));
    let released = false;
    return {
      ready,
      continuous,
      release: () => {
        if (!released) this.held--;
        released = true;
      },
    };
  }
  /** The subscriptions made so far become active at the server. */
  confirm(): void {
    for (const r of this.waiting.splice(0)) r();
  }
}

const company = 'c0000000-0000-4000-8000-000000000001';
const project = 'p0000000-0000-4000-8000-000000000001';
const other = 'p0000000-0000-4000-8000-000000000002';
let counter = 0;
const change = (projectUuid = project): RealtimeEvent => ({ companyUuid: company, projectUuid, entityType: 'task', entityUuid: `e${++counter}`, action: 'updated' });
const settle = async (ms = 0): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  if (ms) await new Promise((r) => setTimeout(r, ms));
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

function setup(heartbeatMs = 60_000, lagMs = 30_000, bus: EventBus | InterestBus = new InProcessEventBus(), busInterestLingerMs = 60_000) {
  const log = new FakeLog();
  const config = { sseHeartbeatMs: heartbeatMs, sseRetryMs: 3000, sseMaxStreamsPerUser: 64, sseLagMs: lagMs, busInterestLingerMs } as unknown as AppConfig;
  const metrics = new MetricsService();
  const logger = pino({ level: 'silent' });
  const alive = new Set<string>();
  const auth = { liveSessions: async (ids: readonly string[]) => new Set(ids.filter((id) => alive.has(id))) } as unknown as AuthService;
  const connections = new StreamConnections(config, metrics, auth);
  const hub = new FeedHub(config, metrics, logger);
  const sequencer = new PositionSequencer(bus as EventBus, config, log as unknown as StreamLog, hub, metrics, logger);
  const replayer = new StreamReplayer(sequencer, logger);
  const service = new StreamService(config, metrics, logger, connections, hub, sequencer, replayer, new SchedulerRegistry());
  const open = (opts: { project?: string | null; lastEventId?: string | null; session?: string; batch?: boolean } = {}) => {
    const got: MessageEvent[] = [];
    let completed = false;
    if (opts.session) alive.add(opts.session);
    const sub = service
      .changes(company, opts.project ?? null, { sessionUuid: opts.session ?? null, lastEventId: opts.lastEventId ?? null, batch: opts.batch ?? false })
      .subscribe({ next: (m) => got.push(m), complete: () => (completed = true) });
    /** Every data frame received, batches unpacked, in order. */
    const data = () =>
      got.flatMap((m) => (m.type === 'batch' ? (m as BatchEvent).frames : m.data !== undefined && m.type === undefined ? [m as PositionedEvent] : [])).map((m) => ({ id: m.id, e: JSON.parse(m.data) as RealtimeEvent }));
    return { got, sub, data, completed: () => completed };
  };
  /** Commits and publishes locally, as the transaction runner does (with the frame's JSON as logged). */
  const publish = (e: RealtimeEvent, position = log.commit(e)) => sequencer.onChange(e, { relayed: false, position, data: changeJson(e) });
  /** A frame relayed from another instance (no logged JSON with it). */
  const relay = (e: RealtimeEvent, position: string) => sequencer.onChange(e, { relayed: true, position });
  return { service, open, log, publish, relay, connections, hub, metrics, alive };
}

describe('StreamService', () => {
  it('takes the bus interest in the company with its first stream and reads the head only once it is active: nothing committed meanwhile is lost or doubled', async () => {
    const bus = new InterestBus();
    bus.autoReady = false;
    const { open, relay, log } = setup(60_000, 30_000, bus);
    const before = change();
    log.commit(before);
    const a = open();
    const b = open();
    await settle();
    // One interest for the key, however many streams; no head read until the subscription is active.
    expect(bus.taken).toEqual([{ kind: 'change', companyUuid: company }]);
    expect(log.headReads).toBe(0);
    // Committed on another instance while the subscription was being confirmed: relayed before the head is known.
    const during = change();
    const p2 = log.commit(during);
    relay(during, p2);
    bus.confirm();
    await settle();
    expect(log.headReads).toBe(1);
    // The head (ep-2) covers it: the relayed copy is a duplicate, the streams start after it.
    expect(a.got[1]).toEqual({ id: 'ep-2', retry: expect.any(Number) });
    const next = change();
    relay(next, log.commit(next));
    await settle();
    expect(a.data()).toEqual([{ id: 'ep-3', e: next }]);
    expect(b.data()).toEqual([{ id: 'ep-3', e: next }]);
    a.sub.unsubscribe();
    expect(bus.held).toBe(1);
    b.sub.unsubscribe();
    expect(bus.held).toBe(0);
  });

  it('a key reopened while it lingers keeps its state when the bus stayed subscribed, and starts afresh from the log when it did not', async () => {
    const bus = new InterestBus();
    const { open, relay, publish, log } = setup(60_000, 30_000, bus, 10_000);
    const a = open();
    await settle();
    publish(change());
    await settle();
    a.sub.unsubscribe();
    expect(bus.held).toBe(0);
    // Within the linger, still subscribed: the same sequencer, no new head read, and it resumes from memory.
    const b = open({ lastEventId: 'ep-1' });
    await settle();
    expect(bus.taken).toHaveLength(2);
    expect(log.headReads).toBe(1);
    b.sub.unsubscribe();
    // The bus's linger ended (unsubscribed) while the key still lingers here: frames were missed meanwhile.
    bus.subscribed.clear();
    const missed = change();
    log.commit(missed);
    const c = open({ lastEventId: 'ep-1' });
    await settle();
    expect(log.headReads).toBe(2);
    expect(c.data()).toEqual([{ id: 'ep-2', e: missed }]);
    const live = change();
    relay(live, log.commit(live));
    await settle();
    expect(c.data().map((f) => f.id)).toEqual(['ep-2', 'ep-3']);
    c.sub.unsubscribe();
    expect(bus.held).toBe(0);
  });

  it('sends `: connected`, the connect block (head + jittered retry), then each frame with its position, serialized once', async () => {
    const { service, open, publish, log } = setup();
    publish(change());
    const a = open();
    const filtered = open({ project });
    await settle();
    const b = open();
    expect(a.got[0]).toEqual({ comment: 'connected' });
    expect(a.got[1]).toEqual({ id: 'ep-1', retry: expect.any(Number) });
    expect(b.got[1]).toEqual({ id: 'ep-1', retry: expect.any(Number) });
    for (const s of [a, b]) expect((s.got[1].retry as number) >= 3000 && (s.got[1].retry as number) < 6000).toBe(true);
    const e1 = change();
    const e2 = change(other);
    publish(e1);
    publish(e2);
    // Publishing only queues: nothing is written before the hub's round (the mutation's response comes first).
    expect(a.data()).toEqual([]);
    await settle();
    expect(a.data()).toEqual([
      { id: 'ep-2', e: e1 },
      { id: 'ep-3', e: e2 },
    ]);
    expect(b.got.at(-1)).toBe(a.got.at(-1));
    expect(filtered.data()).toEqual([{ id: 'ep-2', e: e1 }]);
    expect(log.headReads).toBe(1);
    expect(service.size).toBe(3);
    for (const s of [a, b, filtered]) s.sub.unsubscribe();
    expect(service.size).toBe(0);
  });

  it('delivers out-of-order arrivals in position order, drops duplicates, and fills a hole from the log after a short wait', async () => {
    const { open, publish, log } = setup();
    const a = open();
    await settle();
    const [e1, e2, e3, e4] = [change(), change(), change(), change()];
    const [p1, p2, p3, p4] = [log.commit(e1), log.commit(e2), log.commit(e3), log.commit(e4)];
    publish(e2, p2);
    await settle();
    expect(a.data()).toEqual([]);
    publish(e1, p1);
    publish(e1, p1);
    await settle();
    expect(a.data().map((f) => f.id)).toEqual(['ep-1', 'ep-2']);
    // ep-3 never arrives (lost in transit): ep-4 waits, then the log fills the hole.
    publish(e4, p4);
    await settle();
    expect(a.data()).toHaveLength(2);
    const reads = log.reads;
    await settle(120);
    expect(a.data()).toEqual([
      { id: p1, e: e1 },
      { id: p2, e: e2 },
      { id: p3, e: e3 },
      { id: p4, e: e4 },
    ]);
    expect(log.reads).toBe(reads + 1);
    a.sub.unsubscribe();
  });

  it('resumes after Last-Event-ID: replays the filtered frames after it, then live, without duplicate or gap', async () => {
    const { open, publish } = setup();
    const keep = open();
    await settle();
    const events = [change(), change(other), change(), change()];
    for (const e of events) publish(e);
    const resumed = open({ project, lastEventId: 'ep-1' });
    const live = change();
    publish(live);
    await settle();
    expect(resumed.got[1]).toEqual({ id: 'ep-1', retry: expect.any(Number) });
    expect(resumed.data()).toEqual([
      { id: 'ep-3', e: events[2] },
      { id: 'ep-4', e: events[3] },
      { id: 'ep-5', e: live },
    ]);
    keep.sub.unsubscribe();
    resumed.sub.unsubscribe();
  });

  it('answers a malformed, foreign, ahead or pruned position with one `reset` at the head, then continues live', async () => {
    const { open, publish, log } = setup();
    const keep = open();
    await settle();
    for (let i = 0; i < 3; i++) publish(change());
    await settle();
    log.frames.splice(0, 2); // pruned: ep-1 and ep-2 are gone
    for (const lastEventId of ['garbage', 'zz-2', 'ep-99']) {
      const s = open({ lastEventId });
      await settle();
      expect(s.got.filter((m) => m.type === 'reset')).toEqual([{ type: 'reset', id: 'ep-3', data: '{}', n: 3 }]);
      s.sub.unsubscribe();
    }
    // ep-0 needs ep-1..ep-3, of which only ep-3 is logged — and the sequencer's memory of a fresh key lies.
    const fresh = setup();
    fresh.publish(change());
    fresh.publish(change());
    fresh.log.frames.splice(0, 1);
    const s = fresh.open({ lastEventId: 'ep-0' });
    await settle();
    expect(s.got.filter((m) => m.type === 'reset')).toEqual([{ type: 'reset', id: 'ep-2', data: '{}', n: 2 }]);
    const e = change();
    fresh.publish(e);
    await settle();
    expect(s.data()).toEqual([{ id: 'ep-3', e }]);
    keep.sub.unsubscribe();
    s.sub.unsubscribe();
  });

  it('coalesces the replays of a reconnect storm: one log read for a hundred resuming clients', async () => {
    const { open, publish, log } = setup();
    for (let i = 0; i < 50; i++) publish(change());
    const reads = log.reads;
    const clients = Array.from({ length: 100 }, (_, i) => open({ lastEventId: `ep-${10 + (i % 5)}` }));
    await settle();
    expect(log.reads - reads).toBe(1);
    expect(log.headReads).toBe(1);
    for (const [i, c] of clients.entries()) {
      expect(c.data().map((f) => f.id)).toEqual(Array.from({ length: 50 - 10 - (i % 5) }, (_, k) => `ep-${11 + (i % 5) + k}`));
      c.sub.unsubscribe();
    }
  });

  it('keeps what a replay read in memory, even on a fresh instance: later resumes of that range read nothing', async () => {
    const { open, publish, log } = setup();
    for (let i = 0; i < 30; i++) publish(change());
    // A fresh instance: nothing delivered here yet, the first resume reads the log...
    const first = open({ lastEventId: 'ep-5' });
    await settle();
    expect(first.data()).toHaveLength(25);
    const reads = log.reads;
    // ...and the ones that reconnect later (their retry is spread over seconds) are served from memory.
    const later = Array.from({ length: 20 }, (_, i) => open({ lastEventId: `ep-${5 + i}` }));
    await settle();
    expect(log.reads).toBe(reads);
    for (const [i, c] of later.entries()) expect(c.data()).toHaveLength(25 - i);
    for (const c of [first, ...later]) c.sub.unsubscribe();
  });

  it('ends a session’s streams (logout anywhere), and runs one heartbeat timer only while streams are open', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick'] });
    try {
      const { service, open, connections, alive } = setup(1000);
      expect(service.timerCount).toBe(0);
      const a = open({ session: 's1' });
      const b = open({ session: 's2' });
      const c = open({ session: 's3' });
      await settle();
      expect(service.timerCount).toBe(1);
      connections.onSessionEnded({ sessionUuid: 's1' });
      expect(a.completed()).toBe(true);
      expect(b.completed()).toBe(false);
      // s3 expires: the heartbeat's audit asks identity and ends its stream.
      alive.delete('s3');
      jest.advanceTimersByTime(1000);
      await settle();
      expect(b.got.at(-1)).toEqual({ comment: 'heartbeat' });
      expect(c.completed()).toBe(true);
      expect(b.completed()).toBe(false);
      b.sub.unsubscribe();
      expect(service.timerCount).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it('caps streams per user (the guard reserves, the response close releases)', () => {
    const { connections } = setup();
    (connections as unknown as { config: AppConfig }).config.sseMaxStreamsPerUser = 2;
    expect([connections.reserve('u'), connections.reserve('u'), connections.reserve('u'), connections.reserve('v')]).toEqual([true, true, false, true]);
    connections.release('u');
    expect(connections.reserve('u')).toBe(true);
  });

  it('after shutdown a new stream gets `: connected` and ends at once', async () => {
    const { service, open } = setup();
    const a = open();
    service.beforeApplicationShutdown();
    expect(a.completed()).toBe(true);
    const c = open();
    expect(c.got).toEqual([{ comment: 'connected' }]);
    expect(c.completed()).toBe(true);
    expect({ size: service.size, timers: service.timerCount }).toEqual({ size: 0, timers: 0 });
  });
  it('batch=1: what is pending at a round goes out as one `event: batch` (id = the last position, data = the frames in order); a lone frame stays a plain frame', async () => {
    const { open, publish } = setup();
    const batched = open({ batch: true });
    const single = open();
    await settle();
    const burst = Array.from({ length: 5 }, () => change());
    for (const e of burst) publish(e);
    await settle();
    const batches = batched.got.filter((m) => m.type === 'batch') as BatchEvent[];
    expect(batches).toHaveLength(1);
    expect(batches[0].id).toBe('ep-5');
    expect(JSON.parse(batches[0].data)).toEqual(burst);
    // Without batch=1 nothing changes: one frame per event, in order.
    expect(single.got.filter((m) => m.type === 'batch')).toEqual([]);
    expect(single.data()).toEqual(burst.map((e, i) => ({ id: `ep-${i + 1}`, e })));
    const lone = change();
    publish(lone);
    await settle();
    expect(batched.got.at(-1)).toEqual(expect.objectContaining({ id: 'ep-6', data: JSON.stringify(lone) }));
    expect(batched.got.at(-1)?.type).toBeUndefined();
    batched.sub.unsubscribe();
    single.sub.unsubscribe();
  });

  it('a resume inside a burst (batch=1) replays the rest once, joined, then live: positions contiguous across frames', async () => {
    const { open, publish } = setup();
    const keep = open();
    await settle();
    for (let i = 0; i < 10; i++) publish(change());
    await settle();
    const resumed = open({ batch: true, lastEventId: 'ep-4' });
    publish(change());
    await settle();
    const ids = resumed.data().map((f) => f.id);
    expect(ids).toEqual(Array.from({ length: 7 }, (_, i) => `ep-${5 + i}`));
    expect(resumed.got.filter((m) => m.type === 'batch').length).toBeGreaterThanOrEqual(1);
    keep.sub.unsubscribe();
    resumed.sub.unsubscribe();
  });

  it('a stream that joins while frames are queued starts before them (no frame lost, none twice), whichever set it joins', async () => {
    const { open, publish } = setup();
    const whole = open();
    await settle();
    const e1 = change(other);
    publish(e1);
    // Not yet written: a new stream of the project (a new set) and one of the company both start before ep-1.
    const late = open({ project: other });
    const late2 = open();
    expect(late.got[1]).toEqual({ id: 'ep-0', retry: expect.any(Number) });
    expect(late2.got[1]).toEqual({ id: 'ep-0', retry: expect.any(Number) });
    await settle();
    for (const s of [whole, late, late2]) expect(s.data()).toEqual([{ id: 'ep-1', e: e1 }]);
    for (const s of [whole, late, late2]) s.sub.unsubscribe();
  });

  it('a set whose oldest frame waited longer than SSE_LAG_MS gets one reset at the newest position instead, then live', async () => {
    const { open, publish, hub, metrics } = setup(60_000, 100);
    const a = open();
    await settle();
    // The hub cannot run a round (its event loop turn never comes in time): simulate by pausing its pump.
    const realSchedule = (hub as unknown as { schedule: () => void }).schedule;
    (hub as unknown as { schedule: () => void }).schedule = () => undefined;
    publish(change());
    publish(change());
    await settle(150);
    (hub as unknown as { schedule: () => void }).schedule = realSchedule;
    const live = change();
    publish(live);
    await settle();
    expect(a.got.filter((m) => m.type === 'reset')).toEqual([{ type: 'reset', id: 'ep-3', data: '{}', n: 3 }]);
    expect(a.data()).toEqual([]);
    const next = change();
    publish(next);
    await settle();
    expect(a.data()).toEqual([{ id: 'ep-4', e: next }]);
    expect(await metrics.registry.getSingleMetricAsString('svc_sse_resets_total')).toMatch(/svc_sse_resets_total\{stream="changes",reason="lagging"\} 1/);
    a.sub.unsubscribe();
  });
});
