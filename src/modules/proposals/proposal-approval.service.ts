import { Injectable } from '@nestjs/common';
import type { Actor } from '../../shared/auth/actor.js';
import { TransactionRunner } from '../../shared/database/transaction-runner.js';
import { createDocumentsFromProposal } from '../documents/index.js';
import { createTasksFromProposal } from '../tasks/index.js';
import { checkProposalTransition } from './domain/proposal-state.js';
import { reviewNote } from '../../shared/validation/text-rules.js';
import type { ProposalStatus } from './proposal.entity.js';
import type { OptionalReviewArgsDto as ReviewInput } from './dto/proposal.dto.js';
import { loadProposalRecord, type ProposalRecord } from './proposal.records.js';
import { ProposalRepository } from './proposal.repository.js';

export interface ApprovalResult {
  proposal: ProposalRecord;
  materializedTasks: Array<{ draftUuid: string; taskUuid: string; title: string }>;
  materializedDocuments: Array<{ draftUuid: string; documentUuid: string; title: string }>;
}

/**
 * Approval (docs/domain.md §5.3): pending → approved and every draft materialised, in one transaction. A use case of its
 * own because it writes three aggregates: the proposal here, the documents and the tasks (with criteria and
 * dependencies) through their modules.
 */
@Injectable()
export class ProposalApprovalService {
  constructor(
    private readonly proposals: ProposalRepository,
    private readonly runner: TransactionRunner,
  ) {}

  async approve(actor: Actor, input: ReviewInput): Promise<ApprovalResult> {
    const note = reviewNote(input.reviewNote, false);
    return this.runner.run(actor, async (tx) => {
      const em = tx.manager;
      const proposals = this.proposals.in(tx);
      const p = await proposals.lock(input.proposalUuid, actor.companyUuid);
      p.status = checkProposalTransition(p.status, 'approve') as ProposalStatus;
      p.reviewedByType = actor.type;
      p.reviewedByUuid = actor.uuid;
      p.reviewNote = note;
      p.reviewedAt = new Date();
      await proposals.store(p);
      // Collected first so the proposal event leads; the documents created here publish nothing of their own.
      tx.change('proposal', p.uuid, p.projectUuid, 'updated');
      tx.record('proposal.approved', { projectUuid: p.projectUuid, uuid: p.uuid }, { reviewNote: note });

      // now() is fixed for the whole transaction: distinct timestamps keep the drafts' order in createdAt listings.
      const at = Date.now();
      const materializedDocuments = await createDocumentsFromProposal(tx, p, p.documentDrafts, at);
      const materializedTasks = await createTasksFromProposal(tx, p, p.taskDrafts, at);
      return { proposal: await loadProposalRecord(em, p), materializedTasks, materializedDocuments };
    });
  }
}
