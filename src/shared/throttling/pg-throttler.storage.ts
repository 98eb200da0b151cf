import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { Clock } from '../clock.js';
import { LOGGER } from '../logging/logger.js';

/** Throttler storage records are in whole seconds, at least 1 while something is pending. */
const seconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

/** A 64-bit advisory lock key for one throttler key. */
function lockKey(key: string): string {
  return BigInt.asIntN(64, BigInt(`0x${createHash('sha256').update(`throttle:${key}`).digest('hex').slice(0, 16)}`)).toString();
}

interface WindowRow {
  hits: number;
  first_expiry: Date | null;
  frees: Date | null;
}

/**
 * `@nestjs/throttler`'s storage in PostgreSQL, for limits that every instance counts together (docs/deploy.md,
 * "Abuse limits"). A sliding window: one `throttle_hit` row per counted request, until `ttl` after it; a request
 * arriving with `limit` hits in its window is refused and not counted, and may come again when the oldest of those
 * leaves it (so `blockDuration` is not used: the window itself frees). Requests of one key are serialised by an
 * advisory lock, so concurrent ones on several instances never count past the limit.
 */
@Injectable()
export class PgThrottlerStorage implements ThrottlerStorage {
  constructor(
    private readonly db: DataSource,
    private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async increment(key: string, ttl: number, limit: number, _blockDuration: number, throttlerName: string) {
    const stored = `${throttlerName}:${key}`;
    const now = this.clock.now();
    return this.db.transaction(async (em) => {
      await em.query(`SELECT pg_advisory_xact_lock($1::bigint)`, [lockKey(stored)]);
      // One statement after the lock (its snapshot sees every hit committed before): the window, and this request's
      // hit when the window has room. The lock is held for these two statements and the commit only.
      const [row]: WindowRow[] = await em.query(
        `WITH w AS (
           SELECT count(*)::int AS hits, min(expires_at) AS first_expiry,
                  (SELECT expires_at FROM throttle_hit WHERE key = $1 AND expires_at > $2 ORDER BY expires_at DESC OFFSET $3 LIMIT 1) AS frees
             FROM throttle_hit WHERE key = $1 AND expires_at > $2
         ), hit AS (
           INSERT INTO throttle_hit (key, expires_at) SELECT $1, $4 FROM w WHERE w.hits < $5 RETURNING id
         )
         SELECT w.hits, w.first_expiry, w.frees FROM w, (SELECT count(*) FROM hit) counted`,
        [stored, new Date(now), Math.max(0, limit - 1), new Date(now + ttl), limit],
      );
      if (row.hits >= limit) {
        // `frees`: the limit-th most recent hit; once it expires fewer than `limit` remain.
        const frees = row.frees ?? row.first_expiry;
        return {
          totalHits: row.hits + 1,
          timeToExpire: seconds((row.first_expiry?.getTime() ?? now) - now),
          isBlocked: true,
          timeToBlockExpire: seconds((frees?.getTime() ?? now) - now),
        };
      }
      return { totalHits: row.hits + 1, timeToExpire: seconds((row.first_expiry?.getTime() ?? now + ttl) - now), isBlocked: false, timeToBlockExpire: 0 };
    });
  }

  /** Hits out of their windows; any instance may run it (plain deletes of rows nobody counts any more). */
  @Interval('throttle-hit-purge', 60_000)
  async purge(): Promise<void> {
    try {
      await this.db.query(`DELETE FROM throttle_hit WHERE expires_at <= $1`, [new Date(this.clock.now())]);
    } catch (err) {
      this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'throttler: purging old hits failed');
    }
  }
}
