import { Injectable } from '@nestjs/common';
import { In, IsNull, type EntityManager } from 'typeorm';
import type { Actor } from '../../shared/auth/actor.js';
import { TransactionRunner, type Tx } from '../../shared/database/transaction-runner.js';
import { AppError, ForbiddenError } from '../../shared/errors/app-error.js';
import { deleteTargetCollaboration } from '../collaboration/index.js';
import { DocumentEntity } from '../documents/index.js';
import { SessionTaskCheckinEntity } from '../sessions/index.js';
import { AcceptanceCriterionEntity, TaskDependencyEntity, TaskEntity, acceptanceSummary, checkTaskTransition, sideEffectsOf } from '../tasks/index.js';
import { checkProposalTransition } from './domain/proposal-state.js';
import { reviewNote } from '../../shared/validation/text-rules.js';
import type { ProposalStatus } from './proposal.entity.js';
import { lockProposal, mayReview } from './proposal.guards.js';
import type { OptionalReviewArgsDto as ReviewInput } from './dto/proposal.dto.js';
import { loadProposalRecord, type ProposalRecord } from './proposal.records.js';

export interface RevocationResult {
  proposal: ProposalRecord;
  closedTasks: Array<{ uuid: string; title: string }>;
  deletedDocuments: Array<{ uuid: string; title: string }>;
}

/** Criterion fields put back to "never marked" when a task leaves to_verify other than for done (domain.md §6.3). */
const CRITERIA_RESET = {
  devStatus: 'pending',
  devEvidence: null,
  devMarkedByType: null,
  devMarkedByUuid: null,
  devMarkedAt: null,
  status: 'pending',
  evidence: null,
  markedByType: null,
  markedByUuid: null,
  markedAt: null,
} as const;

/**
 * Revocation (domain.md §5.4): approved → draft, closing the proposal's tasks through the single task transition
 * check, cutting outside tasks loose from them and deleting the proposal's documents, in one transaction.
 */
@Injectable()
export class ProposalRevocationService {
  constructor(private readonly runner: TransactionRunner) {}

  async revoke(actor: Actor, input: ReviewInput): Promise<RevocationResult> {
    const note = reviewNote(input.reviewNote, false);
    return this.runner.run(actor, async (tx) => {
      const em = tx.manager;
      const p = await lockProposal(em, actor, input.proposalUuid);
      if (!(await mayReview(em, actor, p))) throw new ForbiddenError("Only the proposal's creator or a holder of proposal:admin can revoke it");
      p.status = checkProposalTransition(p.status, 'revoke') as ProposalStatus;
      p.reviewedByType = actor.type;
      p.reviewedByUuid = actor.uuid;
      p.reviewNote = note;
      p.reviewedAt = new Date();
      await em.save(p);
      tx.change('proposal', p.uuid, p.projectUuid, 'updated');
      tx.activity({ projectUuid: p.projectUuid, targetType: 'proposal', targetUuid: p.uuid, action: 'revoked', value: { reviewNote: note } });

      const tasks = await em.find(TaskEntity, {
        where: { companyUuid: actor.companyUuid, proposalUuid: p.uuid },
        order: { createdAt: 'ASC', uuid: 'ASC' },
        lock: { mode: 'pessimistic_write' },
      });
      const closedTasks = await this.closeTasks(tx, tasks.filter((t) => t.status !== 'closed'), p.uuid);
      await this.unlinkOutsideTasks(tx, tasks.map((t) => t.uuid));
      const deletedDocuments = await this.deleteDocuments(tx, actor, p.uuid);
      return { proposal: await loadProposalRecord(em, p), closedTasks, deletedDocuments };
    });
  }

  private async closeTasks(tx: Tx, tasks: TaskEntity[], proposalUuid: string): Promise<RevocationResult['closedTasks']> {
    const em = tx.manager;
    const closed: RevocationResult['closedTasks'] = [];
    for (const task of tasks) {
      const from = task.status;
      const check = checkTaskTransition({
        trigger: 'revoke_close',
        status: from,
        // The revoke's own guard (creator or proposal:admin) stands in for the task's actor rule.
        callerIsAssignee: false,
        unresolvedPrerequisites: [],
        acceptance: acceptanceSummary(await em.find(AcceptanceCriterionEntity, { where: { taskUuid: task.uuid }, select: { required: true, status: true } })),
      });
      if (!check.ok) {
        const { ok: _ok, code, message, ...extra } = check;
        throw new AppError(code, message, extra);
      }
      const effects = sideEffectsOf(from, check.to);
      task.status = check.to;
      if (effects.clearAssignee) Object.assign(task, { assigneeType: null, assigneeUuid: null, assignedAt: null, assignedByType: null, assignedByUuid: null });
      await em.save(task);
      if (effects.resetCriteria) await em.update(AcceptanceCriterionEntity, { taskUuid: task.uuid }, CRITERIA_RESET);
      if (effects.checkoutSessions) await em.update(SessionTaskCheckinEntity, { taskUuid: task.uuid, checkoutAt: IsNull() }, { checkoutAt: new Date() });
      tx.change('task', task.uuid, task.projectUuid, 'updated');
      tx.activity({ projectUuid: task.projectUuid, targetType: 'task', targetUuid: task.uuid, action: 'closed', value: { from, proposalUuid, reason: 'proposal_revoked' } });
      closed.push({ uuid: task.uuid, title: task.title });
    }
    return closed;
  }

  /** Deletes edges where a task outside the proposal depends on one of its tasks; edges among its own tasks stay. */
  private async unlinkOutsideTasks(tx: Tx, own: string[]): Promise<void> {
    if (own.length === 0) return;
    const em: EntityManager = tx.manager;
    const edges: Array<{ task_uuid: string; depends_on_uuid: string; project_uuid: string }> = await em.query(
      `SELECT d.task_uuid, d.depends_on_uuid, t.project_uuid
         FROM task_dependency d JOIN task t ON t.uuid = d.task_uuid
        WHERE d.depends_on_uuid = ANY($1::uuid[]) AND NOT (d.task_uuid = ANY($1::uuid[]))
        ORDER BY t.created_at, d.task_uuid, d.depends_on_uuid`,
      [own],
    );
    if (edges.length === 0) return;
    await em
      .createQueryBuilder()
      .delete()
      .from(TaskDependencyEntity)
      .where('depends_on_uuid IN (:...own) AND task_uuid NOT IN (:...own)', { own })
      .execute();
    for (const e of edges) {
      tx.change('task', e.task_uuid, e.project_uuid, 'updated');
      tx.activity({ projectUuid: e.project_uuid, targetType: 'task', targetUuid: e.task_uuid, action: 'dependency_removed', value: { dependsOnUuid: e.depends_on_uuid } });
    }
  }

  private async deleteDocuments(tx: Tx, actor: Actor, proposalUuid: string): Promise<RevocationResult['deletedDocuments']> {
    const em = tx.manager;
    const docs = await em.find(DocumentEntity, { where: { companyUuid: actor.companyUuid, proposalUuid }, order: { createdAt: 'ASC', uuid: 'ASC' } });
    if (docs.length === 0) return [];
    const uuids = docs.map((d) => d.uuid);
    await deleteTargetCollaboration(em, actor.companyUuid, 'document', uuids);
    await em.delete(DocumentEntity, { uuid: In(uuids) });
    for (const d of docs) {
      tx.change('document', d.uuid, d.projectUuid, 'deleted');
      tx.activity({ projectUuid: d.projectUuid, targetType: 'document', targetUuid: d.uuid, action: 'deleted', value: { title: d.title, proposalUuid } });
    }
    return docs.map((d) => ({ uuid: d.uuid, title: d.title }));
  }
}
