/**
 * Starts bench/service-server.ts (the built service; in-process bus unless `env` sets NATS_URL) in a child process
 * and drives it over IPC. Every line it writes to stdout or stderr (its JSON logs) goes to `onLine`, with the stream's name.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ServerMemory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  cpuUs: number;
  loopDelayP99Ms: number;
}

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  /** Memory of the server process (after a full GC when started with `gc: true`). */
  memory(): Promise<ServerMemory>;
  /** Statements sent to PostgreSQL since the process started; needs `BENCH_COUNT_QUERIES: '1'` in `env` (else 0). */
  queries(): Promise<number>;
  /** Resolves when the process has exited; rejects nothing. */
  stop(): Promise<void>;
  /** Set when the process exited without being asked to. */
  readonly crashed: { code: number | null; signal: string | null } | null;
}

const serverFile = join(fileURLToPath(new URL('..', import.meta.url)), 'service-server.js');

/** `serverFile`: another build's bench/service-server.js (a comparison with the code before a change). */
export function startServiceProcess(opts: { env: Record<string, string>; gc?: boolean; execArgv?: string[]; serverFile?: string; onLine?: (line: string, stream: 'stdout' | 'stderr') => void }): Promise<ServiceProcess> {
  const child = fork(opts.serverFile ?? serverFile, [], {
    env: { ...process.env, ...opts.env },
    execArgv: [...(opts.gc ? ['--expose-gc'] : []), ...(opts.execArgv ?? [])],
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  for (const [name, stream] of [['stdout', child.stdout!], ['stderr', child.stderr!]] as const) {
    let buffered = '';
    stream.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) opts.onLine?.(line, name);
    });
    stream.on('end', () => {
      if (buffered) opts.onLine?.(buffered, name);
    });
  }
  let crashed: ServiceProcess['crashed'] = null;
  let stopping = false;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      if (!stopping) crashed = { code, signal };
      resolve();
    }),
  );
  const memWaiters: Array<(m: ServerMemory) => void> = [];
  const queryWaiters: Array<(n: number) => void> = [];
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    void exited.then(() => reject(new Error(`service exited before listening (${JSON.stringify(crashed)})`)));
    child.on('message', (msg: { url?: string; mem?: ServerMemory; queries?: number }) => {
      if (msg.mem) memWaiters.shift()?.(msg.mem);
      else if (typeof msg.queries === 'number') queryWaiters.shift()?.(msg.queries);
      else if (msg.url) {
        const url = msg.url;
        resolve({
          url,
          child,
          get crashed() {
            return crashed;
          },
          memory: () =>
            new Promise<ServerMemory>((done, fail) => {
              if (crashed || !child.connected) return fail(new Error('service process is gone'));
              memWaiters.push(done);
              child.send({ mem: true });
            }),
          queries: () =>
            new Promise<number>((done, fail) => {
              if (crashed || !child.connected) return fail(new Error('service process is gone'));
              queryWaiters.push(done);
              child.send({ queries: true });
            }),
          stop: async () => {
            if (crashed || child.exitCode !== null) return;
            stopping = true;
            child.send('stop');
            const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
            await exited;
            clearTimeout(force);
          },
        });
      }
    });
  });
}
