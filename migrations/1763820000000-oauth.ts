import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * OAuth for the tool endpoint (docs/platform.md §2.5), all state in PostgreSQL so a flow may cross instances:
 *
 * - `oauth_payload`: the authorization server's records (clients, sessions, interactions, grants, codes, access and
 *   refresh tokens), one row per record and kind; token values are stored as their SHA-256 only. `grant_id` lets a
 *   grant's records be revoked together; `expires_at` lets the server forget them.
 * - `oauth_key`: the signing key and the cookie keys, created once by the first instance (under an advisory lock).
 * - `oauth_grant`: a grant's binding to one agent — what the tool endpoint checks on every request, and what the
 *   owner's grant list shows.
 */
export class OAuth1763820000000 implements MigrationInterface {
  name = 'OAuth1763820000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE oauth_payload (
        kind text NOT NULL,
        id text NOT NULL,
        payload jsonb NOT NULL,
        grant_id text,
        uid text,
        user_code text,
        expires_at timestamptz,
        consumed_at timestamptz,
        PRIMARY KEY (kind, id)
      );
      CREATE INDEX oauth_payload_grant_idx ON oauth_payload (grant_id) WHERE grant_id IS NOT NULL;
      CREATE UNIQUE INDEX oauth_payload_uid_idx ON oauth_payload (uid) WHERE uid IS NOT NULL;
      CREATE INDEX oauth_payload_expires_idx ON oauth_payload (expires_at) WHERE expires_at IS NOT NULL;

      CREATE TABLE oauth_key (
        uuid uuid PRIMARY KEY,
        kind text NOT NULL CHECK (kind IN ('signing', 'cookie')),
        value jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE oauth_grant (
        grant_id text PRIMARY KEY,
        company_uuid uuid NOT NULL,
        agent_uuid uuid NOT NULL,
        user_uuid uuid NOT NULL,
        client_id text NOT NULL,
        client_name text NOT NULL,
        redirect_host text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz
      );
      CREATE INDEX oauth_grant_agent_idx ON oauth_grant (agent_uuid);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE oauth_grant; DROP TABLE oauth_key; DROP TABLE oauth_payload;`);
  }
}
