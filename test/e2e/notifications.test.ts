import { randomUUID } from 'node:crypto';
import { CommentService } from '../../src/modules/collaboration/index.js';
import { CollabFactory } from '../factories/collab.factory.js';
import type { SeededUser } from '../factories/identity.factory.js';
import { NotificationFactory, type Inbox } from '../factories/notification.factory.js';
import { userActor, World } from '../utils/world.js';
import { HttpClient } from '../utils/http.js';
import { openEventSource } from '../utils/sse.js';
import { NotificationEntity } from '../../src/entities.js';

const UNAUTHORIZED = { success: false, error: { code: 'UNAUTHORIZED', message: 'Authentication required' } };
const NOT_FOUND = { success: false, error: { code: 'NOT_FOUND', message: 'Notification not found' } };

describe('notification routes (e2e)', () => {
  let app: World;
  let n: NotificationFactory;
  let companyUuid: string;
  let alice: SeededUser;
  let bob: SeededUser;
  let asAlice: HttpClient;
  let asBob: HttpClient;
  let asAgent: HttpClient;
  let agentInbox: Inbox;
  let aliceInbox: Inbox;
  let bobInbox: Inbox;
  let outsiderInbox: Inbox;

  const unreadOf = async (uuid: string): Promise<boolean> =>
    (await app.db.dataSource.getRepository(NotificationEntity).findOneByOrFail({ uuid })).readAt === null;
  const clear = () => app.db.dataSource.query('DELETE FROM notification WHERE recipient_uuid = ANY($1::uuid[])', [[alice.uuid, bob.uuid, agentInbox.uuid]]);

  beforeAll(async () => {
    app = await World.start();
    n = new NotificationFactory(app.db.dataSource);
    const ids = app.ids;
    const company = await ids.company();
    companyUuid = company.uuid;
    alice = await ids.user(companyUuid, { name: 'Alice' });
    bob = await ids.user(companyUuid, { name: 'Bob' });
    const agent = await ids.agent(companyUuid, alice.uuid, { name: 'Dev Bot' });
    const other = await ids.company();
    const outsider = await ids.user(other.uuid);
    aliceInbox = { type: 'user', uuid: alice.uuid, companyUuid };
    bobInbox = { type: 'user', uuid: bob.uuid, companyUuid };
    agentInbox = { type: 'agent', uuid: agent.agent.uuid, companyUuid };
    outsiderInbox = { type: 'user', uuid: outsider.uuid, companyUuid: other.uuid };
    asAlice = new HttpClient(app.url);
    await asAlice.login(alice.email, alice.password);
    asBob = new HttpClient(app.url);
    await asBob.login(bob.email, bob.password);
    asAgent = new HttpClient(app.url, { authorization: `Bearer ${agent.key}` });
  });
  afterAll(() => app.close());
  beforeEach(() => clear());

  describe('authentication', () => {
    // Every row has three entries: a shorter row would make jest pass `done` as the third argument.
    const routes: Array<[string, string, unknown]> = [
      ['GET', '/api/notifications', undefined],
      ['GET', '/api/notifications/unread-count', undefined],
      ['POST', '/api/notifications/read-all', {}],
      ['PATCH', `/api/notifications/${randomUUID()}/read`, undefined],
      ['PATCH', `/api/notifications/${randomUUID()}/archive`, undefined],
      ['GET', '/api/notifications/preferences', undefined],
      ['PUT', '/api/notifications/preferences', {}],
    ];

    it.each(routes)('%s %s: 401 without a credential, with a bad cookie, and with a bad bearer next to a valid cookie', async (method, path, json) => {
      const anon = new HttpClient(app.url);
      const variants: Array<Record<string, string>> = [
        {},
        { cookie: 'svc_session=nope' },
        { cookie: asAlice.cookie!, authorization: 'Bearer agk_unknownunknownunknownunknownunknownunknown' },
        { cookie: asAlice.cookie!, authorization: 'Basic abc' },
        { authorization: 'Bearer ' },
      ];
      for (const headers of variants) {
        const res = await anon.request(method, path, { json, headers });
        expect(res.status).toBe(401);
        expect(res.body).toEqual(UNAUTHORIZED);
      }
    });

    it('cookie writes from another origin are refused; agent-key writes are not origin-checked', async () => {
      const mine = await n.insert(aliceInbox);
      const res = await asAlice.patch(`/api/notifications/${mine.uuid}/read`, undefined, { origin: 'https://evil.example' });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ success: false, error: { code: 'FORBIDDEN', message: 'Cross-site request refused' } });
      expect(await unreadOf(mine.uuid)).toBe(true);
      const agents = await n.insert(agentInbox);
      const ok = await asAgent.patch(`/api/notifications/${agents.uuid}/read`, undefined, { origin: 'https://evil.example' });
      expect(ok.status).toBe(200);
    });
  });

  describe('GET /api/notifications', () => {
    beforeEach(() =>
      app.db.dataSource.query(
        `INSERT INTO notification (uuid, company_uuid, project_uuid, project_name, recipient_type, recipient_uuid, entity_type,
                                   entity_uuid, entity_title, action, message, actor_type, actor_uuid, actor_name, read_at, created_at)
         SELECT gen_random_uuid(), $1, gen_random_uuid(), 'P', 'user', $2, 'task', gen_random_uuid(), 'T', 'task_assigned', 'm',
                'user', $2, 'A', CASE WHEN i % 2 = 0 THEN now() END, now() - i * interval '1 second'
           FROM generate_series(1, 120) AS i`,
        [companyUuid, bob.uuid],
      ),
    );

    it.each([
      ['', 50, 0],
      ['?limit=0', 1, 0],
      ['?limit=1000', 100, 0],
      ['?limit=abc', 50, 0],
      ['?limit=5.5', 50, 0],
      ['?limit=-3', 1, 0],
      ['?limit=10&offset=-5', 10, 0],
      ['?limit=10&offset=115', 5, 115],
      ['?offset=x&other=1', 50, 0],
    ])('%s → %p rows from offset %p', async (qs, count, offset) => {
      const all = (await asBob.get('/api/notifications?limit=100')).body.data.notifications.concat(
        (await asBob.get('/api/notifications?limit=100&offset=100')).body.data.notifications,
      );
      const res = await asBob.get(`/api/notifications${qs}`);
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      expect(res.body.data.unreadCount).toBe(60);
      expect(res.body.data.notifications.map((x: { uuid: string }) => x.uuid)).toEqual(all.slice(offset, offset + count).map((x: { uuid: string }) => x.uuid));
    });

    it('unreadOnly filters only on the exact string true', async () => {
      const only = await asBob.get('/api/notifications?unreadOnly=true&limit=100');
      expect(only.body.data.notifications).toHaveLength(60);
      expect(only.body.data.notifications.every((x: { readAt: string | null }) => x.readAt === null)).toBe(true);
      for (const v of ['TRUE', '1', 'false']) expect((await asBob.get(`/api/notifications?unreadOnly=${v}&limit=100`)).body.data.notifications).toHaveLength(100);
    });

    it('filters on a project; a non-uuid project is a VALIDATION_ERROR', async () => {
      const project = randomUUID();
      const mine = await n.insert(bobInbox, { projectUuid: project });
      const res = await asBob.get(`/api/notifications?projectUuid=${project.toUpperCase()}`);
      expect(res.body.data).toEqual({ notifications: [expect.objectContaining({ uuid: mine.uuid, projectUuid: project })], unreadCount: 61 });
      const bad = await asBob.get('/api/notifications?projectUuid=nope');
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual({
        success: false,
        error: { code: 'VALIDATION_ERROR', message: 'Invalid input', details: [{ field: 'projectUuid', message: 'must be a uuid' }] },
      });
    });
  });

  describe('read, archive and read-all', () => {
    it('foreign, missing and non-uuid notifications are 404 and stay unread for their owner', async () => {
      const bobs = await n.insert(bobInbox);
      const outsiders = await n.insert(outsiderInbox);
      for (const path of [`${bobs.uuid}/read`, `${bobs.uuid}/archive`, `${outsiders.uuid}/read`, `${randomUUID()}/archive`, 'nope/read']) {
        const res = await asAlice.patch(`/api/notifications/${path}`);
        expect(res.status).toBe(404);
        expect(res.body).toEqual(NOT_FOUND);
        const byAgent = await asAgent.patch(`/api/notifications/${path}`);
        expect(byAgent.status).toBe(404);
      }
      expect(await unreadOf(bobs.uuid)).toBe(true);
      expect(await unreadOf(outsiders.uuid)).toBe(true);
    });

    it('read and archive are idempotent and return the record', async () => {
      const x = await n.insert(aliceInbox);
      const first = await asAlice.patch(`/api/notifications/${x.uuid}/read`);
      expect(first.status).toBe(200);
      expect(first.body.data).toMatchObject({ uuid: x.uuid, readAt: expect.any(String), archivedAt: null });
      expect(first.body.data).not.toHaveProperty('companyUuid');
      expect(first.body.data).not.toHaveProperty('updatedAt');
      const second = await asAlice.patch(`/api/notifications/${x.uuid}/read`);
      expect(second.body.data.readAt).toBe(first.body.data.readAt);
      const y = await n.insert(aliceInbox);
      const archived = await asAlice.patch(`/api/notifications/${y.uuid}/archive`);
      expect(archived.body.data).toMatchObject({ uuid: y.uuid, readAt: null, archivedAt: expect.any(String) });
      expect((await asAlice.patch(`/api/notifications/${y.uuid}/archive`)).body.data.archivedAt).toBe(archived.body.data.archivedAt);
      expect((await asAlice.get('/api/notifications')).body.data.notifications.map((r: { uuid: string }) => r.uuid)).toEqual([x.uuid]);
    });

    it('read-all: scoped to a project, or everything; body rules', async () => {
      const project = randomUUID();
      await n.many(aliceInbox, 2, { projectUuid: project });
      await n.many(aliceInbox, 3);
      const scoped = await asAlice.post('/api/notifications/read-all', { projectUuid: project, whatever: 1 });
      expect(scoped.status).toBe(200);
      expect(scoped.body).toEqual({ success: true, data: { count: 2 } });
      expect((await asAlice.get('/api/notifications/unread-count')).body.data).toEqual({ count: 3 });

      for (const body of ['[]', '"x"', '3', 'null', '{"projectUuid":"nope"}']) {
        const res = await asAlice.request('POST', '/api/notifications/read-all', { body, headers: { 'content-type': 'application/json' } });
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_ERROR');
      }
      const malformed = await asAlice.request('POST', '/api/notifications/read-all', { body: '{"projectUuid":', headers: { 'content-type': 'application/json' } });
      expect(malformed.body).toEqual({ success: false, error: { code: 'BAD_REQUEST', message: 'Invalid JSON body' } });
      expect((await asAlice.get('/api/notifications/unread-count')).body.data).toEqual({ count: 3 });

      const all = await asAlice.request('POST', '/api/notifications/read-all');
      expect(all.body).toEqual({ success: true, data: { count: 3 } });
      expect((await asAlice.get('/api/notifications/unread-count')).body.data).toEqual({ count: 0 });
    });
  });

  describe('preferences', () => {
    it('round-trips and refuses unknown fields and non-booleans without saving anything', async () => {
      const first = await asBob.get('/api/notifications/preferences');
      expect(first.status).toBe(200);
      expect(first.body.data).toMatchObject({ ownerType: 'user', ownerUuid: bob.uuid, taskAssigned: true, mentioned: true });
      expect(Object.keys(first.body.data)).toHaveLength(15);
      const put = await asBob.put('/api/notifications/preferences', { mentioned: false, ideaClaimed: false });
      expect(put.body.data).toEqual({ ...first.body.data, mentioned: false, ideaClaimed: false });
      const bad = await asBob.put('/api/notifications/preferences', { taskAssigned: false, colour: 'red', mentioned: 'yes' });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toEqual({
        code: 'VALIDATION_ERROR',
        message: 'Invalid input',
        details: [
          { field: 'colour', message: 'Unknown field' },
          { field: 'mentioned', message: 'must be a boolean' },
        ],
      });
      const notObject = await asBob.request('PUT', '/api/notifications/preferences', { body: '[true]', headers: { 'content-type': 'application/json' } });
      expect(notObject.body.error.code).toBe('VALIDATION_ERROR');
      expect((await asBob.get('/api/notifications/preferences')).body.data).toEqual(put.body.data);
      const viaKey = await asAgent.put('/api/notifications/preferences', { commentAdded: false });
      expect(viaKey.body.data).toMatchObject({ ownerType: 'agent', ownerUuid: agentInbox.uuid, commentAdded: false });
    });
  });

  describe('conditional polling', () => {
    it.each(['/api/notifications?limit=10', '/api/notifications/unread-count'])('%s answers an ETag, 304 on a match, and a new tag after a write', async (path) => {
      const x = await n.insert(aliceInbox);
      const first = await asAlice.get(path);
      const tag = first.headers.get('etag')!;
      expect(tag).toMatch(/^".+"$/);
      expect(first.headers.get('cache-control')).toBe('private, no-cache');
      const again = await asAlice.get(path, { 'if-none-match': tag });
      expect(again.status).toBe(304);
      expect(again.text).toBe('');
      expect(again.headers.get('etag')).toBe(tag);
      expect((await asAlice.get(path, { 'if-none-match': `W/${tag}` })).status).toBe(304);
      expect((await asAlice.get(path, { 'if-none-match': '"other"' })).status).toBe(200);
      // Another caller's tag never matches mine.
      expect((await asBob.get(path, { 'if-none-match': tag })).status).toBe(200);

      await asAlice.patch(`/api/notifications/${x.uuid}/read`);
      const after = await asAlice.get(path, { 'if-none-match': tag });
      expect(after.status).toBe(200);
      expect(after.headers.get('etag')).not.toBe(tag);
      expect(after.body.success).toBe(true);
      await n.insert(aliceInbox);
      expect((await asAlice.get(path, { 'if-none-match': after.headers.get('etag')! })).status).toBe(200);
    });
  });

  describe('agent key', () => {
    it('reads and marks the agent’s own notifications only', async () => {
      const mine = await n.insert(agentInbox, { entityTitle: 'For the bot' });
      await n.insert(aliceInbox);
      const list = await asAgent.get('/api/notifications');
      expect(list.status).toBe(200);
      expect(list.body.data).toEqual({
        notifications: [expect.objectContaining({ uuid: mine.uuid, recipientType: 'agent', recipientUuid: agentInbox.uuid, entityTitle: 'For the bot' })],
        unreadCount: 1,
      });
      expect((await asAgent.get('/api/notifications/unread-count')).body.data).toEqual({ count: 1 });
      expect((await asAgent.post('/api/notifications/read-all')).body.data).toEqual({ count: 1 });
      expect((await asAlice.get('/api/notifications/unread-count')).body.data).toEqual({ count: 1 });
    });
  });

  describe('notification stream', () => {
    it('receives count_update after read, archive and read-all', async () => {
      const project = randomUUID();
      const [a, b] = await n.many(aliceInbox, 2);
      await n.many(aliceInbox, 2, { projectUuid: project });
      const stream = openEventSource(`${app.url}/api/events/notifications`, asAlice.cookie);
      await stream.opened;
      await asAlice.patch(`/api/notifications/${a.uuid}/read`);
      await asAlice.patch(`/api/notifications/${a.uuid}/read`);
      await asAlice.patch(`/api/notifications/${b.uuid}/archive`);
      await asAlice.post('/api/notifications/read-all', { projectUuid: project });
      await asAlice.post('/api/notifications/read-all', {});
      const got = await stream.waitFor(3);
      await new Promise((r) => setTimeout(r, 100));
      expect(stream.messages.map((m) => JSON.parse(m))).toEqual([
        { type: 'count_update', unreadCount: 3 },
        { type: 'count_update', unreadCount: 2 },
        { type: 'count_update', unreadCount: 0 },
      ]);
      expect(got).toHaveLength(3);
      stream.close();
    });

    it('a comment mentioning a user reaches that user’s stream as new_notification with the new count', async () => {
      await n.insert(aliceInbox);
      const f = new CollabFactory(app.db.dataSource);
      const project = await f.project(companyUuid, { name: 'Apollo' });
      const task = await f.task(project, { type: 'user', uuid: bob.uuid }, { title: 'Wire it' });
      const stream = openEventSource(`${app.url}/api/events/notifications`, asAlice.cookie);
      const bobStream = openEventSource(`${app.url}/api/events/notifications`, asBob.cookie);
      await Promise.all([stream.opened, bobStream.opened]);
      await app.get(CommentService).add(userActor({ ...bob, companyUuid }), {
        targetType: 'task',
        targetUuid: task.uuid,
        content: `@[Alice](user:${alice.uuid}) can you check?`,
      });
      const [frame] = (await stream.waitFor(1)).map((m) => JSON.parse(m));
      const list = (await asAlice.get('/api/notifications')).body.data;
      const mentioned = list.notifications.filter((x: { action: string }) => x.action === 'mentioned');
      expect(mentioned).toHaveLength(1);
      expect(frame).toEqual({
        type: 'new_notification',
        notificationUuid: mentioned[0].uuid,
        unreadCount: 2,
        action: 'mentioned',
        actorName: 'Bob',
        entityTitle: 'Wire it',
        entityType: 'task',
        entityUuid: task.uuid,
        projectUuid: project.uuid,
      });
      expect(mentioned[0]).toMatchObject({ message: 'Bob mentioned you: "@Alice can you check?"', projectName: 'Apollo' });
      await new Promise((r) => setTimeout(r, 100));
      expect(bobStream.messages).toEqual([]);
      stream.close();
      bobStream.close();
    });
  });
});
