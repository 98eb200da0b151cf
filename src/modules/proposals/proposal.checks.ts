import type { EntityManager } from 'typeorm';
import { hasPermission, type Actor, type ActorType } from '../../shared/auth/actor.js';
import { findInCompany } from '../../shared/database/tenant.js';
import { matchesActor } from '../identity/index.js';
import type { FoundInputs } from './domain/proposal-validation.js';
import { ProposalEntity } from './proposal.entity.js';

/** Lookups and identity checks shared by the proposal use cases. */

/** The proposal row, locked FOR UPDATE: every status check of a mutation runs on a locked row. */
export function lockProposal(em: EntityManager, actor: Actor, uuid: string): Promise<ProposalEntity> {
  return findInCompany(em, ProposalEntity, uuid, actor.companyUuid, 'Proposal', true);
}

/** Reject and revoke (domain.md §5.1): the creator under the identity rule, or a holder of proposal:admin (users hold every bit). */
export async function mayReview(em: EntityManager, actor: Actor, p: ProposalEntity): Promise<boolean> {
  if (hasPermission(actor, 'proposal:admin')) return true;
  return matchesActor(em, actor, { type: p.createdByType, uuid: p.createdByUuid });
}

/** An input idea as a proposal sees it. */
export interface InputIdea {
  uuid: string;
  title: string;
  isContainer: boolean;
  elaborationStatus: string | null;
  assigneeType: ActorType | null;
  assigneeUuid: string | null;
}

/**
 * The ideas among `uuids` in the proposal's project. Plain SQL: the ideas module builds on this one (an idea move
 * carries its proposals along), so it cannot be imported here.
 */
export function inputIdeas(em: EntityManager, scope: { companyUuid: string; projectUuid: string }, uuids: readonly string[]): Promise<InputIdea[]> {
  return em.query(
    `SELECT uuid, title, is_container AS "isContainer", elaboration_status AS "elaborationStatus", assignee_type AS "assigneeType", assignee_uuid AS "assigneeUuid"
       FROM idea WHERE uuid = ANY($1::uuid[]) AND company_uuid = $2 AND project_uuid = $3`,
    [[...uuids], scope.companyUuid, scope.projectUuid],
  );
}

/** The documents among `uuids` in the proposal's project (plain SQL, a read of the documents module's table). */
export async function inputDocuments(em: EntityManager, scope: { companyUuid: string; projectUuid: string }, uuids: readonly string[]): Promise<Set<string>> {
  const rows: Array<{ uuid: string }> = await em.query(`SELECT uuid FROM document WHERE uuid = ANY($1::uuid[]) AND company_uuid = $2 AND project_uuid = $3`, [
    [...uuids],
    scope.companyUuid,
    scope.projectUuid,
  ]);
  return new Set(rows.map((r) => r.uuid));
}

/** The proposal's inputs that still exist in its project, for E4/E5. */
export async function findInputs(em: EntityManager, p: ProposalEntity): Promise<FoundInputs> {
  const ideas = new Map<string, { title: string; isContainer: boolean; elaborationStatus: string | null }>();
  const documents = new Set<string>();
  if (p.inputUuids.length === 0) return { ideas, documents };
  if (p.inputType === 'idea') {
    for (const i of await inputIdeas(em, p, p.inputUuids)) ideas.set(i.uuid, { title: i.title, isContainer: i.isContainer, elaborationStatus: i.elaborationStatus });
  } else {
    for (const uuid of await inputDocuments(em, p, p.inputUuids)) documents.add(uuid);
  }
  return { ideas, documents };
}

/** "Already feeds another non-closed proposal" warnings for the create result. */
export async function feedWarnings(em: EntityManager, actor: Actor, ideas: ReadonlyArray<Pick<InputIdea, 'uuid' | 'title'>>): Promise<string[]> {
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
