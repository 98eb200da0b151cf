import { randomUUID } from 'node:crypto';
import { In } from 'typeorm';
import type { Actor } from '../../shared/auth/actor.js';
import { NotFoundError } from '../../shared/errors/app-error.js';
import { Repository } from '../../shared/database/repository.js';
import { findInCompany } from '../../shared/database/tenant.js';
import { DocumentEntity, type DocumentType } from './document.entity.js';

/** A proposal as documents see it: linked to, reported on (a plain read, the proposals module builds on this one). */
export interface ProposalRow {
  uuid: string;
  projectUuid: string;
  status: string;
  inputType: 'idea' | 'document';
  inputUuids: string[];
}

export type NewDocument = Pick<DocumentEntity, 'uuid' | 'companyUuid' | 'projectUuid' | 'type' | 'title' | 'content' | 'version' | 'proposalUuid' | 'createdByType' | 'createdByUuid'>;

/**
 * The `document` table (README "Table ownership": documents own it), tenant-scoped. Proposals and ideas are read with
 * plain SQL here: both modules build on this one (README "Table ownership", imports follow the writes).
 */
export class DocumentRepository extends Repository {
  /** A page of the project's documents (of one type, if given), most recently updated first, and their total. */
  page(companyUuid: string, projectUuid: string, type: DocumentType | undefined, skip: number, take: number): Promise<[DocumentEntity[], number]> {
    return this.em.findAndCount(DocumentEntity, {
      where: { companyUuid, projectUuid, ...(type ? { type } : {}) },
      order: { updatedAt: 'DESC', uuid: 'ASC' },
      skip,
      take,
    });
  }

  get(uuid: string, companyUuid: string): Promise<DocumentEntity> {
    return findInCompany(this.em, DocumentEntity, uuid, companyUuid, 'Document');
  }

  /** The document row, locked FOR UPDATE for the mutation. */
  lock(uuid: string, companyUuid: string): Promise<DocumentEntity> {
    return findInCompany(this.em, DocumentEntity, uuid, companyUuid, 'Document', true);
  }

  /** A new document by the actor, version 1; returns the saved row. */
  async create(actor: Actor, fields: Pick<DocumentEntity, 'projectUuid' | 'type' | 'title' | 'content' | 'proposalUuid'>): Promise<DocumentEntity> {
    const d = this.em.create(DocumentEntity, { uuid: randomUUID(), companyUuid: actor.companyUuid, version: 1, createdByType: actor.type, createdByUuid: actor.uuid, ...fields });
    await this.em.save(d);
    return d;
  }

  /** A document of an approval, stamped with the given creation time. */
  async add(row: NewDocument & Pick<DocumentEntity, 'createdAt' | 'updatedAt'>): Promise<void> {
    await this.em.insert(DocumentEntity, row);
  }

  /** Writes the changed row back. */
  async store(d: DocumentEntity): Promise<void> {
    await this.em.save(d);
  }

  async remove(uuid: string): Promise<void> {
    await this.em.delete(DocumentEntity, { uuid });
  }

  async removeAll(uuids: string[]): Promise<void> {
    await this.em.delete(DocumentEntity, { uuid: In(uuids) });
  }

  /** The proposal's documents, oldest first. */
  ofProposal(companyUuid: string, proposalUuid: string): Promise<DocumentEntity[]> {
    return this.em.find(DocumentEntity, { where: { companyUuid, proposalUuid }, order: { createdAt: 'ASC', uuid: 'ASC' } });
  }

  /** Unlinks the proposal's documents; returns them (uuid and project). */
  async unlink(companyUuid: string, proposalUuid: string): Promise<Array<{ uuid: string; projectUuid: string }>> {
    const scope = { companyUuid, proposalUuid };
    const docs = await this.em.find(DocumentEntity, { where: scope, select: { uuid: true, projectUuid: true } });
    await this.em.update(DocumentEntity, scope, { proposalUuid: null });
    return docs.map((d) => ({ uuid: d.uuid, projectUuid: d.projectUuid }));
  }

  async moveToProject(companyUuid: string, documentUuids: readonly string[], projectUuid: string): Promise<void> {
    await this.em.query(`UPDATE document SET project_uuid = $1, updated_at = now() WHERE company_uuid = $2 AND uuid = ANY($3::uuid[])`, [
      projectUuid,
      companyUuid,
      [...documentUuids],
    ]);
  }

  async reportCount(companyUuid: string, proposalUuid: string): Promise<number> {
    return this.em.count(DocumentEntity, { where: { companyUuid, proposalUuid, type: 'report' } });
  }

  /** The company's proposal, FOR UPDATE when `lock`; another company's is "Proposal not found". */
  async proposal(uuid: string, companyUuid: string, lock: boolean): Promise<ProposalRow> {
    const rows: ProposalRow[] = await this.em.query(
      `SELECT uuid, project_uuid AS "projectUuid", status, input_type AS "inputType", input_uuids AS "inputUuids"
         FROM proposal WHERE uuid = $1 AND company_uuid = $2${lock ? ' FOR UPDATE' : ''}`,
      [uuid, companyUuid],
    );
    if (!rows[0]) throw new NotFoundError('Proposal');
    return rows[0];
  }

  /** The projects of the company's ideas among `uuids` (in no particular order). */
  ideaProjects(uuids: string[], companyUuid: string): Promise<Array<{ uuid: string; projectUuid: string }>> {
    return this.em.query(`SELECT uuid, project_uuid AS "projectUuid" FROM idea WHERE uuid = ANY($1::uuid[]) AND company_uuid = $2`, [uuids, companyUuid]);
  }
}
