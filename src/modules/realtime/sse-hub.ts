import type { ServerResponse } from 'node:http';
import type { EventBus } from '../../shared/event-bus/event-bus.port.js';
import type { NotificationMessage, RealtimeEvent } from '../../shared/event-bus/events.js';
import type { MetricsService } from '../../shared/metrics/metrics.service.js';

export type StreamKind = 'changes' | 'notifications';

/** A client whose unsent buffer passes this is disconnected (platform.md §6.2). */
export const MAX_UNSENT_BYTES = 1024 * 1024;

/** Pacing of flushes (see SseHub): the pause after a flush is this many times its duration, capped. */
export const FLUSH_GAP_FACTOR = 3;
export const MAX_FLUSH_GAP_MS = 50;

const CONNECTED = Buffer.from(': connected\n\n');
const HEARTBEAT = Buffer.from(': heartbeat\n\n');

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
} as const;

export interface Subscriber {
  readonly kind: StreamKind;
  readonly res: ServerResponse;
  /** Company (changes) or `<type>:<uuid>` recipient (notifications). */
  readonly key: string;
  /** Project filter of a change stream; null = whole company. */
  readonly project: string | null;
  readonly onEnd: () => void;
  closed: boolean;
}

/** Change subscribers of one company: unfiltered ones, and filtered ones indexed by project. */
interface CompanyIndex {
  all: Set<Subscriber>;
  byProject: Map<string, Set<Subscriber>>;
}

/**
 * Fan-out for both SSE streams. Subscribers are indexed by company (and project) or by recipient, so an event only
 * touches the connections it is for; each frame is serialized once and the same Buffer is written to every socket.
 * One shared ticker writes heartbeats; there is no per-connection timer or bus listener.
 *
 * Frames are queued per subscriber set (a subscriber belongs to exactly one set: its company's unfiltered streams,
 * one project's, or one recipient's) and flushed together: each set's queued frames are joined into one Buffer and
 * written once to each of its sockets, so queuing costs nothing per connection and a burst reaches each socket in
 * one write. The fan-out — one socket write per connection per flush, mostly kernel time — is what fills the event
 * loop at a few thousand streams (`npm run bench:soak`). So flushes are paced by their own cost: idle, a flush runs at
 * the end of the current event-loop turn (setImmediate); after a flush that took `d` ms the next one waits until
 * `FLUSH_GAP_FACTOR × d` ms (at most `MAX_FLUSH_GAP_MS`) have passed, so the fan-out takes at most about a quarter of
 * the loop, requests keep the rest, and under load each write carries more frames.
 */
export class SseHub {
  private readonly companies = new Map<string, CompanyIndex>();
  private readonly recipients = new Map<string, Set<Subscriber>>();
  private readonly subscribers = new Set<Subscriber>();
  private ticker: NodeJS.Timeout | null = null;
  private readonly unsubscribeBus: Array<() => void>;
  private closed = false;
  /** Frames not yet written, per subscriber set, in publication order. */
  private pending = new Map<Set<Subscriber>, Buffer[]>();
  private flushing: { immediate: NodeJS.Immediate } | { timeout: NodeJS.Timeout } | null = null;
  /** `performance.now()` before which the next flush does not start (pacing, see the class comment). */
  private nextFlushAt = 0;

  constructor(
    bus: EventBus,
    private readonly metrics: MetricsService,
    private readonly heartbeatMs: number,
  ) {
    this.unsubscribeBus = [
      bus.subscribe('change', (e) => this.deliverChange(e)),
      bus.subscribe('notification', (m) => this.deliverNotification(m)),
      // After a lost shared channel comes back, browsers may have missed events: make them reconnect and refresh.
      bus.onReconnect(() => this.endAll()),
    ];
  }

  /** Writes the headers and `: connected`, and registers the subscriber. */
  open(kind: StreamKind, res: ServerResponse, key: string, project: string | null, onEnd: () => void): Subscriber {
    if (this.closed) {
      // Shutting down (a request that was in flight when the streams were ended): end at once, as those were, so the
      // client reconnects elsewhere instead of holding the process open until the grace period runs out.
      res.writeHead(200, SSE_HEADERS);
      res.end(CONNECTED);
      onEnd();
      return { kind, res, key, project, onEnd, closed: true };
    }
    const sub: Subscriber = { kind, res, key, project, onEnd, closed: false };
    res.writeHead(200, SSE_HEADERS);
    res.flushHeaders();
    res.write(CONNECTED);
    if (kind === 'changes') {
      let index = this.companies.get(key);
      if (!index) {
        index = { all: new Set(), byProject: new Map() };
        this.companies.set(key, index);
      }
      if (project === null) index.all.add(sub);
      else {
        let set = index.byProject.get(project);
        if (!set) index.byProject.set(project, (set = new Set()));
        set.add(sub);
      }
    } else {
      let set = this.recipients.get(key);
      if (!set) this.recipients.set(key, (set = new Set()));
      set.add(sub);
    }
    this.subscribers.add(sub);
    this.metrics.sseConnections.inc({ stream: kind });
    res.once('close', () => this.remove(sub));
    this.startTicker();
    return sub;
  }

  /** Idempotent: unregisters and decrements the gauge; stops the ticker with the last subscriber. */
  remove(sub: Subscriber): void {
    if (sub.closed) return;
    sub.closed = true;
    this.subscribers.delete(sub);
    if (sub.kind === 'changes') {
      const index = this.companies.get(sub.key);
      if (index) {
        if (sub.project === null) index.all.delete(sub);
        else {
          const set = index.byProject.get(sub.project);
          set?.delete(sub);
          if (set && set.size === 0) index.byProject.delete(sub.project);
        }
        if (index.all.size === 0 && index.byProject.size === 0) this.companies.delete(sub.key);
      }
    } else {
      const set = this.recipients.get(sub.key);
      set?.delete(sub);
      if (set && set.size === 0) this.recipients.delete(sub.key);
    }
    this.metrics.sseConnections.dec({ stream: sub.kind });
    if (this.subscribers.size === 0) this.stopTicker();
    sub.onEnd();
  }

  /** Ends every open stream (shutdown, shared channel regained). */
  endAll(): void {
    for (const sub of [...this.subscribers]) {
      this.remove(sub);
      if (!sub.res.writableEnded) sub.res.end();
    }
  }

  /** Ends every stream for good: a stream opened afterwards is ended at once. */
  close(): void {
    this.closed = true;
    this.endAll();
    this.cancelFlush();
    this.pending.clear();
    for (const off of this.unsubscribeBus) off();
  }

  get size(): number {
    return this.subscribers.size;
  }

  /** Open timers owned by the hub (heartbeat ticker, pending flush), for leak tests. */
  get timerCount(): number {
    return (this.ticker ? 1 : 0) + (this.flushing ? 1 : 0);
  }

  private deliverChange(e: RealtimeEvent): void {
    const index = this.companies.get(e.companyUuid);
    if (!index) return;
    const filtered = index.byProject.get(e.projectUuid);
    if (index.all.size === 0 && !filtered) return;
    // Exactly the five contract fields, in contract order, whatever the payload carried.
    const frame = Buffer.from(
      `data: ${JSON.stringify({ companyUuid: e.companyUuid, projectUuid: e.projectUuid, entityType: e.entityType, entityUuid: e.entityUuid, action: e.action })}\n\n`,
    );
    let n = this.writeAll(index.all, frame);
    if (filtered) n += this.writeAll(filtered, frame);
    if (n) this.metrics.eventsDelivered.inc({ stream: 'changes' }, n);
  }

  private deliverNotification(m: NotificationMessage): void {
    const set = this.recipients.get(`${m.recipientType}:${m.recipientUuid}`);
    if (!set) return;
    const n = this.writeAll(set, Buffer.from(`data: ${JSON.stringify(m.frame)}\n\n`));
    if (n) this.metrics.eventsDelivered.inc({ stream: 'notifications' }, n);
  }

  /** Queues `frame` for every subscriber of `set` (all of them open: closed ones leave their set); returns how many. */
  private writeAll(set: Set<Subscriber>, frame: Buffer): number {
    if (set.size === 0) return 0;
    const queued = this.pending.get(set);
    if (queued) queued.push(frame);
    else this.pending.set(set, [frame]);
    this.scheduleFlush();
    return set.size;
  }

  private scheduleFlush(): void {
    if (this.flushing) return;
    const wait = this.nextFlushAt - performance.now();
    this.flushing = wait >= 1 ? { timeout: setTimeout(() => this.flush(), wait) } : { immediate: setImmediate(() => this.flush()) };
  }

  private cancelFlush(): void {
    if (this.flushing && 'timeout' in this.flushing) clearTimeout(this.flushing.timeout);
    else if (this.flushing) clearImmediate(this.flushing.immediate);
    this.flushing = null;
  }

  private flush(): void {
    this.flushing = null;
    const pending = this.pending;
    this.pending = new Map();
    const started = performance.now();
    for (const [set, frames] of pending) {
      const chunk = frames.length === 1 ? frames[0] : Buffer.concat(frames);
      for (const sub of set) this.write(sub, chunk);
    }
    const spent = performance.now() - started;
    this.nextFlushAt = started + spent + Math.min(MAX_FLUSH_GAP_MS, spent * FLUSH_GAP_FACTOR);
  }

  private write(sub: Subscriber, chunk: Buffer): boolean {
    const res = sub.res;
    if (res.writableEnded || res.destroyed) return false;
    if (res.writableLength > MAX_UNSENT_BYTES) {
      this.metrics.sseSlowDisconnects.inc({ stream: sub.kind });
      this.remove(sub);
      res.destroy();
      return false;
    }
    res.write(chunk);
    return true;
  }

  private startTicker(): void {
    if (this.ticker) return;
    this.ticker = setInterval(() => {
      for (const sub of [...this.subscribers]) this.write(sub, HEARTBEAT);
    }, this.heartbeatMs);
    this.ticker.unref();
  }

  private stopTicker(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
  }
}
