import type { EntityManager } from 'typeorm';
import type { Actor, ActorType } from '../../shared/auth/actor.js';
import { matchesIdentity } from '../../shared/auth/identity-rule.js';
import { effectivePermissions, type Permission } from '../../shared/auth/permissions.js';
import { NotFoundError, ValidationError } from '../../shared/errors/app-error.js';
import { isUuid } from '../../shared/validation/uuid-param.pipe.js';
import { AgentRepository } from './agent.repository.js';

/*
 * What other modules read of identity inside their own transactions: who owns an agent (the identity rule,
 * docs/domain.md §3) and who may take an assignment.
 */

/** The agents `user` owns, of its company; with `among`, only those of that list. The one "owner of this agent" query. */
export function ownedAgentUuids(em: EntityManager, user: Pick<Actor, 'uuid' | 'companyUuid'>, among: readonly string[] | null = null): Promise<Set<string>> {
  return new AgentRepository(em).ownedBy(user, among);
}

/**
 * The identity rule against one record's `(type, uuid)` (an assignee, a creator). Only a user facing an agent needs
 * the lookup, so the common cases cost no query.
 */
export async function matchesActor(em: EntityManager, actor: Actor, who: { type: ActorType | null; uuid: string | null }): Promise<boolean> {
  if (actor.type === 'user' && who.type === 'agent' && who.uuid) return (await ownedAgentUuids(em, actor, [who.uuid])).size > 0;
  return matchesIdentity(actor, who);
}

/** An assignment target of the company: a user, or a non-archived agent holding `permission`. Returns its uuid. */
export async function requireAssignable(em: EntityManager, companyUuid: string, type: ActorType, uuid: unknown, permission: Permission): Promise<string> {
  if (type === 'agent') {
    const agent = isUuid(uuid) ? await new AgentRepository(em).find(companyUuid, uuid) : null;
    if (!agent) throw new NotFoundError('Agent');
    if (!effectivePermissions(agent.preset, agent.permissions).includes(permission)) {
      throw new ValidationError(`Agent "${agent.name}" does not have ${permission} permission`);
    }
    return agent.uuid;
  }
  const user = isUuid(uuid) ? await new AgentRepository(em).userOf(companyUuid, uuid) : null;
  if (!user) throw new NotFoundError('User');
  return user.uuid;
}
