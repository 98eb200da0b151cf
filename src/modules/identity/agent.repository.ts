import { In, IsNull } from 'typeorm';
import { preparedQuery } from '../../shared/database/prepared.js';
import { Repository } from '../../shared/database/repository.js';
import { AgentApiKeyEntity, AgentEntity, UserEntity } from './identity.entity.js';

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

/** An API key's lookup: the agent it acts as, and when the key was last used. */
export interface ApiKeyCredentialRow extends AgentCredentialRow {
  key_uuid: string;
  last_used_at: Date | null;
}

/** An OAuth grant of one of the company's agents (written by the oauth module at consent), as the agents listing shows it. */
export interface AgentGrantRow {
  agent_uuid: string;
  grant_id: string;
  client_name: string;
  redirect_host: string;
  created_at: Date;
  last_used_at: Date | null;
}

/** The columns a new agent row is given; the timestamps take their defaults. */
export type NewAgentRow = Pick<AgentEntity, 'uuid' | 'companyUuid' | 'ownerUuid' | 'name' | 'preset' | 'permissions' | 'lastActiveAt' | 'archivedAt'>;
/** The columns a new API key row is given. */
export type NewApiKeyRow = Pick<AgentApiKeyEntity, 'uuid' | 'companyUuid' | 'agentUuid' | 'name' | 'keyHash' | 'keyPrefix' | 'expiresAt' | 'revokedAt' | 'lastUsedAt'>;

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
const API_KEY_TOUCH = { name: 'svc_touch_api_key', text: `UPDATE agent_api_key SET last_used_at = $2 WHERE uuid = $1 AND revoked_at IS NULL` };

/**
 * Agents and their API keys (`agent`, `agent_api_key`: this module's tables, README "Table ownership"), with the
 * reads that go with them: their owners, the OAuth grants that act as them, and the credential lookup of every agent
 * request. Statements that start from a caller's uuid are scoped by company, except the operator's lookups by uuid
 * alone (the CLI names an agent or a key, and its company scopes what follows).
 */
export class AgentRepository extends Repository {
  // ---- agents ----

  /** The company's agents that are not archived, oldest first. */
  listActive(companyUuid: string): Promise<AgentEntity[]> {
    return this.em.find(AgentEntity, { where: { companyUuid, archivedAt: IsNull() }, order: { createdAt: 'ASC', uuid: 'ASC' } });
  }

  /** A non-archived agent of the company, or null; `lock` takes a row lock (FOR UPDATE). */
  find(companyUuid: string, uuid: string, lock = false): Promise<AgentEntity | null> {
    return this.em.findOne(AgentEntity, {
      where: { uuid, companyUuid, archivedAt: IsNull() },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
  }

  /** The agents `owner` owns, of its company; with `among`, only those of that list (the identity rule's one query). */
  async ownedBy(owner: { uuid: string; companyUuid: string }, among: readonly string[] | null): Promise<Set<string>> {
    const rows: Array<{ uuid: string }> = await this.em.query(
      `SELECT uuid FROM agent WHERE owner_uuid = $1 AND company_uuid = $2 AND ($3::uuid[] IS NULL OR uuid = ANY($3::uuid[]))`,
      [owner.uuid, owner.companyUuid, among],
    );
    return new Set(rows.map((r) => r.uuid));
  }

  /** A non-archived agent named by its uuid alone (the operator), or null. */
  findAnyCompany(uuid: string): Promise<AgentEntity | null> {
    return this.em.findOne(AgentEntity, { where: { uuid, archivedAt: IsNull() } });
  }

  /** Inserts a new agent; returns it as stored (timestamps included). */
  async insert(row: NewAgentRow): Promise<AgentEntity> {
    const agent = this.em.create(AgentEntity, row);
    await this.em.save(AgentEntity, agent);
    return agent;
  }

  /** Writes an agent's changed fields (name, preset, permissions, archivedAt). */
  async save(agent: AgentEntity): Promise<void> {
    await this.em.save(AgentEntity, agent);
  }

  /** The agent's activity (`lastActiveAt`). */
  async markActive(uuid: string, at: Date): Promise<void> {
    await this.em.update(AgentEntity, { uuid }, { lastActiveAt: at });
  }

  // ---- owners ----

  /** A user of the company (a new agent's owner, an assignee), or null. */
  userOf(companyUuid: string, uuid: string): Promise<UserEntity | null> {
    return this.em.findOne(UserEntity, { where: { uuid, companyUuid } });
  }

  /** The owner of an agent already found. */
  owner(uuid: string): Promise<UserEntity> {
    return this.em.findOneByOrFail(UserEntity, { uuid });
  }

  /** The owners of these agents, by uuid. */
  async owners(agents: readonly AgentEntity[]): Promise<Map<string, UserEntity>> {
    const ids = [...new Set(agents.map((a) => a.ownerUuid))];
    const users = ids.length ? await this.em.find(UserEntity, { where: { uuid: In(ids) } }) : [];
    return new Map(users.map((u) => [u.uuid, u]));
  }

  /** The OAuth grants of the company's agents, newest first (oauth's table, read only). */
  grantsOf(companyUuid: string): Promise<AgentGrantRow[]> {
    return this.em.query(
      `SELECT agent_uuid, grant_id, client_name, redirect_host, created_at, last_used_at FROM oauth_grant
        WHERE company_uuid = $1 ORDER BY created_at DESC, grant_id`,
      [companyUuid],
    );
  }

  // ---- API keys ----

  /** Inserts a new key; returns it as stored. */
  async insertKey(row: NewApiKeyRow): Promise<AgentApiKeyEntity> {
    const key = this.em.create(AgentApiKeyEntity, row);
    await this.em.save(AgentApiKeyEntity, key);
    return key;
  }

  /** An agent's keys, newest first. */
  keysOf(agentUuid: string): Promise<AgentApiKeyEntity[]> {
    return this.em.find(AgentApiKeyEntity, { where: { agentUuid }, order: { createdAt: 'DESC', uuid: 'ASC' } });
  }

  /** A key of the company (of `agentUuid` when given) with a row lock, or null. */
  lockKey(companyUuid: string, uuid: string, agentUuid: string | null): Promise<AgentApiKeyEntity | null> {
    return this.em.findOne(AgentApiKeyEntity, {
      where: { uuid, companyUuid, ...(agentUuid !== null ? { agentUuid } : {}) },
      lock: { mode: 'pessimistic_write' },
    });
  }

  /** A key named by its uuid alone (the operator), or null. */
  findKeyAnyCompany(uuid: string): Promise<AgentApiKeyEntity | null> {
    return this.em.findOne(AgentApiKeyEntity, { where: { uuid } });
  }

  /** Writes a key's changed fields (its revocation). */
  async saveKey(key: AgentApiKeyEntity): Promise<void> {
    await this.em.save(AgentApiKeyEntity, key);
  }

  /** Revokes every key of the agent still live (the agent is archived). */
  async revokeKeysOf(agentUuid: string, at: Date): Promise<void> {
    await this.em.update(AgentApiKeyEntity, { agentUuid, revokedAt: IsNull() }, { revokedAt: at });
  }

  // ---- the credential lookup of every agent request ----

  /**
   * The live key with this hash and the live agent it acts as, or undefined: the prepared `svc_resolve_api_key`,
   * straight on the pool outside a transaction (shared/database/prepared.ts).
   */
  async credentialByKeyHash(keyHash: string): Promise<ApiKeyCredentialRow | undefined> {
    const [row] = await preparedQuery<ApiKeyCredentialRow>(this.em, API_KEY_LOOKUP, [keyHash]);
    return row;
  }

  /** A key's `lastUsedAt` (prepared: `svc_touch_api_key`). */
  async touchKey(uuid: string, at: Date): Promise<void> {
    await preparedQuery(this.em, API_KEY_TOUCH, [uuid, at]);
  }
}
