import { Repository } from '../../shared/database/repository.js';
import type { AgentCredentialRow } from '../identity/index.js';

/** A grant's binding to an agent, as the owner's listing reads it. */
export interface GrantRow {
  grant_id: string;
  agent_uuid: string;
  client_id: string;
  client_name: string;
  redirect_host: string;
  created_at: Date;
  last_used_at: Date | null;
}

/** A grant's credential lookup: the live agent it acts as, and when the grant was last used. */
export interface GrantCredentialRow extends AgentCredentialRow {
  last_used_at: Date | null;
}

/** What a consent writes: the grant, the agent it acts as, who consented, and the client as the user saw it. */
export interface GrantBinding {
  grantId: string;
  companyUuid: string;
  agentUuid: string;
  userUuid: string;
  clientId: string;
  clientName: string;
  redirectHost: string;
}

/**
 * OAuth grants bound to agents (`oauth_grant`, and the grant's records in `oauth_payload`: this module's tables,
 * README "Table ownership"), with the reads that go with them — the signed-in user of a consent and the agent a token
 * acts as. The authorization server's own records are the adapter's (oauth.store.ts).
 */
export class OAuthGrantRepository extends Repository {
  /** Binds a grant to its agent (a re-consent re-binds it). */
  async bind(g: GrantBinding): Promise<void> {
    await this.em.query(
      `INSERT INTO oauth_grant (grant_id, company_uuid, agent_uuid, user_uuid, client_id, client_name, redirect_host)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (grant_id) DO UPDATE SET agent_uuid = EXCLUDED.agent_uuid, client_name = EXCLUDED.client_name, redirect_host = EXCLUDED.redirect_host`,
      [g.grantId, g.companyUuid, g.agentUuid, g.userUuid, g.clientId, g.clientName.slice(0, 200), g.redirectHost.slice(0, 255)],
    );
  }

  /** A user by uuid (identity's table, read only), or undefined. */
  async user(uuid: string): Promise<{ uuid: string; company_uuid: string; name: string; email: string } | undefined> {
    const [row]: Array<{ uuid: string; company_uuid: string; name: string; email: string }> = await this.em.query(
      `SELECT uuid, company_uuid, name, email FROM app_user WHERE uuid = $1`,
      [uuid],
    );
    return row;
  }

  /** An agent's grants, newest first. */
  listOf(agentUuid: string): Promise<GrantRow[]> {
    return this.em.query(
      `SELECT grant_id, agent_uuid, client_id, client_name, redirect_host, created_at, last_used_at FROM oauth_grant
        WHERE agent_uuid = $1 ORDER BY created_at DESC, grant_id`,
      [agentUuid],
    );
  }

  /** Whether the grant is bound to this agent. */
  async isOf(grantId: string, agentUuid: string): Promise<boolean> {
    const rows: Array<{ grant_id: string }> = await this.em.query(`SELECT grant_id FROM oauth_grant WHERE grant_id = $1 AND agent_uuid = $2`, [grantId, agentUuid]);
    return rows.length > 0;
  }

  /** Everything of one grant — its tokens and codes, and its binding — at once; whether the binding existed. */
  deleteWithRecords(grantId: string): Promise<boolean> {
    return this.transaction(async (grants) => {
      await grants.em.query(`DELETE FROM oauth_payload WHERE grant_id = $1`, [grantId]);
      const gone: Array<{ grant_id: string }> = await grants.em.query(`WITH d AS (DELETE FROM oauth_grant WHERE grant_id = $1 RETURNING grant_id) SELECT grant_id FROM d`, [grantId]);
      return gone.length > 0;
    });
  }

  /** The live agent a grant acts as (the grant still bound, the agent not archived), or undefined. One statement. */
  async credential(grantId: string): Promise<GrantCredentialRow | undefined> {
    const [row]: GrantCredentialRow[] = await this.em.query(
      `SELECT g.last_used_at, a.uuid AS agent_uuid, a.name AS agent_name, a.owner_uuid, a.preset, a.permissions,
              c.uuid AS company_uuid, c.name AS company_name
         FROM oauth_grant g JOIN agent a ON a.uuid = g.agent_uuid AND a.company_uuid = g.company_uuid
         JOIN company c ON c.uuid = a.company_uuid
        WHERE g.grant_id = $1 AND a.archived_at IS NULL`,
      [grantId],
    );
    return row;
  }

  /** The grant's `lastUsedAt`, stamped by the database clock. */
  async touch(grantId: string): Promise<void> {
    await this.em.query(`UPDATE oauth_grant SET last_used_at = now() WHERE grant_id = $1`, [grantId]);
  }
}
