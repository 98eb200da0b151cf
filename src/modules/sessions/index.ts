export { AgentSessionEntity, SessionTaskCheckinEntity } from './session.entity.js';
export { SessionModule } from './session.module.js';
export { SessionService, type CheckinResult, type SessionList } from './session.service.js';
export type { SessionRecord } from './session.records.js';
