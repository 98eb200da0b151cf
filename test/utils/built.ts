import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { freePort } from '../../src/shared/database/embedded-postgres.js';

/** Helpers for tests that run the built service or CLI as a child process. */
export const ROOT = resolve('.');
export const CLI = resolve('dist/src/cli/main.js');
export const MAIN = resolve('dist/src/main.js');

/** Builds dist/ when sources are newer (scripts/ensure-build.mjs); a no-op when it is current. */
export function ensureBuilt(): void {
  const res = spawnSync(process.execPath, ['scripts/ensure-build.mjs'], { cwd: ROOT, encoding: 'utf8', timeout: 170_000 });
  if (res.status !== 0) throw new Error(`build failed (${res.status}): ${res.stderr}`);
}

/**
 * The environment of a child process: the jest VM flags dropped, the given variables set, and a variable set to
 * undefined removed (e.g. DATABASE_URL, which CI exports for the whole run).
 */
export function childEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...process.env };
  delete out.NODE_OPTIONS;
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed on success, stderr parsed on failure (exit 1); null when not JSON. */
  json: any;
}

export function runCli(args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  return new Promise((done) => {
    execFile(process.execPath, [CLI, ...args], { cwd: ROOT, env: childEnv(env), timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      let json: any = null;
      try {
        json = JSON.parse(code === 0 ? stdout : stderr);
      } catch {
        // usage errors are plain text
      }
      done({ code, stdout, stderr, json });
    });
  });
}

export interface ServiceProcess {
  proc: ChildProcess;
  port: number;
  url: string;
  /** Everything the process wrote so far (stdout and stderr: JSON log lines). */
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL if still running (for afterAll). */
  kill: () => void;
}

/**
 * The built service (dist/src/main.js) in a child process on a free port (or `port`), resolved once it logs
 * "service listening" — or, with `until: 'ready'`, once `/health/ready` answers 200 (database and bus up; works at any
 * LOG_LEVEL). Rejects with its output when it exits or does not start in 60 s.
 */
export async function startServiceProcess(env: Record<string, string | undefined>, opts: { port?: number; until?: 'listening' | 'ready' } = {}): Promise<ServiceProcess> {
  const port = opts.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const proc = spawn(process.execPath, [MAIN], {
    cwd: ROOT,
    env: childEnv({ LOG_LEVEL: 'info', ...env, PORT: String(port), HOST: '127.0.0.1' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
  const kill = () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  };
  const started = async (): Promise<boolean> => {
    if (opts.until !== 'ready') return out.includes('"service listening"');
    try {
      return (await fetch(`${url}/health/ready`)).ok;
    } catch {
      return false; // not listening yet
    }
  };
  const deadline = Date.now() + 60_000;
  while (!(await started())) {
    if (proc.exitCode !== null || Date.now() > deadline) {
      kill();
      throw new Error(`service did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, opts.until === 'ready' ? 100 : 50));
  }
  return { proc, port, url, output: () => out, exited, kill };
}
