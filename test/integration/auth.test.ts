import { createHash } from 'node:crypto';
import { AgentService, AuthService } from '../../src/modules/identity/index.js';
import { UserSessionPruner } from '../../src/modules/identity/user-session.pruner.js';
import { AppError, RateLimitedError } from '../../src/shared/errors/app-error.js';
import { ALL_PERMISSIONS } from '../../src/shared/auth/permissions.js';
import { IdentityFactory, type SeededUser } from '../factories/identity.factory.js';
import type { TestDatabase } from '../utils/test-database.js';
import { World } from '../utils/world.js';

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
