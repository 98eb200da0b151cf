/**
 * `npm run bench:mcp` — our tool endpoint against a bare low-level MCP SDK server with one trivial tool, same load,
 * one run. A separate load process (fork) drives C concurrent keep-alive clients for D seconds per phase with plain
 * JSON-RPC POSTs: first `tools/list` (ours with an admin_agent key: the full catalogue), then one tool call (ours:
 * `svc_get_task` on a seeded task; bare: the trivial tool). It prints req/s, p50 and p99 of each and the ratios
 * ours/bare; the last line is one JSON object with every figure.
 *
 * Env: BENCH_CLIENTS (16), BENCH_DURATION_S (20), BENCH_WARMUP_S (2), BENCH_BARE (single | sdk | both; default both),
 * BENCH_LOG_LEVEL (warn), DATABASE_URL (else an embedded PostgreSQL in a temporary DATA_DIR).
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 16);
const DURATION_MS = Number(process.env.BENCH_DURATION_S ?? 20) * 1000;
const WARMUP_MS = Number(process.env.BENCH_WARMUP_S ?? 2) * 1000;
const BARE_MODES: BareMode[] = process.env.BENCH_BARE === 'single' || process.env.BENCH_BARE === 'sdk' ? [process.env.BENCH_BARE] : ['single', 'sdk'];
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'warn';
const here = fileURLToPath(new URL('.', import.meta.url));
const round = (x: number, d = 2): number => Math.round(x * 10 ** d) / 10 ** d;

const BARE_DESCRIPTION: Record<BareMode, string> = {
  single: 'bare SDK Server (1 trivial tool) per request on node:http, same single-request JSON transport and shared validator as ours',
  sdk: 'bare SDK Server (1 trivial tool) per request on node:http, SDK defaults: StreamableHTTPServerTransport (stateless, enableJsonResponse)',
};

type Phase = LoadResult & { serverCpuUsPerReq: number };

/** The separate load process, driven over IPC. */
class Load {
  private readonly child = fork(join(here, 'mcp-load.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });

  /** One phase; `serverCpuUsPerReq` is this process's CPU (where both servers run) per measured request. */
  run(url: string, headers: Record<string, string>, body: unknown): Promise<Phase> {
    const msg: RunMsg = { url, headers, body: JSON.stringify(body), clients: CLIENTS, durationMs: DURATION_MS, warmupMs: WARMUP_MS, errorMarker: ['"error":', '"isError":true'] };
    let cpu = process.cpuUsage();
    // The warm-up is not counted: CPU is sampled again when it ends.
    const warm = setTimeout(() => (cpu = process.cpuUsage()), WARMUP_MS);
    return new Promise((resolve) => {
      this.child.once('message', (m: { result: LoadResult }) => {
        clearTimeout(warm);
        const used = process.cpuUsage(cpu);
        resolve({ ...m.result, serverCpuUsPerReq: Math.round((used.user + used.system) / Math.max(1, m.result.requests)) });
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
  `${label.padEnd(44)} ${String(r.rps).padStart(9)} req/s   p50 ${String(r.p50ms).padStart(7)} ms   p99 ${String(r.p99ms).padStart(7)} ms   server CPU ${String(r.serverCpuUsPerReq).padStart(5)} µs/req   (${r.requests} requests, ${r.errors} errors)`;

async function main(): Promise<void> {
  const logger = pino({ level: LOG_LEVEL });
  const dataDir = process.env.DATABASE_URL ? null : mkdtempSync(join(tmpdir(), 'svc-bench-mcp-'));
  const config = loadConfig({ PORT: '0', LOG_LEVEL, ...(dataDir ? { DATA_DIR: dataDir } : { DATABASE_URL: process.env.DATABASE_URL! }) });
  const database = await openDatabase(config, logger);
  const svc = await startService(config, logger, { database });
  const { key, taskUuid } = await seed(svc);
  const catalogue = svc.app.get(ToolRegistry).names();
  // svc_get_task belongs to the tasks module; until it is registered, a comparable single-record read stands in.
  const callTool = process.env.BENCH_TOOL ?? (catalogue.includes('svc_get_task') ? 'svc_get_task' : 'svc_get_document');
  const callArgs = callTool === 'svc_get_task' ? { taskUuid } : await standInArgs(svc, key);
  const load = new Load();
  const ours = { url: `${svc.url}/api/mcp`, headers: { authorization: `Bearer ${key}` } };
  const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

  console.log(`MCP benchmark: ${CLIENTS} concurrent keep-alive clients, ${DURATION_MS / 1000} s per phase after ${WARMUP_MS / 1000} s warm-up, node ${process.version}, LOG_LEVEL=${LOG_LEVEL}`);
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
    console.log(`ours/bare(${mode}): tools/list req/s ×${r.toolsListRps} (target ≥ 0.7), p99 ${oursList.p99ms} ms (target ≤ 20); ${callTool}/${TRIVIAL_TOOL} req/s ×${r.toolsCallRps} (target ≥ 0.5)`);
  }
  console.log(
    JSON.stringify({
      node: process.version,
      clients: CLIENTS,
      durationS: DURATION_MS / 1000,
      warmupS: WARMUP_MS / 1000,
      logLevel: LOG_LEVEL,
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
