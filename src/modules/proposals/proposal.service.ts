import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Actor } from '../../shared/auth/actor.js';
import { matchesIdentity } from '../../shared/auth/identity-rule.js';
import { TransactionRunner, type Tx } from '../../shared/database/transaction-runner.js';
import type { DomainEventMap } from '../../shared/events/domain-events.js';
import { AppError, ForbiddenError, NotFoundError, ValidationError } from '../../shared/errors/app-error.js';
import { offsetOf, paging, type PageResult } from '../../shared/validation/paging.js';
import { deleteTargetCollaboration, insertReferences, validateReference } from '../collaboration/index.js';
import { unlinkDocumentsFromProposal } from '../documents/index.js';
import { ownedAgentUuids } from '../identity/index.js';
import { findProject } from '../projects/index.js';
import { unlinkTasksFromProposal } from '../tasks/index.js';
import * as drafts from './domain/proposal-drafts.js';
import { checkProposalTransition, type ProposalTrigger } from './domain/proposal-state.js';
import { validateProposal, type ValidationIssue } from './domain/proposal-validation.js';
import { reviewNote, titleText } from '../../shared/validation/text-rules.js';
import { feedWarnings, findInputs, mayReview } from './proposal.checks.js';
import type { ProposalEntity, ProposalStatus } from './proposal.entity.js';
import { loadProposalRecord, loadProposalSummaries, type ProposalRecord, type ProposalSummary } from './proposal.records.js';
import { ProposalRepository } from './proposal.repository.js';
import type { DocumentDraftArgsDto, DraftArgsDto, TaskDraftArgsDto, UpdateDocumentDraftArgsDto, UpdateTaskDraftArgsDto } from './dto/proposal-draft.dto.js';
import type { CreateProposalArgsDto, EditProposalDto, GetProposalArgsDto, ListProposalsArgsDto, ProposalRefDto, RequiredReviewArgsDto } from './dto/proposal.dto.js';


type DraftChange = Pick<ProposalEntity, 'documentDrafts'> | Pick<ProposalEntity, 'taskDrafts'>;

/**
 * The proposal aggregate (docs/domain.md §5): reads, creation, draft editing, validation and the review transitions
 * that touch only the proposal. Approval and revocation span aggregates and live in their own use-case classes.
 */
@Injectable()
export class ProposalService {
  constructor(
    private readonly db: DataSource,
    private readonly proposals: ProposalRepository,
    private readonly runner: TransactionRunner,
  ) {}

  async list(actor: Actor, input: ListProposalsArgsDto): Promise<{ proposals: ProposalSummary[] } & PageResult> {
    const page = paging(input);
    const { status } = input;
    await findProject(this.db.manager, input.projectUuid, actor.companyUuid);
    const [rows, total] = await this.proposals.page({ companyUuid: actor.companyUuid, projectUuid: input.projectUuid }, status, offsetOf(page), page.pageSize);
    return { proposals: await loadProposalSummaries(this.db.manager, rows), page: page.page, pageSize: page.pageSize, total };
  }

  async get(actor: Actor, input: GetProposalArgsDto): Promise<ProposalRecord> {
    const section = input.section ?? 'basic';
    const p = await this.proposals.get(input.proposalUuid, actor.companyUuid);
    return loadProposalRecord(this.db.manager, p, section);
  }

  /** svc_pm_create_proposal: an empty draft over 1–20 inputs of one project. */
  async create(actor: Actor, input: CreateProposalArgsDto): Promise<ProposalRecord & { warnings?: string[] }> {
    const title = titleText(input.title);
    const description = input.description ?? '';
    const { inputType } = input;
    const inputUuids = input.inputUuids.map((u) => u.toLowerCase());
    if (new Set(inputUuids).size !== inputUuids.length) {
      throw new ValidationError('Input uuids must be distinct', [{ field: 'inputUuids', message: 'must be distinct' }]);
    }
    const references = (input.references ?? []).map(validateReference);

    return this.runner.run(actor, async (tx) => {
      const em = tx.manager;
      const proposals = this.proposals.in(tx);
      const project = await findProject(em, input.projectUuid, actor.companyUuid);
      const scope = { companyUuid: actor.companyUuid, projectUuid: project.uuid };
      const warnings: string[] = [];
      if (inputType === 'idea') {
        const ideas = (await proposals.inputIdeas(scope, inputUuids)).sort((a, b) => inputUuids.indexOf(a.uuid) - inputUuids.indexOf(b.uuid));
        if (ideas.length !== inputUuids.length) throw new NotFoundError('Input idea');
        if (ideas.some((i) => i.isContainer)) throw new ValidationError('Container ideas cannot be proposal inputs; derive a child idea');
        const owned = actor.type === 'user' ? await ownedAgentUuids(em, actor) : new Set<string>();
        if (!ideas.every((i) => matchesIdentity(actor, { type: i.assigneeType, uuid: i.assigneeUuid }, owned))) {
          throw new ForbiddenError('Input ideas must be assigned to you');
        }
        warnings.push(...(await feedWarnings(proposals, actor, ideas)));
      } else if ((await proposals.inputDocuments(scope, inputUuids)).size !== inputUuids.length) {
        throw new NotFoundError('Input document');
      }

      const p = await proposals.create({
        uuid: randomUUID(),
        companyUuid: actor.companyUuid,
        projectUuid: project.uuid,
        title,
        description,
        inputType,
        inputUuids,
        status: 'draft',
        documentDrafts: [],
        taskDrafts: [],
        createdByType: actor.type,
        createdByUuid: actor.uuid,
        submittedAt: null,
        reviewedByType: null,
        reviewedByUuid: null,
        reviewNote: null,
        reviewedAt: null,
      });
      await insertReferences(tx, { type: 'proposal', uuid: p.uuid }, references);
      tx.change('proposal', p.uuid, p.projectUuid, 'created');
      tx.record('proposal.created', { projectUuid: p.projectUuid, uuid: p.uuid }, { title });
      const record = await loadProposalRecord(em, p);
      return warnings.length ? { ...record, warnings } : record;
    });
  }

  /** REST edit of title/description while the proposal is a draft. */
  async edit(actor: Actor, input: EditProposalDto & ProposalRefDto): Promise<ProposalRecord> {
    if (input.title === undefined && input.description === undefined) throw new ValidationError('Nothing to update');
    const title = input.title === undefined ? undefined : titleText(input.title);
    const { description } = input;
    return this.runner.run(actor, async (tx) => {
      const p = await this.proposals.in(tx).lock(input.proposalUuid, actor.companyUuid);
      checkProposalTransition(p.status, 'edit');
      const fields = [...(title !== undefined && title !== p.title ? ['title'] : []), ...(description !== undefined && description !== p.description ? ['description'] : [])];
      if (fields.length) {
        if (title !== undefined) p.title = title;
        if (description !== undefined) p.description = description;
        await this.saveUpdate(tx, p, 'proposal.edited', { fields });
      }
      return loadProposalRecord(tx.manager, p);
    });
  }

  /** REST delete of a draft or closed proposal: its comments and references go, its documents and tasks stay unlinked. */
  async delete(actor: Actor, input: ProposalRefDto): Promise<{ uuid: string; deleted: true }> {
    return this.runner.run(actor, async (tx) => {
      const proposals = this.proposals.in(tx);
      const p = await proposals.lock(input.proposalUuid, actor.companyUuid);
      checkProposalTransition(p.status, 'delete');
      const tasks = await unlinkTasksFromProposal(tx, p.uuid);
      const docs = await unlinkDocumentsFromProposal(tx, p.uuid);
      await deleteTargetCollaboration(tx.manager, actor.companyUuid, 'proposal', [p.uuid]);
      await proposals.remove(p.uuid);
      tx.change('proposal', p.uuid, p.projectUuid, 'deleted');
      // Their proposalUuid is part of what they show, so the unlinked records are updated too.
      for (const t of tasks) tx.change('task', t.uuid, t.projectUuid, 'updated');
      for (const d of docs) tx.change('document', d.uuid, d.projectUuid, 'updated');
      tx.record('proposal.deleted', { projectUuid: p.projectUuid, uuid: p.uuid }, { title: p.title });
      return { uuid: p.uuid, deleted: true as const };
    });
  }

  async addDocumentDraft(actor: Actor, input: DocumentDraftArgsDto): Promise<ProposalRecord & { draftUuid: string }> {
    const fields = drafts.parseDocumentDraft(input);
    return this.editDrafts(actor, input.proposalUuid, 'add_document_draft', (p) => {
      const r = drafts.addDocumentDraft(p.documentDrafts, fields);
      return { change: { documentDrafts: r.drafts }, value: { documentDraftAdded: r.draft.uuid }, draftUuid: r.draft.uuid };
    }) as Promise<ProposalRecord & { draftUuid: string }>;
  }

  async updateDocumentDraft(actor: Actor, input: UpdateDocumentDraftArgsDto): Promise<ProposalRecord> {
    const patch = drafts.parseDocumentDraftPatch(input);
    return this.editDrafts(actor, input.proposalUuid, 'update_document_draft', (p) => ({
      change: { documentDrafts: drafts.updateDocumentDraft(p.documentDrafts, input.draftUuid, patch) },
      value: { documentDraftUpdated: input.draftUuid },
    }));
  }

  async removeDocumentDraft(actor: Actor, input: DraftArgsDto): Promise<ProposalRecord> {
    return this.editDrafts(actor, input.proposalUuid, 'remove_document_draft', (p) => ({
      change: { documentDrafts: drafts.removeDocumentDraft(p.documentDrafts, input.draftUuid) },
      value: { documentDraftRemoved: input.draftUuid },
    }));
  }

  async addTaskDraft(actor: Actor, input: TaskDraftArgsDto): Promise<ProposalRecord & { draftUuid: string }> {
    const fields = drafts.parseTaskDraft(input);
    return this.editDrafts(actor, input.proposalUuid, 'add_task_draft', (p) => {
      const r = drafts.addTaskDraft(p.taskDrafts, fields);
      return { change: { taskDrafts: r.drafts }, value: { taskDraftAdded: r.draft.uuid }, draftUuid: r.draft.uuid };
    }) as Promise<ProposalRecord & { draftUuid: string }>;
  }

  async updateTaskDraft(actor: Actor, input: UpdateTaskDraftArgsDto): Promise<ProposalRecord> {
    const patch = drafts.parseTaskDraftPatch(input);
    return this.editDrafts(actor, input.proposalUuid, 'update_task_draft', (p) => ({
      change: { taskDrafts: drafts.updateTaskDraft(p.taskDrafts, input.draftUuid, patch) },
      value: { taskDraftUpdated: input.draftUuid },
    }));
  }

  async removeTaskDraft(actor: Actor, input: DraftArgsDto): Promise<ProposalRecord> {
    return this.editDrafts(actor, input.proposalUuid, 'remove_task_draft', (p) => ({
      change: { taskDrafts: drafts.removeTaskDraft(p.taskDrafts, input.draftUuid) },
      value: { taskDraftRemoved: input.draftUuid },
    }));
  }

  /** svc_pm_validate_proposal: the §5.2 checks, read-only, in any status. */
  async validate(actor: Actor, input: ProposalRefDto): Promise<{ valid: boolean; issues: ValidationIssue[] }> {
    const p = await this.proposals.get(input.proposalUuid, actor.companyUuid);
    return validateProposal(p, await findInputs(this.proposals, p));
  }

  /** draft → pending when no error-level issue exists. */
  async submit(actor: Actor, input: ProposalRefDto): Promise<ProposalRecord> {
    return this.runner.run(actor, async (tx) => {
      const proposals = this.proposals.in(tx);
      const p = await proposals.lock(input.proposalUuid, actor.companyUuid);
      const to = checkProposalTransition(p.status, 'submit') as ProposalStatus;
      const result = validateProposal(p, await findInputs(proposals, p));
      if (!result.valid) throw new AppError('PROPOSAL_INVALID', 'Proposal validation failed', { issues: result.issues });
      p.status = to;
      p.submittedAt = new Date();
      await this.saveUpdate(tx, p, 'proposal.submitted', { inputType: p.inputType, inputUuids: p.inputUuids });
      return loadProposalRecord(tx.manager, p);
    });
  }

  /** pending → draft with a note, by the creator (identity rule) or a holder of proposal:admin. */
  async reject(actor: Actor, input: RequiredReviewArgsDto): Promise<ProposalRecord> {
    const note = reviewNote(input.reviewNote, true);
    return this.review(actor, input.proposalUuid, 'reject', note, "Only the proposal's creator or a holder of proposal:admin can reject it");
  }

  /** pending → closed for good, with a note (the proposal:admin gate is the tool's). */
  async close(actor: Actor, input: RequiredReviewArgsDto): Promise<ProposalRecord> {
    const note = reviewNote(input.reviewNote, true);
    return this.review(actor, input.proposalUuid, 'close', note, null);
  }

  private review(actor: Actor, uuid: string, trigger: 'reject' | 'close', note: string | null, forbidden: string | null): Promise<ProposalRecord> {
    return this.runner.run(actor, async (tx) => {
      const p = await this.proposals.in(tx).lock(uuid, actor.companyUuid);
      if (forbidden && !(await mayReview(tx.manager, actor, p))) throw new ForbiddenError(forbidden);
      p.status = checkProposalTransition(p.status, trigger) as ProposalStatus;
      p.reviewedByType = actor.type;
      p.reviewedByUuid = actor.uuid;
      p.reviewNote = note;
      p.reviewedAt = new Date();
      await this.saveUpdate(tx, p, trigger === 'reject' ? 'proposal.rejected' : 'proposal.closed', { reviewNote: note });
      return loadProposalRecord(tx.manager, p);
    });
  }

  /** Locks, checks the state, applies a pure draft edit; an edit that changes nothing writes and publishes nothing. */
  private editDrafts(
    actor: Actor,
    uuid: string,
    trigger: ProposalTrigger,
    edit: (p: ProposalEntity) => { change: DraftChange; value: Record<string, unknown>; draftUuid?: string },
  ): Promise<ProposalRecord & { draftUuid?: string }> {
    return this.runner.run(actor, async (tx) => {
      const p = await this.proposals.in(tx).lock(uuid, actor.companyUuid);
      checkProposalTransition(p.status, trigger);
      const { change, value, draftUuid } = edit(p);
      const before = JSON.stringify([p.documentDrafts, p.taskDrafts]);
      Object.assign(p, change);
      if (JSON.stringify([p.documentDrafts, p.taskDrafts]) !== before) await this.saveUpdate(tx, p, 'proposal.edited', value);
      const record = await loadProposalRecord(tx.manager, p);
      return draftUuid ? { ...record, draftUuid } : record;
    });
  }

  private async saveUpdate<K extends 'proposal.edited' | 'proposal.submitted' | 'proposal.rejected' | 'proposal.closed'>(tx: Tx, p: ProposalEntity, name: K, payload: DomainEventMap[K]): Promise<void> {
    await this.proposals.in(tx).store(p);
    tx.change('proposal', p.uuid, p.projectUuid, 'updated');
    tx.record(name, { projectUuid: p.projectUuid, uuid: p.uuid }, payload);
  }
}
