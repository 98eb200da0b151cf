import { createHash, randomBytes } from 'node:crypto';
import { AgentService, AuthService } from '../../src/modules/identity/index.js';
import { UserSessionPruner } from '../../src/modules/identity/user-session.pruner.js';
import { AppError, RateLimitedError } from '../../src/shared/errors/app-error.js';
import { ALL_PERMISSIONS } from '../../src/shared/auth/permissions.js';
import { IdentityFactory, type SeededUser } from '../factories/identity.factory.js';
import type { TestDatabase } from '../utils/test-database.js';
import { World, type Harness, userActor } from '../utils/world.js';
import type { Actor } from '../../src/shared/auth/actor.js';
import type { SessionRecord } from '../../src/modules/sessions/index.js';
import { SessionService } from '../../src/modules/sessions/session.service.js';
import { TaskService } from '../../src/modules/tasks/index.js';
import { expectRefused, type TaskFactory } from '../factories/task.factory.js';
import { LoginThrottle } from '../../src/modules/identity/login-throttle.js';
import { MetricsService } from '../../src/shared/metrics/metrics.service.js';
import { ManualClock } from '../utils/clock.js';
import { pino } from 'pino';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../../src/shared/database/data-source.js';
import { InstanceThrottlerStorage } from '../../src/shared/throttling/instance-throttler.storage.js';
import { PgThrottlerStorage } from '../../src/shared/throttling/pg-throttler.storage.js';
import { ThrottlerStorageRouter } from '../../src/shared/throttling/throttler-storage.router.js';

describe('authentication', () => {
  const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');
  const HOME = '127.0.0.1';
  const GUESSER = '198.51.100.7';
  const READS = ['idea:read', 'proposal:read', 'document:read', 'task:read', 'project:read'];

  async function rejection(p: Promise<unknown>): Promise<AppError> {
    try {
      await p;
    } catch (err) {
      if (err instanceof AppError) return err;
      throw err;
    }
    throw new Error('expected the call to fail');
  }

  describe('identity services (integration)', () => {
    let world: World;
    let db: TestDatabase;
    let f: IdentityFactory;
    let agents: AgentService;
    let company: { uuid: string; name: string };
    let user: SeededUser;

    beforeAll(async () => {
      world = await World.database();
      db = world.db;
      f = world.ids;
      agents = world.get(AgentService);
      company = await f.company('Acme');
      user = await f.user(company.uuid, { email: 'Alice@Example.test', name: 'Alice', password: 'correct horse' });
    });
    afterAll(() => world.close());

    const newAuth = () => world.get(AuthService);
    const sessionRow = async (token: string) =>
      (await db.dataSource.query(`SELECT * FROM user_session WHERE token_hash = $1`, [sha256(token)]))[0] as
        | { uuid: string; expires_at: Date; last_seen_at: Date; user_uuid: string; company_uuid: string }
        | undefined;

    describe('login and sessions', () => {
      it('logs in with a trimmed, lower-cased email and stores only the token hash', async () => {
        const auth = newAuth();
        const res = await auth.login('  ALICE@example.TEST ', 'correct horse', HOME);
        expect(res.data).toEqual({ user: { uuid: user.uuid, email: 'alice@example.test', name: 'Alice' }, company: { uuid: company.uuid, name: 'Acme' } });
        expect(res.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
        const row = await sessionRow(res.token);
        expect(row).toMatchObject({ user_uuid: user.uuid, company_uuid: company.uuid });
        const leaked = await db.dataSource.query(`SELECT count(*)::int AS n FROM user_session WHERE token_hash = $1`, [res.token]);
        expect(leaked[0].n).toBe(0);
        const lifetime = row!.expires_at.getTime() - Date.now();
        expect(lifetime).toBeGreaterThan(7 * 86400_000 - 60_000);
        expect(lifetime).toBeLessThanOrEqual(7 * 86400_000);
      });

      it('answers an unknown email and a wrong password with the same UNAUTHORIZED message and creates no session', async () => {
        const auth = newAuth();
        const before = (await db.dataSource.query(`SELECT count(*)::int AS n FROM user_session`))[0].n;
        const unknown = await rejection(auth.login('nobody@example.test', 'correct horse', HOME));
        const wrong = await rejection(auth.login('alice@example.test', 'wrong horse', HOME));
        for (const err of [unknown, wrong]) {
          expect(err.code).toBe('UNAUTHORIZED');
          expect(err.message).toBe('Invalid email or password');
        }
        expect((await db.dataSource.query(`SELECT count(*)::int AS n FROM user_session`))[0].n).toBe(before);
      });

      it('throttles an email from one address after 10 failures within the window, even for the right password', async () => {
        const auth = newAuth();
        // From an address of its own: the counts are shared (PostgreSQL), and the other tests sign in from 127.0.0.1.
        for (let i = 0; i < 10; i++) expect((await rejection(auth.login('alice@example.test', `nope-${i}`, GUESSER))).code).toBe('UNAUTHORIZED');
        const err = await rejection(auth.login(' Alice@Example.test', 'correct horse', GUESSER));
        expect(err).toBeInstanceOf(RateLimitedError);
        expect(err.code).toBe('RATE_LIMITED');
        expect(err.message).toBe('Too many login attempts');
        expect((err as RateLimitedError).retryAfterSeconds).toBeGreaterThan(890);
        expect((err as RateLimitedError).retryAfterSeconds).toBeLessThanOrEqual(900);
        // Other emails are unaffected.
        const other = await f.user(company.uuid, { password: 'other password' });
        await expect(auth.login(other.email, 'other password', GUESSER)).resolves.toBeDefined();
        // The owner's own address is another pair.
        await expect(auth.login('alice@example.test', 'correct horse', HOME)).resolves.toBeDefined();
      });

      it('refuses an expired session and an unknown token', async () => {
        const auth = newAuth();
        const { token } = await auth.login('alice@example.test', 'correct horse', HOME);
        expect(await auth.resolveSession(token)).not.toBeNull();
        await db.dataSource.query(`UPDATE user_session SET expires_at = now() - interval '1 second' WHERE token_hash = $1`, [sha256(token)]);
        expect(await auth.resolveSession(token)).toBeNull();
        expect(await auth.resolveSession('not-a-token')).toBeNull();
      });

      it('purges expired sessions in the background and keeps live ones', async () => {
        const auth = newAuth();
        const [expired, live] = [await auth.login('alice@example.test', 'correct horse', HOME), await auth.login('alice@example.test', 'correct horse', HOME)];
        await db.dataSource.query(`UPDATE user_session SET expires_at = now() - interval '1 second' WHERE token_hash = $1`, [sha256(expired.token)]);
        const pruner = world.get(UserSessionPruner);
        expect(await pruner.purgeExpired()).toBeGreaterThanOrEqual(1);
        expect(await sessionRow(expired.token)).toBeUndefined();
        expect(await sessionRow(live.token)).toBeDefined();
      });

      it('logout deletes the session row', async () => {
        const auth = newAuth();
        const { token } = await auth.login('alice@example.test', 'correct horse', HOME);
        expect(await sessionRow(token)).toBeDefined();
        await auth.logout(token);
        expect(await sessionRow(token)).toBeUndefined();
        expect(await auth.resolveSession(token)).toBeNull();
        await expect(auth.logout(null)).resolves.toBeUndefined();
      });

      it('renews a session with under 3.5 days left and leaves a fresher one alone', async () => {
        const auth = newAuth();
        const { token } = await auth.login('alice@example.test', 'correct horse', HOME);
        const fresh = await auth.resolveSession(token);
        expect(fresh!.renew).toBe(false);
        await db.dataSource.query(`UPDATE user_session SET expires_at = now() + interval '3 days 12 hours 5 minutes' WHERE token_hash = $1`, [sha256(token)]);
        expect((await auth.resolveSession(token))!.renew).toBe(false);
        await db.dataSource.query(`UPDATE user_session SET expires_at = now() + interval '3 days' WHERE token_hash = $1`, [sha256(token)]);
        const renewed = await auth.resolveSession(token);
        expect(renewed!.renew).toBe(true);
        const row = await sessionRow(token);
        expect(row!.expires_at.getTime()).toBeGreaterThan(Date.now() + 7 * 86400_000 - 60_000);
        expect(renewed!.context.actor).toMatchObject({ type: 'user', uuid: user.uuid, companyUuid: company.uuid });
        expect(renewed!.context.actor.permissions.size).toBe(15);
      });

      it('writes lastSeenAt at most once a minute', async () => {
        const auth = newAuth();
        const { token } = await auth.login('alice@example.test', 'correct horse', HOME);
        const recent = new Date(Date.now() - 30_000);
        await db.dataSource.query(`UPDATE user_session SET last_seen_at = $2 WHERE token_hash = $1`, [sha256(token), recent]);
        await auth.resolveSession(token);
        expect((await sessionRow(token))!.last_seen_at.getTime()).toBe(recent.getTime());
        const old = new Date(Date.now() - 90_000);
        await db.dataSource.query(`UPDATE user_session SET last_seen_at = $2 WHERE token_hash = $1`, [sha256(token), old]);
        await auth.resolveSession(token);
        expect((await sessionRow(token))!.last_seen_at.getTime()).toBeGreaterThan(Date.now() - 10_000);
      });
    });

    describe('agent keys', () => {
      const keyRow = async (uuid: string) => (await db.dataSource.query(`SELECT * FROM agent_api_key WHERE uuid = $1`, [uuid]))[0];

      it('returns the raw key once; the list never shows it and only its SHA-256 is stored', async () => {
        const m = { companyUuid: company.uuid, userUuid: user.uuid };
        const agent = await agents.create(m, user.uuid, { name: 'Keyed' });
        const created = await agents.createKey(m, agent.uuid, { name: ' ci ' });
        expect(created.key).toMatch(/^agk_[A-Za-z0-9_-]{43}$/);
        expect(created.apiKey).toEqual({
          uuid: expect.any(String), name: 'ci', keyPrefix: created.key.slice(0, 12), createdAt: expect.any(String),
          expiresAt: null, revokedAt: null, lastUsedAt: null,
        });
        const listed = await agents.listKeys(m, agent.uuid);
        expect(listed).toEqual([created.apiKey]);
        expect(JSON.stringify(listed)).not.toContain(created.key);
        const row = await keyRow(created.apiKey.uuid);
        expect(row.key_hash).toBe(sha256(created.key));
        expect(Object.values(row).map(String)).not.toContain(created.key);
        const ctx = await newAuth().resolveApiKey(created.key);
        expect(ctx).toMatchObject({ via: 'api_key', apiKeyUuid: created.apiKey.uuid, actor: { type: 'agent', uuid: agent.uuid, companyUuid: company.uuid, ownerUuid: user.uuid } });
      });

      it('refuses malformed, unknown, revoked and expired keys and keys of archived agents', async () => {
        const auth = newAuth();
        const m = { companyUuid: company.uuid, userUuid: user.uuid };
        const { agent, key, keyUuid } = await f.agent(company.uuid, user.uuid);
        expect(await auth.resolveApiKey(key)).not.toBeNull();
        expect(await auth.resolveApiKey(key.slice(0, -1))).toBeNull();
        expect(await auth.resolveApiKey('agk_' + 'A'.repeat(43))).toBeNull();
        expect(await auth.resolveApiKey(key.replace('agk_', 'xyz_'))).toBeNull();

        const revoked = await agents.revokeKey(m, agent.uuid, keyUuid);
        expect(revoked.revokedAt).not.toBeNull();
        expect(await auth.resolveApiKey(key)).toBeNull();
        // Revoking again is idempotent and keeps the first revocation time.
        expect((await agents.revokeKey(m, agent.uuid, keyUuid)).revokedAt).toBe(revoked.revokedAt);

        const expiring = await agents.createKey(m, agent.uuid, { expiresAt: new Date(Date.now() + 60_000) });
        expect(await auth.resolveApiKey(expiring.key)).not.toBeNull();
        await db.dataSource.query(`UPDATE agent_api_key SET expires_at = now() WHERE uuid = $1`, [expiring.apiKey.uuid]);
        expect(await auth.resolveApiKey(expiring.key)).toBeNull();

        const live = await agents.createKey(m, agent.uuid, {});
        expect(await auth.resolveApiKey(live.key)).not.toBeNull();
        await agents.archive(m, agent.uuid);
        expect(await auth.resolveApiKey(live.key)).toBeNull();
        expect((await keyRow(live.apiKey.uuid)).revoked_at).not.toBeNull();
      });

      it('refuses an expiry in the past at creation', async () => {
        const m = { companyUuid: company.uuid, userUuid: user.uuid };
        const { agent } = await f.agent(company.uuid, user.uuid);
        const err = await rejection(agents.createKey(m, agent.uuid, { expiresAt: new Date(Date.now() - 1000) }));
        expect(err.code).toBe('VALIDATION_ERROR');
        expect(await agents.listKeys(m, agent.uuid)).toHaveLength(1);
      });

      it('touches lastUsedAt at most once a minute', async () => {
        const auth = newAuth();
        const { key, keyUuid } = await f.agent(company.uuid, user.uuid);
        expect((await keyRow(keyUuid)).last_used_at).toBeNull();
        await auth.resolveApiKey(key);
        const first = (await keyRow(keyUuid)).last_used_at as Date;
        expect(first).toBeInstanceOf(Date);
        const recent = new Date(Date.now() - 30_000);
        await db.dataSource.query(`UPDATE agent_api_key SET last_used_at = $2 WHERE uuid = $1`, [keyUuid, recent]);
        await auth.resolveApiKey(key);
        expect(((await keyRow(keyUuid)).last_used_at as Date).getTime()).toBe(recent.getTime());
        const old = new Date(Date.now() - 61_000);
        await db.dataSource.query(`UPDATE agent_api_key SET last_used_at = $2 WHERE uuid = $1`, [keyUuid, old]);
        await auth.resolveApiKey(key);
        expect(((await keyRow(keyUuid)).last_used_at as Date).getTime()).toBeGreaterThan(Date.now() - 10_000);
      });
    });

    describe('agent permissions and ownership', () => {
      it.each([
        ['developer_agent', [...READS, 'task:write']],
        ['pm_agent', [...READS, 'idea:write', 'proposal:write', 'document:write', 'task:write', 'project:write']],
        ['admin_agent', [...ALL_PERMISSIONS]],
      ])('gives %s its preset bits, also through its key', async (preset, expected) => {
        const { agent, key } = await f.agent(company.uuid, user.uuid, { preset });
        expect(agent.preset).toBe(preset);
        expect(agent.permissions).toEqual([]);
        expect([...agent.effectivePermissions].sort()).toEqual([...expected].sort());
        const ctx = await newAuth().resolveApiKey(key);
        expect([...ctx!.actor.permissions].sort()).toEqual([...expected].sort());
      });

      it('adds custom bits de-duplicated in canonical order, and a key acts with the current set', async () => {
        const m = { companyUuid: company.uuid, userUuid: user.uuid };
        const { agent, key } = await f.agent(company.uuid, user.uuid, { permissions: ['task:admin', 'idea:admin', 'task:admin', 'task:write'] });
        expect(agent.permissions).toEqual(['idea:admin', 'task:write', 'task:admin']);
        expect(agent.effectivePermissions).toEqual([...READS.slice(0, 1), 'idea:admin', ...READS.slice(1, 4), 'task:write', 'task:admin', 'project:read']);
        const auth = newAuth();
        expect((await auth.resolveApiKey(key))!.actor.permissions.has('task:admin')).toBe(true);
        await agents.update(m, agent.uuid, { permissions: [] });
        const after = await auth.resolveApiKey(key);
        expect(after!.actor.permissions.has('task:admin')).toBe(false);
        expect(after!.actor.permissions.has('task:write')).toBe(true);
      });

      it('rejects an unknown preset or permission with the exact messages and changes nothing', async () => {
        const m = { companyUuid: company.uuid, userUuid: user.uuid };
        const { agent } = await f.agent(company.uuid, user.uuid);
        const preset = await rejection(agents.create(m, user.uuid, { name: 'X', preset: 'x' }));
        expect([preset.code, preset.message]).toEqual(['VALIDATION_ERROR', 'Invalid preset: x']);
        const perm = await rejection(agents.create(m, user.uuid, { name: 'X', permissions: ['task:read', 'x:y'] }));
        expect([perm.code, perm.message]).toEqual(['VALIDATION_ERROR', 'Invalid permission: x:y']);
        const upd = await rejection(agents.update(m, agent.uuid, { name: 'Renamed', permissions: ['x:y'] }));
        expect(upd.message).toBe('Invalid permission: x:y');
        expect((await agents.get(m, agent.uuid)).name).toBe(agent.name);
      });

      it('lets only the owner change, key or archive an agent; other users of the company may read it', async () => {
        const colleague = await f.user(company.uuid);
        const { agent, keyUuid } = await f.agent(company.uuid, user.uuid, { name: 'Owned' });
        const other = { companyUuid: company.uuid, userUuid: colleague.uuid };
        expect((await agents.get(other, agent.uuid)).uuid).toBe(agent.uuid);
        for (const attempt of [
          agents.update(other, agent.uuid, { name: 'Stolen' }),
          agents.archive(other, agent.uuid),
          agents.createKey(other, agent.uuid, {}),
          agents.revokeKey(other, agent.uuid, keyUuid),
        ]) {
          const err = await rejection(attempt);
          expect([err.code, err.message]).toEqual(['FORBIDDEN', "Only the agent's owner can manage it"]);
        }
        const owner = { companyUuid: company.uuid, userUuid: user.uuid };
        const after = await agents.get(owner, agent.uuid);
        expect(after.name).toBe('Owned');
        expect(await agents.listKeys(owner, agent.uuid)).toEqual([expect.objectContaining({ uuid: keyUuid, revokedAt: null })]);
      });

      it('keeps companies apart: another company sees none of these agents or keys', async () => {
        const companyB = await f.company();
        const userB = await f.user(companyB.uuid);
        const { agent, keyUuid } = await f.agent(company.uuid, user.uuid);
        const b = { companyUuid: companyB.uuid, userUuid: userB.uuid };
        for (const attempt of [agents.get(b, agent.uuid), agents.listKeys(b, agent.uuid), agents.update(b, agent.uuid, { name: 'x' }), agents.createKey(b, agent.uuid, {})]) {
          expect(await rejection(attempt)).toMatchObject({ code: 'NOT_FOUND', message: 'Agent not found' });
        }
        expect((await rejection(agents.revokeKey({ companyUuid: companyB.uuid, userUuid: null }, null, keyUuid))).message).toBe('API key not found');
        expect(await agents.list(b)).toEqual([]);
        // An owner from another company is "User not found".
        const err = await rejection(agents.create({ companyUuid: company.uuid, userUuid: null }, userB.uuid, { name: 'Cross' }));
        expect([err.code, err.message]).toEqual(['NOT_FOUND', 'User not found']);
      });
    });
  });
});

/** Agent sessions: the state machine of docs/domain.md §7 and the session tools of docs/tool-conventions.md §5.3. */
describe('agent sessions', () => {
  let world: World;
  let h: Harness;
  let f: TaskFactory;
  let sessions: SessionService;
  let tasks: TaskService;
  let companyUuid: string;
  let projectUuid: string;
  /** A user of the company, owner of `dev` and `dev2`, two developer agents. */
  let admin: Actor;
  let dev: Actor;
  let dev2: Actor;
  /** A developer agent of another user of the same company. */
  let otherDev: Actor;

  beforeAll(async () => {
    world = await World.database();
    h = world.h;
    f = world.tasks;
    sessions = world.get(SessionService);
    tasks = world.get(TaskService);
    companyUuid = (await world.company()).uuid;
    admin = userActor(await world.user(companyUuid));
    dev = (await world.agent(companyUuid, admin.uuid, { preset: 'developer_agent', name: 'Dev' })).actor;
    dev2 = (await world.agent(companyUuid, admin.uuid, { preset: 'developer_agent', name: 'Dev2' })).actor;
    const other = await world.user(companyUuid);
    otherDev = (await world.agent(companyUuid, other.uuid, { preset: 'developer_agent', name: 'OtherDev' })).actor;
    projectUuid = await world.project(admin);
  });
  afterAll(() => world.close());
  beforeEach(() => h.takeEvents());

  const updated = (taskUuid: string) => ({ companyUuid, projectUuid, entityType: 'task', entityUuid: taskUuid, action: 'updated' });
  const sessionRow = async (uuid: string) =>
    (await world.ds.query(`SELECT status, last_active_at, closed_at FROM agent_session WHERE uuid = $1`, [uuid]))[0] as { status: string; last_active_at: Date; closed_at: Date | null };
  const checkinRow = async (sessionUuid: string, taskUuid: string) =>
    (await world.ds.query(`SELECT checkin_at, checkout_at FROM session_task_checkin WHERE session_uuid = $1 AND task_uuid = $2`, [sessionUuid, taskUuid]))[0] as
      | { checkin_at: Date; checkout_at: Date | null }
      | undefined;
  const tick = () => new Promise((r) => setTimeout(r, 10));
  const newSession = (name = 'worker'): Promise<SessionRecord> => sessions.create(dev, { name });

  it('create: an active session of the calling agent, no event', async () => {
    const s = await sessions.create(dev, { name: '  worker-1 ', description: 'parallel runner' });
    expect(Object.keys(s)).toEqual(['uuid', 'agentUuid', 'name', 'description', 'status', 'lastActiveAt', 'closedAt', 'checkins', 'createdAt', 'updatedAt']);
    expect(s).toMatchObject({ agentUuid: dev.uuid, name: 'worker-1', description: 'parallel runner', status: 'active', closedAt: null, checkins: [] });
    expect(h.takeEvents()).toEqual([]);
    await expect(sessions.create(dev, { name: ' ' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(sessions.create(admin, { name: 'x' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  describe('check-in', () => {
    it('of an open task claims it through the claim path: one task updated, activities assigned + session_checkin', async () => {
      const s = await newSession();
      const task = await world.task(admin, projectUuid);
      h.takeEvents();
      const r = await sessions.checkinTask(dev, { sessionUuid: s.uuid, taskUuid: task.uuid });
      expect(r).toMatchObject({ sessionUuid: s.uuid, taskUuid: task.uuid, claimed: true, task: { uuid: task.uuid, status: 'assigned', assignee: { type: 'agent', uuid: dev.uuid } } });
      expect(Object.keys(r)).toEqual(['sessionUuid', 'taskUuid', 'checkinAt', 'claimed', 'task']);
      expect(h.takeEvents()).toEqual([updated(task.uuid)]);
      const [act] = (await f.activities(task.uuid)).slice(-1);
      expect(act).toMatchObject({ action: 'assigned', session_uuid: s.uuid, session_name: 'worker' });
      expect((act.value as { changes: Array<{ action: string }> }).changes.map((c) => c.action)).toEqual(['assigned', 'session_checkin']);
      expect((await checkinRow(s.uuid, task.uuid))!.checkout_at).toBeNull();
      const got = await sessions.get(dev, { sessionUuid: s.uuid });
      expect(got.checkins).toEqual([{ taskUuid: task.uuid, taskTitle: task.title, checkinAt: r.checkinAt }]);
    });

    it('of a task held by someone else, or by the caller: no claim, status unchanged', async () => {
      const s = await newSession();
      const theirs = await world.taskIn('in_progress', admin, projectUuid, otherDev);
      const mine = await world.taskIn('assigned', admin, projectUuid, dev);
      h.takeEvents();
      const r1 = await sessions.checkinTask(dev, { sessionUuid: s.uuid, taskUuid: theirs });
      expect(r1).toMatchObject({ claimed: false, task: { status: 'in_progress', assignee: { uuid: otherDev.uuid } } });
      const r2 = await sessions.checkinTask(dev, { sessionUuid: s.uuid, taskUuid: mine });
      expect(r2).toMatchObject({ claimed: false, task: { status: 'assigned' } });
      expect(h.takeEvents()).toEqual([updated(theirs), updated(mine)]);
      expect((await f.activities(theirs)).at(-1)).toMatchObject({ action: 'session_checkin', value: { sessionUuid: s.uuid, sessionName: 'worker' } });
    });

    it('a second check-in re-activates the same row', async () => {
      const s = await newSession();
      const uuid = await world.taskIn('assigned', admin, projectUuid, dev);
      const first = await sessions.checkinTask(dev, { sessionUuid: s.uuid, taskUuid: uuid });
      await sessions.checkoutTask(dev, { sessionUuid: s.uuid, taskUuid: uuid });
      await tick();
      const second = await sessions.checkinTask(dev, { sessionUuid: s.uuid, taskUuid: uuid });
      expect(new Date(second.checkinAt).getTime()).toBeGreaterThan(new Date(first.checkinAt).getTime());
      const rows = await world.ds.query(`SELECT checkin_at, checkout_at FROM session_task_checkin WHERE task_uuid = $1`, [uuid]);
      expect(rows).toEqual([{ checkin_at: new Date(second.checkinAt), checkout_at: null }]);
    });

    it.each(['done', 'closed'] as const)('of a %s task: INVALID_STATE, nothing written', async (status) => {
      const s = await newSession();
      const uuid = await world.taskIn(status, admin, projectUuid, dev);
      await expectRefused(f, h, uuid, () => sessions.checkinTask(dev, { sessionUuid: s.uuid, taskUuid: uuid }), 'INVALID_STATE', `Task is ${status}; check-in requires open, assigned, in_progress or to_verify`);
    });

    it('guards: closed session INVALID_STATE, foreign session FORBIDDEN, unknown session or task NOT_FOUND', async () => {
      const uuid = await world.taskIn('open', admin, projectUuid, dev);
      const closed = await newSession();
      await sessions.close(dev, { sessionUuid: closed.uuid });
      const foreign = await sessions.create(dev2, { name: 'theirs' });
      await expectRefused(f, h, uuid, () => sessions.checkinTask(dev, { sessionUuid: closed.uuid, taskUuid: uuid }), 'INVALID_STATE', 'Session is closed; check-in requires active');
      await expectRefused(f, h, uuid, () => sessions.checkinTask(dev, { sessionUuid: foreign.uuid, taskUuid: uuid }), 'FORBIDDEN', 'Session belongs to another agent');
      await expectRefused(f, h, uuid, () => sessions.checkinTask(dev, { sessionUuid: '00000000-0000-4000-8000-000000000000', taskUuid: uuid }), 'NOT_FOUND', 'Session not found');
      const s = await newSession();
      await expect(sessions.checkinTask(dev, { sessionUuid: s.uuid, taskUuid: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Task not found' });
      expect((await sessions.get(dev, { sessionUuid: s.uuid })).checkins).toEqual([]);
    });
  });

  describe('check-out', () => {
    it('closes the open check-in without touching the task status', async () => {
      const s = await newSession();
      const uuid = await world.taskIn('in_progress', admin, projectUuid, dev);
      const c = await sessions.checkinTask(dev, { sessionUuid: s.uuid, taskUuid: uuid });
      h.takeEvents();
      const r = await sessions.checkoutTask(dev, { sessionUuid: s.uuid, taskUuid: uuid });
      expect(r).toEqual({ sessionUuid: s.uuid, taskUuid: uuid, checkinAt: c.checkinAt, checkoutAt: expect.any(String) });
      expect((await checkinRow(s.uuid, uuid))!.checkout_at).toEqual(new Date(r.checkoutAt));
      expect(h.takeEvents()).toEqual([updated(uuid)]);
      expect((await f.activities(uuid)).at(-1)).toMatchObject({ action: 'session_checkout', session_uuid: s.uuid });
      expect((await tasks.get(dev, { taskUuid: uuid })).status).toBe('in_progress');
      expect((await sessionRow(s.uuid)).last_active_at).toEqual(new Date(r.checkoutAt));
    });

    it('without an open check-in: NOT_FOUND "Check-in not found"; on a closed session: INVALID_STATE', async () => {
      const s = await newSession();
      const uuid = await world.taskIn('assigned', admin, projectUuid, dev);
      await expectRefused(f, h, uuid, () => sessions.checkoutTask(dev, { sessionUuid: s.uuid, taskUuid: uuid }), 'NOT_FOUND', 'Check-in not found');
      await sessions.checkinTask(dev, { sessionUuid: s.uuid, taskUuid: uuid });
      await sessions.checkoutTask(dev, { sessionUuid: s.uuid, taskUuid: uuid });
      await expectRefused(f, h, uuid, () => sessions.checkoutTask(dev, { sessionUuid: s.uuid, taskUuid: uuid }), 'NOT_FOUND', 'Check-in not found');
      await sessions.close(dev, { sessionUuid: s.uuid });
      await expectRefused(f, h, uuid, () => sessions.checkoutTask(dev, { sessionUuid: s.uuid, taskUuid: uuid }), 'INVALID_STATE', 'Session is closed; checkout requires active');
      await expectRefused(f, h, uuid, () => sessions.checkoutTask(dev2, { sessionUuid: s.uuid, taskUuid: uuid }), 'FORBIDDEN');
    });
  });

  describe('heartbeat', () => {
    it('moves lastActiveAt; refused on a closed session; publishes nothing', async () => {
      const s = await newSession();
      await tick();
      const r = await sessions.heartbeat(dev, { sessionUuid: s.uuid });
      expect(r).toEqual({ uuid: s.uuid, status: 'active', lastActiveAt: expect.any(String) });
      expect(new Date(r.lastActiveAt).getTime()).toBeGreaterThan(new Date(s.lastActiveAt).getTime());
      expect((await sessionRow(s.uuid)).last_active_at).toEqual(new Date(r.lastActiveAt));
      expect(h.takeEvents()).toEqual([]);
      await sessions.close(dev, { sessionUuid: s.uuid });
      const before = await sessionRow(s.uuid);
      await expect(sessions.heartbeat(dev, { sessionUuid: s.uuid })).rejects.toMatchObject({ code: 'INVALID_STATE', message: 'Session is closed; heartbeat requires active' });
      expect(await sessionRow(s.uuid)).toEqual(before);
      await expect(sessions.heartbeat(dev2, { sessionUuid: s.uuid })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    });
  });

  describe('close and reopen', () => {
    it('close checks out every open check-in with one task updated per task; closing again is unchanged', async () => {
      const s = await newSession();
      const a = await world.taskIn('assigned', admin, projectUuid, dev);
      const b = await world.taskIn('in_progress', admin, projectUuid, dev);
      await sessions.checkinTask(dev, { sessionUuid: s.uuid, taskUuid: a });
      await sessions.checkinTask(dev, { sessionUuid: s.uuid, taskUuid: b });
      h.takeEvents();
      const r = await sessions.close(dev, { sessionUuid: s.uuid });
      expect(r).toMatchObject({ status: 'closed', checkins: [], closedAt: expect.any(String) });
      expect(h.takeEvents()).toEqual([updated(a), updated(b)]);
      expect((await checkinRow(s.uuid, a))!.checkout_at).not.toBeNull();
      expect((await f.activities(b)).at(-1)).toMatchObject({ action: 'session_checkout', session_uuid: s.uuid });
      expect((await tasks.get(dev, { taskUuid: a })).activeSessions).toEqual([]);

      const again = await sessions.close(dev, { sessionUuid: s.uuid });
      expect(again).toEqual(r);
      expect(h.takeEvents()).toEqual([]);
    });

    it('reopen: closed -> active with closedAt cleared; an active session refuses', async () => {
      const s = await newSession();
      await expect(sessions.reopen(dev, { sessionUuid: s.uuid })).rejects.toMatchObject({ code: 'INVALID_STATE', message: 'Session is active; reopen requires closed' });
      await sessions.close(dev, { sessionUuid: s.uuid });
      const r = await sessions.reopen(dev, { sessionUuid: s.uuid });
      expect(r).toMatchObject({ status: 'active', closedAt: null });
      expect((await sessionRow(s.uuid)).closed_at).toBeNull();
      await expect(sessions.reopen(dev2, { sessionUuid: s.uuid })).rejects.toMatchObject({ code: 'FORBIDDEN' });
      await expect(sessions.close(dev2, { sessionUuid: s.uuid })).rejects.toMatchObject({ code: 'FORBIDDEN', message: 'Session belongs to another agent' });
      expect((await sessionRow(s.uuid)).status).toBe('active');
    });
  });

  describe('reads', () => {
    it('list: the caller\'s own sessions, newest first, optional status; listForCompany for the web', async () => {
      // A company of its own: its admin, and two developer agents of that admin.
      const c = (await world.company()).uuid;
      const theirAdmin = userActor(await world.user(c));
      const theirDev = (await world.agent(c, theirAdmin.uuid, { preset: 'developer_agent' })).actor;
      const theirDev2 = (await world.agent(c, theirAdmin.uuid, { preset: 'developer_agent' })).actor;
      const s1 = await sessions.create(theirDev, { name: 'one' });
      await tick();
      const s2 = await sessions.create(theirDev, { name: 'two' });
      await tick();
      const s3 = await sessions.create(theirDev2, { name: 'three' });
      await sessions.close(theirDev, { sessionUuid: s1.uuid });

      const mine = await sessions.list(theirDev, {});
      expect(mine).toMatchObject({ page: 1, pageSize: 20, total: 2 });
      expect(mine.sessions.map((s) => s.uuid)).toEqual([s2.uuid, s1.uuid]);
      expect((await sessions.list(theirDev, { status: 'closed' })).sessions.map((s) => s.uuid)).toEqual([s1.uuid]);
      expect((await sessions.list(theirDev, { pageSize: 1, page: 2 })).sessions.map((s) => s.uuid)).toEqual([s1.uuid]);
      // An unknown status is the DTO's: src/modules/sessions/dto/session.dto.spec.ts.

      const all = await sessions.listForCompany(theirAdmin, {});
      expect(all.sessions.map((s) => s.uuid)).toEqual([s3.uuid, s2.uuid, s1.uuid]);
      expect((await sessions.listForCompany(theirAdmin, { agentUuid: theirDev2.uuid })).sessions.map((s) => s.uuid)).toEqual([s3.uuid]);
      expect((await sessions.listForCompany(theirAdmin, { status: 'active' })).total).toBe(2);
      // Another company sees none of them.
      expect((await sessions.listForCompany(admin, { agentUuid: theirDev.uuid })).total).toBe(0);
    });

    it('get: own session only', async () => {
      const s = await newSession('mine');
      expect((await sessions.get(dev, { sessionUuid: s.uuid })).name).toBe('mine');
      await expect(sessions.get(dev2, { sessionUuid: s.uuid })).rejects.toMatchObject({ code: 'FORBIDDEN', message: 'Session belongs to another agent' });
      await expect(sessions.get(dev, { sessionUuid: 'x' })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Session not found' });
    });
  });
});

describe('login throttling', () => {
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
});

describe('throttler storage', () => {
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
});
