import type { EntityManager } from 'typeorm';
import type { Actor, ActorType } from '../../shared/auth/actor.js';
import { matchesIdentity } from '../../shared/auth/identity-rule.js';

/**
 * The assignee identity rule (domain.md §3) against one assignee pair. Only a user facing an agent assignee needs a
 * lookup (does the user own that agent?), so the common cases cost no query.
 */
export async function isAssignee(em: EntityManager, actor: Actor, who: { type: ActorType | null; uuid: string | null }): Promise<boolean> {
  if (!who.type || !who.uuid) return false;
  if (actor.type === 'user' && who.type === 'agent') {
    const rows: unknown[] = await em.query(`SELECT 1 FROM agent WHERE uuid = $1 AND owner_uuid = $2 AND company_uuid = $3`, [
      who.uuid,
      actor.uuid,
      actor.companyUuid,
    ]);
    return rows.length > 0;
  }
  return matchesIdentity(actor, who);
}
