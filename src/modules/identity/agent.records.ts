import { effectivePermissions } from '../../shared/auth/permissions.js';
import type { AgentRecordDto, ApiKeyRecordDto } from './dto/agent-record.dto.js';
import type { AgentApiKeyEntity, AgentEntity, UserEntity } from './identity.entity.js';

/** An agent and an API key as the agent routes answer them, defined once by their response DTOs. */
export type AgentRecord = AgentRecordDto;
export type ApiKeyRecord = ApiKeyRecordDto;

export const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

export function toAgentRecord(agent: AgentEntity, owner: Pick<UserEntity, 'uuid' | 'name' | 'email'>): AgentRecord {
  return {
    uuid: agent.uuid,
    name: agent.name,
    preset: agent.preset,
    permissions: [...agent.permissions],
    effectivePermissions: effectivePermissions(agent.preset, agent.permissions),
    owner: { uuid: owner.uuid, name: owner.name, email: owner.email },
    lastActiveAt: iso(agent.lastActiveAt),
    createdAt: agent.createdAt.toISOString(),
    updatedAt: agent.updatedAt.toISOString(),
  };
}

export function toApiKeyRecord(key: AgentApiKeyEntity): ApiKeyRecord {
  return {
    uuid: key.uuid,
    name: key.name,
    keyPrefix: key.keyPrefix,
    createdAt: key.createdAt.toISOString(),
    expiresAt: iso(key.expiresAt),
    revokedAt: iso(key.revokedAt),
    lastUsedAt: iso(key.lastUsedAt),
  };
}
