import net from 'node:net';
import { randomUUID } from 'node:crypto';
import type { RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { StreamService } from '../../src/modules/realtime/index.js';
import { IdentityFactory } from '../factories/identity.factory.js';
import { HttpClient } from '../utils/http.js';
import { openEventSource, openRaw } from '../utils/sse.js';
import { commitChange, commitChanges, commitFrame } from '../utils/stream-frames.js';
import { World } from '../utils/world.js';

describe('SSE streams (e2e, real EventSource)', () => {
  let app: World;
  let cookieA: string;
  let cookieB: string;
  let companyA: string;
  let companyB: string;
  let userA: string;

  beforeAll(async () => {
    app = await World.start({ env: { SSE_HEARTBEAT_MS: '200', SSE_MAX_STREAMS_PER_USER: '1000' } });
    const f = new IdentityFactory(app.db.dataSource);
    const a = await f.company();
    const b = await f.company();
    companyA = a.uuid;
    companyB = b.uuid;
    const ua = await f.user(a.uuid);
    const ub = await f.user(b.uuid);
    userA = ua.uuid;
    const ha = new HttpClient(app.url);
    await ha.login(ua.email, ua.password);
    cookieA = ha.cookie!;
    const hb = new HttpClient(app.url);
    await hb.login(ub.email, ub.password);
    cookieB = hb.cookie!;
  });
  afterAll(() => app.close());

  const event = (companyUuid: string, projectUuid = randomUUID()): RealtimeEvent => ({
    companyUuid,
    projectUuid,
    entityType: 'task',
    entityUuid: randomUUID(),
    action: 'updated',
  });

  it('refuses unauthenticated requests with plain-text 401 Unauthorized', async () => {
    for (const path of ['/api/events', '/api/events/notifications']) {
      const res = await fetch(app.url + path);
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await res.text()).toBe('Unauthorized');
      const withKey = await fetch(app.url + path, { headers: { authorization: 'Bearer agk_' + 'x'.repeat(43) } });
      expect(withKey.status).toBe(401);
    }
  });

  it('answers a malformed projectUuid with plain-text 400', async () => {
    const res = await fetch(`${app.url}/api/events?projectUuid=nope`, { headers: { cookie: cookieA } });
    expect(res.status).toBe(400);
    expect(await res.text()).toBe('Invalid projectUuid');
  });

  it('sends the contract headers, `: connected` first, then heartbeats', async () => {
    const raw = await openRaw(`${app.url}/api/events`, { cookie: cookieA });
    expect(raw.status).toBe(200);
    expect(raw.headers['content-type']).toBe('text/event-stream');
    expect(raw.headers['cache-control']).toContain('no-cache');
    expect(raw.headers['connection']).toBe('keep-alive');
    expect(raw.headers['x-accel-buffering']).toBe('no');
    expect(raw.headers['content-encoding']).toBeUndefined();
    await raw.waitForText(': heartbeat\n\n', 3000);
    // Nest's SSE stream writes one blank line before the first block (allowed by platform.md §6.2); then the connect
    // block: the company's current head and this stream's retry, between SSE_RETRY_MS (3000) and twice it.
    const blocks = raw.body().replace(/^\n/, '').split('\n\n');
    expect(blocks[0]).toBe(': connected');
    const connect = /^id: ([0-9a-z]+-\d+)\nretry: (\d+)$/.exec(blocks[1]);
    expect(connect).not.toBeNull();
    expect(Number(connect![2])).toBeGreaterThanOrEqual(3000);
    expect(Number(connect![2])).toBeLessThan(6000);
    expect(raw.body()).not.toMatch(/^(event|data):/m);
    raw.close();
  });

  it('delivers the exact five-field frame, only to the caller company, honouring the project filter', async () => {
    const project = randomUUID();
    const all = openEventSource(`${app.url}/api/events`, cookieA);
    const filtered = openEventSource(`${app.url}/api/events?projectUuid=${project}`, cookieA);
    const other = openEventSource(`${app.url}/api/events`, cookieB);
    await Promise.all([all.opened, filtered.opened, other.opened]);
    const inProject = event(companyA, project);
    const elsewhere = event(companyA);
    await commitChanges(app, [{ ...inProject, extra: 'never sent' } as RealtimeEvent, elsewhere]);
    const got = await all.waitFor(2);
    expect(got.map((m) => JSON.parse(m))).toEqual([inProject, elsewhere]);
    expect(Object.keys(JSON.parse(got[0]))).toEqual(['companyUuid', 'projectUuid', 'entityType', 'entityUuid', 'action']);
    expect((await filtered.waitFor(1)).map((m) => JSON.parse(m))).toEqual([inProject]);
    const marker = event(companyB);
    await commitChange(app, marker);
    expect((await other.waitFor(1)).map((m) => JSON.parse(m))).toEqual([marker]);
    expect(filtered.messages).toHaveLength(1);
    for (const s of [all, filtered, other]) s.close();
  });

  it('streams only the caller’s own notification frames', async () => {
    const mine = openEventSource(`${app.url}/api/events/notifications`, cookieA);
    const theirs = openEventSource(`${app.url}/api/events/notifications`, cookieB);
    await Promise.all([mine.opened, theirs.opened]);
    await commitFrame(app, { recipientType: 'agent', recipientUuid: userA, frame: { type: 'count_update', unreadCount: 9 } });
    await commitFrame(app, { recipientType: 'user', recipientUuid: userA, frame: { type: 'count_update', unreadCount: 3 } });
    expect((await mine.waitFor(1)).map((m) => JSON.parse(m))).toEqual([{ type: 'count_update', unreadCount: 3 }]);
    await new Promise((r) => setTimeout(r, 100));
    expect(theirs.messages).toHaveLength(0);
    expect(mine.messages).toHaveLength(1);
    mine.close();
    theirs.close();
  });

  it('writes each data frame as `id:` + `data:` with the exact five-field JSON', async () => {
    const raw = await openRaw(`${app.url}/api/events`, { cookie: cookieA });
    await raw.waitForText(': connected');
    const e = event(companyA);
    const position = await commitChange(app, e);
    await raw.waitForText(e.entityUuid);
    raw.close();
    const block = raw.body().split('\n\n').find((b) => b.includes('data: '))!;
    // The id is the company's stream position (platform.md §6.2): `<epoch>-<n>`.
    expect(position).toMatch(/^[0-9a-z]+-\d+$/);
    expect(block.replace(/^\n+/, '')).toBe(`id: ${position}\ndata: ${JSON.stringify(e)}`);
  });

  it('writes a burst of events committed in one turn to each socket in one write, each once and in order', async () => {
    // bench:soak: at thousands of streams one socket write per event per connection saturated the event loop.
    const streams = await Promise.all(Array.from({ length: 3 }, () => openRaw(`${app.url}/api/events`, { cookie: cookieA })));
    const burst = Array.from({ length: 50 }, () => event(companyA));
    const writes = new Map<net.Socket, number>();
    const proto = net.Socket.prototype as unknown as Record<'_write' | '_writev', (...args: unknown[]) => unknown>;
    const original = { _write: proto._write, _writev: proto._writev };
    const count = (socket: net.Socket, chunks: string): void => {
      if (chunks.includes('data: ')) writes.set(socket, (writes.get(socket) ?? 0) + 1);
    };
    try {
      await Promise.all(streams.map((s) => s.waitForText(': connected')));
      proto._write = function (this: net.Socket, chunk: unknown, ...rest: unknown[]) {
        count(this, String(chunk));
        return original._write.call(this, chunk, ...rest);
      };
      proto._writev = function (this: net.Socket, chunks: unknown, ...rest: unknown[]) {
        count(this, (chunks as Array<{ chunk: unknown }>).map((c) => String(c.chunk)).join(''));
        return original._writev.call(this, chunks, ...rest);
      };
      await commitChanges(app, burst);
      await Promise.all(streams.map((s) => s.waitForText(burst[burst.length - 1].entityUuid)));
      Object.assign(proto, original);
      for (const s of streams) {
        const frames = s
          .body()
          .split('\n\n')
          .map((b) => b.replace(/^\n+/, ''))
          .filter((b) => b.includes('data: '))
          .map((b) => JSON.parse(b.slice(b.indexOf('data: ') + 6)));
        expect(frames).toEqual(burst);
      }
      expect([...writes.values()]).toEqual([1, 1, 1]);
    } finally {
      Object.assign(proto, original);
      for (const s of streams) s.close();
    }
  });

  it('disconnects a client that stops reading once more than 1 MiB of events waits for it', async () => {
    const f = new IdentityFactory(app.db.dataSource);
    const c = await f.company();
    const u = await f.user(c.uuid);
    const h = new HttpClient(app.url);
    await h.login(u.email, u.password);
    const metric = async (): Promise<number> =>
      Number(/svc_sse_slow_client_disconnects_total\{stream="changes"\} (\d+)/.exec(await (await fetch(`${app.url}/metrics`)).text())?.[1] ?? 0);
    const before = await metric();
    const { port } = new URL(app.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    const closed = new Promise<void>((r) => socket.on('close', () => r()));
    socket.on('error', () => undefined);
    await new Promise<void>((r) => socket.once('connect', () => r()));
    socket.write(`GET /api/events HTTP/1.1\r\nHost: x\r\nCookie: ${h.cookie}\r\n\r\n`);
    await new Promise<void>((r) => socket.once('data', () => r()));
    socket.pause();
    const service = app.get(StreamService);
    // Far more than the socket buffers on both sides plus 1 MiB; the stream must be cut well before the end.
    for (let sent = 0; sent < 200_000 && !socket.destroyed; sent += 500) {
      await commitChanges(app, Array.from({ length: 500 }, () => event(c.uuid)));
      await new Promise((r) => setImmediate(r));
      if ((await metric()) > before) break;
    }
    expect(await metric()).toBe(before + 1);
    socket.destroy();
    await closed;
    for (let i = 0; i < 100 && service.size > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(service.size).toBe(0);
  });

  it('releases every subscriber and the heartbeat timer when 500 clients go away', async () => {
    const hub = app.get(StreamService);
    // Streams closed by earlier tests are released asynchronously.
    for (let i = 0; i < 100 && hub.size > 0; i++) await new Promise((r) => setTimeout(r, 20));
    const before = hub.size;
    expect(before).toBe(0);
    const streams = await Promise.all(Array.from({ length: 500 }, () => openRaw(`${app.url}/api/events`, { cookie: cookieA })));
    expect(hub.size).toBe(before + 500);
    expect(hub.timerCount).toBe(1);
    for (const s of streams) s.close();
    for (let i = 0; i < 100 && hub.size > before; i++) await new Promise((r) => setTimeout(r, 20));
    expect(hub.size).toBe(0);
    expect(hub.timerCount).toBe(0);
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    expect(metrics).toMatch(/svc_sse_connections\{stream="changes"\} 0/);
    // Stream lifetimes have their own histogram; the request-duration histogram never sees a stream.
    expect(Number(/svc_sse_stream_duration_seconds_count\{route="\/api\/events"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(500);
    expect(metrics).not.toMatch(/svc_http_request_duration_seconds_count\{method="GET",route="\/api\/events",status="200"\}/);
  });

  it('ends open streams on shutdown', async () => {
    const other = await World.start();
    const f = new IdentityFactory(other.db.dataSource);
    const c = await f.company();
    const u = await f.user(c.uuid);
    const h = new HttpClient(other.url);
    await h.login(u.email, u.password);
    const raw = await openRaw(`${other.url}/api/events`, { cookie: h.cookie! });
    await raw.waitForText(': connected');
    const closing = other.close();
    await raw.ended;
    await closing;
  });
});
