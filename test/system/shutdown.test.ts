import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { openDatabase } from '../../src/database.js';
import { loadConfig } from '../../src/config/config.js';
import { findRunningEmbedded, freePort, removeEmbeddedData } from '../../src/shared/database/embedded-postgres.js';
import { childEnv, ensureBuilt, MAIN, ROOT } from '../utils/built.js';
import type { TestDatabase } from '../utils/test-database.js';
import { World } from '../utils/world.js';
import { portAccepts } from '../utils/ports.js';

const GRACE_MS = 10_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Child {
  proc: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startBuiltService(env: Record<string, string | undefined>): Promise<Child> {
  const port = await freePort();
  const proc = spawn(process.execPath, [MAIN], { cwd: ROOT, env: childEnv({ ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' }), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
  const deadline = Date.now() + 60_000;
  while (!out.includes('"service listening"')) {
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`service did not start:\n${out}`);
    }
    await sleep(50);
  }
  return { proc, port, output: () => out, exited };
}

/**
 * A login whose body arrives in two parts: the request is in flight (headers parsed, body pending) for as long as
 * the test wants, over a raw socket so nothing is retried or pooled.
 */
async function openSlowLogin(port: number, email: string, password: string) {
  const body = JSON.stringify({ email, password });
  const socket: Socket = connect({ host: '127.0.0.1', port });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let response = '';
  socket.on('data', (d: Buffer) => (response += d.toString()));
  const ended = new Promise<string>((resolve) => socket.once('close', () => resolve(response)));
  socket.write(
    `POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body.slice(0, 5)}`,
  );
  return {
    finish: () => {
      socket.write(body.slice(5));
      return ended;
    },
  };
}

async function expectGracefulStop(child: Child, login: { email: string; password: string }): Promise<void> {
  const inFlight = await openSlowLogin(child.port, login.email, login.password);
  await sleep(200);
  const started = Date.now();
  child.proc.kill('SIGTERM');
  // New connections are refused once shutdown begins, while the in-flight request is still open.
  let closed = false;
  for (let i = 0; i < 40 && !closed; i++) {
    closed = !(await portAccepts(child.port));
    if (!closed) await sleep(50);
  }
  expect(closed).toBe(true);
  expect(child.proc.exitCode).toBeNull();
  // The in-flight request completes with a real answer, database work included.
  const response = await inFlight.finish();
  expect(response).toMatch(/^HTTP\/1\.1 200 /);
  expect(response).toMatch(/set-cookie: svc_session=/i);
  let timer: NodeJS.Timeout | undefined;
  const result = await Promise.race([child.exited, new Promise<null>((r) => (timer = setTimeout(() => r(null), GRACE_MS + 2000)))]);
  clearTimeout(timer);
  if (!result) child.proc.kill('SIGKILL');
  expect({ result, output: result?.code === 0 ? '' : child.output() }).toEqual({ result: { code: 0, signal: null }, output: '' });
  expect(Date.now() - started).toBeLessThan(GRACE_MS);
  expect(child.output()).toContain('"msg":"stopped"');
}

describe('graceful shutdown (e2e, built service as a child process)', () => {
  const silent = pino({ level: 'silent' });

  beforeAll(() => ensureBuilt(), 180_000);

  describe('with DATABASE_URL', () => {
    let world: World;
    let db: TestDatabase;
    const login = { email: 'shutdown@example.test', password: 'shutdown password' };

    beforeAll(async () => {
      world = await World.database();
      db = world.db;
      const f = world.ids;
      await f.user((await f.company()).uuid, login);
    });
    afterAll(() => world.close());

    it('SIGTERM stops accepting, answers the in-flight request and exits 0 within the grace period', async () => {
      const child = await startBuiltService({ DATABASE_URL: db.url });
      try {
        await expectGracefulStop(child, login);
      } finally {
        if (child.proc.exitCode === null) child.proc.kill('SIGKILL');
      }
    }, 60_000);
  });

  describe('with the embedded server', () => {
    let dataDir: string;
    const login = { email: 'embedded@example.test', password: 'embedded password' };

    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'svc-shutdown-'));
      const database = await openDatabase(loadConfig({ DATA_DIR: dataDir }), silent);
      try {
        const seed = await World.over(database.dataSource);
        await seed.user((await seed.company()).uuid, login);
        await seed.close();
      } finally {
        await database.close();
      }
    }, 60_000);
    afterAll(() => removeEmbeddedData(dataDir));

    it('SIGTERM drains the in-flight request before stopping the embedded server, then exits 0', async () => {
      const child = await startBuiltService({ DATABASE_URL: undefined, DATA_DIR: dataDir });
      try {
        expect(await findRunningEmbedded(dataDir)).not.toBeNull();
        await expectGracefulStop(child, login);
        expect(await findRunningEmbedded(dataDir)).toBeNull();
        expect(existsSync(join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
        expect(existsSync(join(dataDir, 'embedded.json'))).toBe(false);
      } finally {
        if (child.proc.exitCode === null) child.proc.kill('SIGKILL');
      }
    }, 60_000);
  });
});
