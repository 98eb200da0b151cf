import { Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { EventBus } from '../../shared/event-bus/event-bus.port.js';
import { BUS_EVENTS, type DeliveryMeta, type NotificationMessage } from '../../shared/event-bus/events.js';
import { RateLimitedError } from '../../shared/errors/app-error.js';
import { parsePosition, recipientKey } from '../../shared/stream-log/position.js';

/** At most this many concurrent waits per recipient on one instance (docs/notifications.md §2.0). */
export const MAX_WAITS_PER_RECIPIENT = 4;
/** While the shared channel is down, a wait looks at the database this often (other instances' frames may be lost). */
export const DEGRADED_RECHECK_MS = 5000;

/** How a wait for something newer ended. */
export type WaitOutcome = 'changed' | 'timeout' | 'recheck' | 'shutdown';

/**
 * One caller's watch on its inbox: sees every frame published for the recipient from the moment it is `ready` (so
 * nothing committed between the caller's read and its wait is missed), and answers `next(seen)` as soon as a frame
 * beyond the position the caller has seen arrives.
 */
export interface InboxWatch {
  /**
   * Settles once frames published for the recipient on other instances reach this one (the bus's interest in the
   * recipient is active); the caller reads the database after it. Bounded, never rejects.
   */
  readonly ready: Promise<void>;
  /**
   * Resolves `changed` once a frame after `seen` arrived (at once if one already did), `timeout` after `ms`, `recheck`
   * after DEGRADED_RECHECK_MS while the shared channel is down, `shutdown` when the instance stops.
   */
  next(seen: number, ms: number): Promise<WaitOutcome>;
  /** True when the shared channel was down or reconnected at any time since the watch opened. */
  readonly busTroubled: boolean;
  /** Ends the current and every later `next` at once (`shutdown`): the caller went away. */
  end(): void;
  close(): void;
}

interface Watcher {
  newest: number;
  troubled: boolean;
  wake: ((outcome: WaitOutcome) => void) | null;
  seen: number;
  ended: boolean;
}

/**
 * The waits of the agent inbox (docs/notifications.md §2.0), in memory: no database connection is held while waiting.
 * A watch holds the bus's interest in its recipient while it is open (docs/deploy.md "What an instance subscribes
 * to"), so frames of a change made on any instance reach it (local and relayed, `BUS_EVENTS.notification`). Waits
 * end (`shutdown`) at the start of shutdown.
 */
@Injectable()
export class InboxWaits implements BeforeApplicationShutdown {
  private readonly watchers = new Map<string, Set<Watcher>>();
  private readonly slots = new Map<string, number>();
  private closing = false;

  constructor(private readonly bus: EventBus) {}

  /** Shutdown begins: every wait answers now (an empty delta), before the HTTP server closes. */
  beforeApplicationShutdown(): void {
    this.endAll();
  }

  /**
   * Takes one of the recipient's wait slots (released by the returned function); the next over the limit is
   * RATE_LIMITED "Too many concurrent waits" (REST 429, tool `isError`).
   */
  acquire(type: 'user' | 'agent', uuid: string): () => void {
    const key = recipientKey(type, uuid);
    const used = this.slots.get(key) ?? 0;
    if (used >= MAX_WAITS_PER_RECIPIENT) throw new RateLimitedError('Too many concurrent waits', 1);
    this.slots.set(key, used + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.slots.get(key) ?? 1) - 1;
      if (left > 0) this.slots.set(key, left);
      else this.slots.delete(key);
    };
  }

  /** Concurrent waits of one recipient on this instance (tests, metrics). */
  active(type: 'user' | 'agent', uuid: string): number {
    return this.slots.get(recipientKey(type, uuid)) ?? 0;
  }

  watch(type: 'user' | 'agent', uuid: string): InboxWatch {
    const key = recipientKey(type, uuid);
    const w: Watcher = { newest: 0, troubled: this.bus.status().state === 'down', wake: null, seen: 0, ended: false };
    let set = this.watchers.get(key);
    if (!set) this.watchers.set(key, (set = new Set()));
    set.add(w);
    const interest = this.bus.interest({ kind: 'notification', recipientType: type, recipientUuid: uuid });
    const close = (): void => {
      interest.release();
      const s = this.watchers.get(key);
      if (!s) return;
      s.delete(w);
      if (!s.size) this.watchers.delete(key);
    };
    return {
      ready: interest.ready,
      next: (seen, ms) => {
        if (this.closing || w.ended) return Promise.resolve('shutdown');
        if (w.newest > seen) return Promise.resolve('changed');
        w.seen = seen;
        return new Promise<WaitOutcome>((resolve) => {
          const degraded = this.bus.status().state === 'down';
          const slice = degraded ? Math.min(ms, DEGRADED_RECHECK_MS) : ms;
          const timer = setTimeout(() => finish(slice < ms ? 'recheck' : 'timeout'), slice);
          const finish = (outcome: WaitOutcome): void => {
            clearTimeout(timer);
            w.wake = null;
            resolve(outcome);
          };
          w.wake = finish;
        });
      },
      get busTroubled() {
        return w.troubled;
      },
      end: () => {
        w.ended = true;
        w.wake?.('shutdown');
      },
      close,
    };
  }

  /** Every frame published for a recipient, on any instance: wakes its watches waiting below the frame's position. */
  @OnEvent(BUS_EVENTS.notification)
  onFrame(message: NotificationMessage, meta: DeliveryMeta): void {
    const set = this.watchers.get(recipientKey(message.recipientType, message.recipientUuid));
    if (!set) return;
    // A frame without a readable position still means a change: treat it as newer than anything seen.
    const n = (meta.position ? parsePosition(meta.position)?.n : undefined) ?? Number.MAX_SAFE_INTEGER;
    for (const w of set) {
      if (n > w.newest) w.newest = n;
      if (w.wake && n > w.seen) w.wake('changed');
    }
  }

  /** The channel (re)connected: frames may have been lost meanwhile, so every waiting watch re-reads now. */
  @OnEvent(BUS_EVENTS.resync)
  onResync(): void {
    for (const set of this.watchers.values()) {
      for (const w of set) {
        w.troubled = true;
        w.wake?.('recheck');
      }
    }
  }

  /** Start of shutdown: every wait answers at once (with an empty delta), and no new one waits. */
  endAll(): void {
    this.closing = true;
    for (const set of this.watchers.values()) for (const w of set) w.wake?.('shutdown');
  }
}
