import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { StreamLog } from '../../src/shared/stream-log/stream-log.js';
import { World } from '../utils/world.js';

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
