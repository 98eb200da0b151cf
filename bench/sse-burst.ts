/**
 * `npm run bench:sse-burst` — one bulk call against many open streams (docs/sse.md "Load"; BENCHMARKS.md "SSE burst").
 *
 * Per scenario, a fresh service process (bench/service-server.ts, in-process bus) on a scratch database holds N open
 * change streams of one company (bench/sse-burst-streams.ts, its own process), with or without `batch=1`. Then, BURST_REPEAT
 * times: one `svc_create_tasks` call over MCP creating BURST_TASKS tasks (as many `task created` events, committed
 * together), while this process pings `GET /health/live` every BURST_PING_MS. Reported per burst: the call's latency,
 * the worst ping answered during the burst (from the call's request to the last stream's last frame) and before it
 * (idle), when each stream had every event (from the call's response), missing or duplicated frames, the blocks that
 * carried them (plain frames, batches), and the server's CPU time for the burst.
 *
 * Goals (the 2,000-stream batch=1 scenario against the 1-stream one, medians of the repeats): call latency ≤ 1.5×,
 * worst ping ≤ +100 ms, every stream has all events ≤ 1 s after the response.
 *
 * Env: BURST_SCENARIOS (`1:batch,2000:batch,5000:batch,2000:single` — streams:batch|single), BURST_TASKS (50),
 * BURST_REPEAT (5), BURST_PING_MS (20), BURST_PROFILE (a directory: a CPU profile of one more burst per scenario,
 * after the measured ones — the profiler's own cost stays out of their figures — summarized), BURST_SERVER (another build's dist-bench/bench/service-server.js, e.g. the code before a change),
 * DATABASE_URL (else an embedded PostgreSQL). Last line: one JSON object with every figure.
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { IdentityAdminService, PasswordHasher } from '../src/modules/identity/index.js';
import { UserRepository } from '../src/modules/identity/user.repository.js';
import { formatSummary, summarize } from './lib/profile-summary.js';
import { api } from './lib/rest.js';
import { scratchDatabase } from './lib/scratch-db.js';
import { startServiceProcess, type ServiceProcess } from './lib/service-process.js';
import { nowUs, pct, round, sleep } from './lib/stats.js';
import type { BurstResult } from './sse-burst-streams.js';

const env = (name: string, def: string): string => process.env[name]?.trim() || def;
const SCENARIOS = env('BURST_SCENARIOS', '1:batch,2000:batch,5000:batch,2000:single')
  .split(',')
  .map((s) => {
    const [n, mode] = s.trim().split(':');
    if (!/^\d+$/.test(n) || (mode !== 'batch' && mode !== 'single')) throw new Error(`BURST_SCENARIOS: "${s}" is not <streams>:batch|single`);
    return { streams: Number(n), batch: mode === 'batch', label: `${n} streams, ${mode === 'batch' ? 'batch=1' : 'no batch'}` };
  });
const TASKS = Number(env('BURST_TASKS', '50'));
const REPEAT = Number(env('BURST_REPEAT', '5'));
const PING_MS = Number(env('BURST_PING_MS', '20'));
const PROFILE_DIR = process.env.BURST_PROFILE?.trim() || null;
const SERVER = process.env.BURST_SERVER?.trim() || undefined;
const here = fileURLToPath(new URL('.', import.meta.url));

interface Burst {
  callMs: number;
  worstPingMs: number;
  idleWorstPingMs: number;
  pings: number;
  /** Response → the last stream's last frame of the burst (ms), and the per-stream p50/p99. */
  deliveredAllMs: number;
  deliveredP50Ms: number;
  deliveredP99Ms: number;
  streams: number;
  complete: number;
  missing: number;
  duplicates: number;
  singleBlocks: number;
  batchBlocks: number;
  resets: number;
  serverCpuMs: number;
}

/** A ping every PING_MS on its own connection pool (a slow answer never holds the next one back). */
class Pinger {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  private readonly timer: NodeJS.Timeout;
  /** [sent µs, answered µs] */
  readonly done: Array<[number, number]> = [];
  private readonly inFlight = new Set<number>();

  constructor(url: string) {
    this.timer = setInterval(() => {
      const sent = nowUs();
      this.inFlight.add(sent);
      http
        .get(`${url}/health/live`, { agent: this.agent }, (res) => {
          res.resume();
          res.on('end', () => {
            this.inFlight.delete(sent);
            this.done.push([sent, nowUs()]);
          });
        })
        .on('error', () => this.inFlight.delete(sent));
    }, PING_MS);
  }

  /** The worst latency (ms) of pings in flight at any time within [from, to] (µs), and how many there were. */
  worst(from: number, to: number): { ms: number; n: number } {
    let ms = 0;
    let n = 0;
    for (const [s, a] of this.done) {
      if (a < from || s > to) continue;
      n++;
      ms = Math.max(ms, (a - s) / 1000);
    }
    // One still unanswered counts with what it has waited so far.
    for (const s of this.inFlight) if (s <= to) ms = Math.max(ms, (nowUs() - s) / 1000);
    return { ms: round(ms, 1), n };
  }

  stop(): void {
    clearInterval(this.timer);
    this.agent.destroy();
  }
}

function holder() {
  const proc = fork(join(here, 'sse-burst-streams.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ask = <T>(msg: unknown, reply: string): Promise<T> =>
    new Promise((resolve, reject) => {
      const onExit = () => reject(new Error(`stream holder exited while waiting for ${reply}`));
      proc.once('exit', onExit);
      const on = (m: Record<string, unknown>) => {
        if (!(reply in m)) return;
        proc.off('message', on);
        proc.off('exit', onExit);
        resolve(m[reply] as T);
      };
      proc.on('message', on);
      proc.send(msg as never);
    });
  return { proc, ask };
}

/** A profiler command to the server (bench/lib/profiler.ts), resolved by its answer. */
function profiler(server: ServiceProcess, msg: object, reply: string): Promise<void> {
  return new Promise((resolve) => {
    const on = (m: Record<string, unknown>) => {
      if (!(reply in m)) return;
      server.child.off('message', on);
      resolve();
    };
    server.child.on('message', on);
    server.child.send(msg);
  });
}

async function mcpCall(url: string, key: string, name: string, args: unknown): Promise<{ ms: number; sentUs: number; doneUs: number; result: Record<string, unknown> }> {
  const sentUs = nowUs();
  const res = await fetch(`${url}/api/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  const text = await res.text();
  const doneUs = nowUs();
  const msg = JSON.parse(text) as { result?: { isError?: boolean; content: Array<{ text: string }> } };
  if (!res.ok || !msg.result || msg.result.isError) throw new Error(`${name}: ${res.status} ${text.slice(0, 300)}`);
  return { ms: (doneUs - sentUs) / 1000, sentUs, doneUs, result: JSON.parse(msg.result.content[0].text) as Record<string, unknown> };
}

async function scenario(s: (typeof SCENARIOS)[number], index: number): Promise<{ label: string; bursts: Burst[]; profile?: string }> {
  const logger = pino({ level: 'warn' });
  const { db, url: dbUrl, cleanup } = await scratchDatabase(logger, 'burst');
  let server: ServiceProcess | null = null;
  const streams = holder();
  try {
    server = await startServiceProcess({ env: { DATABASE_URL: dbUrl, LOG_LEVEL: 'warn', MCP_RATE_LIMIT_PER_MINUTE: '0', SSE_MAX_STREAMS_PER_USER: '100000' }, serverFile: SERVER });
    const base = server.url;
    const admin = new IdentityAdminService(new UserRepository(db.dataSource.manager), new PasswordHasher());
    const company = await admin.createCompany('Burst');
    const email = `burst-${randomBytes(3).toString('hex')}@example.test`;
    const password = `pw-${randomBytes(12).toString('hex')}`;
    await admin.createUser({ companyUuid: company.uuid, email, name: 'Burst user', password });
    const { res } = await api(base, 'POST', '/api/auth/login', { email, password }, {});
    const cookie = /svc_session=[^;]+/.exec(res.headers.get('set-cookie') ?? '')![0];
    const { data: project } = await api<{ uuid: string }>(base, 'POST', '/api/projects', { name: 'Burst' }, { cookie });
    const { data: agent } = await api<{ uuid: string }>(base, 'POST', '/api/agents', { name: 'Burst agent', preset: 'admin_agent' }, { cookie });
    const { data: key } = await api<{ key: string }>(base, 'POST', `/api/agents/${agent.uuid}/keys`, {}, { cookie });

    const opened = await streams.ask<{ n: number; failed: number }>({ open: { url: `${base}/api/events${s.batch ? '?batch=1' : ''}`, cookie, n: s.streams } }, 'opened');
    if (opened.n !== s.streams) throw new Error(`opened ${opened.n} of ${s.streams} streams (${opened.failed} failed)`);
    const tasks = (i: number) => Array.from({ length: TASKS }, (_, k) => ({ title: `Burst ${i}.${k}`, acceptanceCriteriaItems: [{ description: 'Done' }] }));
    const burst = async (i: number, profileFile?: string): Promise<Burst> => {
      await streams.ask({ mark: true }, 'marked');
      const cpuBefore = (await server!.memory()).cpuUs;
      if (profileFile) await profiler(server!, { profile: 'start' }, 'profiling');
      const call = await mcpCall(base, key.key, 'svc_create_tasks', { projectUuid: project.uuid, tasks: tasks(i) });
      const keys = (call.result.tasks as Array<{ uuid: string }>).map((t) => `task:${t.uuid}:created`);
      const got = await streams.ask<BurstResult>({ await: { keys, t0Us: call.doneUs, timeoutMs: 60_000 } }, 'burst');
      const deliveredAt = call.doneUs + Math.max(0, ...got.doneMs) * 1000;
      if (profileFile) await profiler(server!, { profile: 'stop', file: profileFile }, 'profiled');
      const cpuAfter = (await server!.memory()).cpuUs;
      return {
        callMs: round(call.ms, 1),
        worstPingMs: 0,
        idleWorstPingMs: 0,
        pings: 0,
        deliveredAllMs: round(Math.max(0, ...got.doneMs), 1),
        deliveredP50Ms: round(pct(got.doneMs, 50), 1),
        deliveredP99Ms: round(pct(got.doneMs, 99), 1),
        streams: got.streams,
        complete: got.complete,
        missing: got.missing,
        duplicates: got.duplicates,
        singleBlocks: got.singleBlocks,
        batchBlocks: got.batchBlocks,
        resets: got.resets,
        serverCpuMs: round((cpuAfter - cpuBefore) / 1000, 1),
        ...{ window: [call.sentUs, deliveredAt] },
      } as Burst & { window: [number, number] };
    };
    await burst(0); // warm-up: connections, prepared statements, JIT
    await sleep(1000);
    const pinger = new Pinger(base);
    const bursts: Burst[] = [];
    let profile: string | undefined;
    try {
      for (let i = 1; i <= REPEAT; i++) {
        const idleFrom = nowUs();
        await sleep(1000);
        const idle = pinger.worst(idleFrom, nowUs());
        const b = (await burst(i)) as Burst & { window: [number, number] };
        await sleep(100);
        const worst = pinger.worst(b.window[0], b.window[1]);
        const { window: _w, ...rest } = b;
        bursts.push({ ...rest, worstPingMs: worst.ms, pings: worst.n, idleWorstPingMs: idle.ms });
      }
      if (PROFILE_DIR) {
        mkdirSync(PROFILE_DIR, { recursive: true });
        const file = join(PROFILE_DIR, `burst-${index}-${s.streams}-${s.batch ? 'batch' : 'single'}.cpuprofile`);
        await sleep(1000);
        const b = await burst(REPEAT + 1, file);
        profile = formatSummary(`${s.label}, one more burst`, summarize(file, undefined, b.serverCpuMs * 1000, 15));
      }
    } finally {
      pinger.stop();
    }
    return { label: s.label, bursts, profile };
  } finally {
    await streams.ask({ close: true }, 'closed').catch(() => undefined);
    streams.proc.kill();
    await server?.stop();
    await cleanup();
  }
}

const med = (xs: number[]): number => round(pct(xs, 50), 1);

async function main(): Promise<void> {
  console.log(
    `SSE burst: ${TASKS} tasks per call, ${REPEAT} bursts per scenario, a ping every ${PING_MS} ms; server ${SERVER ?? 'this build'}; ` +
      `node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`,
  );
  const results: Array<{ label: string; streams: number; batch: boolean; bursts: Burst[]; median: Record<string, number> }> = [];
  for (const [i, s] of SCENARIOS.entries()) {
    const r = await scenario(s, i);
    const median = {
      callMs: med(r.bursts.map((b) => b.callMs)),
      worstPingMs: med(r.bursts.map((b) => b.worstPingMs)),
      idleWorstPingMs: med(r.bursts.map((b) => b.idleWorstPingMs)),
      deliveredAllMs: med(r.bursts.map((b) => b.deliveredAllMs)),
      serverCpuMs: med(r.bursts.map((b) => b.serverCpuMs)),
    };
    results.push({ label: r.label, streams: s.streams, batch: s.batch, bursts: r.bursts, median });
    console.log(`\n${r.label}`);
    console.log(`  burst  call ms  worst ping ms (idle)  all streams have all ms (p50 / p99)  complete  missing  dup  blocks (frames / batches)  resets  server CPU ms`);
    for (const [k, b] of r.bursts.entries()) {
      console.log(
        `  ${String(k + 1).padStart(5)}  ${String(b.callMs).padStart(7)}  ${String(b.worstPingMs).padStart(8)} (${b.idleWorstPingMs})${' '.repeat(Math.max(1, 9 - String(b.idleWorstPingMs).length))}` +
          `${String(b.deliveredAllMs).padStart(8)} (${b.deliveredP50Ms} / ${b.deliveredP99Ms})${' '.repeat(8)}${b.complete}/${b.streams}  ${b.missing}  ${b.duplicates}  ${b.singleBlocks} / ${b.batchBlocks}  ${b.resets}  ${b.serverCpuMs}`,
      );
    }
    console.log(`  median: call ${median.callMs} ms, worst ping ${median.worstPingMs} ms (idle ${median.idleWorstPingMs}), all delivered ${median.deliveredAllMs} ms after the response, server CPU ${median.serverCpuMs} ms`);
    if (r.profile) console.log(r.profile);
  }
  const one = results.find((r) => r.streams === 1);
  const many = results.find((r) => r.streams === 2000 && r.batch);
  if (one && many) {
    const ratio = round(many.median.callMs / one.median.callMs, 2);
    const pingDelta = round(many.median.worstPingMs - one.median.worstPingMs, 1);
    const worstDelivery = Math.max(...many.bursts.map((b) => b.deliveredAllMs));
    const lost = many.bursts.reduce((a, b) => a + b.missing + b.duplicates + b.resets, 0);
    console.log(`\nGoals (2,000 batch=1 streams vs 1):`);
    console.log(`  call latency ${many.median.callMs} / ${one.median.callMs} ms = ${ratio}× (goal ≤ 1.5×): ${ratio <= 1.5 ? 'met' : 'NOT met'}`);
    console.log(`  worst ping ${many.median.worstPingMs} − ${one.median.worstPingMs} ms = +${pingDelta} ms (goal ≤ +100 ms): ${pingDelta <= 100 ? 'met' : 'NOT met'}`);
    console.log(`  every stream had all ${TASKS} events at most ${worstDelivery} ms after the response (goal ≤ 1,000 ms), ${lost} missing, duplicated or reset: ${worstDelivery <= 1000 && lost === 0 ? 'met' : 'NOT met'}`);
  }
  console.log(JSON.stringify({ bench: 'sse-burst', startedAt: new Date().toISOString(), node: process.version, server: SERVER ?? 'this build', tasks: TASKS, repeat: REPEAT, pingMs: PING_MS, results }));
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
