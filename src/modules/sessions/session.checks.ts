import type { Actor } from '../../shared/auth/actor.js';
import { ForbiddenError, InvalidStateError, NotFoundError, ValidationError } from '../../shared/errors/app-error.js';
import { charLength } from '../../shared/validation/text-rules.js';
import { isUuid } from '../../shared/validation/uuid-param.pipe.js';
import type { AgentSessionEntity } from './session.entity.js';
import type { SessionRepository } from './session.repository.js';

/** NOT_FOUND for a missing or foreign session, FORBIDDEN for another agent's. */
export async function ownSession(sessions: SessionRepository, actor: Actor, sessionUuid: string, lock = false): Promise<AgentSessionEntity> {
  const session = isUuid(sessionUuid) ? await sessions.find(actor.companyUuid, sessionUuid, lock) : null;
  if (!session) throw new NotFoundError('Session');
  if (actor.type !== 'agent' || session.agentUuid !== actor.uuid) throw new ForbiddenError('Session belongs to another agent');
  return session;
}

export function requireActive(session: Pick<AgentSessionEntity, 'status'>, operation: string): void {
  if (session.status !== 'active') throw new InvalidStateError(`Session is ${session.status}; ${operation} requires active`);
}

/** A session's name: 1–200 characters (code points) after trimming. Returns the trimmed name. */
export function sessionName(name: string): string {
  const t = name.trim();
  if (t === '' || charLength(t) > 200) throw new ValidationError('Name must be 1-200 characters');
  return t;
}
