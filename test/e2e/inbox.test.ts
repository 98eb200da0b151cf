import { randomUUID } from 'node:crypto';
import { EventBus } from '../../src/shared/event-bus/event-bus.port.js';
import type { NotificationMessage } from '../../src/shared/event-bus/events.js';
import { SnoozeWaker } from '../../src/modules/notifications/snooze-waker.js';
import { NotificationFactory } from '../factories/notification.factory.js';
import type { SeededUser } from '../factories/identity.factory.js';
import { HttpClient, type HttpResult } from '../utils/http.js';
import { callTool } from '../utils/mcp-client.js';
import { World, type WorldAgent } from '../utils/world.js';

/**
 * The agent inbox (docs/notifications.md §2.0) on two instances over a real nats-server and one real PostgreSQL: deltas by
 * position, waits that a change on the other instance wakes, cursor paging, the watermark read-all, snooze (woken
 * exactly once) and unarchive, and their limits and refusals. Notifications are caused the way users cause them: a
 * comment that @mentions the agent, posted through instance A.
 */
const NATS_URL = process.env.NATS_TEST_URL ?? 'nats://127.0.0.1:4222';

interface Delta {
  notifications: Array<{ uuid: string; readAt: string | null; archivedAt: string | null; snoozedUntil: string | null; message: string }>;
  position: string;
  unreadCount: number;
}

describe('agent inbox across two instances (e2e, real NATS)', () => {
  let a: World;
  let b: World;
  let alice: SeededUser;
  let asAlice: HttpClient;
  let bot: WorldAgent;
  let onA: HttpClient;
  let onB: HttpClient;
  let idea: string;
  let companyUuid: string;
  let counter = 0;

  beforeAll(async () => {
    const env = { NATS_URL, BUS_SUBJECT_PREFIX: `inbox${randomUUID().slice(0, 8)}` };
    a = await World.start({ env });
    // B's request deadline is shorter than the waits below: waits must be exempt from it.
    b = await World.start({ env: { ...env, REQUEST_TIMEOUT_MS: '1500' }, sharing: a });
    const c = await a.ids.company('Inbox');
    companyUuid = c.uuid;
    alice = await a.user(c.uuid, { name: 'Alice' });
    asAlice = await a.login(alice);
    const project = (await asAlice.post('/api/projects', { name: 'Inbox project' })).body.data.uuid as string;
    idea = (await asAlice.post(`/api/projects/${project}/ideas`, { title: 'Waiting idea' })).body.data.uuid as string;
    bot = await b.agent(c.uuid, alice.uuid, { name: 'Waiter' });
    onA = new HttpClient(a.url, { authorization: `Bearer ${bot.key}` });
    onB = new HttpClient(b.url, { authorization: `Bearer ${bot.key}` });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  /** One notification for the bot, created through instance A (committed before the answer). */
  const mention = async (): Promise<void> => {
    counter += 1;
    const res = await asAlice.post('/api/comments', { targetType: 'idea', targetUuid: idea, content: `@[Waiter](agent:${bot.uuid}) ping ${counter}` });
    expect(res.status).toBe(201);
  };
  const head = async (client: HttpClient = onB): Promise<string> => (await client.get('/api/notifications/unread-count')).headers.get('x-stream-position')!;
  const delta = async (after: string, extra = '', client: HttpClient = onB) => client.get<{ data: Delta }>(`/api/notifications?after=${encodeURIComponent(after)}${extra}`);

  it('a wait on instance B answers within 200 ms (median of 5) of a notification created through instance A', async () => {
    const latencies: number[] = [];
    for (let i = 0; i < 5; i++) {
      const from = await head();
      const waiting = delta(from, '&waitSeconds=20').then((res) => ({ res, at: performance.now() }));
      await new Promise((r) => setTimeout(r, 150));
      await mention();
      const created = performance.now();
      const { res, at } = await waiting;
      expect(res.status).toBe(200);
      expect(res.body.data.notifications).toHaveLength(1);
      expect(res.body.data.notifications[0].message).toContain(`ping ${counter}`);
      expect(res.body.data.position).not.toBe(from);
      latencies.push(at - created);
    }
    latencies.sort((x, y) => x - y);
    expect(latencies[2]).toBeLessThan(200);
    // Every one woke on the change, none at its 20 s deadline.
    expect(latencies[4]).toBeLessThan(5000);
  });

  it('a wait with nothing new answers an empty delta at its deadline, with the same position and the poll hint', async () => {
    const from = await head();
    const started = performance.now();
    const res = await delta(from, '&waitSeconds=2');
    const took = performance.now() - started;
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ notifications: [], position: from, unreadCount: expect.any(Number) });
    // Past B's 1.5 s request deadline: the wait is exempt from it.
    expect(took).toBeGreaterThanOrEqual(1950);
    expect(res.headers.get('x-poll-interval')).toMatch(/^\d+$/);
    expect(res.headers.get('x-stream-position')).toBe(from);
  });

  it('reads the same delta twice, marking nothing; later changes move the rows to later positions', async () => {
    const from = await head();
    await mention();
    await mention();
    await mention();
    const first = await delta(from);
    const second = await delta(from, '', onA);
    expect(first.status).toBe(200);
    expect(first.body.data.notifications).toHaveLength(3);
    expect(second.body.data).toEqual(first.body.data);
    expect(first.body.data.notifications.every((n) => n.readAt === null)).toBe(true);
    expect(first.body.data.position).toBe(await head());
    // Filters and paging are ignored; a read appears as a change, in its current state.
    const same = await delta(from, '&unreadOnly=true&limit=1&offset=2&projectUuid=' + randomUUID());
    expect(same.body.data).toEqual(first.body.data);
    const target = first.body.data.notifications[0].uuid;
    expect((await onA.patch(`/api/notifications/${target}/read`)).status).toBe(200);
    const after = await delta(first.body.data.position);
    expect(after.body.data.notifications.map((n) => [n.uuid, n.readAt !== null])).toEqual([[target, true]]);
    expect(after.body.data.unreadCount).toBe(first.body.data.unreadCount - 1);
  });

  it('pages with a cursor while notifications keep arriving: no duplicate and no gap', async () => {
    await a.ds.query(`DELETE FROM notification WHERE recipient_uuid = $1`, [bot.uuid]);
    for (let i = 0; i < 12; i++) await mention();
    const existing = (await a.ds.query(`SELECT uuid FROM notification WHERE recipient_uuid = $1`, [bot.uuid])).map((r: { uuid: string }) => r.uuid).sort();
    const seen: string[] = [];
    let cursor: string | null = '';
    let pages = 0;
    while (cursor !== null) {
      const res: HttpResult<{ data: { notifications: Array<{ uuid: string }>; nextCursor: string | null } }> = await onB.get(
        `/api/notifications?limit=5&cursor=${encodeURIComponent(cursor)}`,
      );
      expect(res.status).toBe(200);
      seen.push(...res.body.data.notifications.map((n) => n.uuid));
      cursor = res.body.data.nextCursor;
      pages += 1;
      // New ones arrive between pages (they sort above the cursor).
      if (pages < 4) await mention();
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(existing.every((u: string) => seen.includes(u))).toBe(true);
    // The tool pages the same way.
    const tool = await callTool(bot.client, 'svc_get_notifications', { status: 'all', cursor: '', pageSize: 100, autoMarkRead: false });
    expect(tool.isError).toBe(false);
    expect(tool.data.nextCursor).toBeNull();
    expect(tool.data.notifications.length).toBeGreaterThanOrEqual(seen.length);
    const bad = await onB.get('/api/notifications?cursor=nonsense');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'cursor', message: expect.any(String) }] });
  });

  it('read-all up to a position leaves a notification that arrives during the sweep unread', async () => {
    await mention();
    await mention();
    const upTo = await head();
    const [sweep] = await Promise.all([onB.post('/api/notifications/read-all', { upTo }), mention()]);
    expect(sweep.status).toBe(200);
    const unread = await a.ds.query(`SELECT message FROM notification WHERE recipient_uuid = $1 AND read_at IS NULL`, [bot.uuid]);
    expect(unread.map((r: { message: string }) => r.message)).toEqual([expect.stringContaining(`ping ${counter}`)]);
    expect(sweep.body.data.count).toBeGreaterThanOrEqual(2);
    // Repeating it changes nothing and publishes nothing (the position stays).
    const before = await head();
    expect((await onB.post('/api/notifications/read-all', { upTo })).body.data).toEqual({ count: 0 });
    expect(await head()).toBe(before);
    // The tool form; an unknown position is refused.
    expect(await callTool(bot.client, 'svc_mark_notification_read', { all: true, upTo: await head() })).toEqual({ isError: false, data: { count: 1 } });
    const ahead = await onB.post('/api/notifications/read-all', { upTo: `${before.split('-')[0]}-999999999` });
    expect(ahead.status).toBe(400);
    expect(ahead.body.error.details).toEqual([{ field: 'upTo', message: expect.any(String) }]);
  });

  it('a snoozed notification leaves lists and counts, then comes back unread exactly once across both instances', async () => {
    await mention();
    const [note] = await a.ds.query(`SELECT uuid FROM notification WHERE recipient_uuid = $1 ORDER BY created_at DESC LIMIT 1`, [bot.uuid]);
    const countBefore = (await onB.get('/api/notifications/unread-count')).body.data.count as number;
    const until = new Date(Date.now() + 3 * 60_000 + 10_000).toISOString();
    const snoozed = await onA.patch(`/api/notifications/${note.uuid}/snooze`, { until });
    expect(snoozed.status).toBe(200);
    expect(snoozed.body.data).toMatchObject({ uuid: note.uuid, snoozedUntil: until });
    expect((await onB.get('/api/notifications/unread-count')).body.data.count).toBe(countBefore - 1);
    expect((await onB.get('/api/notifications?limit=100')).body.data.notifications.map((n: { uuid: string }) => n.uuid)).not.toContain(note.uuid);
    // Snoozing again to the same time changes nothing.
    const pos = await head();
    expect((await callTool(bot.client, 'svc_snooze_notification', { notificationUuid: note.uuid, until })).data.notification.snoozedUntil).toBe(until);
    expect(await head()).toBe(pos);

    const frames: Array<{ on: string; m: NotificationMessage }> = [];
    const interests = [];
    for (const [on, w] of [['a', a], ['b', b]] as const) {
      w.get(EventBus).subscribe('notification', (m) => {
        if (m.recipientUuid === bot.uuid) frames.push({ on, m });
      });
      // Each instance receives the bot's frames from the other only while interested in it (a stream or a wait).
      const interest = w.get(EventBus).interest({ kind: 'notification', recipientType: 'agent', recipientUuid: bot.uuid });
      interests.push(interest);
      await interest.ready;
    }
    const waiting = delta(pos, '&waitSeconds=20');
    // Its time has come; both instances' wakers run at once.
    await a.ds.query(`UPDATE notification SET snoozed_until = now() - interval '1 second' WHERE uuid = $1`, [note.uuid]);
    await Promise.all([a.get(SnoozeWaker).wakeDue(), b.get(SnoozeWaker).wakeDue(), a.get(SnoozeWaker).wakeDue()]);
    const woke = await waiting;
    expect(woke.body.data.notifications.map((n) => [n.uuid, n.readAt, n.snoozedUntil])).toEqual([[note.uuid, null, null]]);
    await new Promise((r) => setTimeout(r, 300));
    const news = frames.filter((f) => f.m.frame.type === 'new_notification');
    // One frame: delivered once on each instance (locally where it woke, relayed to the other).
    expect(news.map((f) => f.on).sort()).toEqual(['a', 'b']);
    expect(news[0].m.frame).toMatchObject({ type: 'new_notification', notificationUuid: note.uuid, unreadCount: countBefore });
    expect((await onB.get('/api/notifications/unread-count')).body.data.count).toBe(countBefore);
    for (const i of interests) i.release();
  });

  it('unarchive brings an archived notification back; both are idempotent and 404 for someone else’s', async () => {
    await mention();
    const [note] = await a.ds.query(`SELECT uuid FROM notification WHERE recipient_uuid = $1 ORDER BY created_at DESC LIMIT 1`, [bot.uuid]);
    expect((await onB.patch(`/api/notifications/${note.uuid}/archive`)).body.data.archivedAt).not.toBeNull();
    const pos = await head();
    const back = await callTool(bot.client, 'svc_unarchive_notification', { notificationUuid: note.uuid });
    expect(back).toMatchObject({ isError: false, data: { notification: { uuid: note.uuid, archivedAt: null } } });
    expect(await head()).not.toBe(pos);
    const again = await head();
    expect((await onB.patch(`/api/notifications/${note.uuid}/unarchive`)).body.data.archivedAt).toBeNull();
    expect(await head()).toBe(again);
    // Another recipient (the user) does not see the agent's notification.
    for (const path of [`/api/notifications/${note.uuid}/unarchive`, `/api/notifications/${note.uuid}/snooze`]) {
      const res = await asAlice.patch(path, { until: new Date(Date.now() + 600_000).toISOString() });
      expect([path, res.status, res.body.error?.code]).toEqual([path, 404, 'NOT_FOUND']);
    }
    expect(await callTool(bot.client, 'svc_unarchive_notification', { notificationUuid: randomUUID() })).toMatchObject({ isError: true, data: { error: { code: 'NOT_FOUND' } } });
  });

  it('refuses bad positions, waits, snooze times and paging with VALIDATION_ERROR on the field', async () => {
    const epoch = (await head()).split('-')[0];
    const cases: Array<[string, string]> = [
      ['/api/notifications?after=nonsense', 'after'],
      ['/api/notifications?after=zzzz-1', 'after'],
      [`/api/notifications?after=${epoch}-999999999`, 'after'],
      [`/api/notifications?after=${epoch}-0&waitSeconds=0`, 'waitSeconds'],
      [`/api/notifications?after=${epoch}-0&waitSeconds=31`, 'waitSeconds'],
      [`/api/notifications?after=${epoch}-0&waitSeconds=abc`, 'waitSeconds'],
      ['/api/notifications?waitSeconds=5', 'waitSeconds'],
    ];
    for (const [path, field] of cases) {
      const res = await onB.get(path);
      expect([path, res.status, res.body.error?.code, res.body.error?.details?.[0]?.field]).toEqual([path, 400, 'VALIDATION_ERROR', field]);
    }
    const [note] = await a.ds.query(`SELECT uuid FROM notification WHERE recipient_uuid = $1 LIMIT 1`, [bot.uuid]);
    for (const until of [new Date(Date.now() + 60_000).toISOString(), 'tomorrow', '2099-01-01T00:00:00Z']) {
      const res = await onB.patch(`/api/notifications/${note.uuid}/snooze`, { until });
      expect([until, res.status, res.body.error?.details?.[0]?.field]).toEqual([until, 400, 'until']);
    }
    expect((await onB.patch(`/api/notifications/not-a-uuid/snooze`, { until: new Date(Date.now() + 600_000).toISOString() })).status).toBe(404);
    const tool = await callTool(bot.client, 'svc_get_notifications', { after: 'nonsense' });
    expect(tool).toMatchObject({ isError: true, data: { error: { code: 'VALIDATION_ERROR' } } });
  });

  it('a delta holds whole positions up to 100 records; a bigger change at one position comes whole', async () => {
    await a.ds.query(`DELETE FROM notification WHERE recipient_uuid = $1`, [bot.uuid]);
    const rows = await new NotificationFactory(a.ds).many({ type: 'agent', uuid: bot.uuid, companyUuid }, 150);
    const from = await head();
    // One read-all: 150 rows at one position.
    expect((await onB.post('/api/notifications/read-all', {})).body.data).toEqual({ count: 150 });
    const whole = await delta(from);
    expect(whole.body.data.notifications).toHaveLength(150);
    expect(whole.body.data.position).toBe(await head());
    // 120 single changes: 100 in the first answer, the rest from its position.
    for (const r of rows.slice(0, 120)) expect((await onB.patch(`/api/notifications/${r.uuid}/archive`)).status).toBe(200);
    const first = await delta(whole.body.data.position);
    expect(first.body.data.notifications).toHaveLength(100);
    const rest = await delta(first.body.data.position);
    expect(rest.body.data.notifications).toHaveLength(20);
    expect(rest.body.data.position).toBe(await head());
    expect(new Set([...first.body.data.notifications, ...rest.body.data.notifications].map((n) => n.uuid)).size).toBe(120);
    expect(rest.body.data.notifications.every((n) => n.archivedAt !== null)).toBe(true);
  });

  it('limits concurrent waits per recipient: the fifth is 429 RATE_LIMITED on REST and isError from the tool', async () => {
    const from = await head();
    const waits = Array.from({ length: 4 }, () => delta(from, '&waitSeconds=20'));
    await new Promise((r) => setTimeout(r, 300));
    const fifth = await delta(from, '&waitSeconds=20');
    expect(fifth.status).toBe(429);
    expect(fifth.body).toEqual({ success: false, error: { code: 'RATE_LIMITED', message: 'Too many concurrent waits' } });
    const tool = await callTool(bot.client, 'svc_get_notifications', { after: from, waitSeconds: 5 });
    expect(tool).toEqual({ isError: true, data: { error: { code: 'RATE_LIMITED', message: 'Too many concurrent waits' } } });
    // Another instance counts its own waits; a plain delta is never limited.
    expect((await delta(from)).status).toBe(200);
    await mention();
    const answers = await Promise.all(waits);
    expect(answers.map((r) => [r.status, r.body.data.notifications.length])).toEqual(Array(4).fill([200, 1]));
    // The slots are free again: the tool waits (past B's request deadline) and answers the delta with its hint.
    const next = answers[0].body.data.position;
    const [res] = await Promise.all([callTool(bot.client, 'svc_get_notifications', { after: next, waitSeconds: 10 }), new Promise((r) => setTimeout(r, 1700)).then(mention)]);
    expect(res.isError).toBe(false);
    expect(res.data).toMatchObject({ notifications: [expect.objectContaining({ message: expect.stringContaining(`ping ${counter}`) })], pollAfterSeconds: expect.any(Number) });
  });

  it('a waiting caller that leaves gives its slot back at once, on REST and through the tool', async () => {
    const from = await head();
    const leave = new AbortController();
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'svc_get_notifications', arguments: { after: from, waitSeconds: 25 } } });
    const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${bot.key}` };
    const left = (p: Promise<unknown>) => p.then(() => 'answered', () => 'left');
    const waiting = [
      ...[1, 2].map((id) => left(fetch(`${b.url}/api/mcp`, { method: 'POST', headers: mcpHeaders, body: JSON.stringify(call(id)), signal: leave.signal }))),
      ...[1, 2].map(() => left(fetch(`${b.url}/api/notifications?after=${encodeURIComponent(from)}&waitSeconds=25`, { headers: { authorization: `Bearer ${bot.key}` }, signal: leave.signal }))),
    ];
    await new Promise((r) => setTimeout(r, 300));
    expect((await delta(from, '&waitSeconds=1')).status).toBe(429);
    leave.abort();
    expect(await Promise.all(waiting)).toEqual(Array(4).fill('left'));
    await new Promise((r) => setTimeout(r, 200));
    // All four slots are free again (the two tool waits used to keep theirs for their 25 s).
    const again = await Promise.all(Array.from({ length: 4 }, () => delta(from, '&waitSeconds=1')));
    expect(again.map((r) => [r.status, r.body.data?.notifications.length])).toEqual(Array(4).fill([200, 0]));
  });

  it('counts waits in their own histogram, not in the request-latency one', async () => {
    const counted = async (): Promise<Record<string, number>> => {
      const text = await (await fetch(`${b.url}/metrics`)).text();
      const count = (metric: string, method: string, route: string) =>
        Number(new RegExp(`^${metric}_count\\{method="${method}",route="${route.replace(/\//g, '\\/')}",status="200"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
      return {
        restWaits: count('svc_http_wait_duration_seconds', 'GET', '/api/notifications'),
        restRequests: count('svc_http_request_duration_seconds', 'GET', '/api/notifications'),
        toolWaits: count('svc_http_wait_duration_seconds', 'POST', '/api/mcp'),
        toolRequests: count('svc_http_request_duration_seconds', 'POST', '/api/mcp'),
        toolLatencies: Number(/^svc_mcp_call_duration_seconds_count\{tool="svc_get_notifications"\} (\d+)$/m.exec(text)?.[1] ?? 0),
      };
    };
    const from = await head();
    const before = await counted();
    expect((await delta(from, '&waitSeconds=1')).status).toBe(200);
    expect((await callTool(bot.client, 'svc_get_notifications', { after: from, waitSeconds: 1 })).isError).toBe(false);
    await new Promise((r) => setTimeout(r, 100));
    const after = await counted();
    expect(after).toEqual({ ...before, restWaits: before.restWaits + 1, toolWaits: before.toolWaits + 1 });
    // A delta without a wait is an ordinary request.
    expect((await delta(from)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 100));
    expect((await counted()).restRequests).toBe(after.restRequests + 1);
  });

  it('ends waits with an empty delta when the instance shuts down', async () => {
    const c = await World.start({ env: { NATS_URL, BUS_SUBJECT_PREFIX: `inboxc${randomUUID().slice(0, 8)}` }, sharing: a });
    const onC = new HttpClient(c.url, { authorization: `Bearer ${bot.key}` });
    const from = await head(onC);
    const started = performance.now();
    const waiting = delta(from, '&waitSeconds=25', onC);
    await new Promise((r) => setTimeout(r, 300));
    await c.close();
    const res = await waiting;
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ notifications: [], position: from });
    expect(performance.now() - started).toBeLessThan(12_000);
  });
});
