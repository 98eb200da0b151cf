/**
 * `npm run bench:bus-interest` — what each instance receives from NATS when subscriptions follow interest (docs/platform.md
 * §7; docs/deploy.md "What an instance subscribes to"), side by side with the broadcast it replaced, in one run.
 *
 * Per phase ("before": another build of the service, BENCH_BEFORE_DIR=<checkout>/dist-bench/bench, skipped when
 * unset; "after": this build): a fresh nats-server with its monitoring port, BENCH_INSTANCES (4) built instances in
 * child processes (bench/service-server.ts) on one scratch PostgreSQL, BENCH_COMPANIES (40) companies with one user
 * and one project each, BENCH_STREAMS (5) change streams per company, all of company i's on instance i mod 4 (so each
 * instance serves 10 companies). A writer creates ideas at BENCH_RATE (40/s) for BENCH_SECONDS (30), round robin over
 * the companies, each through the instance after the one that serves it (so every event must cross NATS once).
 *
 * Reported per instance: the messages nats-server sent to its receiving connection (`/connz`, `out_msgs` of
 * `svc-<id>-sub`; the connection is identified as the one that appeared when the instance started) — exactly what its
 * bus adapter received — against the messages published (the `in_msgs` of the `svc-<id>-pub` connections), and the
 * instance's own counter: `svc_bus_messages_received_total` (after) or `svc_events_relayed_total` (before: it counts
 * what was relayed to listeners, i.e. without the instance's own echoes, which the old build did not count). Delivery
 * latency to the streams: the writer's request start → each stream's receipt of the frame (matched by entity uuid),
 * p50/p99/max over every (stream, event). Then a fifth instance with no streams starts and the writer goes on for
 * BENCH_FIFTH_SECONDS (10): what that instance received in that window (goal after: control traffic only, here none).
 *
 * Goals (printed as ok/MISSED; the exit code does not depend on them): after, each instance receives at most its
 * share of the companies plus 5 points (≤ 30 % of the published messages with 4 instances and 40 companies); the fifth receives 0 change/notification messages; latency p99 not worse than before's by more
 * than 20 %. The last line is one JSON object with all figures. Needs DATABASE_URL's server (or an embedded one);
 * nats-server at NATS_SERVER_BIN (default /usr/sbin/nats-server).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { IdentityAdminService, PasswordHasher } from '../src/modules/identity/index.js';
import { UserRepository } from '../src/modules/identity/user.repository.js';
import { freePort } from '../src/shared/database/embedded-postgres.js';
import { api } from './lib/rest.js';
import { scratchDatabase } from './lib/scratch-db.js';
import { startServiceProcess, type ServiceProcess } from './lib/service-process.js';
import { pct, round, sleep } from './lib/stats.js';

const INSTANCES = Number(process.env.BENCH_INSTANCES ?? 4);
const COMPANIES = Number(process.env.BENCH_COMPANIES ?? 40);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 5);
const RATE = Number(process.env.BENCH_RATE ?? 40);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const FIFTH_SECONDS = Number(process.env.BENCH_FIFTH_SECONDS ?? 10);
const BEFORE_DIR = process.env.BENCH_BEFORE_DIR ?? null;
const NATS_BIN = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';
const logger = pino({ level: 'warn' });

interface Company {
  uuid: string;
  cookie: string;
  project: string;
}

interface Connz {
  cid: number;
  name?: string;
  in_msgs: number;
  out_msgs: number;
}

class Nats {
  private constructor(
    readonly proc: ChildProcess,
    readonly url: string,
    private readonly monitor: number,
  ) {}
  static async start(): Promise<Nats> {
    const [port, monitor] = [await freePort(), await freePort()];
    const proc = spawn(NATS_BIN, ['-a', '127.0.0.1', '-p', String(port), '-m', String(monitor)], { stdio: 'ignore' });
    const nats = new Nats(proc, `nats://127.0.0.1:${port}`, monitor);
    for (let i = 0; ; i++) {
      if (await nats.connz().then(() => true, () => false)) return nats;
      if (i > 100) throw new Error('nats-server did not start');
      await sleep(50);
    }
  }
  async connz(): Promise<Connz[]> {
    const res = await fetch(`http://127.0.0.1:${this.monitor}/connz?limit=1000`);
    return ((await res.json()) as { connections?: Connz[] }).connections ?? [];
  }
  stop(): void {
    this.proc.kill('SIGKILL');
  }
}

/** One built instance and the names of its NATS connections. */
interface Instance {
  svc: ServiceProcess;
  sub: string;
  pub: string;
}

async function startInstance(nats: Nats, env: Record<string, string>, serverFile?: string): Promise<Instance> {
  const known = new Set((await nats.connz()).map((c) => c.name));
  const svc = await startServiceProcess({ env, serverFile });
  // Its two connections are the ones that were not there before it started.
  for (let i = 0; ; i++) {
    const fresh = (await nats.connz()).filter((c) => c.name && !known.has(c.name));
    const sub = fresh.find((c) => c.name!.endsWith('-sub'));
    const pub = fresh.find((c) => c.name!.endsWith('-pub'));
    if (sub && pub) return { svc, sub: sub.name!, pub: pub.name! };
    if (i > 200) throw new Error('instance did not connect to NATS');
    await sleep(25);
  }
}

async function metric(svc: ServiceProcess, name: string): Promise<number> {
  const text = await (await fetch(`${svc.url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  return sum;
}

/** A change stream: records, per entity uuid, when its frame arrived. */
function openStream(url: string, cookie: string, receipts: Map<string, number[]>): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${url}/api/events`, { headers: { cookie, accept: 'text/event-stream' }, agent: false }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
      let buf = '';
      let connected = false;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const at = performance.now();
        const blocks = (buf + chunk).split('\n\n');
        buf = blocks.pop() ?? '';
        for (const b of blocks) {
          if (!connected && /^id: /m.test(b)) {
            connected = true;
            resolve(() => req.destroy());
          }
          const data = /^data: (.*)$/m.exec(b)?.[1];
          if (!data || data === '{}') continue;
          const uuid = (JSON.parse(data) as { entityUuid?: string }).entityUuid;
          if (uuid) (receipts.get(uuid) ?? receipts.set(uuid, []).get(uuid)!).push(at);
        }
      });
      res.on('error', () => undefined);
    });
    req.on('error', reject);
  });
}

/** Ideas at RATE per second for `seconds`, round robin over the companies, each through `via(companyIndex)`. */
async function write(companies: Company[], via: (i: number) => string, seconds: number, sent: Map<string, number>): Promise<{ ok: number; failed: number }> {
  let ok = 0;
  let failed = 0;
  const started = performance.now();
  const total = Math.round(RATE * seconds);
  const inflight: Array<Promise<void>> = [];
  for (let k = 0; k < total; k++) {
    const due = started + (k * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const i = k % companies.length;
    const c = companies[i];
    const t0 = performance.now();
    inflight.push(
      api<{ uuid: string }>(via(i), 'POST', `/api/projects/${c.project}/ideas`, { title: `idea ${k}` }, { cookie: c.cookie }).then(
        ({ data }) => {
          sent.set(data.uuid, t0);
          ok++;
        },
        () => void failed++,
      ),
    );
  }
  await Promise.all(inflight);
  return { ok, failed };
}

interface PhaseResult {
  phase: 'before' | 'after';
  published: number;
  perInstance: Array<{ instance: number; companies: number; received: number; share: number; counter: number }>;
  fifth: { received: number; published: number; counter: number };
  latencyMs: { p50: number; p99: number; max: number; samples: number; missing: number };
  writes: { ok: number; failed: number };
}

async function phase(name: 'before' | 'after', databaseUrl: string, companies: Array<Omit<Company, 'cookie' | 'project'> & { email: string; password: string }>, serverFile?: string): Promise<PhaseResult> {
  const nats = await Nats.start();
  const env = {
    DATABASE_URL: databaseUrl,
    NATS_URL: nats.url,
    BUS_SUBJECT_PREFIX: `bench${name}${randomBytes(3).toString('hex')}`,
    LOG_LEVEL: 'warn',
    SSE_MAX_STREAMS_PER_USER: '1000',
    MCP_RATE_LIMIT_PER_MINUTE: '0',
  };
  const instances: Instance[] = [];
  const stopAll = async () => {
    await Promise.all(instances.map((i) => i.svc.stop()));
    nats.stop();
  };
  try {
    for (let i = 0; i < INSTANCES; i++) instances.push(await startInstance(nats, env, serverFile));
    const urls = instances.map((i) => i.svc.url);
    // Each company: logged in and its project created (through its own instance).
    const ready: Company[] = [];
    for (const [i, c] of companies.entries()) {
      const base = urls[i % INSTANCES];
      const { res } = await api(base, 'POST', '/api/auth/login', { email: c.email, password: c.password }, {});
      const cookie = /svc_session=[^;]+/.exec(res.headers.get('set-cookie') ?? '')?.[0];
      if (!cookie) throw new Error('login set no session cookie');
      const { data: project } = await api<{ uuid: string }>(base, 'POST', '/api/projects', { name: `Bench ${name} ${i}` }, { cookie });
      ready.push({ uuid: c.uuid, cookie, project: project.uuid });
    }
    const receipts = new Map<string, number[]>();
    const closers: Array<() => void> = [];
    for (const [i, c] of ready.entries()) for (let s = 0; s < STREAMS; s++) closers.push(await openStream(urls[i % INSTANCES], c.cookie, receipts));
    await sleep(500);

    const count = async () => {
      const conns = new Map((await nats.connz()).map((c) => [c.name, c]));
      return {
        received: instances.map((i) => conns.get(i.sub)?.out_msgs ?? 0),
        published: instances.reduce((s, i) => s + (conns.get(i.pub)?.in_msgs ?? 0), 0),
        counters: await Promise.all(instances.map((i) => metric(i.svc, name === 'after' ? 'svc_bus_messages_received_total' : 'svc_events_relayed_total'))),
      };
    };
    const c0 = await count();
    const sent = new Map<string, number>();
    // Through the next instance: every event is published where none of its streams are.
    const writes = await write(ready, (i) => urls[(i + 1) % INSTANCES], SECONDS, sent);
    // Quiescence: every stream has every event, or 10 s.
    for (let t = 0; t < 100 && [...sent.keys()].some((u) => (receipts.get(u)?.length ?? 0) < STREAMS); t++) await sleep(100);
    const c1 = await count();
    const latencies: number[] = [];
    let missing = 0;
    for (const [uuid, t0] of sent) {
      const got = receipts.get(uuid) ?? [];
      missing += STREAMS - got.length;
      for (const at of got) latencies.push(at - t0);
    }
    const published = c1.published - c0.published;
    const perInstance = instances.map((_, i) => ({
      instance: i + 1,
      companies: ready.filter((__, k) => k % INSTANCES === i).length,
      received: c1.received[i] - c0.received[i],
      share: round((c1.received[i] - c0.received[i]) / Math.max(1, published), 3),
      counter: c1.counters[i] - c0.counters[i],
    }));

    // A fifth instance without streams while the writer goes on (through the first four).
    const fifth = await startInstance(nats, env, serverFile);
    instances.push(fifth);
    await sleep(500);
    const before5 = { conn: (await nats.connz()).find((c) => c.name === fifth.sub)?.out_msgs ?? 0, counter: await metric(fifth.svc, name === 'after' ? 'svc_bus_messages_received_total' : 'svc_events_relayed_total') };
    const p0 = (await count()).published;
    await write(ready, (i) => urls[(i + 1) % INSTANCES], FIFTH_SECONDS, new Map());
    await sleep(500);
    const after5 = { conn: (await nats.connz()).find((c) => c.name === fifth.sub)?.out_msgs ?? 0, counter: await metric(fifth.svc, name === 'after' ? 'svc_bus_messages_received_total' : 'svc_events_relayed_total') };
    const p1 = (await count()).published;
    for (const close of closers) close();
    const lat = { p50: round(pct(latencies, 50), 1), p99: round(pct(latencies, 99), 1), max: round(Math.max(...latencies), 1), samples: latencies.length, missing };
    return { phase: name, published, perInstance, fifth: { received: after5.conn - before5.conn, published: p1 - p0, counter: after5.counter - before5.counter }, latencyMs: lat, writes };
  } finally {
    await stopAll();
  }
}

function print(r: PhaseResult): void {
  console.log(`\n${r.phase}: ${r.published} messages published, ${r.writes.ok} ideas (${r.writes.failed} failed)`);
  console.log('  instance  companies  received  share   counter');
  for (const i of r.perInstance) console.log(`  ${String(i.instance).padEnd(8)}  ${String(i.companies).padEnd(9)}  ${String(i.received).padEnd(8)}  ${(i.share * 100).toFixed(1).padStart(5)} %  ${i.counter}`);
  console.log(`  5th, no streams: received ${r.fifth.received} of ${r.fifth.published} published (counter ${r.fifth.counter})`);
  console.log(`  delivery latency (request start → stream receipt): p50 ${r.latencyMs.p50} ms, p99 ${r.latencyMs.p99} ms, max ${r.latencyMs.max} ms over ${r.latencyMs.samples} receipts, ${r.latencyMs.missing} missing`);
}

const t0 = Date.now();
const scratch = await scratchDatabase(logger, 'interest');
try {
  const admin = new IdentityAdminService(new UserRepository(scratch.db.dataSource.manager), new PasswordHasher());
  const companies: Array<{ uuid: string; email: string; password: string }> = [];
  for (let i = 0; i < COMPANIES; i++) {
    const company = await admin.createCompany(`Interest ${i}`);
    const email = `interest-${i}-${randomBytes(3).toString('hex')}@example.test`;
    const password = `pw-${randomBytes(12).toString('hex')}`;
    await admin.createUser({ companyUuid: company.uuid, email, name: `Interest ${i}`, password });
    companies.push({ uuid: company.uuid, email, password });
  }
  console.log(`bench:bus-interest — ${INSTANCES} instances, ${COMPANIES} companies × ${STREAMS} streams, ${RATE} ideas/s for ${SECONDS} s, then a 5th instance for ${FIFTH_SECONDS} s; ${os.cpus().length} CPUs`);
  const results: PhaseResult[] = [];
  if (BEFORE_DIR) {
    results.push(await phase('before', scratch.url, companies, join(BEFORE_DIR, 'service-server.js')));
    print(results.at(-1)!);
  } else console.log('(no BENCH_BEFORE_DIR: the broadcast build is not measured)');
  const after = await phase('after', scratch.url, companies);
  results.push(after);
  print(after);
  const before = results.find((r) => r.phase === 'before');
  const goals = {
    eachAtMostItsSharePlus5Points: after.perInstance.every((i) => i.share <= i.companies / COMPANIES + 0.05),
    fifthReceivesNoData: after.fifth.received === 0,
    latencyP99NotWorse: before ? after.latencyMs.p99 <= before.latencyMs.p99 * 1.2 : null,
    nothingMissing: after.latencyMs.missing === 0 && (before?.latencyMs.missing ?? 0) === 0,
  };
  console.log('\ngoals:', Object.entries(goals).map(([k, v]) => `${k} ${v === null ? 'n/a' : v ? 'ok' : 'MISSED'}`).join(', '));
  console.log(JSON.stringify({ instances: INSTANCES, companies: COMPANIES, streams: STREAMS, rate: RATE, seconds: SECONDS, fifthSeconds: FIFTH_SECONDS, results, goals, totalMs: Date.now() - t0 }));
} finally {
  await scratch.cleanup();
}
