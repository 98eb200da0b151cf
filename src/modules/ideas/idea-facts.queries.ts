import type { EntityManager } from 'typeorm';
import { deriveAll, type DerivedStatus, type IdeaStatusFacts } from './domain/derived-status.js';
import { IdeaRepository } from './idea.repository.js';

export interface IdeaFacts extends IdeaStatusFacts {
  /** `pending` and `approved` proposals listing the idea (idea tracker). */
  proposalCount: number;
  /** Tasks of the latest approved proposal listing the idea (idea tracker). */
  taskCount: number;
}

/** Facts of the given ideas and all their descendants, keyed by uuid (other companies' ideas are never read). */
export function loadIdeaFacts(em: EntityManager, companyUuid: string, ideaUuids: readonly string[]): Promise<Map<string, IdeaFacts>> {
  return ideaFacts(new IdeaRepository(em), companyUuid, ideaUuids);
}

async function ideaFacts(ideas: IdeaRepository, companyUuid: string, ideaUuids: readonly string[]): Promise<Map<string, IdeaFacts>> {
  const out = new Map<string, IdeaFacts>();
  if (!ideaUuids.length) return out;
  for (const r of await ideas.facts(companyUuid, ideaUuids)) {
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

export async function loadIdeaStatusView(ideas: IdeaRepository, companyUuid: string, ideaUuids: readonly string[]): Promise<IdeaStatusView> {
  const facts = await ideaFacts(ideas, companyUuid, ideaUuids);
  const derived = deriveAll(facts.values());
  const counts = new Map<string, number>();
  for (const f of facts.values()) if (f.parentUuid) counts.set(f.parentUuid, (counts.get(f.parentUuid) ?? 0) + 1);
  return { facts, derived, childCount: (uuid) => counts.get(uuid) ?? 0 };
}
