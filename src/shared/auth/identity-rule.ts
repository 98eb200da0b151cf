import type { Actor, ActorType } from './actor.js';

/**
 * The assignee / creator identity rule (docs/domain.md §3): an agent matches records of itself or of its owner user;
 * a user matches records of itself or of any agent it owns. `ownedAgentUuids` is only needed for users.
 */
export function matchesIdentity(
  actor: Pick<Actor, 'type' | 'uuid' | 'ownerUuid'>,
  who: { type: ActorType | null; uuid: string | null },
  ownedAgentUuids: ReadonlySet<string> = new Set(),
): boolean {
  if (!who.type || !who.uuid) return false;
  if (who.type === actor.type && who.uuid === actor.uuid) return true;
  if (actor.type === 'agent') return who.type === 'user' && who.uuid === actor.ownerUuid;
  return who.type === 'agent' && ownedAgentUuids.has(who.uuid);
}

/**
 * SQL fragment for "mine" under the identity rule, for columns `<prefix>_type` / `<prefix>_uuid`.
 * Parameters: $n = actor uuid, $n+1 = owner uuid (agents) — for users, owned agents are matched by subquery.
 */
export function identitySql(actor: Pick<Actor, 'type' | 'uuid' | 'ownerUuid'>, prefix: string, firstParam: number): { sql: string; params: string[] } {
  const t = `${prefix}_type`;
  const u = `${prefix}_uuid`;
  if (actor.type === 'agent') {
    return {
      sql: `((${t} = 'agent' AND ${u} = $${firstParam}) OR (${t} = 'user' AND ${u} = $${firstParam + 1}))`,
      params: [actor.uuid, actor.ownerUuid ?? '00000000-0000-0000-0000-000000000000'],
    };
  }
  return {
    sql: `((${t} = 'user' AND ${u} = $${firstParam}) OR (${t} = 'agent' AND ${u} IN (SELECT uuid FROM agent WHERE owner_uuid = $${firstParam})))`,
    params: [actor.uuid],
  };
}
