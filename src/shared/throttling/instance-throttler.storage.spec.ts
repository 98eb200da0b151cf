import { jest } from '@jest/globals';
import { Clock } from '../clock.js';
import { InstanceThrottlerStorage } from './instance-throttler.storage.js';

class TestClock extends Clock {
  at = 1_000_000;
  now(): number {
    return this.at;
  }
}

const MINUTE = 60_000;

describe('InstanceThrottlerStorage', () => {
  let clock: TestClock;
  let store: InstanceThrottlerStorage;
  const hit = (key = 'k', limit = 3, name = 'mcp', ttl = MINUTE) => store.increment(key, ttl, limit, ttl, name);

  beforeEach(() => {
    clock = new TestClock();
    store = new InstanceThrottlerStorage(clock);
  });

  it('spends a burst of `limit`, then refuses without counting until a token is back (limit per ttl)', async () => {
    // 3 per minute: a token every 20 s.
    expect(await hit()).toEqual({ totalHits: 1, timeToExpire: 20, isBlocked: false, timeToBlockExpire: 0 });
    expect(await hit()).toEqual({ totalHits: 2, timeToExpire: 40, isBlocked: false, timeToBlockExpire: 0 });
    expect(await hit()).toEqual({ totalHits: 3, timeToExpire: 60, isBlocked: false, timeToBlockExpire: 0 });
    // Empty: the next token is 20 s away, and a refusal says so.
    expect(await hit()).toEqual({ totalHits: 4, timeToExpire: 20, isBlocked: true, timeToBlockExpire: 20 });
    clock.at += 19_500;
    // Refusals are not counted; the wait rounds up to whole seconds, at least 1.
    expect(await hit()).toEqual({ totalHits: 4, timeToExpire: 1, isBlocked: true, timeToBlockExpire: 1 });
    clock.at += 500;
    // Exactly Retry-After seconds after the refusal above: one token, spent at once.
    expect(await hit()).toEqual({ totalHits: 3, timeToExpire: 60, isBlocked: false, timeToBlockExpire: 0 });
    expect((await hit()).isBlocked).toBe(true);
    // A minute untouched fills the bucket again: a whole burst.
    clock.at += MINUTE;
    for (let i = 1; i <= 3; i++) expect(await hit()).toMatchObject({ totalHits: i, isBlocked: false });
    expect((await hit()).isBlocked).toBe(true);
  });

  it('serves a retry made Retry-After seconds after any refusal', async () => {
    for (let i = 0; i < 3; i++) await hit();
    clock.at += 12_345;
    const refused = await hit();
    expect(refused.isBlocked).toBe(true);
    expect(refused.timeToBlockExpire).toBe(8);
    clock.at += refused.timeToBlockExpire * 1000;
    expect((await hit()).isBlocked).toBe(false);
  });

  it('keeps keys and throttlers apart', async () => {
    await hit('a', 1);
    expect((await hit('a', 1)).isBlocked).toBe(true);
    expect((await hit('b', 1)).isBlocked).toBe(false);
    expect((await hit('a', 1, 'other')).isBlocked).toBe(false);
    expect(store.size).toBe(3);
  });

  it('applies each call’s own limit and ttl (a limit of 0 refuses everything)', async () => {
    expect(await hit('z', 0)).toEqual({ totalHits: 1, timeToExpire: 60, isBlocked: true, timeToBlockExpire: 60 });
    expect(await hit('short', 1, 'mcp', 1500)).toEqual({ totalHits: 1, timeToExpire: 2, isBlocked: false, timeToBlockExpire: 0 });
    expect(await hit('short', 1, 'mcp', 1500)).toEqual({ totalHits: 2, timeToExpire: 2, isBlocked: true, timeToBlockExpire: 2 });
  });

  it('sweeps buckets that are full again on its schedule and keeps the others', async () => {
    await hit('old');
    clock.at += 30_000;
    await hit('new');
    clock.at += 30_000;
    store.sweep();
    expect(store.size).toBe(1);
    // The bucket still refilling is untouched: its hit 30 s ago left 2 of 3 tokens, refilled by 1.5 since.
    expect((await hit('new')).totalHits).toBe(1);
    clock.at += MINUTE;
    store.sweep();
    expect(store.size).toBe(0);
  });

  it('sweeps lazily when the map has grown past twice what the last sweep left, so memory follows the keys still refilling', async () => {
    // 3,000 keys, each seen once a second apart with a ttl of one second: at most one bucket is not full at a time.
    for (let i = 0; i < 3000; i++) {
      await hit(`key-${i}`, 3, 'mcp', 1000);
      clock.at += 1000;
    }
    // Never more than the lazy sweep's floor (1,024), without any scheduled sweep.
    expect(store.size).toBeLessThanOrEqual(1025);
    expect(store.size).toBeGreaterThan(0);
    store.sweep();
    expect(store.size).toBe(0);
  });

  it('arms no timer per key', async () => {
    const timers = jest.spyOn(global, 'setTimeout');
    try {
      for (let i = 0; i < 50; i++) await hit(`key-${i}`);
      expect(timers).not.toHaveBeenCalled();
    } finally {
      timers.mockRestore();
    }
  });
});
