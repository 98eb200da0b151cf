/**
 * `npm run bench:notifications:wait` (also the second half of `npm run bench:notifications`) — an agent's inbox by
 * polling versus long-polling (docs/notifications.md §2.0), with 1,000,000 notifications in the database: 100 agents of one
 * company × 10,000 rows each (positions 1..10,000 per agent), filled with generate_series in a scratch database.
 *
 * Two service instances in child processes share the database and a NATS server (a subject prefix of their own):
 * instance A is the producer's — a user posts one comment per second on a task, @mentioning the next agent
 * round-robin, so every notification is generated, positioned and relayed for real — and instance B is the one the
 * 100 agents talk to (`Authorization: Bearer agk_…`). B counts every statement it sends to PostgreSQL
 * (BENCH_COUNT_QUERIES, bench/service-server.ts).
 *
 * - Delta read at 1M rows: `GET /api/notifications?after=<position 9,990 of an agent>` (10 records), sequentially,
 *   after a warm-up; HTTP round trip and B's own access-log duration, p50/p99, B's queries per read; EXPLAIN
 *   (ANALYZE, BUFFERS) of the delta statement (DELTA_STATEMENT) on the filled table.
 * - Mode "poll": every agent asks `after=<its position>` once a second (each at its own random phase). Mode "wait": every
 *   agent asks with `waitSeconds=25` and asks again as soon as it has its answer. Each mode runs BENCH_WAIT_SECONDS
 *   (default 120) of production plus a short grace so the last notification is collected; reported per mode:
 *   notifications produced and delivered, B's queries (and per delivered notification), answers, and delivery
 *   latency p50/p99 = the agent's receipt time − the record's `createdAt` (one machine, one clock).
 * - Goals (printed as ok/MISSED; the exit code does not depend on them): long-poll ≥ 10× fewer queries per delivered
 *   notification, long-poll latency p99 ≤ 200 ms, delta read p99 ≤ 5 ms.
 *
 * The last line is one JSON object with all figures. Needs DATABASE_URL's server (or an embedded one) and NATS at
 * NATS_URL (default nats://127.0.0.1:4222).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import { pino } from 'pino';
import type { DataSource } from 'typeorm';
import { IdentityAdminService, PasswordHasher } from '../src/modules/identity/index.js';
import { UserRepository } from '../src/modules/identity/user.repository.js';
import { DELTA_MAX_RECORDS } from '../src/modules/notifications/domain/inbox.rules.js';
import { DELTA_STATEMENT } from '../src/modules/notifications/notification.repository.js';
import { parsePosition, recipientKey } from '../src/shared/stream-log/position.js';
import { api } from './lib/rest.js';
import { scratchDatabase } from './lib/scratch-db.js';
import { startServiceProcess, type ServiceProcess } from './lib/service-process.js';
import { pct, round, sleep } from './lib/stats.js';

const AGENTS = Number(process.env.BENCH_WAIT_AGENTS ?? 100);
const PER_AGENT = Number(process.env.BENCH_WAIT_PER_AGENT ?? 10_000);
const TOTAL = AGENTS * PER_AGENT;
const MODE_SECONDS = Number(process.env.BENCH_WAIT_SECONDS ?? 120);
/** Producer rate (notifications per second, all agents together). */
const RATE = 1;
const POLL_INTERVAL_MS = 1000;
const WAIT_SECONDS = 25;
/** After production stops, agents keep going this long so the last notification is collected (poll: ≤ 1 interval). */
const GRACE_MS = 2500;
/** B's background statements (heartbeat probes, log pruning) are measured over this idle window first. */
const IDLE_MS = 10_000;
const DELTA_ITERATIONS = Number(process.env.BENCH_WAIT_DELTA_ITERATIONS ?? 2000);
const DELTA_WARMUP = Number(process.env.BENCH_WAIT_DELTA_WARMUP ?? 1000);
/** The delta read answers this many records: `after` is this far below the agent's head. */
const DELTA_RECORDS = 10;
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const GOALS = { queryRatioMin: 10, waitLatencyP99Ms: 200, deltaP99Ms: 5 };

type Query = (sql: string, params?: unknown[]) => Promise<Array<Record<string, unknown>>>;

interface BenchAgent {
  uuid: string;
  name: string;
  key: string;
  /** The position the next delta starts after (`<epoch>-<n>`). */
  position: string;
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Date.now() when the whole body had arrived. */
  at: number;
  ms: number;
}

interface NotificationDelta {
  notifications: Array<{ uuid: string; createdAt: string }>;
  position: string;
  unreadCount: number;
}

/** One GET on a keep-alive agent; `inflight` (when given) holds the request until it ends, so it can be aborted. */
function get(agent: http.Agent, base: string, path: string, headers: Record<string, string>, inflight?: Set<http.ClientRequest>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const req = http.request(`${base}${path}`, { method: 'GET', headers, agent }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (data += c));
      res.on('error', reject);
      res.on('end', () => {
        inflight?.delete(req);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data, at: Date.now(), ms: Number(process.hrtime.bigint() - t0) / 1e6 });
      });
    });
    inflight?.add(req);
    req.on('error', (err) => {
      inflight?.delete(req);
      reject(err);
    });
    req.end();
  });
}

const bearer = (a: BenchAgent): Record<string, string> => ({ authorization: `Bearer ${a.key}` });

/**
 * 1,000,000 rows, row i (1-based) for agent (i − 1) % AGENTS at that agent's position k = ⌊(i − 1) / AGENTS⌋ + 1
 * (`position` and `arrival_position`: each agent's rows at 1..PER_AGENT, as if each had arrived in its own batch),
 * 70 % of them read; then each agent's stream head at PER_AGENT.
 */
async function fill(q: Query, companyUuid: string, project: { uuid: string; name: string }, actor: { uuid: string; name: string }, agents: readonly BenchAgent[]): Promise<void> {
  const batch = 100_000;
  for (let from = 1; from <= TOTAL; from += batch) {
    const to = Math.min(TOTAL, from + batch - 1);
    await q(
      `INSERT INTO notification (uuid, company_uuid, project_uuid, project_name, recipient_type, recipient_uuid, entity_type,
                                 entity_uuid, entity_title, action, message, actor_type, actor_uuid, actor_name,
                                 read_at, archived_at, created_at, updated_at, position, arrival_position)
       SELECT gen_random_uuid(), $1, $2, $3, 'agent', ($4::uuid[])[r + 1], 'task', gen_random_uuid(), 'Task ' || i, 'mentioned',
              $6 || ' mentioned you: "backlog item ' || k || '"', 'user', $5, $6,
              CASE WHEN k % 10 < 3 THEN NULL ELSE ts END, NULL, ts, ts, k, k
         FROM (SELECT i, (i - 1) % ${AGENTS} AS r, (i - 1) / ${AGENTS} + 1 AS k,
                      timestamptz '2025-01-01' + i * interval '1 second' AS ts
                 FROM generate_series($7::int, $8::int) AS i) AS s`,
      [companyUuid, project.uuid, project.name, agents.map((a) => a.uuid), actor.uuid, actor.name, from, to],
    );
    process.stdout.write(`  filled ${to.toLocaleString('en')} rows\n`);
  }
  // Each agent's notification stream stands at its last row's position (stream_log keeps no frames for them: a
  // delta reads the rows themselves).
  await q(
    `INSERT INTO stream_head (stream, key, position) SELECT 'n', 'agent:' || u, $2 FROM unnest($1::uuid[]) AS u
     ON CONFLICT (stream, key) DO UPDATE SET position = EXCLUDED.position`,
    [agents.map((a) => a.uuid), PER_AGENT],
  );
  for (const t of ['notification', 'notification_inbox', 'stream_head']) await q(`VACUUM ANALYZE ${t}`);
  // Flush the fill's dirty pages now rather than during the measurements.
  await q('CHECKPOINT').catch(() => undefined);
}

/** A user, a project, a task to comment on and AGENTS agents with a key each, over the REST API of `base`. */
async function seed(ds: DataSource, base: string) {
  const admin = new IdentityAdminService(new UserRepository(ds.manager), new PasswordHasher());
  const company = await admin.createCompany('Bench wait');
  const email = `bench-wait-${randomBytes(4).toString('hex')}@example.test`;
  const password = `pw-${randomBytes(12).toString('hex')}`;
  const user = await admin.createUser({ companyUuid: company.uuid, email, name: 'Bench Producer', password });
  const { res } = await api(base, 'POST', '/api/auth/login', { email, password }, {});
  const cookie = /svc_session=[^;]+/.exec(res.headers.get('set-cookie') ?? '')?.[0];
  if (!cookie) throw new Error('login set no session cookie');
  const { data: project } = await api<{ uuid: string; name: string }>(base, 'POST', '/api/projects', { name: 'Bench wait project' }, { cookie });
  const { data: created } = await api<{ tasks: Array<{ uuid: string }> }>(
    base,
    'POST',
    `/api/projects/${project.uuid}/tasks`,
    { tasks: [{ title: 'Inbox traffic', description: 'Commented on once a second, @mentioning an agent each time', acceptanceCriteriaItems: [{ description: 'Every mention arrives' }] }] },
    { cookie },
  );
  const agents: BenchAgent[] = [];
  for (let i = 0; i < AGENTS; i++) {
    const name = `Bench agent ${i}`;
    const { data: agent } = await api<{ uuid: string }>(base, 'POST', '/api/agents', { name }, { cookie });
    const { data: key } = await api<{ key: string }>(base, 'POST', `/api/agents/${agent.uuid}/keys`, { name: 'bench' }, { cookie });
    agents.push({ uuid: agent.uuid, name, key: key.key, position: '' });
  }
  return { company, user, cookie, project, taskUuid: created.tasks[0].uuid, agents };
}

/** Server-side durations (B's access log `durationMs`) of the requests whose id starts with `delta.` / `base.`. */
const deltaServerMs: number[] = [];
const baseServerMs: number[] = [];

function startInstance(name: string, env: Record<string, string>): Promise<ServiceProcess> {
  return startServiceProcess({
    env,
    onLine: (line, stream) => {
      const level = /"level":"(\w+)"/.exec(line)?.[1];
      if (stream === 'stderr' || level === 'warn' || level === 'error' || level === 'fatal') console.error(`[${name}] ${line.slice(0, 500)}`);
      const m = /"requestId":"(delta|base)\.\d+".*"durationMs":([\d.]+)/.exec(line);
      if (m) (m[1] === 'delta' ? deltaServerMs : baseServerMs).push(Number(m[2]));
    },
  });
}

/** Every agent's current position, from `X-Stream-Position` of its unread count (on `base`). */
async function refreshPositions(agent: http.Agent, base: string, agents: BenchAgent[]): Promise<void> {
  for (const a of agents) {
    const r = await get(agent, base, '/api/notifications/unread-count', bearer(a));
    const position = r.headers['x-stream-position'];
    if (r.status !== 200 || typeof position !== 'string') throw new Error(`unread-count: ${r.status} ${r.body.slice(0, 200)} (X-Stream-Position ${String(position)})`);
    a.position = position;
  }
}

interface ModeFigures {
  produced: number;
  delivered: number;
  /** Answers received (long-polls still open at the end are not counted). */
  answers: number;
  queries: number;
  queriesPerNotification: number;
  queriesPerAnswer: number;
  latencyMs: { p50: number; p99: number; max: number };
  /** X-Poll-Interval values seen (seconds). */
  pollIntervalHints: number[];
  seconds: number;
}

/**
 * One mode: the producer on A for MODE_SECONDS, the agents on B until GRACE_MS after it; B's statements counted
 * from the agents' start to their stop (outstanding long-polls are then aborted).
 */
async function runMode(mode: 'poll' | 'wait', b: ServiceProcess, a: ServiceProcess, s: Awaited<ReturnType<typeof seed>>): Promise<ModeFigures> {
  const setupAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  await refreshPositions(setupAgent, b.url, s.agents);
  setupAgent.destroy();
  const pool = new http.Agent({ keepAlive: true });
  const inflight = new Set<http.ClientRequest>();
  const seen = new Set<string>();
  const latencies: number[] = [];
  const hints = new Set<number>();
  let answers = 0;
  let stopping = false;
  let failure: unknown = null;

  const q0 = await b.queries();
  const start = Date.now();
  const agentLoop = async (agent: BenchAgent): Promise<void> => {
    // Each poller starts at a random phase of the interval, as independent agents would. (Not index × interval /
    // AGENTS: the producer mentions agents in index order once a second, so that phase would line up with it.)
    let nextAt = start + Math.random() * POLL_INTERVAL_MS;
    while (!stopping) {
      if (mode === 'poll') {
        await sleep(Math.max(0, nextAt - Date.now()));
        if (stopping) break;
        nextAt = Math.max(nextAt + POLL_INTERVAL_MS, Date.now());
      }
      const path = `/api/notifications?after=${encodeURIComponent(agent.position)}${mode === 'wait' ? `&waitSeconds=${WAIT_SECONDS}` : ''}`;
      let r: Answer;
      try {
        r = await get(pool, b.url, path, bearer(agent), inflight);
      } catch (err) {
        if (stopping) break;
        throw err;
      }
      answers++;
      if (r.status !== 200) throw new Error(`${mode} ${path}: ${r.status} ${r.body.slice(0, 300)}`);
      const hint = Number(r.headers['x-poll-interval']);
      if (Number.isFinite(hint)) hints.add(hint);
      const data = (JSON.parse(r.body) as { data: NotificationDelta }).data;
      if (typeof data.position !== 'string') throw new Error(`${mode}: the answer has no delta position: ${r.body.slice(0, 300)}`);
      for (const n of data.notifications) {
        if (seen.has(n.uuid)) continue;
        seen.add(n.uuid);
        latencies.push(r.at - Date.parse(n.createdAt));
      }
      agent.position = data.position;
    }
  };
  const loops = s.agents.map((agent) =>
    agentLoop(agent).catch((err: unknown) => {
      failure ??= err;
      stopping = true;
    }),
  );

  // The producer: one comment per 1/RATE s on a fixed schedule, each @mentioning the next agent.
  let produced = 0;
  let q1: number;
  let seconds: number;
  try {
    const count = MODE_SECONDS * RATE;
    for (let n = 0; n < count && !failure; n++) {
      await sleep(Math.max(0, start + (n * 1000) / RATE - Date.now()));
      const target = s.agents[n % s.agents.length];
      await api(a.url, 'POST', '/api/comments', { targetType: 'task', targetUuid: s.taskUuid, content: `${mode} #${n}: ping @[${target.name}](agent:${target.uuid})` }, { cookie: s.cookie });
      produced++;
    }
    await sleep(Math.max(0, start + MODE_SECONDS * 1000 + GRACE_MS - Date.now()));
    q1 = await b.queries();
    seconds = (Date.now() - start) / 1000;
  } finally {
    stopping = true;
    for (const req of inflight) req.destroy();
    await Promise.all(loops);
    pool.destroy();
  }
  if (failure) throw failure;
  const queries = q1 - q0;
  return {
    produced,
    delivered: latencies.length,
    answers,
    queries,
    queriesPerNotification: round(queries / Math.max(1, latencies.length)),
    queriesPerAnswer: round(queries / Math.max(1, answers)),
    latencyMs: { p50: pct(latencies, 50), p99: pct(latencies, 99), max: latencies.length ? Math.max(...latencies) : NaN },
    pollIntervalHints: [...hints].sort((x, y) => x - y),
    seconds: round(seconds, 1),
  };
}

interface Timings {
  p50: number;
  p99: number;
  serverP50: number;
  serverP99: number;
}

/**
 * `after` DELTA_RECORDS below the agent's head, DELTA_ITERATIONS sequential round trips after DELTA_WARMUP —
 * alternating with the baseline: `GET /api/notifications/unread-count` by the same agent (the same key
 * authentication, envelope and framework path, and one primary-key lookup instead of the delta statement).
 */
async function measureDelta(b: ServiceProcess, agent: BenchAgent): Promise<{ after: string; records: number; baseline: Timings } & Timings> {
  const head = parsePosition(agent.position);
  if (!head) throw new Error(`unexpected stream position ${agent.position}`);
  const after = `${head.epoch}-${head.n - DELTA_RECORDS}`;
  const path = `/api/notifications?after=${encodeURIComponent(after)}`;
  const pool = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  const baseTimes: number[] = [];
  let records = -1;
  for (let i = 0; i < DELTA_WARMUP + DELTA_ITERATIONS; i++) {
    const measured = i >= DELTA_WARMUP;
    const r = await get(pool, b.url, path, { ...bearer(agent), 'x-request-id': measured ? `delta.${i}` : `warmup.${i}` });
    if (r.status !== 200) throw new Error(`delta ${path}: ${r.status} ${r.body.slice(0, 300)}`);
    if (records < 0) records = (JSON.parse(r.body) as { data: NotificationDelta }).data.notifications.length;
    if (measured) times.push(r.ms);
    const base = await get(pool, b.url, '/api/notifications/unread-count', { ...bearer(agent), 'x-request-id': measured ? `base.${i}` : `warmup-base.${i}` });
    if (base.status !== 200) throw new Error(`baseline: ${base.status} ${base.body.slice(0, 300)}`);
    if (measured) baseTimes.push(base.ms);
  }
  pool.destroy();
  // The access-log lines are written asynchronously; give them a moment.
  for (let i = 0; i < 50 && (deltaServerMs.length < DELTA_ITERATIONS || baseServerMs.length < DELTA_ITERATIONS); i++) await sleep(20);
  const timings = (client: number[], server: number[]): Timings => ({
    p50: round(pct(client, 50), 3),
    p99: round(pct(client, 99), 3),
    serverP50: round(pct(server, 50), 3),
    serverP99: round(pct(server, 99), 3),
  });
  return { after, records, ...timings(times, deltaServerMs), baseline: timings(baseTimes, baseServerMs) };
}

/**
 * EXPLAIN (ANALYZE, BUFFERS) of the delta statement the service runs (DELTA_STATEMENT, with the parameters of
 * NotificationService#readDelta: recipient type, uuid, company, stream key, after, DELTA_MAX_RECORDS + 1).
 */
async function explainDelta(q: Query, agent: BenchAgent, companyUuid: string, after: number): Promise<string[]> {
  const params = ['agent', agent.uuid, companyUuid, recipientKey('agent', agent.uuid), after, DELTA_MAX_RECORDS + 1];
  const plan = await q(`EXPLAIN (ANALYZE, BUFFERS) ${DELTA_STATEMENT.text}`, params);
  return plan.map((p) => String(p['QUERY PLAN']));
}

const ok = (pass: boolean): string => (pass ? 'ok' : 'MISSED');

function modeLine(mode: string, f: ModeFigures): string {
  return (
    `  ${mode.padEnd(5)} produced ${String(f.produced).padStart(4)} delivered ${String(f.delivered).padStart(4)} | answers ${String(f.answers).padStart(6)} | ` +
    `B queries ${String(f.queries).padStart(6)} = ${f.queriesPerNotification.toFixed(2).padStart(7)} per notification (${f.queriesPerAnswer.toFixed(2)} per answer) | ` +
    `latency p50 ${String(f.latencyMs.p50).padStart(5)} ms p99 ${String(f.latencyMs.p99).padStart(5)} ms max ${f.latencyMs.max} ms | X-Poll-Interval ${f.pollIntervalHints.join(',') || '-'}`
  );
}

async function main(): Promise<void> {
  const logger = pino({ level: 'warn' });
  console.log(
    `Notifications wait bench: ${TOTAL.toLocaleString('en')} rows (${AGENTS} agents × ${PER_AGENT.toLocaleString('en')}), ${MODE_SECONDS} s per mode at ${RATE} notification/s; ` +
      `node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`,
  );
  const { db, url, cleanup } = await scratchDatabase(logger, 'notifwait');
  const ds = db.dataSource;
  const q: Query = (sql, params) => ds.query(sql, params);
  let a: ServiceProcess | null = null;
  let b: ServiceProcess | null = null;
  try {
    // Seeding goes through a throw-away instance, stopped before the fill moves the agents' stream heads under it.
    const seeder = await startInstance('seed', { DATABASE_URL: url, LOG_LEVEL: 'warn' });
    let seeded: Awaited<ReturnType<typeof seed>>;
    try {
      seeded = await seed(ds, seeder.url);
    } finally {
      await seeder.stop();
    }
    console.log(`Seeded ${AGENTS} agents with keys; filling ${TOTAL.toLocaleString('en')} notifications…`);
    const t0 = Date.now();
    await fill(q, seeded.company.uuid, seeded.project, seeded.user, seeded.agents);
    console.log(`  done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

    const prefix = `benchwait_${randomBytes(4).toString('hex')}`;
    const shared = { DATABASE_URL: url, NATS_URL, BUS_SUBJECT_PREFIX: prefix };
    a = await startInstance('A', { ...shared, LOG_LEVEL: 'warn' });
    // B logs at info: its access log gives the server-side duration of the delta reads.
    b = await startInstance('B', { ...shared, LOG_LEVEL: 'info', BENCH_COUNT_QUERIES: '1' });
    console.log(`Instances on NATS ${NATS_URL} (subject prefix ${prefix}): A ${a.url} (producer), B ${b.url} (agents)`);

    const idle0 = await b.queries();
    await sleep(IDLE_MS);
    const idleQueriesPerSecond = round(((await b.queries()) - idle0) / (IDLE_MS / 1000));
    console.log(`B idle: ${idleQueriesPerSecond} queries/s (background work, counted in both modes alike)`);

    const setupAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    await refreshPositions(setupAgent, b.url, seeded.agents);
    setupAgent.destroy();
    console.log(`\nDelta read at ${TOTAL.toLocaleString('en')} rows, ${DELTA_ITERATIONS} sequential requests after ${DELTA_WARMUP} warm-up (ms):`);
    const beforeDelta = await b.queries();
    const delta = { ...(await measureDelta(b, seeded.agents[0])), queriesPerRead: 0 };
    // Per pair of requests (the delta and its baseline): the baseline costs one statement besides the key lookup.
    delta.queriesPerRead = round(((await b.queries()) - beforeDelta) / (DELTA_WARMUP + DELTA_ITERATIONS) / 2);
    console.log(
      `  after=${delta.after} (${delta.records} records) round trip p50 ${delta.p50} p99 ${delta.p99} | server p50 ${delta.serverP50} p99 ${delta.serverP99} | goal p99 ≤ ${GOALS.deltaP99Ms}: ${ok(delta.p99 <= GOALS.deltaP99Ms)}`,
    );
    const base = delta.baseline;
    console.log(
      `  baseline unread-count (same agent, alternating) round trip p50 ${base.p50} p99 ${base.p99} | server p50 ${base.serverP50} p99 ${base.serverP99} | delta/baseline p99 round trip ${round(delta.p99 / base.p99, 2)}× server ${round(delta.serverP99 / Math.max(base.serverP99, 0.1), 2)}×`,
    );
    const plan = await explainDelta(q, seeded.agents[0], seeded.company.uuid, parsePosition(delta.after)!.n);
    console.log('\nEXPLAIN (ANALYZE, BUFFERS) — the delta statement (DELTA_STATEMENT)');
    for (const l of plan) console.log(`  ${l}`);
    const deltaIndexes = [...new Set(plan.flatMap((l) => [...l.matchAll(/Index (?:Only )?Scan (?:Backward )?using (\S+)/g)].map((m) => m[1])))];

    console.log(`\nPolling every ${POLL_INTERVAL_MS / 1000} s vs long-polling (waitSeconds=${WAIT_SECONDS}), ${AGENTS} agents on B, ${RATE} notification/s produced on A, ${MODE_SECONDS} s each:`);
    const poll = await runMode('poll', b, a, seeded);
    console.log(modeLine('poll', poll));
    const wait = await runMode('wait', b, a, seeded);
    console.log(modeLine('wait', wait));

    const queryRatio = round(poll.queriesPerNotification / wait.queriesPerNotification);
    const met = {
      queryRatio: queryRatio >= GOALS.queryRatioMin,
      waitLatencyP99: wait.latencyMs.p99 <= GOALS.waitLatencyP99Ms,
      deltaP99: delta.p99 <= GOALS.deltaP99Ms,
    };
    console.log(`\nGoals:`);
    console.log(`  long-poll ≥ ${GOALS.queryRatioMin}× fewer queries per delivered notification: ${queryRatio}× ${ok(met.queryRatio)}`);
    console.log(`  long-poll delivery latency p99 ≤ ${GOALS.waitLatencyP99Ms} ms: ${wait.latencyMs.p99} ms ${ok(met.waitLatencyP99)}`);
    console.log(`  delta read p99 ≤ ${GOALS.deltaP99Ms} ms (round trip): ${delta.p99} ms ${ok(met.deltaP99)} (server ${delta.serverP99} ms)`);
    for (const [mode, f] of [['poll', poll], ['wait', wait]] as const) {
      if (f.delivered !== f.produced) console.log(`  note: ${mode} delivered ${f.delivered} of ${f.produced} notifications`);
    }

    console.log(
      JSON.stringify({
        bench: 'notifications-wait',
        rows: TOTAL,
        agents: AGENTS,
        perAgent: PER_AGENT,
        modeSeconds: MODE_SECONDS,
        rate: RATE,
        pollIntervalMs: POLL_INTERVAL_MS,
        waitSeconds: WAIT_SECONDS,
        graceMs: GRACE_MS,
        loadAverage: os.loadavg().map((x) => round(x)),
        cpus: os.cpus().length,
        idleQueriesPerSecond,
        delta: { ...delta, iterations: DELTA_ITERATIONS, warmup: DELTA_WARMUP, indexes: deltaIndexes },
        poll,
        wait,
        queryRatio,
        goals: GOALS,
        goalsMet: met,
      }),
    );
  } finally {
    if (a) await a.stop();
    if (b) await b.stop();
    await cleanup();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
