/**
 * `npm run bench:sse` — our SSE fan-out against a bare node:http SSE server, under the same load, in one run.
 * Each server runs in its own fresh process (bench/sse-target.ts) and a separate load process (bench/sse-load.ts)
 * holds N idle streams (one company). For N = 1,000 and 5,000 (BENCH_N) it reports memory per connection (the RSS
 * slope from N/5 to N streams, and the live heap's), for 50 events the time from the mutation's commit to the last client's
 * receipt (p50, p99), and the server's CPU time per event delivered to all N streams (events published straight onto
 * the bus, so no database work is counted; user + system, from before the publish to the last client's receipt);
 * then the same with two instances over NATS (mutations on A, streams on B; BENCH_NATS=0 skips it).
 * BENCH_TARGETS adds servers to the run beside raw: `ours` (default), `nest` and `express` (the framework layers alone,
 * bench/framework-sse-server.ts), `before` (another build of the service: BENCH_BEFORE_DIR=<checkout>/dist-bench/bench).
 * Last line: one JSON object with every figure and each server's ratios to raw.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startEmbedded } from '../src/shared/database/embedded-postgres.js';
import { pct, round, sleep } from './lib/stats.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 50);
const SIZES = (process.env.BENCH_N ?? '1000,5000').split(',').map(Number);
const here = fileURLToPath(new URL('.', import.meta.url));
const debug = (m: string): void => {
  if (process.env.BENCH_DEBUG) console.error(`[bench] ${m}`);
};

/** A child process answering one message per request over IPC. */
class Child {
  private readonly waiting: Array<(msg: Record<string, unknown>) => void> = [];
  private readonly onOther: Array<(msg: Record<string, unknown>) => void> = [];

  constructor(readonly proc: ChildProcess) {
    proc.on('message', (msg: Record<string, unknown>) => {
      if ('frame' in msg || 'error' in msg) for (const l of this.onOther) l(msg);
      else this.waiting.shift()?.(msg);
    });
  }
  static fork(file: string, dir = here): Child {
    // BENCH_PROFILE=<dir>: each server process writes a V8 CPU profile there when it exits.
    const profile = process.env.BENCH_PROFILE && file === 'sse-target.js' ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
    return new Child(fork(join(dir, file), [], { execArgv: ['--expose-gc', ...profile], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  }
  ask<T = Record<string, unknown>>(msg: unknown): Promise<T> {
    return new Promise((resolve) => {
      this.waiting.push(resolve as (m: Record<string, unknown>) => void);
      this.proc.send(msg as never);
    });
  }
  listen(l: (msg: Record<string, unknown>) => void): void {
    this.onOther.push(l);
  }
}

/** The separate load process. */
class Load {
  private readonly child = Child.fork('sse-load.js');
  private readonly frames = new Map<string, (last: bigint) => void>();
  /** Frames that completed before anyone asked (the load's report can overtake the firer's reply). */
  private readonly early = new Map<string, bigint>();
  constructor() {
    this.child.listen((msg) => {
      const frame = msg.frame as { id: string; last: string } | undefined;
      if (frame) {
        const cb = this.frames.get(frame.id);
        this.frames.delete(frame.id);
        if (cb) cb(BigInt(frame.last));
        else this.early.set(frame.id, BigInt(frame.last));
      } else console.error('load error', msg.error);
    });
  }
  open(url: string, n: number, cookie: string | null) {
    return this.child.ask({ open: { url, n, cookie } });
  }
  close() {
    return this.child.ask({ close: true });
  }
  /** Resolves when every stream has received frame `id`. */
  lastReceipt(id: string): Promise<bigint> {
    const done = this.early.get(id);
    if (done !== undefined) {
      this.early.delete(id);
      return Promise.resolve(done);
    }
    return new Promise((resolve) => this.frames.set(id, resolve));
  }
  kill() {
    this.child.proc.kill();
  }
}

interface Phase {
  n: number;
  memPerConnKiB: number;
  p50ms: number;
  p99ms: number;
  cpuPerEventUs: number;
  liveHeapPerConnKiB: number;
}

/** `holder` owns the streams (memory, size); `firer` performs the mutations (the same process, except across NATS). */
async function measure(load: Load, n: number, url: string, cookie: string | null, holder: Child, firer: Child): Promise<Phase> {
  // Memory per connection is the marginal RSS slope from N/5 to N streams (the first streams partly land in pages the
  // process already holds), read without forcing a GC: the collector's slack is part of the cost. The live heap slope
  // (after a full GC) is reported beside it.
  const rss = async (): Promise<{ rss: number; heap: number }> => holder.ask<{ rss: number; heap: number }>({ rss: true });
  const first = Math.round(n / 5);
  debug(`opening ${n} streams to ${url}`);
  await load.open(url, first, cookie);
  while ((await holder.ask<{ size: number }>({ size: true })).size < first) await sleep(20);
  const m0 = await rss();
  await load.open(url, n - first, cookie);
  while ((await holder.ask<{ size: number }>({ size: true })).size < n) await sleep(20);
  const m1 = await rss();
  const perConn = (bytes: number): number => round(bytes / (n - first) / 1024);
  debug(`per connection: rss ${perConn(m1.rss - m0.rss)} KiB, heap ${perConn(m1.heap - m0.heap)} KiB`);
  const lat: number[] = [];
  for (let i = 0; i < EVENTS; i++) {
    const fired = await firer.ask<{ fired: { id: string; t0: string } }>({ fire: true });
    const last = await Promise.race([load.lastReceipt(fired.fired.id), sleep(30000).then(() => -1n)]);
    if (last < 0n) throw new Error(`event ${fired.fired.id} did not reach all ${n} streams`);
    lat.push(Number(last - BigInt(fired.fired.t0)) / 1e6);
    await sleep(20);
  }
  // CPU per event: single-instance runs only (across NATS the holder is not the instance that publishes).
  let cpu = NaN;
  if (holder === firer) {
    cpu = 0;
    for (let i = 0; i < EVENTS; i++) {
      const c0 = (await holder.ask<{ cpu: number }>({ cpu: true })).cpu;
      const { published } = await holder.ask<{ published: { id: string } }>({ publish: true });
      if ((await Promise.race([load.lastReceipt(published.id), sleep(30000).then(() => -1n)])) < 0n) throw new Error(`event ${published.id} did not reach all ${n} streams`);
      cpu += (await holder.ask<{ cpu: number }>({ cpu: true })).cpu - c0;
      await sleep(20);
    }
  }
  await load.close();
  while ((await holder.ask<{ size: number }>({ size: true })).size > 0) await sleep(20);
  return {
    n,
    memPerConnKiB: perConn(m1.rss - m0.rss),
    liveHeapPerConnKiB: perConn(m1.heap - m0.heap),
    p50ms: round(pct(lat, 50)),
    p99ms: round(pct(lat, 99)),
    cpuPerEventUs: round(cpu / EVENTS),
  };
}

type TargetName = 'ours' | 'raw' | 'nest' | 'express' | 'before';

/** A fresh server process; `before` is the service as built in BENCH_BEFORE_DIR (another checkout's dist-bench/bench). */
async function target(name: TargetName, start: Record<string, unknown>): Promise<{ child: Child; url: string; cookie: string | null; login?: unknown }> {
  const child =
    name === 'before'
      ? Child.fork('sse-target.js', process.env.BENCH_BEFORE_DIR!)
      : Child.fork('sse-target.js');
  const mode = name === 'before' ? 'ours' : name;
  const { ready } = await child.ask<{ ready: { url: string; cookie: string | null; login?: unknown } }>({ start: { ...start, mode } });
  return { child, ...ready };
}

async function stop(c: Child): Promise<void> {
  await c.ask({ stop: true });
}

async function main(): Promise<void> {
  let databaseUrl = process.env.DATABASE_URL;
  let embedded: { stop(): Promise<void> } | null = null;
  if (!databaseUrl) {
    const e = await startEmbedded(mkdtempSync(join(tmpdir(), 'svc-bench-')));
    embedded = e;
    databaseUrl = e.url;
  }
  // BENCH_TARGETS: which servers, measured in this order for each N, each in a fresh process (raw is always one).
  const names = [...new Set(['raw', ...(process.env.BENCH_TARGETS ?? 'ours').split(',')])] as TargetName[];
  const load = new Load();
  const results: Record<string, unknown> = { events: EVENTS, node: process.version, sizes: SIZES, targets: names };
  const phases = new Map<string, Phase>();
  for (const n of SIZES) {
    for (const name of names) {
      const t = await target(name, { databaseUrl });
      const phase = await measure(load, n, t.url, t.cookie, t.child, t.child);
      await stop(t.child);
      phases.set(`${name}/${n}`, phase);
      console.log(name.padEnd(8), JSON.stringify(phase));
    }
  }

  // Across instances over NATS (mutations on A, streams on B): the extra latency of the shared channel.
  const cross: Phase[] = [];
  if (process.env.BENCH_NATS !== '0') {
    const natsPort = await freePort();
    const nats = spawn(process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server', ['-a', '127.0.0.1', '-p', String(natsPort)], { stdio: 'ignore' });
    await sleep(500);
    const natsUrl = `nats://127.0.0.1:${natsPort}`;
    const a = await target('ours', { databaseUrl, natsUrl });
    const b = await target('ours', { databaseUrl, natsUrl, login: a.login });
    for (const n of SIZES) cross.push(await measure(load, n, b.url, b.cookie, b.child, a.child));
    await stop(a.child);
    await stop(b.child);
    nats.kill('SIGKILL');
    console.log('nats    ', JSON.stringify(cross));
  }

  load.kill();
  await embedded?.stop();
  for (const n of SIZES) {
    const raw = phases.get(`raw/${n}`)!;
    const entry: Record<string, unknown> = { raw };
    for (const name of names.filter((x) => x !== 'raw')) {
      const p = phases.get(`${name}/${n}`)!;
      entry[name] = {
        ...p,
        ratios: {
          memPerConn: round(p.memPerConnKiB / raw.memPerConnKiB),
          cpuPerEvent: round(p.cpuPerEventUs / raw.cpuPerEventUs),
          p50: round(p.p50ms / raw.p50ms),
          p99: round(p.p99ms / raw.p99ms),
        },
      };
    }
    const pc = cross.find((p) => p.n === n);
    if (pc) entry.crossInstance = { ...pc, extraP99ms: round(pc.p99ms - phases.get(`ours/${n}`)!.p99ms) };
    results[`n${n}`] = entry;
  }
  console.log(JSON.stringify(results));
  process.exit(0);
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
