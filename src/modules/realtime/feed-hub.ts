import { Inject, Injectable, type MessageEvent } from '@nestjs/common';
import type { Logger } from 'pino';
import { AppConfig } from '../../config/config.js';
import { LOGGER } from '../../shared/logging/logger.js';
import { MetricsService } from '../../shared/metrics/metrics.service.js';
import { asMessages, HEARTBEAT, resetEvent, type PositionedEvent, type ResetEvent } from './frames.js';

export type StreamKind = 'changes' | 'notifications';

/** One connection as the hub sees it: where its messages go. An rxjs `Subscriber` is one. */
export interface Member {
  next(message: MessageEvent): void;
  readonly closed: boolean;
}

/** Longest a slice of fan-out runs before the event loop gets a turn (requests, I/O, timers)... */
export const SLICE_MS = 4;
/**
 * ...and most messages it hands to the pipeline. Nest writes a stream's first message of a turn at once, but each
 * further one in the microtasks right after the slice, which its clock cannot see: counting them bounds that tail
 * (30–60 µs a message here, by its size: 2–4 ms).
 */
export const SLICE_MESSAGES = 64;
/**
 * Under sustained load — frames kept coming while a round ran — the next round starts `GAP_FACTOR × d` ms after one
 * that cost `d` ms of slices, so more of them join and the fan-out keeps a bounded share of the loop...
 */
export const GAP_FACTOR = 2;
/** ...but never later than this. After an idle round (nothing came meanwhile) the next frame goes out at once. */
export const MAX_GAP_MS = 100;
/** Frames one subscriber set may queue before it is collapsed into a `reset` (an instance far behind). */
export const MAX_QUEUED_FRAMES = 20_000;

type Item = PositionedEvent | ResetEvent | typeof HEARTBEAT;

/**
 * The connections that receive exactly the same messages: one key's streams with the same project filter (none, or
 * one project) and the same `batch` flag. What is pending for them is built into messages once per round and the same
 * objects go to every member.
 */
export class SubscriberSet {
  readonly members = new Set<Member>();
  items: Item[] = [];
  /** Data frames among `items`. */
  frames = 0;
  /** When the oldest queued frame was queued (`performance.now()`), 0 when none is. */
  since = 0;

  constructor(
    readonly feed: KeyFeeds,
    readonly project: string | null,
    readonly batch: boolean,
  ) {}

  admits(frame: PositionedEvent): boolean {
    return this.project === null || this.project === frame.project;
  }
}

/** The subscriber sets of one position key (a company's change stream, one recipient's notifications). */
class KeyFeeds {
  readonly sets = new Map<string, SubscriberSet>();
  /** Frames queued since the last round was built (seed for a set created meanwhile; where a fresh stream starts). */
  unbuilt: PositionedEvent[] = [];

  constructor(
    readonly id: string,
    readonly kind: StreamKind,
  ) {}
}

interface Delivery {
  readonly set: SubscriberSet;
  readonly messages: readonly MessageEvent[];
  readonly targets: readonly Member[];
  next: number;
}

/**
 * Fan-out of both streams (docs/sse.md "Load"). The sequencer hands over each frame once, in position order; the hub
 * queues it on every subscriber set it is for — nothing per connection — and returns at once, so a mutation's
 * response never waits for its frames. Rounds then write what is pending: each set's queue becomes its messages
 * (frames one by one, or — `batch=1` — joined into `event: batch` frames), built once and handed to every member
 * through its own Observable, so Nest's `@Sse` pipeline writes them.
 *
 * A round runs in slices of at most SLICE_MS with a turn of the event loop between them, so a burst to thousands of
 * streams delays no request by more than a slice; the next round starts once what came in meanwhile is queued (it
 * joins into fewer, larger messages) and, under load, after a pause proportional to the last round's cost, so the
 * fan-out takes a bounded share of the loop (when it is idle in between, the next frame goes out at once). A set's
 * rounds run in order, so every stream's frames stay in position order. A set whose oldest frame waited longer than
 * SSE_LAG_MS gets one `reset` instead of its queue (`svc_sse_resets_total{reason="lagging"}`).
 */
@Injectable()
export class FeedHub {
  private readonly keys = new Map<string, KeyFeeds>();
  private readonly dirty = new Set<SubscriberSet>();
  private readonly dirtyKeys = new Set<KeyFeeds>();
  private work: Delivery[] = [];
  private at = 0;
  private roundCost = 0;
  private nextRoundAt = 0;
  /** Frames were queued while the current round ran (sustained load: the next one waits its gap). */
  private busy = false;
  private timer: { immediate: NodeJS.Immediate } | { timeout: NodeJS.Timeout } | null = null;
  private readonly pump = (): void => this.runSlice();

  constructor(
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Adds a connection to its set: `keyId` `c:<company>` or `n:<recipient>`, `project` a change stream's filter. */
  join(keyId: string, project: string | null, batch: boolean, member: Member): SubscriberSet {
    let feed = this.keys.get(keyId);
    if (!feed) this.keys.set(keyId, (feed = new KeyFeeds(keyId, keyId.startsWith('c:') ? 'changes' : 'notifications')));
    const id = `${project ?? ''}|${batch ? 1 : 0}`;
    let set = feed.sets.get(id);
    if (!set) {
      feed.sets.set(id, (set = new SubscriberSet(feed, project, batch)));
      // Frames queued for the key's other sets before this one existed are this set's too (a fresh stream starts
      // before them, see `startAfter`).
      for (const frame of feed.unbuilt) if (set.admits(frame)) this.enqueue(set, frame);
    }
    set.members.add(member);
    return set;
  }

  leave(set: SubscriberSet, member: Member): void {
    set.members.delete(member);
    if (set.members.size) return;
    const feed = set.feed;
    for (const [id, s] of feed.sets) if (s === set) feed.sets.delete(id);
    this.dirty.delete(set);
    if (!feed.sets.size && this.keys.get(feed.id) === feed) {
      this.keys.delete(feed.id);
      this.dirtyKeys.delete(feed);
    }
  }

  /**
   * The position a stream of this key that joins now starts after: the frames queued but not yet built reach it, so
   * it starts before the first of them; with none, at what the key has delivered.
   */
  startAfter(keyId: string, delivered: number): number {
    const first = this.keys.get(keyId)?.unbuilt[0];
    return first ? first.n - 1 : delivered;
  }

  /** Queues a frame of the key for each set it is for; written by a later round. */
  publish(keyId: string, frame: PositionedEvent): void {
    const feed = this.keys.get(keyId);
    if (!feed) return;
    for (const set of feed.sets.values()) if (set.admits(frame)) this.enqueue(set, frame);
    feed.unbuilt.push(frame);
    this.dirtyKeys.add(feed);
    if (this.work.length) this.busy = true;
    this.schedule();
  }

  /** Positions up to `n` were lost: every stream of the key gets `reset` (after what it was already queued). */
  reset(keyId: string, id: string, n: number): number {
    const feed = this.keys.get(keyId);
    if (!feed) return 0;
    let streams = 0;
    for (const set of feed.sets.values()) {
      set.items.push(resetEvent(id, n));
      this.dirty.add(set);
      streams += set.members.size;
    }
    feed.unbuilt = [];
    this.schedule();
    return streams;
  }

  /** A heartbeat comment to every stream that has nothing else queued. */
  heartbeat(): void {
    for (const feed of this.keys.values()) {
      for (const set of feed.sets.values()) {
        if (set.items.length) continue;
        set.items.push(HEARTBEAT);
        this.dirty.add(set);
      }
    }
    this.schedule();
  }

  /** Drops everything queued and stops (shutdown: the streams are ending). */
  close(): void {
    if (this.timer && 'timeout' in this.timer) clearTimeout(this.timer.timeout);
    else if (this.timer) clearImmediate(this.timer.immediate);
    this.timer = null;
    this.work = [];
    this.at = 0;
    this.dirty.clear();
    this.dirtyKeys.clear();
    for (const feed of this.keys.values()) for (const set of feed.sets.values()) set.items = [];
  }

  /** Timers the hub holds (a pending slice or round), for leak tests. */
  get timerCount(): number {
    return this.timer ? 1 : 0;
  }

  private enqueue(set: SubscriberSet, frame: PositionedEvent): void {
    if (set.frames >= MAX_QUEUED_FRAMES) {
      // Far behind: what waits is replaced by one reset at the newest position (counted when it is written).
      set.items = [resetEvent(frame.id, frame.n)];
      set.frames = 0;
      set.since = 0;
      this.lagged(set, 'queue');
    } else {
      set.items.push(frame);
      if (set.frames++ === 0) set.since = performance.now();
    }
    this.dirty.add(set);
  }

  private schedule(): void {
    if (this.timer || this.work.length) return;
    const wait = this.nextRoundAt - performance.now();
    this.timer = wait >= 1 ? { timeout: setTimeout(this.pump, wait) } : { immediate: setImmediate(this.pump) };
  }

  /** Turns every set's queue into its messages and the list of members to write them to. */
  private buildRound(now: number): void {
    for (const feed of this.dirtyKeys) feed.unbuilt = [];
    this.dirtyKeys.clear();
    for (const set of this.dirty) {
      if (!set.members.size || !set.items.length) continue;
      let items = set.items;
      let frames = set.frames;
      const waited = set.since ? now - set.since : 0;
      set.items = [];
      set.frames = 0;
      set.since = 0;
      if (waited > this.config.sseLagMs) {
        // The newest queued position: the streams skip to it and reload.
        const last = items.findLast((item): item is PositionedEvent | ResetEvent => item !== HEARTBEAT)!;
        items = [resetEvent(last.id, last.n)];
        frames = 0;
        this.lagged(set, `${Math.round(waited)} ms`);
      }
      const messages = this.messagesOf(set, items);
      if (frames) this.metrics.eventsDelivered.inc({ stream: set.feed.kind }, frames * set.members.size);
      this.work.push({ set, messages, targets: Array.from(set.members), next: 0 });
    }
    this.dirty.clear();
  }

  /** A set's queue as messages: runs of frames (joined for `batch=1`), resets on their own, a heartbeat only alone. */
  private messagesOf(set: SubscriberSet, items: readonly Item[]): MessageEvent[] {
    const out: MessageEvent[] = [];
    let run: PositionedEvent[] = [];
    for (const item of items) {
      if (item === HEARTBEAT) continue;
      if ((item as ResetEvent).type === 'reset') {
        if (run.length) out.push(...asMessages(run, set.batch));
        run = [];
        out.push(item);
      } else run.push(item as PositionedEvent);
    }
    if (run.length) out.push(...asMessages(run, set.batch));
    if (!out.length) out.push(HEARTBEAT);
    return out;
  }

  private lagged(set: SubscriberSet, behind: string): void {
    this.metrics.sseResets.inc({ stream: set.feed.kind, reason: 'lagging' }, set.members.size);
    this.logger.warn({ stream: set.feed.kind, streams: set.members.size, behind }, 'streams fell behind the fan-out; they get reset and continue live');
  }

  /** One slice: writes the round's messages member by member until SLICE_MS is spent, then yields. */
  private runSlice(): void {
    this.timer = null;
    const start = performance.now();
    if (this.at >= this.work.length) {
      if (!this.dirty.size) return;
      this.work = [];
      this.at = 0;
      this.buildRound(start);
    }
    let now = start;
    let sent = 0;
    while (this.at < this.work.length) {
      const d = this.work[this.at];
      const { messages, targets } = d;
      while (d.next < targets.length) {
        const member = targets[d.next++];
        if (!member.closed) for (let i = 0; i < messages.length; i++) member.next(messages[i]);
        sent += messages.length;
        now = performance.now();
        if ((now - start >= SLICE_MS || sent >= SLICE_MESSAGES) && (d.next < targets.length || this.at + 1 < this.work.length)) {
          this.roundCost += now - start;
          this.timer = { immediate: setImmediate(this.pump) };
          return;
        }
      }
      this.at++;
    }
    const cost = this.roundCost + (now - start);
    this.roundCost = 0;
    this.work = [];
    this.at = 0;
    this.nextRoundAt = this.busy ? now + Math.min(MAX_GAP_MS, cost * GAP_FACTOR) : 0;
    this.busy = false;
    if (this.dirty.size) this.schedule();
  }
}
