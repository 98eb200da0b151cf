import { execFile, spawn, spawnSync } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readlink, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, removeEmbeddedData } from '../../src/shared/database/embedded-postgres.js';
import { EMBEDDED_HOME, isRoot } from '../../src/shared/database/postgres-cluster.js';
import { ROOT, childEnv, ensureBuilt } from '../utils/built.js';

/**
 * Issue: `npm start` from a checkout in a 0700 directory (root's home, a mktemp directory). The built service is
 * copied into a fresh 0700 directory and started there as the current user (root in CI) with no DATABASE_URL: the
 * embedded server must reach its binaries and data without the directory's permissions being loosened.
 */
const SLOW = 240_000;

interface Run {
  url: string;
  output: () => string;
  exited: Promise<number | null>;
  stop: () => Promise<number | null>;
}

function run(app: string, env: Record<string, string | undefined>, port: number): Run {
  const proc = spawn(process.execPath, [join(app, 'dist/src/main.js')], {
    cwd: app,
    env: childEnv({ LOG_LEVEL: 'info', DATABASE_URL: undefined, DATA_DIR: undefined, NATS_URL: undefined, ...env, PORT: String(port), HOST: '127.0.0.1' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => out,
    exited,
    stop: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      return exited;
    },
  };
}

async function ready(r: Run): Promise<void> {
  const deadline = Date.now() + 120_000;
  let exited = false;
  void r.exited.then(() => (exited = true));
  while (Date.now() < deadline && !exited) {
    const status = await fetch(`${r.url}/health/ready`).then((res) => res.status, () => 0);
    if (status === 200) return;
    await new Promise((res) => setTimeout(res, 200));
  }
  throw new Error(`not ready:\n${r.output()}`);
}

function cli(app: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [join(app, 'dist/src/cli/main.js'), ...args], { cwd: app, env: childEnv({ DATABASE_URL: undefined, DATA_DIR: undefined }), timeout: 60_000 }, (err, stdout, stderr) =>
      done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

async function login(url: string, email: string, password: string): Promise<string> {
  const res = await fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  expect(res.status).toBe(200);
  return res.headers.get('set-cookie')!.split(';')[0]!;
}

/** The lines of a process's output that are fatal log lines. */
function fatalLines(output: string): Array<{ msg: string; fix?: string }> {
  return output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: string | number; msg: string; fix?: string })
    .filter((l) => l.level === 'fatal' || l.level === 60);
}

describe('the embedded default from a checkout in a private (0700) directory (e2e)', () => {
  let box: string;
  let app: string;

  beforeAll(async () => {
    ensureBuilt();
    box = await mkdtemp(join(tmpdir(), 'svc-home-'));
    expect((await stat(box)).mode & 0o777).toBe(0o700);
    app = join(box, 'app');
    await mkdir(app);
    // The built service as a user's checkout would hold it (node_modules hard-linked: same files, fast).
    for (const [what, flags] of [
      ['node_modules', '-al'],
      ['dist', '-a'],
      ['package.json', '-a'],
    ] as const) {
      const res = spawnSync('cp', [flags, join(ROOT, what), join(app, what)]);
      if (res.status !== 0) expect(spawnSync('cp', ['-a', join(ROOT, what), join(app, what)]).status).toBe(0);
    }
  }, SLOW);

  afterAll(async () => {
    if (!app) return;
    await removeEmbeddedData(join(app, '.data'));
    await rm(box, { recursive: true, force: true });
  });

  it('starts, serves, stops and starts again on the same data; the directory stays private', async () => {
    const first = run(app, {}, await freePort());
    let cookie: string;
    let projectUuid: string;
    let email: string;
    let password: string;
    try {
      await ready(first);
      const seed = await cli(app, ['demo', 'seed']);
      expect(seed.code).toBe(0);
      ({ email, password } = JSON.parse(seed.stdout).user);
      cookie = await login(first.url, email, password);
      const created = await fetch(`${first.url}/api/projects`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie, origin: first.url },
        body: JSON.stringify({ name: 'Kept across restarts' }),
      });
      expect(created.status).toBe(201);
      projectUuid = ((await created.json()) as { data: { uuid: string } }).data.uuid;
      const read = await fetch(`${first.url}/api/projects/${projectUuid}`, { headers: { cookie } });
      expect(((await read.json()) as { data: { name: string } }).data.name).toBe('Kept across restarts');
    } finally {
      expect(await first.stop()).toBe(0);
    }
    expect(fatalLines(first.output())).toEqual([]);

    // Nothing was loosened: the private directory is still 0700, and so is the cluster, which only its user reads.
    expect((await stat(box)).mode & 0o777).toBe(0o700);
    const pg = join(app, '.data', 'pg');
    let cluster = pg;
    if (isRoot()) {
      // As root the server user cannot enter the box: the cluster lives outside it, DATA_DIR/pg links to it.
      expect((await lstat(pg)).isSymbolicLink()).toBe(true);
      cluster = await readlink(pg);
      expect(cluster.startsWith(EMBEDDED_HOME + '/')).toBe(true);
      expect((await stat(EMBEDDED_HOME)).mode & 0o007).toBe(0);
      const owner = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim();
      expect(String((await stat(cluster)).uid)).toBe(owner);
    }
    expect((await stat(cluster)).mode & 0o077).toBe(0);
    expect((await stat(join(app, '.data', 'credentials.json'))).mode & 0o077).toBe(0);

    const second = run(app, {}, await freePort());
    try {
      await ready(second);
      cookie = await login(second.url, email, password);
      const read = await fetch(`${second.url}/api/projects/${projectUuid}`, { headers: { cookie } });
      expect(read.status).toBe(200);
      expect(((await read.json()) as { data: { name: string } }).data.name).toBe('Kept across restarts');
    } finally {
      expect(await second.stop()).toBe(0);
    }
  }, SLOW);

  it.each([
    [
      'a DATA_DIR that is a file',
      async (dir: string) => {
        await writeFile(dir, 'not a directory');
      },
      /is not a directory/,
    ],
    [
      'a DATA_DIR holding a cluster of another PostgreSQL version',
      async (dir: string) => {
        await mkdir(join(dir, 'pg'), { recursive: true, mode: 0o700 });
        await writeFile(join(dir, 'pg', 'PG_VERSION'), '9.6\n');
        await writeFile(join(dir, 'credentials.json'), JSON.stringify({ password: 'x' }), { mode: 0o600 });
        if (isRoot()) spawnSync('chown', ['-R', 'postgres:', join(dir, 'pg')]);
      },
      /holds a PostgreSQL 9 cluster and this build embeds PostgreSQL \d+/,
    ],
  ])('%s: one fatal line with the cause and the fix, and a non-zero exit', async (_name, prepare, cause) => {
    const dataDir = join(box, `bad-${Math.random().toString(36).slice(2)}`);
    await prepare(dataDir);
    const r = run(app, { DATA_DIR: dataDir }, await freePort());
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([r.exited, new Promise<'hang'>((res) => (timer = setTimeout(() => res('hang'), 60_000)))]);
    clearTimeout(timer);
    await r.stop();
    expect(code).not.toBe('hang');
    expect(code).not.toBe(0);
    const fatal = fatalLines(r.output());
    expect(fatal).toHaveLength(1);
    expect(fatal[0]!.msg).toMatch(cause);
    expect(fatal[0]!.msg).toMatch(/Fix: /);
    expect(fatal[0]!.fix).toBeTruthy();
    // Never an unhandled 'error' event or a stack trace.
    expect(r.output()).not.toMatch(/Unhandled 'error' event|\n\s+at /);
    await rm(dataDir, { recursive: true, force: true });
  }, SLOW);
});
