import { TokenBuckets } from './token-bucket.js';

describe('TokenBuckets', () => {
  let now: number;
  beforeEach(() => {
    now = 1_000_000;
  });

  it('allows a burst of perMinute, then refuses with the seconds until the next token', () => {
    const b = new TokenBuckets(6, () => now); // one token every 10 s
    for (let i = 0; i < 6; i++) expect(b.take('k')).toBe(0);
    expect(b.take('k')).toBe(10);
    now += 3_500;
    expect(b.take('k')).toBe(7); // 6.5 s left, rounded up
    now += 6_500;
    expect(b.take('k')).toBe(0); // exactly when the token frees
    expect(b.take('k')).toBe(10);
  });

  it('refills at perMinute / 60 per second up to the burst size, never beyond', () => {
    const b = new TokenBuckets(1200, () => now); // 20 per second
    for (let i = 0; i < 1200; i++) b.take('k');
    expect(b.take('k')).toBe(1);
    now += 1_000;
    for (let i = 0; i < 20; i++) expect(b.take('k')).toBe(0);
    expect(b.take('k')).toBe(1);
    now += 10 * 60_000;
    let served = 0;
    while (b.take('k') === 0) served++;
    expect(served).toBe(1200);
  });

  it('keeps one bucket per key', () => {
    const b = new TokenBuckets(1, () => now);
    expect(b.take('a')).toBe(0);
    expect(b.take('a')).toBe(60);
    expect(b.take('b')).toBe(0);
  });

  it('never answers less than one second', () => {
    const b = new TokenBuckets(600_000, () => now); // a token every 0.1 ms
    for (let i = 0; i < 600_000; i++) b.take('k');
    expect(b.take('k')).toBe(1);
  });

  it('drops buckets idle long enough to be full again, so memory follows the active keys', () => {
    const b = new TokenBuckets(10, () => now);
    for (let i = 0; i < 1000; i++) b.take(`idle-${i}`);
    b.take('busy');
    expect(b.size).toBe(1001);
    now += 30_000;
    b.take('busy');
    expect(b.size).toBe(1001);
    now += 30_000;
    b.take('busy'); // the idle ones have been untouched for 60 s: full, dropped
    expect(b.size).toBe(1);
    // A dropped bucket comes back full.
    for (let i = 0; i < 10; i++) expect(b.take('idle-1')).toBe(0);
    expect(b.take('idle-1')).toBeGreaterThan(0);
  });

  it('refuses a limit below 1', () => {
    expect(() => new TokenBuckets(0)).toThrow(RangeError);
  });
});
