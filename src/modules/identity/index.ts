export { IdentityModule } from './identity.module.js';
export { AuthService, agentAuthContext } from './auth.service.js';
export type { AgentCredentialRow } from './agent.repository.js';
export { AgentService, parsePermissions, parsePreset, type AgentManager } from './agent.service.js';
export { IdentityAdminService } from './identity-admin.service.js';
export type { AgentEntity, UserEntity, CompanyEntity, AgentApiKeyEntity } from './identity.entity.js';
export { matchesActor, ownedAgentUuids, requireAssignable } from './actor.queries.js';
export { generatePassword } from './domain/credentials.js';
export type { AgentRecord, ApiKeyRecord } from './agent.records.js';
