/**
 * `npm run bench:sse-storm` — a reconnect storm on one service instance.
 *
 * The built service (bench/service-server.ts, in-process bus) runs in a child process against a scratch database on
 * DATABASE_URL's server (embedded PostgreSQL when unset). One company, one user, one project; a client process
 * (bench/sse-storm-clients.ts) holds STORM_STREAMS (5,000) `GET /api/events` streams that behave like EventSource.
 * The company's log first gets STORM_START_POSITION (1000) entries, appended through StreamLog (see BENCHMARKS.md:
 * with positions of one digit count throughout, the log read's text ordering cannot reorder the replay). Once the
 * streams are open, a writer commits STORM_RATE (5) real mutations per second (REST: create an idea, one change event
 * each; 20/s is more than one instance fans out to 5,000 streams on the 2-vCPU VM). After
 * STORM_WARMUP_S (5) the clients stop updating their remembered id (they keep receiving); STORM_BEHIND_S (30) later
 * the service is killed (SIGKILL) and started again on the same port at once. While it is down the writer appends
 * to the resume log straight from this process (StreamLog.append in a transaction: the app's code path, without the
 * row the mutation would write and without a bus). When the new instance listens, the writer stops, the log's head H
 * is read and given to the clients, and the REST writer resumes. Each client reconnects after the `retry:` it got,
 * with `Last-Event-ID` = the id it remembered; it has caught up once it holds every position up to H since then.
 *
 * Reports: the log reads of the new instance (`svc_stream_log_reads_total` by purpose) and its resume outcomes, the
 * reconnect times relative to the kill (first attempt and successful connect: min, p10/p50/p90, max, a 0.5 s
 * histogram), the caught-up times (p50/p99/max from the restart and from the kill), duplicates, holes and resets.
 * Last line: one JSON object with every figure.
 */
import { fork } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { loadConfig } from '../src/config/config.js';
import { IdentityAdminService, PasswordHasher } from '../src/modules/identity/index.js';
import { UserRepository } from '../src/modules/identity/user.repository.js';
import { changeJson } from '../src/shared/event-bus/events.js';
import { StreamLog } from '../src/shared/stream-log/stream-log.js';
import { freePort } from '../src/shared/database/embedded-postgres.js';
import { api } from './lib/rest.js';
import { scratchDatabase } from './lib/scratch-db.js';
import { startServiceProcess, type ServiceProcess } from './lib/service-process.js';
import { pct, round, sleep } from './lib/stats.js';
import { SchedulerRegistry } from '@nestjs/schedule';

const num = (name: string, def: number): number => (process.env[name] ? Number(process.env[name]) : def);
const STREAMS = num('STORM_STREAMS', 5000);
const RATE = num('STORM_RATE', 5);
const START_POSITION = num('STORM_START_POSITION', 1000);
const WARMUP_S = num('STORM_WARMUP_S', 5);
const BEHIND_S = num('STORM_BEHIND_S', 30);
const RETRY_MS = num('STORM_RETRY_MS', 3000);
const TIMEOUT_S = num('STORM_TIMEOUT_S', 60);
const here = fileURLToPath(new URL('.', import.meta.url));
const logger = pino({ level: 'warn' });

/** A forked helper answering one message per request, matched by the reply's first key. */
function helper(file: string) {
  const proc = fork(join(here, file), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting = new Map<string, (v: unknown) => void>();
  proc.on('message', (msg: Record<string, unknown>) => {
    const key = Object.keys(msg)[0];
    const w = waiting.get(key);
    waiting.delete(key);
    w?.(msg[key]);
  });
  return {
    proc,
    ask: <T>(msg: unknown, reply: string): Promise<T> =>
      new Promise<T>((resolve) => {
        waiting.set(reply, resolve as (v: unknown) => void);
        proc.send(msg as never);
      }),
  };
}

function metric(text: string, name: string, labels: Record<string, string>): number {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^(\w+)(\{[^}]*\})?\s+([\d.e+-]+)/.exec(line);
    if (!m || m[1] !== name) continue;
    if (want.every((w) => (m[2] ?? '').includes(w))) sum += Number(m[3]);
  }
  return sum;
}

const spread = (xs: number[]) => ({
  n: xs.length,
  min: round(Math.min(...xs)),
  p10: round(pct(xs, 10)),
  p50: round(pct(xs, 50)),
  p90: round(pct(xs, 90)),
  p99: round(pct(xs, 99)),
  max: round(Math.max(...xs)),
});

function histogram(xs: number[], width: number): Record<string, number> {
  const h: Record<string, number> = {};
  for (const x of xs) {
    const b = (Math.floor(x / width) * width).toFixed(1);
    h[b] = (h[b] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(h).sort((a, b) => Number(a[0]) - Number(b[0])));
}

/** Warning and error lines of the server's log, counted by level, message and error message. */
function summarize(lines: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const l of lines) {
    try {
      const j = JSON.parse(l) as { level: string | number; msg?: string; err?: { message?: string } | string; req?: { url?: string } };
      const err = typeof j.err === 'string' ? j.err : j.err?.message;
      const k = `${j.level} ${j.msg ?? ''}${err ? `: ${err}` : ''}`;
      out[k] = (out[k] ?? 0) + 1;
    } catch {
      out[l.slice(0, 120)] = (out[l.slice(0, 120)] ?? 0) + 1;
    }
  }
  return out;
}

async function main(): Promise<void> {
  const { db, url: databaseUrl, cleanup } = await scratchDatabase(logger, 'storm');
  const port = await freePort();
  let server: ServiceProcess | null = null;
  const serverLog: string[] = [];
  const env = { DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', BENCH_SERVICE_PORT: String(port), SSE_MAX_STREAMS_PER_USER: '100000', SSE_RETRY_MS: String(RETRY_MS), MCP_RATE_LIMIT_PER_MINUTE: '0' };
  const logPath = process.env.STORM_SERVER_LOG ?? join(tmpdir(), `sse-storm-server-${process.pid}.log`);
  const logFile = createWriteStream(logPath);
  const start = () =>
    startServiceProcess({
      env,
      onLine: (line) => {
        logFile.write(`${line}\n`);
        if (/"level":"(warn|error|fatal)"|"level":[4-6]0/.test(line)) serverLog.push(line);
      },
    });
  const clients = helper('sse-storm-clients.js');
  try {
    server = await start();
    const base = server.url;
    // Seed: one company, one user (its session is in the database, so it outlives the instance), one project.
    const admin = new IdentityAdminService(new UserRepository(db.dataSource.manager), new PasswordHasher());
    const company = await admin.createCompany('Storm');
    const email = `storm-${randomBytes(3).toString('hex')}@example.test`;
    const password = `pw-${randomBytes(12).toString('hex')}`;
    await admin.createUser({ companyUuid: company.uuid, email, name: 'Storm', password });
    const { res } = await api(base, 'POST', '/api/auth/login', { email, password }, {});
    const cookie = /svc_session=[^;]+/.exec(res.headers.get('set-cookie') ?? '')![0];
    const { data: project } = await api<{ uuid: string }>(base, 'POST', '/api/projects', { name: 'Storm project' }, { cookie });

    const log = new StreamLog(db.dataSource, loadConfig({ DATABASE_URL: databaseUrl }), logger, new SchedulerRegistry());
    const head = async (): Promise<number> => (await log.heads('c', [company.uuid])).get(company.uuid) ?? 0;

    // The writer: REST mutations while the service is up, log appends while it is down.
    let mode: 'rest' | 'log' | 'off' = 'rest';
    let inFlight = 0;
    const counts = { rest: 0, restFailed: 0, log: 0 };
    const writeOne = async (): Promise<void> => {
      const m = mode;
      if (m === 'off') return;
      inFlight++;
      try {
        if (m === 'rest') {
          const r = await fetch(`${base}/api/projects/${project.uuid}/ideas`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Storm idea', content: 'x' }) });
          await r.arrayBuffer();
          if (r.ok) counts.rest++;
          else counts.restFailed++;
        } else {
          await db.dataSource.transaction(async (em) => {
            const e = { companyUuid: company.uuid, projectUuid: project.uuid, entityType: 'idea', entityUuid: randomUUID(), action: 'created' } as const;
            await log.append(em, 'c', [{ key: company.uuid, projectUuid: project.uuid, payload: changeJson(e as never) }]);
          });
          counts.log++;
        }
      } catch {
        counts.restFailed++;
      } finally {
        inFlight--;
      }
    };
    // The company's log starts at START_POSITION (entries appended through the log, before any stream is open).
    for (let done = 0; done < START_POSITION; done += 1000) {
      const entries = Array.from({ length: Math.min(1000, START_POSITION - done) }, () => ({ key: company.uuid, projectUuid: project.uuid, payload: changeJson({ companyUuid: company.uuid, projectUuid: project.uuid, entityType: 'idea', entityUuid: randomUUID(), action: 'created' } as never) }));
      await db.dataSource.transaction((em) => log.append(em, 'c', entries));
    }

    console.log(`load average ${(await import('node:os')).loadavg().map((x) => x.toFixed(2)).join(' ')}; log head ${await head()}; opening ${STREAMS} streams on ${base}`);
    const opened = await clients.ask<{ n: number; failed: number }>({ open: { url: `${base}/api/events`, cookie, n: STREAMS } }, 'opened');
    const writer = setInterval(() => void writeOne(), 1000 / RATE);
    console.log(`opened ${opened.n} (failed ${opened.failed}); writer at ${RATE}/s`);
    await sleep(WARMUP_S * 1000);
    const frozen = await clients.ask<{ minN: number; maxN: number; withId: number }>({ freeze: true }, 'frozen');
    console.log(`clients remember positions ${frozen.minN}..${frozen.maxN} (${frozen.withId} with an id); ${BEHIND_S} s until the kill`);
    await sleep(BEHIND_S * 1000);

    // Kill, and at once start again on the same port; the writer appends to the log meanwhile.
    const headAtKill = await head();
    const tKill = process.hrtime.bigint();
    mode = 'log';
    server.child.kill('SIGKILL');
    const killed = server;
    await new Promise<void>((r) => (killed.child.exitCode !== null || killed.child.signalCode !== null ? r() : killed.child.once('exit', () => r())));
    const tDead = process.hrtime.bigint();
    server = await start();
    const tUp = process.hrtime.bigint();
    mode = 'off';
    while (inFlight > 0) await sleep(5);
    const H = await head();
    await clients.ask({ target: H }, 'targeted');
    mode = 'rest';
    console.log(`killed at head ${headAtKill}; new instance listening after ${round(Number(tUp - tKill) / 1e6)} ms; head at restart ${H} (${counts.log} appended while down); clients are ${H - frozen.maxN}..${H - frozen.minN} events behind`);

    const report = await clients.ask<Array<Record<string, unknown>>>({ report: { timeoutMs: TIMEOUT_S * 1000 } }, 'report');
    clearInterval(writer);
    mode = 'off';
    while (inFlight > 0) await sleep(5);
    const metricsText = await (await fetch(`${server.url}/metrics`)).text();

    const ms = (t: unknown, from: bigint): number => Number(BigInt(t as string) - from) / 1e6;
    const firstAttempt = report.filter((c) => (c.attempts as string[]).length).map((c) => ms((c.attempts as string[])[0], tKill) / 1000);
    const reconnected = report.filter((c) => c.reconnectedAt).map((c) => ms(c.reconnectedAt, tKill) / 1000);
    const caughtKill = report.filter((c) => c.caughtUpAt).map((c) => ms(c.caughtUpAt, tKill));
    const caughtUp = report.filter((c) => c.caughtUpAt).map((c) => ms(c.caughtUpAt, tUp));
    const retries = report.map((c) => c.retryMs as number).filter((x) => Number.isFinite(x));
    const sum = (k: string) => report.reduce((a, c) => a + (c[k] as number), 0);
    const non200: Record<string, number> = {};
    for (const c of report) for (const s of c.non200 as number[]) non200[s] = (non200[s] ?? 0) + 1;
    const reads = { head: metric(metricsText, 'svc_stream_log_reads_total', { purpose: 'head' }), replay: metric(metricsText, 'svc_stream_log_reads_total', { purpose: 'replay' }), repair: metric(metricsText, 'svc_stream_log_reads_total', { purpose: 'repair' }) };
    const resumes = { replayed: metric(metricsText, 'svc_stream_resume_total', { outcome: 'replayed' }), reset: metric(metricsText, 'svc_stream_resume_total', { outcome: 'reset' }), fresh: metric(metricsText, 'svc_stream_resume_total', { outcome: 'fresh' }) };
    const result = {
      streams: STREAMS,
      ratePerS: RATE,
      startPosition: START_POSITION,
      behindS: BEHIND_S,
      sseRetryMs: RETRY_MS,
      writes: counts,
      positions: { rememberedMin: frozen.minN, rememberedMax: frozen.maxN, headAtKill, headAtRestart: H, behindMax: H - frozen.minN },
      restartMs: { killToExit: round(Number(tDead - tKill) / 1e6), killToListening: round(Number(tUp - tKill) / 1e6) },
      logReadsAfterRestart: { ...reads, total: reads.head + reads.replay + reads.repair },
      resumes,
      replayedFrames: metric(metricsText, 'svc_stream_replayed_frames_total', {}),
      retryMsGot: retries.length ? spread(retries) : null,
      firstAttemptS: firstAttempt.length ? spread(firstAttempt) : null,
      firstAttemptHistogramS: histogram(firstAttempt, 0.5),
      reconnectedS: reconnected.length ? spread(reconnected) : null,
      reconnectedHistogramS: histogram(reconnected, 0.5),
      refusedAttempts: sum('refused'),
      non200,
      caughtUp: caughtUp.length,
      notCaughtUp: STREAMS - caughtUp.length,
      caughtUpFromRestartMs: caughtUp.length ? spread(caughtUp) : null,
      caughtUpFromKillMs: caughtKill.length ? spread(caughtKill) : null,
      duplicates: sum('dups'),
      holes: sum('gaps'),
      resets: sum('resets'),
      serverWarnings: summarize(serverLog),
      serverLog: logPath,
      pendingAtEnd: report.filter((c) => c.pending).length,
      loadavg: (await import('node:os')).loadavg().map((x) => round(x)),
    };
    console.log(JSON.stringify(result, null, 1));
    console.log(JSON.stringify(result));
    await clients.ask({ close: true }, 'closed');
  } finally {
    clients.proc.kill();
    await server?.stop();
    await cleanup();
  }
  process.exit(0);
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
