import { MIGRATIONS } from '../../migrations/index.js';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { startService } from '../../src/bootstrap.js';
import { openDatabase } from '../../src/database.js';
import { loadConfig } from '../../src/config/config.js';
import { AuthService } from '../../src/modules/identity/index.js';
import { findRunningEmbedded, removeEmbeddedData } from '../../src/shared/database/embedded-postgres.js';
import { ALL_PERMISSIONS } from '../../src/shared/auth/permissions.js';
import { ensureBuilt, runCli } from '../utils/built.js';
import { HttpClient } from '../utils/http.js';
import { World } from '../utils/world.js';
import { createTestDatabase } from '../utils/test-database.js';

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');
/** Each CLI run loads the whole app (~0.6 s) and CI machines are shared: be generous. */
const SLOW = 90_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('admin CLI (e2e, built CLI as a child process)', () => {
  let app: World;
  let cli: (...args: string[]) => ReturnType<typeof runCli>;
  const count = async (sql: string, params: unknown[] = []): Promise<number> => (await app.db.dataSource.query(sql, params))[0].n;

  beforeAll(async () => {
    ensureBuilt();
    app = await World.start();
    // The CLI reaches the app's own database, so what it creates is visible through the app.
    cli = (...args) => runCli(args, { DATABASE_URL: app.db.url });
  }, 180_000);
  afterAll(() => app?.close());

  function expectFailure(res: Awaited<ReturnType<typeof runCli>>, code: string, message: string | RegExp): void {
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.json).toEqual({ error: { code, message: expect.stringMatching(message) } });
  }

  describe('identity commands', () => {
    let company: { uuid: string; name: string };
    let user: { uuid: string; email: string; name: string; companyUuid: string };

    beforeAll(async () => {
      const c = await cli('company', 'create', '--name', 'Acme CLI');
      expect(c.code).toBe(0);
      company = c.json.company;
      const u = await cli('user', 'create', '--company', company.uuid, '--email', ' Ops@Example.TEST ', '--name', 'Ops', '--password', 'ops password');
      expect(u.code).toBe(0);
      user = u.json.user;
    }, 60_000);

    it('company create prints {company} and stores it', async () => {
      expect(company).toEqual({ uuid: expect.stringMatching(UUID), name: 'Acme CLI' });
      expect(await count(`SELECT count(*)::int AS n FROM company WHERE uuid = $1 AND name = 'Acme CLI'`, [company.uuid])).toBe(1);
    }, SLOW);

    it('user create prints {user}, lower-cases the email and stores only a scrypt hash; the user can log in', async () => {
      expect(user).toEqual({ uuid: expect.stringMatching(UUID), email: 'ops@example.test', name: 'Ops', companyUuid: company.uuid });
      const [row] = await app.db.dataSource.query(`SELECT password_hash FROM app_user WHERE uuid = $1`, [user.uuid]);
      expect(row.password_hash).toMatch(/^scrypt\$16384\$8\$1\$/);
      expect(row.password_hash).not.toContain('ops password');
      expect((await new HttpClient(app.url).post('/api/auth/login', { email: 'ops@example.test', password: 'ops password' })).status).toBe(200);
    }, SLOW);

    it('user create fails with exit 1 for a duplicate email, a short password or an unknown company', async () => {
      expectFailure(await cli('user', 'create', '--company', company.uuid, '--email', 'ops@example.test', '--name', 'Twin', '--password', 'long enough'), 'CONFLICT', /already exists/);
      expectFailure(await cli('user', 'create', '--company', company.uuid, '--email', 'short@example.test', '--name', 'S', '--password', 'short'), 'VALIDATION_ERROR', /Password/);
      expectFailure(await cli('user', 'create', '--company', 'not-a-uuid', '--email', 'x@example.test', '--name', 'X', '--password', 'long enough'), 'NOT_FOUND', /^Company not found$/);
      expectFailure(
        await cli('user', 'create', '--company', '00000000-0000-4000-8000-000000000000', '--email', 'x@example.test', '--name', 'X', '--password', 'long enough'),
        'NOT_FOUND',
        /^Company not found$/,
      );
      expect(await count(`SELECT count(*)::int AS n FROM app_user WHERE email IN ('short@example.test', 'x@example.test')`)).toBe(0);
    }, SLOW);

    it('agent create prints {agent, apiKey, key}; the key authenticates with the agent\'s permissions', async () => {
      const res = await cli('agent', 'create', '--company', company.uuid, '--owner', user.uuid, '--name', 'Deployer', '--preset', 'developer_agent', '--permission', 'task:admin', '--permission', 'idea:admin');
      expect(res.code).toBe(0);
      const { agent, apiKey, key } = res.json;
      expect(agent).toMatchObject({
        uuid: expect.stringMatching(UUID), name: 'Deployer', preset: 'developer_agent', permissions: ['idea:admin', 'task:admin'],
        owner: { uuid: user.uuid, name: 'Ops', email: 'ops@example.test' }, lastActiveAt: null,
      });
      expect(key).toMatch(/^agk_[A-Za-z0-9_-]{43}$/);
      expect(apiKey).toMatchObject({ keyPrefix: key.slice(0, 12), revokedAt: null, expiresAt: null });
      const [row] = await app.db.dataSource.query(`SELECT key_hash FROM agent_api_key WHERE uuid = $1`, [apiKey.uuid]);
      expect(row.key_hash).toBe(sha256(key));
      const ctx = await app.get(AuthService).resolveApiKey(key);
      expect(ctx!.actor).toMatchObject({ type: 'agent', uuid: agent.uuid, companyUuid: company.uuid });
      expect([...ctx!.actor.permissions].sort()).toEqual([...agent.effectivePermissions].sort());
    }, SLOW);

    it('agent create uses the service messages for presets, permissions and owners', async () => {
      const base = ['agent', 'create', '--company', company.uuid, '--owner', user.uuid, '--name', 'Bad'];
      expectFailure(await cli(...base, '--preset', 'x'), 'VALIDATION_ERROR', /^Invalid preset: x$/);
      expectFailure(await cli(...base, '--preset', 'pm_agent', '--permission', 'x:y'), 'VALIDATION_ERROR', /^Invalid permission: x:y$/);
      const other = (await cli('company', 'create', '--name', 'Other')).json.company;
      expectFailure(await cli('agent', 'create', '--company', other.uuid, '--owner', user.uuid, '--name', 'Bad', '--preset', 'pm_agent'), 'NOT_FOUND', /^User not found$/);
      expect(await count(`SELECT count(*)::int AS n FROM agent WHERE name = 'Bad'`)).toBe(0);
    }, SLOW);

    it('agent key create / revoke: a new key works, a revoked one does not', async () => {
      const { agent } = (await cli('agent', 'create', '--company', company.uuid, '--owner', user.uuid, '--name', 'Rotated', '--preset', 'pm_agent')).json;
      const expires = new Date(Date.now() + 3600_000).toISOString();
      const created = await cli('agent', 'key', 'create', '--agent', agent.uuid, '--name', 'ci', '--expires', expires);
      expect(created.code).toBe(0);
      expect(Object.keys(created.json).sort()).toEqual(['apiKey', 'key']);
      expect(created.json.apiKey).toMatchObject({ name: 'ci', expiresAt: expires, revokedAt: null });
      const auth = app.get(AuthService);
      expect(await auth.resolveApiKey(created.json.key)).not.toBeNull();

      const revoked = await cli('agent', 'key', 'revoke', '--key', created.json.apiKey.uuid);
      expect(revoked.code).toBe(0);
      // lastUsedAt was touched by the resolve above.
      expect(revoked.json).toEqual({ apiKey: { ...created.json.apiKey, lastUsedAt: expect.any(String), revokedAt: expect.any(String) } });
      expect(await auth.resolveApiKey(created.json.key)).toBeNull();

      expectFailure(await cli('agent', 'key', 'create', '--agent', agent.uuid, '--expires', '2001-01-01T00:00:00Z'), 'VALIDATION_ERROR', /future/);
      expectFailure(await cli('agent', 'key', 'create', '--agent', agent.uuid, '--expires', 'tomorrow'), 'VALIDATION_ERROR', /expires/);
      expectFailure(await cli('agent', 'key', 'create', '--agent', '00000000-0000-4000-8000-000000000000'), 'NOT_FOUND', /^Agent not found$/);
      expectFailure(await cli('agent', 'key', 'revoke', '--key', '00000000-0000-4000-8000-000000000000'), 'NOT_FOUND', /^API key not found$/);
      expect(await count(`SELECT count(*)::int AS n FROM agent_api_key WHERE agent_uuid = $1`, [agent.uuid])).toBe(2);
    }, SLOW);

    it('agent permissions prints without options, replaces custom bits, and clears them with none', async () => {
      const { agent } = (await cli('agent', 'create', '--company', company.uuid, '--owner', user.uuid, '--name', 'Tuned', '--preset', 'developer_agent', '--permission', 'task:admin')).json;
      const shown = await cli('agent', 'permissions', '--agent', agent.uuid);
      expect(shown.code).toBe(0);
      expect(shown.json).toEqual({ agent });

      const preset = await cli('agent', 'permissions', '--agent', agent.uuid, '--preset', 'pm_agent');
      expect(preset.json.agent).toMatchObject({ preset: 'pm_agent', permissions: ['task:admin'] });

      const replaced = await cli('agent', 'permissions', '--agent', agent.uuid, '--permission', 'project:admin', '--permission', 'idea:admin');
      expect(replaced.json.agent).toMatchObject({ preset: 'pm_agent', permissions: ['idea:admin', 'project:admin'] });

      const cleared = await cli('agent', 'permissions', '--agent', agent.uuid, '--permission', 'none');
      expect(cleared.json.agent.permissions).toEqual([]);
      expect(cleared.json.agent.effectivePermissions).not.toContain('idea:admin');

      expectFailure(await cli('agent', 'permissions', '--agent', agent.uuid, '--permission', 'x:y'), 'VALIDATION_ERROR', /^Invalid permission: x:y$/);
      expectFailure(await cli('agent', 'permissions', '--agent', agent.uuid, '--preset', 'boss'), 'VALIDATION_ERROR', /^Invalid preset: boss$/);
      const [row] = await app.db.dataSource.query(`SELECT preset, permissions FROM agent WHERE uuid = $1`, [agent.uuid]);
      expect(row).toEqual({ preset: 'pm_agent', permissions: [] });
    }, SLOW);

    it('agent grants lists an agent\'s OAuth grants; agent revoke-grant removes one with its tokens', async () => {
      const { agent } = (await cli('agent', 'create', '--company', company.uuid, '--owner', user.uuid, '--name', 'Connected', '--preset', 'developer_agent')).json;
      const ds = app.db.dataSource;
      // A grant as consent leaves it: the binding, the grant record and a token of it.
      await ds.query(
        `INSERT INTO oauth_grant (grant_id, company_uuid, agent_uuid, user_uuid, client_id, client_name, redirect_host) VALUES ('g-cli-1', $1, $2, $3, 'client-1', 'Some host', 'localhost:33418')`,
        [company.uuid, agent.uuid, user.uuid],
      );
      await ds.query(`INSERT INTO oauth_payload (kind, id, payload, grant_id) VALUES ('Grant', 'g-cli-1', '{}', 'g-cli-1'), ('AccessToken', 'hash-1', '{}', 'g-cli-1')`);
      const listed = await cli('agent', 'grants', agent.uuid);
      expect([listed.code, listed.json]).toEqual([
        0,
        { grants: [{ grantId: 'g-cli-1', agentUuid: agent.uuid, clientId: 'client-1', clientName: 'Some host', redirectHost: 'localhost:33418', createdAt: expect.any(String), lastUsedAt: null }] },
      ]);
      const revoked = await cli('agent', 'revoke-grant', 'g-cli-1');
      expect([revoked.code, revoked.json]).toEqual([0, { grantId: 'g-cli-1', revoked: true }]);
      expect(await count(`SELECT count(*)::int AS n FROM oauth_payload WHERE grant_id = 'g-cli-1'`)).toBe(0);
      expect((await cli('agent', 'grants', agent.uuid)).json).toEqual({ grants: [] });
      expectFailure(await cli('agent', 'revoke-grant', 'g-cli-1'), 'NOT_FOUND', /^Grant not found$/);
      expectFailure(await cli('agent', 'grants', '00000000-0000-4000-8000-000000000000'), 'NOT_FOUND', /^Agent not found$/);
    }, SLOW);
  });

  it('exits 2 with the usage on stderr for usage errors, touching nothing', async () => {
    const before = await count(`SELECT count(*)::int AS n FROM company`);
    const cases = [[], ['frobnicate'], ['agent'], ['company', 'create'], ['company', 'create', '--name', 'X', '--colour', 'red'], ['company', 'create', '--name']];
    const results = await Promise.all(cases.map((args) => cli(...args)));
    for (const [i, res] of results.entries()) {
      expect([cases[i], res.code]).toEqual([cases[i], 2]);
      expect(res.stdout).toBe('');
      expect(res.stderr).toContain('Usage: npm run cli -- <command>');
    }
    expect((await cli('frobnicate', 'now')).stderr).toMatch(/^Unknown command: frobnicate now/);
    expect((await cli('user', 'create', '--company', 'x')).stderr).toMatch(/^Missing options --email, --name, --password/);
    expect(await count(`SELECT count(*)::int AS n FROM company`)).toBe(before);
    const help = await cli('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('agent key revoke --key <keyUuid>');
  }, SLOW);

  it('exits 1 with SERVICE_UNAVAILABLE when the database cannot be reached', async () => {
    const res = await runCli(['company', 'create', '--name', 'Nowhere'], { DATABASE_URL: 'postgres://svc:x@127.0.0.1:1/svc' });
    expectFailure(res, 'SERVICE_UNAVAILABLE', /^Database unavailable/);
  }, SLOW);

  describe('demo seed', () => {
    let seed: any;

    beforeAll(async () => {
      const res = await cli('demo', 'seed');
      expect(res.stderr).toBe('');
      expect(res.code).toBe(0);
      seed = res.json;
    }, 60_000);

    it('prints the company, the generated credentials, one agent per preset with its key, and the project', () => {
      expect(Object.keys(seed).sort()).toEqual(['agents', 'company', 'project', 'user']);
      expect(seed.company).toEqual({ uuid: expect.stringMatching(UUID), name: 'Demo Company' });
      expect(seed.user).toEqual({ email: 'demo@example.com', password: expect.stringMatching(/^.{8,}$/) });
      expect(seed.agents.map((a: { preset: string }) => a.preset)).toEqual(['developer_agent', 'pm_agent', 'admin_agent']);
      for (const a of seed.agents) expect(a).toEqual({ preset: a.preset, uuid: expect.stringMatching(UUID), name: expect.any(String), key: expect.stringMatching(/^agk_/) });
      expect(seed.project).toEqual({ uuid: expect.stringMatching(UUID), name: 'Demo Project' });
    }, SLOW);

    it('the printed password logs in and every printed key authenticates with its preset', async () => {
      const http = new HttpClient(app.url);
      const login = await http.post('/api/auth/login', { email: seed.user.email, password: seed.user.password });
      expect(login.status).toBe(200);
      expect(login.body.data.company).toEqual(seed.company);
      const agents = (await http.get('/api/agents')).body.data.agents;
      expect(agents.map((a: { uuid: string }) => a.uuid).sort()).toEqual(seed.agents.map((a: { uuid: string }) => a.uuid).sort());
      const auth = app.get(AuthService);
      for (const a of seed.agents) {
        const ctx = await auth.resolveApiKey(a.key);
        expect(ctx!.actor).toMatchObject({ type: 'agent', uuid: a.uuid, companyUuid: seed.company.uuid, ownerUuid: login.body.data.user.uuid });
      }
      const admin = await auth.resolveApiKey(seed.agents[2].key);
      expect([...admin!.actor.permissions].sort()).toEqual([...ALL_PERMISSIONS].sort());
    }, SLOW);

    it('stores neither the password nor the keys in clear', async () => {
      const [user] = await app.db.dataSource.query(`SELECT password_hash FROM app_user WHERE email = 'demo@example.com'`);
      expect(user.password_hash).not.toContain(seed.user.password);
      const hashes = (await app.db.dataSource.query(`SELECT key_hash FROM agent_api_key WHERE company_uuid = $1`, [seed.company.uuid])).map((r: { key_hash: string }) => r.key_hash);
      expect(hashes.sort()).toEqual(seed.agents.map((a: { key: string }) => sha256(a.key)).sort());
    }, SLOW);

    it('creates ideas in several states and tasks with criteria, one depending on another', async () => {
      const q = (sql: string) => app.db.dataSource.query(sql, [seed.project.uuid]);
      const ideas = await q(`SELECT status, company_uuid FROM idea WHERE project_uuid = $1`);
      expect(new Set(ideas.map((i: { status: string }) => i.status))).toEqual(new Set(['open', 'elaborating', 'elaborated']));
      expect(ideas.every((i: { company_uuid: string }) => i.company_uuid === seed.company.uuid)).toBe(true);
      const tasks = await q(
        `SELECT t.uuid, t.status, t.assignee_uuid, (SELECT count(*)::int FROM acceptance_criterion c WHERE c.task_uuid = t.uuid) AS criteria
           FROM task t WHERE t.project_uuid = $1`,
      );
      expect(tasks.length).toBeGreaterThanOrEqual(3);
      expect(tasks.every((t: { criteria: number }) => t.criteria > 0)).toBe(true);
      expect(tasks.filter((t: { status: string; assignee_uuid: string | null }) => t.status === 'open').every((t: { assignee_uuid: string | null }) => t.assignee_uuid === null)).toBe(true);
      expect(new Set(tasks.map((t: { status: string }) => t.status)).size).toBeGreaterThan(1);
      const deps = await q(`SELECT d.* FROM task_dependency d JOIN task t ON t.uuid = d.task_uuid WHERE t.project_uuid = $1`);
      expect(deps.length).toBeGreaterThanOrEqual(1);
      // A done task has every required criterion passed, as the acceptance gate would demand.
      const gate = await q(
        `SELECT count(*)::int AS n FROM task t JOIN acceptance_criterion c ON c.task_uuid = t.uuid
          WHERE t.project_uuid = $1 AND t.status = 'done' AND c.required AND c.status <> 'passed'`,
      );
      expect(gate[0].n).toBe(0);
    }, SLOW);

    it('refuses a second seed with CONFLICT and leaves no second demo company', async () => {
      const before = await count(`SELECT count(*)::int AS n FROM company`);
      expectFailure(await cli('demo', 'seed'), 'CONFLICT', /demo@example\.com/);
      expect(await count(`SELECT count(*)::int AS n FROM company`)).toBe(before);
    }, SLOW);
  });

  it('migration run / revert work on their own and report what they did', async () => {
    const db = await createTestDatabase();
    try {
      const env = { DATABASE_URL: db.url };
      // The latest migration creates login_failure (abuse limits); revert undoes exactly that one.
      const latest = new MIGRATIONS[MIGRATIONS.length - 1]().name;
      const table = async (): Promise<boolean> => (await db.dataSource.query(`SELECT to_regclass('login_failure') IS NOT NULL AS t`))[0].t;
      const upToDate = await runCli(['migration', 'run'], env);
      expect([upToDate.code, upToDate.json]).toEqual([0, { applied: [] }]);
      const reverted = await runCli(['migration', 'revert'], env);
      expect([reverted.code, reverted.json]).toEqual([0, { reverted: latest }]);
      expect(await table()).toBe(false);
      const applied = await runCli(['migration', 'run'], env);
      expect([applied.code, applied.json]).toEqual([0, { applied: [latest] }]);
      expect(await table()).toBe(true);
    } finally {
      await db.drop();
    }
  }, SLOW);

  describe('without DATABASE_URL: the embedded server of DATA_DIR', () => {
    let dataDir: string;
    const silent = pino({ level: 'silent' });

    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'svc-cli-'));
    });
    afterAll(() => removeEmbeddedData(dataDir));

    it('attaches to the running service\'s server without disturbing it, and starts and stops its own otherwise', async () => {
      const config = loadConfig({ PORT: '0', DATA_DIR: dataDir });
      const service = await startService(config, silent);
      let stopped = false;
      try {
        const info = JSON.parse(await readFile(join(dataDir, 'embedded.json'), 'utf8'));
        const attached = await runCli(['company', 'create', '--name', 'While running'], { DATABASE_URL: undefined, DATA_DIR: dataDir });
        expect(attached.code).toBe(0);
        // The service's server is still the one registered and still serves.
        expect(JSON.parse(await readFile(join(dataDir, 'embedded.json'), 'utf8'))).toEqual(info);
        expect((await fetch(`${service.url}/health/ready`)).status).toBe(200);
        const found = await service.database.dataSource.query(`SELECT name FROM company WHERE uuid = $1`, [attached.json.company.uuid]);
        expect(found).toEqual([{ name: 'While running' }]);
        await service.stop();
        stopped = true;
        expect(await findRunningEmbedded(dataDir)).toBeNull();

        const own = await runCli(['company', 'create', '--name', 'While stopped'], { DATABASE_URL: undefined, DATA_DIR: dataDir });
        expect(own.code).toBe(0);
        // The CLI stopped the server it started.
        expect(await findRunningEmbedded(dataDir)).toBeNull();
        await expect(readFile(join(dataDir, 'embedded.json'))).rejects.toThrow();

        const db = await openDatabase(config, silent);
        try {
          const names = (await db.dataSource.query(`SELECT name FROM company ORDER BY name`)).map((r: { name: string }) => r.name);
          expect(names).toEqual(['While running', 'While stopped']);
        } finally {
          await db.close();
        }
      } finally {
        if (!stopped) await service.stop();
      }
    }, 120_000);
  });
});
