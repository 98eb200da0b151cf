import type { EntityManager } from 'typeorm';
import type { Actor } from '../../shared/auth/actor.js';
import type { MentionTarget } from './domain/mentions.js';

/**
 * Keeps the targets that may be mentioned (notifications.md §5): users and non-archived agents of the company,
 * never the actor itself. Order is preserved; anything else is dropped silently.
 */
export async function validMentionTargets(
  em: EntityManager,
  companyUuid: string,
  actor: Pick<Actor, 'type' | 'uuid'>,
  targets: readonly MentionTarget[],
): Promise<MentionTarget[]> {
  const candidates = targets.filter((t) => !(t.type === actor.type && t.uuid === actor.uuid.toLowerCase()));
  const userUuids = candidates.filter((t) => t.type === 'user').map((t) => t.uuid);
  const agentUuids = candidates.filter((t) => t.type === 'agent').map((t) => t.uuid);
  const users = new Set<string>();
  const agents = new Set<string>();
  if (userUuids.length) {
    const rows: Array<{ uuid: string }> = await em.query('SELECT uuid FROM app_user WHERE company_uuid = $1 AND uuid = ANY($2::uuid[])', [companyUuid, userUuids]);
    for (const r of rows) users.add(r.uuid);
  }
  if (agentUuids.length) {
    const rows: Array<{ uuid: string }> = await em.query(
      'SELECT uuid FROM agent WHERE company_uuid = $1 AND archived_at IS NULL AND uuid = ANY($2::uuid[])',
      [companyUuid, agentUuids],
    );
    for (const r of rows) agents.add(r.uuid);
  }
  return candidates.filter((t) => (t.type === 'user' ? users : agents).has(t.uuid));
}
