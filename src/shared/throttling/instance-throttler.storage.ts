import { Injectable } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { Clock } from '../clock.js';

/** Throttler storage records are in whole seconds, at least 1 while something is pending. */
const seconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

/** Below this many keys the lazy sweep never runs (a sweep of a small map is not worth a pass). */
const MIN_SWEEP_SIZE = 1024;

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/** One key's current window: the hits counted in it, and when it ends. */
interface Window {
  hits: number;
  endsAt: number;
}

/**
 * `@nestjs/throttler`'s storage in this process's memory, for the throttlers declared `store: 'instance'` (a per-key
 * request rate, where a database round trip per request would cost more than the limit is worth). A fixed window
 * per key: it opens at the key's first hit and lasts `ttl`; a request arriving with `limit` hits in it is refused and
 * not counted, and may come again when the window ends (`blockDuration` is not used: the window itself frees, as in
 * the shared store). No timer per key — the package's own `ThrottlerStorageService` arms one per key and per hit —
 * so memory is bounded by the keys with an open window: ended windows are swept every minute on `@nestjs/schedule`,
 * and at once whenever the map has grown to twice its size after the last sweep.
 */
@Injectable()
export class InstanceThrottlerStorage implements ThrottlerStorage {
  /** Per throttler name, each key's window. */
  private readonly windows = new Map<string, Map<string, Window>>();
  /** Keys held, over all throttlers. */
  private keys = 0;
  /** The lazy sweep runs when `keys` exceeds this. */
  private sweepAbove = MIN_SWEEP_SIZE;

  constructor(private readonly clock: Clock) {}

  increment(key: string, ttl: number, limit: number, _blockDuration: number, throttlerName: string): Promise<ThrottlerStorageRecord> {
    const now = this.clock.now();
    let byKey = this.windows.get(throttlerName);
    if (!byKey) this.windows.set(throttlerName, (byKey = new Map()));
    let window = byKey.get(key);
    if (!window) {
      if (++this.keys > this.sweepAbove) this.sweep(now);
      byKey.set(key, (window = { hits: 0, endsAt: now + ttl }));
    } else if (window.endsAt <= now) {
      window.hits = 0;
      window.endsAt = now + ttl;
    }
    const left = seconds(window.endsAt - now);
    if (window.hits >= limit) return Promise.resolve({ totalHits: window.hits + 1, timeToExpire: left, isBlocked: true, timeToBlockExpire: left });
    window.hits++;
    return Promise.resolve({ totalHits: window.hits, timeToExpire: left, isBlocked: false, timeToBlockExpire: 0 });
  }

  /** Keys held now (tests, metrics). */
  get size(): number {
    return this.keys;
  }

  /** Drops every ended window; the next sweep comes when the map has doubled from what is left. */
  @Interval('throttle-instance-sweep', 60_000)
  sweep(now: number = this.clock.now()): void {
    // The per-throttler maps stay (one per throttler name, a fixed few).
    for (const byKey of this.windows.values()) {
      for (const [key, window] of byKey) {
        if (window.endsAt <= now) {
          byKey.delete(key);
          this.keys--;
        }
      }
    }
    this.sweepAbove = Math.max(MIN_SWEEP_SIZE, this.keys * 2);
  }
}
