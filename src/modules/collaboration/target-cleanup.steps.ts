import { In, type EntityManager } from 'typeorm';
import { CommentEntity, ReferenceEntity } from './collaboration.entity.js';
import type { TargetType } from './target.js';

/**
 * Polymorphic links have no foreign keys (domain.md §1): a module deleting ideas, proposals, tasks or documents
 * calls this in the same transaction to remove their comments and references. Activities are kept.
 */
export async function deleteTargetCollaboration(em: EntityManager, companyUuid: string, targetType: TargetType, targetUuids: string[]): Promise<void> {
  if (!targetUuids.length) return;
  await em.delete(CommentEntity, { companyUuid, targetType, targetUuid: In(targetUuids) });
  if (targetType !== 'document') await em.delete(ReferenceEntity, { companyUuid, targetType, targetUuid: In(targetUuids) });
}
