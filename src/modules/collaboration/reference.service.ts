import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Actor } from '../../shared/auth/actor.js';
import { PersonResolver } from '../../shared/database/person.js';
import { TransactionRunner, type Tx } from '../../shared/database/transaction-runner.js';
import type { DomainEventMap } from '../../shared/events/domain-events.js';
import { NotFoundError, ValidationError } from '../../shared/errors/app-error.js';
import { isUuid } from '../../shared/validation/uuid-param.pipe.js';
import type { ReferenceEntity, ReferenceTargetType } from './collaboration.entity.js';
import { toReferenceRecord, type ReferenceRecord } from './collaboration.records.js';
import { MAX_REFERENCES_PER_TARGET, validateReference, type ReferenceInput, type ValidReference } from './domain/reference.rules.js';
import { ReferenceRepository } from './reference.repository.js';
import { parseTargetType, resolveTarget, type ResolvedTarget } from './target.js';

export const REFERENCE_TARGET_TYPES: readonly ReferenceTargetType[] = ['idea', 'proposal', 'task'];

export interface AddReferenceInput extends ReferenceInput {
  targetType: string;
  targetUuid: string;
}

export interface UpdateReferenceInput {
  referenceUuid: string;
  type?: string;
  url?: string;
  title?: string;
  /** null clears the notes. */
  notes?: string | null;
}

const EDITABLE = ['type', 'url', 'title', 'notes'] as const;

/** A target's references, oldest first, for inlining on its record (docs/domain.md §2.15). */
export async function listForTarget(em: EntityManager, companyUuid: string, targetType: ReferenceTargetType, targetUuid: string): Promise<ReferenceRecord[]> {
  const rows = await new ReferenceRepository(em).ofTarget({ companyUuid, targetType, targetUuid });
  const people = await PersonResolver.load(em, rows.map((r) => ({ type: r.createdByType, uuid: r.createdByUuid })));
  return rows.map((r) => toReferenceRecord(r, people));
}

/**
 * Attaches already-validated references to a target inside a running mutation, enforcing the limit of 50 per
 * target. Used by creation tools that take `references` (ideas, proposals, tasks) and by svc_add_reference.
 * Writes no event or activity: the caller records its own (`created`, or `reference_added`).
 */
export async function insertReferences(tx: Tx, target: { type: ReferenceTargetType; uuid: string }, refs: ValidReference[]): Promise<ReferenceEntity[]> {
  if (!refs.length) return [];
  const references = new ReferenceRepository(tx.manager);
  const scope = { companyUuid: tx.actor.companyUuid, targetType: target.type, targetUuid: target.uuid };
  const existing = await references.total(scope);
  if (existing + refs.length > MAX_REFERENCES_PER_TARGET) {
    throw new ValidationError(`Maximum ${MAX_REFERENCES_PER_TARGET} references per target`);
  }
  return references.add(refs.map((ref) => ({ uuid: randomUUID(), ...scope, ...ref, createdByType: tx.actor.type, createdByUuid: tx.actor.uuid })));
}

/** External links on ideas, proposals and tasks; every write counts as `<targetType> updated`. */
@Injectable()
export class ReferenceService {
  constructor(
    private readonly references: ReferenceRepository,
    private readonly runner: TransactionRunner,
  ) {}

  async add(actor: Actor, input: AddReferenceInput): Promise<ReferenceRecord> {
    const targetType = parseTargetType(input.targetType, REFERENCE_TARGET_TYPES) as ReferenceTargetType;
    const ref = validateReference(input);
    return this.runner.run(actor, async (tx) => {
      // Locked so two concurrent adds cannot both pass the limit.
      const target = await resolveTarget(tx.manager, actor.companyUuid, targetType, input.targetUuid, true);
      const [row] = await insertReferences(tx, { type: targetType, uuid: target.uuid }, [ref]);
      this.record(tx, target, 'reference.added', { referenceUuid: row.uuid, type: row.type, title: row.title, url: row.url });
      return this.toRecord(tx.manager, row);
    });
  }

  async update(actor: Actor, input: UpdateReferenceInput): Promise<ReferenceRecord> {
    const given = EDITABLE.filter((k) => input[k] !== undefined);
    if (!given.length) throw new ValidationError('Nothing to update');
    return this.runner.run(actor, async (tx) => {
      const row = await this.lock(tx, input.referenceUuid);
      // Only notes may be cleared with null; a null type, url or title fails their rules.
      const pick = <K extends (typeof EDITABLE)[number]>(k: K): ReferenceInput[K] => (input[k] !== undefined ? input[k] : row[k]) as ReferenceInput[K];
      const next = validateReference({ type: pick('type'), url: pick('url'), title: pick('title'), notes: pick('notes') });
      const changed = EDITABLE.filter((k) => next[k] !== row[k]);
      // An update that changes nothing publishes nothing and writes no activity.
      if (!changed.length) return this.toRecord(tx.manager, row);
      const target = await resolveTarget(tx.manager, actor.companyUuid, row.targetType, row.targetUuid);
      Object.assign(row, next);
      const saved = await this.references.in(tx).store(row);
      this.record(tx, target, 'reference.updated', { referenceUuid: row.uuid, fields: changed });
      return this.toRecord(tx.manager, saved);
    });
  }

  async remove(actor: Actor, input: { referenceUuid: string }): Promise<{ uuid: string; deleted: true }> {
    return this.runner.run(actor, async (tx) => {
      const row = await this.lock(tx, input.referenceUuid);
      const target = await resolveTarget(tx.manager, actor.companyUuid, row.targetType, row.targetUuid);
      await this.references.in(tx).remove(row.uuid, actor.companyUuid);
      this.record(tx, target, 'reference.removed', { referenceUuid: row.uuid, title: row.title, url: row.url });
      return { uuid: row.uuid, deleted: true as const };
    });
  }

  private async lock(tx: Tx, uuid: string): Promise<ReferenceEntity> {
    if (!isUuid(uuid)) throw new NotFoundError('Reference');
    return this.references.in(tx).lock(uuid, tx.actor.companyUuid);
  }

  private record<K extends 'reference.added' | 'reference.updated' | 'reference.removed'>(tx: Tx, target: ResolvedTarget, name: K, payload: DomainEventMap[K]): void {
    tx.change(target.type, target.uuid, target.projectUuid, 'updated');
    tx.record(name, { projectUuid: target.projectUuid, uuid: target.uuid, type: target.type }, payload);
  }

  private async toRecord(em: EntityManager, row: ReferenceEntity): Promise<ReferenceRecord> {
    const people = await PersonResolver.load(em, [{ type: row.createdByType, uuid: row.createdByUuid }]);
    return toReferenceRecord(row, people);
  }
}
