import { Repository } from '../../shared/database/repository.js';

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

/** What the limits read of one email and address: see FAILURES_SQL. */
export interface FailuresRow {
  pair: Date | null;
  address: Date | null;
  email: Date | null;
  known: boolean;
}

/** Who an attempt is: the SHA-256 of its email, and its client address as the limits key it. */
export interface AttemptKey {
  emailHash: string;
  address: string;
}

/**
 * Sign-in failures and successes (`login_failure`, `login_success`: this module's tables, README "Table
 * ownership"), as login throttling counts them (docs/deploy.md, "Abuse limits"). `lock` and the reads that follow
 * run in the caller's transaction (`in(tx)`).
 */
export class LoginThrottleRepository extends Repository {
  /** Transaction-scoped advisory locks, taken one after the other in the order given. */
  async lock(keys: readonly bigint[]): Promise<void> {
    for (const key of keys) await this.em.query(`SELECT pg_advisory_xact_lock($1::bigint)`, [key.toString()]);
  }

  /** The failures holding each rule at its limit since `since`, and whether the pair succeeded since `knownSince`. */
  async failures(who: AttemptKey, since: Date, limits: { pair: number; address: number; email: number }, knownSince: Date): Promise<FailuresRow> {
    const [row]: FailuresRow[] = await this.em.query(FAILURES_SQL, [who.emailHash, who.address, since, limits.pair - 1, limits.address - 1, limits.email - 1, knownSince]);
    return row;
  }

  /** Counts an attempt as a failure at `at`. */
  async recordFailure(who: AttemptKey, at: Date): Promise<void> {
    await this.em.query(`INSERT INTO login_failure (email_hash, address, failed_at) VALUES ($1, $2, $3)`, [who.emailHash, who.address, at]);
  }

  /** The pair signed in at `at`: its failures are cleared and the address remembered as the email's. One statement. */
  async recordSuccess(who: AttemptKey, at: Date): Promise<void> {
    await this.em.query(
      `WITH cleared AS (DELETE FROM login_failure WHERE email_hash = $1 AND address = $2)
       INSERT INTO login_success (email_hash, address, succeeded_at) VALUES ($1, $2, $3)
       ON CONFLICT (email_hash, address) DO UPDATE SET succeeded_at = GREATEST(login_success.succeeded_at, EXCLUDED.succeeded_at)`,
      [who.emailHash, who.address, at],
    );
  }

  /** Deletes failures at or before `failedBefore` and successes at or before `succeededBefore`. */
  async purge(failedBefore: Date, succeededBefore: Date): Promise<void> {
    await this.em.query(`DELETE FROM login_failure WHERE failed_at <= $1`, [failedBefore]);
    await this.em.query(`DELETE FROM login_success WHERE succeeded_at <= $1`, [succeededBefore]);
  }
}
