import type { ElaborationStatus, IdeaStatus } from '../idea.entity.js';

/** docs/domain.md §4.2: computed on read, never stored. */
export type DerivedStatus = 'todo' | 'in_progress' | 'human_conduct_required' | 'done';

/** Everything the rules need about one idea, read in one query (idea-facts.queries.ts). */
export interface IdeaStatusFacts {
  uuid: string;
  parentUuid: string | null;
  isContainer: boolean;
  status: IdeaStatus;
  elaborationStatus: ElaborationStatus | null;
  /** Some elaboration round of the idea is still `pending_answers`. */
  hasPendingRound: boolean;
  /** Some `pending` proposal lists the idea as input. */
  hasPendingProposal: boolean;
  /** Task counts of the latest `approved` proposal (by reviewedAt) listing the idea; null when there is none. */
  latestApproved: { total: number; toVerify: number; finished: number } | null;
}

/** The first matching row of §4.2 for one idea, given its children's derived statuses. */
export function derivedStatus(idea: Omit<IdeaStatusFacts, 'uuid' | 'parentUuid'>, children: readonly DerivedStatus[] = []): DerivedStatus {
  if (idea.isContainer && children.length > 0) {
    if (children.every((c) => c === 'done')) return 'done';
    if (children.every((c) => c === 'todo')) return 'todo';
    return 'in_progress';
  }
  switch (idea.status) {
    case 'open':
      return 'todo';
    case 'elaborating':
      return idea.elaborationStatus === 'pending_answers' ? 'human_conduct_required' : 'in_progress';
    case 'elaborated': {
      if (idea.hasPendingRound || idea.hasPendingProposal) return 'human_conduct_required';
      const latest = idea.latestApproved;
      if (latest && latest.toVerify > 0) return 'human_conduct_required';
      if (latest && latest.total > 0 && latest.finished === latest.total) return 'done';
      return 'in_progress';
    }
  }
}

/**
 * Derived status of every idea in `facts`, children first. A theme's children are the facts whose parent is the
 * theme, so `facts` must hold whole subtrees; a (corrupt) cycle is cut rather than looping.
 */
export function deriveAll(facts: Iterable<IdeaStatusFacts>): Map<string, DerivedStatus> {
  const byUuid = new Map<string, IdeaStatusFacts>();
  const children = new Map<string, string[]>();
  for (const f of facts) byUuid.set(f.uuid, f);
  for (const f of byUuid.values()) {
    if (f.parentUuid && byUuid.has(f.parentUuid)) {
      const list = children.get(f.parentUuid) ?? [];
      list.push(f.uuid);
      children.set(f.parentUuid, list);
    }
  }
  const result = new Map<string, DerivedStatus>();
  const visiting = new Set<string>();
  const visit = (uuid: string): DerivedStatus | null => {
    const done = result.get(uuid);
    if (done) return done;
    if (visiting.has(uuid)) return null;
    visiting.add(uuid);
    const kids = (children.get(uuid) ?? []).map(visit).filter((s): s is DerivedStatus => s !== null);
    const status = derivedStatus(byUuid.get(uuid)!, kids);
    visiting.delete(uuid);
    result.set(uuid, status);
    return status;
  };
  for (const uuid of byUuid.keys()) visit(uuid);
  return result;
}
