import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource, type EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import type { Actor } from '../auth/actor.js';
import { EventBus } from '../event-bus/event-bus.port.js';
import type { ChangeAction, EntityType, RealtimeEvent } from '../event-bus/events.js';
import { LOGGER } from '../logging/logger.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { ActivityEntity } from './activity.entity.js';

export interface ActivityInput {
  projectUuid: string;
  targetType: EntityType;
  targetUuid: string;
  action: string;
  value?: Record<string, unknown> | null;
}

/** A text that may carry @mentions, written by this mutation (notifications.md §5). */
export interface MentionSource {
  sourceType: 'comment' | 'task' | 'idea';
  sourceUuid: string;
  /** The notification's entity: the comment's target, else the task or idea itself. */
  entityType: EntityType;
  entityUuid: string;
  entityTitle: string;
  projectUuid: string;
  /** The previous text (null on creation): only mentions absent from it notify. */
  before: string | null;
  after: string;
}

/** What post-commit hooks (notification generation) receive. Never handed to relayed messages. */
export interface CommittedMutation {
  actor: Actor;
  /** Every recorded action in order, before merging into one activity row per target. */
  activities: Array<ActivityInput & { uuid: string }>;
  mentionSources: MentionSource[];
}

export type MutationHook = (mutation: CommittedMutation) => Promise<void>;

/** Post-commit hooks, registered by modules that react to committed mutations (notifications). */
@Injectable()
export class MutationHooks {
  private readonly hooks: MutationHook[] = [];
  register(hook: MutationHook): void {
    this.hooks.push(hook);
  }
  list(): readonly MutationHook[] {
    return this.hooks;
  }
}

/** One mutation's transaction: its manager plus the change events, activities and texts it collects. */
export class Tx {
  private readonly changes = new Map<string, RealtimeEvent>();
  readonly activities: Array<ActivityInput & { uuid: string }> = [];
  readonly mentionSources: MentionSource[] = [];
  private readonly afterCommitCallbacks: Array<() => void> = [];

  constructor(
    readonly manager: EntityManager,
    readonly actor: Actor,
  ) {}

  /**
   * Records a change event for after commit: at most one per entity and project; `created`/`deleted` absorb a
   * later `updated`, and an `updated` never replaces them.
   */
  change(entityType: EntityType, entityUuid: string, projectUuid: string, action: ChangeAction): void {
    const key = `${entityType}:${entityUuid}:${projectUuid}`;
    const existing = this.changes.get(key);
    if (existing) {
      if (action === 'deleted') existing.action = 'deleted';
      return;
    }
    this.changes.set(key, { companyUuid: this.actor.companyUuid, projectUuid, entityType, entityUuid, action });
  }

  /** Events collected so far, in collection order. */
  changeEvents(): RealtimeEvent[] {
    return [...this.changes.values()];
  }

  activity(input: ActivityInput): void {
    this.activities.push({ ...input, uuid: randomUUID() });
  }

  mentions(source: MentionSource): void {
    this.mentionSources.push(source);
  }

  afterCommit(cb: () => void): void {
    this.afterCommitCallbacks.push(cb);
  }

  runAfterCommit(): void {
    for (const cb of this.afterCommitCallbacks) cb();
  }
}

/** Actions that win over `edited` when several changes to one target are merged into one activity row. */
function mergeActivities(list: Tx['activities']): Array<ActivityInput & { uuid: string }> {
  const byTarget = new Map<string, Array<ActivityInput & { uuid: string }>>();
  for (const a of list) {
    const key = `${a.targetType}:${a.targetUuid}:${a.projectUuid}`;
    const group = byTarget.get(key);
    if (group) group.push(a);
    else byTarget.set(key, [a]);
  }
  const out: Array<ActivityInput & { uuid: string }> = [];
  for (const group of byTarget.values()) {
    if (group.length === 1) {
      out.push(group[0]);
      continue;
    }
    const primary = group.find((a) => a.action !== 'edited') ?? group[0];
    out.push({
      ...primary,
      value: { ...(primary.value ?? {}), changes: group.map((a) => ({ action: a.action, ...(a.value ?? {}) })) },
    });
  }
  return out;
}

/**
 * Runs a mutation in one database transaction. Activities are written inside it (one row per changed target);
 * change events go to the bus only after commit, and post-commit hooks (notifications) run before the call
 * returns. A rollback publishes and notifies nothing.
 */
@Injectable()
export class TransactionRunner {
  constructor(
    private readonly db: DataSource,
    private readonly bus: EventBus,
    private readonly hooks: MutationHooks,
    private readonly metrics: MetricsService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async run<T>(actor: Actor, work: (tx: Tx) => Promise<T>): Promise<T> {
    let tx!: Tx;
    const result = await this.db.transaction(async (manager) => {
      tx = new Tx(manager, actor);
      const r = await work(tx);
      const rows = mergeActivities(tx.activities);
      if (rows.length) {
        const now = new Date();
        await manager.insert(
          ActivityEntity,
          rows.map((a, i) => ({
            uuid: a.uuid,
            companyUuid: actor.companyUuid,
            projectUuid: a.projectUuid,
            targetType: a.targetType,
            targetUuid: a.targetUuid,
            actorType: actor.type,
            actorUuid: actor.uuid,
            action: a.action,
            value: a.value ?? null,
            sessionUuid: actor.session?.uuid ?? null,
            sessionName: actor.session?.name ?? null,
            // Distinct, ordered timestamps keep "newest first" stable within one mutation.
            createdAt: new Date(now.getTime() + i),
          })) as QueryDeepPartialEntity<ActivityEntity>[],
        );
      }
      return r;
    });
    this.afterCommit(tx);
    if (tx.activities.length || tx.mentionSources.length) {
      const mutation: CommittedMutation = { actor, activities: tx.activities, mentionSources: tx.mentionSources };
      for (const hook of this.hooks.list()) {
        try {
          await hook(mutation);
        } catch (err) {
          this.logger.error({ err: err instanceof Error ? err.message : String(err) }, 'post-commit hook failed');
        }
      }
    }
    return result;
  }

  private afterCommit(tx: Tx): void {
    for (const event of tx.changeEvents()) {
      this.bus.publish('change', event);
      this.metrics.eventsPublished.inc({ kind: 'change' });
    }
    tx.runAfterCommit();
  }
}
