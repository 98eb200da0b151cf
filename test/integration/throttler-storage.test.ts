import { pino } from 'pino';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../../src/shared/database/data-source.js';
import { InstanceThrottlerStorage } from '../../src/shared/throttling/instance-throttler.storage.js';
import { PgThrottlerStorage } from '../../src/shared/throttling/pg-throttler.storage.js';
import { ThrottlerStorageRouter } from '../../src/shared/throttling/throttler-storage.router.js';
import { ManualClock } from '../utils/clock.js';
import { World } from '../utils/world.js';

const HOUR = 3_600_000;

/**
 * The shared `@nestjs/throttler` store in PostgreSQL (docs/deploy.md, "Abuse limits"): a sliding window counted by
 * every instance together — here two store objects on separate pools, as two processes would be.
 */
describe('PostgreSQL throttler storage (integration)', () => {
  let world: World;
  let secondPool: DataSource;
  const clock = new ManualClock();
  let a: PgThrottlerStorage;
  let b: PgThrottlerStorage;

  beforeAll(async () => {
    world = await World.database();
    a = new PgThrottlerStorage(world.ds, clock, pino({ level: 'silent' }));
    // The second "instance" works on the same database through a pool of its own.
    secondPool = createDataSource({ url: world.db.url, entities: [], migrations: [], poolSize: 5 });
    await secondPool.initialize();
    b = new PgThrottlerStorage(secondPool, clock, pino({ level: 'silent' }));
  });
  afterAll(async () => {
    await secondPool?.destroy();
    await world.close();
  });

  it('counts concurrent requests of two instances together and never past the limit', async () => {
    // Both pools connected first: the burst measures the store, not connection set-up.
    await Promise.all([...Array.from({ length: 10 }, () => world.ds.query('SELECT 1')), ...Array.from({ length: 5 }, () => secondPool.query('SELECT 1'))]);
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).increment('burst', HOUR, 20, HOUR, 'test')));
    expect(results.filter((r) => !r.isBlocked)).toHaveLength(20);
    expect((await world.ds.query(`SELECT count(*)::int AS n FROM throttle_hit WHERE key = 'test:burst'`))[0].n).toBe(20);
    for (const r of results.filter((x) => x.isBlocked)) expect(r.timeToBlockExpire).toBe(3600);
  });

  it('frees the window hit by hit as the oldest leave it, and purges expired hits', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await a.increment('slide', HOUR, 3, HOUR, 'test')).isBlocked).toBe(false);
      clock.advance(10 * 60_000);
    }
    // Hits at 0, 10 and 20 minutes; now 30: blocked until the first leaves at 60.
    const blocked = await b.increment('slide', HOUR, 3, HOUR, 'test');
    expect([blocked.isBlocked, blocked.timeToBlockExpire, blocked.totalHits]).toEqual([true, 1800, 4]);
    clock.advance(30 * 60_000 + 1000);
    expect((await b.increment('slide', HOUR, 3, HOUR, 'test')).isBlocked).toBe(false);
    expect((await a.increment('slide', HOUR, 3, HOUR, 'test')).isBlocked).toBe(true);
    clock.advance(2 * HOUR);
    await a.purge();
    expect((await world.ds.query(`SELECT count(*)::int AS n FROM throttle_hit WHERE key = 'test:slide'`))[0].n).toBe(0);
  });

  it('keeps throttlers apart, and the router sends each to its store', async () => {
    const local = new InstanceThrottlerStorage(clock);
    const router = new ThrottlerStorageRouter(new Map([['shared-one', a]]), local);
    await router.increment('k', HOUR, 1, HOUR, 'shared-one');
    expect((await world.ds.query(`SELECT count(*)::int AS n FROM throttle_hit WHERE key = 'shared-one:k'`))[0].n).toBe(1);
    await router.increment('k', HOUR, 1, HOUR, 'in-process');
    expect((await world.ds.query(`SELECT count(*)::int AS n FROM throttle_hit WHERE key LIKE 'in-process:%'`))[0].n).toBe(0);
    expect(local.size).toBe(1);
  });
});
