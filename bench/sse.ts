/**
 * `npm run bench:sse` — our SSE fan-out against a bare node:http SSE server, under the same load, in one run.
 * Each server runs in its own fresh process (bench/sse-target.ts) and a separate load process (bench/sse-load.ts)
 * holds N idle streams (one company). For N = 1,000 and 5,000 (BENCH_N) it reports memory per connection (RSS delta /
 * N, after GC), for 50 events the time from the mutation's commit to the last client's receipt (p50, p99), and the
 * server's CPU time per event delivered to all N streams (events published straight onto the bus, so no database
 * work is counted; user + system, from before the publish to the last client's receipt); then
 * the same with two instances over NATS (mutations on A, streams on B). Last line: one JSON object with every
 * figure and the ratios ours/raw.
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
  static fork(file: string): Child {
    return new Child(fork(join(here, file), [], { execArgv: ['--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
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
}

/** `holder` owns the streams (memory, size); `firer` performs the mutations (the same process, except across NATS). */
async function measure(load: Load, n: number, url: string, cookie: string | null, holder: Child, firer: Child): Promise<Phase> {
  const m0 = await holder.ask<{ rss: number; heap: number; external: number }>({ rss: true });
  const before = m0.rss;
  debug(`opening ${n} streams to ${url}`);
  await load.open(url, n, cookie);
  while ((await holder.ask<{ size: number }>({ size: true })).size < n) await sleep(20);
  const m1 = await holder.ask<{ rss: number; heap: number; external: number }>({ rss: true });
  const after = m1.rss;
  debug(`per connection: rss ${round((m1.rss - m0.rss) / n / 1024)} KiB, heap ${round((m1.heap - m0.heap) / n / 1024)} KiB, external ${round((m1.external - m0.external) / n / 1024)} KiB`);
  const lat: number[] = [];
  for (let i = 0; i < EVENTS; i++) {
    const fired = await firer.ask<{ fired: { id: string; t0: string } }>({ fire: true });
    const last = await Promise.race([load.lastReceipt(fired.fired.id), sleep(30000).then(() => -1n)]);
    if (last < 0n) throw new Error(`event ${fired.fired.id} did not reach all ${n} streams`);
    lat.push(Number(last - BigInt(fired.fired.t0)) / 1e6);
    await sleep(20);
  }
  let cpu = 0;
  for (let i = 0; i < EVENTS; i++) {
    const c0 = (await holder.ask<{ cpu: number }>({ cpu: true })).cpu;
    const { published } = await holder.ask<{ published: { id: string } }>({ publish: true });
    await load.lastReceipt(published.id);
    cpu += (await holder.ask<{ cpu: number }>({ cpu: true })).cpu - c0;
    await sleep(20);
  }
  await load.close();
  while ((await holder.ask<{ size: number }>({ size: true })).size > 0) await sleep(20);
  return {
    n,
    memPerConnKiB: round((after - before) / n / 1024),
    p50ms: round(pct(lat, 50)),
    p99ms: round(pct(lat, 99)),
    cpuPerEventUs: round(cpu / EVENTS),
  };
}

async function target(start: Record<string, unknown>): Promise<{ child: Child; url: string; cookie: string | null; login?: unknown }> {
  const child = Child.fork('sse-target.js');
  const { ready } = await child.ask<{ ready: { url: string; cookie: string | null; login?: unknown } }>({ start });
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
  const load = new Load();
  const results: Record<string, unknown> = { events: EVENTS, node: process.version, sizes: SIZES };
  const ours: Phase[] = [];
  const raws: Phase[] = [];
  const cross: Phase[] = [];

  const o = await target({ mode: 'ours', databaseUrl });
  for (const n of SIZES) ours.push(await measure(load, n, o.url, o.cookie, o.child, o.child));
  await stop(o.child);
  console.log('ours', JSON.stringify(ours));

  const r = await target({ mode: 'raw' });
  for (const n of SIZES) raws.push(await measure(load, n, r.url, null, r.child, r.child));
  await stop(r.child);
  console.log('raw ', JSON.stringify(raws));

  if (process.env.BENCH_NATS === '0') {
    for (const n of SIZES) cross.push(ours.find((p) => p.n === n)!);
  } else {
  const natsPort = await freePort();
  const nats = spawn(process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server', ['-a', '127.0.0.1', '-p', String(natsPort)], { stdio: 'ignore' });
  await sleep(500);
  const natsUrl = `nats://127.0.0.1:${natsPort}`;
  const a = await target({ mode: 'ours', databaseUrl, natsUrl });
  const b = await target({ mode: 'ours', databaseUrl, natsUrl, login: a.login });
  for (const n of SIZES) cross.push(await measure(load, n, b.url, b.cookie, b.child, a.child));
  await stop(a.child);
  await stop(b.child);
  nats.kill('SIGKILL');
  console.log('nats', JSON.stringify(cross));
  }

  load.kill();
  await embedded?.stop();
  for (const n of SIZES) {
    const [po, pr, pc] = [ours, raws, cross].map((list) => list.find((p) => p.n === n)!);
    results[`n${n}`] = {
      ours: po,
      raw: pr,
      crossInstance: pc,
      ratios: {
        memPerConn: round(po.memPerConnKiB / pr.memPerConnKiB),
        cpuPerEvent: round(po.cpuPerEventUs / pr.cpuPerEventUs),
        p50: round(po.p50ms / pr.p50ms),
        p99: round(po.p99ms / pr.p99ms),
      },
      crossInstanceExtraP99ms: round(pc.p99ms - po.p99ms),
    };
  }
  console.log(JSON.stringify(results));
  process.exit(0);
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
