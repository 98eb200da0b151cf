import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Actor } from '../../shared/auth/actor.js';
import { TransactionRunner } from '../../shared/database/transaction-runner.js';
import { DocumentEntity } from '../documents/index.js';
import { AcceptanceCriterionEntity, TaskDependencyEntity, TaskEntity } from '../tasks/index.js';
import { checkProposalTransition } from './domain/proposal-state.js';
import { reviewNote } from '../../shared/validation/text-rules.js';
import type { ProposalStatus } from './proposal.entity.js';
import { lockProposal } from './proposal.guards.js';
import type { OptionalReviewArgsDto as ReviewInput } from './dto/proposal.dto.js';
import { loadProposalRecord, type ProposalRecord } from './proposal.records.js';

export interface ApprovalResult {
  proposal: ProposalRecord;
  materializedTasks: Array<{ draftUuid: string; taskUuid: string; title: string }>;
  materializedDocuments: Array<{ draftUuid: string; documentUuid: string; title: string }>;
}

/**
 * Approval (domain.md §5.3): pending → approved and every draft materialised, in one transaction. A use case of its
 * own because it writes three aggregates (proposal, documents, tasks with criteria and dependencies).
 */
@Injectable()
export class ProposalApprovalService {
  constructor(private readonly runner: TransactionRunner) {}

  async approve(actor: Actor, input: ReviewInput): Promise<ApprovalResult> {
    const note = reviewNote(input.reviewNote, false);
    return this.runner.run(actor, async (tx) => {
      const em = tx.manager;
      const p = await lockProposal(em, actor, input.proposalUuid);
      p.status = checkProposalTransition(p.status, 'approve') as ProposalStatus;
      p.reviewedByType = actor.type;
      p.reviewedByUuid = actor.uuid;
      p.reviewNote = note;
      p.reviewedAt = new Date();
      await em.save(p);
      // Collected first so the proposal event leads; the documents created here publish nothing of their own.
      tx.change('proposal', p.uuid, p.projectUuid, 'updated');
      tx.activity({ projectUuid: p.projectUuid, targetType: 'proposal', targetUuid: p.uuid, action: 'approved', value: { reviewNote: note } });

      // now() is fixed for the whole transaction: distinct timestamps keep the drafts' order in createdAt listings.
      const start = Date.now();
      const stamp = (i: number) => ({ createdAt: new Date(start + i), updatedAt: new Date(start + i) });
      const base = { companyUuid: p.companyUuid, projectUuid: p.projectUuid, proposalUuid: p.uuid, createdByType: p.createdByType, createdByUuid: p.createdByUuid };
      const materializedDocuments: ApprovalResult['materializedDocuments'] = [];
      for (const [i, d] of p.documentDrafts.entries()) {
        const documentUuid = randomUUID();
        await em.insert(DocumentEntity, { ...base, ...stamp(i), uuid: documentUuid, type: d.type, title: d.title, content: d.content, version: 1 });
        materializedDocuments.push({ draftUuid: d.uuid, documentUuid, title: d.title });
        tx.activity({ projectUuid: p.projectUuid, targetType: 'document', targetUuid: documentUuid, action: 'created', value: { proposalUuid: p.uuid } });
      }

      const taskOfDraft = new Map<string, string>();
      const materializedTasks: ApprovalResult['materializedTasks'] = [];
      for (const [i, t] of p.taskDrafts.entries()) {
        const taskUuid = randomUUID();
        taskOfDraft.set(t.uuid, taskUuid);
        await em.insert(TaskEntity, {
          ...base,
          ...stamp(i),
          uuid: taskUuid,
          title: t.title,
          description: t.description ?? '',
          status: 'open',
          priority: t.priority ?? 'medium',
          storyPoints: t.storyPoints ?? null,
        });
        const criteria = t.acceptanceCriteriaItems.filter((c) => c.description.trim() !== '');
        if (criteria.length) {
          await em.insert(
            AcceptanceCriterionEntity,
            criteria.map((c, i) => ({ uuid: randomUUID(), taskUuid, description: c.description.trim(), required: c.required ?? true, sortOrder: i })),
          );
        }
        materializedTasks.push({ draftUuid: t.uuid, taskUuid, title: t.title });
        tx.change('task', taskUuid, p.projectUuid, 'created');
        tx.activity({ projectUuid: p.projectUuid, targetType: 'task', targetUuid: taskUuid, action: 'created', value: { proposalUuid: p.uuid } });
        tx.mentions({
          sourceType: 'task',
          sourceUuid: taskUuid,
          entityType: 'task',
          entityUuid: taskUuid,
          entityTitle: t.title,
          projectUuid: p.projectUuid,
          before: null,
          after: t.description ?? '',
        });
      }

      // Submission validated the draft graph (E7); entries that name no draft are skipped rather than trusted.
      const edges = p.taskDrafts.flatMap((t) =>
        (t.dependsOnDraftUuids ?? [])
          .filter((dep) => dep !== t.uuid && taskOfDraft.has(dep))
          .map((dep) => ({ taskUuid: taskOfDraft.get(t.uuid)!, dependsOnUuid: taskOfDraft.get(dep)! })),
      );
      if (edges.length) await em.insert(TaskDependencyEntity, edges);

      return { proposal: await loadProposalRecord(em, p), materializedTasks, materializedDocuments };
    });
  }
}
