import { Injectable } from '@nestjs/common';
import type { Actor } from '../../shared/auth/actor.js';
import { TransactionRunner } from '../../shared/database/transaction-runner.js';
import { ForbiddenError } from '../../shared/errors/app-error.js';
import { reviewNote } from '../../shared/validation/text-rules.js';
import { deleteDocumentsOfRevokedProposal } from '../documents/index.js';
import { closeTasksOfRevokedProposal } from '../tasks/index.js';
import { checkProposalTransition } from './domain/proposal-state.js';
import type { ProposalStatus } from './proposal.entity.js';
import { mayReview } from './proposal.checks.js';
import type { OptionalReviewArgsDto as ReviewInput } from './dto/proposal.dto.js';
import { loadProposalRecord, type ProposalRecord } from './proposal.records.js';
import { ProposalRepository } from './proposal.repository.js';

export interface RevocationResult {
  proposal: ProposalRecord;
  closedTasks: Array<{ uuid: string; title: string }>;
  deletedDocuments: Array<{ uuid: string; title: string }>;
}

/**
 * Revocation (docs/domain.md §5.4): approved → draft in one transaction; the tasks module closes the proposal's tasks
 * through its single transition and cuts outside tasks loose from them, the documents module deletes its documents.
 */
@Injectable()
export class ProposalRevocationService {
  constructor(
    private readonly proposals: ProposalRepository,
    private readonly runner: TransactionRunner,
  ) {}

  async revoke(actor: Actor, input: ReviewInput): Promise<RevocationResult> {
    const note = reviewNote(input.reviewNote, false);
    return this.runner.run(actor, async (tx) => {
      const em = tx.manager;
      const proposals = this.proposals.in(tx);
      const p = await proposals.lock(input.proposalUuid, actor.companyUuid);
      if (!(await mayReview(em, actor, p))) throw new ForbiddenError("Only the proposal's creator or a holder of proposal:admin can revoke it");
      p.status = checkProposalTransition(p.status, 'revoke') as ProposalStatus;
      p.reviewedByType = actor.type;
      p.reviewedByUuid = actor.uuid;
      p.reviewNote = note;
      p.reviewedAt = new Date();
      await proposals.store(p);
      tx.change('proposal', p.uuid, p.projectUuid, 'updated');
      tx.record('proposal.revoked', { projectUuid: p.projectUuid, uuid: p.uuid }, { reviewNote: note });

      const closedTasks = await closeTasksOfRevokedProposal(tx, p.uuid);
      const deletedDocuments = await deleteDocumentsOfRevokedProposal(tx, p.uuid);
      return { proposal: await loadProposalRecord(em, p), closedTasks, deletedDocuments };
    });
  }
}
