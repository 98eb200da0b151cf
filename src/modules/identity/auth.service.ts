import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { USER_PERMISSIONS } from '../../shared/auth/actor.js';
import { CredentialResolver, type AuthContext } from '../../shared/auth/auth-context.js';
import { effectivePermissions } from '../../shared/auth/permissions.js';
import { preparedQuery } from '../../shared/database/prepared.js';
import { UnauthorizedError } from '../../shared/errors/app-error.js';
import { EventBus } from '../../shared/event-bus/event-bus.port.js';
import { AgentEntity, CompanyEntity, UserEntity, UserSessionEntity } from './identity.entity.js';
import { dummyPasswordHash, looksLikeApiKey, newSessionToken, sha256Hex, verifyPassword } from './domain/credentials.js';
import { LoginThrottle } from './login-throttle.js';

const SESSION_LIFETIME_MS = 7 * 24 * 3600 * 1000;
const RENEW_BELOW_MS = SESSION_LIFETIME_MS / 2;
const TOUCH_INTERVAL_MS = 60 * 1000;

interface ApiKeyRow extends AgentCredentialRow {
  key_uuid: string;
  last_used_at: Date | null;
}

/**
 * The per-request key lookup of every agent call, as a named prepared statement: each pooled connection parses and
 * plans it once. The agent's permissions are still read on every request (never cached).
 */
const API_KEY_LOOKUP = {
  name: 'svc_resolve_api_key',
  text: `SELECT k.uuid AS key_uuid, k.last_used_at, a.uuid AS agent_uuid, a.name AS agent_name, a.owner_uuid, a.preset,
                a.permissions, c.uuid AS company_uuid, c.name AS company_name
           FROM agent_api_key k JOIN agent a ON a.uuid = k.agent_uuid JOIN company c ON c.uuid = a.company_uuid
          WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())
            AND a.archived_at IS NULL`,
};
/** The per-request session lookup (prepared: parsed and planned once per pooled connection). */
const SESSION_LOOKUP = {
  name: 'svc_resolve_session',
  text: `SELECT s.uuid AS session_uuid, s.expires_at, s.last_seen_at, u.uuid AS user_uuid, u.email, u.name AS user_name,
                c.uuid AS company_uuid, c.name AS company_name
           FROM user_session s JOIN app_user u ON u.uuid = s.user_uuid JOIN company c ON c.uuid = u.company_uuid
          WHERE s.token_hash = $1 AND s.expires_at > now()`,
};
interface SessionRow {
  session_uuid: string;
  expires_at: Date;
  last_seen_at: Date;
  user_uuid: string;
  email: string;
  user_name: string;
  company_uuid: string;
  company_name: string;
}
const SESSION_RENEW = { name: 'svc_renew_session', text: `UPDATE user_session SET expires_at = $2, last_seen_at = now() WHERE uuid = $1` };
const SESSION_TOUCH = { name: 'svc_touch_session', text: `UPDATE user_session SET last_seen_at = now() WHERE uuid = $1` };
const API_KEY_TOUCH = { name: 'svc_touch_api_key', text: `UPDATE agent_api_key SET last_used_at = $2 WHERE uuid = $1 AND revoked_at IS NULL` };

/** The columns of an agent credential's lookup (a key, or an OAuth grant) that make its AuthContext. */
export interface AgentCredentialRow {
  agent_uuid: string;
  agent_name: string;
  owner_uuid: string;
  preset: AgentEntity['preset'];
  permissions: AgentEntity['permissions'] | null;
  company_uuid: string;
  company_name: string;
}

/**
 * The context of an agent authenticated by a credential (platform.md §2.3, §2.5): it acts as the agent, with the
 * permissions its row holds right now.
 */
export function agentAuthContext(row: AgentCredentialRow, credential: { via: 'api_key'; apiKeyUuid: string } | { via: 'oauth'; grantId: string }): AuthContext {
  return {
    ...credential,
    companyName: row.company_name,
    agent: { uuid: row.agent_uuid, name: row.agent_name, ownerUuid: row.owner_uuid },
    actor: {
      type: 'agent',
      uuid: row.agent_uuid,
      companyUuid: row.company_uuid,
      name: row.agent_name,
      ownerUuid: row.owner_uuid,
      permissions: new Set(effectivePermissions(row.preset, row.permissions ?? [])),
    },
  };
}

export interface LoginResult {
  token: string;
  data: { user: { uuid: string; email: string; name: string }; company: { uuid: string; name: string } };
}

/** User login and sessions, and resolution of both credential kinds for the auth guard. */
@Injectable()
export class AuthService extends CredentialResolver {
  /** Keys whose lastUsedAt write is in flight: concurrent requests of one key write it once, not once each. */
  private readonly touching = new Set<string>();

  constructor(
    private readonly db: DataSource,
    private readonly bus: EventBus,
    private readonly throttle: LoginThrottle,
  ) {
    super();
  }

  /**
   * The credential check of every sign-in (the login route, the OAuth sign-in page), throttled by email, client
   * address and their pair (docs/deploy.md, "Abuse limits"): a wrong email or password is UNAUTHORIZED "Invalid
   * email or password" — the same answer, counted the same way, for an unknown email — too many failures
   * RATE_LIMITED.
   */
  async verifyCredentials(rawEmail: string, password: string, clientAddress: string): Promise<UserEntity> {
    const email = rawEmail.trim().toLowerCase();
    const attempt = await this.throttle.begin(email, clientAddress);
    const user = await this.db.getRepository(UserEntity).findOne({ where: { email } });
    // Unknown emails are checked against a dummy hash so both failures take the same time.
    const ok = await verifyPassword(password, user?.passwordHash ?? (await dummyPasswordHash()));
    // A failure needs no write: the attempt was recorded as one before the check.
    if (!user || !ok) throw new UnauthorizedError('Invalid email or password');
    await this.throttle.succeeded(attempt);
    return user;
  }

  async login(rawEmail: string, password: string, clientAddress: string): Promise<LoginResult> {
    const user = await this.verifyCredentials(rawEmail, password, clientAddress);
    const company = await this.db.getRepository(CompanyEntity).findOneByOrFail({ uuid: user.companyUuid });
    const token = newSessionToken();
    const now = new Date();
    await this.db.getRepository(UserSessionEntity).insert({
      uuid: randomUUID(),
      companyUuid: user.companyUuid,
      userUuid: user.uuid,
      tokenHash: sha256Hex(token),
      expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS),
      lastSeenAt: now,
    });
    return { token, data: { user: { uuid: user.uuid, email: user.email, name: user.name }, company: { uuid: company.uuid, name: company.name } } };
  }

  /** Deletes the session; its open streams end on every instance (platform.md §6.2). */
  async logout(token: string | null): Promise<void> {
    if (!token) return;
    const rows: Array<{ uuid: string }> = await this.db.query(
      `WITH gone AS (DELETE FROM user_session WHERE token_hash = $1 RETURNING uuid) SELECT uuid FROM gone`,
      [sha256Hex(token)],
    );
    for (const { uuid } of rows) this.bus.publish('session', { sessionUuid: uuid }, null);
  }

  async resolveSession(token: string): Promise<{ context: AuthContext; renew: boolean } | null> {
    if (token.length > 200) return null;
    const [row] = await preparedQuery<SessionRow>(this.db.manager, SESSION_LOOKUP, [sha256Hex(token)]);
    if (!row) return null;
    const now = Date.now();
    const renew = row.expires_at.getTime() - now < RENEW_BELOW_MS;
    if (renew) {
      await preparedQuery(this.db.manager, SESSION_RENEW, [row.session_uuid, new Date(now + SESSION_LIFETIME_MS)]);
    } else if (now - row.last_seen_at.getTime() > TOUCH_INTERVAL_MS) {
      await preparedQuery(this.db.manager, SESSION_TOUCH, [row.session_uuid]);
    }
    const user = { uuid: row.user_uuid, email: row.email, name: row.user_name };
    return {
      renew,
      context: {
        via: 'session',
        companyName: row.company_name,
        user,
        sessionUuid: row.session_uuid,
        actor: {
          type: 'user',
          uuid: row.user_uuid,
          companyUuid: row.company_uuid,
          name: row.user_name || row.email,
          ownerUuid: null,
          permissions: USER_PERMISSIONS,
        },
      },
    };
  }

  async resolveApiKey(rawKey: string): Promise<AuthContext | null> {
    if (!looksLikeApiKey(rawKey)) return null;
    // The lookup by hash is the comparison; the raw key is never compared or stored.
    const [row] = await preparedQuery<ApiKeyRow>(this.db.manager, API_KEY_LOOKUP, [sha256Hex(rawKey)]);
    if (!row) return null;
    if ((!row.last_used_at || Date.now() - row.last_used_at.getTime() > TOUCH_INTERVAL_MS) && !this.touching.has(row.key_uuid)) {
      this.touching.add(row.key_uuid);
      try {
        await preparedQuery(this.db.manager, API_KEY_TOUCH, [row.key_uuid, new Date()]);
      } finally {
        this.touching.delete(row.key_uuid);
      }
    }
    return agentAuthContext(row, { via: 'api_key', apiKeyUuid: row.key_uuid });
  }

  /** Which of these sessions still exist and have not expired (the streams re-check theirs at every heartbeat). */
  async liveSessions(sessionUuids: readonly string[]): Promise<Set<string>> {
    if (!sessionUuids.length) return new Set();
    const rows: Array<{ uuid: string }> = await this.db.query(`SELECT uuid FROM user_session WHERE uuid = ANY($1::uuid[]) AND expires_at > now()`, [sessionUuids]);
    return new Set(rows.map((r) => r.uuid));
  }

  /** Removes expired sessions; called periodically. */
  async purgeExpiredSessions(): Promise<number> {
    const res: [unknown, number] = await this.db.query(`DELETE FROM user_session WHERE expires_at <= now()`);
    return Array.isArray(res) ? Number(res[1] ?? 0) : 0;
  }
}
