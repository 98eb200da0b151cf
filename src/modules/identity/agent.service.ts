import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { DataSource, type EntityManager } from 'typeorm';
import { canonicalPermissions, isPermission, isPreset, type Permission, type Preset } from '../../shared/auth/permissions.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../shared/errors/app-error.js';
import { dispatchTxEvent } from '../../shared/events/tx-events.js';
import { isUuid } from '../../shared/validation/uuid-param.pipe.js';
import type { AgentEntity } from './identity.entity.js';
import { AgentRepository } from './agent.repository.js';
import { newApiKey } from './domain/credentials.js';
import { toAgentRecord, toApiKeyRecord, type AgentRecord, type ApiKeyRecord } from './agent.records.js';

export interface AgentChanges {
  name?: string;
  preset?: string;
  permissions?: string[];
}

/** An OAuth grant as the agents listing shows it. */
export interface AgentGrantSummary {
  grantId: string;
  clientName: string;
  redirectHost: string;
  createdAt: string;
  lastUsedAt: string | null;
}

/** Who manages agents: a user of the company (REST), or the operator (CLI, no owner check). */
export interface AgentManager {
  companyUuid: string;
  /** Null for the operator. */
  userUuid: string | null;
}

export function parsePreset(value: unknown): Preset {
  if (!isPreset(value)) throw new ValidationError(`Invalid preset: ${String(value)}`);
  return value;
}

export function parsePermissions(values: unknown[]): Permission[] {
  for (const v of values) if (!isPermission(v)) throw new ValidationError(`Invalid permission: ${String(v)}`);
  return canonicalPermissions(values as Permission[]);
}

function cleanName(name: string, max = 200): string {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > max) throw new ValidationError(`Name must be 1-${max} characters`, [{ field: 'name', message: `must be 1-${max} characters` }]);
  return trimmed;
}

/** Agents and their API keys (docs/platform.md §3): any user of the company reads; only the owner changes. */
@Injectable()
export class AgentService {
  constructor(
    private readonly db: DataSource,
    private readonly agents: AgentRepository,
    private readonly events: EventEmitter2,
  ) {}

  /** The company's agents, each with the OAuth grants that act as it (docs/platform.md §2.5: the listing shows them). */
  async list(m: AgentManager): Promise<Array<AgentRecord & { grants: AgentGrantSummary[] }>> {
    const agents = await this.agents.listActive(m.companyUuid);
    const owners = await this.agents.owners(agents);
    const grants = await this.grantsOf(m.companyUuid);
    return agents.map((a) => ({ ...toAgentRecord(a, owners.get(a.ownerUuid)!), grants: grants.get(a.uuid) ?? [] }));
  }

  /** The OAuth grants of a company's agents (written by the oauth module at consent), by agent. */
  private async grantsOf(companyUuid: string): Promise<Map<string, AgentGrantSummary[]>> {
    const out = new Map<string, AgentGrantSummary[]>();
    for (const r of await this.agents.grantsOf(companyUuid)) {
      const list = out.get(r.agent_uuid) ?? [];
      list.push({ grantId: r.grant_id, clientName: r.client_name, redirectHost: r.redirect_host, createdAt: r.created_at.toISOString(), lastUsedAt: r.last_used_at ? r.last_used_at.toISOString() : null });
      out.set(r.agent_uuid, list);
    }
    return out;
  }

  /**
   * svc_checkin's identity part: records the agent's activity (`lastActiveAt`) and returns who it is, with its
   * effective permissions re-read from its row and its owner.
   */
  async checkin(companyUuid: string, agentUuid: string): Promise<{ uuid: string; name: string; permissions: string[]; owner: { uuid: string; name: string; email: string } }> {
    const agent = await this.find(this.agents, { companyUuid, userUuid: null }, agentUuid);
    agent.lastActiveAt = new Date();
    await this.agents.markActive(agent.uuid, agent.lastActiveAt);
    const record = await this.record(this.agents, agent);
    return { uuid: record.uuid, name: record.name, permissions: record.effectivePermissions, owner: record.owner };
  }

  async get(m: AgentManager, uuid: string): Promise<AgentRecord> {
    const agent = await this.find(this.agents, m, uuid);
    return this.record(this.agents, agent);
  }

  /** `em`: the caller's transaction, when the agent must commit or roll back with its other writes (an OAuth consent). */
  async create(m: AgentManager, ownerUuid: string, input: { name: string; preset?: string; permissions?: string[] }, em?: EntityManager): Promise<AgentRecord> {
    const preset = parsePreset(input.preset ?? 'developer_agent');
    const permissions = parsePermissions(input.permissions ?? []);
    const name = cleanName(input.name);
    const agents = em ? this.agents.in({ manager: em }) : this.agents;
    const owner = await agents.userOf(m.companyUuid, ownerUuid);
    if (!owner) throw new NotFoundError('User');
    const agent = await agents.insert({
      uuid: randomUUID(),
      companyUuid: m.companyUuid,
      ownerUuid,
      name,
      preset,
      permissions,
      lastActiveAt: null,
      archivedAt: null,
    });
    return toAgentRecord(agent, owner);
  }

  async update(m: AgentManager, uuid: string, changes: AgentChanges): Promise<AgentRecord> {
    const preset = changes.preset !== undefined ? parsePreset(changes.preset) : undefined;
    const permissions = changes.permissions !== undefined ? parsePermissions(changes.permissions) : undefined;
    const name = changes.name !== undefined ? cleanName(changes.name) : undefined;
    return this.agents.transaction(async (agents) => {
      const agent = await this.findOwned(agents, m, uuid, true);
      if (name !== undefined) agent.name = name;
      if (preset !== undefined) agent.preset = preset;
      if (permissions !== undefined) agent.permissions = permissions;
      await agents.save(agent);
      return this.record(agents, agent);
    });
  }

  /**
   * Archive (docs/platform.md §3 / docs/domain.md §8): keys revoked, sessions closed, assignments kept. The sessions module
   * closes them on the transaction's manager (`agent.archiving`), hence a transaction of the data source.
   */
  async archive(m: AgentManager, uuid: string): Promise<{ uuid: string; deleted: true }> {
    await this.db.transaction(async (manager) => {
      const agents = this.agents.in({ manager });
      const agent = await this.findOwned(agents, m, uuid, true);
      const now = new Date();
      agent.archivedAt = now;
      await agents.save(agent);
      await agents.revokeKeysOf(uuid, now);
      await dispatchTxEvent(this.events, manager, 'agent.archiving', { agentUuid: uuid });
    });
    return { uuid, deleted: true };
  }

  async createKey(m: AgentManager, agentUuid: string, input: { name?: string | null; expiresAt?: Date | null }): Promise<{ key: string; apiKey: ApiKeyRecord }> {
    if (input.expiresAt && input.expiresAt.getTime() <= Date.now()) {
      throw new ValidationError('expiresAt must be in the future', [{ field: 'expiresAt', message: 'must be in the future' }]);
    }
    const name = input.name == null ? null : input.name.trim() || null;
    if (name && name.length > 100) throw new ValidationError('Key name must be at most 100 characters', [{ field: 'name', message: 'must be at most 100 characters' }]);
    const agent = await this.findOwned(this.agents, m, agentUuid, false);
    const { key, hash, prefix } = newApiKey();
    const entity = await this.agents.insertKey({
      uuid: randomUUID(),
      companyUuid: agent.companyUuid,
      agentUuid: agent.uuid,
      name,
      keyHash: hash,
      keyPrefix: prefix,
      expiresAt: input.expiresAt ?? null,
      revokedAt: null,
      lastUsedAt: null,
    });
    return { key, apiKey: toApiKeyRecord(entity) };
  }

  async listKeys(m: AgentManager, agentUuid: string): Promise<ApiKeyRecord[]> {
    await this.find(this.agents, m, agentUuid);
    return (await this.agents.keysOf(agentUuid)).map(toApiKeyRecord);
  }

  /** Idempotent; a key of another agent is "not found". With `agentUuid` null (operator), any key of the company. */
  async revokeKey(m: AgentManager, agentUuid: string | null, keyUuid: string): Promise<ApiKeyRecord> {
    return this.agents.transaction(async (agents) => {
      if (agentUuid !== null) await this.findOwned(agents, m, agentUuid, false);
      const key = await agents.lockKey(m.companyUuid, keyUuid, agentUuid);
      if (!key) throw new NotFoundError('API key');
      if (!key.revokedAt) {
        key.revokedAt = new Date();
        await agents.saveKey(key);
      }
      return toApiKeyRecord(key);
    });
  }

  /** The operator (CLI) names an agent by uuid alone; its company scopes everything after. */
  async operatorScopeOfAgent(agentUuid: string): Promise<AgentManager> {
    const agent = isUuid(agentUuid) ? await this.agents.findAnyCompany(agentUuid) : null;
    if (!agent) throw new NotFoundError('Agent');
    return { companyUuid: agent.companyUuid, userUuid: null };
  }

  /** As operatorScopeOfAgent, for a key named by uuid alone. */
  async operatorScopeOfKey(keyUuid: string): Promise<AgentManager> {
    const key = isUuid(keyUuid) ? await this.agents.findKeyAnyCompany(keyUuid) : null;
    if (!key) throw new NotFoundError('API key');
    return { companyUuid: key.companyUuid, userUuid: null };
  }

  private async find(agents: AgentRepository, m: AgentManager, uuid: string, lock = false): Promise<AgentEntity> {
    const agent = await agents.find(m.companyUuid, uuid, lock);
    if (!agent) throw new NotFoundError('Agent');
    return agent;
  }

  private async findOwned(agents: AgentRepository, m: AgentManager, uuid: string, lock: boolean): Promise<AgentEntity> {
    const agent = await this.find(agents, m, uuid, lock);
    if (m.userUuid !== null && agent.ownerUuid !== m.userUuid) throw new ForbiddenError("Only the agent's owner can manage it");
    return agent;
  }

  private async record(agents: AgentRepository, agent: AgentEntity): Promise<AgentRecord> {
    return toAgentRecord(agent, await agents.owner(agent.ownerUuid));
  }
}
