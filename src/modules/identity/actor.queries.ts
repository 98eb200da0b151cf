import { IsNull, type EntityManager } from 'typeorm';
import type { Actor, ActorType } from '../../shared/auth/actor.js';
import { matchesIdentity } from '../../shared/auth/identity-rule.js';
import { effectivePermissions, type Permission } from '../../shared/auth/permissions.js';
import { NotFoundError, ValidationError } from '../../shared/errors/app-error.js';
import { isUuid } from '../../shared/validation/uuid-param.pipe.js';
import { AgentEntity, UserEntity } from './identity.entity.js';

/*
 * What other modules read of identity inside their own transactions: who owns an agent (the identity rule,
 * domain.md §3) and who may take an assignment.
 */

/** The agents `user` owns, of its company; with `among`, only those of that list. The one "owner of this agent" query. */
export async function ownedAgentUuids(em: EntityManager, user: Pick<Actor, 'uuid' | 'companyUuid'>, among: readonly string[] | null = null): Promise<Set<string>> {
  const rows: Array<{ uuid: string }> = await em.query(
    `SELECT uuid FROM agent WHERE owner_uuid = $1 AND company_uuid = $2 AND ($3::uuid[] IS NULL OR uuid = ANY($3::uuid[]))`,
    [user.uuid, user.companyUuid, among],
  );
  return new Set(rows.map((r) => r.uuid));
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
    const agent = isUuid(uuid) ? await em.findOne(AgentEntity, { where: { uuid, companyUuid, archivedAt: IsNull() } }) : null;
    if (!agent) throw new NotFoundError('Agent');
    if (!effectivePermissions(agent.preset, agent.permissions).includes(permission)) {
      throw new ValidationError(`Agent "${agent.name}" does not have ${permission} permission`);
    }
    return agent.uuid;
  }
  const user = isUuid(uuid) ? await em.findOne(UserEntity, { where: { uuid, companyUuid } }) : null;
  if (!user) throw new NotFoundError('User');
  return user.uuid;
}
