/**
 * `npm run bench:soak` — load and soak on one service instance.
 *
 * The built service runs in a child process (bench/service-server.ts, in-process bus, LOG_LEVEL=info by default,
 * MCP_RATE_LIMIT_PER_MINUTE=0) against a scratch database on DATABASE_URL's server, or an embedded PostgreSQL when
 * DATABASE_URL is unset. Seeded: users of one company directly in the database (there is no sign-up route), then over
 * the public API a project, one admin_agent (the mutator) and SOAK_AGENTS developer agents, each with its own API key
 * and task. Then, for SOAK_MINUTES:
 *
 * - a stream process (bench/soak-streams.ts) holds SOAK_STREAMS open `GET /api/events?batch=1` streams (the users'
 *   cookies in turn; as the client module opens them — SOAK_BATCH=0 drops `batch=1`) and times every measured change
 *   frame, whether it came alone or in a batch;
 * - a driver process (bench/soak-drive.ts) runs the agents' MCP tool cycle and SOAK_MUTATIONS_PER_S measured
 *   mutations (REST idea and MCP document create/edit/delete, each producing one change event);
 * - this process samples the server's RSS and heap used (after a full GC), CPU and event-loop delay, and the service's
 *   database sessions (pg_stat_activity), every SOAK_SAMPLE_S seconds.
 *
 * Reports memory over time with its growth after warm-up (least-squares slope in MiB/min, first- vs last-window
 * means, a "flat" verdict by the rule in FLAT_RULE), tool-call and mutation p50/p99, event delivery p50/p99 (response of
 * the mutation → receipt on a stream, process.hrtime across processes), request counts and every error (non-2xx,
 * JSON-RPC errors, isError results, timeouts, stream drops, lost or duplicate deliveries, error lines in the server's
 * log), and scans the server's log for the run's secrets (passwords, API keys, session tokens). Last line: one JSON
 * object with every figure. Exit code 1 when there was any error or a secret was found.
 *
 * Env: SOAK_MINUTES (10), SOAK_STREAMS (2000), SOAK_AGENTS (50), SOAK_MUTATIONS_PER_S (20), SOAK_USERS (5),
 * SOAK_AGENT_PAUSE_MS (1000: an agent's think time between calls), SOAK_SAMPLE_S (10), SOAK_WARMUP_S (min(60, 20 % of
 * the run)), SOAK_TIMEOUT_MS (30000: client timeout), SOAK_LOG_LEVEL (info), SOAK_GC (1: full GC before each memory
 * sample; 0: raw figures), SOAK_KEEP_LOGS (0: the server log is kept anyway when something failed),
 * SOAK_SERVER_NODE_ARGS (extra node flags for the server, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`), SOAK_BATCH (1),
 * DATABASE_URL.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import type { DataSource } from 'typeorm';
import { IdentityAdminService, PasswordHasher } from '../src/modules/identity/index.js';
import { UserRepository } from '../src/modules/identity/user.repository.js';
import { scratchDatabase } from './lib/scratch-db.js';
import { findSecrets } from '../src/shared/logging/secret-scan.js';

/** A secret as it may be printed in a report: its first 4 characters and its length. */
const maskSecret = (s: string): string => `${s.slice(0, 4)}…(${s.length} chars)`;
import { startServiceProcess, type ServiceProcess } from './lib/service-process.js';
import { Histogram, linearFit, mean, pct, round, sleep } from './lib/stats.js';
import type { DriveConfig, DriveResult } from './soak-drive.js';
import type { StreamsResult } from './soak-streams.js';
import { api } from './lib/rest.js';

const num = (name: string, def: number): number => {
  const v = process.env[name];
  if (v === undefined || v.trim() === '') return def;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number (got "${v}")`);
  return n;
};

const MINUTES = num('SOAK_MINUTES', 10);
const STREAMS = Math.round(num('SOAK_STREAMS', 2000));
const AGENTS = Math.round(num('SOAK_AGENTS', 50));
const MUTATIONS_PER_S = num('SOAK_MUTATIONS_PER_S', 20);
const USERS = Math.max(1, Math.round(num('SOAK_USERS', 5)));
const AGENT_PAUSE_MS = num('SOAK_AGENT_PAUSE_MS', 1000);
const SAMPLE_S = Math.max(0.5, num('SOAK_SAMPLE_S', 10));
const DURATION_S = MINUTES * 60;
const WARMUP_S = round(num('SOAK_WARMUP_S', Math.min(60, 0.2 * DURATION_S)), 1);
const TIMEOUT_MS = num('SOAK_TIMEOUT_MS', 30_000);
const LOG_LEVEL = process.env.SOAK_LOG_LEVEL ?? 'info';
const GC = process.env.SOAK_GC !== '0';
/** Streams opened with `batch=1`, as the client module opens them. */
const BATCH = process.env.SOAK_BATCH !== '0';
const KEEP_LOGS = process.env.SOAK_KEEP_LOGS === '1';
/** Extra node flags for the server process, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`. */
const SERVER_NODE_ARGS = (process.env.SOAK_SERVER_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
/** Allowance for the last deliveries after the mutations stop. */
const DRAIN_MS = 3000;

/** The rule behind the "flat" verdict, printed with it. */
const FLAT_RULE =
  'after warm-up: heap used slope ≤ 0.5 MiB/min and last-window mean − first-window mean ≤ max(2 MiB, 2 %); ' +
  'RSS slope ≤ 2 MiB/min and last − first window ≤ max(8 MiB, 5 %); windows = 60 s (a third of the span when shorter); ' +
  'conclusive only with ≥ 3 min and ≥ 10 samples after warm-up';

const here = fileURLToPath(new URL('.', import.meta.url));
const MiB = 1024 * 1024;

interface Sample {
  tS: number;
  rssMiB: number;
  heapUsedMiB: number;
  heapTotalMiB: number;
  externalMiB: number;
  /** Server CPU used since the previous sample, as a share of one core. */
  cpuPct: number;
  loopDelayP99Ms: number;
  /** The service's database sessions at sampling time: running a statement, and idle inside a transaction. */
  dbActive: number;
  dbIdleInTx: number;
}

/** A forked helper process answering one message per request (plus unsolicited messages to `onOther`). */
class Helper {
  readonly proc: ChildProcess;
  private readonly waiting = new Map<string, (msg: Record<string, unknown>) => void>();

  constructor(file: string, onOther: (msg: Record<string, unknown>) => void) {
    this.proc = fork(join(here, file), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.proc.on('message', (msg: Record<string, unknown>) => {
      const key = Object.keys(msg)[0];
      const w = this.waiting.get(key);
      if (w) {
        this.waiting.delete(key);
        w(msg);
      } else onOther(msg);
    });
    this.proc.on('exit', (code) => {
      if (code !== 0 && code !== null) console.error(`${file} exited with ${code}`);
    });
  }

  /** Sends `msg` and resolves with the next message whose first key is `reply`. */
  ask<T>(msg: unknown, reply: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const onExit = () => reject(new Error(`helper exited while waiting for "${reply}"`));
      this.proc.once('exit', onExit);
      this.waiting.set(reply, (m) => {
        this.proc.off('exit', onExit);
        resolve(m[reply] as T);
      });
      this.proc.send(msg as never);
    });
  }

  send(msg: unknown): void {
    if (this.proc.connected) this.proc.send(msg as never);
  }

  kill(): void {
    if (this.proc.exitCode === null) this.proc.kill();
  }
}

interface Seeded {
  cookies: string[];
  projectUuid: string;
  adminKey: string;
  agents: Array<{ key: string; taskUuid: string }>;
  secrets: string[];
}

/** Users directly in the database (there is no public sign-up); everything else over the REST API. */
async function seed(ds: DataSource, base: string): Promise<Seeded> {
  const admin = new IdentityAdminService(new UserRepository(ds.manager), new PasswordHasher());
  const company = await admin.createCompany('Soak');
  const secrets: string[] = [];
  const cookies: string[] = [];
  for (let i = 0; i < USERS; i++) {
    const email = `soak-${i}-${randomBytes(3).toString('hex')}@example.test`;
    const password = `pw-${randomBytes(12).toString('hex')}`;
    await admin.createUser({ companyUuid: company.uuid, email, name: `Soak User ${i}`, password });
    const { res } = await api(base, 'POST', '/api/auth/login', { email, password }, {});
    const cookie = /svc_session=[^;]+/.exec(res.headers.get('set-cookie') ?? '')?.[0];
    if (!cookie) throw new Error('login set no session cookie');
    cookies.push(cookie);
    secrets.push(password, cookie.slice('svc_session='.length));
  }
  const as = (i: number) => ({ cookie: cookies[i % cookies.length] });
  const { data: project } = await api<{ uuid: string }>(base, 'POST', '/api/projects', { name: 'Soak project' }, as(0));
  const agentWithKey = async (owner: number, name: string, preset: string): Promise<string> => {
    const { data: agent } = await api<{ uuid: string }>(base, 'POST', '/api/agents', { name, preset }, as(owner));
    const { data: key } = await api<{ key: string }>(base, 'POST', `/api/agents/${agent.uuid}/keys`, { name: 'soak' }, as(owner));
    secrets.push(key.key);
    return key.key;
  };
  const adminKey = await agentWithKey(0, 'Soak mutator', 'admin_agent');
  const taskUuids: string[] = [];
  for (let from = 0; from < AGENTS; from += 50) {
    const tasks = Array.from({ length: Math.min(50, AGENTS - from) }, (_, i) => ({
      title: `Soak task ${from + i}`,
      description: 'Claimed, commented on and released over and over by one agent',
      acceptanceCriteriaItems: [{ description: 'It survives the soak' }],
    }));
    const { data } = await api<{ tasks: Array<{ uuid: string }> }>(base, 'POST', `/api/projects/${project.uuid}/tasks`, { tasks }, as(0));
    taskUuids.push(...data.tasks.map((t) => t.uuid));
  }
  const agents: Seeded['agents'] = [];
  for (let i = 0; i < AGENTS; i++) agents.push({ key: await agentWithKey(i, `Soak agent ${i}`, 'developer_agent'), taskUuid: taskUuids[i] });
  return { cookies, projectUuid: project.uuid, adminKey, agents, secrets };
}

interface Growth {
  slopeMiBPerMin: number;
  firstWindowMiB: number;
  lastWindowMiB: number;
  deltaMiB: number;
  flat: boolean;
}

function growth(post: Sample[], pick: (s: Sample) => number, maxSlope: number, minDelta: number, relDelta: number): Growth {
  const { slope } = linearFit(
    post.map((s) => s.tS / 60),
    post.map(pick),
  );
  const span = post.length ? post[post.length - 1].tS - post[0].tS : 0;
  const window = Math.min(60, span / 3);
  const first = mean(post.filter((s) => s.tS <= post[0].tS + window).map(pick));
  const last = mean(post.filter((s) => s.tS >= post[post.length - 1].tS - window).map(pick));
  const delta = last - first;
  const flat = !(slope > maxSlope) && !(delta > Math.max(minDelta, relDelta * first));
  return { slopeMiBPerMin: round(slope, 3), firstWindowMiB: round(first), lastWindowMiB: round(last), deltaMiB: round(delta), flat };
}

function memoryReport(samples: Sample[]) {
  const post = samples.filter((s) => s.tS >= WARMUP_S);
  const span = post.length ? post[post.length - 1].tS - post[0].tS : 0;
  const heap = growth(post, (s) => s.heapUsedMiB, 0.5, 2, 0.02);
  const rss = growth(post, (s) => s.rssMiB, 2, 8, 0.05);
  return { warmupS: WARMUP_S, postWarmupSamples: post.length, postWarmupSpanS: round(span, 1), heapUsed: heap, rss, flat: heap.flat && rss.flat, conclusive: span >= 180 && post.length >= 10, rule: FLAT_RULE };
}

const pad = (s: unknown, n: number): string => String(s).padStart(n);

async function main(): Promise<void> {
  const logger = pino({ level: 'warn' });
  const started = new Date();
  console.log(
    `Soak: ${MINUTES} min, ${STREAMS} streams, ${AGENTS} agents (pause ${AGENT_PAUSE_MS} ms), ${MUTATIONS_PER_S} mutations/s, ${USERS} users; ` +
      `sample every ${SAMPLE_S} s, warm-up ${WARMUP_S} s; node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`,
  );
  const { db, url, cleanup } = await scratchDatabase(logger, 'soak');
  const logDir = mkdtempSync(join(tmpdir(), 'svc-soak-'));
  const logPath = join(logDir, 'server.log');
  const logFile = createWriteStream(logPath);
  const serverErrorLines: string[] = [];
  let serverErrorCount = 0;
  let serverWarnCount = 0;
  let server: ServiceProcess | null = null;
  let streams: Helper | null = null;
  let drive: Helper | null = null;
  let exitCode = 1;
  let reported = false;
  try {
    server = await startServiceProcess({
      // SOAK_STREAMS streams of SOAK_USERS users: far more per user than the default cap of 64 per user.
      env: { DATABASE_URL: url, LOG_LEVEL, MCP_RATE_LIMIT_PER_MINUTE: '0', SSE_MAX_STREAMS_PER_USER: String(Math.max(64, STREAMS)) },
      gc: GC,
      execArgv: SERVER_NODE_ARGS,
      onLine: (line, stream) => {
        logFile.write(`${line}\n`);
        const level = /"level":"(\w+)"/.exec(line)?.[1];
        if (level === 'warn') serverWarnCount++;
        else if (level === 'error' || level === 'fatal' || (stream === 'stderr' && !level)) {
          serverErrorCount++;
          if (serverErrorLines.length < 5) serverErrorLines.push(line.slice(0, 400));
        }
      },
    });
    const seeded = await seed(db.dataSource, server.url);
    console.log(`seeded: ${USERS} users, ${AGENTS} agents + 1 admin agent with keys, ${AGENTS} tasks; server ${server.url} (pid ${server.child.pid})`);

    const forward = (msg: Record<string, unknown>) => {
      if (msg.t0) streams?.send(msg);
    };
    streams = new Helper('soak-streams.js', (msg) => console.error('streams:', msg));
    drive = new Helper('soak-drive.js', forward);
    const opened = await streams.ask<{ n: number; failed: number }>({ open: { url: `${server.url}/api/events${BATCH ? '?batch=1' : ''}`, cookies: seeded.cookies, n: STREAMS } }, 'opened');
    console.log(`streams open: ${opened.n} (${opened.failed} failed)`);

    const config: DriveConfig = {
      base: server.url,
      projectUuid: seeded.projectUuid,
      agents: seeded.agents,
      cookies: seeded.cookies,
      adminKey: seeded.adminKey,
      mutationsPerS: MUTATIONS_PER_S,
      agentPauseMs: AGENT_PAUSE_MS,
      timeoutMs: TIMEOUT_MS,
    };
    await drive.ask({ start: config }, 'ready');
    const t0 = Date.now();
    const samples: Sample[] = [];
    /** What the service's database sessions were waiting on, summed over the samples (pg_stat_activity). */
    const dbWaits = new Map<string, number>();
    const dbActivity = async (): Promise<{ active: number; idleInTx: number }> => {
      const rows: Array<{ state: string | null; wait: string | null; n: number }> = await db.dataSource.query(
        `SELECT state, wait_event_type || ':' || wait_event AS wait, count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = 'svc' GROUP BY 1, 2`,
      );
      let active = 0;
      let idleInTx = 0;
      for (const r of rows) {
        if (r.state === 'active') {
          active += r.n;
          const key = r.wait ?? 'running (no wait)';
          dbWaits.set(key, (dbWaits.get(key) ?? 0) + r.n);
        } else if (r.state?.startsWith('idle in transaction')) idleInTx += r.n;
      }
      return { active, idleInTx };
    };
    let prevCpu: { us: number; at: number } | null = null;
    const takeSample = async (): Promise<void> => {
      const [m, dbNow] = await Promise.all([server!.memory(), dbActivity()]);
      const at = Date.now();
      const cpuPct = prevCpu ? ((m.cpuUs - prevCpu.us) / 1000 / (at - prevCpu.at)) * 100 : NaN;
      prevCpu = { us: m.cpuUs, at };
      const s: Sample = {
        tS: round((at - t0) / 1000, 1),
        rssMiB: round(m.rss / MiB),
        heapUsedMiB: round(m.heapUsed / MiB),
        heapTotalMiB: round(m.heapTotal / MiB),
        externalMiB: round(m.external / MiB),
        cpuPct: round(cpuPct, 1),
        loopDelayP99Ms: round(m.loopDelayP99Ms),
        dbActive: dbNow.active,
        dbIdleInTx: dbNow.idleInTx,
      };
      samples.push(s);
      console.log(`  t=${pad(s.tS.toFixed(0), 5)} s  rss ${pad(s.rssMiB.toFixed(1), 7)} MiB  heap used ${pad(s.heapUsedMiB.toFixed(1), 7)} MiB  server CPU ${pad(Number.isNaN(s.cpuPct) ? '-' : s.cpuPct.toFixed(0), 3)} %  loop delay p99 ${pad(s.loopDelayP99Ms.toFixed(0), 4)} ms  db sessions active ${s.dbActive}, idle in tx ${s.dbIdleInTx}`);
    };
    await takeSample();
    for (let k = 1; k * SAMPLE_S <= DURATION_S; k++) {
      await sleep(Math.max(0, t0 + k * SAMPLE_S * 1000 - Date.now()));
      if (server.crashed) break;
      try {
        await takeSample();
      } catch (err) {
        // The server died between the check and the sample: reported below as a crash.
        console.error(`memory sample failed: ${String(err)}`);
        break;
      }
    }
    const driveResult = await drive.ask<DriveResult>({ stop: true }, 'result');
    await sleep(DRAIN_MS);
    const streamsResult = await streams.ask<StreamsResult>({ result: true }, 'result');
    await streams.ask({ close: true }, 'closed');
    const crashed = server.crashed;
    await server.stop();
    server = null;
    await new Promise<void>((r) => logFile.end(r));

    // Secrets: the whole log of the run, verbatim.
    const logText = readFileSync(logPath, 'utf8');
    const leaked = findSecrets(logText, seeded.secrets);
    const logLines = logText.split('\n').filter((l) => l !== '').length;

    const receipt = Histogram.fromJSON(streamsResult.receipt);
    const fromRequest = Histogram.fromJSON(streamsResult.receiptFromRequest);
    const maxOf = (xs: number[]) => round(xs.reduce((a, b) => Math.max(a, b), 0));
    const delivery = {
      receipts: receipt.count,
      p50ms: round(receipt.percentile(50) / 1000),
      p99ms: round(receipt.percentile(99) / 1000),
      maxMs: round(receipt.max / 1000),
      lastReceiptP50ms: round(pct(streamsResult.lastReceiptMs, 50)),
      lastReceiptP99ms: round(pct(streamsResult.lastReceiptMs, 99)),
      lastReceiptMaxMs: maxOf(streamsResult.lastReceiptMs),
      receivedBeforeResponse: streamsResult.receivedBeforeResponse,
      fromRequest: {
        p50ms: round(fromRequest.percentile(50) / 1000),
        p99ms: round(fromRequest.percentile(99) / 1000),
        maxMs: round(fromRequest.max / 1000),
        lastReceiptP50ms: round(pct(streamsResult.lastReceiptFromRequestMs, 50)),
        lastReceiptP99ms: round(pct(streamsResult.lastReceiptFromRequestMs, 99)),
        lastReceiptMaxMs: maxOf(streamsResult.lastReceiptFromRequestMs),
      },
    };
    const errors = {
      toolErrors: driveResult.toolErrors,
      toolTimeouts: driveResult.toolTimeouts,
      mutationErrors: driveResult.mutationErrors,
      mutationTimeouts: driveResult.mutationTimeouts,
      streamConnectFailures: streamsResult.connectFailures,
      streamDrops: streamsResult.drops,
      missedDeliveries: streamsResult.missedDeliveries,
      duplicateDeliveries: streamsResult.duplicateDeliveries,
      streamResets: streamsResult.resets,
      unmeasuredMutations: Math.max(0, driveResult.mutations - driveResult.mutationErrors - streamsResult.measuredEvents),
      serverErrorLogLines: serverErrorCount,
      serverCrashed: crashed ? 1 : 0,
    };
    // Timeouts are already among the tool and mutation errors.
    const errorTotal = Object.entries(errors).reduce((a, [k, v]) => (k.endsWith('Timeouts') ? a : a + v), 0);
    const memory = memoryReport(samples);
    const cpu = samples.map((s) => s.cpuPct).filter((x) => !Number.isNaN(x));

    console.log('');
    console.log(`Soak results (${driveResult.seconds} s of load, ${samples.length} memory samples${GC ? ' after full GC' : ''})`);
    console.log(`  memory after warm-up (${memory.warmupS} s; ${memory.postWarmupSamples} samples over ${memory.postWarmupSpanS} s):`);
    for (const [name, g] of [['heap used', memory.heapUsed], ['RSS', memory.rss]] as const) {
      console.log(`    ${name.padEnd(10)} slope ${pad(g.slopeMiBPerMin.toFixed(3), 8)} MiB/min   first window ${pad(g.firstWindowMiB.toFixed(1), 7)} MiB   last window ${pad(g.lastWindowMiB.toFixed(1), 7)} MiB   Δ ${pad(g.deltaMiB.toFixed(1), 6)} MiB   ${g.flat ? 'flat' : 'GROWING'}`);
    }
    console.log(`    verdict: ${memory.flat ? 'flat' : 'NOT flat'}${memory.conclusive ? '' : ' (not conclusive: too short a run)'} — rule: ${FLAT_RULE}`);
    const streamsCpuPct = round((streamsResult.cpuUs / 1e4 / (driveResult.seconds + DRAIN_MS / 1000)), 1);
    const driveCpuPct = round(driveResult.cpuUs / 1e4 / driveResult.seconds, 1);
    console.log(
      `  CPU (% of one core): server mean ${round(mean(cpu), 1)}, stream process ${streamsCpuPct}, driver process ${driveCpuPct} (load average at the end ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}); ` +
        `server event-loop delay p99 max ${round(Math.max(0, ...samples.map((s) => s.loopDelayP99Ms)))} ms`,
    );
    console.log(`  ${'operation'.padEnd(36)} ${pad('count', 8)} ${pad('p50 ms', 8)} ${pad('p99 ms', 8)} ${pad('max ms', 8)}`);
    const row = (name: string, l: { count: number; p50ms: number; p99ms: number; maxMs: number }) =>
      console.log(`  ${name.padEnd(36)} ${pad(l.count, 8)} ${pad(l.p50ms, 8)} ${pad(l.p99ms, 8)} ${pad(l.maxMs, 8)}`);
    row('tool calls (all)', driveResult.allTools);
    for (const [name, l] of Object.entries(driveResult.tools).sort()) row(`  ${name}`, l);
    row(`mutations (all, ${driveResult.mutationsPerSAchieved}/s)`, driveResult.allMutations);
    for (const [name, l] of Object.entries(driveResult.mutationKinds).sort()) row(`  ${name}`, l);
    const events = streamsResult.lastReceiptMs.length;
    row('delivery: response → each receipt', { count: delivery.receipts, p50ms: delivery.p50ms, p99ms: delivery.p99ms, maxMs: delivery.maxMs });
    row('delivery: response → last stream', { count: events, p50ms: delivery.lastReceiptP50ms, p99ms: delivery.lastReceiptP99ms, maxMs: delivery.lastReceiptMaxMs });
    const fr = delivery.fromRequest;
    row('delivery: request sent → each receipt', { count: delivery.receipts, p50ms: fr.p50ms, p99ms: fr.p99ms, maxMs: fr.maxMs });
    row('delivery: request sent → last stream', { count: events, p50ms: fr.lastReceiptP50ms, p99ms: fr.lastReceiptP99ms, maxMs: fr.lastReceiptMaxMs });
    console.log(`  streams${BATCH ? ' (batch=1)' : ''}: ${streamsResult.streamsOpened} opened, ${streamsResult.framesReceived} frames received (${streamsResult.batchesReceived} batches among the blocks; ${streamsResult.unmatchedFrames} frames of unmeasured events: the agents' writes), ${delivery.receivedBeforeResponse} receipts before the mutation's response (counted as 0 ms)`);
    console.log(`  errors: ${errorTotal} — ${Object.entries(errors).map(([k, v]) => `${k} ${v}`).join(', ')}; mutations skipped (200 in flight) ${driveResult.mutationsSkipped}`);
    for (const e of [...driveResult.errorSamples, ...streamsResult.dropSamples, ...serverErrorLines]) console.log(`    e.g. ${e}`);
    console.log(`  server log: ${logLines} lines, ${serverWarnCount} warnings; secrets scanned: ${seeded.secrets.length} (passwords, API keys, session tokens), found: ${leaked.length}${leaked.length ? ' — ' + leaked.map(maskSecret).join(', ') : ''} (findSecrets, src/shared/logging/secret-scan.ts)`);
    const waits = [...dbWaits].sort((a, b) => b[1] - a[1]);
    console.log(`  database sessions of the service, per sample: active mean ${round(mean(samples.map((x) => x.dbActive)), 1)} (max ${Math.max(0, ...samples.map((x) => x.dbActive))}), idle in transaction mean ${round(mean(samples.map((x) => x.dbIdleInTx)), 1)}; active ones waiting on: ${waits.map(([k, v]) => `${k} ${v}`).join(', ') || '-'}`);
    const keepLogs = KEEP_LOGS || errorTotal > 0 || leaked.length > 0;
    console.log(`  server log ${keepLogs ? `kept at ${logPath}` : 'deleted (SOAK_KEEP_LOGS=1 keeps it)'}`);
    if (!keepLogs) rmSync(logDir, { recursive: true, force: true });
    reported = true;

    console.log(
      JSON.stringify({
        bench: 'soak',
        startedAt: started.toISOString(),
        node: process.version,
        cpus: os.cpus().length,
        loadAverageEnd: os.loadavg().map((x) => round(x)),
        config: { minutes: MINUTES, streams: STREAMS, batch: BATCH, agents: AGENTS, mutationsPerS: MUTATIONS_PER_S, users: USERS, agentPauseMs: AGENT_PAUSE_MS, sampleS: SAMPLE_S, warmupS: WARMUP_S, timeoutMs: TIMEOUT_MS, logLevel: LOG_LEVEL, gcBeforeSample: GC },
        loadSeconds: driveResult.seconds,
        memory: { ...memory, samples },
        cpuPct: { serverMean: round(mean(cpu), 1), streamProcess: streamsCpuPct, driverProcess: driveCpuPct },
        database: { activeMean: round(mean(samples.map((x) => x.dbActive)), 1), idleInTxMean: round(mean(samples.map((x) => x.dbIdleInTx)), 1), waits: Object.fromEntries(waits) },
        requests: {
          toolCalls: driveResult.toolCalls,
          toolCallsPerS: round(driveResult.toolCalls / driveResult.seconds),
          mutations: driveResult.mutations,
          mutationsPerS: driveResult.mutationsPerSAchieved,
          mutationsSkipped: driveResult.mutationsSkipped,
          streams: streamsResult.streamsOpened,
          framesReceived: streamsResult.framesReceived,
          batchesReceived: streamsResult.batchesReceived,
          measuredEvents: streamsResult.measuredEvents,
        },
        toolCalls: { all: driveResult.allTools, byTool: driveResult.tools },
        mutations: { all: driveResult.allMutations, byKind: driveResult.mutationKinds },
        delivery,
        errors: { total: errorTotal, ...errors, samples: [...driveResult.errorSamples, ...streamsResult.dropSamples, ...serverErrorLines] },
        secrets: { scanned: seeded.secrets.length, found: leaked.length, scanner: 'findSecrets (src/shared/logging/secret-scan.ts)', logLines },
        serverLog: keepLogs ? logPath : null,
      }),
    );
    exitCode = errorTotal > 0 || leaked.length > 0 ? 1 : 0;
  } finally {
    drive?.kill();
    streams?.kill();
    await server?.stop();
    if (!logFile.closed) logFile.end();
    // Failed before the report (which says where the log is): keep the log and say so.
    if (!reported && existsSync(logPath)) console.error(`server log kept at ${logPath}`);
    await cleanup();
  }
  process.exit(exitCode);
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
