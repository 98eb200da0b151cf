import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { TransactionRunner } from '../../src/shared/database/transaction-runner.js';
import { StreamLog } from '../../src/shared/stream-log/stream-log.js';
import { openEventSource } from '../utils/sse.js';
import { userActor, World } from '../utils/world.js';
import type { Actor } from '../../src/shared/auth/actor.js';
import { Writable } from 'node:stream';
import { Injectable, Module } from '@nestjs/common';
import { EventEmitter2, OnEvent } from '@nestjs/event-emitter';
import { CollaborationModule } from '../../src/modules/collaboration/index.js';
import { IdentityModule } from '../../src/modules/identity/index.js';
import { ActivityEntity, MentionEntity } from '../../src/entities.js';
import { EventBus } from '../../src/shared/event-bus/event-bus.port.js';
import { MUTATION_EVENTS, type MutationCommitted, type RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { createLogger, requestContext } from '../../src/shared/logging/logger.js';
import { CollabFactory } from '../factories/collab.factory.js';
import type { TestDatabase } from '../utils/test-database.js';
import { TOOL_ORDER } from '../../src/modules/tool-kit/catalogue.js';
import { checkTaskTransition, TASK_STATUSES, type TaskTrigger } from '../../src/modules/tasks/domain/task-transition.js';
import { PROPOSAL_TRANSITIONS, checkProposalTransition, type ProposalTrigger } from '../../src/modules/proposals/domain/proposal-state.js';
import { PROPOSAL_STATUSES } from '../../src/modules/proposals/domain/proposal-statuses.js';
import { BlockedError, InvalidStateError } from '../../src/shared/errors/app-error.js';
import { blockedHints, invalidStateHints } from '../../src/shared/errors/state-hints.js';

describe('stream positions', () => {
  /**
   * Change-stream positions under concurrent commits, on the real database and the real TransactionRunner: many
   * connections commit at once while an independent reader polls the log, and a real EventSource follows the stream.
   *
   * - positions of a company are exactly 1..N (no gap, no duplicate), one per committed change;
   * - a reader never sees position p without every position below it (positions become visible in commit order);
   * - a rolled-back transaction — before or after its positions were taken — leaves no position and no log row;
   * - the SSE stream delivers ids strictly consecutive.
   */
  const WORKERS = 20;
  const COMMITS = 25;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  describe('stream positions under concurrent commits', () => {
    let world: World;
    let runner: TransactionRunner;
    let actor: Actor;
    let companyUuid: string;
    let cookie: string;
    const projectUuid = randomUUID();

    beforeAll(async () => {
      world = await World.start({ env: { SSE_HEARTBEAT_MS: '200' } });
      runner = world.get(TransactionRunner);
      const company = await world.company();
      companyUuid = company.uuid;
      const user = await world.user(company.uuid);
      actor = userActor(user);
      cookie = (await world.login(user)).cookie!;
      // A marker row per committed transaction (written in it), to tie each position to a real commit.
      await world.ds.query(`CREATE TABLE chaos_marker (worker int, i int, xid text, entity uuid PRIMARY KEY)`);
    }, 60_000);

    afterAll(async () => {
      await world?.close();
    });

    it('gives 1..N in commit order, no hole ever visible, nothing for rollbacks, and a consecutive stream', async () => {
      const sse = openEventSource(`${world.url}/api/events`, cookie);
      const ids: string[] = [];
      const resets: string[] = [];
      sse.es.addEventListener('message', (e) => ids.push(e.lastEventId));
      sse.es.addEventListener('reset', (e) => resets.push((e as MessageEvent).lastEventId));
      await sse.opened;

      // The independent reader: one statement per snapshot, so head and log are seen at one instant.
      const reader = new pg.Client({ connectionString: world.db.url });
      await reader.connect();
      let writing = true;
      let snapshots = 0;
      const violations: string[] = [];
      const poll = (async () => {
        let lastMax = 0;
        while (writing) {
          const [s] = (
            await reader.query(
              `SELECT (SELECT position FROM stream_head WHERE stream = 'c' AND key = $1)::int AS head,
                    (SELECT count(*) FROM stream_log WHERE stream = 'c' AND key = $1)::int AS n,
                    (SELECT coalesce(max(position), 0) FROM stream_log WHERE stream = 'c' AND key = $1)::int AS max,
                    (SELECT coalesce(min(position), 0) FROM stream_log WHERE stream = 'c' AND key = $1)::int AS min`,
              [companyUuid],
            )
          ).rows as Array<{ head: number | null; n: number; max: number; min: number }>;
          snapshots++;
          const head = s.head ?? 0;
          // Every visible position p has all of 1..p visible: count = max, min = 1, head = max.
          if (s.n !== s.max || (s.n > 0 && s.min !== 1) || head !== s.max) violations.push(JSON.stringify(s));
          if (s.max < lastMax) violations.push(`went back: ${lastMax} -> ${s.max}`);
          lastMax = s.max;
        }
      })();

      const log = world.get(StreamLog);
      const ds = world.get(DataSource);
      const positions: string[] = [];
      let rolledBack = 0;
      const rollbackEntities: string[] = [];
      const started = Date.now();
      await Promise.all(
        Array.from({ length: WORKERS }, async (_, w) => {
          for (let i = 0; i < COMMITS; i++) {
            const entity = randomUUID();
            await runner.run(actor, async (tx) => {
              const [{ xid }] = await tx.manager.query(`SELECT pg_current_xact_id()::text AS xid`);
              await tx.manager.query(`INSERT INTO chaos_marker (worker, i, xid, entity) VALUES ($1, $2, $3, $4)`, [w, i, xid, entity]);
              // Some work between the transaction's start and its position, so commits interleave.
              if (i % 3 === 0) await sleep(Math.random() * 3);
              tx.change('idea', entity, projectUuid, 'created');
            });
            if (i % 8 === 3) {
              // A rollback before the positions are taken (the mutation fails): nothing logged.
              const lost = randomUUID();
              rollbackEntities.push(lost);
              await expect(
                runner.run(actor, async (tx) => {
                  await tx.manager.query(`INSERT INTO chaos_marker (worker, i, xid, entity) VALUES ($1, $2, 'rb', $3)`, [w, i, lost]);
                  tx.change('idea', lost, projectUuid, 'created');
                  throw new Error('rollback');
                }),
              ).rejects.toThrow('rollback');
              rolledBack++;
            }
            if (i % 8 === 5) {
              // A rollback after the positions were taken (the commit itself fails): the head row goes back too.
              const lost = randomUUID();
              rollbackEntities.push(lost);
              await expect(
                ds.transaction(async (em) => {
                  const [p] = await log.append(em, 'c', [{ key: companyUuid, projectUuid, payload: JSON.stringify({ lost }) }]);
                  positions.push(`rolled-back:${p}`);
                  throw new Error('rollback after append');
                }),
              ).rejects.toThrow('rollback after append');
              rolledBack++;
            }
          }
        }),
      );
      const writeMs = Date.now() - started;
      const total = WORKERS * COMMITS;

      // The stream catches up (live, or by repair at a heartbeat).
      for (let t = 0; ids.length < total && t < 200; t++) await sleep(50);
      writing = false;
      await poll;
      await reader.end();
      sse.close();

      expect(violations).toEqual([]);
      expect(snapshots).toBeGreaterThan(10);

      // (a) exactly 1..N, one log row per committed change, none for the rollbacks.
      const rows: Array<{ position: string; payload: string }> = await ds.query(
        `SELECT position::text AS position, payload FROM stream_log WHERE stream = 'c' AND key = $1 ORDER BY stream_log.position`,
        [companyUuid],
      );
      expect(rows.map((r) => Number(r.position))).toEqual(Array.from({ length: total }, (_, i) => i + 1));
      const [{ position: head }] = await ds.query(`SELECT position::text AS position FROM stream_head WHERE stream = 'c' AND key = $1`, [companyUuid]);
      expect(Number(head)).toBe(total);
      const logged = rows.map((r) => JSON.parse(r.payload).entityUuid as string);
      const markers: Array<{ entity: string }> = await ds.query(`SELECT entity FROM chaos_marker`);
      expect(new Set(logged)).toEqual(new Set(markers.map((m) => m.entity)));
      expect(new Set(logged).size).toBe(total);
      // (c) rollbacks: no marker, no log row, no payload of theirs.
      expect(markers.some((m) => rollbackEntities.includes(m.entity))).toBe(false);
      expect(rows.some((r) => rollbackEntities.some((e) => r.payload.includes(e)))).toBe(false);
      expect(rolledBack).toBeGreaterThan(0);

      // The stream: strictly consecutive ids 1..N, no reset.
      expect(resets).toEqual([]);
      const ns = ids.map((id) => Number(id.split('-').pop()));
      expect(ns).toEqual(Array.from({ length: total }, (_, i) => i + 1));
      console.log(`stream-positions: ${total} commits + ${rolledBack} rollbacks by ${WORKERS} workers in ${writeMs} ms, ${snapshots} reader snapshots, ${ids.length} SSE frames`);
    }, 60_000);
  });
});

describe('StreamLog (real PostgreSQL)', () => {
  let world: World;
  let db: DataSource;
  let log: StreamLog;

  beforeAll(async () => {
    // The kernel alone, with a short retention; the tests prune by hand, so the background pruning stops.
    world = await World.database({ modules: [], env: { STREAM_LOG_RETENTION: '1s,3' }, logStreams: true });
    db = world.ds;
    log = world.get(StreamLog);
    log.stopPruning();
  });
  afterAll(() => world.close());

  const entry = (key: string, payload: string = randomUUID()) => ({ key, projectUuid: null, payload });
  const n = (position: string) => Number(position.split('-')[1]);
  const logged = async (key: string) =>
    ((await db.query(`SELECT position::int AS n FROM stream_log WHERE stream = 'c' AND key = $1 ORDER BY position`, [key])) as Array<{ n: number }>).map((r) => r.n);

  it('gives each key consecutive positions in entry order, several keys in one statement, with the log rows', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const epoch = await log.epoch();
    expect(epoch).toMatch(/^[0-9a-f]{8}$/);
    const first = await db.transaction((em) => log.append(em, 'c', [entry(a, 'a1'), entry(b, 'b1'), entry(a, 'a2')]));
    expect(first).toEqual([`${epoch}-1`, `${epoch}-1`, `${epoch}-2`]);
    const second = await db.transaction((em) => log.append(em, 'c', [entry(b, 'b2'), entry(a, 'a3')]));
    expect(second.map(n)).toEqual([2, 3]);
    expect((await log.read('c', a, 0, 10, 10)).map((f) => [f.n, f.payload])).toEqual([
      [1, 'a1'],
      [2, 'a2'],
      [3, 'a3'],
    ]);
    expect((await log.read('c', a, 1, 3, 1)).map((f) => f.n)).toEqual([2]);
    expect(await log.heads('c', [a, b, randomUUID()])).toEqual(new Map([[a, 3], [b, 2], [expect.any(String), 0]]));
  });

  it('a rollback gives its positions back: no position, no log row', async () => {
    const key = randomUUID();
    await db.transaction((em) => log.append(em, 'c', [entry(key)]));
    await expect(
      db.transaction(async (em) => {
        await log.append(em, 'c', [entry(key), entry(key)]);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    const next = await db.transaction((em) => log.append(em, 'c', [entry(key)]));
    expect(next.map(n)).toEqual([2]);
    expect(await logged(key)).toEqual([1, 2]);
  });

  it('concurrent writers of one key never share or skip a position', async () => {
    const key = randomUUID();
    const positions = (await Promise.all(Array.from({ length: 40 }, () => db.transaction((em) => log.append(em, 'c', [entry(key)]))))).flat().map(n);
    expect(positions.sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    // Read back in position order (numerically: 9 before 10), ranges and limits honoured.
    expect((await log.read('c', key, 0, 40, 100)).map((f) => f.n)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect((await log.read('c', key, 8, 12, 100)).map((f) => f.n)).toEqual([9, 10, 11, 12]);
  });

  it('prunes from the bottom only what is both older than the retention time and below the last N (here 1 s and 3)', async () => {
    const [old, young, mixed] = [randomUUID(), randomUUID(), randomUUID()];
    for (const key of [old, young, mixed]) await db.transaction((em) => log.append(em, 'c', Array.from({ length: 10 }, () => entry(key))));
    await db.query(`UPDATE stream_log SET created_at = now() - interval '1 hour' WHERE key = $1`, [old]);
    // Committed out of step with their positions: 1 and 3..10 are old, 2 is young; nothing from 2 up may go.
    await db.query(`UPDATE stream_log SET created_at = now() - interval '1 hour' WHERE key = $1 AND position <> 2`, [mixed]);
    const deleted = await log.prune();
    expect(await logged(old)).toEqual([8, 9, 10]);
    expect(await logged(young)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(await logged(mixed)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(deleted).toBeGreaterThanOrEqual(8);
    // The heads stay: new positions continue after them.
    const next = await db.transaction((em) => log.append(em, 'c', [entry(old)]));
    expect(next.map(n)).toEqual([11]);
  });
});

describe('mutation events', () => {
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
});

describe('state hints', () => {
  const TOOLS = new Set(TOOL_ORDER);
  const toolsIn = (hints: string[]): string[] => hints.flatMap((h) => h.match(/svc_[a-z_]+/g) ?? []);
  const NO_ACCEPTANCE = { total: 0, required: 0, passed: 0, failed: 0, pending: 0, requiredPassed: 0, requiredFailed: 0, requiredPending: 0 };
  const TASK_TRIGGERS: TaskTrigger[] = ['claim', 'assign', 'release', 'start', 'submit', 'pull_back', 'verify', 'reopen', 'close', 'revoke_close'];

  /** Every INVALID_STATE message the task and proposal state machines can produce. */
  function stateMachineMessages(): string[] {
    const out = new Set<string>();
    for (const status of TASK_STATUSES) {
      for (const trigger of TASK_TRIGGERS) {
        for (const callerIsAssignee of [true, false]) {
          const r = checkTaskTransition({ trigger, status, callerIsAssignee, unresolvedPrerequisites: [], acceptance: NO_ACCEPTANCE });
          if (!r.ok && r.code === 'INVALID_STATE') out.add(r.message);
        }
      }
    }
    for (const status of PROPOSAL_STATUSES) {
      for (const trigger of Object.keys(PROPOSAL_TRANSITIONS) as ProposalTrigger[]) {
        try {
          checkProposalTransition(status, trigger);
        } catch (err) {
          out.add((err as Error).message);
        }
      }
    }
    return [...out];
  }

  const OTHER_MESSAGES = [
    'Task is done; self-check requires a task that is not done or closed',
    'Task is closed; marking criteria requires a task that is not closed',
    'Task is closed; check-in requires open, assigned, in_progress or to_verify',
    'Proposal is draft; create tasks requires approved',
    'Proposal is pending; create a report requires approved',
    'Idea is open; claim requires open',
    'Idea is elaborating; claim requires open',
    'Idea is open; release requires elaborating',
    'Idea is elaborated; assign requires open or elaborating',
    'Idea is open; start elaboration requires elaborating or elaborated',
    'Idea has a round awaiting answers; start elaboration requires every round answered',
    'Idea is open; answer requires elaborating or elaborated',
    'Idea has no round in pending_answers; answer requires a pending round',
    'Round is answered; answer requires pending_answers',
    'Idea is elaborated; validate elaboration requires elaborating',
    'Idea is elaborated; skip elaboration requires elaborating',
    'Session is closed; heartbeat requires active',
  ];

  describe('state hints (docs/tool-conventions.md §1.5)', () => {
    it('gives every INVALID_STATE of the state machines and services a hint naming only catalogue tools', () => {
      const messages = [...stateMachineMessages(), ...OTHER_MESSAGES];
      expect(messages.length).toBeGreaterThan(40);
      for (const message of messages) {
        const hints = invalidStateHints(message);
        expect({ message, hints }).toEqual({ message, hints: expect.arrayContaining([expect.any(String)]) });
        const tools = toolsIn(hints);
        expect({ message, tools: tools.length > 0 }).toEqual({ message, tools: true });
        for (const t of tools) expect({ message, tool: t, known: TOOLS.has(t) }).toEqual({ message, tool: t, known: true });
      }
    });

    it('names the tool that moves the record on from its current status', () => {
      expect(invalidStateHints('Task is assigned; submit requires in_progress')).toEqual(['Start it first: svc_update_task with status in_progress (the assignee only)']);
      expect(invalidStateHints('Task is in_progress; verify requires to_verify')[0]).toContain('svc_submit_for_verify');
      expect(invalidStateHints('Task is to_verify; submit requires in_progress')[0]).toContain('svc_admin_verify_task');
      expect(invalidStateHints('Task is assigned to someone else; claim requires open')[0]).toContain('svc_get_available_tasks');
      expect(invalidStateHints('Proposal is draft; approve requires pending')[0]).toContain('svc_pm_submit_proposal');
      expect(invalidStateHints('Proposal is pending; submit requires draft')[0]).toContain('svc_admin_approve_proposal');
      expect(invalidStateHints('Idea is open; release requires elaborating')).toEqual(['Claim it first: svc_claim_idea (idea:write)']);
      expect(invalidStateHints('Session is closed; heartbeat requires active')[0]).toContain('svc_reopen_session');
    });

    it('gives no hints where nothing moves the record on or the message is unknown', () => {
      expect(invalidStateHints('Session is active; reopen requires closed')).toEqual([]);
      expect(invalidStateHints('Something else entirely')).toEqual([]);
      expect(new InvalidStateError('Session is active; reopen requires closed').extra).toEqual({});
      expect(new InvalidStateError('Task is open; release requires assigned').extra).toEqual({ hints: invalidStateHints('Task is open; release requires assigned') });
    });

    it('lists each blocker with its next step, capped, and the force option of a reopen', () => {
      const b = (i: number, status: string) => ({ uuid: `u${i}`, title: `T${i}`, status, assignee: null });
      expect(blockedHints([b(1, 'open'), b(2, 'to_verify')])).toEqual([
        'Prerequisite "T1" (u1) is open: it needs an assignee (svc_claim_task, or svc_pm_assign_task)',
        'Prerequisite "T2" (u2) is to_verify: it awaits verification (svc_admin_verify_task, task:admin; otherwise a human verifies it)',
        'Follow the prerequisites with svc_get_task; svc_get_available_tasks lists work you can start now',
      ]);
      const many = blockedHints(Array.from({ length: 12 }, (_, i) => b(i, 'in_progress')), { forceable: true });
      expect(many).toHaveLength(13);
      expect(many[10]).toBe('… and 2 more prerequisite(s)');
      expect(many[12]).toContain('force: true');
      const err = new BlockedError('Cannot move to in_progress: 1 prerequisite(s) not done or closed', [b(1, 'assigned')]);
      expect(Object.keys(err.extra)).toEqual(['blockers', 'hints']);
      for (const t of toolsIn(many)) expect(TOOLS.has(t)).toBe(true);
    });
  });
});
