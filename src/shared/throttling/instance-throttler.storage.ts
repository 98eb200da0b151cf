import { Injectable } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { Clock } from '../clock.js';

/** Below this many keys the lazy sweep never runs (a sweep of a small map is not worth a pass). */
const MIN_SWEEP_SIZE = 1024;
/** Float drift: a retry made exactly Retry-After seconds after a refusal is served. */
const EPSILON = 1e-9;

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/** One key's bucket: the requests it may still spend, as of `at`. */
interface Bucket {
  tokens: number;
  at: number;
  /** The throttler's `ttl`: the time an empty bucket takes to fill up again (the sweep's measure). */
  ttl: number;
}

/**
 * `@nestjs/throttler`'s storage in this process's memory, for the throttlers declared `store: 'instance'` (a per-key
 * request rate, where a database round trip per request would cost more than the limit is worth). A token bucket per
 * key: `limit` requests at once (the burst), given back at `limit` per `ttl`; a request finding no whole token is
 * refused and not counted, with `timeToBlockExpire` = the whole seconds (at least 1) until the next token, so a retry
 * after `Retry-After` seconds is served — not the end of a fixed window, which would hold a busy agent up to `ttl`.
 * `totalHits` is the requests spent from the bucket (its `limit` minus the whole tokens left). `blockDuration` is
 * not used. No timer per key — the package's own `ThrottlerStorageService` arms one per key and per hit — so memory
 * is bounded by the keys seen in the last `ttl` (a bucket untouched for `ttl` is full, the same as no bucket): those
 * are swept every minute on `@nestjs/schedule`, and at once whenever the map has doubled since the last sweep.
 */
@Injectable()
export class InstanceThrottlerStorage implements ThrottlerStorage {
  /** Per throttler name, each key's bucket. */
  private readonly buckets = new Map<string, Map<string, Bucket>>();
  /** Keys held, over all throttlers. */
  private keys = 0;
  /** The lazy sweep runs when `keys` exceeds this. */
  private sweepAbove = MIN_SWEEP_SIZE;

  constructor(private readonly clock: Clock) {}

  increment(key: string, ttl: number, limit: number, _blockDuration: number, throttlerName: string): Promise<ThrottlerStorageRecord> {
    const now = this.clock.now();
    let byKey = this.buckets.get(throttlerName);
    if (!byKey) this.buckets.set(throttlerName, (byKey = new Map()));
    let bucket = byKey.get(key);
    if (!bucket) {
      if (++this.keys > this.sweepAbove) this.sweep(now);
      byKey.set(key, (bucket = { tokens: limit, at: now, ttl }));
    } else {
      bucket.tokens = Math.min(limit, bucket.tokens + ((now - bucket.at) * limit) / ttl);
      bucket.at = now;
      bucket.ttl = ttl;
    }
    const perToken = limit > 0 ? ttl / limit : Infinity;
    if (bucket.tokens >= 1 - EPSILON) {
      bucket.tokens -= 1;
      return Promise.resolve({ totalHits: limit - Math.floor(bucket.tokens + EPSILON), timeToExpire: toSeconds((limit - bucket.tokens) * perToken), isBlocked: false, timeToBlockExpire: 0 });
    }
    const wait = limit > 0 ? toSeconds((1 - bucket.tokens) * perToken) : toSeconds(ttl);
    return Promise.resolve({ totalHits: limit + 1, timeToExpire: wait, isBlocked: true, timeToBlockExpire: wait });
  }

  /** Keys held now (tests, metrics). */
  get size(): number {
    return this.keys;
  }

  /** Drops every bucket that is full again (untouched for its `ttl`); the next lazy sweep comes when the map has doubled. */
  @Interval('throttle-instance-sweep', 60_000)
  sweep(now: number = this.clock.now()): void {
    // The per-throttler maps stay (one per throttler name, a fixed few).
    for (const byKey of this.buckets.values()) {
      for (const [key, bucket] of byKey) {
        if (now - bucket.at >= bucket.ttl) {
          byKey.delete(key);
          this.keys--;
        }
      }
    }
    this.sweepAbove = Math.max(MIN_SWEEP_SIZE, this.keys * 2);
  }
}

/** Throttler storage records are in whole seconds, at least 1. */
function toSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000 - EPSILON));
}
