import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { Injectable, Module } from '@nestjs/common';
import { EventEmitter2, OnEvent } from '@nestjs/event-emitter';
import type { DataSource } from 'typeorm';
import { CollaborationModule } from '../../src/modules/collaboration/index.js';
import { IdentityModule } from '../../src/modules/identity/index.js';
import { ActivityEntity, MentionEntity } from '../../src/entities.js';
import type { Actor } from '../../src/shared/auth/actor.js';
import { TransactionRunner } from '../../src/shared/database/transaction-runner.js';
import { EventBus } from '../../src/shared/event-bus/event-bus.port.js';
import { MUTATION_EVENTS, type MutationCommitted, type RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { createLogger, requestContext } from '../../src/shared/logging/logger.js';
import { CollabFactory } from '../factories/collab.factory.js';
import { userActor, World } from '../utils/world.js';
import type { TestDatabase } from '../utils/test-database.js';

/**
 * The mutation events through the framework's own path: a world compiled with the kernel's EventEmitterModule,
 * collaboration's audit writer and two reactions found by `@OnEvent`, one of which fails (identity for seeding).
 */
const reactions: string[] = [];

@Injectable()
class FailingReaction {
  @OnEvent(MUTATION_EVENTS.committed)
  async react(): Promise<void> {
    throw new Error('reaction boom');
  }
}

@Injectable()
class SlowReaction {
  @OnEvent(MUTATION_EVENTS.committed)
  async react(m: MutationCommitted): Promise<void> {
    await new Promise((r) => setTimeout(r, 50));
    reactions.push(m.events.map((e) => e.name).join(','));
  }
}

@Module({ providers: [FailingReaction, SlowReaction] })
class ReactionsModule {}

let world: World;

let tdb: TestDatabase;
let db: DataSource;
let runner: TransactionRunner;
let actor: Actor;
let projectUuid: string;
const logs: Array<Record<string, unknown>> = [];
const changes: RealtimeEvent[] = [];

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) logs.push(JSON.parse(line) as Record<string, unknown>);
      cb();
    },
  });
  world = await World.database({ modules: [IdentityModule, CollaborationModule, ReactionsModule], logger: createLogger('info', sink), logStreams: true });
  tdb = world.db;
  db = tdb.dataSource;
  runner = world.get(TransactionRunner);
  world.get(EventBus).subscribe('change', (e) => changes.push(e));
  const ids = world.ids;
  const company = await ids.company();
  actor = userActor(await ids.user(company.uuid, { name: 'Ada' }));
  projectUuid = (await new CollabFactory(db).project(company.uuid)).uuid;
});

afterAll(async () => {
  await world?.close();
});

beforeEach(() => {
  logs.length = 0;
  reactions.length = 0;
  changes.length = 0;
});

const activitiesOf = (targetUuid: string) => db.getRepository(ActivityEntity).findBy({ targetUuid });

describe('mutation events on @nestjs/event-emitter', () => {
  it('awaits every reaction before returning; a failing one is logged with the request id and changes nothing', async () => {
    const target = randomUUID();
    const result = await requestContext.run({ requestId: 'req-7' }, () =>
      runner.run(actor, async (tx) => {
        tx.change('idea', target, projectUuid, 'updated');
        tx.record('idea.edited', { projectUuid, uuid: target }, { fields: ['title'] });
        tx.record('idea.assigned', { projectUuid, uuid: target }, {} as never);
        return 'done';
      }),
    );
    expect(result).toBe('done');
    // The slow reaction ran to its end before run() returned, despite the failing one.
    expect(reactions).toEqual(['idea.edited,idea.assigned']);
    expect(logs).toContainEqual(expect.objectContaining({ level: 'error', context: 'Event', msg: 'reaction boom', requestId: 'req-7' }));
    // Collaboration's policy: two actions on one target are one row, led by the action that is not an edit.
    expect(await activitiesOf(target)).toEqual([expect.objectContaining({ action: 'assigned', value: { changes: [{ action: 'edited', fields: ['title'] }, { action: 'assigned' }] } })]);
    expect(changes).toEqual([{ companyUuid: actor.companyUuid, projectUuid, entityType: 'idea', entityUuid: target, action: 'updated' }]);
  });

  it('logs a plain listener that rejects, with the request id, and still returns the result', async () => {
    const emitter = world.get(EventEmitter2);
    const failing = async (): Promise<void> => {
      throw new Error('plain boom');
    };
    emitter.on(MUTATION_EVENTS.committed, failing);
    try {
      const target = randomUUID();
      const result = await requestContext.run({ requestId: 'req-8' }, () =>
        runner.run(actor, async (tx) => {
          tx.record('task.verified', { projectUuid, uuid: target }, {});
          return 42;
        }),
      );
      expect(result).toBe(42);
      // The slow @OnEvent reaction still ran to its end before run() returned.
      expect(reactions).toEqual(['task.verified']);
      expect(logs).toContainEqual(expect.objectContaining({ level: 'error', msg: 'post-commit handler failed', err: 'plain boom', requestId: 'req-8', event: MUTATION_EVENTS.committed }));
      expect(await activitiesOf(target)).toHaveLength(1);
    } finally {
      emitter.off(MUTATION_EVENTS.committed, failing);
    }
  });

  it('a rollback writes no activity or mention, publishes nothing and runs no reaction', async () => {
    const target = randomUUID();
    await expect(
      runner.run(actor, async (tx) => {
        tx.change('task', target, projectUuid, 'updated');
        tx.record('task.edited', { projectUuid, uuid: target }, { fields: [] });
        tx.text({ sourceType: 'task', sourceUuid: target, entityType: 'task', entityUuid: target, entityTitle: 'x', projectUuid, before: null, after: 'hi' });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await activitiesOf(target)).toEqual([]);
    expect(await db.getRepository(MentionEntity).countBy({ sourceUuid: target })).toBe(0);
    expect(changes).toEqual([]);
    expect(reactions).toEqual([]);
  });

  it('a mutation without audit events emits no activity event', async () => {
    await runner.run(actor, async (tx) => tx.change('document', randomUUID(), projectUuid, 'created'));
    expect(changes).toHaveLength(1);
    expect(reactions).toEqual([]);
  });
});
