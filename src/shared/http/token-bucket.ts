/**
 * Per-key token buckets held in this process: each key may spend `perMinute` requests at once (the burst) and gets
 * them back at `perMinute / 60` per second. A bucket left alone long enough to be full again is the same as no bucket,
 * so idle buckets are dropped (a sweep at most once per refill period) and memory follows the keys active in the last
 * minute, not every key ever seen.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  /** Tokens regained per millisecond. */
  private readonly rate: number;
  /** Time an empty bucket takes to fill up: past it, an untouched bucket carries no information. */
  private readonly fullAfterMs: number;
  private lastSweep: number;

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!Number.isInteger(perMinute) || perMinute < 1) throw new RangeError('perMinute must be a positive integer');
    this.rate = perMinute / 60_000;
    this.fullAfterMs = 60_000;
    this.lastSweep = now();
  }

  /**
   * Spends one token of `key`. Returns 0 when the request may go ahead, else the whole seconds (at least 1) until the
   * next token is available — a request made after that many seconds succeeds.
   */
  take(key: string): number {
    const now = this.now();
    if (now - this.lastSweep >= this.fullAfterMs) this.sweep(now);
    const bucket = this.buckets.get(key);
    if (!bucket) {
      this.buckets.set(key, { tokens: this.perMinute - 1, at: now });
      return 0;
    }
    const tokens = Math.min(this.perMinute, bucket.tokens + (now - bucket.at) * this.rate);
    bucket.at = now;
    // The epsilon absorbs float drift, so a retry exactly Retry-After seconds later is served.
    if (tokens >= 1 - 1e-9) {
      bucket.tokens = tokens - 1;
      return 0;
    }
    bucket.tokens = tokens;
    return Math.max(1, Math.ceil((1 - tokens) / this.rate / 1000));
  }

  /** Buckets held now (for tests and metrics). */
  get size(): number {
    return this.buckets.size;
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, bucket] of this.buckets) {
      if (now - bucket.at >= this.fullAfterMs) this.buckets.delete(key);
    }
  }
}
