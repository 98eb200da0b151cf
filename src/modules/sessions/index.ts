// Agent sessions and their task check-ins. The module builds on tasks (a check-in claims its task); what tasks and
// identity need from it when their mutations touch a session or a check-in, they ask for with in-transaction events
// (shared/events/tx-events.ts) that SessionReactions answers, so neither imports this module.
export { SessionsModule } from './sessions.module.js';
export type { AgentSessionEntity, SessionTaskCheckinEntity } from './session.entity.js';
export type { SessionRecord } from './session.records.js';
