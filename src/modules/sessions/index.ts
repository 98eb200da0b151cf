// What other modules may use of sessions: the in-transaction steps on its tables and its record types. The
// SessionsModule and SessionService are left out on purpose: they build on the tasks module (a check-in claims its
// task), which itself calls these steps, so the app root imports them from their files.
export { checkOutTaskCheckins, closeAgentSessions, deleteTaskCheckins, useSessionForCall } from './session.steps.js';
export type { AgentSessionEntity, SessionTaskCheckinEntity } from './session.entity.js';
export type { SessionRecord } from './session.records.js';
