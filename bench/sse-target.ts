/**
 * One server under test for bench/sse.ts, in its own fresh process so its memory is its own.
 * Modes: `ours` (the service; with NATS_URL set it uses the NATS bus), `raw` (bench/raw-sse-server.ts), or the
 * framework layers alone, `express` and `nest` (bench/framework-sse-server.ts).
 * IPC: {start} → {ready: {url, cookie}}; {rss} → {rss (no forced GC), heap (live, after GC)}; {size} → {size}; {fire} → {fired: {id, t0}}
 * where t0 is the commit time (ours: first bus listener, right after commit) or the publish time (raw);
 * {publish} → {published: {id}} (the event straight onto the bus, or the raw server's fan-out: no database);
 * {cpu} → {cpu: µs of user + system CPU time so far}; {snapshot: path} → {snapshot: path} (a heap snapshot after GC).
 */
import { randomUUID } from 'node:crypto';
import { writeHeapSnapshot } from 'node:v8';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { pino } from 'pino';
import { loadConfig } from '../src/config/config.js';
import { startService, type RunningService } from '../src/bootstrap.js';
import { USER_PERMISSIONS, type Actor } from '../src/shared/auth/actor.js';
import { StreamLog } from '../src/shared/stream-log/stream-log.js';
import { TransactionRunner } from '../src/shared/database/transaction-runner.js';
import { BUS_EVENTS, type DeliveryMeta, type RealtimeEvent } from '../src/shared/event-bus/events.js';
import { NatsEventBus } from '../src/shared/event-bus/nats-event-bus.js';
import { IdentityAdminService } from '../src/modules/identity/index.js';
import { StreamService } from '../src/modules/realtime/index.js';
import { startFrameworkSseServer } from './framework-sse-server.js';
import { startRawSseServer, type RawSseServer } from './raw-sse-server.js';

const gc = (): void => (globalThis as { gc?: () => void }).gc?.();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const send = (msg: unknown): void => void process.send!(msg as never);

interface StartMsg {
  mode: 'ours' | 'raw' | 'express' | 'nest';
  databaseUrl?: string;
  natsUrl?: string;
  /** Seed a user (A) or log in as the given one (B shares A's database). */
  login?: { email: string; password: string };
}

let svc: RunningService | null = null;
let raw: RawSseServer | null = null;
let actor: Actor | null = null;
const commits = new Map<string, bigint>();

async function start(msg: StartMsg): Promise<{ url: string; cookie: string | null; login?: { email: string; password: string } }> {
  if (msg.mode !== 'ours') {
    raw = msg.mode === 'raw' ? await startRawSseServer() : await startFrameworkSseServer(msg.mode);
    return { url: raw.url, cookie: null };
  }
  const logger = pino({ level: 'warn' });
  svc = await startService(loadConfig({ PORT: '0', LOG_LEVEL: 'warn', DATABASE_URL: msg.databaseUrl, SSE_MAX_STREAMS_PER_USER: '100000', ...(msg.natsUrl ? { NATS_URL: msg.natsUrl, BUS_SUBJECT_PREFIX: 'bench' } : {}) }), logger);
  // Prepended to the service's own listeners: it runs right after commit, before any stream is written.
  // Real mutations take positions too: the bench's own events continue after the highest one seen.
  svc.app.get(EventEmitter2).prependListener(BUS_EVENTS.change, (e: RealtimeEvent, meta: DeliveryMeta) => {
    commits.set(e.entityUuid, process.hrtime.bigint());
    position = Math.max(position, Number(meta.position?.split('-')[1] ?? 0));
  });
  if (svc.bus instanceof NatsEventBus) await svc.bus.waitUntilUp(5000);
  let login = msg.login;
  if (!login) {
    const admin = svc.app.get(IdentityAdminService);
    const company = await admin.createCompany('Bench');
    login = { email: `bench-${randomUUID()}@example.test`, password: 'bench-password' };
    const user = await admin.createUser({ companyUuid: company.uuid, email: login.email, name: 'Bench', password: login.password });
    actor = { type: 'user', uuid: user.uuid, companyUuid: company.uuid, name: 'Bench', ownerUuid: null, permissions: USER_PERMISSIONS };
  }
  if (actor) {
    const log = svc.app.get(StreamLog);
    epoch = await log.epoch();
    position = (await log.heads('c', [actor.companyUuid])).get(actor.companyUuid) ?? 0;
  }
  const res = await fetch(`${svc.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(login) });
  const cookie = /svc_session=[^;]+/.exec(res.headers.get('set-cookie') ?? '')![0];
  return { url: `${svc.url}/api/events`, cookie, login };
}

const projectUuid = randomUUID();

/** A real mutation: one transaction writing a row; its change event is published after commit. */
async function fire(): Promise<{ id: string; t0: string }> {
  const id = randomUUID();
  if (raw) {
    const frame = `data: ${JSON.stringify({ companyUuid: projectUuid, projectUuid, entityType: 'task', entityUuid: id, action: 'updated' })}\n\n`;
    const t0 = process.hrtime.bigint();
    raw.publish(frame);
    return { id, t0: t0.toString() };
  }
  const runner = svc!.app.get(TransactionRunner);
  await runner.run(actor!, async (tx) => {
    await tx.manager.query(`UPDATE company SET updated_at = now() WHERE uuid = $1`, [actor!.companyUuid]);
    tx.change('task', id, projectUuid, 'updated');
  });
  return { id, t0: commits.get(id)!.toString() };
}

/** Positions of the events put straight onto the bus: the next ones after the company's head (nothing is logged). */
let epoch = '';
let position = 0;

/** An event straight onto the bus (ours) or the raw fan-out: what the CPU phase measures. */
function publish(): string {
  const id = randomUUID();
  const e: RealtimeEvent = { companyUuid: actor?.companyUuid ?? projectUuid, projectUuid, entityType: 'task', entityUuid: id, action: 'updated' };
  if (raw) raw.publish(`data: ${JSON.stringify(e)}\n\n`);
  else svc!.bus.publish('change', e, `${epoch}-${++position}`);
  return id;
}

process.on('message', (msg: { start?: StartMsg; rss?: true; size?: true; fire?: true; publish?: true; cpu?: true; snapshot?: string; stop?: true }) => {
  void (async () => {
    if (msg.start) send({ ready: await start(msg.start) });
    else if (msg.rss) {
      // RSS as the process runs (no forced GC: the slack a collector keeps is part of what a connection costs), then
      // the live heap after a full GC.
      await sleep(500);
      const rss = process.memoryUsage().rss;
      for (let i = 0; i < 3; i++) {
        gc();
        await sleep(100);
      }
      const m = { ...process.memoryUsage(), rss };
      send({ rss: m.rss, heap: m.heapUsed, external: m.external + m.arrayBuffers });
    } else if (msg.size) send({ size: raw ? raw.size() : svc!.app.get(StreamService).size });
    else if (msg.fire) send({ fired: await fire() });
    else if (msg.snapshot) {
      for (let i = 0; i < 3; i++) {
        gc();
        await sleep(100);
      }
      send({ snapshot: writeHeapSnapshot(msg.snapshot) });
    } else if (msg.publish) send({ published: { id: publish() } });
    else if (msg.cpu) {
      const c = process.cpuUsage();
      send({ cpu: c.user + c.system });
    }
    else if (msg.stop) {
      await raw?.close();
      await svc?.stop();
      send({ stopped: true });
      process.exit(0);
    }
  })().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
});
