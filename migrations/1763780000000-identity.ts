import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Identity1763780000000 implements MigrationInterface {
  name = 'Identity1763780000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE company (
        uuid uuid PRIMARY KEY,
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE app_user (
        uuid uuid PRIMARY KEY,
        company_uuid uuid NOT NULL REFERENCES company(uuid) ON DELETE CASCADE,
        email text NOT NULL CHECK (email = lower(email)),
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
        password_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX app_user_email_uq ON app_user (email);
      CREATE INDEX app_user_company_idx ON app_user (company_uuid);
      CREATE TABLE user_session (
        uuid uuid PRIMARY KEY,
        company_uuid uuid NOT NULL REFERENCES company(uuid) ON DELETE CASCADE,
        user_uuid uuid NOT NULL REFERENCES app_user(uuid) ON DELETE CASCADE,
        token_hash text NOT NULL,
        expires_at timestamptz NOT NULL,
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX user_session_token_uq ON user_session (token_hash);
      CREATE INDEX user_session_user_idx ON user_session (user_uuid);
      CREATE INDEX user_session_expires_idx ON user_session (expires_at);
      CREATE TABLE agent (
        uuid uuid PRIMARY KEY,
        company_uuid uuid NOT NULL REFERENCES company(uuid) ON DELETE CASCADE,
        owner_uuid uuid NOT NULL REFERENCES app_user(uuid),
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
        preset text NOT NULL CHECK (preset IN ('developer_agent', 'pm_agent', 'admin_agent')),
        permissions text[] NOT NULL DEFAULT '{}',
        last_active_at timestamptz,
        archived_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX agent_company_idx ON agent (company_uuid);
      CREATE INDEX agent_owner_idx ON agent (owner_uuid);
      CREATE TABLE agent_api_key (
        uuid uuid PRIMARY KEY,
        company_uuid uuid NOT NULL REFERENCES company(uuid) ON DELETE CASCADE,
        agent_uuid uuid NOT NULL REFERENCES agent(uuid) ON DELETE CASCADE,
        name text CHECK (name IS NULL OR char_length(name) <= 100),
        key_hash text NOT NULL,
        key_prefix text NOT NULL,
        expires_at timestamptz,
        revoked_at timestamptz,
        last_used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX agent_api_key_hash_uq ON agent_api_key (key_hash);
      CREATE INDEX agent_api_key_agent_idx ON agent_api_key (agent_uuid);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE agent_api_key; DROP TABLE agent; DROP TABLE user_session; DROP TABLE app_user; DROP TABLE company;`);
  }
}
