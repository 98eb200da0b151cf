import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { freePort } from '../../src/shared/database/embedded-postgres.js';
import { findSecrets, linesWithSecrets } from '../../src/shared/logging/secret-scan.js';
import { childEnv, ensureBuilt, MAIN, ROOT, runCli } from '../utils/built.js';
import { HttpClient } from '../utils/http.js';
import { rpc } from '../utils/mcp-client.js';
import { openRaw } from '../utils/sse.js';
import type { TestDatabase } from '../utils/test-database.js';
import { World } from '../utils/world.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const random = (n = 24) => randomBytes(n).toString('base64url');

/**
 * The built service and CLI at LOG_LEVEL=trace, driven through every path that handles a password, a session token
 * or a raw key — successes and failures — then every byte they logged is searched for those secrets.
 */
describe('secrets never reach the logs (e2e, built service at LOG_LEVEL=trace)', () => {
  let world: World;
  let db: TestDatabase;
  let proc: ChildProcess | undefined;
  let serviceLog = '';
  let cliLog = '';
  const secrets: string[] = [];
  const secret = <T extends string>(s: T): T => {
    secrets.push(s);
    return s;
  };

  beforeAll(() => ensureBuilt(), 180_000);
  beforeAll(async () => {
    world = await World.database();
    db = world.db;
  });
  afterAll(async () => {
    if (proc && proc.exitCode === null) proc.kill('SIGKILL');
    await world.close();
  });

  async function cli(args: string[]) {
    const res = await runCli(args, { DATABASE_URL: db.url, LOG_LEVEL: 'trace' });
    // stdout is the command's one result (it prints a new key or password once, by design); stderr is its log.
    cliLog += res.stderr;
    return res;
  }

  async function startService(): Promise<string> {
    const port = await freePort();
    proc = spawn(process.execPath, [MAIN], {
      cwd: ROOT,
      env: childEnv({ DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'trace', SSE_HEARTBEAT_MS: '50' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    proc.stdout!.on('data', (d: Buffer) => (serviceLog += d.toString()));
    proc.stderr!.on('data', (d: Buffer) => (serviceLog += d.toString()));
    const deadline = Date.now() + 60_000;
    while (!serviceLog.includes('"service listening"')) {
      if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`service did not start:\n${serviceLog}`);
      await sleep(50);
    }
    return `http://127.0.0.1:${port}`;
  }

  it('logs none of them', async () => {
    // --- operator: company, user with a password, agent and key through the CLI ---
    const password = secret(`pw-${random()}`);
    const company = (await cli(['company', 'create', '--name', 'Secrets Inc'])).json.company;
    const user = await cli(['user', 'create', '--company', company.uuid, '--email', 'secrets@example.test', '--name', 'Sam', '--password', password]);
    expect(user.code).toBe(0);
    const shortPassword = secret(`s${random(2)}`);
    expect((await cli(['user', 'create', '--company', company.uuid, '--email', 'short@example.test', '--name', 'S', '--password', shortPassword])).code).toBe(1);
    const cliAgent = (await cli(['agent', 'create', '--company', company.uuid, '--owner', user.json.user.uuid, '--name', 'Cli bot', '--preset', 'pm_agent'])).json.agent;
    const cliKey = secret((await cli(['agent', 'key', 'create', '--agent', cliAgent.uuid])).json.key as string);
    expect(cliKey).toMatch(/^agk_/);

    const url = await startService();

    // --- a browser: failed logins, validation errors carrying secrets, login, cookie use, agents and keys ---
    const http = new HttpClient(url);
    const wrong = secret(`wrong-${random()}`);
    expect((await http.post('/api/auth/login', { email: 'secrets@example.test', password: wrong })).status).toBe(401);
    expect((await http.post('/api/auth/login', { email: `nobody-${random(6)}@example.test`, password: password })).status).toBe(401);
    expect((await http.post('/api/auth/login', { email: 'secrets@example.test', password: 12345678, extra: password })).status).toBe(400);
    expect((await http.request('POST', '/api/auth/login', { body: `{"email":"secrets@example.test","password":"${password}"`, headers: { 'content-type': 'application/json' } })).status).toBe(400);
    expect((await http.request('POST', '/api/auth/login', { body: `password=${password}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status).toBe(400);
    const login = await http.login('secrets@example.test', password);
    const token = secret(/svc_session=([^;]+)/.exec(login.headers.get('set-cookie')!)![1]);
    expect((await http.get('/api/auth/me')).status).toBe(200);
    const agent = await http.post('/api/agents', { name: 'Rest bot', preset: 'developer_agent' });
    expect(agent.status).toBe(201);
    const created = await http.post(`/api/agents/${agent.body.data.uuid}/keys`, { name: 'rest' });
    expect(created.status).toBe(201);
    const restKey = secret(created.body.data.key as string);
    expect((await http.get(`/api/agents/${agent.body.data.uuid}/keys`)).text).not.toContain(restKey);
    const bodySecret = secret(`body-${random()}`);
    expect((await http.post('/api/agents', { name: 'x', preset: bodySecret, apiKey: restKey, password: bodySecret })).status).toBe(400);
    expect((await http.post(`/api/agents/${agent.body.data.uuid}/keys`, { name: bodySecret, expiresAt: bodySecret })).status).toBe(400);
    expect((await http.get(`/api/nope?token=${token}&key=${restKey}`)).status).toBe(404);
    const sse = await openRaw(`${url}/api/events`, { cookie: `svc_session=${token}` });
    await sse.waitForText(': heartbeat');
    sse.close();
    expect((await http.get('/api/auth/me', { cookie: `svc_session=${secret(random(32))}` })).status).toBe(401);

    // --- agents: MCP and notification routes with raw keys, good and bad ---
    for (const key of [restKey, cliKey]) {
      const bearer = { authorization: `Bearer ${key}` };
      expect((await rpc(url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, bearer)).status).toBe(200);
      const checkin = await rpc(url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'svc_checkin', arguments: {} } }, bearer);
      expect(checkin.json.result.isError).not.toBe(true);
      const invalid = await rpc(url, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'svc_get_idea', arguments: { ideaUuid: bodySecret, key } } }, bearer);
      expect(invalid.json.result.isError).toBe(true);
      expect((await rpc(url, `{"jsonrpc":"2.0","id":4,"method":"${key}"`, bearer)).status).toBe(400);
      expect((await fetch(`${url}/api/notifications`, { headers: bearer })).status).toBe(200);
    }
    const unknownKey = secret(`agk_${random(32)}`);
    expect((await rpc(url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: `Bearer ${unknownKey}` })).status).toBe(401);
    expect((await fetch(`${url}/api/notifications`, { headers: { authorization: `Bearer ${unknownKey}` } })).status).toBe(401);
    expect((await rpc(url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: `Basic ${Buffer.from(`x:${restKey}`).toString('base64')}` })).status).toBe(401);

    // --- the CLI's tool client, with a good and an unknown key; revocation; demo seed ---
    expect((await cli(['mcp', 'call', 'svc_checkin', '--url', url, '--key', cliKey, '--args', '{}'])).code).toBe(0);
    expect((await cli(['mcp', 'tools', '--url', url, '--key', unknownKey])).code).toBe(1);
    const demo = await cli(['demo', 'seed']);
    expect(demo.code).toBe(0);
    secret(demo.json.user.password as string);
    for (const a of demo.json.agents as Array<{ key: string }>) secret(a.key);
    expect((await new HttpClient(url).login(demo.json.user.email, demo.json.user.password)).status).toBe(200);
    expect((await rpc(url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: `Bearer ${demo.json.agents[0].key}` })).status).toBe(200);
    expect((await http.delete(`/api/agents/${agent.body.data.uuid}/keys/${created.body.data.apiKey.uuid}`)).status).toBe(200);
    expect((await rpc(url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: `Bearer ${restKey}` })).status).toBe(401);
    expect((await http.post('/api/auth/logout')).status).toBe(200);
    expect((await http.get('/api/auth/me', { cookie: `svc_session=${token}` })).status).toBe(401);

    // --- stop, then scan everything that was logged ---
    const exited = new Promise((resolve) => proc!.once('exit', resolve));
    proc!.kill('SIGTERM');
    await exited;
    expect(serviceLog).toContain('"msg":"stopped"');
    // The logs are there and verbose: one access line per request at least, and start-up/shutdown lines.
    expect(serviceLog.split('\n').filter((l) => l.includes('"msg":"request"')).length).toBeGreaterThan(30);
    expect(cliLog).toContain('"error"');
    expect(secrets.length).toBeGreaterThanOrEqual(13);
    const all = `${serviceLog}\n${cliLog}`;
    expect(linesWithSecrets(all, secrets)).toEqual([]);
    expect(findSecrets(all, secrets)).toEqual([]);
  }, 170_000);
});
