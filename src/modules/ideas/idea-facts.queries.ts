import type { EntityManager } from 'typeorm';
import { deriveAll, type DerivedStatus, type IdeaStatusFacts } from './domain/derived-status.js';
import type { ElaborationStatus, IdeaStatus } from './idea.entity.js';

export interface IdeaFacts extends IdeaStatusFacts {
  /** `pending` and `approved` proposals listing the idea (idea tracker). */
  proposalCount: number;
  /** Tasks of the latest approved proposal listing the idea (idea tracker). */
  taskCount: number;
}

/**
 * One query for the derived status of some ideas: the ideas plus their whole descendant subtrees (themes derive
 * from their children), each with its pending round, proposal and latest-approved-task facts. `UNION` (not ALL)
 * keeps a corrupt parent cycle from recursing forever.
 */
const FACTS_SQL = `
WITH RECURSIVE tree AS (
  SELECT i.uuid, i.parent_uuid, i.is_container, i.status, i.elaboration_status
  FROM idea i WHERE i.company_uuid = $1 AND i.uuid = ANY($2::uuid[])
  UNION
  SELECT c.uuid, c.parent_uuid, c.is_container, c.status, c.elaboration_status
  FROM idea c JOIN tree t ON c.parent_uuid = t.uuid WHERE c.company_uuid = $1
)
SELECT t.uuid, t.parent_uuid, t.is_container, t.status, t.elaboration_status,
  EXISTS (SELECT 1 FROM elaboration_round r WHERE r.idea_uuid = t.uuid AND r.status = 'pending_answers') AS has_pending_round,
  pc.pending_count, pc.active_count,
  la.uuid AS latest_uuid, lt.total, lt.to_verify, lt.finished
FROM tree t
LEFT JOIN LATERAL (
  SELECT count(*) FILTER (WHERE p.status = 'pending')::int AS pending_count,
         count(*) FILTER (WHERE p.status IN ('pending', 'approved'))::int AS active_count
  FROM proposal p
  WHERE p.company_uuid = $1 AND p.input_type = 'idea' AND p.input_uuids @> ARRAY[t.uuid]
) pc ON true
LEFT JOIN LATERAL (
  SELECT p.uuid FROM proposal p
  WHERE p.company_uuid = $1 AND p.status = 'approved' AND p.input_type = 'idea' AND p.input_uuids @> ARRAY[t.uuid]
  ORDER BY p.reviewed_at DESC NULLS LAST, p.uuid DESC LIMIT 1
) la ON true
LEFT JOIN LATERAL (
  SELECT count(*)::int AS total,
         count(*) FILTER (WHERE k.status = 'to_verify')::int AS to_verify,
         count(*) FILTER (WHERE k.status IN ('done', 'closed'))::int AS finished
  FROM task k WHERE k.company_uuid = $1 AND k.proposal_uuid = la.uuid
) lt ON true`;

interface FactsRow {
  uuid: string;
  parent_uuid: string | null;
  is_container: boolean;
  status: IdeaStatus;
  elaboration_status: ElaborationStatus | null;
  has_pending_round: boolean;
  pending_count: number;
  active_count: number;
  latest_uuid: string | null;
  total: number;
  to_verify: number;
  finished: number;
}

/** Facts of the given ideas and all their descendants, keyed by uuid (other companies' ideas are never read). */
export async function loadIdeaFacts(em: EntityManager, companyUuid: string, ideaUuids: readonly string[]): Promise<Map<string, IdeaFacts>> {
  const out = new Map<string, IdeaFacts>();
  if (!ideaUuids.length) return out;
  const rows: FactsRow[] = await em.query(FACTS_SQL, [companyUuid, [...new Set(ideaUuids)]]);
  for (const r of rows) {
    out.set(r.uuid, {
      uuid: r.uuid,
      parentUuid: r.parent_uuid,
      isContainer: r.is_container,
      status: r.status,
      elaborationStatus: r.elaboration_status,
      hasPendingRound: r.has_pending_round,
      hasPendingProposal: r.pending_count > 0,
      latestApproved: r.latest_uuid ? { total: r.total, toVerify: r.to_verify, finished: r.finished } : null,
      proposalCount: r.active_count,
      taskCount: r.latest_uuid ? r.total : 0,
    });
  }
  return out;
}

/** Facts plus derived status and direct child count for the given ideas. */
export interface IdeaStatusView {
  facts: Map<string, IdeaFacts>;
  derived: Map<string, DerivedStatus>;
  childCount(uuid: string): number;
}

export async function loadIdeaStatusView(em: EntityManager, companyUuid: string, ideaUuids: readonly string[]): Promise<IdeaStatusView> {
  const facts = await loadIdeaFacts(em, companyUuid, ideaUuids);
  const derived = deriveAll(facts.values());
  const counts = new Map<string, number>();
  for (const f of facts.values()) if (f.parentUuid) counts.set(f.parentUuid, (counts.get(f.parentUuid) ?? 0) + 1);
  return { facts, derived, childCount: (uuid) => counts.get(uuid) ?? 0 };
}
