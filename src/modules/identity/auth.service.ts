import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { USER_PERMISSIONS } from '../../shared/auth/actor.js';
import { CredentialResolver, type AuthContext } from '../../shared/auth/auth-context.js';
import { effectivePermissions } from '../../shared/auth/permissions.js';
import { UnauthorizedError } from '../../shared/errors/app-error.js';
import { EventBus } from '../../shared/event-bus/event-bus.port.js';
import type { UserEntity } from './identity.entity.js';
import { AgentRepository, type AgentCredentialRow } from './agent.repository.js';
import { dummyPasswordHash, looksLikeApiKey, newSessionToken, sha256Hex, verifyPassword } from './domain/credentials.js';
import { LoginThrottle } from './login-throttle.js';
import { UserSessionRepository } from './user-session.repository.js';
import { UserRepository } from './user.repository.js';

const SESSION_LIFETIME_MS = 7 * 24 * 3600 * 1000;
const RENEW_BELOW_MS = SESSION_LIFETIME_MS / 2;
const TOUCH_INTERVAL_MS = 60 * 1000;

/**
 * The context of an agent authenticated by a credential (docs/platform.md §2.3, §2.5): it acts as the agent, with the
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
    private readonly users: UserRepository,
    private readonly sessions: UserSessionRepository,
    private readonly agents: AgentRepository,
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
    const user = await this.users.byEmail(email);
    // Unknown emails are checked against a dummy hash so both failures take the same time.
    const ok = await verifyPassword(password, user?.passwordHash ?? (await dummyPasswordHash()));
    // A failure needs no write: the attempt was recorded as one before the check.
    if (!user || !ok) throw new UnauthorizedError('Invalid email or password');
    await this.throttle.succeeded(attempt);
    return user;
  }

  async login(rawEmail: string, password: string, clientAddress: string): Promise<LoginResult> {
    const user = await this.verifyCredentials(rawEmail, password, clientAddress);
    const company = await this.users.companyOf(user);
    const token = newSessionToken();
    const now = new Date();
    await this.sessions.insert({
      uuid: randomUUID(),
      companyUuid: user.companyUuid,
      userUuid: user.uuid,
      tokenHash: sha256Hex(token),
      expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS),
      lastSeenAt: now,
    });
    return { token, data: { user: { uuid: user.uuid, email: user.email, name: user.name }, company: { uuid: company.uuid, name: company.name } } };
  }

  /** Deletes the session; its open streams end on every instance (docs/platform.md §6.2). */
  async logout(token: string | null): Promise<void> {
    if (!token) return;
    for (const uuid of await this.sessions.deleteByTokenHash(sha256Hex(token))) this.bus.publish('session', { sessionUuid: uuid }, null);
  }

  async resolveSession(token: string): Promise<{ context: AuthContext; renew: boolean } | null> {
    if (token.length > 200) return null;
    const row = await this.sessions.live(sha256Hex(token));
    if (!row) return null;
    const now = Date.now();
    const renew = row.expires_at.getTime() - now < RENEW_BELOW_MS;
    if (renew) {
      await this.sessions.renew(row.session_uuid, new Date(now + SESSION_LIFETIME_MS));
    } else if (now - row.last_seen_at.getTime() > TOUCH_INTERVAL_MS) {
      await this.sessions.touch(row.session_uuid);
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
    const row = await this.agents.credentialByKeyHash(sha256Hex(rawKey));
    if (!row) return null;
    if ((!row.last_used_at || Date.now() - row.last_used_at.getTime() > TOUCH_INTERVAL_MS) && !this.touching.has(row.key_uuid)) {
      this.touching.add(row.key_uuid);
      try {
        await this.agents.touchKey(row.key_uuid, new Date());
      } finally {
        this.touching.delete(row.key_uuid);
      }
    }
    return agentAuthContext(row, { via: 'api_key', apiKeyUuid: row.key_uuid });
  }

  /** Which of these sessions still exist and have not expired (the streams re-check theirs at every heartbeat). */
  async liveSessions(sessionUuids: readonly string[]): Promise<Set<string>> {
    return this.sessions.liveAmong(sessionUuids);
  }
}
