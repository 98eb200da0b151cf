import { randomUUID } from 'node:crypto';
import { CommentService } from '../../src/modules/collaboration/index.js';
import type { SeededUser } from '../factories/identity.factory.js';
import { ChangeEvents, ev } from '../utils/change-events.js';
import type { HttpClient, HttpResult } from '../utils/http.js';
import { expectError, expectInvalid, expectRefused, type Observed, withEvents } from '../utils/rest-expect.js';
import { userActor, World } from '../utils/world.js';

/** Document routes of docs/platform.md §9 over a running app, events read from a real EventSource. */
describe('REST documents (e2e)', () => {
  let world: World;
  let n = 0;
  /** Company A: alice and carol, projects A and A2; company B: bob and project B. Clients are logged in. */
  let aliceUser: SeededUser;
  let alice: HttpClient;
  let carol: HttpClient;
  let bob: HttpClient;
  let projectA: string;
  let projectA2: string;
  let projectB: string;
  /** Alice's company stream and the app's database. */
  let seen: Observed;

  beforeAll(async () => {
    world = await World.start();
    const [companyA, companyB] = [(await world.company()).uuid, (await world.company()).uuid];
    aliceUser = await world.user(companyA, { name: 'Alice' });
    const bobUser = await world.user(companyB, { name: 'Bob' });
    [alice, carol, bob] = [await world.login(aliceUser), await world.login(await world.user(companyA, { name: 'Carol' })), await world.login(bobUser)];
    [projectA, projectA2, projectB] = [await world.project(userActor(aliceUser)), await world.project(userActor(aliceUser)), await world.project(userActor(bobUser))];
    seen = { changes: await ChangeEvents.open(world, alice.cookie!, companyA), companyUuid: companyA, ds: world.ds };
  });
  afterAll(async () => {
    seen.changes.close();
    await world.close();
  });

  const data = (res: HttpResult, status = 200) => {
    expect({ status: res.status, body: res.status === status ? 'ok' : res.body }).toEqual({ status, body: 'ok' });
    return res.body.data;
  };
  const read = (uuid: string) => () => alice.get(`/api/documents/${uuid}`);

  async function newDocument(body: Record<string, unknown> = {}, project = projectA, client = alice) {
    return data(await client.post(`/api/projects/${project}/documents`, { type: 'prd', title: `Doc ${++n}`, content: 'Text', ...body }), 201);
  }

  async function proposal(project = projectA): Promise<string> {
    const idea = await world.domain.idea(userActor(aliceUser), project, { state: 'elaborated' });
    return data(await alice.post(`/api/projects/${project}/proposals`, { title: `P ${++n}`, inputType: 'idea', inputUuids: [idea.uuid] }), 201).uuid;
  }

  describe('authentication and tenancy', () => {
    const documentRoutes = (uuid: string): Array<[string, string, unknown?]> => [
      ['GET', `/api/documents/${uuid}`],
      ['PATCH', `/api/documents/${uuid}`, { title: 'Taken' }],
      ['DELETE', `/api/documents/${uuid}`],
    ];
    const projectRoutes = (uuid: string): Array<[string, string, unknown?]> => [
      ['GET', `/api/projects/${uuid}/documents`],
      ['POST', `/api/projects/${uuid}/documents`, { type: 'prd', title: 'D' }],
    ];
    const call = (c: HttpClient, [method, path, json]: [string, string, unknown?]) => c.request(method, path, { json });

    it('answers 401 UNAUTHORIZED without a session cookie on every route, changing nothing', async () => {
      const d = await newDocument();
      for (const route of [...documentRoutes(d.uuid), ...projectRoutes(projectA)]) {
        await expectRefused(seen, () => call(world.http(), route), 401, 'UNAUTHORIZED', 'Authentication required', read(d.uuid));
      }
    });

    it('answers 404 for a missing, malformed or other-company uuid on every route, with no event', async () => {
      const theirs = await newDocument({}, projectB, bob);
      for (const uuid of [randomUUID(), 'not-a-uuid', theirs.uuid]) {
        for (const route of documentRoutes(uuid)) await expectRefused(seen, () => call(alice, route), 404, 'NOT_FOUND', 'Document not found');
      }
      for (const uuid of [randomUUID(), 'nope', projectB]) {
        for (const route of projectRoutes(uuid)) await expectRefused(seen, () => call(alice, route), 404, 'NOT_FOUND', 'Project not found');
      }
      expect(data(await bob.get(`/api/documents/${theirs.uuid}`))).toEqual(theirs);
    });
  });

  describe('POST /api/projects/:uuid/documents', () => {
    it('creates version 1 (201, document created), optionally linked to a proposal of the project', async () => {
      const { res, events } = await withEvents(seen, () => alice.post(`/api/projects/${projectA}/documents`, { type: 'tech_design', title: ' Design ', content: '# Design' }));
      const d = data(res, 201);
      expect(d).toEqual({
        uuid: expect.any(String),
        projectUuid: projectA,
        type: 'tech_design',
        title: 'Design',
        version: 1,
        proposalUuid: null,
        createdBy: { type: 'user', uuid: aliceUser.uuid, name: 'Alice' },
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        content: '# Design',
      });
      expect(events).toEqual([ev('document', 'created', d.uuid, projectA)]);
      const proposalUuid = await proposal();
      const linked = await withEvents(seen, () => alice.post(`/api/projects/${projectA}/documents`, { type: 'adr', title: 'ADR', proposalUuid }));
      expect(data(linked.res, 201)).toMatchObject({ proposalUuid, content: '' });
      expect(linked.events).toEqual([ev('document', 'created', linked.res.body.data.uuid, projectA)]);
    });

    it('validates (400 with details; reports only through their own route) and refuses proposals of another project (404)', async () => {
      const post = (body: unknown) => () => alice.post(`/api/projects/${projectA}/documents`, body);
      expectInvalid(await expectRefused(seen, post({ type: 'report', title: 4 }), 400, 'VALIDATION_ERROR', 'Invalid input'), 'type', 'title');
      expectInvalid(await expectRefused(seen, post({ type: 'prd', title: 'T', proposalUuid: 'x', version: 3 }), 400, 'VALIDATION_ERROR'), 'proposalUuid', 'version');
      await expectRefused(seen, post({ type: 'prd', title: '   ' }), 400, 'VALIDATION_ERROR', 'Title must not be blank');
      await expectRefused(seen, post({ type: 'prd', title: 'T', proposalUuid: await proposal(projectA2) }), 404, 'NOT_FOUND', 'Proposal not found');
      await expectRefused(seen, post({ type: 'prd', title: 'T', proposalUuid: randomUUID() }), 404, 'NOT_FOUND', 'Proposal not found');
    });
  });

  describe('GET /api/projects/:uuid/documents and /api/documents/:uuid', () => {
    it('lists by last update with a type filter and paging; get returns the content', async () => {
      const a = await newDocument({ type: 'prd' }, projectA2);
      const b = await newDocument({ type: 'adr' }, projectA2);
      const c = await newDocument({ type: 'prd' }, projectA2);
      data(await alice.patch(`/api/documents/${a.uuid}`, { content: 'Newer' }));
      const list = (q: string) => alice.get(`/api/projects/${projectA2}/documents${q}`);
      const all = data(await list(''));
      expect(Object.keys(all)).toEqual(['documents', 'page', 'pageSize', 'total']);
      expect(all).toMatchObject({ page: 1, pageSize: 20, total: 3 });
      expect(all.documents.map((d: { uuid: string }) => d.uuid)).toEqual([a.uuid, c.uuid, b.uuid]);
      expect(all.documents[0]).not.toHaveProperty('content');
      expect(data(await list('?type=prd&page=2&pageSize=1'))).toEqual({ documents: [expect.objectContaining({ uuid: c.uuid })], page: 2, pageSize: 1, total: 2 });
      expect(data(await list('?limit=2&offset=2')).documents.map((d: { uuid: string }) => d.uuid)).toEqual([b.uuid]);
      expect(data(await alice.get(`/api/documents/${a.uuid}`))).toMatchObject({ uuid: a.uuid, content: 'Newer', version: 2 });
      expectInvalid(await list('?type=memo'), 'type');
      expectInvalid(await list('?pageSize=0'), 'pageSize');
    });
  });

  describe('PATCH /api/documents/:uuid', () => {
    it('edits title and content, raising the version (document updated); an unchanged edit emits nothing', async () => {
      const d = await newDocument();
      const { res, events } = await withEvents(seen, () => carol.patch(`/api/documents/${d.uuid}`, { title: 'Renamed', content: 'New text' }));
      expect(data(res)).toMatchObject({ title: 'Renamed', content: 'New text', version: 2 });
      expect(events).toEqual([ev('document', 'updated', d.uuid, projectA)]);
      const same = await withEvents(seen, () => alice.patch(`/api/documents/${d.uuid}`, { content: 'New text' }));
      expect(data(same.res).version).toBe(2);
      expect(same.events).toEqual([]);
    });

    it('validates: 400 with details, "Nothing to update" for an empty patch', async () => {
      const d = await newDocument();
      const patch = (body: unknown) => () => alice.patch(`/api/documents/${d.uuid}`, body);
      expectInvalid(await expectRefused(seen, patch({ title: 3, version: 9 }), 400, 'VALIDATION_ERROR', 'Invalid input', read(d.uuid)), 'title', 'version');
      await expectRefused(seen, patch({}), 400, 'VALIDATION_ERROR', 'Nothing to update', read(d.uuid));
      await expectRefused(seen, patch({ title: '' }), 400, 'VALIDATION_ERROR', 'Title must not be blank', read(d.uuid));
    });
  });

  describe('DELETE /api/documents/:uuid', () => {
    it('deletes the document and its comments ({uuid, deleted: true}, document deleted)', async () => {
      const d = await newDocument();
      await world.seeding(CommentService).add(userActor(aliceUser), { targetType: 'document', targetUuid: d.uuid, content: 'On the document' });
      const { res, events } = await withEvents(seen, () => alice.delete(`/api/documents/${d.uuid}`));
      expect(data(res)).toEqual({ uuid: d.uuid, deleted: true });
      expect(events).toEqual([ev('document', 'deleted', d.uuid, projectA)]);
      expectError(await alice.get(`/api/documents/${d.uuid}`), 404, 'NOT_FOUND', 'Document not found');
      expect(await world.ds.query(`SELECT uuid FROM comment WHERE target_uuid = $1`, [d.uuid])).toEqual([]);
      await expectRefused(seen, () => alice.delete(`/api/documents/${d.uuid}`), 404, 'NOT_FOUND', 'Document not found');
    });
  });
});
