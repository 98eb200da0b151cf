import { jest } from '@jest/globals';
import type { ServerResponse } from 'node:http';
import type { MessageEvent } from '@nestjs/common';
import { pino } from 'pino';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../../config/config.js';
import { changeJson, type RealtimeEvent } from '../../shared/event-bus/events.js';
import { Lifecycle } from '../../shared/lifecycle.js';
import { MetricsService } from '../../shared/metrics/metrics.service.js';
import type { LoggedFrame, StreamLog, StreamName } from '../../shared/stream-log/stream-log.js';
import { StreamService } from './stream.service.js';

/** Just what the service touches on a response: cork/uncork, and the fields read at teardown. */
class FakeResponse {
  corks = 0;
  uncorks = 0;
  destroyed = false;
  writableFinished = false;
  writableLength = 0;
  cork(): void {
    this.corks++;
  }
  uncork(): void {
    this.uncorks++;
  }
}

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

function setup(heartbeatMs = 60_000) {
  const lifecycle = new Lifecycle();
  const log = new FakeLog();
  const config = { sseHeartbeatMs: heartbeatMs, sseRetryMs: 3000, sseMaxStreamsPerUser: 64 } as unknown as AppConfig;
  const service = new StreamService(config, lifecycle, new MetricsService(), log as unknown as StreamLog, {} as DataSource, pino({ level: 'silent' }));
  const open = (opts: { project?: string | null; lastEventId?: string | null; session?: string } = {}) => {
    const res = new FakeResponse();
    const got: MessageEvent[] = [];
    let completed = false;
    const sub = service
      .changes(company, opts.project ?? null, { sessionUuid: opts.session ?? null, lastEventId: opts.lastEventId ?? null, res: res as unknown as ServerResponse })
      .subscribe({ next: (m) => got.push(m), complete: () => (completed = true) });
    const data = () => got.filter((m) => m.data !== undefined && m.type === undefined).map((m) => ({ id: m.id, e: JSON.parse(m.data as string) as RealtimeEvent }));
    return { res, got, sub, data, completed: () => completed };
  };
  /** Commits and publishes locally, as the transaction runner does. */
  const publish = (e: RealtimeEvent, position = log.commit(e)) => service.onChange(e, { relayed: false, position });
  return { service, lifecycle, open, log, publish };
}

describe('StreamService', () => {
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
    expect(a.data()).toEqual([]);
    publish(e1, p1);
    publish(e1, p1);
    expect(a.data().map((f) => f.id)).toEqual(['ep-1', 'ep-2']);
    // ep-3 never arrives (lost in transit): ep-4 waits, then the log fills the hole.
    publish(e4, p4);
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
    log.frames.splice(0, 2); // pruned: ep-1 and ep-2 are gone
    for (const lastEventId of ['garbage', 'zz-2', 'ep-99']) {
      const s = open({ lastEventId });
      await settle();
      expect(s.got.filter((m) => m.type === 'reset')).toEqual([{ type: 'reset', id: 'ep-3', data: '{}' }]);
      s.sub.unsubscribe();
    }
    // ep-0 needs ep-1..ep-3, of which only ep-3 is logged — and the sequencer's memory of a fresh key lies.
    const fresh = setup();
    fresh.publish(change());
    fresh.publish(change());
    fresh.log.frames.splice(0, 1);
    const s = fresh.open({ lastEventId: 'ep-0' });
    await settle();
    expect(s.got.filter((m) => m.type === 'reset')).toEqual([{ type: 'reset', id: 'ep-2', data: '{}' }]);
    const e = change();
    fresh.publish(e);
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
      const { service, open } = setup(1000);
      expect(service.timerCount).toBe(0);
      const a = open({ session: 's1' });
      const b = open({ session: 's2' });
      await settle();
      expect(service.timerCount).toBe(1);
      service.onSessionEnded({ sessionUuid: 's1' });
      expect(a.completed()).toBe(true);
      expect(b.completed()).toBe(false);
      jest.advanceTimersByTime(1000);
      expect(b.got.at(-1)).toEqual({ comment: 'heartbeat' });
      b.sub.unsubscribe();
      expect(service.timerCount).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it('caps streams per user (the guard reserves, the response close releases)', () => {
    const { service } = setup();
    (service as unknown as { config: AppConfig }).config.sseMaxStreamsPerUser = 2;
    expect([service.reserve('u'), service.reserve('u'), service.reserve('u'), service.reserve('v')]).toEqual([true, true, false, true]);
    service.release('u');
    expect(service.reserve('u')).toBe(true);
  });

  it('after shutdown a new stream gets `: connected` and ends at once', async () => {
    const { service, lifecycle, open } = setup();
    const a = open();
    lifecycle.beginShutdown();
    expect(a.completed()).toBe(true);
    const c = open();
    expect(c.got).toEqual([{ comment: 'connected' }]);
    expect(c.completed()).toBe(true);
    expect({ size: service.size, timers: service.timerCount }).toEqual({ size: 0, timers: 0 });
  });
});
