import { preparedQuery } from '../../shared/database/prepared.js';
import { Repository } from '../../shared/database/repository.js';
import { UserSessionEntity } from './identity.entity.js';

/** A live session with its user and company: what a cookie request authenticates as. */
export interface SessionRow {
  session_uuid: string;
  expires_at: Date;
  last_seen_at: Date;
  user_uuid: string;
  email: string;
  user_name: string;
  company_uuid: string;
  company_name: string;
}

/** The per-request session lookup (prepared: parsed and planned once per pooled connection). */
const SESSION_LOOKUP = {
  name: 'svc_resolve_session',
  text: `SELECT s.uuid AS session_uuid, s.expires_at, s.last_seen_at, u.uuid AS user_uuid, u.email, u.name AS user_name,
                c.uuid AS company_uuid, c.name AS company_name
           FROM user_session s JOIN app_user u ON u.uuid = s.user_uuid JOIN company c ON c.uuid = u.company_uuid
          WHERE s.token_hash = $1 AND s.expires_at > now()`,
};
const SESSION_RENEW = { name: 'svc_renew_session', text: `UPDATE user_session SET expires_at = $2, last_seen_at = now() WHERE uuid = $1` };
const SESSION_TOUCH = { name: 'svc_touch_session', text: `UPDATE user_session SET last_seen_at = now() WHERE uuid = $1` };

/**
 * Users' sign-in sessions (`user_session`: this module's table, README "Table ownership"), found by the SHA-256 of
 * their cookie token. The lookup, renewal and touch of every cookie request are named prepared statements.
 */
export class UserSessionRepository extends Repository {
  async insert(row: Pick<UserSessionEntity, 'uuid' | 'companyUuid' | 'userUuid' | 'tokenHash' | 'expiresAt' | 'lastSeenAt'>): Promise<void> {
    await this.em.insert(UserSessionEntity, row);
  }

  /** Deletes the session with this token hash; returns the uuids deleted (none or one). One statement. */
  async deleteByTokenHash(tokenHash: string): Promise<string[]> {
    const rows: Array<{ uuid: string }> = await this.em.query(
      `WITH gone AS (DELETE FROM user_session WHERE token_hash = $1 RETURNING uuid) SELECT uuid FROM gone`,
      [tokenHash],
    );
    return rows.map((r) => r.uuid);
  }

  /** The unexpired session with this token hash, with its user and company, or undefined (`svc_resolve_session`). */
  async live(tokenHash: string): Promise<SessionRow | undefined> {
    const [row] = await preparedQuery<SessionRow>(this.em, SESSION_LOOKUP, [tokenHash]);
    return row;
  }

  /** Extends a session to `expiresAt` and marks it seen (`svc_renew_session`). */
  async renew(uuid: string, expiresAt: Date): Promise<void> {
    await preparedQuery(this.em, SESSION_RENEW, [uuid, expiresAt]);
  }

  /** Marks a session seen (`svc_touch_session`). */
  async touch(uuid: string): Promise<void> {
    await preparedQuery(this.em, SESSION_TOUCH, [uuid]);
  }

  /** Which of these sessions still exist and have not expired. */
  async liveAmong(uuids: readonly string[]): Promise<Set<string>> {
    if (!uuids.length) return new Set();
    const rows: Array<{ uuid: string }> = await this.em.query(`SELECT uuid FROM user_session WHERE uuid = ANY($1::uuid[]) AND expires_at > now()`, [uuids]);
    return new Set(rows.map((r) => r.uuid));
  }

  /** Deletes expired sessions; returns how many. */
  async deleteExpired(): Promise<number> {
    const res: [unknown, number] = await this.em.query(`DELETE FROM user_session WHERE expires_at <= now()`);
    return Array.isArray(res) ? Number(res[1] ?? 0) : 0;
  }
}
