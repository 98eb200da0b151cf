import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type { Logger } from 'pino';
import { DataSource, type EntityManager } from 'typeorm';
import type { Actor } from '../auth/actor.js';
import { EventBus } from '../event-bus/event-bus.port.js';
import { changeJson, MUTATION_EVENTS, type ChangeAction, type EntityType, type MutationCommitted, type RealtimeEvent } from '../event-bus/events.js';
import type { AnyDomainEvent, DomainEventMap, DomainEventName, MentionSource } from '../events/domain-events.js';
import { dispatchTxEvent, type TxEventName, type TxEvents } from '../events/tx-events.js';
import { LOGGER, requestContext } from '../logging/logger.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { StreamLog } from '../stream-log/stream-log.js';

const ENTITY_SUBJECTS: ReadonlySet<string> = new Set<EntityType>(['task', 'idea', 'proposal', 'document']);

/** What a domain event is about: the work item (its type follows from an `<entity>.<verb>` name) and its project. */
export interface EventTarget {
  projectUuid: string;
  uuid: string;
  /** Needed for events whose subject is not the item itself (`comment.*`, `reference.*`, `text.*`, `mention.*`). */
  type?: EntityType;
}

/**
 * One mutation's transaction: its manager, the change events it publishes after commit and the domain events it
 * records. It decides nothing about them: domain events go to their owners before commit (the activity log, mentions)
 * and to their reactions after commit (notifications), change events to the bus; a rollback drops them all.
 */
export class Tx {
  private readonly changes = new Map<string, RealtimeEvent>();
  /** The mutation's domain events, in the order it recorded them. */
  readonly events: AnyDomainEvent[] = [];
  private discarded = false;

  constructor(
    readonly manager: EntityManager,
    readonly actor: Actor,
    private readonly emitter: EventEmitter2,
  ) {}

  /** Dispatches an in-transaction event (shared/events/tx-events.ts) to the module that reacts to it, and waits. */
  dispatch<K extends TxEventName>(name: K, payload: TxEvents[K]): Promise<void> {
    return dispatchTxEvent(this.emitter, this.manager, name, payload);
  }

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

  /** Records that the mutation wrote a text that may carry @mentions (`text.written`, about the text's item). */
  text(source: MentionSource): void {
    this.record('text.written', { projectUuid: source.projectUuid, uuid: source.entityUuid, type: source.entityType }, source);
  }

  /** Records a domain event (shared/events/domain-events.ts) of this mutation. */
  record<K extends DomainEventName>(name: K, on: EventTarget, payload: DomainEventMap[K]): void {
    const subject = name.slice(0, name.indexOf('.'));
    const type = on.type ?? (ENTITY_SUBJECTS.has(subject) ? (subject as EntityType) : null);
    if (!type) throw new Error(`${name} needs its target's type`);
    this.events.push({ name, projectUuid: on.projectUuid, target: { type, uuid: on.uuid }, payload, uuid: randomUUID() } as AnyDomainEvent);
  }

  /**
   * The mutation found nothing to change: its transaction rolls back instead of committing, so whatever it wrote on
   * the way (a stream position it reserved first, to lock in key order) is given back, and nothing it recorded or
   * held is written or published; `run` still returns the work's result. For writes that learn whether they change
   * anything only by trying (an idempotent mark of the notification inbox).
   */
  rollbackOnly(): void {
    this.discarded = true;
  }

  get isRollbackOnly(): boolean {
    return this.discarded;
  }
}

/**
 * Runs a mutation in one database transaction. Before commit, a mutation with domain events emits
 * `MUTATION_EVENTS.beforeCommit` (awaited, inside the transaction): the module owning the audit tables writes them
 * there, with their policy, so they commit or roll back with the mutation. Then, as the transaction's last statement,
 * its change events take their company positions and are logged (the stream log: positions in commit order, no
 * position for a rollback). After commit, change events go to the bus with their positions and the domain events to
 * their `MUTATION_EVENTS.committed` reactions, awaited before the call returns (so a notification exists when it
 * returns); a reaction's failure is logged with the request id and never changes the result. A rollback publishes
 * nothing — whether the work threw or declared that it changed nothing (`tx.rollbackOnly()`, which is not an error:
 * its result is returned).
 */
@Injectable()
export class TransactionRunner {
  constructor(
    private readonly db: DataSource,
    private readonly bus: EventBus,
    private readonly events: EventEmitter2,
    private readonly metrics: MetricsService,
    private readonly log: StreamLog,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async run<T>(actor: Actor, work: (tx: Tx) => Promise<T>): Promise<T> {
    let tx!: Tx;
    let changes: RealtimeEvent[] = [];
    let frames: string[] = [];
    let positions: string[] = [];
    // The transaction by hand (TypeORM's `transaction()` commits whatever resolves): a rollback-only mutation ends
    // in a rollback without an error thrown to get there.
    const runner = this.db.createQueryRunner();
    let result: T;
    try {
      await runner.startTransaction();
      tx = new Tx(runner.manager, actor, this.events);
      result = await work(tx);
      if (tx.isRollbackOnly) {
        await runner.rollbackTransaction();
        return result;
      }
      if (tx.events.length) await this.beforeCommit(tx);
      changes = tx.changeEvents();
      // Serialized once: the log keeps this JSON and the streams send it as it is.
      frames = changes.map(changeJson);
      // Last: the company's head stays locked only from here to the commit.
      positions = await this.log.append(
        runner.manager,
        'c',
        changes.map((e, i) => ({ key: e.companyUuid, projectUuid: e.projectUuid, payload: frames[i] })),
      );
      await runner.commitTransaction();
    } catch (err) {
      // The work's (or the commit's) error is the one reported; a failing rollback adds nothing to it.
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      throw err;
    } finally {
      await runner.release();
    }
    changes.forEach((event, i) => {
      this.bus.publish('change', event, positions[i], frames[i]);
      this.metrics.eventsPublished.inc({ kind: 'change' });
    });
    if (tx.events.length) await this.emitCommitted({ actor, events: tx.events });
    return result;
  }

  private async beforeCommit(tx: Tx): Promise<void> {
    // Nobody to write the audit rows (the owning module is not loaded, or its handlers are not bound yet) would
    // silently lose them: refuse the mutation instead.
    if (!this.events.listenerCount(MUTATION_EVENTS.beforeCommit)) throw new Error(`no handler for ${MUTATION_EVENTS.beforeCommit}`);
    await this.events.emitAsync(MUTATION_EVENTS.beforeCommit, tx);
  }

  private async emitCommitted(payload: MutationCommitted): Promise<void> {
    const name = MUTATION_EVENTS.committed;
    // Every handler runs to its end before the call returns. `emitAsync` settles at the first rejection, which would
    // return while slower handlers still run; `@OnEvent` handlers catch and log their own errors (the module's
    // default), so a rejection here comes from a plain listener and is logged the same way.
    const settled = await Promise.allSettled(this.events.listeners(name).map(async (listener) => listener.call(this.events, payload)));
    for (const outcome of settled) {
      if (outcome.status === 'fulfilled') continue;
      const err: unknown = outcome.reason;
      this.logger.error(
        { requestId: requestContext.getStore()?.requestId, event: name, err: err instanceof Error ? err.message : String(err), stack: err instanceof Error ? err.stack : undefined },
        'post-commit handler failed',
      );
    }
  }
}
