import type { EntityManager } from 'typeorm';
import { CommentRepository } from './comment.repository.js';
import { ReferenceRepository } from './reference.repository.js';
import type { TargetType } from './target.js';

/**
 * Polymorphic links have no foreign keys (docs/domain.md §1): a module deleting ideas, proposals, tasks or documents
 * calls this in the same transaction to remove their comments and references. Activities are kept.
 */
export async function deleteTargetCollaboration(em: EntityManager, companyUuid: string, targetType: TargetType, targetUuids: string[]): Promise<void> {
  if (!targetUuids.length) return;
  await new CommentRepository(em).removeFor(companyUuid, targetType, targetUuids);
  if (targetType !== 'document') await new ReferenceRepository(em).removeFor(companyUuid, targetType, targetUuids);
}
