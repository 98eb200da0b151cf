import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Abuse limits that every instance counts together (docs/deploy.md, "Abuse limits"):
 *
 * - `login_failure`: one row per sign-in attempt that has not succeeded, for 15 minutes — reserved before the
 *   password is checked (so concurrent guesses count at once) and deleted with the rest of its email and address
 *   pair when one succeeds. The email is stored as its SHA-256 (a password typed into the email field is never kept
 *   in clear). Counted by pair, by address and by email.
 * - `login_success`: the addresses each email signed in from successfully in the last 30 days (the owner's own
 *   address is exempt from the per-email limit).
 * - `throttle_hit`: the shared store of `@nestjs/throttler` (one row per counted request, until its window ends);
 *   the OAuth registration limit is its first user.
 * - `oauth_grant (client_id)`: the background pruning of stale OAuth clients looks grants up by client.
 */
export class AbuseLimits1763830000000 implements MigrationInterface {
  name = 'AbuseLimits1763830000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE login_failure (
        id bigserial PRIMARY KEY,
        email_hash text NOT NULL,
        address text NOT NULL,
        failed_at timestamptz NOT NULL
      );
      CREATE INDEX login_failure_pair_idx ON login_failure (email_hash, address, failed_at);
      CREATE INDEX login_failure_address_idx ON login_failure (address, failed_at);
      CREATE INDEX login_failure_time_idx ON login_failure (failed_at);

      CREATE TABLE login_success (
        email_hash text NOT NULL,
        address text NOT NULL,
        succeeded_at timestamptz NOT NULL,
        PRIMARY KEY (email_hash, address)
      );
      CREATE INDEX login_success_time_idx ON login_success (succeeded_at);

      CREATE TABLE throttle_hit (
        id bigserial PRIMARY KEY,
        key text NOT NULL,
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX throttle_hit_key_idx ON throttle_hit (key, expires_at);
      CREATE INDEX throttle_hit_expires_idx ON throttle_hit (expires_at);

      CREATE INDEX oauth_grant_client_idx ON oauth_grant (client_id);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX oauth_grant_client_idx; DROP TABLE throttle_hit; DROP TABLE login_success; DROP TABLE login_failure;`);
  }
}
