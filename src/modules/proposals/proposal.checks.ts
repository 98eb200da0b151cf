import type { EntityManager } from 'typeorm';
import { hasPermission, type Actor } from '../../shared/auth/actor.js';
import { matchesActor } from '../identity/index.js';
import type { FoundInputs } from './domain/proposal-validation.js';
import type { ProposalEntity } from './proposal.entity.js';
import type { InputIdea, ProposalRepository } from './proposal.repository.js';

/** Lookups and identity checks shared by the proposal use cases. */

/** Reject and revoke (docs/domain.md §5.1): the creator under the identity rule, or a holder of proposal:admin (users hold every bit). */
export async function mayReview(em: EntityManager, actor: Actor, p: ProposalEntity): Promise<boolean> {
  if (hasPermission(actor, 'proposal:admin')) return true;
  return matchesActor(em, actor, { type: p.createdByType, uuid: p.createdByUuid });
}

/** The proposal's inputs that still exist in its project, for E4/E5. */
export async function findInputs(proposals: ProposalRepository, p: ProposalEntity): Promise<FoundInputs> {
  const ideas = new Map<string, { title: string; isContainer: boolean; elaborationStatus: string | null }>();
  const documents = new Set<string>();
  if (p.inputUuids.length === 0) return { ideas, documents };
  if (p.inputType === 'idea') {
    for (const i of await proposals.inputIdeas(p, p.inputUuids)) ideas.set(i.uuid, { title: i.title, isContainer: i.isContainer, elaborationStatus: i.elaborationStatus });
  } else {
    for (const uuid of await proposals.inputDocuments(p, p.inputUuids)) documents.add(uuid);
  }
  return { ideas, documents };
}

/** "Already feeds another non-closed proposal" warnings for the create result. */
export async function feedWarnings(proposals: ProposalRepository, actor: Actor, ideas: ReadonlyArray<Pick<InputIdea, 'uuid' | 'title'>>): Promise<string[]> {
  const others = await proposals.fedBy(actor.companyUuid, ideas.map((i) => i.uuid));
  const warnings: string[] = [];
  for (const idea of ideas) {
    for (const o of others) {
      if (o.inputUuids.includes(idea.uuid)) warnings.push(`Idea "${idea.title}" already feeds proposal "${o.title}" (${o.status})`);
    }
  }
  return warnings;
}
