import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { DataSource } from 'typeorm';

/** Records whose id is a bearer secret: stored under its SHA-256, never as given. */
const HASHED = new Set(['AccessToken', 'RefreshToken', 'AuthorizationCode', 'ClientCredentials', 'DeviceCode', 'BackchannelAuthenticationRequest', 'RegistrationAccessToken']);
/** Records that belong to a grant (revoked with it). */
const OF_GRANT = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);

const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');

/*
 * The authorization server's store: the storage oidc-provider calls through its adapter interface, the shared keys,
 * and the background pruning's statements — storage only, the one file of the module besides its repository that
 * holds SQL (`*.store.ts`, scripts/check-sql-in-services.mjs). The grants' bindings are OAuthGrantRepository's.
 */

/**
 * The authorization server's storage (oidc-provider's adapter interface) in `oauth_payload`: one instance per record
 * kind. Every instance of the service reads and writes the same rows, so a flow started on one may finish on another.
 */
export function pgAdapter(db: DataSource): new (kind: string) => Adapter {
  return class PgAdapter implements Adapter {
    constructor(private readonly kind: string) {}

    private key(id: string): string {
      return HASHED.has(this.kind) ? sha256(id) : id;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const grantId = this.kind === 'Grant' ? id : OF_GRANT.has(this.kind) ? (payload.grantId ?? null) : null;
      await db.query(
        `INSERT INTO oauth_payload (kind, id, payload, grant_id, uid, user_code, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $7::int IS NULL THEN NULL ELSE now() + make_interval(secs => $7::int) END)
         ON CONFLICT (kind, id) DO UPDATE SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id, uid = EXCLUDED.uid,
           user_code = EXCLUDED.user_code, expires_at = EXCLUDED.expires_at`,
        [this.kind, this.key(id), payload, grantId, this.kind === 'Session' ? (payload.uid ?? null) : null, payload.userCode ?? null, expiresIn ? Math.ceil(expiresIn) : null],
      );
    }

    private async findWhere(column: 'id' | 'uid' | 'user_code', value: string): Promise<AdapterPayload | undefined> {
      const rows: Array<{ payload: AdapterPayload; consumed_at: Date | null }> = await db.query(
        `SELECT payload, consumed_at FROM oauth_payload WHERE kind = $1 AND ${column} = $2 AND (expires_at IS NULL OR expires_at > now())`,
        [this.kind, value],
      );
      const row = rows[0];
      if (!row) return undefined;
      return row.consumed_at ? { ...row.payload, consumed: Math.floor(row.consumed_at.getTime() / 1000) } : row.payload;
    }

    find(id: string): Promise<AdapterPayload | undefined> {
      return this.findWhere('id', this.key(id));
    }

    findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return this.findWhere('uid', uid);
    }

    findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return this.findWhere('user_code', userCode);
    }

    async consume(id: string): Promise<void> {
      await db.query(`UPDATE oauth_payload SET consumed_at = now() WHERE kind = $1 AND id = $2`, [this.kind, this.key(id)]);
    }

    async destroy(id: string): Promise<void> {
      await db.query(`DELETE FROM oauth_payload WHERE kind = $1 AND id = $2`, [this.kind, this.key(id)]);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await db.query(`DELETE FROM oauth_payload WHERE kind = $1 AND grant_id = $2`, [this.kind, grantId]);
    }
  };
}

/** Expired records (codes, tokens, sessions, interactions), removed in the background. */
export async function purgeExpired(db: DataSource): Promise<void> {
  await db.query(`DELETE FROM oauth_payload WHERE expires_at < now()`);
}

const KEYS_LOCK = 0x0a_07_4b_e5;

/**
 * The signing key and the cookie keys, shared by every instance: created by the first instance that needs them
 * (under an advisory lock), then read by all.
 */
export async function loadKeys(db: DataSource): Promise<{ jwks: { keys: JWK[] }; cookieKeys: string[] }> {
  return db.transaction(async (em) => {
    await em.query(`SELECT pg_advisory_xact_lock($1)`, [KEYS_LOCK]);
    let rows: Array<{ kind: string; value: unknown }> = await em.query(`SELECT kind, value FROM oauth_key ORDER BY created_at DESC, uuid`);
    if (!rows.some((r) => r.kind === 'signing')) {
      const { privateKey } = await generateKeyPair('RS256', { extractable: true });
      const jwk = { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: 'RS256', use: 'sig' };
      await em.query(`INSERT INTO oauth_key (uuid, kind, value) VALUES ($1, 'signing', $2)`, [randomUUID(), JSON.stringify(jwk)]);
    }
    if (!rows.some((r) => r.kind === 'cookie')) {
      await em.query(`INSERT INTO oauth_key (uuid, kind, value) VALUES ($1, 'cookie', $2)`, [randomUUID(), JSON.stringify(randomBytes(32).toString('base64url'))]);
    }
    rows = await em.query(`SELECT kind, value FROM oauth_key ORDER BY created_at DESC, uuid`);
    return {
      jwks: { keys: rows.filter((r) => r.kind === 'signing').map((r) => r.value as JWK) },
      // The newest signs, all verify: a cookie key can be rotated by adding a row.
      cookieKeys: rows.filter((r) => r.kind === 'cookie').map((r) => r.value as string),
    };
  });
}

/** Why a registered client was pruned: no grant 7 days after registration, or every grant unused for 90 days. */
export type PruneReason = 'no_grant' | 'unused';

const CLIENT_PRUNE_LOCK = 0x0a_07_c1_1e;

/**
 * Deletes the registered clients gone stale at `now` (docs/deploy.md, "Abuse limits"), with their grants, the grants'
 * tokens and bindings: a client with no grant whose registration is older than `noGrantMs`, and one whose grants
 * were all last used (or, never used, created) longer than `unusedMs` ago. A host presenting a deleted `client_id`
 * gets `invalid_client` and registers again. One instance at a time (a busy lock skips the run).
 */
export async function pruneClients(db: DataSource, now: number, noGrantMs: number, unusedMs: number): Promise<Array<{ clientId: string; reason: PruneReason }>> {
  return db.transaction(async (em) => {
    const [lock]: Array<{ ok: boolean }> = await em.query(`SELECT pg_try_advisory_xact_lock($1) AS ok`, [CLIENT_PRUNE_LOCK]);
    if (!lock.ok) return [];
    const stale: Array<{ id: string; reason: PruneReason }> = await em.query(
      `SELECT c.id, CASE WHEN g.client_id IS NULL THEN 'no_grant' ELSE 'unused' END AS reason
         FROM oauth_payload c
         LEFT JOIN (SELECT client_id, max(coalesce(last_used_at, created_at)) AS used FROM oauth_grant GROUP BY client_id) g ON g.client_id = c.id
        WHERE c.kind = 'Client'
          AND CASE WHEN g.client_id IS NULL
                   THEN to_timestamp(substring(c.payload->>'client_id_issued_at' from '^[0-9]{1,12}$')::double precision) < $1
                   ELSE g.used < $2 END`,
      [new Date(now - noGrantMs), new Date(now - unusedMs)],
    );
    if (!stale.length) return [];
    const ids = stale.map((s) => s.id);
    // Bound grants, and any grant record of these clients left without a binding.
    await em.query(
      `DELETE FROM oauth_payload WHERE grant_id IN (
         SELECT grant_id FROM oauth_grant WHERE client_id = ANY($1)
         UNION SELECT id FROM oauth_payload WHERE kind = 'Grant' AND payload->>'clientId' = ANY($1))`,
      [ids],
    );
    await em.query(`DELETE FROM oauth_grant WHERE client_id = ANY($1)`, [ids]);
    await em.query(`DELETE FROM oauth_payload WHERE kind = 'Client' AND id = ANY($1)`, [ids]);
    return stale.map((s) => ({ clientId: s.id, reason: s.reason }));
  });
}
