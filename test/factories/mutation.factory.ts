import type { Actor } from '../../src/shared/auth/actor.js';
import type { TransactionRunner } from '../../src/shared/database/transaction-runner.js';
import type { DomainEventName } from '../../src/shared/events/domain-events.js';
import { resolveTarget, writeComment, type CommentRecord } from '../../src/modules/collaboration/index.js';
import { DocumentEntity, IdeaEntity, ProposalEntity, TaskEntity } from '../../src/entities.js';

export type Kind = 'task' | 'idea' | 'proposal' | 'document';
const ENTITY = { task: TaskEntity, idea: IdeaEntity, proposal: ProposalEntity, document: DocumentEntity } as const;

export interface Row {
  uuid: string;
  projectUuid: string;
}

/**
 * Committed mutations the way the domain services perform them (row writes, `tx.record`, `tx.text` inside
 * `runner.run`), for tests of what reacts to them (notification generation) without depending on those services.
 */
export class MutationDriver {
  constructor(private readonly runner: TransactionRunner) {}

  /** Patches the row (optional) and records one domain event on it: `<kind>.<action>` (`comment_added`: `comment.added`). */
  act(actor: Actor, kind: Kind, row: Row, action: string, opts: { patch?: Record<string, unknown>; value?: Record<string, unknown> } = {}): Promise<void> {
    return this.runner.run(actor, async (tx) => {
      if (opts.patch) await tx.manager.update(ENTITY[kind], { uuid: row.uuid }, opts.patch as never);
      tx.change(kind, row.uuid, row.projectUuid, 'updated');
      const name = (action === 'comment_added' ? 'comment.added' : `${kind}.${action}`) as DomainEventName;
      tx.record(name, { projectUuid: row.projectUuid, uuid: row.uuid, type: kind }, (opts.value ?? {}) as never);
    });
  }

  /** svc_add_comment: the real comment writer of the collaboration module. */
  comment(actor: Actor, kind: Kind, uuid: string, content: string): Promise<CommentRecord> {
    return this.runner.run(actor, async (tx) => writeComment(tx, await resolveTarget(tx.manager, actor.companyUuid, kind, uuid), content));
  }

  /** An edit of a task description or idea content: the text goes to `tx.text` with its previous version. */
  editText(actor: Actor, kind: 'task' | 'idea', row: Row, text: string, extra?: (tx: Parameters<Parameters<TransactionRunner['run']>[1]>[0]) => Promise<void>): Promise<void> {
    return this.runner.run(actor, async (tx) => {
      const field = kind === 'task' ? 'description' : 'content';
      const current = (await tx.manager.findOneByOrFail(ENTITY[kind], { uuid: row.uuid })) as unknown as Record<string, string>;
      await tx.manager.update(ENTITY[kind], { uuid: row.uuid }, { [field]: text } as never);
      tx.change(kind, row.uuid, row.projectUuid, 'updated');
      tx.record(`${kind}.edited` as 'task.edited', { projectUuid: row.projectUuid, uuid: row.uuid }, {} as never);
      tx.text({
        sourceType: kind,
        sourceUuid: row.uuid,
        entityType: kind,
        entityUuid: row.uuid,
        entityTitle: current.title,
        projectUuid: row.projectUuid,
        before: current[field] || null,
        after: text,
      });
      if (extra) await extra(tx);
    });
  }
}
