import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { Actor } from '../../shared/auth/actor.js';
import { PersonResolver } from '../../shared/database/person.js';
import { TransactionRunner, type Tx } from '../../shared/database/transaction-runner.js';
import { ValidationError } from '../../shared/errors/app-error.js';
import { offsetOf, paging, type PageResult } from '../../shared/validation/paging.js';
import { charLength } from '../../shared/validation/text-rules.js';
import { toCommentRecord, type CommentRecord } from './collaboration.records.js';
import { CommentRepository } from './comment.repository.js';
import { parseTargetType, resolveTarget, type ResolvedTarget } from './target.js';

export const MAX_COMMENT_LENGTH = 20_000;

export interface ListCommentsInput {
  targetType: string;
  targetUuid: string;
  page?: number;
  pageSize?: number;
}

export interface AddCommentInput {
  targetType: string;
  targetUuid: string;
  content: string;
}

export function validateCommentContent(content: unknown): string {
  const text = typeof content === 'string' ? content.trim() : '';
  if (text === '' || charLength(text) > MAX_COMMENT_LENGTH) {
    throw new ValidationError(`Comment content must be 1-${MAX_COMMENT_LENGTH} characters`, [
      { field: 'content', message: `must be 1-${MAX_COMMENT_LENGTH} characters` },
    ]);
  }
  return text;
}

/**
 * Appends a comment inside a running mutation (svc_add_comment, and work reports of the tasks module): the
 * target's `updated` event, a `comment_added` activity on it, and the text handed on for @mentions.
 */
export async function writeComment(tx: Tx, target: ResolvedTarget, content: string): Promise<CommentRecord> {
  const text = validateCommentContent(content);
  const { actor } = tx;
  const comment = await new CommentRepository(tx.manager).add({
    uuid: randomUUID(),
    companyUuid: actor.companyUuid,
    targetType: target.type,
    targetUuid: target.uuid,
    content: text,
    authorType: actor.type,
    authorUuid: actor.uuid,
  });
  tx.change(target.type, target.uuid, target.projectUuid, 'updated');
  tx.record('comment.added', { projectUuid: target.projectUuid, uuid: target.uuid, type: target.type }, { commentUuid: comment.uuid });
  tx.text({
    sourceType: 'comment',
    sourceUuid: comment.uuid,
    entityType: target.type,
    entityUuid: target.uuid,
    entityTitle: target.title,
    projectUuid: target.projectUuid,
    before: null,
    after: text,
  });
  return {
    uuid: comment.uuid,
    targetType: comment.targetType,
    targetUuid: comment.targetUuid,
    content: comment.content,
    author: { type: actor.type, uuid: actor.uuid, name: actor.name },
    createdAt: comment.createdAt.toISOString(),
  };
}

/** Comment count of one target (TaskRecord.commentCount). */
export async function countComments(em: EntityManager, companyUuid: string, targetType: string, targetUuid: string): Promise<number> {
  return new CommentRepository(em).total({ companyUuid, targetType: parseTargetType(targetType), targetUuid });
}

/** Comments are append-only (docs/domain.md §2.16): list and add, nothing else. */
@Injectable()
export class CommentService {
  constructor(
    private readonly db: DataSource,
    private readonly comments: CommentRepository,
    private readonly runner: TransactionRunner,
  ) {}

  async list(actor: Actor, input: ListCommentsInput): Promise<{ comments: CommentRecord[] } & PageResult> {
    const p = paging(input);
    const target = await resolveTarget(this.db.manager, actor.companyUuid, parseTargetType(input.targetType), input.targetUuid);
    const [rows, total] = await this.comments.page({ companyUuid: actor.companyUuid, targetType: target.type, targetUuid: target.uuid }, offsetOf(p), p.pageSize);
    const people = await PersonResolver.load(
      this.db.manager,
      rows.map((c) => ({ type: c.authorType, uuid: c.authorUuid })),
    );
    return { comments: rows.map((c) => toCommentRecord(c, people)), page: p.page, pageSize: p.pageSize, total };
  }

  async add(actor: Actor, input: AddCommentInput): Promise<CommentRecord> {
    const targetType = parseTargetType(input.targetType);
    validateCommentContent(input.content);
    return this.runner.run(actor, async (tx) => {
      const target = await resolveTarget(tx.manager, actor.companyUuid, targetType, input.targetUuid);
      return writeComment(tx, target, input.content);
    });
  }
}
