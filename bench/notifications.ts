/**
 * `npm run bench:notifications` — inbox reads at scale. Fills 1,000,000 notifications over 1,000 recipients (one
 * holding 10,000, 30% of them unread) with generate_series, starts the service in a child process, and measures the
 * HTTP round trip on localhost (keep-alive, one request at a time, session cookie; plus the server's own
 * access-log duration of the same requests) of the list (default page,
 * unreadOnly=true, one project), the unread count, and each of them again with a matching If-None-Match (304).
 * The baseline is GET /api/auth/me (the same session authentication, nothing else) measured in the same run.
 * Prints p50/p99 per case and EXPLAIN (ANALYZE, BUFFERS) of every query behind them; the last line is one JSON
 * object with all figures. Uses DATABASE_URL's server (in a scratch database) when set, else an embedded one.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import { pino } from 'pino';
import { IdentityAdminService, PasswordHasher } from '../src/modules/identity/index.js';
import { UserRepository } from '../src/modules/identity/user.repository.js';
import { INBOX_STATEMENT, listStatement, type ListQuery, type Recipient } from '../src/modules/notifications/notification.repository.js';
import { scratchDatabase } from './lib/scratch-db.js';
import { startServiceProcess } from './lib/service-process.js';
import { pct } from './lib/stats.js';

const TOTAL = Number(process.env.BENCH_ROWS ?? 1_000_000);
const RECIPIENTS = 1000;
const HOT_EVERY = 100; // every 100th row belongs to the hot recipient: 10,000 of 1,000,000
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 2000);
const WARMUP = 200;
/**
 * Requests sent round-robin over every case (plain and conditional) before anything is measured: the figures are
 * those of a server in its steady state (JIT-compiled code, grown heap), as a long-running instance is. Without it
 * the first cases measured carry the process's warm-up in their tails. BENCH_GLOBAL_WARMUP overrides (0 = none).
 */
const GLOBAL_WARMUP = Number(process.env.BENCH_GLOBAL_WARMUP ?? 5000);
const TARGETS = { listP99Ms: 10, countP99Ms: 5, notModifiedP99Ms: 2 };

const round = (x: number): number => Math.round(x * 1000) / 1000;

async function fill(q: (sql: string, params?: unknown[]) => Promise<unknown>, companyUuid: string, hotUuid: string, actorUuid: string): Promise<void> {
  const batch = 100_000;
  for (let from = 1; from <= TOTAL; from += batch) {
    const to = Math.min(TOTAL, from + batch - 1);
    // Row i: hot recipient when i % 100 = 0, else one of 999 others; k = i / 100 decides read (70%) and archived
    // (5%, among the read ones); the project is a hash of i, so unread rows spread over all ten projects.
    await q(
      `INSERT INTO notification (uuid, company_uuid, project_uuid, project_name, recipient_type, recipient_uuid, entity_type,
                                 entity_uuid, entity_title, action, message, actor_type, actor_uuid, actor_name,
                                 read_at, archived_at, created_at, updated_at)
       SELECT gen_random_uuid(), $1, md5('project-' || p)::uuid, 'Project ' || p, 'user',
              CASE WHEN i % ${HOT_EVERY} = 0 THEN $2::uuid ELSE md5('recipient-' || (i % ${RECIPIENTS - 1}))::uuid END,
              'task', gen_random_uuid(), 'Task ' || i, 'task_assigned', 'Bench Actor assigned you to task "Task ' || i || '"',
              'user', $3, 'Bench Actor',
              CASE WHEN (i / ${HOT_EVERY}) % 10 < 3 THEN NULL ELSE ts END,
              CASE WHEN (i / ${HOT_EVERY}) % 20 = 19 THEN ts END,
              ts, ts
         FROM (SELECT i, (hashint4(i) & 2147483647) % 10 AS p, timestamptz '2025-01-01' + i * interval '1 second' AS ts
                 FROM generate_series($4::int, $5::int) AS i) AS s`,
      [companyUuid, hotUuid, actorUuid, from, to],
    );
    process.stdout.write(`  filled ${to.toLocaleString('en')} rows\n`);
  }
  await q('VACUUM ANALYZE notification');
  await q('VACUUM ANALYZE notification_inbox');
  // Flush the fill's dirty pages now rather than during the measurements.
  await q('CHECKPOINT').catch(() => undefined);
  await new Promise((r) => setTimeout(r, 3000));
}

/** Server-side durations (the access log's `durationMs`), keyed by the request id the bench sends. */
const serverMs = new Map<string, number[]>();

async function startServer(url: string): Promise<{ url: string; stop: () => Promise<void> }> {
  return startServiceProcess({
    env: { DATABASE_URL: url, LOG_LEVEL: 'info' },
    // BENCH_SERVER_NODE_ARGS: extra node flags for the server process only (e.g. `--cpu-prof`, `--trace-gc`).
    execArgv: (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean),
    onLine: (line, stream) => {
      if (stream === 'stderr') console.error(line);
      const m = /"requestId":"bench\.([A-Za-z0-9]+)\.\d+".*"durationMs":([\d.]+)/.exec(line);
      if (m) serverMs.set(m[1], [...(serverMs.get(m[1]) ?? []), Number(m[2])]);
    },
  });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function request(base: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const req = http.request(`${base}${path}`, { method, headers, agent }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (data += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data, ms: Number(process.hrtime.bigint() - t0) / 1e6 }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

interface Figures {
  p50: number;
  p99: number;
  serverP50: number;
  serverP99: number;
}

async function measure(name: string, base: string, path: string, headers: Record<string, string>, expectStatus: number): Promise<Figures> {
  const times: number[] = [];
  for (let i = 0; i < WARMUP + ITERATIONS; i++) {
    const id = i >= WARMUP ? `bench.${name}.${i}` : `warmup.${i}`;
    const r = await request(base, 'GET', path, { ...headers, 'x-request-id': id });
    if (r.status !== expectStatus) throw new Error(`${path}: expected ${expectStatus}, got ${r.status} ${r.body}`);
    if (i >= WARMUP) times.push(r.ms);
  }
  // The access-log lines are written asynchronously; give them a moment.
  for (let i = 0; i < 50 && (serverMs.get(name)?.length ?? 0) < ITERATIONS; i++) await new Promise((r) => setTimeout(r, 20));
  const server = serverMs.get(name) ?? [NaN];
  return { p50: round(pct(times, 50)), p99: round(pct(times, 99)), serverP50: round(pct(server, 50)), serverP99: round(pct(server, 99)) };
}

const line = (name: string, f: Figures, target?: number): string =>
  `  ${name.padEnd(20)} round trip p50 ${f.p50.toFixed(3).padStart(7)} p99 ${f.p99.toFixed(3).padStart(7)} | server p50 ${f.serverP50.toFixed(1).padStart(5)} p99 ${f.serverP99.toFixed(1).padStart(5)}` +
  (target === undefined ? '' : ` | target server p99 ≤ ${target} ${f.serverP99 <= target ? 'ok' : 'MISSED'} (round trip ${f.p99 <= target ? 'within' : 'above'})`);

async function main(): Promise<void> {
  const logger = pino({ level: 'warn' });
  const { db, url, cleanup } = await scratchDatabase(logger, 'notifications');
  let server: { url: string; stop: () => Promise<void> } | null = null;
  try {
    const ds = db.dataSource;
    const admin = new IdentityAdminService(new UserRepository(ds.manager), new PasswordHasher());
    const company = await admin.createCompany('Bench');
    const password = 'bench-password';
    const email = `bench-${randomBytes(4).toString('hex')}@example.test`;
    const hot = await admin.createUser({ companyUuid: company.uuid, email, name: 'Hot Recipient', password });
    const actor = await admin.createUser({ companyUuid: company.uuid, email: `actor-${email}`, name: 'Bench Actor', password });
    console.log(`Filling ${TOTAL.toLocaleString('en')} notifications over ${RECIPIENTS} recipients…`);
    const t0 = Date.now();
    await fill((sql, params) => ds.query(sql, params), company.uuid, hot.uuid, actor.uuid);
    const [{ total, unread, projects }] = await ds.query(
      `SELECT count(*)::int AS total, count(*) FILTER (WHERE read_at IS NULL AND archived_at IS NULL)::int AS unread,
              count(DISTINCT project_uuid)::int AS projects
         FROM notification WHERE recipient_uuid = $1`,
      [hot.uuid],
    );
    console.log(`  done in ${((Date.now() - t0) / 1000).toFixed(1)} s; hot recipient: ${total} rows, ${unread} unread, ${projects} projects`);
    const project = (await ds.query(`SELECT md5('project-3')::uuid AS p`))[0].p as string;

    server = await startServer(url);
    const login = await request(server.url, 'POST', '/api/auth/login', { 'content-type': 'application/json' }, JSON.stringify({ email, password }));
    const cookie = /svc_session=[^;]+/.exec(String(login.headers['set-cookie']))![0];
    const auth = { cookie };

    const cases: Array<[string, string, number]> = [
      ['list', '/api/notifications', TARGETS.listP99Ms],
      ['listUnreadOnly', '/api/notifications?unreadOnly=true', TARGETS.listP99Ms],
      ['listProject', `/api/notifications?projectUuid=${project}`, TARGETS.listP99Ms],
      ['unreadCount', '/api/notifications/unread-count', TARGETS.countP99Ms],
    ];
    const figures: Record<string, Figures & { targetP99: number; ok: boolean }> = {};
    const warmupPaths = ['/api/auth/me', ...cases.map(([, path]) => path)];
    const tags = new Map<string, string>();
    for (let i = 0; i < GLOBAL_WARMUP; i++) {
      const path = warmupPaths[i % warmupPaths.length];
      const conditional = Math.floor(i / warmupPaths.length) % 2 === 1 && tags.has(path);
      const r = await request(server.url, 'GET', path, { ...auth, ...(conditional ? { 'if-none-match': tags.get(path)! } : {}) });
      if (r.headers.etag) tags.set(path, String(r.headers.etag));
    }
    console.log(`\n${GLOBAL_WARMUP} warm-up requests over all cases first (BENCH_GLOBAL_WARMUP).`);
    console.log(`\nHTTP round trip and server time (access log), ${ITERATIONS} sequential requests per case after ${WARMUP} warm-up (ms); load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} on ${os.cpus().length} CPUs:`);
    // Baseline: the cheapest authenticated route (session lookup, envelope), the floor of every case below.
    const baseline = await measure('baseline', server.url, '/api/auth/me', auth, 200);
    console.log(line('baseline /auth/me', baseline));
    for (const [name, path, target] of cases) {
      const first = await request(server.url, 'GET', path, auth);
      const tag = String(first.headers.etag);
      const full = await measure(name, server.url, path, auth, 200);
      figures[name] = { ...full, targetP99: target, ok: full.serverP99 <= target };
      const cached = await measure(`${name}304`, server.url, path, { ...auth, 'if-none-match': tag }, 304);
      figures[`${name}304`] = { ...cached, targetP99: TARGETS.notModifiedP99Ms, ok: cached.serverP99 <= TARGETS.notModifiedP99Ms };
      console.log(line(name, full, target));
      console.log(line(`${name}304`, cached, TARGETS.notModifiedP99Ms));
    }

    // The exact statements the service runs (same builders), explained on the filled table.
    const r: Recipient = { type: 'user', uuid: hot.uuid, companyUuid: company.uuid };
    const list = (query: Partial<ListQuery>): { sql: string; params: unknown[] } => {
      const { text, params } = listStatement(r, { limit: 50, offset: 0, unreadOnly: false, projectUuid: null, cursor: null, ...query });
      return { sql: text, params };
    };
    const explained: Array<[string, { sql: string; params: unknown[] }]> = [
      ['list', list({})],
      ['listUnreadOnly', list({ unreadOnly: true })],
      ['listProject', list({ projectUuid: project })],
      ['inbox row (ETag version, unread count)', { sql: INBOX_STATEMENT.text, params: [r.type, r.uuid] }],
    ];
    const indexes: Record<string, string[]> = {};
    for (const [name, { sql, params }] of explained) {
      const plan: Array<{ 'QUERY PLAN': string }> = await ds.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params);
      const lines = plan.map((p) => p['QUERY PLAN']);
      indexes[name] = [...new Set(lines.flatMap((l) => [...l.matchAll(/Index (?:Only )?Scan (?:Backward )?using (\S+)/g)].map((m) => m[1])))];
      console.log(`\nEXPLAIN ANALYZE — ${name}`);
      for (const l of lines) console.log(`  ${l}`);
      if (!indexes[name].length) throw new Error(`${name}: no index used`);
    }

    console.log(
      JSON.stringify({
        bench: 'notifications',
        rows: TOTAL,
        recipients: RECIPIENTS,
        hot: { rows: total, unread, projects },
        iterations: ITERATIONS,
        globalWarmup: GLOBAL_WARMUP,
        loadAverage: os.loadavg().map((x) => Math.round(x * 100) / 100),
        cpus: os.cpus().length,
        baselineAuthMe: baseline,
        ms: Object.fromEntries(Object.entries(figures).map(([k, f]) => [k, { p50: f.p50, p99: f.p99, serverP50: f.serverP50, serverP99: f.serverP99 }])),
        targets: TARGETS,
        // The targets are server times (the access log's durationMs); round trips are reported beside them.
        allTargetsMet: Object.values(figures).every((f) => f.ok),
        roundTripWithinTargets: Object.values(figures).every((f) => f.p99 <= f.targetP99),
        indexes,
      }),
    );
  } finally {
    agent.destroy();
    if (server) await server.stop();
    await cleanup();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
