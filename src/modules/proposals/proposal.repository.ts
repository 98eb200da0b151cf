import type { ActorType } from '../../shared/auth/actor.js';
import { Repository } from '../../shared/database/repository.js';
import { findInCompany } from '../../shared/database/tenant.js';
import type { ProposalStatus } from './domain/proposal-statuses.js';
import { ProposalEntity } from './proposal.entity.js';

/** An input idea as a proposal sees it. */
export interface InputIdea {
  uuid: string;
  title: string;
  isContainer: boolean;
  elaborationStatus: string | null;
  assigneeType: ActorType | null;
  assigneeUuid: string | null;
}

type Scope = { companyUuid: string; projectUuid: string };

/**
 * The `proposal` table (README "Table ownership": proposals own it), tenant-scoped. Input ideas and documents are
 * read with plain SQL: the ideas module builds on this one (an idea move carries its proposals along), and the
 * documents module's table is read, never written.
 */
export class ProposalRepository extends Repository {
  /** A page of the project's proposals (of one status, if given), newest first, and their total. */
  page(scope: Scope, status: ProposalStatus | undefined, skip: number, take: number): Promise<[ProposalEntity[], number]> {
    return this.em.findAndCount(ProposalEntity, {
      where: { ...scope, ...(status ? { status } : {}) },
      order: { createdAt: 'DESC', uuid: 'ASC' },
      skip,
      take,
    });
  }

  get(uuid: string, companyUuid: string): Promise<ProposalEntity> {
    return findInCompany(this.em, ProposalEntity, uuid, companyUuid, 'Proposal');
  }

  /** The proposal row, locked FOR UPDATE: every status check of a mutation runs on a locked row. */
  lock(uuid: string, companyUuid: string): Promise<ProposalEntity> {
    return findInCompany(this.em, ProposalEntity, uuid, companyUuid, 'Proposal', true);
  }

  /** A new proposal; returns the saved row. */
  async create(fields: Omit<ProposalEntity, 'createdAt' | 'updatedAt'>): Promise<ProposalEntity> {
    const p = this.em.create(ProposalEntity, fields);
    await this.em.save(p);
    return p;
  }

  /** Writes the changed row back. */
  async store(p: ProposalEntity): Promise<void> {
    await this.em.save(p);
  }

  async remove(uuid: string): Promise<void> {
    await this.em.delete(ProposalEntity, { uuid });
  }

  /** An idea move carries these proposals to the target project. */
  async moveToProject(companyUuid: string, proposalUuids: readonly string[], projectUuid: string): Promise<void> {
    await this.em.query(`UPDATE proposal SET project_uuid = $1, updated_at = now() WHERE company_uuid = $2 AND uuid = ANY($3::uuid[])`, [
      projectUuid,
      companyUuid,
      [...proposalUuids],
    ]);
  }

  /** Non-closed proposals fed by any of the ideas, oldest first. */
  fedBy(companyUuid: string, ideaUuids: string[]): Promise<ProposalEntity[]> {
    return this.em
      .createQueryBuilder(ProposalEntity, 'p')
      .where('p.company_uuid = :company AND p.input_type = :type AND p.status <> :closed AND p.input_uuids && CAST(:uuids AS uuid[])', {
        company: companyUuid,
        type: 'idea',
        closed: 'closed',
        uuids: ideaUuids,
      })
      .orderBy('p.created_at', 'ASC')
      .addOrderBy('p.uuid', 'ASC')
      .getMany();
  }

  /** The ideas among `uuids` in the project. */
  inputIdeas(scope: Scope, uuids: readonly string[]): Promise<InputIdea[]> {
    return this.em.query(
      `SELECT uuid, title, is_container AS "isContainer", elaboration_status AS "elaborationStatus", assignee_type AS "assigneeType", assignee_uuid AS "assigneeUuid"
       FROM idea WHERE uuid = ANY($1::uuid[]) AND company_uuid = $2 AND project_uuid = $3`,
      [[...uuids], scope.companyUuid, scope.projectUuid],
    );
  }

  /** The documents among `uuids` in the project. */
  async inputDocuments(scope: Scope, uuids: readonly string[]): Promise<Set<string>> {
    const rows: Array<{ uuid: string }> = await this.em.query(`SELECT uuid FROM document WHERE uuid = ANY($1::uuid[]) AND company_uuid = $2 AND project_uuid = $3`, [
      [...uuids],
      scope.companyUuid,
      scope.projectUuid,
    ]);
    return new Set(rows.map((r) => r.uuid));
  }
}
