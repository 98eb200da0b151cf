import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { TransactionRunner } from '../../src/shared/database/transaction-runner.js';
import { StreamLog } from '../../src/shared/stream-log/stream-log.js';
import { openEventSource } from '../utils/sse.js';
import { userActor, World } from '../utils/world.js';
import type { Actor } from '../../src/shared/auth/actor.js';

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
