export { AgentSessionEntity, SessionTaskCheckinEntity } from './session.entity.js';
