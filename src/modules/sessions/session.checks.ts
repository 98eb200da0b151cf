import type { EntityManager } from 'typeorm';
import type { Actor } from '../../shared/auth/actor.js';
import { findInCompany } from '../../shared/database/tenant.js';
import { ForbiddenError, InvalidStateError, NotFoundError } from '../../shared/errors/app-error.js';
import { isUuid } from '../../shared/validation/uuid-param.pipe.js';
import { AgentSessionEntity } from './session.entity.js';

/** NOT_FOUND for a missing or foreign session, FORBIDDEN for another agent's. */
export async function ownSession(em: EntityManager, actor: Actor, sessionUuid: string, lock = false): Promise<AgentSessionEntity> {
  if (!isUuid(sessionUuid)) throw new NotFoundError('Session');
  const session = await findInCompany(em, AgentSessionEntity, sessionUuid, actor.companyUuid, 'Session', lock);
  if (actor.type !== 'agent' || session.agentUuid !== actor.uuid) throw new ForbiddenError('Session belongs to another agent');
  return session;
}

export function requireActive(session: Pick<AgentSessionEntity, 'status'>, operation: string): void {
  if (session.status !== 'active') throw new InvalidStateError(`Session is ${session.status}; ${operation} requires active`);
}
