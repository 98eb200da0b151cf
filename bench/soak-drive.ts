/**
 * Load driver for bench/soak.ts, in its own process: the agents and the measured mutations.
 *
 * - Agents: each with its own API key, task and worker session, calls a fixed cycle of MCP tools (plain JSON-RPC
 *   POSTs on its own keep-alive connection), pausing `agentPauseMs` between calls: tools/list, svc_checkin,
 *   svc_get_my_assignments, svc_get_task, svc_list_tasks, svc_session_heartbeat, svc_claim_task, svc_get_task,
 *   svc_add_comment, svc_get_comments, svc_release_task, svc_get_notifications, svc_list_projects.
 * - Mutations: `mutationsPerS` per second, open loop (one started every 1/rate s whatever the previous ones do), each
 *   producing exactly one change event with a key no other write produces: ideas over REST (session cookies of the
 *   users in turn: create, edit, delete) and documents over MCP (an admin_agent key: svc_pm_create_document,
 *   svc_pm_update_document, svc_admin_delete_document). On each 2xx response it sends {t0: {key, t0Us}} (the response's
 *   arrival, process.hrtime µs; and `sentUs`, when the request left) for the stream holder.
 *
 * IPC: {start: DriveConfig} → {ready} once the sessions exist, then runs; {stop: true} → stops starting calls, waits
 * for those in flight and answers {result: DriveResult}.
 */
import http from 'node:http';
import { nowUs, pct, round, sleep } from './lib/stats.js';

export interface DriveConfig {
  base: string;
  projectUuid: string;
  agents: Array<{ key: string; taskUuid: string }>;
  /** Session cookies (`svc_session=…`) used in turn for the REST mutations. */
  cookies: string[];
  adminKey: string;
  mutationsPerS: number;
  agentPauseMs: number;
  timeoutMs: number;
}

export interface Latency {
  count: number;
  p50ms: number;
  p99ms: number;
  maxMs: number;
}

export interface DriveResult {
  toolCalls: number;
  toolErrors: number;
  toolTimeouts: number;
  tools: Record<string, Latency>;
  allTools: Latency;
  mutations: number;
  mutationErrors: number;
  mutationTimeouts: number;
  /** Scheduled mutations not started because 200 were already in flight (the service fell behind). */
  mutationsSkipped: number;
  mutationsPerSAchieved: number;
  mutationKinds: Record<string, Latency>;
  allMutations: Latency;
  errorSamples: string[];
  seconds: number;
  /** This process's CPU time (µs) during the run. */
  cpuUs: number;
}

interface Reply {
  status: number;
  body: string;
  ms: number;
  /** When the request was sent and when its response had arrived (process.hrtime µs). */
  sentUs: number;
  t0Us: number;
  timedOut: boolean;
}

const MAX_IN_FLIGHT = 200;
let cfg: DriveConfig;
let stopping = false;
const errorSamples: string[] = [];
const toolMs = new Map<string, number[]>();
const mutationMs = new Map<string, number[]>();
let toolErrors = 0;
let toolTimeouts = 0;
let mutationErrors = 0;
let mutationTimeouts = 0;
let mutationsSkipped = 0;
let inFlight = 0;

function sample(text: string): void {
  if (errorSamples.length < 10) errorSamples.push(text.slice(0, 400));
}

/** Set-up calls (not measured) are not held to the client timeout. */
const SETUP_TIMEOUT_MS = 30_000;
let timeoutMs = SETUP_TIMEOUT_MS;

function request(agent: http.Agent, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Reply> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    let settled = false;
    const done = (status: number, text: string, timedOut = false): void => {
      if (settled) return;
      settled = true;
      const end = process.hrtime.bigint();
      resolve({ status, body: text, ms: Number(end - t0) / 1e6, sentUs: Number(t0 / 1000n), t0Us: Number(end / 1000n), timedOut });
    };
    const req = http.request(
      `${cfg.base}${path}`,
      { method, agent, headers: { ...headers, ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8')));
        res.on('error', (err) => done(0, String(err)));
      },
    );
    const limit = timeoutMs;
    req.setTimeout(limit, () => {
      req.destroy();
      done(0, `timeout after ${limit} ms`, true);
    });
    req.on('error', (err) => done(0, String(err)));
    req.end(payload);
  });
}

const MCP_HEADERS = { accept: 'application/json, text/event-stream' };

/** One tools/call (or tools/list); the parsed tool result, or null after counting the error. */
async function mcp(agent: http.Agent, key: string, method: 'tools/list' | 'tools/call', name: string, args: Record<string, unknown>, extra: Record<string, string> = {}): Promise<{ reply: Reply; result: Record<string, unknown> | null }> {
  const reply = await request(agent, 'POST', '/api/mcp', { ...MCP_HEADERS, ...extra, authorization: `Bearer ${key}` }, {
    jsonrpc: '2.0',
    id: 1,
    method,
    ...(method === 'tools/call' ? { params: { name, arguments: args } } : {}),
  });
  if (reply.status !== 200) return { reply, result: null };
  try {
    const msg = JSON.parse(reply.body) as { result?: { isError?: boolean; tools?: unknown[]; content?: Array<{ text: string }> }; error?: unknown };
    if (!msg.result || msg.result.isError) return { reply, result: null };
    if (method === 'tools/list') return { reply, result: msg.result.tools?.length ? { tools: msg.result.tools.length } : null };
    return { reply, result: JSON.parse(msg.result.content![0].text) as Record<string, unknown> };
  } catch {
    return { reply, result: null };
  }
}

function record(map: Map<string, number[]>, name: string, ms: number): void {
  let list = map.get(name);
  if (!list) map.set(name, (list = []));
  list.push(ms);
}

async function runAgent(index: number, a: { key: string; taskUuid: string }, sessionUuid: string): Promise<void> {
  const agent = new http.Agent({ ...KEEP_ALIVE, maxSockets: 1 });
  const task = { taskUuid: a.taskUuid };
  const project = { 'x-service-project': cfg.projectUuid };
  const steps: Array<[string, Record<string, unknown>, Record<string, string>?]> = [
    ['tools/list', {}],
    ['svc_checkin', {}],
    ['svc_get_my_assignments', {}, project],
    ['svc_get_task', task],
    ['svc_list_tasks', { projectUuid: cfg.projectUuid }],
    ['svc_session_heartbeat', { sessionUuid }],
    ['svc_claim_task', task],
    ['svc_get_task', task],
    ['svc_add_comment', { targetType: 'task', targetUuid: a.taskUuid, content: `Progress note from agent ${index}` }],
    ['svc_get_comments', { targetType: 'task', targetUuid: a.taskUuid, pageSize: 20 }],
    ['svc_release_task', task],
    ['svc_get_notifications', {}],
    ['svc_list_projects', {}],
  ];
  // Agents start at different points of the cycle (claim and release stay in order within it).
  await sleep((index * 37) % Math.max(1, cfg.agentPauseMs));
  let i = 0;
  while (!stopping) {
    const [name, args, headers] = steps[i % steps.length];
    i++;
    const { reply, result } = await mcp(agent, a.key, name === 'tools/list' ? 'tools/list' : 'tools/call', name, args, headers);
    record(toolMs, name, reply.ms);
    if (!result) {
      toolErrors++;
      if (reply.timedOut) toolTimeouts++;
      sample(`agent ${index} ${name}: ${reply.status} ${reply.body}`);
    }
    if (cfg.agentPauseMs > 0) await sleep(cfg.agentPauseMs);
  }
  agent.destroy();
}

type Step = { kind: 'idea' | 'document'; uuid: string; next: 'updated' | 'deleted' };

/**
 * Idle keep-alive sockets are dropped after 4 s: Node's agent honours the server's `Keep-Alive: timeout=5` hint only
 * when it has a timeout of its own, and reusing a socket the server is closing fails with ECONNRESET.
 */
const KEEP_ALIVE = { keepAlive: true, timeout: 4000 };
const mutationAgent = new http.Agent({ ...KEEP_ALIVE, maxSockets: 64 });
const ready: Step[] = [];
let created = 0;
let cookieTurn = 0;

/** Runs one mutation: the next step of an entity whose previous step answered, else a creation. */
async function mutate(): Promise<void> {
  const step = ready.shift();
  const cookie = { cookie: cfg.cookies[cookieTurn++ % cfg.cookies.length] };
  let reply: Reply;
  let key: string | null = null;
  let next: Step | null = null;
  const kind = step?.kind ?? (created++ % 2 === 0 ? 'idea' : 'document');
  const action = step?.next ?? 'created';
  const label = `${kind} ${action} (${kind === 'idea' ? 'REST' : 'MCP'})`;
  if (kind === 'idea') {
    if (action === 'created') reply = await request(mutationAgent, 'POST', `/api/projects/${cfg.projectUuid}/ideas`, cookie, { title: `Soak idea ${created}`, content: 'Created by the soak benchmark' });
    else if (action === 'updated') reply = await request(mutationAgent, 'PATCH', `/api/ideas/${step!.uuid}`, cookie, { title: 'Soak idea, edited' });
    else reply = await request(mutationAgent, 'DELETE', `/api/ideas/${step!.uuid}`, cookie);
    if (reply.status >= 200 && reply.status < 300) {
      const uuid = step?.uuid ?? (JSON.parse(reply.body) as { data: { uuid: string } }).data.uuid;
      key = `idea:${uuid}:${action}`;
      if (action !== 'deleted') next = { kind, uuid, next: action === 'created' ? 'updated' : 'deleted' };
    }
  } else {
    let res: { reply: Reply; result: Record<string, unknown> | null };
    if (action === 'created') res = await mcp(mutationAgent, cfg.adminKey, 'tools/call', 'svc_pm_create_document', { projectUuid: cfg.projectUuid, type: 'spec', title: `Soak document ${created}`, content: 'Version 1' });
    else if (action === 'updated') res = await mcp(mutationAgent, cfg.adminKey, 'tools/call', 'svc_pm_update_document', { documentUuid: step!.uuid, content: 'Version 2' });
    else res = await mcp(mutationAgent, cfg.adminKey, 'tools/call', 'svc_admin_delete_document', { documentUuid: step!.uuid });
    reply = res.reply;
    if (res.result) {
      const uuid = step?.uuid ?? String(res.result.uuid);
      key = `document:${uuid}:${action}`;
      if (action !== 'deleted') next = { kind, uuid, next: action === 'created' ? 'updated' : 'deleted' };
    }
  }
  record(mutationMs, label, reply.ms);
  if (key) {
    process.send!({ t0: { key, t0Us: reply.t0Us, sentUs: reply.sentUs } });
    if (next) ready.push(next);
  } else {
    mutationErrors++;
    if (reply.timedOut) mutationTimeouts++;
    sample(`mutation ${label}: ${reply.status} ${reply.body}`);
  }
}

async function runMutations(): Promise<void> {
  if (cfg.mutationsPerS <= 0) return;
  const periodUs = 1e6 / cfg.mutationsPerS;
  const start = nowUs();
  for (let i = 0; !stopping; i++) {
    const wait = (start + i * periodUs - nowUs()) / 1000;
    if (wait > 0) await sleep(wait);
    if (stopping) break;
    if (inFlight >= MAX_IN_FLIGHT) {
      mutationsSkipped++;
      continue;
    }
    inFlight++;
    void mutate()
      .catch((err: unknown) => {
        mutationErrors++;
        sample(`mutation threw: ${String(err)}`);
      })
      .finally(() => inFlight--);
  }
}

const latency = (xs: number[]): Latency => ({ count: xs.length, p50ms: round(pct(xs, 50)), p99ms: round(pct(xs, 99)), maxMs: round(xs.length ? xs.reduce((a, b) => (b > a ? b : a), 0) : NaN) });

let running: Promise<unknown> = Promise.resolve();
let startedUs = 0;
let cpuAtStart = process.cpuUsage();

async function start(c: DriveConfig): Promise<void> {
  cfg = c;
  // One worker session per agent, for svc_session_heartbeat.
  const sessions = await Promise.all(
    cfg.agents.map(async (a, i) => {
      const agent = new http.Agent({ keepAlive: false });
      const { reply, result } = await mcp(agent, a.key, 'tools/call', 'svc_create_session', { name: `soak worker ${i}` });
      if (!result) throw new Error(`svc_create_session failed: ${reply.status} ${reply.body}`);
      return String(result.uuid);
    }),
  );
  process.send!({ ready: true });
  timeoutMs = cfg.timeoutMs;
  startedUs = nowUs();
  cpuAtStart = process.cpuUsage();
  running = Promise.all([...cfg.agents.map((a, i) => runAgent(i, a, sessions[i])), runMutations()]);
}

async function stop(): Promise<DriveResult> {
  stopping = true;
  await running;
  while (inFlight > 0) await sleep(20);
  const seconds = (nowUs() - startedUs) / 1e6;
  const all = [...toolMs.values()].flat();
  const allMutations = [...mutationMs.values()].flat();
  return {
    toolCalls: all.length,
    toolErrors,
    toolTimeouts,
    tools: Object.fromEntries([...toolMs].map(([k, v]) => [k, latency(v)])),
    allTools: latency(all),
    mutations: allMutations.length,
    mutationErrors,
    mutationTimeouts,
    mutationsSkipped,
    mutationsPerSAchieved: round(allMutations.length / seconds),
    mutationKinds: Object.fromEntries([...mutationMs].map(([k, v]) => [k, latency(v)])),
    allMutations: latency(allMutations),
    errorSamples,
    seconds: round(seconds),
    cpuUs: ((u) => u.user + u.system)(process.cpuUsage(cpuAtStart)),
  };
}

process.on('message', (msg: { start?: DriveConfig; stop?: true }) => {
  if (msg.start)
    void start(msg.start).catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
  else if (msg.stop) void stop().then((result) => process.send!({ result }));
});
