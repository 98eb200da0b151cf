import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { ForbiddenError, NotFoundError } from '../../shared/errors/app-error.js';
import { AgentService } from '../identity/index.js';
import { OAuthGrantRepository, type GrantBinding, type GrantRow } from './oauth-grant.repository.js';

/** A grant as its owner sees it (docs/platform.md §2.5). */
export interface GrantRecord {
  grantId: string;
  agentUuid: string;
  clientId: string;
  clientName: string;
  redirectHost: string;
  createdAt: string;
  lastUsedAt: string | null;
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
    private readonly grants: OAuthGrantRepository,
    private readonly agents: AgentService,
  ) {}

  /**
   * Runs a consent's writes in one transaction (the new agent, if any, and the binding commit or roll back together):
   * identity's and this module's rows, hence a transaction of the data source.
   */
  transaction<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  /** `em`: the consent's transaction. */
  async bind(g: GrantBinding, em?: EntityManager): Promise<void> {
    await (em ? this.grants.in({ manager: em }) : this.grants).bind(g);
  }

  /** The signed-in user of an interaction (its company scopes the consent). */
  async userOf(userUuid: string): Promise<{ uuid: string; companyUuid: string; name: string; email: string }> {
    const row = await this.grants.user(userUuid);
    if (!row) throw new NotFoundError('User');
    return { uuid: row.uuid, companyUuid: row.company_uuid, name: row.name, email: row.email };
  }

  /** The owner's view of an agent's grants (another company's agent is NOT_FOUND, someone else's FORBIDDEN). */
  async list(m: { companyUuid: string; userUuid: string | null }, agentUuid: string): Promise<GrantRecord[]> {
    await this.owned(m, agentUuid);
    return this.listOf(agentUuid);
  }

  async listOf(agentUuid: string): Promise<GrantRecord[]> {
    return (await this.grants.listOf(agentUuid)).map(toRecord);
  }

  /** Revokes one grant of the agent: its tokens stop at once. */
  async revoke(m: { companyUuid: string; userUuid: string | null }, agentUuid: string, grantId: string): Promise<{ grantId: string; revoked: true }> {
    await this.owned(m, agentUuid);
    if (!(await this.grants.isOf(grantId, agentUuid)) || !(await this.grants.deleteWithRecords(grantId))) throw new NotFoundError('Grant');
    return { grantId, revoked: true };
  }

  /** The operator (CLI) revokes a grant by its id alone. */
  async revokeById(grantId: string): Promise<{ grantId: string; revoked: true }> {
    if (!(await this.grants.deleteWithRecords(grantId))) throw new NotFoundError('Grant');
    return { grantId, revoked: true };
  }

  private async owned(m: { companyUuid: string; userUuid: string | null }, agentUuid: string): Promise<void> {
    const agent = await this.agents.get({ companyUuid: m.companyUuid, userUuid: m.userUuid }, agentUuid);
    if (m.userUuid !== null && agent.owner.uuid !== m.userUuid) throw new ForbiddenError("Only the agent's owner can manage it");
  }
}
