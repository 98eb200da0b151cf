import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { SeededUser } from '../factories/identity.factory.js';
import { childEnv } from '../utils/built.js';
import { freePort } from '../../src/shared/database/embedded-postgres.js';
import { World } from '../utils/world.js';

/**
 * OAuth for the tool endpoint (docs/platform.md §2.5) driven by a real third-party host: mcp-remote, the stdio proxy that
 * desktop MCP hosts run for remote servers. It discovers the authorization server from the 401, registers itself,
 * opens "the browser" (here $BROWSER: a script that signs in and consents through the service's forms and then calls
 * mcp-remote's local callback), exchanges the code and proxies stdio JSON-RPC to the endpoint with the token.
 */
const PROXY = resolve('node_modules/mcp-remote/dist/proxy.js');
const AGENT_NAME = 'Remote dev';
const STEP_MS = 30_000;

/**
 * The fake browser: self-contained (it runs under xdg-open, outside jest). The first invocation exits 0 at once —
 * mcp-remote tries the next opener on a non-zero exit, and its callback server listens only after the browser was
 * launched — and leaves a detached worker that does the sign-in and consent and then fetches the callback with retries.
 */
const FAKE_BROWSER = String.raw`
import { appendFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
const CFG = __CONFIG__;
const log = (line) => appendFileSync(CFG.log, line + '\n');
const authorizationUrl = process.argv[2];
if (process.argv[3] !== 'worker') {
  log('open ' + authorizationUrl);
  const worker = spawn(process.execPath, [process.argv[1], authorizationUrl, 'worker'], { detached: true, stdio: 'ignore' });
  writeFileSync(CFG.pidFile, String(worker.pid));
  worker.unref();
  process.exit(0);
}
setTimeout(() => { log('worker timeout'); process.exit(2); }, 40000).unref();
try {
  const origin = new URL(authorizationUrl).origin;
  const jar = new Map();
  const go = async (url, init = {}) => {
    const headers = new Headers(init.headers);
    if (jar.size) headers.set('cookie', [...jar].map(([k, v]) => k + '=' + v).join('; '));
    const res = await fetch(new URL(url, origin), { ...init, headers, redirect: 'manual', signal: AbortSignal.timeout(10000) });
    for (const c of res.headers.getSetCookie()) { const [kv] = c.split(';'); const i = kv.indexOf('='); jar.set(kv.slice(0, i), kv.slice(i + 1)); }
    return res;
  };
  const post = (url, form) => go(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin }, body: new URLSearchParams(form).toString() });
  let location = (await go(authorizationUrl)).headers.get('location');
  for (let hop = 0; hop < 12 && location && new URL(location, origin).origin === origin; hop++) {
    const url = new URL(location, origin);
    const page = await go(url.href);
    if (!url.pathname.startsWith('/oauth/interaction/') || page.status === 302 || page.status === 303) { location = page.headers.get('location'); continue; }
    const html = await page.text();
    const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error('no form on ' + url.pathname + ': ' + html.slice(0, 300));
    log('form ' + action.split('/').pop());
    const answer = await post(action, action.endsWith('/login') ? CFG.login : CFG.consent);
    if (answer.status !== 302 && answer.status !== 303) throw new Error(action + ' answered ' + answer.status);
    location = answer.headers.get('location');
  }
  log('callback ' + location);
  let status = 0;
  for (let i = 0; i < 200 && !status; i++) {
    status = await fetch(location, { signal: AbortSignal.timeout(5000) }).then((r) => r.status, () => 0);
    if (!status) await new Promise((r) => setTimeout(r, 100));
  }
  log('callback status ' + status);
  process.exit(0);
} catch (err) {
  log('worker error ' + (err && err.stack || err));
  process.exit(1);
}
`;

interface JsonRpcAnswer {
  jsonrpc: '2.0';
  id: number;
  result?: any;
  error?: { code: number; message: string };
}

describe('OAuth for the tool endpoint through mcp-remote (e2e)', () => {
  let app: World;
  let base: string;
  let alice: SeededUser;
  let box: string;
  let proxy: ChildProcessWithoutNullStreams | undefined;
  let stderr = '';
  const answers = new Map<number, (msg: JsonRpcAnswer) => void>();

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await World.start({ env: { PORT: String(port), PUBLIC_URL: base } });
    const c = await app.ids.company('Remote Co');
    alice = await app.user(c.uuid, { name: 'Alice' });
    box = await mkdtemp(join(tmpdir(), 'svc-mcp-remote-'));
  });

  afterAll(async () => {
    if (proxy && proxy.exitCode === null && proxy.signalCode === null) {
      const gone = new Promise((r) => proxy!.once('exit', r));
      proxy.kill('SIGKILL');
      await gone;
    }
    const workerPid = Number(await readFile(join(box ?? '/nonexistent', 'worker.pid'), 'utf8').catch(() => '0'));
    if (workerPid > 0) {
      try {
        process.kill(workerPid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    if (box) await rm(box, { recursive: true, force: true });
    await app?.close();
  });

  /** Sends one request over the proxy's stdin; resolves with its answer (bounded). */
  function request(id: number, method: string, params?: unknown): Promise<JsonRpcAnswer> {
    return new Promise((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`no answer to ${method} in ${STEP_MS} ms; mcp-remote stderr:\n${stderr}`)), STEP_MS);
      answers.set(id, (msg) => {
        clearTimeout(timer);
        done(msg);
      });
      proxy!.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }) + '\n');
    });
  }

  it('signs in and consents through the forms, then proxies the tools of the chosen agent', async () => {
    const callbackPort = await freePort();
    const configDir = join(box, 'mcp-auth');
    const browserLog = join(box, 'browser.log');
    const config = {
      log: browserLog,
      pidFile: join(box, 'worker.pid'),
      login: { email: alice.email, password: alice.password },
      consent: { agent: 'new', name: AGENT_NAME, preset: 'developer_agent' },
    };
    const browser = join(box, 'fake-browser.mjs');
    await writeFile(browser, `#!${process.execPath}\n${FAKE_BROWSER.replace('__CONFIG__', JSON.stringify(config))}`);
    await chmod(browser, 0o755);
    await writeFile(browserLog, '');
    await mkdir(configDir);

    // No desktop session: `open` falls back to xdg-open's generic mode, which runs $BROWSER.
    proxy = spawn(process.execPath, [PROXY, `${base}/api/mcp`, String(callbackPort), '--transport', 'http-only', '--auth-timeout', '30'], {
      env: childEnv({ MCP_REMOTE_CONFIG_DIR: configDir, BROWSER: browser, DISPLAY: undefined, WAYLAND_DISPLAY: undefined, XDG_CURRENT_DESKTOP: undefined }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    proxy.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    let buffered = '';
    proxy.stdout.on('data', (d: Buffer) => {
      buffered += d.toString();
      for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
        const line = buffered.slice(0, i).trim();
        buffered = buffered.slice(i + 1);
        if (!line) continue;
        const msg = JSON.parse(line) as JsonRpcAnswer;
        answers.get(msg.id)?.(msg);
      }
    });

    const init = await request(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'remote-host', version: '1.0.0' } }).catch(async (err: Error) => {
      throw new Error(`${err.message}\nbrowser log:\n${await readFile(browserLog, 'utf8')}`);
    });
    expect(init.error).toBeUndefined();
    expect(init.result.serverInfo).toMatchObject({ name: expect.any(String) });
    proxy.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');

    // The browser went through the sign-in form, then consent, then the callback.
    // (The worker logs the callback's status once its answer arrived: bounded wait, it may trail mcp-remote's own steps.)
    let steps: string[] = [];
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
      steps = (await readFile(browserLog, 'utf8')).split('\n').filter(Boolean);
      if (steps.some((l) => l.startsWith('callback status'))) break;
    }
    expect(steps[0]).toMatch(new RegExp(`^open ${base}/oauth/auth\\?`));
    expect(steps.slice(1, 3)).toEqual(['form login', 'form consent']);
    expect(steps.at(-1)).toBe('callback status 200');
    expect(steps.at(-2)).toMatch(new RegExp(`^callback http://localhost:${callbackPort}/oauth/callback\\?code=`));

    const agent = ((await app.ds.query(`SELECT uuid, preset FROM agent WHERE name = $1`, [AGENT_NAME])) as Array<{ uuid: string; preset: string }>)[0];
    expect(agent).toMatchObject({ preset: 'developer_agent' });
    // The grant is mcp-remote's own registration, bound to the agent.
    const [grant] = (await app.ds.query(`SELECT client_name, redirect_host FROM oauth_grant WHERE agent_uuid = $1`, [agent.uuid])) as Array<{ client_name: string; redirect_host: string }>;
    expect(grant).toEqual({ client_name: 'MCP CLI Proxy', redirect_host: `localhost:${callbackPort}` });

    const list = await request(2, 'tools/list');
    expect(list.error).toBeUndefined();
    const names = (list.result.tools as Array<{ name: string }>).map((t) => t.name);
    expect(names).toHaveLength(44);
    expect(names).toContain('svc_checkin');

    const call = await request(3, 'tools/call', { name: 'svc_checkin', arguments: {} });
    expect(call.error).toBeUndefined();
    expect(call.result.isError ?? false).toBe(false);
    const data = JSON.parse(call.result.content[0].text as string) as { agent: { uuid: string; name: string } };
    expect(data.agent).toMatchObject({ uuid: agent.uuid, name: AGENT_NAME });
  }, 120_000);
});
