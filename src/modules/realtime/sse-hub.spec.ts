import { EventEmitter } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { InProcessEventBus } from '../../shared/event-bus/in-process-event-bus.js';
import { MetricsService } from '../../shared/metrics/metrics.service.js';
import { SseHub } from './sse-hub.js';

describe('SseHub after close (shutdown)', () => {
  it('ends a stream opened after close at once, cleanly, instead of keeping it (and the process) open', async () => {
    const hub = new SseHub(new InProcessEventBus(() => undefined), new MetricsService(), 30_000);
    let ended = 0;
    const server = http.createServer((_req, res) => hub.open('changes', res, 'company', null, () => ended++));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      // A request that was in flight when shutdown ended the streams reaches the hub afterwards.
      hub.close();
      const res = await new Promise<{ status: number; type: string | undefined; body: string; complete: boolean }>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: '/', agent: false }, (r) => {
            let body = '';
            r.on('data', (c: Buffer) => (body += c.toString()));
            r.on('end', () => resolve({ status: r.statusCode ?? 0, type: r.headers['content-type'], body, complete: r.complete }));
          })
          .on('error', reject);
      });
      expect(res).toEqual({ status: 200, type: 'text/event-stream', body: ': connected\n\n', complete: true });
      expect({ size: hub.size, timers: hub.timerCount, ended }).toEqual({ size: 0, timers: 0, ended: 1 });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

/** A ServerResponse stand-in recording each write; `slowMs` makes every write of an event frame take that long. */
class FakeResponse extends EventEmitter {
  readonly writes: string[] = [];
  writableEnded = false;
  destroyed = false;
  writableLength = 0;
  constructor(private readonly slowMs = 0) {
    super();
  }
  writeHead(): this {
    return this;
  }
  flushHeaders(): void {}
  write(chunk: Buffer): boolean {
    const text = chunk.toString();
    if (this.slowMs && text.startsWith('data:')) {
      const until = performance.now() + this.slowMs;
      while (performance.now() < until) {
        // a socket write that costs time, as thousands of them do
      }
    }
    this.writes.push(text);
    return true;
  }
  end(): void {
    this.writableEnded = true;
  }
}

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));
const change = (n: number) => ({ companyUuid: 'c', projectUuid: 'p', entityType: 'task' as const, entityUuid: `e${n}`, action: 'updated' as const });
const frames = (res: FakeResponse): string[][] => res.writes.filter((w) => w.startsWith('data:')).map((w) => [...w.matchAll(/"entityUuid":"(e\d+)"/g)].map((m) => m[1]));

describe('SseHub fan-out', () => {
  it('writes each event once per socket, in publication order, without waiting when idle', async () => {
    const bus = new InProcessEventBus(() => undefined);
    const hub = new SseHub(bus, new MetricsService(), 30_000);
    const a = new FakeResponse();
    const b = new FakeResponse();
    hub.open('changes', a as unknown as http.ServerResponse, 'c', null, () => undefined);
    hub.open('changes', b as unknown as http.ServerResponse, 'c', 'p', () => undefined);
    bus.publish('change', change(1));
    bus.publish('change', change(2));
    await turn();
    // Both events of the same turn leave together: one write per socket.
    expect(frames(a)).toEqual([['e1', 'e2']]);
    expect(frames(b)).toEqual([['e1', 'e2']]);
    bus.publish('change', change(3));
    await turn();
    expect(frames(a)).toEqual([['e1', 'e2'], ['e3']]);
    hub.close();
  });

  it('paces flushes by their cost: after a slow fan-out, events of the next turns wait and leave in one write', async () => {
    const bus = new InProcessEventBus(() => undefined);
    const hub = new SseHub(bus, new MetricsService(), 30_000);
    const res = new FakeResponse(25);
    hub.open('changes', res as unknown as http.ServerResponse, 'c', null, () => undefined);
    bus.publish('change', change(1));
    await turn(); // the first flush runs at once and takes ≥ 25 ms
    expect(frames(res)).toEqual([['e1']]);
    bus.publish('change', change(2));
    await turn();
    bus.publish('change', change(3)); // a later turn: without pacing e2 would already have been written alone
    expect(frames(res)).toEqual([['e1']]);
    expect(hub.timerCount).toBe(2); // the heartbeat ticker and the deferred flush
    await new Promise((r) => setTimeout(r, 200));
    expect(frames(res)).toEqual([['e1'], ['e2', 'e3']]);
    hub.close();
    expect(hub.timerCount).toBe(0);
  });
});
