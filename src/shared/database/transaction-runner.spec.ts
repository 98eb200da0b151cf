import { EventEmitter2 } from '@nestjs/event-emitter';
import { pino } from 'pino';
import type { DataSource, EntityManager } from 'typeorm';
import { USER_PERMISSIONS, type Actor } from '../auth/actor.js';
import type { EventBus } from '../event-bus/event-bus.port.js';
import { MUTATION_EVENTS, type MutationCommitted } from '../event-bus/events.js';
import { MetricsService } from '../metrics/metrics.service.js';
import type { StreamLog } from '../stream-log/stream-log.js';
import { TransactionRunner } from './transaction-runner.js';

const actor: Actor = { type: 'user', uuid: 'u', companyUuid: 'c', name: 'U', ownerUuid: null, permissions: USER_PERMISSIONS };

/** A query runner that records the transaction statements it is asked for (no database). */
function fakeDatabase() {
  const calls: string[] = [];
  const manager = {} as EntityManager;
  const runner = {
    manager,
    isTransactionActive: false,
    async startTransaction() {
      calls.push('BEGIN');
      this.isTransactionActive = true;
    },
    async commitTransaction() {
      calls.push('COMMIT');
      this.isTransactionActive = false;
    },
    async rollbackTransaction() {
      calls.push('ROLLBACK');
      this.isTransactionActive = false;
    },
    async release() {
      calls.push('release');
    },
  };
  return { calls, db: { createQueryRunner: () => runner } as unknown as DataSource };
}

function setup() {
  const { calls, db } = fakeDatabase();
  const published: unknown[] = [];
  const bus = { publish: (...args: unknown[]) => published.push(args) } as unknown as EventBus;
  const log = { append: async (_em: unknown, _s: unknown, entries: unknown[]) => entries.map((_e, i) => `e-${i + 1}`) } as unknown as StreamLog;
  const events = new EventEmitter2();
  const held: MutationCommitted[] = [];
  const audited: unknown[] = [];
  events.on(MUTATION_EVENTS.beforeCommit, (tx: unknown) => audited.push(tx));
  events.on(MUTATION_EVENTS.committed, (p: MutationCommitted) => held.push(p));
  const runner = new TransactionRunner(db, bus, events, new MetricsService(), log, pino({ level: 'silent' }));
  return { runner, calls, published, held, audited };
}

describe('TransactionRunner', () => {
  it('commits the work, then publishes its change events and emits its domain events', async () => {
    const { runner, calls, published, held, audited } = setup();
    const result = await runner.run(actor, async (tx) => {
      tx.change('task', 't', 'p', 'updated');
      tx.record('task.edited', { projectUuid: 'p', uuid: 't' }, { fields: ['title'] });
      return 'done';
    });
    expect(result).toBe('done');
    expect(calls).toEqual(['BEGIN', 'COMMIT', 'release']);
    expect(audited).toHaveLength(1);
    expect(published).toHaveLength(1);
    expect(held.map((m) => m.events.map((e) => e.name))).toEqual([['task.edited']]);
  });

  it('rolls a rollback-only mutation back without an error: its result is returned, nothing is written or published', async () => {
    const { runner, calls, published, held, audited } = setup();
    const result = await runner.run(actor, async (tx) => {
      tx.change('task', 't', 'p', 'updated');
      tx.record('task.edited', { projectUuid: 'p', uuid: 't' }, { fields: ['title'] });
      tx.rollbackOnly();
      return { changed: 0 };
    });
    expect(result).toEqual({ changed: 0 });
    expect(calls).toEqual(['BEGIN', 'ROLLBACK', 'release']);
    expect(published).toEqual([]);
    expect(held).toEqual([]);
    expect(audited).toEqual([]);
  });

  it('rolls back and rethrows when the work fails', async () => {
    const { runner, calls, published } = setup();
    await expect(
      runner.run(actor, async (tx) => {
        tx.change('task', 't', 'p', 'updated');
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(calls).toEqual(['BEGIN', 'ROLLBACK', 'release']);
    expect(published).toEqual([]);
  });
});
