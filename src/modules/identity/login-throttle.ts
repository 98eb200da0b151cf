import { Inject, Injectable } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import type { Logger } from 'pino';
import { Clock } from '../../shared/clock.js';
import { RateLimitedError } from '../../shared/errors/app-error.js';
import { limitKey } from '../../shared/http/client-address.js';
import { LOGGER } from '../../shared/logging/logger.js';
import { MetricsService } from '../../shared/metrics/metrics.service.js';
import { sha256Hex } from './domain/credentials.js';
import { KNOWN_ADDRESS_MS, LOGIN_LIMITS, LOGIN_WINDOW_MS, loginRefusal } from './domain/login-limits.js';
import { LoginThrottleRepository, type AttemptKey } from './login-throttle.repository.js';

/** One sign-in attempt that passed the limits: its row counts as a failure until `succeeded` clears its pair. */
export type LoginAttempt = AttemptKey;

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
    private readonly attempts: LoginThrottleRepository,
    private readonly clock: Clock,
    private readonly metrics: MetricsService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Reserves an attempt of `email` (trimmed, lower-cased) from the client address, or throws RATE_LIMITED. */
  async begin(email: string, clientAddress: string): Promise<LoginAttempt> {
    const attempt = { emailHash: sha256Hex(email), address: limitKey(clientAddress) };
    const now = this.clock.now();
    const refusal = await this.attempts.transaction(async (attempts) => {
      // In one order everywhere (by key), so two attempts never wait on each other's second lock.
      await attempts.lock([lockKey('email', attempt.emailHash), lockKey('address', attempt.address)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      const row = await attempts.failures(attempt, new Date(now - LOGIN_WINDOW_MS), LOGIN_LIMITS, new Date(now - KNOWN_ADDRESS_MS));
      const at = (d: Date | null): number | null => (d ? d.getTime() : null);
      const refused = loginRefusal({ pair: at(row.pair), address: at(row.address), email: at(row.email), knownAddress: row.known }, now);
      if (!refused) await attempts.recordFailure(attempt, new Date(now));
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
    await this.attempts.recordSuccess(attempt, new Date(this.clock.now()));
  }

  /** Rows out of their windows; any instance may run it (plain deletes of rows nobody counts any more). */
  @Interval('login-throttle-purge', 60_000)
  async purge(): Promise<void> {
    const now = this.clock.now();
    try {
      await this.attempts.purge(new Date(now - LOGIN_WINDOW_MS), new Date(now - KNOWN_ADDRESS_MS));
    } catch (err) {
      this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'login throttle: purging old rows failed');
    }
  }
}
