import { In, type EntityManager } from 'typeorm';
import { hasPermission, type Actor } from '../../shared/auth/actor.js';
import { matchesIdentity } from '../../shared/auth/identity-rule.js';
import { findInCompany } from '../../shared/database/tenant.js';
import { DocumentEntity } from '../documents/index.js';
import { IdeaEntity } from '../ideas/index.js';
import type { FoundInputs } from './domain/proposal-validation.js';
import { ProposalEntity } from './proposal.entity.js';

/** Lookups and identity checks shared by the proposal use cases. */

/** The proposal row, locked FOR UPDATE: every status check of a mutation runs on a locked row. */
export function lockProposal(em: EntityManager, actor: Actor, uuid: string): Promise<ProposalEntity> {
  return findInCompany(em, ProposalEntity, uuid, actor.companyUuid, 'Proposal', true);
}

/** For a user caller, the agents it owns (the identity rule matches their records too). */
export async function ownedAgentUuids(em: EntityManager, actor: Actor): Promise<Set<string>> {
  if (actor.type !== 'user') return new Set();
  const rows: Array<{ uuid: string }> = await em.query(`SELECT uuid FROM agent WHERE owner_uuid = $1 AND company_uuid = $2`, [actor.uuid, actor.companyUuid]);
  return new Set(rows.map((r) => r.uuid));
}

/** Reject and revoke (domain.md §5.1): the creator under the identity rule, or a holder of proposal:admin (users hold every bit). */
export async function mayReview(em: EntityManager, actor: Actor, p: ProposalEntity): Promise<boolean> {
  if (hasPermission(actor, 'proposal:admin')) return true;
  return matchesIdentity(actor, { type: p.createdByType, uuid: p.createdByUuid }, await ownedAgentUuids(em, actor));
}

/** The proposal's inputs that still exist in its project, for E4/E5. */
export async function findInputs(em: EntityManager, p: ProposalEntity): Promise<FoundInputs> {
  const ideas = new Map<string, { title: string; isContainer: boolean; elaborationStatus: string | null }>();
  const documents = new Set<string>();
  if (p.inputUuids.length === 0) return { ideas, documents };
  const where = { uuid: In(p.inputUuids), companyUuid: p.companyUuid, projectUuid: p.projectUuid };
  if (p.inputType === 'idea') {
    for (const i of await em.find(IdeaEntity, { where })) ideas.set(i.uuid, { title: i.title, isContainer: i.isContainer, elaborationStatus: i.elaborationStatus });
  } else {
    for (const d of await em.find(DocumentEntity, { where, select: { uuid: true } })) documents.add(d.uuid);
  }
  return { ideas, documents };
}

/** "Already feeds another non-closed proposal" warnings for the create result. */
export async function feedWarnings(em: EntityManager, actor: Actor, ideas: IdeaEntity[]): Promise<string[]> {
  const others = await em
    .createQueryBuilder(ProposalEntity, 'p')
    .where('p.company_uuid = :company AND p.input_type = :type AND p.status <> :closed AND p.input_uuids && CAST(:uuids AS uuid[])', {
      company: actor.companyUuid,
      type: 'idea',
      closed: 'closed',
      uuids: ideas.map((i) => i.uuid),
    })
    .orderBy('p.created_at', 'ASC')
    .addOrderBy('p.uuid', 'ASC')
    .getMany();
  const warnings: string[] = [];
  for (const idea of ideas) {
    for (const o of others) {
      if (o.inputUuids.includes(idea.uuid)) warnings.push(`Idea "${idea.title}" already feeds proposal "${o.title}" (${o.status})`);
    }
  }
  return warnings;
}
