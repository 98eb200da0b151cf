/**
 * `npm run bench:mcp` — our tool endpoint (`POST /api/mcp`: Nest controller, API-key guard with its database lookup,
 * rate-limit and Origin guards, the SDK v2 per-request `Server`) against the v2 bare baseline (bench/bare-mcp-server.ts:
 * the same SDK wiring on node:http, no auth, no database) serving THE SAME CATALOGUE — the product's own `tools/list`
 * for the preset, fetched from the running product, plus `echo` — on the same protocol version, in ONE run.
 *
 * Processes: ours (bench/service-server.ts, MCP_RATE_LIMIT_PER_MINUTE=0), the bare server (its same-work tools on the
 * same scratch database) and the load generator
 * (bench/mcp-load.ts: C keep-alive clients posting back to back) each run in their own process; PostgreSQL is an
 * embedded one in a temporary directory unless DATABASE_URL is set (then a scratch database on that server).
 *
 * Scenarios, for each era — 2025-11-25 (`MCP-Protocol-Version: 2025-11-25`, plain JSON-RPC) and 2026-07-28
 * (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` headers and the `_meta` envelope in params):
 * - `list`: `tools/list` with a key of each preset in BENCH_PRESETS (ours) vs the bare server's copy of that list
 *   (+ echo), BENCH_LIST_RUNS times in a row, each run reported;
 * - `call`: `tools/call` of a read tool (BENCH_TOOL, default `svc_get_task` on a seeded task) vs the bare `echo` and
 *   — for svc_get_task — the bare same-work `get_task` (same key lookup and task read by hand on the same database,
 *   checked to answer the same bytes before measuring);
 * - `write`: `svc_update_task` giving a task a new title on every call (one seeded task per client) vs the bare
 *   same-work `update_task` (the same statements in one transaction).
 * Each scenario: a warm-up per arm, then BENCH_SLICES measured slices alternating the arms (A B C | C B A | …). For
 * each arm: req/s, p50 and p99 over every response of every slice, server CPU ms/request (/proc, the arm's server
 * process), PostgreSQL CPU ms/request (the backends of the benchmark's database), the load process's CPU; ratios
 * ours/echo (ours/bare for tools/list) and ours/same-work, and at the end one `GOAL ok|MISSED|not measured` line per
 * goal of issue 29 (read ≥ 0.8× same-work req/s and p99 ≤ 1.3×, write ≥ 0.7× req/s, tools/list ≥ 1.0× in each of
 * five consecutive runs). The last line is one JSON object with every figure.
 *
 * Env:
 *   BENCH_CLIENTS (16)            concurrent keep-alive clients
 *   BENCH_SLICES (6)              measured slices per arm, alternating
 *   BENCH_SLICE_S (3)             seconds per slice
 *   BENCH_WARMUP_S (2)            warm-up per arm and scenario (not measured)
 *   BENCH_PRESETS (pm_agent)      comma-separated presets for tools/list (developer_agent, pm_agent, admin_agent);
 *                                 the first one's key also makes the tool calls
 *   BENCH_ERAS (2025-11-25,2026-07-28)
 *   BENCH_SCENARIOS (list,call,write)
 *   BENCH_LIST_RUNS (1)           tools/list runs in a row per era and preset (5 for the goal)
 *   BENCH_TOOL (svc_get_task)     read tool called by ours (svc_get_task or svc_get_project)
 *   BENCH_PROFILE=1               after the measured run, profile each scenario again, ours and bare, BENCH_PROFILE_S
 *                                 (5) seconds each (V8 sampling profiler over IPC, .cpuprofile files in
 *                                 BENCH_PROFILE_DIR or a temporary directory), and print self time by area
 *   BENCH_LOG_LEVEL (warn)        our server's LOG_LEVEL
 *   BENCH_WAIT_QUIET_S            first wait until the 1-minute load average has stayed below 1.5 this long
 *                                 (at most BENCH_WAIT_MAX_S, 1800)
 *   DATABASE_URL                  PostgreSQL server for a scratch database (else embedded)
 * Numbers are valid only when the machine is otherwise idle: the load average before the run is printed (with a
 * warning above 1.5), and per arm the share of the machine's CPU that processes outside the benchmark used during
 * its slices (/proc/stat minus the benchmark's own processes and database backends) and the hypervisor's steal.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync, mkdtempSync, mkdirSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import type { DataSource } from 'typeorm';
import { IdentityAdminService, PasswordHasher } from '../src/modules/identity/index.js';
import { UserRepository } from '../src/modules/identity/user.repository.js';
import { ECHO_TOOL, SAME_WORK_TOOLS } from './bare-mcp-server.js';
import type { LoadResult, RunMsg } from './mcp-load.js';
import { formatSummary, summarize, type ProfileSummary } from './lib/profile-summary.js';
import { scratchDatabase } from './lib/scratch-db.js';
import { startServiceProcess } from './lib/service-process.js';
import { round } from './lib/stats.js';
import { api } from './lib/rest.js';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 16);
const SLICES = Number(process.env.BENCH_SLICES ?? 6);
const SLICE_MS = Number(process.env.BENCH_SLICE_S ?? 3) * 1000;
const WARMUP_MS = Number(process.env.BENCH_WARMUP_S ?? 2) * 1000;
const PRESETS = (process.env.BENCH_PRESETS ?? 'pm_agent').split(',').map((s) => s.trim()).filter(Boolean);
const ERAS = (process.env.BENCH_ERAS ?? '2025-11-25,2026-07-28').split(',').map((s) => s.trim()) as Era[];
const SCENARIOS = (process.env.BENCH_SCENARIOS ?? 'list,call,write').split(',').map((s) => s.trim());
const CALL_TOOL = process.env.BENCH_TOOL ?? 'svc_get_task';
const LIST_RUNS = Math.max(1, Number(process.env.BENCH_LIST_RUNS ?? 1));
const PROFILE = process.env.BENCH_PROFILE === '1';
const PROFILE_MS = Number(process.env.BENCH_PROFILE_S ?? 5) * 1000;
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'warn';
const TICK_MS = 10; // USER_HZ = 100
const here = fileURLToPath(new URL('.', import.meta.url));

type Era = '2025-11-25' | '2026-07-28';
/** ours; bare: the bare server's echo (or its catalogue, for tools/list); same: its same-work tool. */
type ArmName = 'ours' | 'bare' | 'same';

/** One HTTP request shape: what the load process posts. */
interface Shape {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Writes: markers the load process replaces per request / per client (bench/mcp-load.ts). */
  vary?: RunMsg['vary'];
}

/** The write scenario's markers: a title unique to each request, one task per client (no waits on one row lock). */
const COUNTER = '__N__';
const TASK_MARKER = '__TASK__';

/** The request of one era: headers and body (2026-07-28: Mcp-Method/Mcp-Name headers and the `_meta` envelope). */
function shape(era: Era, url: string, auth: Record<string, string>, method: string, params: Record<string, unknown>): Shape {
  const headers: Record<string, string> = { ...auth, 'mcp-protocol-version': era };
  if (era === '2025-11-25') return { url, headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) };
  headers['mcp-method'] = method;
  if (method === 'tools/call') headers['mcp-name'] = String(params.name);
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': era,
    'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  return { url, headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta } }) };
}

/** utime + stime of a process, in ticks (0 when it is gone). */
function ticks(pid: number): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(f[11]) + Number(f[12]);
  } catch {
    return 0;
  }
}

/** Machine-wide CPU from /proc/stat, in ticks: busy (user, nice, system, irq, softirq), steal, and all. */
function machineTicks(): { busy: number; steal: number; all: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = f;
  return { busy: user + nice + system + irq + softirq, steal, all: user + nice + system + idle + iowait + irq + softirq + steal };
}

/** Waits until the 1-minute load average has stayed below `limit` for `seconds` (at most `maxSeconds`). */
async function waitQuiet(seconds: number, maxSeconds: number, limit = 1.5): Promise<boolean> {
  const until = Date.now() + maxSeconds * 1000;
  let quietSince: number | null = null;
  while (Date.now() < until) {
    const l = loadavg()[0];
    quietSince = l < limit ? (quietSince ?? Date.now()) : null;
    if (quietSince !== null && Date.now() - quietSince >= seconds * 1000) return true;
    await new Promise((r) => setTimeout(r, 5000));
  }
  return false;
}

/** The separate load process, driven over IPC. */
class Load {
  readonly child = fork(join(here, 'mcp-load.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });

  run(s: Shape, durationMs: number, returnLatencies: boolean): Promise<LoadResult> {
    const msg: RunMsg = { ...s, clients: CLIENTS, durationMs, warmupMs: 0, errorMarker: ['"error":', '"isError":true'], returnLatencies, vary: s.vary };
    return new Promise((resolve) => {
      this.child.once('message', (m: { result: LoadResult }) => resolve(m.result));
      this.child.send({ run: msg });
    });
  }

  kill(): void {
    this.child.kill();
  }
}

/** Sum of measured slices of one arm. */
class Arm {
  requests = 0;
  errors = 0;
  firstError: string | null = null;
  seconds = 0;
  latencies: number[] = [];
  serverTicks = 0;
  dbTicks = 0;
  loadCpuUs = 0;
  responseBytes = 0;
  /** Machine ticks during the slices: all, busy in processes outside the benchmark, steal. */
  machineAll = 0;
  foreignBusy = 0;
  steal = 0;

  constructor(
    readonly name: ArmName,
    readonly pid: number,
    readonly shape: Shape,
  ) {}

  add(r: LoadResult, serverTicks: number, dbTicks: number): void {
    this.requests += r.requests;
    this.errors += r.errors;
    this.firstError ??= r.firstError;
    this.seconds += r.seconds;
    for (const l of r.latencies ?? []) this.latencies.push(l);
    this.serverTicks += serverTicks;
    this.dbTicks += dbTicks;
    this.loadCpuUs += r.loadCpuUsPerReq * r.requests;
    this.responseBytes = r.responseBytes;
  }

  result() {
    const s = this.latencies.sort((a, b) => a - b);
    const pct = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? NaN;
    const perReq = (ms: number) => round(ms / Math.max(1, this.requests), 3);
    return {
      requests: this.requests,
      errors: this.errors,
      firstError: this.firstError,
      rps: round(this.requests / this.seconds, 0),
      p50ms: round(pct(50)),
      p99ms: round(pct(99)),
      serverCpuMsPerReq: perReq(this.serverTicks * TICK_MS),
      dbCpuMsPerReq: perReq(this.dbTicks * TICK_MS),
      loadCpuMsPerReq: perReq(this.loadCpuUs / 1000),
      responseBytes: this.responseBytes,
      /** Share of the machine's CPU used by processes outside the benchmark while this arm ran (and steal). */
      foreignCpuPct: round((100 * this.foreignBusy) / Math.max(1, this.machineAll), 1),
      stealPct: round((100 * this.steal) / Math.max(1, this.machineAll), 1),
    };
  }
}

/** The PostgreSQL backends serving the benchmark's database (ours' pool), for their CPU. */
async function dbBackends(ds: DataSource): Promise<number[]> {
  const rows: Array<{ pid: number }> = await ds.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`);
  return rows.map((r) => Number(r.pid));
}

/** A company and user in the database; over REST: a project, one task with a criterion, an agent and key per preset. */
async function seed(ds: DataSource, base: string): Promise<{ keys: Record<string, string>; projectUuid: string; taskUuid: string; writeTasks: string[] }> {
  const admin = new IdentityAdminService(new UserRepository(ds.manager), new PasswordHasher());
  const company = await admin.createCompany('Bench');
  const email = `bench-${company.uuid}@example.test`;
  await admin.createUser({ companyUuid: company.uuid, email, name: 'Bench', password: 'bench-password' });
  const { res } = await api(base, 'POST', '/api/auth/login', { email, password: 'bench-password' }, {});
  const cookie = /svc_session=[^;]+/.exec(res.headers.get('set-cookie') ?? '')?.[0];
  if (!cookie) throw new Error('login set no session cookie');
  const { data: project } = await api<{ uuid: string }>(base, 'POST', '/api/projects', { name: 'Bench project' }, { cookie });
  const { data: created } = await api<{ tasks: Array<{ uuid: string }> }>(
    base,
    'POST',
    `/api/projects/${project.uuid}/tasks`,
    { tasks: [{ title: 'Benchmark task', description: 'Read over and over', acceptanceCriteriaItems: [{ description: 'It is fast' }] }] },
    { cookie },
  );
  // The write scenario's tasks, one per client.
  const { data: writable } = await api<{ tasks: Array<{ uuid: string }> }>(
    base,
    'POST',
    `/api/projects/${project.uuid}/tasks`,
    { tasks: Array.from({ length: CLIENTS }, (_, i) => ({ title: `Write task ${i}`, description: 'Renamed over and over', acceptanceCriteriaItems: [{ description: 'It is fast' }] })) },
    { cookie },
  );
  const keys: Record<string, string> = {};
  for (const preset of new Set([...PRESETS])) {
    const { data: agent } = await api<{ uuid: string }>(base, 'POST', '/api/agents', { name: `Bench ${preset}`, preset }, { cookie });
    const { data: key } = await api<{ key: string }>(base, 'POST', `/api/agents/${agent.uuid}/keys`, { name: 'bench' }, { cookie });
    keys[preset] = key.key;
  }
  return { keys, projectUuid: project.uuid, taskUuid: created.tasks[0].uuid, writeTasks: writable.tasks.map((t) => t.uuid) };
}

/** One request, checked: 200 and no JSON-RPC error or tool error; the parsed body. */
async function once(s: Shape): Promise<{ result: Record<string, unknown> }> {
  let body = s.body;
  if (s.vary?.counter) body = body.replaceAll(s.vary.counter, `check ${Math.random()}`);
  if (s.vary?.perClient) body = body.replaceAll(s.vary.perClient.marker, s.vary.perClient.values[0]);
  const res = await fetch(s.url, {
    method: 'POST',
    headers: { ...s.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body,
  });
  const text = await res.text();
  if (res.status !== 200 || text.includes('"error":') || text.includes('"isError":true')) throw new Error(`${s.url} ${s.body.slice(0, 120)}: ${res.status} ${text.slice(0, 400)}`);
  return JSON.parse(text) as { result: Record<string, unknown> };
}

/** The bare server in its own process, serving the given catalogues. */
async function startBare(catalogues: Record<string, unknown[]>, databaseUrl: string): Promise<{ url: string; child: ChildProcess }> {
  const child = fork(join(here, 'bare-mcp-server.js'), ['--bare-mcp-child'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bare server exited (${code})`)));
    child.on('message', (m: { ready?: boolean; url?: string }) => {
      if (m.ready) child.send({ catalogues, databaseUrl });
      else if (m.url) resolve(m.url);
    });
  });
  return { url, child };
}

/** A CPU profile of one process over one load run (bench/lib/profiler.ts on its side). */
async function profileArm(child: ChildProcess, load: Load, s: Shape, file: string): Promise<{ file: string; requests: number; cpuMsPerReq: number; summary: ProfileSummary }> {
  const reply = (key: string) => new Promise<void>((resolve) => {
    const on = (m: Record<string, unknown>) => {
      if (key in m) {
        child.off('message', on);
        resolve();
      }
    };
    child.on('message', on);
  });
  const started = reply('profiling');
  child.send({ profile: 'start' });
  await started;
  const t0 = ticks(child.pid!);
  const r = await load.run(s, PROFILE_MS, false);
  const cpuUs = (ticks(child.pid!) - t0) * TICK_MS * 1000;
  const stopped = reply('profiled');
  child.send({ profile: 'stop', file });
  await stopped;
  return { file, requests: r.requests, cpuMsPerReq: round(cpuUs / 1000 / Math.max(1, r.requests), 3), summary: summarize(file, r.requests, cpuUs) };
}

const fmt = (label: string, r: ReturnType<Arm['result']>): string =>
  `  ${label.padEnd(6)} ${String(r.rps).padStart(6)} req/s  p50 ${String(r.p50ms).padStart(6)} ms  p99 ${String(r.p99ms).padStart(6)} ms  ` +
  `CPU ms/req: server ${r.serverCpuMsPerReq.toFixed(3)}, db ${r.dbCpuMsPerReq.toFixed(3)}, load ${r.loadCpuMsPerReq.toFixed(3)}  ` +
  `${r.responseBytes} B/resp  (${r.requests} requests, ${r.errors} errors${r.firstError ? `: ${r.firstError.slice(0, 200)}` : ''}; ` +
  `other processes ${r.foreignCpuPct} % of the machine, steal ${r.stealPct} %)`;

async function main(): Promise<void> {
  if (process.env.BENCH_WAIT_QUIET_S) {
    const s = Number(process.env.BENCH_WAIT_QUIET_S);
    console.log(`waiting for the load average to stay below 1.5 for ${s} s (at most ${process.env.BENCH_WAIT_MAX_S ?? 1800} s)…`);
    if (!(await waitQuiet(s, Number(process.env.BENCH_WAIT_MAX_S ?? 1800)))) console.log('the machine did not get quiet: running anyway');
  }
  const loadBefore = loadavg().map((x) => round(x));
  const startedAt = new Date().toISOString();
  const logger = pino({ level: 'warn' });
  const { db, url: dbUrl, cleanup } = await scratchDatabase(logger, 'mcp');
  const server = await startServiceProcess({
    env: { DATABASE_URL: dbUrl, LOG_LEVEL, MCP_RATE_LIMIT_PER_MINUTE: '0' },
    // BENCH_SERVER: another build's dist-bench/bench/service-server.js as "ours" (the code before a change), measured
    // against the same bare servers by this build's harness.
    serverFile: process.env.BENCH_SERVER,
    onLine: (line, stream) => {
      if (stream === 'stderr') console.error(line);
    },
  });
  const load = new Load();
  let bare: { url: string; child: ChildProcess } | null = null;
  try {
    const seeded = await seed(db.dataSource, server.url);
    const ourUrl = `${server.url}/api/mcp`;
    const ourAuth = (preset: string) => ({ authorization: `Bearer ${seeded.keys[preset]}` });
    // The catalogue the bare server serves: the product's own tools/list answer for each preset.
    const catalogues: Record<string, unknown[]> = {};
    for (const preset of PRESETS) {
      const { result } = await once(shape('2025-11-25', ourUrl, ourAuth(preset), 'tools/list', {}));
      catalogues[preset] = result.tools as unknown[];
    }
    bare = await startBare(catalogues, dbUrl);
    const bareUrl = (preset: string) => `${bare!.url}/${preset}`;
    const callArgs: Record<string, unknown> =
      CALL_TOOL === 'svc_get_task' ? { taskUuid: seeded.taskUuid } : CALL_TOOL === 'svc_get_project' ? { projectUuid: seeded.projectUuid } : JSON.parse(process.env.BENCH_TOOL_ARGS ?? '{}');

    interface Scenario {
      id: string;
      era: Era;
      label: string;
      kind: 'list' | 'call' | 'write';
      /** tools/list: which of BENCH_LIST_RUNS. */
      run?: number;
      ours: Shape;
      /** The baselines: `bare` (echo, or the bare catalogue for tools/list) and `same` (the same-work tool). */
      baselines: Partial<Record<'bare' | 'same', Shape>>;
    }
    const scenarios: Scenario[] = [];
    const writeArgs = { taskUuid: TASK_MARKER, title: `Renamed ${COUNTER}` };
    const vary = { counter: COUNTER, perClient: { marker: TASK_MARKER, values: seeded.writeTasks } };
    for (const era of ERAS) {
      if (SCENARIOS.includes('list')) {
        for (const preset of PRESETS) {
          for (let run = 1; run <= LIST_RUNS; run++) {
            scenarios.push({
              id: `${era} tools/list ${preset}${LIST_RUNS > 1 ? ` run ${run}` : ''}`,
              era,
              kind: 'list',
              run,
              label: `tools/list ${preset} (${catalogues[preset].length} tools; bare ${catalogues[preset].length} + echo)${LIST_RUNS > 1 ? `, run ${run} of ${LIST_RUNS}` : ''}`,
              ours: shape(era, ourUrl, ourAuth(preset), 'tools/list', {}),
              baselines: { bare: shape(era, bareUrl(preset), {}, 'tools/list', {}) },
            });
          }
        }
      }
      if (SCENARIOS.includes('call')) {
        scenarios.push({
          id: `${era} tools/call`,
          era,
          kind: 'call',
          label: `tools/call ours ${CALL_TOOL} (${PRESETS[0]} key) vs bare echo and bare same-work ${SAME_WORK_TOOLS.read}`,
          ours: shape(era, ourUrl, ourAuth(PRESETS[0]), 'tools/call', { name: CALL_TOOL, arguments: callArgs }),
          baselines: {
            bare: shape(era, bareUrl(PRESETS[0]), {}, 'tools/call', { name: ECHO_TOOL.name, arguments: { text: 'hello from the bench' } }),
            ...(CALL_TOOL === 'svc_get_task' ? { same: shape(era, bareUrl(PRESETS[0]), ourAuth(PRESETS[0]), 'tools/call', { name: SAME_WORK_TOOLS.read, arguments: callArgs }) } : {}),
          },
        });
      }
      if (SCENARIOS.includes('write')) {
        scenarios.push({
          id: `${era} tools/call write`,
          era,
          kind: 'write',
          label: `tools/call ours svc_update_task (a new title each call, ${CLIENTS} tasks) vs bare same-work ${SAME_WORK_TOOLS.write}`,
          ours: { ...shape(era, ourUrl, ourAuth(PRESETS[0]), 'tools/call', { name: 'svc_update_task', arguments: writeArgs }), vary },
          baselines: { same: { ...shape(era, bareUrl(PRESETS[0]), ourAuth(PRESETS[0]), 'tools/call', { name: SAME_WORK_TOOLS.write, arguments: writeArgs }), vary } },
        });
      }
    }
    // Every request shape answers once, correctly, before anything is measured; both lists match but for echo; the
    // same-work read answers what ours answers (its text is compared; a difference is reported, not fatal).
    for (const sc of scenarios) {
      const o = await once(sc.ours);
      for (const [name, b] of Object.entries(sc.baselines)) {
        const answer = await once(b);
        if (sc.kind === 'list') {
          const [on, bn] = [(o.result.tools as unknown[]).length, (answer.result.tools as unknown[]).length];
          if (bn !== on + 1) throw new Error(`${sc.id}: ours lists ${on} tools, bare ${bn} (expected ${on} + echo)`);
        }
        if (sc.kind === 'call' && name === 'same') {
          const text = (r: { result: Record<string, unknown> }) => (r.result.content as Array<{ text: string }>)[0].text;
          const same = text(o) === text(answer) && JSON.stringify(o.result.structuredContent) === JSON.stringify(answer.result.structuredContent);
          console.log(`${sc.id}: the same-work ${SAME_WORK_TOOLS.read} answers ${same ? 'the same bytes as ours' : `DIFFERENTLY from ours:\n  ours ${text(o)}\n  bare ${text(answer)}`}`);
        }
      }
    }

    console.log(
      `MCP benchmark ${startedAt}: ${CLIENTS} keep-alive clients; per scenario and arm ${WARMUP_MS / 1000} s warm-up, then ${SLICES} × ${SLICE_MS / 1000} s slices alternating the arms; ` +
        `node ${process.version}, ${cpus().length} CPUs, load average before ${loadBefore.join(' ')}; our LOG_LEVEL=${LOG_LEVEL}, MCP_RATE_LIMIT_PER_MINUTE=0; DB ${process.env.DATABASE_URL ? 'scratch database on DATABASE_URL' : 'embedded PostgreSQL'}`,
    );
    if (loadBefore[0] > 1.5) console.log(`WARNING: load average ${loadBefore[0]} > 1.5 before the run: the machine is busy, these numbers are not valid results`);
    console.log(`ours: POST /api/mcp, pid ${server.child.pid}; bare: v2 SDK on node:http (echo, and same-work tools on pg), pid ${bare.child.pid}`);

    type ArmResult = ReturnType<Arm['result']>;
    const ratiosOf = (o: ArmResult, b: ArmResult) => ({ rps: round(o.rps / b.rps), p50: round(o.p50ms / b.p50ms), p99: round(o.p99ms / b.p99ms), serverCpu: round(o.serverCpuMsPerReq / b.serverCpuMsPerReq) });
    const results: Array<{
      id: string;
      era: Era;
      kind: string;
      run?: number;
      label: string;
      ours: ArmResult;
      bare?: ArmResult;
      same?: ArmResult;
      ratios: Record<string, number>;
      sameRatios?: Record<string, number>;
      targets: Record<string, boolean>;
    }> = [];
    const echoOf = new Map<Era, ArmResult>();
    for (const sc of scenarios) {
      const arms: Arm[] = [new Arm('ours', server.child.pid!, sc.ours)];
      for (const [name, b] of Object.entries(sc.baselines)) arms.push(new Arm(name as ArmName, bare.child.pid!, b));
      for (const a of arms) await load.run(a.shape, WARMUP_MS, false);
      for (let i = 0; i < SLICES; i++) {
        const order = i % 2 === 0 ? arms : [...arms].reverse();
        for (const a of order) {
          const pids = await dbBackends(db.dataSource);
          const sum = (ps: number[]) => ps.reduce((t, p) => t + ticks(p), 0);
          // Everything of the benchmark's own: both servers, the load process, this process, the database backends.
          const own = [server.child.pid!, bare.child.pid!, load.child.pid!, process.pid];
          const [s0, o0, m0] = [ticks(a.pid), sum(own), machineTicks()];
          const db0 = pids.map(ticks);
          const r = await load.run(a.shape, SLICE_MS, true);
          const [s1, o1, m1] = [ticks(a.pid), sum(own), machineTicks()];
          // Per backend, never negative: a pooled connection that closed during the slice reads 0 at its end.
          const dbTicks = pids.reduce((t, p, k) => t + Math.max(0, ticks(p) - db0[k]), 0);
          a.add(r, s1 - s0, a.name === 'bare' ? 0 : dbTicks);
          a.machineAll += m1.all - m0.all;
          a.steal += m1.steal - m0.steal;
          a.foreignBusy += Math.max(0, m1.busy - m0.busy - (o1 - o0) - dbTicks);
        }
      }
      const o = arms[0].result();
      const byName = Object.fromEntries(arms.slice(1).map((a) => [a.name, a.result()])) as Partial<Record<ArmName, ArmResult>>;
      const b = byName.bare ?? (sc.kind === 'write' ? echoOf.get(sc.era) : undefined);
      if (sc.kind === 'call' && byName.bare) echoOf.set(sc.era, byName.bare);
      const ratios: Record<string, number> = b ? ratiosOf(o, b) : {};
      const sameRatios = byName.same ? ratiosOf(o, byName.same) : undefined;
      const errors = arms.reduce((n, a) => n + a.errors, 0);
      const targets: Record<string, boolean> =
        sc.kind === 'list'
          ? { rpsAtLeast1_0: ratios.rps >= 1.0, noErrors: errors === 0 }
          : sc.kind === 'call'
            ? { ...(sameRatios ? { sameWorkRpsAtLeast0_8: sameRatios.rps >= 0.8, sameWorkP99AtMost1_3: sameRatios.p99 <= 1.3 } : {}), noErrors: errors === 0 }
            : { ...(sameRatios ? { sameWorkRpsAtLeast0_7: sameRatios.rps >= 0.7 } : {}), noErrors: errors === 0 };
      results.push({ id: sc.id, era: sc.era, kind: sc.kind, run: sc.run, label: sc.label, ours: o, bare: byName.bare, same: byName.same, ratios, sameRatios, targets });
      console.log(`${sc.era} ${sc.label}`);
      console.log(fmt('ours', o));
      if (byName.bare) console.log(fmt(sc.kind === 'list' ? 'bare' : 'echo', byName.bare));
      if (byName.same) console.log(fmt('same', byName.same));
      const met = Object.entries(targets).map(([k, v]) => `${k} ${v ? 'met' : 'MISSED'}`).join(', ');
      if (b) console.log(`  ours/${sc.kind === 'list' ? 'bare' : 'echo'}: req/s ×${ratios.rps}, p50 ×${ratios.p50}, p99 ×${ratios.p99}, server CPU ×${ratios.serverCpu}`);
      if (sameRatios) console.log(`  ours/same-work: req/s ×${sameRatios.rps}, p50 ×${sameRatios.p50}, p99 ×${sameRatios.p99}, server CPU ×${sameRatios.serverCpu}`);
      console.log(`  ${met}`);
    }

    // The issue's goals, one line each (ok / MISSED; "not measured" when the run did not include what they need).
    const goal = (label: string, ok: boolean | null, detail: string) => console.log(`GOAL ${ok === null ? 'not measured' : ok ? 'ok' : 'MISSED'}  ${label}: ${detail}`);
    for (const era of ERAS) {
      const read = results.find((r) => r.era === era && r.kind === 'call' && r.sameRatios);
      goal(`${era} read tool req/s ≥ 0.8× same-work`, read ? read.sameRatios!.rps >= 0.8 : null, read ? `×${read.sameRatios!.rps}` : 'no same-work read scenario');
      goal(`${era} read tool p99 ≤ 1.3× same-work`, read ? read.sameRatios!.p99 <= 1.3 : null, read ? `×${read.sameRatios!.p99}` : 'no same-work read scenario');
      const write = results.find((r) => r.era === era && r.kind === 'write' && r.sameRatios);
      goal(`${era} write tool req/s ≥ 0.7× same-work`, write ? write.sameRatios!.rps >= 0.7 : null, write ? `×${write.sameRatios!.rps}` : 'no write scenario');
      const lists = results.filter((r) => r.era === era && r.kind === 'list' && r.id.includes(` ${PRESETS[0]}`));
      const rps = lists.map((r) => r.ratios.rps);
      goal(
        `${era} tools/list ≥ 1.0× in each of 5 consecutive runs`,
        lists.length === 0 ? null : lists.length < 5 ? (rps.every((x) => x >= 1.0) ? null : false) : rps.every((x) => x >= 1.0),
        lists.length === 0 ? 'no tools/list scenario' : `${rps.map((x) => `×${x}`).join(', ')}${lists.length < 5 ? ` (only ${lists.length} run${lists.length > 1 ? 's' : ''}: BENCH_LIST_RUNS=5 for the goal)` : ''}`,
      );
    }

    const profiles: Array<{ id: string; arm: ArmName; file: string; requests: number; cpuMsPerReq: number; summary: ProfileSummary }> = [];
    if (PROFILE) {
      const dir = process.env.BENCH_PROFILE_DIR ?? mkdtempSync(join(tmpdir(), 'svc-bench-mcp-prof-'));
      mkdirSync(dir, { recursive: true });
      // One profile per scenario (the first of repeated tools/list runs), each arm.
      for (const sc of scenarios.filter((x) => (x.run ?? 1) === 1)) {
        const arms: Array<[ArmName, ChildProcess, Shape]> = [['ours', server.child, sc.ours]];
        for (const [name, shp] of Object.entries(sc.baselines)) arms.push([name as ArmName, bare.child, shp]);
        for (const [arm, child, s] of arms) {
          const file = join(dir, `${arm}-${sc.id.replace(/[^A-Za-z0-9_-]+/g, '_')}.cpuprofile`);
          const p = await profileArm(child, load, s, file);
          profiles.push({ id: sc.id, arm, ...p });
          console.log(formatSummary(`${arm} ${sc.id} (${file})`, p.summary, p.requests));
        }
      }
    }
    const loadAfter = loadavg().map((x) => round(x));
    console.log(`load average after ${loadAfter.join(' ')}`);
    console.log(
      JSON.stringify({
        startedAt,
        node: process.version,
        cpus: cpus().length,
        clients: CLIENTS,
        slices: SLICES,
        sliceS: SLICE_MS / 1000,
        warmupS: WARMUP_MS / 1000,
        logLevel: LOG_LEVEL,
        callTool: CALL_TOOL,
        loadAverage: { before: loadBefore, after: loadAfter },
        results,
        profiles: profiles.map((p) => ({ id: p.id, arm: p.arm, file: p.file, requests: p.requests, cpuMsPerReq: p.cpuMsPerReq, areas: p.summary.areas })),
      }),
    );
  } finally {
    load.kill();
    bare?.child.kill();
    await server.stop();
    await cleanup();
  }
  process.exit(0);
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
