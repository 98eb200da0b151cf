import net from 'node:net';
import { randomUUID } from 'node:crypto';
import type { RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { StreamService } from '../../src/modules/realtime/index.js';
import { HttpClient } from '../utils/http.js';
import { openEventSource, openRaw } from '../utils/sse.js';
import { nOf, parseBlock } from '../utils/sse-positions.js';
import { commitChange, commitChanges, commitFrame } from '../utils/stream-frames.js';
import { World } from '../utils/world.js';

/** The data blocks of a raw stream's body (frames and batches), with their fields. */
function dataBlocks(body: string): Array<Record<string, string>> {
  return body
    .split('\n\n')
    .map(parseBlock)
    .filter((b) => b.data !== undefined && b.event !== 'reset');
}

describe('SSE streams (e2e, real EventSource)', () => {
  let app: World;
  let cookieA: string;
  let cookieB: string;
  let companyA: string;
  let companyB: string;
  let userA: string;

  beforeAll(async () => {
    app = await World.start({ env: { SSE_HEARTBEAT_MS: '200', SSE_MAX_STREAMS_PER_USER: '1000' } });
    const f = app.ids;
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
    // Nest's SSE stream writes one blank line before the first block (allowed by docs/platform.md §6.2); then the connect
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
    // The id is the company's stream position (docs/platform.md §6.2): `<epoch>-<n>`.
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

  it('batch=1: a burst arrives in fewer frames than events, positions contiguous across them, each batch id its last position; a resume from inside it replays the rest once', async () => {
    const raw = await openRaw(`${app.url}/api/events?batch=1`, { cookie: cookieA });
    await raw.waitForText(': connected');
    const burst = Array.from({ length: 50 }, () => event(companyA));
    const positions = await commitChanges(app, burst);
    await raw.waitForText(burst[burst.length - 1].entityUuid);
    raw.close();
    const blocks = dataBlocks(raw.body());
    expect(blocks.length).toBeLessThan(burst.length);
    // Flattened in order they are the burst, exactly once; each block's id is the position of its last frame.
    let seen = 0;
    const flat: RealtimeEvent[] = [];
    for (const b of blocks) {
      const frames = b.event === 'batch' ? (JSON.parse(b.data) as RealtimeEvent[]) : [JSON.parse(b.data) as RealtimeEvent];
      if (b.event === 'batch') expect(frames.length).toBeGreaterThan(1);
      else expect(b.event).toBeUndefined();
      flat.push(...frames);
      seen += frames.length;
      expect(b.id).toBe(positions[seen - 1]);
    }
    expect(flat).toEqual(burst);

    // Resume from inside the burst: the rest once (joined), then live.
    const resumed = await openRaw(`${app.url}/api/events?batch=1`, { cookie: cookieA, 'last-event-id': positions[19] });
    await resumed.waitForText(burst[49].entityUuid);
    const live = event(companyA);
    const livePosition = await commitChange(app, live);
    await resumed.waitForText(live.entityUuid);
    resumed.close();
    const replayed = dataBlocks(resumed.body()).flatMap((b) => (b.event === 'batch' ? (JSON.parse(b.data) as RealtimeEvent[]) : [JSON.parse(b.data) as RealtimeEvent]));
    expect(replayed).toEqual([...burst.slice(20), live]);
    expect(dataBlocks(resumed.body()).at(-1)!.id).toBe(livePosition);
  });

  it('fan-out never holds up a request: a ping sent once a bulk call has returned is answered before the last stream has its last frame', async () => {
    const f = app.ids;
    const c = await f.company();
    const u = await f.user(c.uuid);
    const h = new HttpClient(app.url);
    await h.login(u.email, u.password);
    const project = (await h.post('/api/projects', { name: 'Fan-out' })).body.data.uuid as string;
    // Many streams without batch=1: every event is one trip through the pipeline per stream, a long fan-out.
    const streams = await Promise.all(Array.from({ length: 300 }, () => openRaw(`${app.url}/api/events`, { cookie: h.cookie! })));
    try {
      await Promise.all(streams.map((s) => s.waitForText(': connected')));
      const lastFrameAt: number[] = [];
      const tasks = Array.from({ length: 50 }, (_, i) => ({ title: `Fan ${i}`, acceptanceCriteriaItems: [{ description: 'Done' }] }));
      const created = await h.post(`/api/projects/${project}/tasks`, { tasks });
      expect(created.status).toBe(201);
      const lastUuid = created.body.data.tasks.at(-1).uuid as string;
      // The call has returned; now the ping.
      const ping = fetch(`${app.url}/health/live`).then((r) => {
        expect(r.status).toBe(200);
        return performance.now();
      });
      await Promise.all(streams.map((s) => s.waitForText(lastUuid, 30000).then(() => lastFrameAt.push(performance.now()))));
      const answeredAt = await ping;
      expect(answeredAt).toBeLessThan(Math.max(...lastFrameAt));
      // And every stream got all fifty, each once, in commit order.
      for (const s of streams.slice(0, 5)) {
        const frames = dataBlocks(s.body()).map((b) => JSON.parse(b.data) as RealtimeEvent);
        expect(frames.map((e) => e.action)).toEqual(Array(50).fill('created'));
      }
    } finally {
      for (const s of streams) s.close();
    }
  });

  it('disconnects a client that stops reading once more than 1 MiB of events waits for it', async () => {
    const f = app.ids;
    const c = await f.company();
    const u = await f.user(c.uuid);
    const h = new HttpClient(app.url);
    await h.login(u.email, u.password);
    const metric = (): Promise<number> => app.metric('svc_sse_slow_client_disconnects_total{stream="changes"}');
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

  it('a stream that stops reading longer than SSE_LAG_MS gets reset once it reads again, then live frames; the lag is counted', async () => {
    const lagging = await World.start({ env: { SSE_LAG_MS: '300' } });
    try {
      const f = lagging.ids;
      const c = await f.company();
      const u = await f.user(c.uuid);
      const h = new HttpClient(lagging.url);
      await h.login(u.email, u.password);
      const lags = (): Promise<number> => lagging.metric('svc_sse_resets_total{stream="changes",reason="lagging"}');
      const { port } = new URL(lagging.url);
      const socket = net.connect(Number(port), '127.0.0.1');
      socket.on('error', () => undefined);
      await new Promise<void>((r) => socket.once('connect', () => r()));
      socket.write(`GET /api/events?batch=1 HTTP/1.1\r\nHost: x\r\nCookie: ${h.cookie}\r\n\r\n`);
      await new Promise<void>((r) => socket.once('data', () => r()));
      socket.pause();
      // Fill the socket's buffers until the response backs up, then wait past the lag limit: the next frames are skipped.
      let committed = 0;
      for (let i = 0; i < 300 && (await lags()) === 0; i++) {
        await commitChanges(lagging, Array.from({ length: 1000 }, () => event(c.uuid)));
        committed += 1000;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(await lags()).toBe(1);
      // Reading again: everything queued before the lag, then one reset, then live frames.
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.resume();
      const deadline = Date.now() + 15000;
      while (!text.includes('event: reset') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(text).toContain('event: reset');
      const live = event(c.uuid);
      const livePosition = await commitChange(lagging, live);
      while (!text.includes(live.entityUuid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const blocks = text.slice(text.indexOf('\r\n\r\n') + 4).split('\n\n').map(parseBlock);
      const reset = blocks.findIndex((b) => b.event === 'reset');
      const after = blocks.slice(reset + 1).filter((b) => b.data !== undefined && b.event !== 'reset');
      // The reset names the newest position skipped; the live frame follows it, and only once.
      expect(nOf(blocks[reset].id)).toBeLessThan(nOf(livePosition));
      expect(nOf(blocks[reset].id)).toBeGreaterThan(committed - 3000);
      expect(after.map((b) => b.id)).toEqual([livePosition]);
      expect(text.split(live.entityUuid)).toHaveLength(2);
      // Before the reset, the frames the stream got were contiguous from its start: nothing was silently lost.
      const before = blocks.slice(0, reset).filter((b) => b.event === 'batch' || (b.data !== undefined && b.id !== undefined && b.retry === undefined));
      let expected = nOf(blocks.find((b) => b.retry !== undefined)!.id) + 1;
      for (const b of before) {
        const count = b.event === 'batch' ? (JSON.parse(b.data) as unknown[]).length : 1;
        expect(nOf(b.id)).toBe(expected + count - 1);
        expected += count;
      }
      socket.destroy();
    } finally {
      await lagging.close();
    }
  });

  it('ends open streams on shutdown', async () => {
    const other = await World.start();
    const f = other.ids;
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
