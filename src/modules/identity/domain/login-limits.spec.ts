import { LOGIN_WINDOW_MS, loginRefusal } from './login-limits.js';

describe('loginRefusal', () => {
  const now = 1_000_000_000;
  const none = { pair: null, address: null, email: null, knownAddress: false };

  it('lets an attempt under every limit through', () => {
    expect(loginRefusal(none, now)).toBeNull();
    expect(loginRefusal({ ...none, knownAddress: true }, now)).toBeNull();
  });

  it('refuses a locked pair until its limit-th most recent failure leaves the window', () => {
    expect(loginRefusal({ ...none, pair: now - 60_000 }, now)).toEqual({ rule: 'pair', retryAfterSeconds: (LOGIN_WINDOW_MS - 60_000) / 1000 });
  });

  it('exempts an address that signed in to the email from the per-email limit only', () => {
    const sprayed = { ...none, email: now - 1000 };
    expect(loginRefusal(sprayed, now)).toEqual({ rule: 'email', retryAfterSeconds: 899 });
    expect(loginRefusal({ ...sprayed, knownAddress: true }, now)).toBeNull();
    expect(loginRefusal({ ...sprayed, knownAddress: true, pair: now - 2000 }, now)).toEqual({ rule: 'pair', retryAfterSeconds: 898 });
    expect(loginRefusal({ ...none, knownAddress: true, address: now - 3000 }, now)).toEqual({ rule: 'address', retryAfterSeconds: 897 });
  });

  it('names the broadest refusing rule and waits for the last of them to free', () => {
    expect(loginRefusal({ pair: now - 1000, address: now - 600_000, email: null, knownAddress: false }, now)).toEqual({ rule: 'address', retryAfterSeconds: 899 });
    expect(loginRefusal({ pair: now - 1000, address: null, email: now - 5000, knownAddress: false }, now)).toEqual({ rule: 'email', retryAfterSeconds: 899 });
  });

  it('never answers less than one second', () => {
    expect(loginRefusal({ ...none, pair: now - LOGIN_WINDOW_MS + 1 }, now)).toEqual({ rule: 'pair', retryAfterSeconds: 1 });
  });
});
