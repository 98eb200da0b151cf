import { randomUUID } from 'node:crypto';
import { StreamService } from '../../src/modules/realtime/index.js';
import type { RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { NotificationFactory } from '../factories/notification.factory.js';
import { HttpClient } from '../utils/http.js';
import { blocks, dataIds, openEventSource, openRaw } from '../utils/sse.js';
import { commitChange, commitChanges } from '../utils/stream-frames.js';
import { World } from '../utils/world.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async (cond: () => boolean | Promise<boolean>, timeoutMs = 5000, what = 'condition'): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`${what} not met in time`);
    await sleep(20);
  }
};


describe('resumable streams (docs/platform.md §6.2): positions, Last-Event-ID, reset, session binding, caps', () => {
  let app: World;
  let companyUuid: string;
  let http: HttpClient;
  let cookie: string;

  beforeAll(async () => {
    app = await World.start({ env: { SSE_HEARTBEAT_MS: '200', SSE_RETRY_MS: '100', SSE_MAX_STREAMS_PER_USER: '3' } });
    const c = await app.ids.company();
    companyUuid = c.uuid;
    const u = await app.ids.user(c.uuid);
    http = new HttpClient(app.url);
    await http.login(u.email, u.password);
    cookie = http.cookie!;
  });
  afterAll(() => app.close());
  afterEach(async () => {
    app.get(StreamService).endAll('client');
    await until(() => app.get(StreamService).size === 0);
  });

  const event = (projectUuid: string = randomUUID()): RealtimeEvent => ({ companyUuid, projectUuid, entityType: 'task', entityUuid: randomUUID(), action: 'updated' });
  const metric = async (pattern: RegExp): Promise<number> => Number(pattern.exec(await (await fetch(`${app.url}/metrics`)).text())?.[1] ?? 0);

  it('a real EventSource that reconnects by itself resumes with Last-Event-ID: every frame once, in order, none lost while it was away', async () => {
    const es = openEventSource(`${app.url}/api/events`, cookie);
    await es.opened;
    const first = event();
    await commitChange(app, first);
    await es.waitFor(1);
    // The server cuts the stream; while the client waits its `retry:` (100–200 ms here), three frames are committed.
    app.get(StreamService).endAll('client');
    const missed = [event(), event(), event()];
    await commitChanges(app, missed);
    const after = event();
    await sleep(400);
    await commitChange(app, after);
    const got = await es.waitFor(5, 5000);
    expect(got.map((m) => JSON.parse(m))).toEqual([first, ...missed, after]);
    await sleep(200);
    expect(es.messages).toHaveLength(5);
    es.close();
  });

  it('replays after ?lastEventId= (the header wins), keeps a project filter, then goes live without a seam', async () => {
    const project = randomUUID();
    const base = await commitChange(app, event(project));
    const [, inProject] = await commitChanges(app, [event(), event(project), event()]);
    const byQuery = await openRaw(`${app.url}/api/events?projectUuid=${project}&lastEventId=${base}`, { cookie });
    const headerWins = await openRaw(`${app.url}/api/events?projectUuid=${project}&lastEventId=bogus`, { cookie, 'last-event-id': base });
    const live = await commitChange(app, event(project));
    for (const raw of [byQuery, headerWins]) {
      await raw.waitForText(`id: ${live}`);
      const b = blocks(raw);
      expect(b[0]).toEqual({ comment: 'connected' });
      expect(b[1]).toEqual({ id: base, retry: expect.stringMatching(/^\d+$/) });
      expect(dataIds(raw)).toEqual([inProject, live]);
      expect(b.some((x) => x.event === 'reset')).toBe(false);
      raw.close();
    }
  });

  it('answers a position from another epoch, ahead of the head, or malformed with one `reset` at the head, then live', async () => {
    let head = await commitChange(app, event());
    const [epoch, n] = head.split('-');
    const resets = await metric(/svc_stream_resume_total\{stream="changes",outcome="reset"\} (\d+)/);
    for (const given of [`zz${epoch}-${n}`, `${epoch}-${Number(n) + 1000}`, 'not-a-position']) {
      const raw = await openRaw(`${app.url}/api/events`, { cookie, 'last-event-id': given });
      await raw.waitForText('event: reset');
      const reset = blocks(raw).filter((b) => b.event === 'reset');
      expect(reset).toEqual([{ event: 'reset', id: head, data: '{}' }]);
      const next = await commitChange(app, event());
      await raw.waitForText(`id: ${next}`);
      expect(dataIds(raw)).toEqual([next]);
      raw.close();
      head = next;
    }
    expect(await metric(/svc_stream_resume_total\{stream="changes",outcome="reset"\} (\d+)/)).toBe(resets + 3);
  });

  it('defect 5: every stream gets its own `retry:` between SSE_RETRY_MS and twice it, so reconnects spread out', async () => {
    const retries: number[] = [];
    const h = new HttpClient(app.url);
    const u = await app.ids.user(companyUuid);
    await h.login(u.email, u.password);
    for (let i = 0; i < 12; i++) {
      // Three at a time: the per-user cap is 3 in this world.
      const raw = await openRaw(`${app.url}/api/events`, { cookie: h.cookie! });
      await raw.waitForText('retry: ');
      retries.push(Number(blocks(raw)[1].retry));
      raw.close();
      await until(() => app.get(StreamService).size === 0);
    }
    expect(retries.every((r) => r >= 100 && r < 200)).toBe(true);
    expect(new Set(retries).size).toBeGreaterThanOrEqual(4);
  });

  it('defect 6: a user opens at most SSE_MAX_STREAMS_PER_USER streams per instance; one more is 429 with Retry-After', async () => {
    const open = await Promise.all([openRaw(`${app.url}/api/events`, { cookie }), openRaw(`${app.url}/api/events/notifications`, { cookie }), openRaw(`${app.url}/api/events`, { cookie })]);
    expect(open.map((r) => r.status)).toEqual([200, 200, 200]);
    const refused = await fetch(`${app.url}/api/events`, { headers: { cookie } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.text()).toBe('Too many streams');
    // Another user is not affected; closing one stream frees its slot.
    open[0].close();
    await until(() => app.get(StreamService).size === 2);
    const again = await openRaw(`${app.url}/api/events`, { cookie });
    expect(again.status).toBe(200);
    for (const r of [...open, again]) r.close();
  });

  it('defect 4: logout ends that session’s streams at once; a deleted session’s stream ends within a heartbeat', async () => {
    const u = await app.ids.user(companyUuid);
    const s1 = new HttpClient(app.url);
    await s1.login(u.email, u.password);
    const s2 = new HttpClient(app.url);
    await s2.login(u.email, u.password);
    const a = await openRaw(`${app.url}/api/events`, { cookie: s1.cookie! });
    const b = await openRaw(`${app.url}/api/events/notifications`, { cookie: s1.cookie! });
    const other = await openRaw(`${app.url}/api/events`, { cookie: s2.cookie! });
    await Promise.all([a, b, other].map((r) => r.waitForText(': connected')));
    const ended = await metric(/svc_sse_streams_ended_total\{stream="changes",reason="logout"\} (\d+)/);
    expect((await s1.post('/api/auth/logout')).status).toBe(200);
    await Promise.all([a.ended, b.ended]);
    expect(await metric(/svc_sse_streams_ended_total\{stream="changes",reason="logout"\} (\d+)/)).toBe(ended + 1);
    // The other session's stream is untouched; the reconnect of a logged-out stream is refused.
    const next = await commitChange(app, event());
    await other.waitForText(`id: ${next}`);
    expect((await fetch(`${app.url}/api/events`, { headers: { cookie: s1.cookie ?? `svc_session=gone` } })).status).toBe(401);
    // Deleted behind the service's back (an admin, an expiry sweep): the stream ends at the next heartbeat (200 ms).
    await app.ds.query(`DELETE FROM user_session WHERE user_uuid = $1`, [u.uuid]);
    await other.ended;
  });

  it('X-Stream-Position: the unread count and the list say at which notification position they were read', async () => {
    const u = await app.ids.user(companyUuid);
    const h = new HttpClient(app.url);
    await h.login(u.email, u.password);
    const [note] = await new NotificationFactory(app.ds).many({ type: 'user', uuid: u.uuid, companyUuid }, 3);
    const before = (await h.get('/api/notifications/unread-count')).headers.get('x-stream-position')!;
    expect(before).toMatch(/^[0-9a-z]+-0$/);
    const bell = await openRaw(`${app.url}/api/events/notifications`, { cookie: h.cookie! });
    await bell.waitForText('retry: ');
    expect(blocks(bell)[1].id).toBe(before);
    expect((await h.patch(`/api/notifications/${note.uuid}/read`)).status).toBe(200);
    await bell.waitForText('count_update');
    const frame = blocks(bell).find((b) => b.data?.includes('count_update'))!;
    expect(JSON.parse(frame.data)).toEqual({ type: 'count_update', unreadCount: 2 });
    const count = await h.get('/api/notifications/unread-count');
    const list = await h.get('/api/notifications');
    expect(count.body.data.count).toBe(2);
    expect(count.headers.get('x-stream-position')).toBe(frame.id);
    expect(list.headers.get('x-stream-position')).toBe(frame.id);
    expect(Number(frame.id.split('-')[1])).toBe(Number(before.split('-')[1]) + 1);
    // A resumed bell replays the frame it missed.
    const resumed = await openRaw(`${app.url}/api/events/notifications`, { cookie: h.cookie!, 'last-event-id': before });
    await resumed.waitForText(`id: ${frame.id}`);
    expect(dataIds(resumed)).toEqual([frame.id]);
    bell.close();
    resumed.close();
  });
});
