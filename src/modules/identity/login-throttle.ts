import { Inject, Injectable } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { Clock } from '../../shared/clock.js';
import { RateLimitedError } from '../../shared/errors/app-error.js';
import { limitKey } from '../../shared/http/client-address.js';
import { LOGGER } from '../../shared/logging/logger.js';
import { MetricsService } from '../../shared/metrics/metrics.service.js';
import { sha256Hex } from './domain/credentials.js';
import { KNOWN_ADDRESS_MS, LOGIN_LIMITS, LOGIN_WINDOW_MS, loginRefusal } from './domain/login-limits.js';

/** One sign-in attempt that passed the limits: its row counts as a failure until `succeeded` clears its pair. */
export interface LoginAttempt {
  emailHash: string;
  address: string;
}

/**
 * For each rule, the failure that holds its count at the limit (the limit-th most recent in the window), and whether
 * the address signed in to the email lately. Each subquery reads at most one rule's limit of rows, since refused
 * attempts are never recorded.
 */
const FAILURES_SQL = `
  WITH f AS (
    SELECT failed_at, email_hash = $1 AS same_email, address = $2 AS same_address
      FROM login_failure WHERE failed_at > $3 AND (email_hash = $1 OR address = $2)
  )
  SELECT (SELECT failed_at FROM f WHERE same_email AND same_address ORDER BY failed_at DESC OFFSET $4 LIMIT 1) AS pair,
         (SELECT failed_at FROM f WHERE same_address ORDER BY failed_at DESC OFFSET $5 LIMIT 1) AS address,
         (SELECT failed_at FROM f WHERE same_email ORDER BY failed_at DESC OFFSET $6 LIMIT 1) AS email,
         EXISTS (SELECT 1 FROM login_success WHERE email_hash = $1 AND address = $2 AND succeeded_at > $7) AS known`;

interface FailuresRow {
  pair: Date | null;
  address: Date | null;
  email: Date | null;
  known: boolean;
}

/** A 64-bit advisory lock key for one email or one address. */
function lockKey(kind: string, value: string): bigint {
  return BigInt.asIntN(64, BigInt(`0x${sha256Hex(`login-${kind}:${value}`).slice(0, 16)}`));
}

/**
 * Login throttling counted by every instance together, in PostgreSQL (docs/deploy.md, "Abuse limits"; the rules are
 * `domain/login-limits.ts`). An attempt is reserved as a failure before its password is checked, under advisory
 * locks on its email and its address, so a burst of concurrent guesses cannot all pass the check before any of them
 * is counted; a success then deletes its pair's failures and remembers the address as the owner's.
 */
@Injectable()
export class LoginThrottle {
  constructor(
    private readonly db: DataSource,
    private readonly clock: Clock,
    private readonly metrics: MetricsService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Reserves an attempt of `email` (trimmed, lower-cased) from the client address, or throws RATE_LIMITED. */
  async begin(email: string, clientAddress: string): Promise<LoginAttempt> {
    const attempt = { emailHash: sha256Hex(email), address: limitKey(clientAddress) };
    const now = this.clock.now();
    const refusal = await this.db.transaction(async (em) => {
      // In one order everywhere (by key), so two attempts never wait on each other's second lock.
      const keys = [lockKey('email', attempt.emailHash), lockKey('address', attempt.address)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      for (const key of keys) await em.query(`SELECT pg_advisory_xact_lock($1::bigint)`, [key.toString()]);
      const [row]: FailuresRow[] = await em.query(FAILURES_SQL, [
        attempt.emailHash,
        attempt.address,
        new Date(now - LOGIN_WINDOW_MS),
        LOGIN_LIMITS.pair - 1,
        LOGIN_LIMITS.address - 1,
        LOGIN_LIMITS.email - 1,
        new Date(now - KNOWN_ADDRESS_MS),
      ]);
      const at = (d: Date | null): number | null => (d ? d.getTime() : null);
      const refused = loginRefusal({ pair: at(row.pair), address: at(row.address), email: at(row.email), knownAddress: row.known }, now);
      if (!refused) {
        await em.query(`INSERT INTO login_failure (email_hash, address, failed_at) VALUES ($1, $2, $3)`, [attempt.emailHash, attempt.address, new Date(now)]);
      }
      return refused;
    });
    if (refusal) {
      this.metrics.loginThrottled.inc({ rule: refusal.rule });
      throw new RateLimitedError('Too many login attempts', refusal.retryAfterSeconds);
    }
    return attempt;
  }

  /** The password was right: the pair's failures are cleared and the address becomes one the email signs in from. */
  async succeeded(attempt: LoginAttempt): Promise<void> {
    await this.db.query(
      `WITH cleared AS (DELETE FROM login_failure WHERE email_hash = $1 AND address = $2)
       INSERT INTO login_success (email_hash, address, succeeded_at) VALUES ($1, $2, $3)
       ON CONFLICT (email_hash, address) DO UPDATE SET succeeded_at = GREATEST(login_success.succeeded_at, EXCLUDED.succeeded_at)`,
      [attempt.emailHash, attempt.address, new Date(this.clock.now())],
    );
  }

  /** Rows out of their windows; any instance may run it (plain deletes of rows nobody counts any more). */
  @Interval('login-throttle-purge', 60_000)
  async purge(): Promise<void> {
    const now = this.clock.now();
    try {
      await this.db.query(`DELETE FROM login_failure WHERE failed_at <= $1`, [new Date(now - LOGIN_WINDOW_MS)]);
      await this.db.query(`DELETE FROM login_success WHERE succeeded_at <= $1`, [new Date(now - KNOWN_ADDRESS_MS)]);
    } catch (err) {
      this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'login throttle: purging old rows failed');
    }
  }
}
