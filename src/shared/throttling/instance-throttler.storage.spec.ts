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

  it('counts up to the limit in a window, then refuses without counting until the window ends', async () => {
    expect(await hit()).toEqual({ totalHits: 1, timeToExpire: 60, isBlocked: false, timeToBlockExpire: 0 });
    clock.at += 10_000;
    expect(await hit()).toEqual({ totalHits: 2, timeToExpire: 50, isBlocked: false, timeToBlockExpire: 0 });
    clock.at += 10_000;
    expect(await hit()).toEqual({ totalHits: 3, timeToExpire: 40, isBlocked: false, timeToBlockExpire: 0 });
    // The window opened at the first hit: it ends 40 s from now, and a refusal says so.
    expect(await hit()).toEqual({ totalHits: 4, timeToExpire: 40, isBlocked: true, timeToBlockExpire: 40 });
    clock.at += 39_500;
    // Refusals are not counted; the time left rounds up to whole seconds, at least 1.
    expect(await hit()).toEqual({ totalHits: 4, timeToExpire: 1, isBlocked: true, timeToBlockExpire: 1 });
    clock.at += 500;
    // Exactly when it ends (Retry-After seconds after the refusal above): a new window.
    expect(await hit()).toEqual({ totalHits: 1, timeToExpire: 60, isBlocked: false, timeToBlockExpire: 0 });
  });

  it('serves a retry made Retry-After seconds after any refusal', async () => {
    for (let i = 0; i < 3; i++) await hit();
    clock.at += 12_345;
    const refused = await hit();
    expect(refused.isBlocked).toBe(true);
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
  });

  it('sweeps ended windows on its schedule and keeps open ones', async () => {
    await hit('old');
    clock.at += 30_000;
    await hit('new');
    clock.at += 30_000;
    store.sweep();
    expect(store.size).toBe(1);
    // The open window is untouched: two more hits fill it.
    expect((await hit('new')).totalHits).toBe(2);
    clock.at += 30_000;
    store.sweep();
    expect(store.size).toBe(0);
  });

  it('sweeps lazily when the map has grown past twice what the last sweep left, so memory follows the open windows', async () => {
    // 3,000 keys, each seen once a second apart in windows of one second: at most one window is open at a time.
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
