import { isUuid } from '../validation/uuid.js';
import type { NotificationMessage, RealtimeEvent, SessionEnded } from './events.js';

const ENTITY_TYPES: readonly string[] = ['task', 'idea', 'proposal', 'document'];
const ACTIONS: readonly string[] = ['created', 'updated', 'deleted'];

/** A relayed change event, rebuilt from exactly the five fields of §6.1; anything malformed is dropped (null). */
export function asChange(p: unknown): RealtimeEvent | null {
  const e = p as RealtimeEvent;
  if (!e || typeof e !== 'object' || !isUuid(e.companyUuid) || !isUuid(e.projectUuid) || !isUuid(e.entityUuid)) return null;
  if (!ENTITY_TYPES.includes(e.entityType) || !ACTIONS.includes(e.action)) return null;
  return { companyUuid: e.companyUuid, projectUuid: e.projectUuid, entityType: e.entityType, entityUuid: e.entityUuid, action: e.action };
}

/** A relayed notification frame for one recipient; anything malformed is dropped (null). */
export function asNotification(p: unknown): NotificationMessage | null {
  const m = p as NotificationMessage;
  if (!m || typeof m !== 'object' || (m.recipientType !== 'user' && m.recipientType !== 'agent') || !isUuid(String(m.recipientUuid))) return null;
  if (!m.frame || typeof m.frame !== 'object' || (m.frame.type !== 'new_notification' && m.frame.type !== 'count_update')) return null;
  return { recipientType: m.recipientType, recipientUuid: m.recipientUuid, frame: m.frame };
}

/** A relayed session-ended message; anything malformed is dropped (null). */
export function asSessionEnded(p: unknown): SessionEnded | null {
  const m = p as SessionEnded;
  if (!m || typeof m !== 'object' || !isUuid(String(m.sessionUuid))) return null;
  return { sessionUuid: m.sessionUuid.toLowerCase() };
}
