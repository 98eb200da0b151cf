import { In } from 'typeorm';
import { Repository } from '../../shared/database/repository.js';
import { CommentEntity, type CommentTargetType } from './collaboration.entity.js';

type Target = { companyUuid: string; targetType: CommentTargetType; targetUuid: string };

/** The `comment` table (README "Table ownership": collaboration owns it), tenant-scoped; comments are append-only. */
export class CommentRepository extends Repository {
  /** A page of the target's comments, oldest first, and their total. */
  page(target: Target, skip: number, take: number): Promise<[CommentEntity[], number]> {
    return this.em.findAndCount(CommentEntity, {
      where: target,
      order: { createdAt: 'ASC', uuid: 'ASC' },
      skip,
      take,
    });
  }

  /**
   * Appends a comment stamped with clock_timestamp(), not now(): several comments of one transaction keep their
   * order. Returns the stored row.
   */
  async add(row: Target & Pick<CommentEntity, 'uuid' | 'content' | 'authorType' | 'authorUuid'>): Promise<CommentEntity> {
    await this.em
      .createQueryBuilder()
      .insert()
      .into(CommentEntity)
      .values({ ...row, createdAt: () => 'clock_timestamp()', updatedAt: () => 'clock_timestamp()' })
      .execute();
    return this.em.findOneByOrFail(CommentEntity, { uuid: row.uuid });
  }

  total(target: Target): Promise<number> {
    return this.em.count(CommentEntity, { where: target });
  }

  /** Removes the comments of the targets. */
  async removeFor(companyUuid: string, targetType: CommentTargetType, targetUuids: string[]): Promise<void> {
    await this.em.delete(CommentEntity, { companyUuid, targetType, targetUuid: In(targetUuids) });
  }
}
