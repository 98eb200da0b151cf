/**
 * `npm run bench:sse` — our SSE fan-out against a bare node:http SSE server, same load, one run.
 * For N idle streams (one company) it reports memory per connection (RSS delta / N) and, for 50 events, the time
 * from the mutation's commit to the last client's receipt (p50, p99); then the same across two instances over NATS.
 * The last line is one JSON object with every figure and the ratios ours/raw.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { loadConfig } from '../src/config/config.js';
import { openDatabase, startService, type RunningService } from '../src/bootstrap.js';
import { USER_PERMISSIONS, type Actor } from '../src/shared/auth/actor.js';
import { TransactionRunner } from '../src/shared/database/transaction-runner.js';
import { freePort } from '../src/shared/database/embedded-postgres.js';
import { InProcessEventBus } from '../src/shared/event-bus/in-process-event-bus.js';
import { NatsEventBus } from '../src/shared/event-bus/nats-event-bus.js';
import type { EventBus } from '../src/shared/event-bus/event-bus.port.js';
import { MetricsService } from '../src/shared/metrics/metrics.service.js';
import { IdentityAdminService } from '../src/modules/identity/index.js';
import { SseHub } from '../src/modules/realtime/index.js';
import { startRawSseServer } from './raw-sse-server.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 50);
const SIZES = (process.env.BENCH_N ?? '1000,10000').split(',').map(Number);
const here = fileURLToPath(new URL('.', import.meta.url));

const gc = (): void => (globalThis as { gc?: () => void }).gc?.();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const round = (x: number, d = 2): number => Math.round(x * 10 ** d) / 10 ** d;
async function settledRss(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await sleep(100);
  }
  return process.memoryUsage().rss;
}

/** The separate load process, driven over IPC. */
class Load {
  private readonly child: ChildProcess;
  private readonly frames = new Map<string, (last: bigint) => void>();
  private pending: ((msg: Record<string, unknown>) => void) | null = null;

  constructor() {
    this.child = fork(join(here, 'sse-load.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.child.on('message', (msg: { frame?: { id: string; last: string }; error?: string }) => {
      if (msg.frame) {
        const cb = this.frames.get(msg.frame.id);
        this.frames.delete(msg.frame.id);
        cb?.(BigInt(msg.frame.last));
      } else if (msg.error) {
        console.error('load error', msg.error);
      } else if (this.pending) {
        const p = this.pending;
        this.pending = null;
        p(msg as Record<string, unknown>);
      }
    });
  }
  private ask(msg: unknown): Promise<Record<string, unknown>> {
    return new Promise((resolve) => {
      this.pending = resolve;
      this.child.send(msg as never);
    });
  }
  open(url: string, n: number, cookie: string | null) {
    return this.ask({ open: { url, n, cookie } });
  }
  close() {
    return this.ask({ close: true });
  }
  lastReceipt(id: string): Promise<bigint> {
    return new Promise((resolve) => this.frames.set(id, resolve));
  }
  kill() {
    this.child.kill();
  }
}

interface Phase {
  n: number;
  memPerConnKiB: number;
  p50ms: number;
  p99ms: number;
}

async function measure(
  load: Load,
  n: number,
  url: string,
  cookie: string | null,
  connected: () => number | Promise<number>,
  fire: () => Promise<{ id: string; t0: () => bigint }>,
): Promise<Phase> {
  const before = await settledRss();
  await load.open(url, n, cookie);
  while ((await connected()) < n) await sleep(20);
  const after = await settledRss();
  const lat: number[] = [];
  for (let i = 0; i < EVENTS; i++) {
    const { id, t0 } = await fire();
    // Subscribe before the event can arrive: fire() only returns its id once published, so wait via the map.
    const last = await load.lastReceipt(id);
    lat.push(Number(last - t0()) / 1e6);
    await sleep(20);
  }
  await load.close();
  while ((await connected()) > 0) await sleep(20);
  return { n, memPerConnKiB: round((after - before) / n / 1024), p50ms: round(pct(lat, 50)), p99ms: round(pct(lat, 99)) };
}

async function seed(svc: RunningService): Promise<{ cookie: string; actor: Actor; companyUuid: string }> {
  const admin = svc.app.get(IdentityAdminService);
  const company = await admin.createCompany('Bench');
  const email = `bench-${randomUUID()}@example.test`;
  const user = await admin.createUser({ companyUuid: company.uuid, email, name: 'Bench', password: 'bench-password' });
  const res = await fetch(`${svc.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'bench-password' }) });
  const cookie = /svc_session=[^;]+/.exec(res.headers.get('set-cookie') ?? '')![0];
  return {
    cookie,
    companyUuid: company.uuid,
    actor: { type: 'user', uuid: user.uuid, companyUuid: company.uuid, name: 'Bench', ownerUuid: null, permissions: USER_PERMISSIONS },
  };
}

/** A real mutation: one transaction that writes a row and, after commit, publishes one change event. */
function mutator(svc: RunningService, actor: Actor, commits: Map<string, bigint>) {
  const runner = svc.app.get(TransactionRunner);
  const projectUuid = randomUUID();
  return async () => {
    const id = randomUUID();
    await runner.run(actor, async (tx) => {
      await tx.manager.query(`UPDATE company SET updated_at = now() WHERE uuid = $1`, [actor.companyUuid]);
      tx.change('task', id, projectUuid, 'updated');
    });
    return { id, t0: () => commits.get(id)! };
  };
}

/** Records the commit time: the first bus listener runs right after commit, before any stream is written. */
function commitClock(bus: EventBus): Map<string, bigint> {
  const commits = new Map<string, bigint>();
  bus.subscribe('change', (e) => commits.set(e.entityUuid, process.hrtime.bigint()));
  return commits;
}

async function waitReady(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`${url}/health/ready`)).ok) return;
    } catch {
      // not up yet
    }
    await sleep(100);
  }
  throw new Error(`${url} did not become ready`);
}

async function main(): Promise<void> {
  const logger = pino({ level: 'warn' });
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const baseConfig = loadConfig({ PORT: '0', LOG_LEVEL: 'warn', DATA_DIR: dataDir, ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}) });
  const database = await openDatabase(baseConfig, logger);
  const dbUrl = baseConfig.databaseUrl ?? database.embedded!.url;
  const load = new Load();
  const results: Record<string, unknown> = { events: EVENTS, node: process.version };

  // 1. Ours, in-process bus.
  const bus = new InProcessEventBus();
  const commits = commitClock(bus);
  const svc = await startService(baseConfig, logger, { database, bus });
  const { cookie, actor } = await seed(svc);
  const hub = svc.app.get(SseHub);
  const fire = mutator(svc, actor, commits);
  const ours: Phase[] = [];
  for (const n of SIZES) {
    ours.push(await measure(load, n, `${svc.url}/api/events`, cookie, () => hub.size, fire));
    console.log('ours', ours.at(-1));
  }

  // 2. Raw node:http baseline.
  const raw = await startRawSseServer();
  const rawPhases: Phase[] = [];
  for (const n of SIZES) {
    let t0 = 0n;
    rawPhases.push(
      await measure(load, n, raw.url, null, raw.size, async () => {
        const id = randomUUID();
        const frame = `data: ${JSON.stringify({ companyUuid: actor.companyUuid, projectUuid: id, entityType: 'task', entityUuid: id, action: 'updated' })}\n\n`;
        t0 = process.hrtime.bigint();
        raw.publish(frame);
        return { id, t0: () => t0 };
      }),
    );
    console.log('raw', rawPhases.at(-1));
  }
  await raw.close();

  // 3. Two instances over NATS: mutations on A (in-process), streams on B (a separate process).
  const natsPort = await freePort();
  const nats = spawn(process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server', ['-a', '127.0.0.1', '-p', String(natsPort)], { stdio: 'ignore' });
  const natsUrl = `nats://127.0.0.1:${natsPort}`;
  await sleep(500);
  const natsBus = new NatsEventBus(natsUrl, 'bench', logger, new MetricsService());
  const natsCommits = commitClock(natsBus);
  natsBus.start();
  await natsBus.waitUntilUp(5000);
  const a = await startService(loadConfig({ PORT: '0', LOG_LEVEL: 'warn', DATABASE_URL: dbUrl, NATS_URL: natsUrl, BUS_SUBJECT_PREFIX: 'bench' }), logger, { bus: natsBus });
  const bPort = await freePort();
  const b = spawn(process.execPath, [join(here, '../src/main.js')], {
    env: { ...process.env, PORT: String(bPort), LOG_LEVEL: 'warn', DATABASE_URL: dbUrl, NATS_URL: natsUrl, BUS_SUBJECT_PREFIX: 'bench' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const bUrl = `http://127.0.0.1:${bPort}`;
  await waitReady(bUrl);
  const fireA = mutator(a, actor, natsCommits);
  const bConnected = async (): Promise<number> => {
    const text = await (await fetch(`${bUrl}/metrics`)).text();
    return Number(/svc_sse_connections\{stream="changes"\} (\d+)/.exec(text)?.[1] ?? 0);
  };
  const crossPhases: Phase[] = [];
  for (const n of SIZES) {
    const phase = await measure(
      load,
      n,
      `${bUrl}/api/events`,
      cookie,
      bConnected,
      fireA,
    );
    crossPhases.push(phase);
    console.log('cross-instance', phase);
  }
  b.kill('SIGTERM');
  await a.stop();
  await natsBus.close();
  nats.kill('SIGKILL');
  await svc.stop();
  await database.close();
  load.kill();

  const at = (phases: Phase[], n: number) => phases.find((p) => p.n === n)!;
  for (const n of SIZES) {
    const o = at(ours, n);
    const r = at(rawPhases, n);
    const c = at(crossPhases, n);
    results[`n${n}`] = {
      ours: o,
      raw: r,
      crossInstance: c,
      ratios: { memPerConn: round(o.memPerConnKiB / r.memPerConnKiB), p50: round(o.p50ms / r.p50ms), p99: round(o.p99ms / r.p99ms) },
      crossInstanceExtraP99ms: round(c.p99ms - o.p99ms),
    };
  }
  console.log(JSON.stringify(results));
  process.exit(0);
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
