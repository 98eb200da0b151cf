/**
 * The service under benchmark, in its own process so the load generator never shares its event loop (bench/
 * notifications.ts, bench/soak.ts, bench/sse-storm.ts). Configured by its environment (DATABASE_URL, LOG_LEVEL, …; PORT is 0
 * unless BENCH_SERVICE_PORT is set — a restart on the same port);
 * logs JSON lines to stdout like the shipped service. IPC: reports `{url}` when listening; "stop" stops it and exits;
 * `{mem: true}` answers `{mem: {rss, heapUsed, heapTotal, external, cpuUs, loopDelayP99Ms}}` — after a full GC when
 * started with --expose-gc; `loopDelayP99Ms` is the event-loop delay p99 since the previous sample; `{profile: 'start'}`
 * and `{profile: 'stop', file}` record a CPU profile of a window (bench/lib/profiler.ts). With BENCH_COUNT_QUERIES=1
 * every statement sent to PostgreSQL is counted (bench/notifications-wait.ts) and `{queries: true}` answers
 * `{queries: <count since start>}`; with BENCH_LOG_QUERIES=1 each statement's text goes to stderr (`QUERY …`), to
 * read what one request runs.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pg from 'pg';
import { loadConfig } from '../src/config/config.js';
import { startService } from '../src/bootstrap.js';
import { createLogger } from '../src/shared/logging/logger.js';
import { installProfilerIpc } from './lib/profiler.js';

/**
 * Bench-only: counts the statements of every pg client (pooled connections, TypeORM's query runners, the prepared
 * statements of src/shared/database/prepared.ts — all go through Client#query; pg's ESM and CommonJS entries share
 * the class). Installed before the service starts, so nothing escapes it.
 */
let queryCount = 0;
const logQueries = process.env.BENCH_LOG_QUERIES === '1';
if (process.env.BENCH_COUNT_QUERIES === '1' || logQueries) {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function countedQuery(this: unknown, ...args: unknown[]): unknown {
    queryCount++;
    if (logQueries) {
      const q = args[0] as string | { name?: string; text?: string };
      const text = typeof q === 'string' ? q : `${q.name ? `[${q.name}] ` : ''}${q.text ?? ''}`;
      process.stderr.write(`QUERY ${text.replace(/\s+/g, ' ').slice(0, 400)}\n`);
    }
    return original.apply(this, args);
  };
}

const config = loadConfig({ ...process.env, PORT: process.env.BENCH_SERVICE_PORT ?? '0', HOST: '127.0.0.1' });
const service = await startService(config, createLogger(config.logLevel));
installProfilerIpc();
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();
process.send?.({ url: service.url });
process.on('message', (msg: unknown) => {
  if (msg === 'stop') void service.stop().then(() => process.exit(0));
  else if (typeof msg === 'object' && msg !== null && 'queries' in msg) process.send?.({ queries: queryCount });
  else if (typeof msg === 'object' && msg !== null && 'mem' in msg) {
    (globalThis as { gc?: () => void }).gc?.();
    const m = process.memoryUsage();
    const cpu = process.cpuUsage();
    const loopDelayP99Ms = loop.count ? loop.percentile(99) / 1e6 : 0;
    loop.reset();
    process.send?.({ mem: { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external + m.arrayBuffers, cpuUs: cpu.user + cpu.system, loopDelayP99Ms } });
  }
});
