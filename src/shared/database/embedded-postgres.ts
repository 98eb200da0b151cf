import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { lstat, mkdir, readFile, readlink, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import pg from 'pg';
import { EMBEDDED_HOME, EmbeddedDatabaseError, PostgresCluster, embeddedHome, fsStep, serverOwnedDir, serverUser, userCanEnter, type ServerUser } from './postgres-cluster.js';

/**
 * The embedded default (no DATABASE_URL): a real PostgreSQL server for DATA_DIR. DATA_DIR keeps credentials.json
 * (0600), embedded.json while a server runs (where other processes of this DATA_DIR, the admin CLI, connect) and
 * pg/, the cluster. As root the server runs as `postgres`; when that user cannot reach DATA_DIR (a checkout in a
 * 0700 home directory), the cluster lives in EMBEDDED_HOME/data-<hash of DATA_DIR>/pg, private to that user, and
 * DATA_DIR/pg is a symlink to it — the user's directories keep their permissions.
 */
const DB_NAME = 'svc';
const DB_USER = 'svc';
const LOCK_WAIT_MS = 90_000;
const PORT_ATTEMPTS = 3;

interface Credentials {
  password: string;
}
interface RunningInfo {
  port: number;
  pid: number;
}

export interface EmbeddedDatabase {
  url: string;
  /** Stops the server if this process started it; a no-op when attached to another process's server. */
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readJson<T>(file: string): Promise<T | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch {
    return null;
  }
}

function urlFor(port: number, password: string): string {
  return `postgres://${DB_USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DB_NAME}`;
}

/** The running embedded server of this data directory, if a live process owns one. */
export async function findRunningEmbedded(dataDir: string): Promise<string | null> {
  const info = await readJson<RunningInfo>(join(dataDir, 'embedded.json'));
  const creds = await readJson<Credentials>(join(dataDir, 'credentials.json'));
  if (!info || !creds || !alive(info.pid) || !(await reachable(info.port))) return null;
  return urlFor(info.port, creds.password);
}

/**
 * Where the cluster of `dataDir` lives: DATA_DIR/pg itself, or the target of the DATA_DIR/pg symlink. A new one
 * goes into DATA_DIR when the server user can reach it, else into EMBEDDED_HOME (see the file comment).
 */
export async function placeCluster(dataDir: string, user: ServerUser, log: (msg: string) => void = () => undefined): Promise<string> {
  const link = join(dataDir, 'pg');
  const entry = await lstat(link).catch(() => null);
  if (entry?.isSymbolicLink()) {
    const target = resolve(dataDir, await readlink(link));
    // Its EMBEDDED_HOME directory was removed: recreate it (a fresh cluster follows).
    if (!existsSync(dirname(target))) await serverOwnedDir(dirname(target), user);
    return target;
  }
  if (entry) return link;
  if (userCanEnter(user, dataDir)) return link;
  const home = await embeddedHome(user);
  const id = createHash('sha256').update(await realpath(dataDir)).digest('hex').slice(0, 16);
  const parent = join(home, `data-${id}`);
  await serverOwnedDir(parent, user);
  const target = join(parent, 'pg');
  if (existsSync(target)) {
    // A cluster for this path whose DATA_DIR (and so its credentials) was removed: keep it aside, never delete data.
    const aside = `${target}.orphaned-${Date.now()}`;
    await rename(target, aside);
    log(`an earlier embedded cluster for ${dataDir} was moved to ${aside}`);
  }
  await fsStep(link, 'linking DATA_DIR/pg to the cluster', () => symlink(target, link));
  return target;
}

/** Removes DATA_DIR and, when its cluster lives in EMBEDDED_HOME, that too (tests and scratch directories). */
export async function removeEmbeddedData(dataDir: string): Promise<void> {
  const link = join(dataDir, 'pg');
  const entry = await lstat(link).catch(() => null);
  if (entry?.isSymbolicLink()) {
    const target = resolve(dataDir, await readlink(link));
    if (target.startsWith(EMBEDDED_HOME + '/')) await rm(dirname(target), { recursive: true, force: true });
  }
  await rm(dataDir, { recursive: true, force: true });
}

/** Only one process starts the server of a DATA_DIR at a time; the others wait and attach to it. */
async function acquireStartLock(dataDir: string): Promise<{ release: () => Promise<void> } | { url: string }> {
  const lock = join(dataDir, 'embedded.lock');
  const deadline = Date.now() + LOCK_WAIT_MS;
  let holder = 0;
  for (;;) {
    try {
      await writeFile(lock, String(process.pid), { flag: 'wx', mode: 0o600 });
      return { release: () => rm(lock, { force: true }) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    holder = Number.parseInt(await readFile(lock, 'utf8').catch(() => ''), 10);
    if (!Number.isInteger(holder) || holder === process.pid || !alive(holder)) {
      await rm(lock, { force: true });
      continue;
    }
    const url = await findRunningEmbedded(dataDir);
    if (url) return { url };
    if (Date.now() > deadline)
      throw new EmbeddedDatabaseError(
        `another process (pid ${holder}) has been starting the embedded server of ${dataDir} for ${LOCK_WAIT_MS / 1000} s`,
        `stop that process, or remove ${lock} if no such process runs`,
      );
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function ensureDatabase(port: number, password: string): Promise<void> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: DB_USER, password, database: 'postgres', connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const { rowCount } = await client.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [DB_NAME]);
    if (!rowCount) await client.query(`CREATE DATABASE ${client.escapeIdentifier(DB_NAME)}`);
  } finally {
    await client.end();
  }
}

export async function startEmbedded(dataDirArg: string, log: (msg: string) => void = () => undefined): Promise<EmbeddedDatabase> {
  const dataDir = resolve(dataDirArg);
  await fsStep(dataDir, 'creating DATA_DIR', () => mkdir(dataDir, { recursive: true, mode: 0o700 }));
  const running = await findRunningEmbedded(dataDir);
  if (running) return { url: running, stop: async () => undefined };
  const lock = await fsStep(dataDir, 'locking DATA_DIR', () => acquireStartLock(dataDir));
  if ('url' in lock) return { url: lock.url, stop: async () => undefined };
  try {
    return await startLocked(dataDir, log);
  } finally {
    await lock.release();
  }
}

async function startLocked(dataDir: string, log: (msg: string) => void): Promise<EmbeddedDatabase> {
  const user = serverUser();
  const dir = await placeCluster(dataDir, user, log);
  const credsFile = join(dataDir, 'credentials.json');
  const fresh = !existsSync(join(dir, 'PG_VERSION'));
  let creds = await readJson<Credentials>(credsFile);
  if (!fresh && !creds)
    throw new EmbeddedDatabaseError(`${credsFile} is missing, so the cluster in ${dir} cannot be opened`, `restore credentials.json, or move ${dir} away to start with an empty database`);
  if (fresh) {
    creds = { password: randomBytes(18).toString('base64url') };
    const password = creds.password;
    await fsStep(dataDir, 'writing credentials.json', () => writeFile(credsFile, JSON.stringify({ password }), { mode: 0o600 }));
  }
  const cluster = await PostgresCluster.open({ dir, user: DB_USER, password: creds!.password, log });
  if (fresh) {
    // A directory left by an initdb that failed half-way.
    await rm(dir, { recursive: true, force: true });
    await cluster.initialise();
  }
  const leftover = await cluster.leftoverPostmaster();
  if (leftover !== null) {
    // We hold the start lock and no live process advertises this server: its owner died without stopping it.
    log(`stopping a PostgreSQL server (pid ${leftover}) left running on ${dir} by a process that exited`);
    if (!(await PostgresCluster.stopPid(leftover)))
      throw new EmbeddedDatabaseError(`a PostgreSQL server (pid ${leftover}) left on ${dir} does not stop`, `stop it (kill ${leftover}) and start again`);
  }
  let port = 0;
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    try {
      await cluster.start(port);
      break;
    } catch (err) {
      // Another process may take the free port between our probe and the server's bind: try another one.
      if (attempt >= PORT_ATTEMPTS || !(err instanceof EmbeddedDatabaseError) || !/port is already in use/.test(err.message)) throw err;
    }
  }
  try {
    await ensureDatabase(port, creds!.password);
    const infoFile = join(dataDir, 'embedded.json');
    await fsStep(dataDir, 'writing embedded.json', () => writeFile(infoFile, JSON.stringify({ port, pid: process.pid } satisfies RunningInfo), { mode: 0o600 }));
    let stopped = false;
    return {
      url: urlFor(port, creds!.password),
      stop: async () => {
        if (stopped) return;
        stopped = true;
        await rm(infoFile, { force: true });
        await cluster.stop();
      },
    };
  } catch (err) {
    await cluster.stop();
    throw err;
  }
}
