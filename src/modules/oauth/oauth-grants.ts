import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { ForbiddenError, NotFoundError } from '../../shared/errors/app-error.js';
import { AgentService } from '../identity/index.js';
import { deleteGrant } from './oauth-store.js';

/** A grant as its owner sees it (platform.md §2.5). */
export interface GrantRecord {
  grantId: string;
  agentUuid: string;
  clientId: string;
  clientName: string;
  redirectHost: string;
  createdAt: string;
  lastUsedAt: string | null;
}

interface GrantRow {
  grant_id: string;
  agent_uuid: string;
  client_id: string;
  client_name: string;
  redirect_host: string;
  created_at: Date;
  last_used_at: Date | null;
}

const toRecord = (r: GrantRow): GrantRecord => ({
  grantId: r.grant_id,
  agentUuid: r.agent_uuid,
  clientId: r.client_id,
  clientName: r.client_name,
  redirectHost: r.redirect_host,
  createdAt: r.created_at.toISOString(),
  lastUsedAt: r.last_used_at ? r.last_used_at.toISOString() : null,
});

/** Grants bound to agents: written at consent, listed and revoked by the agent's owner (REST) or the operator (CLI). */
@Injectable()
export class OAuthGrants {
  constructor(
    private readonly db: DataSource,
    private readonly agents: AgentService,
  ) {}

  /** Runs a consent's writes in one transaction (the new agent, if any, and the binding commit or roll back together). */
  transaction<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  async bind(
    g: { grantId: string; companyUuid: string; agentUuid: string; userUuid: string; clientId: string; clientName: string; redirectHost: string },
    em: EntityManager = this.db.manager,
  ): Promise<void> {
    await em.query(
      `INSERT INTO oauth_grant (grant_id, company_uuid, agent_uuid, user_uuid, client_id, client_name, redirect_host)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (grant_id) DO UPDATE SET agent_uuid = EXCLUDED.agent_uuid, client_name = EXCLUDED.client_name, redirect_host = EXCLUDED.redirect_host`,
      [g.grantId, g.companyUuid, g.agentUuid, g.userUuid, g.clientId, g.clientName.slice(0, 200), g.redirectHost.slice(0, 255)],
    );
  }

  /** The signed-in user of an interaction (its company scopes the consent). */
  async userOf(userUuid: string): Promise<{ uuid: string; companyUuid: string; name: string; email: string }> {
    const [row]: Array<{ uuid: string; company_uuid: string; name: string; email: string }> = await this.db.query(
      `SELECT uuid, company_uuid, name, email FROM app_user WHERE uuid = $1`,
      [userUuid],
    );
    if (!row) throw new NotFoundError('User');
    return { uuid: row.uuid, companyUuid: row.company_uuid, name: row.name, email: row.email };
  }

  /** The owner's view of an agent's grants (another company's agent is NOT_FOUND, someone else's FORBIDDEN). */
  async list(m: { companyUuid: string; userUuid: string | null }, agentUuid: string): Promise<GrantRecord[]> {
    await this.owned(m, agentUuid);
    return this.listOf(agentUuid);
  }

  async listOf(agentUuid: string): Promise<GrantRecord[]> {
    const rows: GrantRow[] = await this.db.query(
      `SELECT grant_id, agent_uuid, client_id, client_name, redirect_host, created_at, last_used_at FROM oauth_grant
        WHERE agent_uuid = $1 ORDER BY created_at DESC, grant_id`,
      [agentUuid],
    );
    return rows.map(toRecord);
  }

  /** Revokes one grant of the agent: its tokens stop at once. */
  async revoke(m: { companyUuid: string; userUuid: string | null }, agentUuid: string, grantId: string): Promise<{ grantId: string; revoked: true }> {
    await this.owned(m, agentUuid);
    const [row]: Array<{ grant_id: string }> = await this.db.query(`SELECT grant_id FROM oauth_grant WHERE grant_id = $1 AND agent_uuid = $2`, [grantId, agentUuid]);
    if (!row || !(await deleteGrant(this.db, grantId))) throw new NotFoundError('Grant');
    return { grantId, revoked: true };
  }

  /** The operator (CLI) revokes a grant by its id alone. */
  async revokeById(grantId: string): Promise<{ grantId: string; revoked: true }> {
    if (!(await deleteGrant(this.db, grantId))) throw new NotFoundError('Grant');
    return { grantId, revoked: true };
  }

  private async owned(m: { companyUuid: string; userUuid: string | null }, agentUuid: string): Promise<void> {
    const agent = await this.agents.get({ companyUuid: m.companyUuid, userUuid: m.userUuid }, agentUuid);
    if (m.userUuid !== null && agent.owner.uuid !== m.userUuid) throw new ForbiddenError("Only the agent's owner can manage it");
  }
}
