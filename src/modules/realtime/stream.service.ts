import type { ServerResponse } from 'node:http';
import { Inject, Injectable, type MessageEvent } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import type { Logger } from 'pino';
import { finalize, merge, Observable, share, Subject, takeUntil, type Subscriber } from 'rxjs';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../config/config.js';
import { BUS_EVENTS, changeJson, type DeliveryMeta, type NotificationMessage, type RealtimeEvent, type SessionEnded } from '../../shared/event-bus/events.js';
import { Lifecycle } from '../../shared/lifecycle.js';
import { LOGGER } from '../../shared/logging/logger.js';
import { MetricsService } from '../../shared/metrics/metrics.service.js';
import { formatPosition, parsePosition, recipientKey, type StreamName } from '../../shared/stream-log/position.js';
import { StreamLog } from '../../shared/stream-log/stream-log.js';
import { KeyState, type KeyStateHost, type PositionedEvent } from './key-state.js';

export type StreamKind = 'changes' | 'notifications';
/** A client whose unsent events pass this many characters is disconnected (platform.md §6.2, `@Sse` option). */
export const MAX_UNSENT_BYTES = 1024 * 1024;
/** Most frames one log read returns; a resume further behind than this answers `reset`. */
export const MAX_REPLAY = 20_000;
/** A key without streams keeps its sequencer (and recent frames) this long, so a reconnect resumes from memory. */
export const LINGER_MS = 15_000;

// Comment-only events: Nest writes them as `: <comment>` and gives them no `id:`.
const CONNECTED: MessageEvent = Object.freeze({ comment: 'connected' });
const HEARTBEAT: MessageEvent = Object.freeze({ comment: 'heartbeat' });

export type EndReason = 'client' | 'logout' | 'session_expired' | 'shutdown' | 'slow_client';

/** Who opened a stream and from where it resumes. */
export interface StreamRequest {
  sessionUuid: string | null;
  /** `Last-Event-ID` (header, else `lastEventId` query), or null. */
  lastEventId: string | null;
  res: ServerResponse;
}

/**
 * The hot stream of one feed: a company's unfiltered change stream, one project's, or one recipient's notifications.
 * Every connection of the feed subscribes to `output`; a frame is serialized once and reaches them all.
 */
interface Feed {
  readonly input: Subject<MessageEvent>;
  readonly output: Observable<MessageEvent>;
  /** The connections' responses, corked together for the rest of a turn that brings a burst (see `deliver`). */
  readonly responses: Set<ServerResponse>;
  /** Events delivered in the current turn. */
  turn: number;
}

interface Connection {
  readonly subscriber: Subscriber<MessageEvent>;
  readonly sessionUuid: string | null;
  readonly kind: StreamKind;
  ended: EndReason | null;
}

/** Where a resuming (or not yet ready) connection starts. */
interface Start {
  /** `id:` of the connect block. */
  connectId: string;
  /** Frames to send before the live ones. */
  replay: readonly MessageEvent[];
  /** Live frames at or below this position are already covered. */
  coveredUpTo: number;
  outcome: 'replayed' | 'reset' | 'fresh';
}

/**
 * Both SSE streams (platform.md §6.2, §7), entirely in observables that the `@Sse` pipeline writes.
 *
 * Positions: every data frame carries `id: <epoch>-<n>`, the per-company (changes) or per-recipient (notifications)
 * position taken in the writing transaction. Per position key one sequencer (`KeyState`) orders local and relayed
 * frames, drops duplicates and repairs holes from the log; per feed (company, project, recipient) one hot shared
 * stream carries them, with the app-wide heartbeat, to every connection. A fresh connection costs one subscription to
 * its feed and a small connect block; a resuming one first gets the frames after its `Last-Event-ID` — from memory
 * when recent enough, else from one coalesced log read per key — or one `reset` frame.
 *
 * Streams belong to their session: a session-ended bus message ends them on every instance, and at every heartbeat
 * one query re-checks the sessions of all open streams (and one the heads of all open keys, so a frame lost in
 * transit is repaired within a heartbeat even when nothing follows it).
 */
@Injectable()
export class StreamService implements KeyStateHost {
  private readonly feeds = new Map<string, Feed>();
  private readonly keys = new Map<string, KeyState>();
  private readonly heartbeat$: Observable<MessageEvent>;
  /** Completes every feed: shutdown. */
  private readonly end$ = new Subject<void>();
  /** Feeds that got an event in the current turn. */
  private readonly touched: Feed[] = [];
  private readonly endTurn = (): void => this.endTurnNow();
  private readonly connections = new Set<Connection>();
  private readonly bySession = new Map<string, Set<Connection>>();
  private readonly perUser = new Map<string, number>();
  /** Heads requested in this turn, read together. */
  private headBatch: Array<{ state: KeyState }> = [];
  /** Replay reads waiting per key (coalesced: one log read per key and range at a time). */
  private readonly replayQueue = new Map<KeyState, Array<{ after: number; upTo: number; resolve: (frames: PositionedEvent[] | null) => void }>>();
  private readonly replaying = new Set<KeyState>();
  private auditing = false;
  private closed = false;
  private timers = 0;
  private epoch: string | null = null;

  constructor(
    private readonly config: AppConfig,
    lifecycle: Lifecycle,
    private readonly metrics: MetricsService,
    private readonly log: StreamLog,
    private readonly db: DataSource,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.heartbeat$ = new Observable<MessageEvent>((subscriber) => {
      const timer = setInterval(() => {
        subscriber.next(HEARTBEAT);
        void this.audit();
      }, config.sseHeartbeatMs);
      timer.unref();
      this.timers++;
      return () => {
        clearInterval(timer);
        this.timers--;
      };
    }).pipe(share());
    lifecycle.onShutdown(() => this.close());
  }

  /** The change stream of a company, or of one of its projects (`project` lower-case, or null for all). */
  changes(companyUuid: string, project: string | null, req: StreamRequest): Observable<MessageEvent> {
    return this.connect('changes', 'c', companyUuid, project === null ? `c:${companyUuid}` : `c:${companyUuid}/${project}`, project, req);
  }

  /** The notification stream of one recipient. */
  notifications(recipientType: 'user' | 'agent', recipientUuid: string, req: StreamRequest): Observable<MessageEvent> {
    const key = recipientKey(recipientType, recipientUuid);
    return this.connect('notifications', 'n', key, `n:${key}`, null, req);
  }

  @OnEvent(BUS_EVENTS.change)
  onChange(e: RealtimeEvent, meta: DeliveryMeta): void {
    const state = this.keys.get(`c:${e.companyUuid}`);
    if (!state || !meta?.position) return;
    this.accept(state, meta.position, changeJson(e), e.projectUuid);
  }

  @OnEvent(BUS_EVENTS.notification)
  onNotification(m: NotificationMessage, meta: DeliveryMeta): void {
    const state = this.keys.get(`n:${recipientKey(m.recipientType, m.recipientUuid)}`);
    if (!state || !meta?.position) return;
    this.accept(state, meta.position, JSON.stringify(m.frame), null);
  }

  /** Logout on some instance: that session's streams end here too. */
  @OnEvent(BUS_EVENTS.session)
  onSessionEnded(m: SessionEnded): void {
    this.endSession(m.sessionUuid, 'logout');
  }

  /** The shared channel is (re)connected: every open key reads what it may have missed from the log. */
  @OnEvent(BUS_EVENTS.resync)
  onResync(): void {
    void this.probeHeads().catch((err: unknown) => this.logger.warn({ err: String(err) }, 'stream catch-up after reconnect failed'));
  }

  /** Ends every stream (shutdown, tests): clients reconnect and resume. */
  endAll(reason: EndReason = 'shutdown'): void {
    for (const c of [...this.connections]) c.ended ??= reason;
    this.end$.next();
    for (const c of [...this.connections]) c.subscriber.complete();
  }

  /** Ends every stream for good: one opened afterwards gets `: connected` and ends at once. */
  close(): void {
    this.closed = true;
    this.endAll('shutdown');
  }

  /** Open streams on this instance. */
  get size(): number {
    return this.connections.size;
  }

  /** Running timers (the shared heartbeat), for leak tests. */
  get timerCount(): number {
    return this.timers;
  }

  /** Sequencers alive (keys with streams, or lingering after their last one). */
  get keyCount(): number {
    return this.keys.size;
  }

  /** Reserves one of the user's streams on this instance (the stream limit guard); false when at the limit. */
  reserve(userUuid: string): boolean {
    const n = this.perUser.get(userUuid) ?? 0;
    if (n >= this.config.sseMaxStreamsPerUser) return false;
    this.perUser.set(userUuid, n + 1);
    return true;
  }

  release(userUuid: string): void {
    const n = (this.perUser.get(userUuid) ?? 1) - 1;
    if (n <= 0) this.perUser.delete(userUuid);
    else this.perUser.set(userUuid, n);
  }

  /** Ends the streams of one session (logout here or elsewhere, expiry, deletion). */
  endSession(sessionUuid: string, reason: EndReason): void {
    const set = this.bySession.get(sessionUuid);
    if (!set) return;
    for (const c of [...set]) {
      c.ended ??= reason;
      c.subscriber.complete();
    }
  }

  // ---- KeyStateHost ----

  emit(state: KeyState, frame: PositionedEvent): void {
    if (state.stream === 'c') {
      const company = state.key;
      const n = this.deliver(this.feeds.get(`c:${company}`), frame) + (frame.project ? this.deliver(this.feeds.get(`c:${company}/${frame.project}`), frame) : 0);
      if (n) this.metrics.eventsDelivered.inc({ stream: 'changes' }, n);
    } else {
      const n = this.deliver(this.feeds.get(`n:${state.key}`), frame);
      if (n) this.metrics.eventsDelivered.inc({ stream: 'notifications' }, n);
    }
  }

  reset(state: KeyState, head: number, detail: { delivered: number; reason: string }): void {
    this.logger.warn({ stream: kindOf(state.stream), head, delivered: detail.delivered, reason: detail.reason }, 'stream positions lost from the log; streams get reset');
    const frame = this.resetFrame(head);
    if (state.stream === 'c') {
      for (const [key, feed] of this.feeds) if (key === `c:${state.key}` || key.startsWith(`c:${state.key}/`)) this.deliver(feed, frame);
    } else {
      this.deliver(this.feeds.get(`n:${state.key}`), frame);
    }
    this.metrics.streamResets.inc({ stream: kindOf(state.stream) });
  }

  readonly readLimit = MAX_REPLAY;

  async repairRead(state: KeyState, after: number, upTo: number): Promise<PositionedEvent[]> {
    this.metrics.streamLogReads.inc({ purpose: 'repair' });
    const rows = await this.log.read(state.stream, state.key, after, upTo, this.readLimit);
    const epoch = await this.log.epoch();
    return rows.map((r) => positioned(epoch, r.n, r.payload, r.projectUuid));
  }

  async head(state: KeyState): Promise<number> {
    this.metrics.streamLogReads.inc({ purpose: 'head' });
    return (await this.log.heads(state.stream, [state.key])).get(state.key) ?? 0;
  }

  repaired(state: KeyState, frames: number): void {
    this.metrics.streamGapsRepaired.inc({ stream: kindOf(state.stream) });
    this.metrics.streamRepairedFrames.inc({ stream: kindOf(state.stream) }, frames);
  }

  failed(state: KeyState, err: unknown): void {
    this.logger.warn({ stream: kindOf(state.stream), err: err instanceof Error ? err.message : String(err) }, 'stream repair from the log failed; retrying');
  }

  // ---- connections ----

  private connect(kind: StreamKind, stream: StreamName, key: string, feedKey: string, project: string | null, req: StreamRequest): Observable<MessageEvent> {
    return new Observable<MessageEvent>((subscriber) => {
      subscriber.next(CONNECTED);
      if (this.closed) {
        subscriber.complete();
        return undefined;
      }
      const state = this.keyState(stream, key);
      const feed = this.feeds.get(feedKey) ?? this.createFeed(feedKey);
      const conn: Connection = { subscriber, sessionUuid: req.sessionUuid, kind, ended: null };
      this.track(conn, state, feed, req.res);
      const lastEventId = req.lastEventId;
      if (state.isReady && lastEventId === null && this.epoch !== null) {
        // Fresh and ready: the connect block at the delivered head, then the feed (which carries what follows it).
        subscriber.next({ id: formatPosition(this.epoch, state.delivered), retry: this.retryMs() });
        this.metrics.streamResumes.inc({ stream: kind, outcome: 'fresh' });
        feed.output.subscribe(subscriber);
      } else {
        // Live frames wait until the start is known (head read, replay); then whatever the replay covers is skipped.
        let waiting: MessageEvent[] | null = [];
        let coveredUpTo = Infinity;
        const live = feed.output.subscribe({
          next: (m) => {
            if (waiting) waiting.push(m);
            else if (!isPositioned(m) || m.n > coveredUpTo) subscriber.next(m);
          },
          complete: () => subscriber.complete(),
        });
        subscriber.add(live);
        void this.startOf(state, project, lastEventId, () => firstPositioned(waiting))
          .then((start) => {
            if (subscriber.closed) return;
            // A replay is a burst: the response stays corked for the turn, so it leaves in one write, not one per frame.
            const res = req.res;
            if (start.replay.length > 1 && !res.destroyed) {
              res.cork();
              setImmediate(() => res.uncork());
            }
            subscriber.next({ id: start.connectId, retry: this.retryMs() });
            for (const m of start.replay) subscriber.next(m);
            coveredUpTo = start.coveredUpTo;
            const buffered = waiting ?? [];
            waiting = null;
            for (const m of buffered) if (!isPositioned(m) || m.n > coveredUpTo) subscriber.next(m);
            this.metrics.streamResumes.inc({ stream: kind, outcome: start.outcome });
            if (start.outcome === 'replayed') this.metrics.streamReplayedFrames.inc({ stream: kind }, start.replay.length);
          })
          .catch((err: unknown) => {
            // The database did not answer: the stream ends and the client's reconnect tries again.
            this.logger.warn({ stream: kind, err: err instanceof Error ? err.message : String(err) }, 'stream start failed');
            subscriber.complete();
          });
      }
      return undefined;
    });
  }

  /** Registers a connection; its teardown (client left, stream ended) undoes it. */
  private track(conn: Connection, state: KeyState, feed: Feed, res: ServerResponse): void {
    this.connections.add(conn);
    if (conn.sessionUuid) {
      let set = this.bySession.get(conn.sessionUuid);
      if (!set) this.bySession.set(conn.sessionUuid, (set = new Set()));
      set.add(conn);
    }
    state.connections++;
    if (state.lingerTimer) clearTimeout(state.lingerTimer);
    state.lingerTimer = null;
    feed.responses.add(res);
    this.metrics.sseConnections.inc({ stream: conn.kind });
    conn.subscriber.add(() => {
      this.connections.delete(conn);
      if (conn.sessionUuid) {
        const set = this.bySession.get(conn.sessionUuid);
        set?.delete(conn);
        if (set?.size === 0) this.bySession.delete(conn.sessionUuid);
      }
      feed.responses.delete(res);
      this.metrics.sseConnections.dec({ stream: conn.kind });
      // Nest destroys a response whose client let more than MAX_UNSENT_BYTES of events pile up; a response destroyed
      // with bytes still unsent is that cut (or a client leaving mid-backlog, which amounts to the same).
      if (!conn.ended && res.destroyed && !res.writableFinished && res.writableLength > 0) {
        conn.ended = 'slow_client';
        this.metrics.sseSlowDisconnects.inc({ stream: conn.kind });
      }
      this.metrics.streamsEnded.inc({ stream: conn.kind, reason: conn.ended ?? 'client' });
      if (--state.connections === 0) this.linger(state);
    });
  }

  /** A key without streams keeps its sequencer a while (reconnects resume from memory), then goes. */
  private linger(state: KeyState): void {
    const drop = (): void => {
      if (state.connections > 0 || this.keys.get(keyOf(state)) !== state) return;
      this.keys.delete(keyOf(state));
      state.drop();
    };
    if (this.closed) return drop();
    state.lingerTimer = setTimeout(drop, LINGER_MS);
    state.lingerTimer.unref();
  }

  private keyState(stream: StreamName, key: string): KeyState {
    const id = `${stream}:${key}`;
    let state = this.keys.get(id);
    if (state) return state;
    state = new KeyState(stream, key, this);
    this.keys.set(id, state);
    this.requestHead(state);
    return state;
  }

  /** Heads of keys created in one turn are read in one query. */
  private requestHead(state: KeyState): void {
    if (this.headBatch.push({ state }) > 1) return;
    setImmediate(() => {
      const batch = this.headBatch;
      this.headBatch = [];
      void this.readHeads(batch.map((b) => b.state));
    });
  }

  private async readHeads(states: KeyState[]): Promise<void> {
    try {
      this.epoch ??= await this.log.epoch();
      await this.withHeads(states, (s, head) => s.start(head));
    } catch (err) {
      // Connections waiting on these keys end (their clients reconnect); a key still wanted tries again later.
      this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'stream head read failed');
      for (const s of states) if (!s.isReady) this.failKey(s);
    }
  }

  /** A key whose head cannot be read is forgotten: its waiting connections end (see `startOf`), the next one retries. */
  private failKey(state: KeyState): void {
    if (this.keys.get(keyOf(state)) === state) this.keys.delete(keyOf(state));
    state.drop();
  }

  /**
   * Where a connection that resumes, or arrived before its key was ready, starts. `firstLive` is the first frame that
   * waited for it (the key delivers contiguously, so everything before it is what the connection must get otherwise).
   */
  private async startOf(state: KeyState, project: string | null, lastEventId: string | null, firstLive: () => PositionedEvent | null): Promise<Start> {
    await state.ready;
    if (!state.isReady) throw new Error('stream key unavailable');
    const epoch = (this.epoch ??= await this.log.epoch());
    const first = firstLive();
    const liveFrom = first ? first.n - 1 : state.delivered;
    const head = formatPosition(epoch, liveFrom);
    if (lastEventId === null) return { connectId: head, replay: [], coveredUpTo: liveFrom, outcome: 'fresh' };
    const reset = (connectId: string): Start => ({ connectId, replay: [this.resetFrame(liveFrom)], coveredUpTo: liveFrom, outcome: 'reset' });
    const given = parsePosition(lastEventId);
    if (!given || given.epoch !== epoch) return reset(given ? lastEventId : head);
    if (given.n === liveFrom) return { connectId: lastEventId, replay: [], coveredUpTo: liveFrom, outcome: 'replayed' };
    if (given.n > liveFrom) {
      // Ahead of what this instance delivered: frames still in transit to it, or a position that never existed.
      const dbHead = await this.head(state);
      if (given.n > dbHead) return reset(lastEventId);
      return { connectId: lastEventId, replay: [], coveredUpTo: given.n, outcome: 'replayed' };
    }
    const frames = await this.replay(state, given.n, liveFrom);
    if (!frames) return reset(lastEventId);
    // The replay is per key: a project's stream keeps only that project's frames.
    const admitted = project === null ? frames : frames.filter((f) => f.project === project);
    return { connectId: lastEventId, replay: admitted, coveredUpTo: liveFrom, outcome: 'replayed' };
  }

  /**
   * The frames `after < n <= upTo` of a key: from memory when it reaches back that far, else from the log — one read
   * per key at a time, covering every request waiting for it (a reconnect storm costs a few reads, not one per client).
   * Null when the log no longer holds them all.
   */
  private replay(state: KeyState, after: number, upTo: number): Promise<PositionedEvent[] | null> {
    const mem = state.fromMemory(after, upTo);
    if (mem) return Promise.resolve(mem);
    if (upTo - after > MAX_REPLAY) return Promise.resolve(null);
    return new Promise((resolve) => {
      let queue = this.replayQueue.get(state);
      if (!queue) this.replayQueue.set(state, (queue = []));
      queue.push({ after, upTo, resolve });
      if (!this.replaying.has(state)) void this.runReplays(state);
    });
  }

  private async runReplays(state: KeyState): Promise<void> {
    this.replaying.add(state);
    try {
      // Let the requests of this turn join the first read.
      await new Promise((r) => setImmediate(r));
      for (let batch = this.takeReplays(state); batch.length; batch = this.takeReplays(state)) {
        // What memory still serves needs no read (an earlier read of this loop may have filled it).
        const rest = batch.filter((q) => {
          const mem = state.fromMemory(q.after, q.upTo);
          if (mem) q.resolve(mem);
          return !mem;
        });
        if (!rest.length) continue;
        const after = Math.min(...rest.map((q) => q.after));
        const upTo = Math.max(...rest.map((q) => q.upTo));
        let frames: PositionedEvent[] = [];
        try {
          this.metrics.streamLogReads.inc({ purpose: 'replay' });
          const rows = await this.log.read(state.stream, state.key, after, upTo, MAX_REPLAY + 1);
          const epoch = (this.epoch ??= await this.log.epoch());
          frames = rows.map((r) => positioned(epoch, r.n, r.payload, r.projectUuid));
        } catch (err) {
          this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'stream replay read failed');
          for (const q of rest) q.resolve(null);
          continue;
        }
        state.remember(frames);
        const firstN = frames[0]?.n ?? Infinity;
        for (const q of rest) {
          // The log is contiguous from its first frame: a range is served when it lies inside what was read.
          const len = q.upTo - q.after;
          const start = q.after + 1 - firstN;
          const slice = len <= 0 ? [] : start < 0 ? [] : frames.slice(start, start + len);
          q.resolve(len <= 0 || (slice.length === len && slice[0].n === q.after + 1 && slice[len - 1].n === q.upTo) ? slice : null);
        }
      }
    } finally {
      this.replaying.delete(state);
      this.replayQueue.delete(state);
    }
  }

  private takeReplays(state: KeyState): Array<{ after: number; upTo: number; resolve: (frames: PositionedEvent[] | null) => void }> {
    const q = this.replayQueue.get(state) ?? [];
    this.replayQueue.set(state, []);
    return q;
  }

  /** At each heartbeat: streams of ended sessions end; keys behind the log catch up. One query each. */
  private async audit(): Promise<void> {
    if (this.auditing || this.closed) return;
    this.auditing = true;
    try {
      await Promise.all([this.checkSessions(), this.probeHeads()]);
    } catch (err) {
      this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'stream audit failed');
    } finally {
      this.auditing = false;
    }
  }

  private async checkSessions(): Promise<void> {
    const ids = [...this.bySession.keys()];
    if (!ids.length) return;
    const rows: Array<{ uuid: string }> = await this.db.query(`SELECT uuid FROM user_session WHERE uuid = ANY($1::uuid[]) AND expires_at > now()`, [ids]);
    const alive = new Set(rows.map((r) => r.uuid));
    for (const id of ids) if (!alive.has(id)) this.endSession(id, 'session_expired');
  }

  private async probeHeads(): Promise<void> {
    await this.withHeads(
      [...this.keys.values()].filter((s) => s.isReady),
      (s, head) => s.catchUp(head),
    );
  }

  /** The log's heads of these keys, one query per stream, each handed to `apply`. */
  private async withHeads(states: readonly KeyState[], apply: (state: KeyState, head: number) => void): Promise<void> {
    for (const stream of ['c', 'n'] as const) {
      const of = states.filter((s) => s.stream === stream);
      if (!of.length) continue;
      this.metrics.streamLogReads.inc({ purpose: 'head' });
      const heads = await this.log.heads(stream, of.map((s) => s.key));
      for (const s of of) apply(s, heads.get(s.key) ?? 0);
    }
  }

  private accept(state: KeyState, position: string, payload: string, project: string | null): void {
    const p = parsePosition(position);
    if (!p) return;
    // A frame of another log (an instance on another database under the same subject prefix) is not ours.
    if (this.epoch !== null && p.epoch !== this.epoch) return;
    const outcome = state.accept(positioned(p.epoch, p.n, payload, project));
    if (outcome === 'duplicate') this.metrics.streamDuplicates.inc({ stream: kindOf(state.stream) });
  }

  private resetFrame(head: number): MessageEvent {
    return { type: 'reset', id: formatPosition(this.epoch ?? '0', head), data: '{}' };
  }

  /** `retry:` of one stream: between SSE_RETRY_MS and twice it, so reconnects after an instance dies spread out. */
  private retryMs(): number {
    return this.config.sseRetryMs + Math.floor(Math.random() * this.config.sseRetryMs);
  }

  private createFeed(key: string): Feed {
    const input = new Subject<MessageEvent>();
    const feed: Feed = {
      input,
      responses: new Set(),
      turn: 0,
      output: merge(input, this.heartbeat$).pipe(
        takeUntil(this.end$),
        // Runs when the last connection leaves (or the feed ends): the feed goes with it.
        finalize(() => {
          if (this.feeds.get(key) === feed) this.feeds.delete(key);
        }),
        share(),
      ),
    };
    this.feeds.set(key, feed);
    return feed;
  }

  /**
   * Emits on a feed. Node's http already corks a response for the rest of the tick it writes in, but Nest's pipeline
   * writes each further queued frame in a tick of its own, so a burst committed in one turn would leave each socket in
   * one write per event — at thousands of streams that fills the event loop (`npm run bench:soak`). So the second event
   * of a turn for a feed corks the feed's responses (the first one's write is still corked by http then) and one
   * app-wide `setImmediate` uncorks them: a burst leaves each socket in one write. A lone event costs no corking at all.
   */
  private deliver(feed: Feed | undefined, event: MessageEvent): number {
    if (!feed) return 0;
    if (feed.turn === 0) {
      if (this.touched.push(feed) === 1) setImmediate(this.endTurn);
    } else if (feed.turn === 1) {
      for (const res of feed.responses) res.cork();
    }
    feed.turn++;
    feed.input.next(event);
    return feed.responses.size;
  }

  private endTurnNow(): void {
    for (const feed of this.touched.splice(0)) {
      if (feed.turn > 1) for (const res of feed.responses) res.uncork();
      feed.turn = 0;
    }
  }
}

const kindOf = (stream: StreamName): StreamKind => (stream === 'c' ? 'changes' : 'notifications');
const keyOf = (state: KeyState): string => `${state.stream}:${state.key}`;

function positioned(epoch: string, n: number, data: string, project: string | null): PositionedEvent {
  return { id: formatPosition(epoch, n), data, n, project };
}

function isPositioned(m: MessageEvent): m is PositionedEvent {
  return typeof (m as PositionedEvent).n === 'number';
}

function firstPositioned(ms: readonly MessageEvent[] | null): PositionedEvent | null {
  return (ms?.find(isPositioned) as PositionedEvent | undefined) ?? null;
}
