import { createHash } from 'node:crypto';
import { AuthService } from '../../src/modules/identity/index.js';
import { World } from '../utils/world.js';
import { HttpClient } from '../utils/http.js';
import type { SeededUser } from '../factories/identity.factory.js';

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');
const FORBIDDEN = { success: false, error: { code: 'FORBIDDEN', message: "Only the agent's owner can manage it" } };
const AGENT_NOT_FOUND = { success: false, error: { code: 'NOT_FOUND', message: 'Agent not found' } };

describe('agent management REST (e2e)', () => {
  let app: World;
  let owner: HttpClient;
  let colleague: HttpClient;
  let outsider: HttpClient;
  let alice: SeededUser;

  beforeAll(async () => {
    app = await World.start();
    const f = app.ids;
    const a = await f.company('A');
    const b = await f.company('B');
    alice = await f.user(a.uuid, { name: 'Alice' });
    const carol = await f.user(a.uuid, { name: 'Carol' });
    const bob = await f.user(b.uuid, { name: 'Bob' });
    owner = new HttpClient(app.url);
    colleague = new HttpClient(app.url);
    outsider = new HttpClient(app.url);
    await owner.login(alice.email, alice.password);
    await colleague.login(carol.email, carol.password);
    await outsider.login(bob.email, bob.password);
  });
  afterAll(() => app.close());

  const createAgent = async (body: Record<string, unknown> = { name: 'Builder' }) => {
    const res = await owner.post('/api/agents', body);
    expect(res.status).toBe(201);
    return res.body.data;
  };

  it('creates an agent owned by the caller, with the developer preset by default', async () => {
    const res = await owner.post('/api/agents', { name: '  Builder  ' });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      uuid: expect.any(String),
      name: 'Builder',
      preset: 'developer_agent',
      permissions: [],
      effectivePermissions: ['idea:read', 'proposal:read', 'document:read', 'task:read', 'task:write', 'project:read'],
      owner: { uuid: alice.uuid, name: 'Alice', email: alice.email },
      lastActiveAt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await owner.get(`/api/agents/${res.body.data.uuid}`)).body.data).toEqual(res.body.data);
  });

  it('validates presets and permissions with the exact messages', async () => {
    const preset = await owner.post('/api/agents', { name: 'X', preset: 'x' });
    expect(preset.status).toBe(400);
    expect(preset.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'Invalid preset: x' });
    const perm = await owner.post('/api/agents', { name: 'X', permissions: ['x:y'] });
    expect(perm.status).toBe(400);
    expect(perm.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'Invalid permission: x:y' });
    const agent = await createAgent();
    const upd = await owner.patch(`/api/agents/${agent.uuid}`, { preset: 'boss' });
    expect(upd.body.error.message).toBe('Invalid preset: boss');
    expect((await owner.get(`/api/agents/${agent.uuid}`)).body.data.preset).toBe('developer_agent');
  });

  it('updates preset and custom bits; a given list replaces the custom bits', async () => {
    const agent = await createAgent({ name: 'PM', preset: 'pm_agent', permissions: ['task:admin'] });
    expect(agent.permissions).toEqual(['task:admin']);
    expect(agent.effectivePermissions).toContain('task:admin');
    const res = await owner.patch(`/api/agents/${agent.uuid}`, { preset: 'admin_agent', permissions: ['idea:admin'] });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ preset: 'admin_agent', permissions: ['idea:admin'] });
    expect(res.body.data.effectivePermissions).toHaveLength(15);
    const cleared = await owner.patch(`/api/agents/${agent.uuid}`, { preset: 'developer_agent', permissions: [] });
    expect(cleared.body.data.permissions).toEqual([]);
    expect(cleared.body.data.effectivePermissions).not.toContain('task:admin');
  });

  it('issues a key whose raw value appears once; lists show prefixes only, newest first', async () => {
    const agent = await createAgent();
    const first = await owner.post(`/api/agents/${agent.uuid}/keys`, { name: 'laptop' });
    expect(first.status).toBe(201);
    const { key, apiKey } = first.body.data;
    expect(key).toMatch(/^agk_[A-Za-z0-9_-]{43}$/);
    expect(apiKey).toEqual({ uuid: expect.any(String), name: 'laptop', keyPrefix: key.slice(0, 12), createdAt: expect.any(String), expiresAt: null, revokedAt: null, lastUsedAt: null });
    const expiresAt = new Date(Date.now() + 86400_000).toISOString();
    const second = await owner.post(`/api/agents/${agent.uuid}/keys`, { expiresAt });
    expect(second.body.data.apiKey).toMatchObject({ name: null, expiresAt });
    const list = await colleague.get(`/api/agents/${agent.uuid}/keys`);
    expect(list.status).toBe(200);
    expect(list.body.data.keys.map((k: { uuid: string }) => k.uuid)).toEqual([second.body.data.apiKey.uuid, apiKey.uuid]);
    expect(list.text).not.toContain(key);
    expect(list.text).not.toContain(second.body.data.key);
    const [row] = await app.db.dataSource.query(`SELECT key_hash FROM agent_api_key WHERE uuid = $1`, [apiKey.uuid]);
    expect(row.key_hash).toBe(sha256(key));
    // The key authenticates as the agent.
    const ctx = await app.get(AuthService).resolveApiKey(key);
    expect(ctx!.actor).toMatchObject({ type: 'agent', uuid: agent.uuid, ownerUuid: alice.uuid });
  });

  it('refuses an expiry that is not in the future', async () => {
    const agent = await createAgent();
    const res = await owner.post(`/api/agents/${agent.uuid}/keys`, { expiresAt: new Date(Date.now() - 1000).toISOString() });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect((await owner.get(`/api/agents/${agent.uuid}/keys`)).body.data.keys).toEqual([]);
  });

  it('revokes a key idempotently; a key of another agent is 404; a revoked key no longer authenticates', async () => {
    const agent = await createAgent();
    const other = await createAgent({ name: 'Other' });
    const { key, apiKey } = (await owner.post(`/api/agents/${agent.uuid}/keys`, {})).body.data;
    const wrongAgent = await owner.delete(`/api/agents/${other.uuid}/keys/${apiKey.uuid}`);
    expect(wrongAgent.status).toBe(404);
    expect(wrongAgent.body.error).toEqual({ code: 'NOT_FOUND', message: 'API key not found' });
    const revoked = await owner.delete(`/api/agents/${agent.uuid}/keys/${apiKey.uuid}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toMatchObject({ uuid: apiKey.uuid, revokedAt: expect.any(String) });
    const again = await owner.delete(`/api/agents/${agent.uuid}/keys/${apiKey.uuid}`);
    expect(again.status).toBe(200);
    expect(again.body.data.revokedAt).toBe(revoked.body.data.revokedAt);
    expect(await app.get(AuthService).resolveApiKey(key)).toBeNull();
  });

  it('archives an agent on DELETE: hidden from lists, keys revoked, key refused', async () => {
    const agent = await createAgent({ name: 'Doomed' });
    const { key } = (await owner.post(`/api/agents/${agent.uuid}/keys`, {})).body.data;
    const res = await owner.delete(`/api/agents/${agent.uuid}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ uuid: agent.uuid, deleted: true });
    expect((await owner.get('/api/agents')).body.data.agents.map((a: { uuid: string }) => a.uuid)).not.toContain(agent.uuid);
    expect((await owner.get(`/api/agents/${agent.uuid}`)).body).toEqual(AGENT_NOT_FOUND);
    expect(await app.get(AuthService).resolveApiKey(key)).toBeNull();
  });

  it("lets colleagues read but only the owner change, delete or key an agent", async () => {
    const agent = await createAgent({ name: 'Mine' });
    const { apiKey } = (await owner.post(`/api/agents/${agent.uuid}/keys`, {})).body.data;
    expect((await colleague.get(`/api/agents/${agent.uuid}`)).status).toBe(200);
    expect((await colleague.get('/api/agents')).body.data.agents.map((a: { uuid: string }) => a.uuid)).toContain(agent.uuid);
    for (const res of [
      await colleague.patch(`/api/agents/${agent.uuid}`, { name: 'Taken' }),
      await colleague.delete(`/api/agents/${agent.uuid}`),
      await colleague.post(`/api/agents/${agent.uuid}/keys`, {}),
      await colleague.delete(`/api/agents/${agent.uuid}/keys/${apiKey.uuid}`),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
    }
    const after = (await owner.get(`/api/agents/${agent.uuid}`)).body.data;
    expect(after.name).toBe('Mine');
    expect((await owner.get(`/api/agents/${agent.uuid}/keys`)).body.data.keys).toEqual([expect.objectContaining({ uuid: apiKey.uuid, revokedAt: null })]);
  });

  it('hides every agent and key of company A from a user of company B', async () => {
    const agent = await createAgent({ name: 'Secret' });
    const { apiKey } = (await owner.post(`/api/agents/${agent.uuid}/keys`, {})).body.data;
    const list = await outsider.get('/api/agents');
    expect(list.status).toBe(200);
    expect(list.body.data.agents).toEqual([]);
    for (const res of [
      await outsider.get(`/api/agents/${agent.uuid}`),
      await outsider.patch(`/api/agents/${agent.uuid}`, { name: 'Mine now' }),
      await outsider.delete(`/api/agents/${agent.uuid}`),
      await outsider.get(`/api/agents/${agent.uuid}/keys`),
      await outsider.post(`/api/agents/${agent.uuid}/keys`, {}),
      await outsider.delete(`/api/agents/${agent.uuid}/keys/${apiKey.uuid}`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual(AGENT_NOT_FOUND);
    }
    expect((await owner.get(`/api/agents/${agent.uuid}`)).body.data.name).toBe('Secret');
    // B's own agents are listed for B only.
    const own = await outsider.post('/api/agents', { name: 'B agent' });
    expect((await outsider.get('/api/agents')).body.data.agents.map((a: { uuid: string }) => a.uuid)).toEqual([own.body.data.uuid]);
    expect((await owner.get('/api/agents')).body.data.agents.map((a: { uuid: string }) => a.uuid)).not.toContain(own.body.data.uuid);
  });

  it('lists non-archived agents by creation time', async () => {
    const list = (await colleague.get('/api/agents')).body.data.agents as Array<{ createdAt: string }>;
    expect(list.length).toBeGreaterThan(3);
    expect(list.map((a) => a.createdAt)).toEqual([...list.map((a) => a.createdAt)].sort());
  });

  it('requires a session: 401 without one, and an agent key is ignored on these routes', async () => {
    const { key } = await app.ids.agent(alice.companyUuid, alice.uuid);
    const anonymous = new HttpClient(app.url);
    expect((await anonymous.get('/api/agents')).status).toBe(401);
    const withKey = await anonymous.get('/api/agents', { authorization: `Bearer ${key}` });
    expect(withKey.status).toBe(401);
    expect(withKey.body.error).toEqual({ code: 'UNAUTHORIZED', message: 'Authentication required' });
  });
});
