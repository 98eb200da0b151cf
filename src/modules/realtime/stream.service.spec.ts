import { jest } from '@jest/globals';
import type { ServerResponse } from 'node:http';
import type { MessageEvent } from '@nestjs/common';
import type { AppConfig } from '../../config/config.js';
import type { RealtimeEvent } from '../../shared/event-bus/events.js';
import { Lifecycle } from '../../shared/lifecycle.js';
import { MetricsService } from '../../shared/metrics/metrics.service.js';
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

const company = 'c0000000-0000-4000-8000-000000000001';
const project = 'p0000000-0000-4000-8000-000000000001';
const change = (projectUuid = project): RealtimeEvent => ({ companyUuid: company, projectUuid, entityType: 'task', entityUuid: 'e', action: 'updated' });

function setup(heartbeatMs = 60_000) {
  const lifecycle = new Lifecycle();
  const service = new StreamService({ sseHeartbeatMs: heartbeatMs } as AppConfig, lifecycle, new MetricsService());
  const open = (project: string | null = null) => {
    const res = new FakeResponse();
    const got: MessageEvent[] = [];
    let completed = false;
    const sub = service.changes(company, project, res as unknown as ServerResponse).subscribe({ next: (m) => got.push(m), complete: () => (completed = true) });
    return { res, got, sub, completed: () => completed };
  };
  return { service, lifecycle, open };
}

describe('StreamService', () => {
  it('sends `: connected` first (a comment, so no id), then each event serialized once for every connection', () => {
    const { service, open } = setup();
    const a = open();
    const b = open();
    const filtered = open(project);
    service.onChange({ ...change(), extra: 'never sent' } as RealtimeEvent);
    service.onChange(change('p0000000-0000-4000-8000-000000000002'));
    expect(a.got[0]).toEqual({ comment: 'connected' });
    expect(a.got.slice(1).map((m) => JSON.parse(m.data as string))).toEqual([change(), change('p0000000-0000-4000-8000-000000000002')]);
    expect(Object.keys(JSON.parse(a.got[1].data as string))).toEqual(['companyUuid', 'projectUuid', 'entityType', 'entityUuid', 'action']);
    // The same object reaches every connection of the key: one serialization per event, not per connection.
    expect(b.got[1]).toBe(a.got[1]);
    expect(filtered.got.slice(1)).toEqual([a.got[1]]);
    expect(service.size).toBe(3);
    for (const c of [a, b, filtered]) c.sub.unsubscribe();
    expect(service.size).toBe(0);
  });

  it('runs one heartbeat timer for all streams, only while some stream is open', () => {
    jest.useFakeTimers();
    try {
      const { service, open } = setup(1000);
      expect(service.timerCount).toBe(0);
      const a = open();
      const b = open(project);
      expect(service.timerCount).toBe(1);
      jest.advanceTimersByTime(1000);
      expect(a.got.at(-1)).toEqual({ comment: 'heartbeat' });
      expect(b.got.at(-1)).toEqual({ comment: 'heartbeat' });
      a.sub.unsubscribe();
      b.sub.unsubscribe();
      expect(service.timerCount).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it('corks a feed’s responses for the rest of a turn that brings a second event, and leaves lone events alone', async () => {
    const { service, open } = setup();
    const a = open();
    service.onChange(change());
    await new Promise((r) => setImmediate(r));
    expect({ corks: a.res.corks, uncorks: a.res.uncorks }).toEqual({ corks: 0, uncorks: 0 });
    for (let i = 0; i < 5; i++) service.onChange(change());
    expect({ corks: a.res.corks, uncorks: a.res.uncorks }).toEqual({ corks: 1, uncorks: 0 });
    await new Promise((r) => setImmediate(r));
    expect({ corks: a.res.corks, uncorks: a.res.uncorks }).toEqual({ corks: 1, uncorks: 1 });
    expect(a.got).toHaveLength(7);
    a.sub.unsubscribe();
  });

  it('ends every stream on resync; after shutdown a new stream gets `: connected` and ends at once', () => {
    const { service, lifecycle, open } = setup();
    const a = open();
    service.endAll();
    expect(a.completed()).toBe(true);
    expect(service.size).toBe(0);
    const b = open();
    expect(b.completed()).toBe(false);
    lifecycle.beginShutdown();
    expect(b.completed()).toBe(true);
    const c = open();
    expect(c.got).toEqual([{ comment: 'connected' }]);
    expect(c.completed()).toBe(true);
    expect({ size: service.size, timers: service.timerCount }).toEqual({ size: 0, timers: 0 });
  });

  it('routes notification frames to their recipient only', () => {
    const { service } = setup();
    const got: MessageEvent[] = [];
    const sub = service.notifications('user', 'u1', new FakeResponse() as unknown as ServerResponse).subscribe((m) => got.push(m));
    service.onNotification({ recipientType: 'agent', recipientUuid: 'u1', frame: { type: 'count_update', unreadCount: 9 } });
    service.onNotification({ recipientType: 'user', recipientUuid: 'u1', frame: { type: 'count_update', unreadCount: 3 } });
    expect(got.slice(1)).toEqual([{ data: '{"type":"count_update","unreadCount":3}' }]);
    sub.unsubscribe();
  });
});
