import { LoginThrottle } from './login-throttle.js';

describe('LoginThrottle', () => {
  it('locks an email after 10 failures within 15 minutes and frees it when the window passes', () => {
    let now = 1_000_000;
    const t = new LoginThrottle(10, 15 * 60_000, () => now);
    for (let i = 0; i < 9; i++) t.fail('a@x');
    expect(t.retryAfter('a@x')).toBe(0);
    t.fail('a@x');
    expect(t.retryAfter('a@x')).toBe(900);
    expect(t.retryAfter('b@x')).toBe(0);
    now += 15 * 60_000 + 1;
    expect(t.retryAfter('a@x')).toBe(0);
  });

  it('resets on success', () => {
    const t = new LoginThrottle(2);
    t.fail('a@x');
    t.fail('a@x');
    expect(t.retryAfter('a@x')).toBeGreaterThan(0);
    t.succeed('a@x');
    expect(t.retryAfter('a@x')).toBe(0);
  });
});
