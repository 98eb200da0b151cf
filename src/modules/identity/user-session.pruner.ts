import { Inject, Injectable } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import type { Logger } from 'pino';
import { LOGGER } from '../../shared/logging/logger.js';
import { UserSessionRepository } from './user-session.repository.js';

/**
 * Expired sign-in sessions removed in the background, hourly on `@nestjs/schedule`. An expired session already
 * authenticates nothing (its lookup requires `expires_at > now()`); this only keeps the table from growing. Any
 * instance may run it (a plain delete of rows nobody reads any more).
 */
@Injectable()
export class UserSessionPruner {
  constructor(
    private readonly sessions: UserSessionRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Deletes the expired sessions; returns how many went (0 when the database did not answer: logged, retried next hour). */
  @Interval('user-session-purge', 60 * 60_000)
  async purgeExpired(): Promise<number> {
    try {
      return await this.sessions.deleteExpired();
    } catch (err) {
      this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'purging expired sign-in sessions failed');
      return 0;
    }
  }
}
