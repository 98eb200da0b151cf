import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { Actor } from '../../shared/auth/actor.js';
import { findInCompany } from '../../shared/database/tenant.js';
import { TransactionRunner } from '../../shared/database/transaction-runner.js';
import { ConflictError, InvalidStateError, NotFoundError, ValidationError } from '../../shared/errors/app-error.js';
import { offsetOf, paging, type PageResult } from '../../shared/validation/paging.js';
import { titleText } from '../../shared/validation/text-rules.js';
import { deleteTargetCollaboration } from '../collaboration/index.js';
import { findProject } from '../projects/index.js';
import { DocumentEntity } from './document.entity.js';
import { loadDocumentRecord, loadDocumentSummaries, type DocumentRecord, type DocumentSummary } from './document.records.js';
import type { CreateDocumentArgsDto, CreateReportArgsDto, DocumentRefDto, ListDocumentsArgsDto, UpdateDocumentArgsDto } from './dto/document.dto.js';

interface ProposalRow {
  uuid: string;
  projectUuid: string;
  status: string;
  inputType: 'idea' | 'document';
  inputUuids: string[];
}

/**
 * The document aggregate (domain.md §2.14, tools.md §5.7): reads, authored documents and proposal reports.
 * Proposals and ideas are read with plain SQL: both modules build on this one.
 */
@Injectable()
export class DocumentService {
  constructor(
    private readonly db: DataSource,
    private readonly runner: TransactionRunner,
  ) {}

  async list(actor: Actor, input: ListDocumentsArgsDto): Promise<{ documents: DocumentSummary[] } & PageResult> {
    const page = paging(input);
    const { type } = input;
    await findProject(this.db.manager, input.projectUuid, actor.companyUuid);
    const [rows, total] = await this.db.manager.findAndCount(DocumentEntity, {
      where: { companyUuid: actor.companyUuid, projectUuid: input.projectUuid, ...(type ? { type } : {}) },
      order: { updatedAt: 'DESC', uuid: 'ASC' },
      skip: offsetOf(page),
      take: page.pageSize,
    });
    return { documents: await loadDocumentSummaries(this.db.manager, rows), page: page.page, pageSize: page.pageSize, total };
  }

  async get(actor: Actor, input: DocumentRefDto): Promise<DocumentRecord> {
    const d = await findInCompany(this.db.manager, DocumentEntity, input.documentUuid, actor.companyUuid, 'Document');
    return loadDocumentRecord(this.db.manager, d);
  }

  /** svc_pm_create_document: version 1, optionally linked to a proposal of the same project. */
  async create(actor: Actor, input: CreateDocumentArgsDto): Promise<DocumentRecord> {
    const { type } = input;
    const title = titleText(input.title);
    const content = input.content ?? '';
    return this.runner.run(actor, async (tx) => {
      const em = tx.manager;
      const project = await findProject(em, input.projectUuid, actor.companyUuid);
      if (input.proposalUuid != null) {
        const proposal = await this.findProposal(em, actor, input.proposalUuid, false);
        if (proposal.projectUuid !== project.uuid) throw new NotFoundError('Proposal');
      }
      const d = await this.insert(em, actor, { projectUuid: project.uuid, type, title, content, proposalUuid: input.proposalUuid ?? null });
      tx.change('document', d.uuid, d.projectUuid, 'created');
      tx.record('document.created', { projectUuid: d.projectUuid, uuid: d.uuid }, { type, title });
      return loadDocumentRecord(em, d);
    });
  }

  /** svc_pm_update_document: title and/or content; every real change raises the version by one. */
  async update(actor: Actor, input: UpdateDocumentArgsDto): Promise<DocumentRecord> {
    if (input.title === undefined && input.content === undefined) throw new ValidationError('Nothing to update');
    const title = input.title === undefined ? undefined : titleText(input.title);
    const { content } = input;
    return this.runner.run(actor, async (tx) => {
      const d = await findInCompany(tx.manager, DocumentEntity, input.documentUuid, actor.companyUuid, 'Document', true);
      const fields = [...(title !== undefined && title !== d.title ? ['title'] : []), ...(content !== undefined && content !== d.content ? ['content'] : [])];
      if (fields.length) {
        if (title !== undefined) d.title = title;
        if (content !== undefined) d.content = content;
        d.version += 1;
        await tx.manager.save(d);
        tx.change('document', d.uuid, d.projectUuid, 'updated');
        tx.record('document.edited', { projectUuid: d.projectUuid, uuid: d.uuid }, { fields, version: d.version });
      }
      return loadDocumentRecord(tx.manager, d);
    });
  }

  /** svc_admin_delete_document: the document and its comments; proposals naming it as input keep the uuid. */
  async delete(actor: Actor, input: DocumentRefDto): Promise<{ uuid: string; deleted: true }> {
    return this.runner.run(actor, async (tx) => {
      const em = tx.manager;
      const d = await findInCompany(em, DocumentEntity, input.documentUuid, actor.companyUuid, 'Document', true);
      await deleteTargetCollaboration(em, actor.companyUuid, 'document', [d.uuid]);
      await em.delete(DocumentEntity, { uuid: d.uuid });
      tx.change('document', d.uuid, d.projectUuid, 'deleted');
      tx.record('document.deleted', { projectUuid: d.projectUuid, uuid: d.uuid }, { title: d.title });
      return { uuid: d.uuid, deleted: true as const };
    });
  }

  /** svc_create_report: the completion report of an approved proposal; a second one needs `force`. */
  async createReport(actor: Actor, input: CreateReportArgsDto): Promise<DocumentRecord> {
    const title = titleText(input.title);
    const { content } = input;
    if (content.trim() === '') throw new ValidationError('Content must not be blank', [{ field: 'content', message: 'must not be blank' }]);
    return this.runner.run(actor, async (tx) => {
      const em = tx.manager;
      // Locked so two concurrent reports without force cannot both see "no report yet".
      const p = await this.findProposal(em, actor, input.proposalUuid, true);
      if (p.status !== 'approved') throw new InvalidStateError(`Proposal is ${p.status}; create a report requires approved`);
      const existing = await em.count(DocumentEntity, { where: { companyUuid: actor.companyUuid, proposalUuid: p.uuid, type: 'report' } });
      if (existing > 0 && !input.force) throw new ConflictError('A report already exists for this proposal; pass force=true to add another');
      const d = await this.insert(em, actor, { projectUuid: p.projectUuid, type: 'report', title, content, proposalUuid: p.uuid });
      tx.change('document', d.uuid, d.projectUuid, 'created');
      tx.record('document.report_created', { projectUuid: d.projectUuid, uuid: d.uuid }, { proposalUuid: p.uuid, title });
      // The input ideas list their proposals' reports, so each of them changed.
      if (p.inputType === 'idea' && p.inputUuids.length) {
        // A plain read: the ideas module builds on this one (an idea move carries documents along).
        const ideas: Array<{ uuid: string; projectUuid: string }> = await em.query(
          `SELECT uuid, project_uuid AS "projectUuid" FROM idea WHERE uuid = ANY($1::uuid[]) AND company_uuid = $2`,
          [p.inputUuids, actor.companyUuid],
        );
        const order = new Map(p.inputUuids.map((u, i) => [u, i]));
        ideas.sort((a, b) => order.get(a.uuid)! - order.get(b.uuid)!);
        for (const i of ideas) tx.change('idea', i.uuid, i.projectUuid, 'updated');
      }
      return loadDocumentRecord(em, d);
    });
  }

  private async insert(
    em: EntityManager,
    actor: Actor,
    fields: Pick<DocumentEntity, 'projectUuid' | 'type' | 'title' | 'content' | 'proposalUuid'>,
  ): Promise<DocumentEntity> {
    const d = em.create(DocumentEntity, { uuid: randomUUID(), companyUuid: actor.companyUuid, version: 1, createdByType: actor.type, createdByUuid: actor.uuid, ...fields });
    await em.save(d);
    return d;
  }

  private async findProposal(em: EntityManager, actor: Actor, uuid: string, lock: boolean): Promise<ProposalRow> {
    const rows: ProposalRow[] = await em.query(
      `SELECT uuid, project_uuid AS "projectUuid", status, input_type AS "inputType", input_uuids AS "inputUuids"
         FROM proposal WHERE uuid = $1 AND company_uuid = $2${lock ? ' FOR UPDATE' : ''}`,
      [uuid, actor.companyUuid],
    );
    if (!rows[0]) throw new NotFoundError('Proposal');
    return rows[0];
  }
}

