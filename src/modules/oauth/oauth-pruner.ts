import { Inject, Injectable } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { Clock } from '../../shared/clock.js';
import { LOGGER } from '../../shared/logging/logger.js';
import { MetricsService } from '../../shared/metrics/metrics.service.js';
import { OAuthServer } from './oauth-server.js';
import { pruneClients, purgeExpired, type PruneReason } from './oauth.store.js';

const DAY_MS = 24 * 3_600_000;
/** A registered client with no grant this long after registration is deleted. */
export const CLIENT_NO_GRANT_MS = 7 * DAY_MS;
/** A client whose grants have all been unused this long is deleted. */
export const CLIENT_UNUSED_MS = 90 * DAY_MS;

/**
 * The authorization server's background upkeep, on `@nestjs/schedule`: expired records (codes, tokens, sessions,
 * interactions) every 10 minutes, stale registered clients every hour (docs/deploy.md, "Abuse limits"). Nothing runs
 * while OAuth is off.
 */
@Injectable()
export class OAuthPruner {
  constructor(
    private readonly db: DataSource,
    private readonly server: OAuthServer,
    private readonly clock: Clock,
    private readonly metrics: MetricsService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  @Interval('oauth-expired-purge', 10 * 60_000)
  async purgeExpired(): Promise<void> {
    if (!this.server.enabled) return;
    await purgeExpired(this.db).catch((err: unknown) => this.failed('purging expired records', err));
  }

  @Interval('oauth-client-prune', 60 * 60_000)
  async pruneClients(): Promise<Array<{ clientId: string; reason: PruneReason }>> {
    if (!this.server.enabled) return [];
    try {
      const pruned = await pruneClients(this.db, this.clock.now(), CLIENT_NO_GRANT_MS, CLIENT_UNUSED_MS);
      for (const p of pruned) this.metrics.oauthClientsPruned.inc({ reason: p.reason });
      if (pruned.length) this.logger.info({ clients: pruned.length, noGrant: pruned.filter((p) => p.reason === 'no_grant').length }, 'oauth: stale clients pruned');
      return pruned;
    } catch (err) {
      this.failed('pruning stale clients', err);
      return [];
    }
  }

  private failed(what: string, err: unknown): void {
    this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, `oauth: ${what} failed`);
  }
}
