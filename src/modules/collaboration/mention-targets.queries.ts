import type { EntityManager } from 'typeorm';
import type { Actor } from '../../shared/auth/actor.js';
import type { MentionTarget } from './domain/mentions.js';
import { MentionRepository } from './mention.repository.js';

/**
 * Keeps the targets that may be mentioned (docs/notifications.md §5): users and non-archived agents of the company,
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
  const mentions = new MentionRepository(em);
  const users = new Set(userUuids.length ? await mentions.users(companyUuid, userUuids) : []);
  const agents = new Set(agentUuids.length ? await mentions.activeAgents(companyUuid, agentUuids) : []);
  return candidates.filter((t) => (t.type === 'user' ? users : agents).has(t.uuid));
}
