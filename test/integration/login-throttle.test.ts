import { randomBytes } from 'node:crypto';
import { AuthService } from '../../src/modules/identity/index.js';
import { LoginThrottle } from '../../src/modules/identity/login-throttle.js';
import { AppError, RateLimitedError } from '../../src/shared/errors/app-error.js';
import { MetricsService } from '../../src/shared/metrics/metrics.service.js';
import type { SeededUser } from '../factories/identity.factory.js';
import { ManualClock } from '../utils/clock.js';
import { World } from '../utils/world.js';

const MINUTE = 60_000;

/** A fresh IPv4 address of the documentation ranges for each use: every test counts its own addresses. */
let n = 0;
const address = (): string => `198.51.${Math.floor(++n / 250)}.${(n % 250) + 1}`;

async function outcome(p: Promise<unknown>): Promise<'ok' | { code: string; message: string; retryAfter?: number }> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { code: err.code, message: err.message, ...(err instanceof RateLimitedError ? { retryAfter: err.retryAfterSeconds } : {}) };
  }
}

/**
 * Login throttling of docs/platform.md §2.1 against the real PostgreSQL counters (docs/deploy.md, "Abuse limits"): pair,
 * address and email limits over 15 minutes, the owner's address exempt from the email limit, a success clearing its
 * pair, identical answers for unknown emails — with a clock the tests move instead of sleeping.
 */
describe('login throttling (integration)', () => {
  let world: World;
  let services: World;
  let clock: ManualClock;
  let metrics: MetricsService;
  let throttle: LoginThrottle;
  let auth: AuthService;
  let companyUuid: string;

  beforeAll(async () => {
    world = await World.database();
    companyUuid = (await world.company('Throttled')).uuid;
  });
  // Each test gets services compiled afresh over the world's database (~0.1 s): its own ManualClock at the epoch and
  // its own metrics, whose throttle counts it asserts from zero.
  beforeEach(async () => {
    clock = new ManualClock();
    services = await World.over(world.ds, { clock });
    metrics = services.get(MetricsService);
    throttle = services.get(LoginThrottle);
    auth = services.get(AuthService);
  });
  afterEach(() => services.close());
  afterAll(() => world.close());

  const user = (): Promise<SeededUser> => world.user(companyUuid, { password: 'right password' });
  const wrong = (email: string, from: string) => outcome(auth.verifyCredentials(email, `wrong-${randomBytes(3).toString('hex')}`, from));
  const right = (u: SeededUser, from: string) => outcome(auth.verifyCredentials(u.email, 'right password', from));
  const throttled = async (rule: string) => (await metrics.loginThrottled.get()).values.find((v) => v.labels.rule === rule)?.value ?? 0;
  const RATE_LIMITED = { code: 'RATE_LIMITED', message: 'Too many login attempts' };
  const UNAUTHORIZED = { code: 'UNAUTHORIZED', message: 'Invalid email or password' };

  it('locks a pair after 10 failures, even for the right password, until its window frees; another address still signs in', async () => {
    const u = await user();
    const [guesser, owner] = [address(), address()];
    for (let i = 0; i < 10; i++) expect(await wrong(u.email, guesser)).toEqual(UNAUTHORIZED);
    expect(await right(u, guesser)).toEqual({ ...RATE_LIMITED, retryAfter: 900 });
    expect(await throttled('pair')).toBe(1);
    // The per-email limit (50) is far: the owner elsewhere is not affected.
    expect(await right(u, owner)).toBe('ok');
    // Retry-After counts down to the moment the oldest of the 10 leaves the window.
    clock.advance(10 * MINUTE);
    expect(await right(u, guesser)).toEqual({ ...RATE_LIMITED, retryAfter: 300 });
    clock.advance(5 * MINUTE + 1000);
    expect(await right(u, guesser)).toBe('ok');
  });

  it('clears the pair on a success (the owner typing their password wrong a few times never locks them)', async () => {
    const u = await user();
    const from = address();
    for (let i = 0; i < 9; i++) expect(await wrong(u.email, from)).toEqual(UNAUTHORIZED);
    expect(await right(u, from)).toBe('ok');
    for (let i = 0; i < 10; i++) expect(await wrong(u.email, from)).toEqual(UNAUTHORIZED);
    expect(await right(u, from)).toEqual({ ...RATE_LIMITED, retryAfter: 900 });
  });

  it('answers an unknown email exactly as a wrong password, and counts it the same way', async () => {
    const u = await user();
    const from = address();
    const unknown = `nobody-${randomBytes(3).toString('hex')}@example.test`;
    expect(await wrong(unknown, from)).toEqual(await wrong(u.email, from));
    for (let i = 0; i < 9; i++) expect(await wrong(unknown, from)).toEqual(UNAUTHORIZED);
    expect(await wrong(unknown, from)).toEqual({ ...RATE_LIMITED, retryAfter: 900 });
  });

  it('locks an address after 100 failures whatever the emails; other addresses are not affected', async () => {
    const u = await user();
    const sprayer = address();
    // Straight to the throttle: each reserved attempt is a failure until a success clears it (no password check
    // needed to count, and 100 scrypt checks would only make the test slow).
    for (let i = 0; i < 100; i++) await throttle.begin(`victim-${i}-${randomBytes(2).toString('hex')}@example.test`, sprayer);
    expect(await right(u, sprayer)).toEqual({ ...RATE_LIMITED, retryAfter: 900 });
    expect(await wrong(`fresh-${randomBytes(2).toString('hex')}@example.test`, sprayer)).toEqual({ ...RATE_LIMITED, retryAfter: 900 });
    expect(await throttled('address')).toBe(2);
    expect(await right(u, address())).toBe('ok');
  });

  it('locks an email after 50 failures from any addresses, except from an address its owner signed in from in the last 30 days', async () => {
    const u = await user();
    const home = address();
    expect(await right(u, home)).toBe('ok');
    clock.advance(29 * 24 * 60 * MINUTE);
    // A spray from five addresses, ten each (each pair locks at ten, before the email does); straight to the
    // throttle, whose reserved attempts are the failures (fifty scrypt checks would only make the test slow).
    for (let a = 0; a < 5; a++) {
      const from = address();
      for (let i = 0; i < 10; i++) await throttle.begin(u.email, from);
      if (a < 4) expect(await wrong(u.email, from)).toEqual({ ...RATE_LIMITED, retryAfter: 900 });
    }
    expect(await throttled('pair')).toBe(4);
    expect(await right(u, address())).toEqual({ ...RATE_LIMITED, retryAfter: 900 });
    expect(await throttled('email')).toBe(1);
    // The owner's own address still signs in; its own pair and address limits still apply to it.
    expect(await right(u, home)).toBe('ok');
    // Thirty days after that success, home is a stranger's address too.
    const other = await user();
    const oldHome = address();
    expect(await right(other, oldHome)).toBe('ok');
    clock.advance(30 * 24 * 60 * MINUTE + MINUTE);
    for (let a = 0; a < 5; a++) {
      const from = address();
      for (let i = 0; i < 10; i++) await throttle.begin(other.email, from);
    }
    expect(await right(other, oldHome)).toEqual({ ...RATE_LIMITED, retryAfter: 900 });
  });

  it('counts concurrent attempts at once: a burst of 30 guesses of one pair gets exactly 10 through to the password check', async () => {
    const u = await user();
    const from = address();
    const results = await Promise.all(Array.from({ length: 30 }, () => outcome(throttle.begin(u.email, from))));
    expect(results.filter((r) => r === 'ok')).toHaveLength(10);
    expect(results.filter((r) => r !== 'ok')).toEqual(Array.from({ length: 20 }, () => ({ ...RATE_LIMITED, retryAfter: 900 })));
  });

  it('keeps the email only as its SHA-256, and purges rows that left their windows', async () => {
    const u = await user();
    const from = address();
    await wrong(u.email, from);
    expect(await world.ds.query(`SELECT 1 FROM login_failure WHERE email_hash = $1`, [u.email])).toEqual([]);
    expect((await world.ds.query(`SELECT count(*)::int AS n FROM login_failure WHERE address = $1`, [from]))[0].n).toBe(1);
    await right(u, from);
    clock.advance(15 * MINUTE + 1000);
    await wrong(u.email, from);
    await throttle.purge();
    // The old failure is gone, the fresh one stays; the success (30 days) stays.
    expect((await world.ds.query(`SELECT count(*)::int AS n FROM login_failure WHERE address = $1`, [from]))[0].n).toBe(1);
    expect((await world.ds.query(`SELECT count(*)::int AS n FROM login_success WHERE address = $1`, [from]))[0].n).toBe(1);
    clock.advance(30 * 24 * 60 * MINUTE);
    await throttle.purge();
    expect((await world.ds.query(`SELECT count(*)::int AS n FROM login_success WHERE address = $1`, [from]))[0].n).toBe(0);
    expect((await world.ds.query(`SELECT count(*)::int AS n FROM login_failure WHERE address = $1`, [from]))[0].n).toBe(0);
  });

  it('counts IPv6 clients by their /64', async () => {
    const u = await user();
    for (let i = 0; i < 10; i++) expect(await wrong(u.email, `2001:db8:77:1::${i + 1}`)).toEqual(UNAUTHORIZED);
    expect(await right(u, '2001:db8:77:1:ffff::9')).toEqual({ ...RATE_LIMITED, retryAfter: 900 });
    expect(await right(u, '2001:db8:77:2::1')).toBe('ok');
  });
});
