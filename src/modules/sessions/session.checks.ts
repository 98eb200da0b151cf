import type { Actor } from '../../shared/auth/actor.js';
import { ForbiddenError, InvalidStateError, NotFoundError } from '../../shared/errors/app-error.js';
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
