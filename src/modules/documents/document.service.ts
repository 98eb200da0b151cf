import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Actor } from '../../shared/auth/actor.js';
import { TransactionRunner } from '../../shared/database/transaction-runner.js';
import { ConflictError, InvalidStateError, NotFoundError, ValidationError } from '../../shared/errors/app-error.js';
import { offsetOf, paging, type PageResult } from '../../shared/validation/paging.js';
import { titleText } from '../../shared/validation/text-rules.js';
import { deleteTargetCollaboration } from '../collaboration/index.js';
import { findProject } from '../projects/index.js';
import { DocumentRepository } from './document.repository.js';
import { loadDocumentRecord, loadDocumentSummaries, type DocumentRecord, type DocumentSummary } from './document.records.js';
import type { CreateDocumentArgsDto, CreateReportArgsDto, DocumentRefDto, ListDocumentsArgsDto, UpdateDocumentArgsDto } from './dto/document.dto.js';

/**
 * The document aggregate (docs/domain.md §2.14, docs/tool-conventions.md §5.7): reads, authored documents and proposal reports.
 * Proposals and ideas are read with plain SQL (DocumentRepository): both modules build on this one.
 */
@Injectable()
export class DocumentService {
  constructor(
    private readonly db: DataSource,
    private readonly documents: DocumentRepository,
    private readonly runner: TransactionRunner,
  ) {}

  async list(actor: Actor, input: ListDocumentsArgsDto): Promise<{ documents: DocumentSummary[] } & PageResult> {
    const page = paging(input);
    const { type } = input;
    await findProject(this.db.manager, input.projectUuid, actor.companyUuid);
    const [rows, total] = await this.documents.page(actor.companyUuid, input.projectUuid, type, offsetOf(page), page.pageSize);
    return { documents: await loadDocumentSummaries(this.db.manager, rows), page: page.page, pageSize: page.pageSize, total };
  }

  async get(actor: Actor, input: DocumentRefDto): Promise<DocumentRecord> {
    const d = await this.documents.get(input.documentUuid, actor.companyUuid);
    return loadDocumentRecord(this.db.manager, d);
  }

  /** svc_pm_create_document: version 1, optionally linked to a proposal of the same project. */
  async create(actor: Actor, input: CreateDocumentArgsDto): Promise<DocumentRecord> {
    const { type } = input;
    const title = titleText(input.title);
    const content = input.content ?? '';
    return this.runner.run(actor, async (tx) => {
      const em = tx.manager;
      const documents = this.documents.in(tx);
      const project = await findProject(em, input.projectUuid, actor.companyUuid);
      if (input.proposalUuid != null) {
        const proposal = await documents.proposal(input.proposalUuid, actor.companyUuid, false);
        if (proposal.projectUuid !== project.uuid) throw new NotFoundError('Proposal');
      }
      const d = await documents.create(actor, { projectUuid: project.uuid, type, title, content, proposalUuid: input.proposalUuid ?? null });
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
      const documents = this.documents.in(tx);
      const d = await documents.lock(input.documentUuid, actor.companyUuid);
      const fields = [...(title !== undefined && title !== d.title ? ['title'] : []), ...(content !== undefined && content !== d.content ? ['content'] : [])];
      if (fields.length) {
        if (title !== undefined) d.title = title;
        if (content !== undefined) d.content = content;
        d.version += 1;
        await documents.store(d);
        tx.change('document', d.uuid, d.projectUuid, 'updated');
        tx.record('document.edited', { projectUuid: d.projectUuid, uuid: d.uuid }, { fields, version: d.version });
      }
      return loadDocumentRecord(tx.manager, d);
    });
  }

  /** svc_admin_delete_document: the document and its comments; proposals naming it as input keep the uuid. */
  async delete(actor: Actor, input: DocumentRefDto): Promise<{ uuid: string; deleted: true }> {
    return this.runner.run(actor, async (tx) => {
      const documents = this.documents.in(tx);
      const d = await documents.lock(input.documentUuid, actor.companyUuid);
      await deleteTargetCollaboration(tx.manager, actor.companyUuid, 'document', [d.uuid]);
      await documents.remove(d.uuid);
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
      const documents = this.documents.in(tx);
      // Locked so two concurrent reports without force cannot both see "no report yet".
      const p = await documents.proposal(input.proposalUuid, actor.companyUuid, true);
      if (p.status !== 'approved') throw new InvalidStateError(`Proposal is ${p.status}; create a report requires approved`);
      const existing = await documents.reportCount(actor.companyUuid, p.uuid);
      if (existing > 0 && !input.force) throw new ConflictError('A report already exists for this proposal; pass force=true to add another');
      const d = await documents.create(actor, { projectUuid: p.projectUuid, type: 'report', title, content, proposalUuid: p.uuid });
      tx.change('document', d.uuid, d.projectUuid, 'created');
      tx.record('document.report_created', { projectUuid: d.projectUuid, uuid: d.uuid }, { proposalUuid: p.uuid, title });
      // The input ideas list their proposals' reports, so each of them changed.
      if (p.inputType === 'idea' && p.inputUuids.length) {
        // A plain read: the ideas module builds on this one (an idea move carries documents along).
        const ideas = await documents.ideaProjects(p.inputUuids, actor.companyUuid);
        const order = new Map(p.inputUuids.map((u, i) => [u, i]));
        ideas.sort((a, b) => order.get(a.uuid)! - order.get(b.uuid)!);
        for (const i of ideas) tx.change('idea', i.uuid, i.projectUuid, 'updated');
      }
      return loadDocumentRecord(tx.manager, d);
    });
  }
}
