import { randomUUID } from 'node:crypto';
import type { ActorType } from '../../shared/auth/actor.js';
import type { Tx } from '../../shared/database/transaction-runner.js';
import { deleteTargetCollaboration } from '../collaboration/index.js';
import type { DocumentType } from './document.entity.js';
import { DocumentRepository } from './document.repository.js';

/*
 * What other modules do to documents inside their own transactions: a proposal's approval creates them, its
 * revocation deletes them, its deletion unlinks them, and an idea move carries them along.
 */

/** The approved proposal the documents come from: they belong to its project and count as created by its creator. */
export interface DocumentOrigin {
  uuid: string;
  companyUuid: string;
  projectUuid: string;
  createdByType: ActorType;
  createdByUuid: string;
}

/**
 * Approval (docs/domain.md §5.3 step 2): one version-1 document per draft, stamped in order from `at`. Records each
 * one's `created` activity; no change event, the documents appear with the proposal's update (§5.3).
 */
export async function createDocumentsFromProposal(
  tx: Tx,
  origin: DocumentOrigin,
  drafts: ReadonlyArray<{ uuid: string; type: DocumentType; title: string; content: string }>,
  at: number,
): Promise<Array<{ draftUuid: string; documentUuid: string; title: string }>> {
  const documents = new DocumentRepository(tx.manager);
  const created: Array<{ draftUuid: string; documentUuid: string; title: string }> = [];
  for (const [i, d] of drafts.entries()) {
    const documentUuid = randomUUID();
    await documents.add({
      companyUuid: origin.companyUuid,
      projectUuid: origin.projectUuid,
      proposalUuid: origin.uuid,
      createdByType: origin.createdByType,
      createdByUuid: origin.createdByUuid,
      createdAt: new Date(at + i),
      updatedAt: new Date(at + i),
      uuid: documentUuid,
      type: d.type,
      title: d.title,
      content: d.content,
      version: 1,
    });
    created.push({ draftUuid: d.uuid, documentUuid, title: d.title });
    tx.record('document.created', { projectUuid: origin.projectUuid, uuid: documentUuid }, { proposalUuid: origin.uuid });
  }
  return created;
}

/** Revocation (docs/domain.md §5.4 step 3): the proposal's documents go, with their comments. Returns them. */
export async function deleteDocumentsOfRevokedProposal(tx: Tx, proposalUuid: string): Promise<Array<{ uuid: string; title: string }>> {
  const documents = new DocumentRepository(tx.manager);
  const companyUuid = tx.actor.companyUuid;
  const docs = await documents.ofProposal(companyUuid, proposalUuid);
  if (docs.length === 0) return [];
  const uuids = docs.map((d) => d.uuid);
  await deleteTargetCollaboration(tx.manager, companyUuid, 'document', uuids);
  await documents.removeAll(uuids);
  for (const d of docs) {
    tx.change('document', d.uuid, d.projectUuid, 'deleted');
    tx.record('document.deleted', { projectUuid: d.projectUuid, uuid: d.uuid }, { title: d.title, proposalUuid });
  }
  return docs.map((d) => ({ uuid: d.uuid, title: d.title }));
}

/** A deleted proposal's documents stay, unlinked; returns them for the caller's change events. */
export async function unlinkDocumentsFromProposal(tx: Tx, proposalUuid: string): Promise<Array<{ uuid: string; projectUuid: string }>> {
  return new DocumentRepository(tx.manager).unlink(tx.actor.companyUuid, proposalUuid);
}

/** An idea move (docs/domain.md §8) carries these documents, already locked by the caller, to the target project. */
export async function moveDocumentsToProject(tx: Tx, documentUuids: readonly string[], projectUuid: string): Promise<void> {
  if (!documentUuids.length) return;
  await new DocumentRepository(tx.manager).moveToProject(tx.actor.companyUuid, documentUuids, projectUuid);
}
