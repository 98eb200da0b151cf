/**
 * `npm run bench:mcp` — our tool endpoint against a bare low-level MCP SDK server with one trivial tool, same load,
 * one run. A separate load process (fork) drives C concurrent keep-alive clients for D seconds per phase with plain
 * JSON-RPC POSTs: first `tools/list` (ours with an admin_agent key: the full catalogue), then one tool call (ours:
 * `svc_get_task` on a seeded task; bare: the trivial tool). It prints req/s, p50, p99 and the CPU per request of the
 * server process, the load process and PostgreSQL (all share the machine), and the ratios ours/bare — `bare/sdk`, the
 * SDK's documented stateless transport, is the baseline; the last line is one JSON object with every figure.
 *
 * Env: BENCH_CLIENTS (16), BENCH_DURATION_S (20), BENCH_WARMUP_S (2), BENCH_BARE (single | sdk | both; default both),
 * BENCH_LOG_LEVEL (warn), DATABASE_URL (else an embedded PostgreSQL in a temporary DATA_DIR).
 */
import { fork } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { loadConfig } from '../src/config/config.js';
import { openDatabase, startService, type RunningService } from '../src/bootstrap.js';
import { USER_PERMISSIONS, type Actor } from '../src/shared/auth/actor.js';
import { AgentService, IdentityAdminService } from '../src/modules/identity/index.js';
import { ProjectService } from '../src/modules/projects/index.js';
import { TaskService } from '../src/modules/tasks/index.js';
import { ToolRegistry } from '../src/modules/tools/index.js';
import { startBareMcpServer, TRIVIAL_TOOL, type BareMode } from './bare-mcp-server.js';
import type { LoadResult, RunMsg } from './mcp-load.js';
import { round } from './lib/stats.js';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 16);
const DURATION_MS = Number(process.env.BENCH_DURATION_S ?? 20) * 1000;
const WARMUP_MS = Number(process.env.BENCH_WARMUP_S ?? 2) * 1000;
const BARE_MODES: BareMode[] = process.env.BENCH_BARE === 'single' || process.env.BENCH_BARE === 'sdk' ? [process.env.BENCH_BARE] : ['single', 'sdk'];
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'warn';
const here = fileURLToPath(new URL('.', import.meta.url));

const BARE_DESCRIPTION: Record<BareMode, string> = {
  single: 'bare SDK Server (1 trivial tool) per request on node:http, same single-request JSON transport and shared validator as ours',
  sdk: 'bare SDK Server (1 trivial tool) per request on node:http, SDK defaults: StreamableHTTPServerTransport (stateless, enableJsonResponse)',
};

type Phase = LoadResult & { serverCpuUsPerReq: number; dbCpuUsPerReq: number | null };

/** CPU ticks per PostgreSQL server process (postmaster and its children). */
type DbCpu = Map<string, number>;

/**
 * Samples the CPU of the PostgreSQL server processes from /proc: only when the database runs on this machine and
 * its data directory is readable (the embedded one); else every sample is null. `dbCpuUs` turns two samples into
 * µs, counting processes started in between (autovacuum workers) and dropping those that exited.
 */
async function dbCpuSampler(svc: RunningService): Promise<() => DbCpu | null> {
  try {
    const [{ setting }]: Array<{ setting: string }> = await svc.database.dataSource.query(`SELECT setting FROM pg_settings WHERE name = 'data_directory'`);
    const postmaster = readFileSync(join(setting, 'postmaster.pid'), 'utf8').split('\n')[0].trim();
    const stat = (pid: string): string[] | null => {
      try {
        return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      } catch {
        return null;
      }
    };
    if (!stat(postmaster)) return () => null;
    return () => {
      const ticks: DbCpu = new Map();
      for (const pid of readdirSync('/proc')) {
        if (!/^\d+$/.test(pid)) continue;
        const f = stat(pid);
        // Fields after "(comm) ": state, ppid, …, utime (12th), stime (13th).
        if (f && (pid === postmaster || f[1] === postmaster)) ticks.set(pid, Number(f[11]) + Number(f[12]));
      }
      return ticks;
    };
  } catch {
    return () => null;
  }
}

function dbCpuUs(before: DbCpu | null, after: DbCpu | null): number | null {
  if (!before || !after) return null;
  let ticks = 0;
  for (const [pid, t] of after) ticks += t - (before.get(pid) ?? 0);
  return ticks * (1e6 / 100); // USER_HZ
}

/** The separate load process, driven over IPC. */
class Load {
  private readonly child = fork(join(here, 'mcp-load.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });

  constructor(private readonly dbCpu: () => DbCpu | null) {}

  /**
   * One phase; `serverCpuUsPerReq` is this process's CPU (where both servers run) per measured request,
   * `dbCpuUsPerReq` PostgreSQL's (null when not measurable), `loadCpuUsPerReq` the load process's.
   */
  run(url: string, headers: Record<string, string>, body: unknown): Promise<Phase> {
    const msg: RunMsg = { url, headers, body: JSON.stringify(body), clients: CLIENTS, durationMs: DURATION_MS, warmupMs: WARMUP_MS, errorMarker: ['"error":', '"isError":true'] };
    let cpu = process.cpuUsage();
    let db = this.dbCpu();
    // The warm-up is not counted: CPU is sampled again when it ends.
    const warm = setTimeout(() => {
      cpu = process.cpuUsage();
      db = this.dbCpu();
    }, WARMUP_MS);
    return new Promise((resolve) => {
      this.child.once('message', (m: { result: LoadResult }) => {
        clearTimeout(warm);
        const used = process.cpuUsage(cpu);
        const dbUs = dbCpuUs(db, this.dbCpu());
        const perReq = (us: number) => Math.round(us / Math.max(1, m.result.requests));
        resolve({ ...m.result, serverCpuUsPerReq: perReq(used.user + used.system), dbCpuUsPerReq: dbUs === null ? null : perReq(dbUs) });
      });
      this.child.send({ run: msg });
    });
  }

  kill(): void {
    this.child.kill();
  }
}

/** A company, an admin_agent with a key, a project and one task with a criterion. */
async function seed(svc: RunningService): Promise<{ key: string; taskUuid: string }> {
  const admin = svc.app.get(IdentityAdminService);
  const company = await admin.createCompany('Bench');
  const user = await admin.createUser({ companyUuid: company.uuid, email: `bench-${company.uuid}@example.test`, name: 'Bench', password: 'bench-password' });
  const agents = svc.app.get(AgentService);
  const scope = { companyUuid: company.uuid, userUuid: user.uuid };
  const agent = await agents.create(scope, user.uuid, { name: 'Bench admin', preset: 'admin_agent' });
  const { key } = await agents.createKey(scope, agent.uuid, { name: 'bench' });
  const actor: Actor = { type: 'user', uuid: user.uuid, companyUuid: company.uuid, name: 'Bench', ownerUuid: null, permissions: USER_PERMISSIONS };
  const project = await svc.app.get(ProjectService).create(actor, { name: 'Bench project' });
  const { tasks } = await svc.app.get(TaskService).createTasks(actor, {
    projectUuid: project.uuid,
    tasks: [{ title: 'Benchmark task', description: 'Read over and over', acceptanceCriteriaItems: [{ description: 'It is fast' }] }],
  });
  return { key, taskUuid: tasks[0].uuid };
}

const line = (label: string, r: Phase): string =>
  `${label.padEnd(30)} ${String(r.rps).padStart(8)} req/s  p50 ${String(r.p50ms).padStart(6)} ms  p99 ${String(r.p99ms).padStart(6)} ms  ` +
  `CPU µs/req: server ${String(r.serverCpuUsPerReq).padStart(4)}, load ${String(r.loadCpuUsPerReq).padStart(4)}, db ${String(r.dbCpuUsPerReq ?? '-').padStart(4)}  ` +
  `(${r.requests} requests, ${r.errors} errors)`;

async function main(): Promise<void> {
  const logger = pino({ level: LOG_LEVEL });
  const dataDir = process.env.DATABASE_URL ? null : mkdtempSync(join(tmpdir(), 'svc-bench-mcp-'));
  // One key drives the whole load: the per-key rate limit (MCP_RATE_LIMIT_PER_MINUTE) is off for the measurement.
  const config = loadConfig({ PORT: '0', LOG_LEVEL, MCP_RATE_LIMIT_PER_MINUTE: '0', ...(dataDir ? { DATA_DIR: dataDir } : { DATABASE_URL: process.env.DATABASE_URL! }) });
  const database = await openDatabase(config, logger);
  const svc = await startService(config, logger, { database });
  const { key, taskUuid } = await seed(svc);
  const catalogue = svc.app.get(ToolRegistry).names();
  // svc_get_task belongs to the tasks module; until it is registered, a comparable single-record read stands in.
  const callTool = process.env.BENCH_TOOL ?? (catalogue.includes('svc_get_task') ? 'svc_get_task' : 'svc_get_document');
  const callArgs = callTool === 'svc_get_task' ? { taskUuid } : await standInArgs(svc, key);
  const load = new Load(await dbCpuSampler(svc));
  const ours = { url: `${svc.url}/api/mcp`, headers: { authorization: `Bearer ${key}` } };
  const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

  const loadBefore = loadavg().map((x) => round(x));
  console.log(
    `MCP benchmark: ${CLIENTS} concurrent keep-alive clients, ${DURATION_MS / 1000} s per phase after ${WARMUP_MS / 1000} s warm-up, node ${process.version}, LOG_LEVEL=${LOG_LEVEL}, load average ${loadBefore.join(' ')}`,
  );
  console.log(`ours: POST /api/mcp, admin_agent key, ${catalogue.length} tools listed; tool call ${callTool}`);
  const oursList = await load.run(ours.url, ours.headers, list);
  console.log(line('ours  tools/list', oursList));
  const oursCall = await load.run(ours.url, ours.headers, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: callTool, arguments: callArgs } });
  console.log(line(`ours  tools/call ${callTool}`, oursCall));

  const bare: Record<string, { description: string; toolsList: Phase; toolsCall: Phase }> = {};
  for (const mode of BARE_MODES) {
    const server = await startBareMcpServer(mode);
    console.log(`bare/${mode}: ${BARE_DESCRIPTION[mode]}`);
    const toolsList = await load.run(server.url, {}, list);
    console.log(line(`bare/${mode} tools/list`, toolsList));
    const toolsCall = await load.run(server.url, {}, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: TRIVIAL_TOOL, arguments: {} } });
    console.log(line(`bare/${mode} tools/call ${TRIVIAL_TOOL}`, toolsCall));
    await server.close();
    bare[mode] = { description: BARE_DESCRIPTION[mode], toolsList, toolsCall };
  }
  load.kill();
  await svc.stop();
  await database.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });

  const ratios: Record<string, unknown> = {};
  for (const [mode, b] of Object.entries(bare)) {
    const r = {
      toolsListRps: round(oursList.rps / b.toolsList.rps),
      toolsListP99: round(oursList.p99ms / b.toolsList.p99ms),
      toolsCallRps: round(oursCall.rps / b.toolsCall.rps),
      toolsCallP99: round(oursCall.p99ms / b.toolsCall.p99ms),
      toolsListCpu: round(oursList.serverCpuUsPerReq / b.toolsList.serverCpuUsPerReq),
      toolsCallCpu: round(oursCall.serverCpuUsPerReq / b.toolsCall.serverCpuUsPerReq),
    };
    const targets = {
      toolsListRpsAtLeast0_7: r.toolsListRps >= 0.7,
      toolsListP99AtMost20ms: oursList.p99ms <= 20,
      toolsCallRpsAtLeast0_5: r.toolsCallRps >= 0.5,
      noErrors: oursList.errors + oursCall.errors === 0,
    };
    ratios[mode] = { ...r, targets };
    console.log(`ours/bare(${mode})${mode === 'sdk' ? ' [the issue\'s baseline]' : ''}: tools/list req/s ×${r.toolsListRps} (target ≥ 0.7), p99 ${oursList.p99ms} ms (target ≤ 20); ${callTool}/${TRIVIAL_TOOL} req/s ×${r.toolsCallRps} (target ≥ 0.5)`);
  }
  console.log(
    JSON.stringify({
      node: process.version,
      clients: CLIENTS,
      durationS: DURATION_MS / 1000,
      warmupS: WARMUP_MS / 1000,
      logLevel: LOG_LEVEL,
      loadAverage: { before: loadBefore, after: loadavg().map((x) => round(x)) },
      ours: { toolsListed: catalogue.length, callTool, toolsList: oursList, toolsCall: oursCall },
      bare,
      ratios,
    }),
  );
  process.exit(0);
}

/** Arguments for the stand-in read: a document created through the tool endpoint itself. */
async function standInArgs(svc: RunningService, key: string): Promise<Record<string, unknown>> {
  const rpc = async (method: string, params: unknown) => {
    const res = await fetch(`${svc.url}/api/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return JSON.parse(((await res.json()) as { result: { content: Array<{ text: string }> } }).result.content[0].text);
  };
  const projects = await svc.database.dataSource.query(`SELECT uuid FROM project LIMIT 1`);
  const doc = await rpc('tools/call', { name: 'svc_pm_create_document', arguments: { projectUuid: projects[0].uuid, type: 'spec', title: 'Bench', content: 'Body' } });
  return { documentUuid: doc.uuid };
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
