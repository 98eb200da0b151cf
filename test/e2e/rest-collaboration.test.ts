import { ReferenceService } from '../../src/modules/collaboration/index.js';
import { randomBytes, randomUUID } from 'node:crypto';
import type { ProjectRecord } from '../../src/modules/projects/index.js';
import type { Actor } from '../../src/shared/auth/actor.js';
import type { EntityType } from '../../src/shared/event-bus/events.js';
import type { SeededUser } from '../factories/identity.factory.js';
import { ChangeEvents } from '../utils/change-events.js';
import type { HttpClient } from '../utils/http.js';
import { expectError, expectValidation } from '../utils/rest-expect.js';
import { userActor, World } from '../utils/world.js';

describe('REST comments, references, activity, search and mentionables (e2e)', () => {
  let world: World;
  let changes: ChangeEvents;
  /** A logged-in user of company A (whose stream `changes` reads) and one of company B, with their Actors for seeding. */
  let companyA: string;
  let companyB: string;
  let userA: SeededUser;
  let actorA: Actor;
  let actorB: Actor;
  let clientA: HttpClient;
  let clientB: HttpClient;
  let P: ProjectRecord;
  let foreignProject: ProjectRecord;
  /** One target of each type in company A, and in company B. */
  let mine: Record<EntityType, string>;
  let theirs: Record<EntityType, string>;

  const targets = async (project: ProjectRecord, actor: Actor): Promise<Record<EntityType, string>> => {
    const idea = await world.domain.idea(actor, project.uuid, { title: 'Target idea' });
    const proposal = await world.domain.proposal(actor, project.uuid, { inputUuids: [idea.uuid] });
    const task = await world.domain.task(actor, project.uuid, { proposalUuid: proposal.uuid });
    const document = await world.domain.document(actor, project.uuid, { proposalUuid: proposal.uuid });
    return { idea: idea.uuid, proposal: proposal.uuid, task: task.uuid, document: document.uuid };
  };

  beforeAll(async () => {
    world = await World.start();
    [companyA, companyB] = [(await world.company()).uuid, (await world.company()).uuid];
    userA = await world.user(companyA);
    const userB = await world.user(companyB);
    [actorA, actorB] = [userActor(userA), userActor(userB)];
    [clientA, clientB] = [await world.login(userA), await world.login(userB)];
    P = await world.domain.project(actorA, { name: 'Collab' });
    foreignProject = await world.domain.project(actorB);
    mine = await targets(P, actorA);
    theirs = await targets(foreignProject, actorB);
  });
  afterAll(() => world.close());
  beforeEach(async () => {
    changes = await ChangeEvents.open(world, clientA.cookie!, companyA);
  });
  afterEach(() => changes.close());

  const updated = (entityType: EntityType, entityUuid: string, projectUuid = P.uuid) => ({ projectUuid, entityType, entityUuid, action: 'updated' as const });
  const me = () => ({ type: 'user', uuid: userA.uuid, name: userA.name });
  const display = { idea: 'Idea', proposal: 'Proposal', task: 'Task', document: 'Document' } as const;

  it('answers 401 on every route without a session cookie', async () => {
    const id = randomUUID();
    const routes: Array<[string, string, unknown?]> = [
      ['GET', `/api/comments?targetType=idea&targetUuid=${mine.idea}`],
      ['POST', '/api/comments', { targetType: 'idea', targetUuid: mine.idea, content: 'x' }],
      ['POST', '/api/references', { targetType: 'idea', targetUuid: mine.idea, type: 'docs', url: 'https://a.test', title: 'T' }],
      ['PATCH', `/api/references/${id}`, { title: 'T' }],
      ['DELETE', `/api/references/${id}`],
      ['GET', `/api/projects/${P.uuid}/activity`],
      ['GET', '/api/search?q=x'],
      ['GET', '/api/mentionables?q=x'],
    ];
    for (const [method, path, json] of routes) expectError(await world.http().request(method, path, { json }), 401, 'UNAUTHORIZED');
    await changes.expectQuiet();
  });

  describe('comments', () => {
    it('adds a comment to each target type (201, CommentRecord) publishing `<targetType> updated`', async () => {
      for (const targetType of ['idea', 'proposal', 'task', 'document'] as const) {
        const res = await clientA.post('/api/comments', { targetType, targetUuid: mine[targetType], content: `  On the ${targetType}  ` });
        expect(res.status).toBe(201);
        expect(res.body.data).toEqual({
          uuid: expect.any(String),
          targetType,
          targetUuid: mine[targetType],
          content: `On the ${targetType}`,
          author: me(),
          createdAt: expect.any(String),
        });
        await changes.expectExactly([updated(targetType, mine[targetType])]);
      }
    });

    it('lists comments oldest first with paging; bad queries are 400 with details, missing or foreign targets 404', async () => {
      const task = (await world.domain.task(actorA, P.uuid)).uuid;
      const posted: string[] = [];
      for (const content of ['one', 'two', 'three']) posted.push((await clientA.post('/api/comments', { targetType: 'task', targetUuid: task, content })).body.data.uuid);
      await changes.next(3);
      const res = await clientA.get(`/api/comments?targetType=task&targetUuid=${task}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ comments: expect.any(Array), page: 1, pageSize: 20, total: 3 });
      expect(res.body.data.comments.map((c: { uuid: string }) => c.uuid)).toEqual(posted);
      expect(res.body.data.comments[0]).toEqual(expect.objectContaining({ content: 'one', author: me() }));
      const second = await clientA.get(`/api/comments?targetType=task&targetUuid=${task}&page=2&pageSize=2`);
      expect(second.body.data.comments.map((c: { uuid: string }) => c.uuid)).toEqual([posted[2]]);
      const clamped = await clientA.get(`/api/comments?targetType=task&targetUuid=${task}&limit=1&offset=1`);
      expect(clamped.body.data.comments.map((c: { uuid: string }) => c.uuid)).toEqual([posted[1]]);

      expectValidation(await clientA.get(`/api/comments?targetUuid=${task}`), 'targetType');
      expectValidation(await clientA.get(`/api/comments?targetType=project&targetUuid=${task}`), 'targetType');
      expectValidation(await clientA.get('/api/comments?targetType=task'), 'targetUuid');
      expectValidation(await clientA.get(`/api/comments?targetType=task&targetUuid=${task}&pageSize=0`), 'pageSize');
      for (const targetType of ['idea', 'proposal', 'task', 'document'] as const) {
        for (const id of [randomUUID(), theirs[targetType]]) {
          expectError(await clientA.get(`/api/comments?targetType=${targetType}&targetUuid=${id}`), 404, 'NOT_FOUND', `${display[targetType]} not found`);
        }
      }
      await changes.expectQuiet();
    });

    it('refuses invalid comments with 400 details and missing or foreign targets with 404, writing and publishing nothing', async () => {
      const count = async () => (await world.ds.query('SELECT count(*)::int AS n FROM comment'))[0].n;
      const before = await count();
      expectValidation(await clientA.post('/api/comments', { targetType: 'idea', targetUuid: mine.idea }), 'content');
      expectValidation(await clientA.post('/api/comments', { targetType: 'idea', targetUuid: mine.idea, content: '   ' }), 'content', 'Comment content must be 1-20000 characters');
      expectValidation(await clientA.post('/api/comments', { targetType: 'idea', targetUuid: mine.idea, content: 'x'.repeat(20_001) }), 'content');
      expectValidation(await clientA.post('/api/comments', { targetType: 'project', targetUuid: P.uuid, content: 'x' }), 'targetType');
      expectValidation(await clientA.post('/api/comments', { targetType: 'idea', targetUuid: 'nope', content: 'x' }), 'targetUuid');
      for (const targetType of ['idea', 'proposal', 'task', 'document'] as const) {
        for (const id of [randomUUID(), theirs[targetType]]) {
          expectError(await clientA.post('/api/comments', { targetType, targetUuid: id, content: 'x' }), 404, 'NOT_FOUND', `${display[targetType]} not found`);
        }
      }
      expect(await count()).toBe(before);
      await changes.expectQuiet();
    });
  });

  describe('references', () => {
    const link = (over: Record<string, unknown> = {}) => ({ targetType: 'idea', targetUuid: mine.idea, type: 'repo', url: 'https://git.test/r', title: 'Repo', ...over });

    it('adds a reference to an idea, proposal or task (201, ReferenceRecord) publishing `<targetType> updated`', async () => {
      for (const targetType of ['idea', 'proposal', 'task'] as const) {
        const res = await clientA.post('/api/references', link({ targetType, targetUuid: mine[targetType], notes: 'see main' }));
        expect(res.status).toBe(201);
        expect(res.body.data).toEqual({
          uuid: expect.any(String),
          targetType,
          targetUuid: mine[targetType],
          type: 'repo',
          url: 'https://git.test/r',
          title: 'Repo',
          notes: 'see main',
          createdBy: me(),
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
        });
        await changes.expectExactly([updated(targetType, mine[targetType])]);
      }
    });

    it('refuses invalid references (400), missing or foreign targets (404) and the 51st reference, adding nothing', async () => {
      const count = async () => (await world.ds.query('SELECT count(*)::int AS n FROM reference'))[0].n;
      const before = await count();
      expectValidation(await clientA.post('/api/references', link({ targetType: 'document', targetUuid: mine.document })), 'targetType');
      expectValidation(await clientA.post('/api/references', link({ type: 'video' })), 'type');
      expectValidation(await clientA.post('/api/references', link({ url: undefined })), 'url');
      expectValidation(await clientA.post('/api/references', link({ targetUuid: 'x' })), 'targetUuid');
      expectError(await clientA.post('/api/references', link({ url: 'javascript:alert(1)' })), 400, 'VALIDATION_ERROR', 'URL must start with http:// or https://');
      expectError(await clientA.post('/api/references', link({ title: ' ' })), 400, 'VALIDATION_ERROR', 'Reference title must be 1-200 characters');
      for (const targetType of ['idea', 'proposal', 'task'] as const) {
        for (const id of [randomUUID(), theirs[targetType]]) {
          expectError(await clientA.post('/api/references', link({ targetType, targetUuid: id })), 404, 'NOT_FOUND', `${display[targetType]} not found`);
        }
      }
      expect(await count()).toBe(before);

      const full = (await world.domain.idea(actorA, P.uuid)).uuid;
      const refs = world.seeding(ReferenceService);
      for (let i = 0; i < 50; i++) await refs.add(actorA, { targetType: 'idea', targetUuid: full, type: 'docs', url: `https://d.test/${i}`, title: `D${i}` });
      expectError(await clientA.post('/api/references', link({ targetUuid: full })), 400, 'VALIDATION_ERROR', 'Maximum 50 references per target');
      expect(await count()).toBe(before + 50);
      await changes.expectQuiet();
    });

    it('updates a reference (`<targetType> updated`; null clears notes); an update that changes nothing publishes nothing', async () => {
      const ref = (await clientA.post('/api/references', link({ targetType: 'task', targetUuid: mine.task, notes: 'n' }))).body.data;
      await changes.next(1);
      const res = await clientA.patch(`/api/references/${ref.uuid}`, { title: 'Renamed', type: 'docs', notes: null });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ ...ref, title: 'Renamed', type: 'docs', notes: null, updatedAt: expect.any(String) });
      await changes.expectExactly([updated('task', mine.task)]);
      expect((await clientA.patch(`/api/references/${ref.uuid}`, { title: 'Renamed' })).status).toBe(200);
      await changes.expectQuiet();
    });

    it('refuses bad updates (400 with details, 404 for missing or foreign references) and leaves the reference unchanged', async () => {
      const ref = (await clientA.post('/api/references', link())).body.data;
      const foreign = (await clientB.post('/api/references', link({ targetUuid: theirs.idea }))).body.data;
      await changes.next(1);
      const url = `/api/references/${ref.uuid}`;
      expectError(await clientA.patch(url, {}), 400, 'VALIDATION_ERROR', 'Nothing to update');
      expectValidation(await clientA.patch(url, { type: 'video' }), 'type');
      expectValidation(await clientA.patch(url, { url: 42 }), 'url');
      expectValidation(await clientA.patch(url, { targetUuid: mine.task }), 'targetUuid');
      expectError(await clientA.patch(url, { url: 'ftp://x.test' }), 400, 'VALIDATION_ERROR', 'URL must start with http:// or https://');
      for (const id of [randomUUID(), foreign.uuid, 'nope']) {
        expectError(await clientA.patch(`/api/references/${id}`, { title: 'Hijack' }), 404, 'NOT_FOUND', 'Reference not found');
        expectError(await clientA.delete(`/api/references/${id}`), 404, 'NOT_FOUND', 'Reference not found');
      }
      const [row] = await world.ds.query('SELECT title, url, type FROM reference WHERE uuid = $1', [ref.uuid]);
      expect(row).toEqual({ title: 'Repo', url: 'https://git.test/r', type: 'repo' });
      const [theirRow] = await world.ds.query('SELECT title FROM reference WHERE uuid = $1', [foreign.uuid]);
      expect(theirRow).toEqual({ title: 'Repo' });
      await changes.expectQuiet();
    });

    it('removes a reference ({uuid, deleted: true}) publishing `<targetType> updated`', async () => {
      const ref = (await clientA.post('/api/references', link({ targetType: 'proposal', targetUuid: mine.proposal }))).body.data;
      await changes.next(1);
      const res = await clientA.delete(`/api/references/${ref.uuid}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: { uuid: ref.uuid, deleted: true } });
      await changes.expectExactly([updated('proposal', mine.proposal)]);
      expectError(await clientA.delete(`/api/references/${ref.uuid}`), 404, 'NOT_FOUND', 'Reference not found');
      await changes.expectQuiet();
    });
  });

  describe('activity', () => {
    it("lists a project's activity newest first, optionally for one target, with paging", async () => {
      const R = await world.domain.project(actorA);
      const idea = await world.domain.idea(actorA, R.uuid);
      const other = await world.domain.idea(actorA, R.uuid);
      await clientA.post('/api/comments', { targetType: 'idea', targetUuid: idea.uuid, content: 'hi' });
      await changes.next(1);
      const res = await clientA.get(`/api/projects/${R.uuid}/activity`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ activities: expect.any(Array), page: 1, pageSize: 20, total: 3 });
      expect(res.body.data.activities.map((a: { action: string; targetUuid: string }) => [a.action, a.targetUuid])).toEqual([
        ['comment_added', idea.uuid],
        ['created', other.uuid],
        ['created', idea.uuid],
      ]);
      expect(res.body.data.activities[0]).toEqual(expect.objectContaining({ projectUuid: R.uuid, targetType: 'idea', actor: me(), value: { commentUuid: expect.any(String) } }));
      const one = await clientA.get(`/api/projects/${R.uuid}/activity?targetType=idea&targetUuid=${idea.uuid}&pageSize=1&page=2`);
      expect(one.body.data).toEqual(expect.objectContaining({ page: 2, pageSize: 1, total: 2 }));
      expect(one.body.data.activities.map((a: { action: string }) => a.action)).toEqual(['created']);
      expect((await clientA.get(`/api/projects/${R.uuid}/activity?limit=1`)).body.data.activities.map((a: { action: string }) => a.action)).toEqual(['comment_added']);
    });

    it('refuses bad filters with 400 details and missing or foreign projects with 404', async () => {
      expectValidation(await clientA.get(`/api/projects/${P.uuid}/activity?targetUuid=${mine.idea}`), 'targetUuid', 'Invalid arguments');
      expectValidation(await clientA.get(`/api/projects/${P.uuid}/activity?targetType=project`), 'targetType');
      expectValidation(await clientA.get(`/api/projects/${P.uuid}/activity?targetType=idea&targetUuid=x`), 'targetUuid');
      expectValidation(await clientA.get(`/api/projects/${P.uuid}/activity?page=-1`), 'page');
      for (const id of [randomUUID(), foreignProject.uuid, 'nope']) {
        expectError(await clientA.get(`/api/projects/${id}/activity`), 404, 'NOT_FOUND', 'Project not found');
      }
    });
  });

  describe('search', () => {
    const token = `zq${randomBytes(4).toString('hex')}`;
    let R: ProjectRecord;
    let idea: string;
    let task: string;

    beforeAll(async () => {
      R = await world.domain.project(actorA, { name: `Search ${token}` });
      idea = (await world.domain.idea(actorA, R.uuid, { title: `Idea about ${token}` })).uuid;
      task = (await world.domain.task(actorA, P.uuid, { title: `Task about ${token}` })).uuid;
      await world.domain.idea(actorB, foreignProject.uuid, { title: `Their ${token}` });
    });

    it('finds the company records by text, with counts, entityTypes (comma-separated), scope and paging', async () => {
      const res = await clientA.get(`/api/search?q=${token}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        results: expect.any(Array),
        page: 1,
        pageSize: 20,
        total: 3,
        counts: { tasks: 1, ideas: 1, proposals: 0, documents: 0, projects: 1, projectGroups: 0 },
      });
      expect(res.body.data.results.map((r: { uuid: string }) => r.uuid).sort()).toEqual([R.uuid, idea, task].sort());
      expect(res.body.data.results.find((r: { uuid: string }) => r.uuid === idea)).toEqual({
        entityType: 'idea',
        uuid: idea,
        title: `Idea about ${token}`,
        snippet: expect.any(String),
        status: 'open',
        projectUuid: R.uuid,
        projectName: `Search ${token}`,
        updatedAt: expect.any(String),
      });
      const typed = await clientA.get(`/api/search?q=${token}&entityTypes=task,%20idea`);
      expect(typed.body.data.results.map((r: { uuid: string }) => r.uuid).sort()).toEqual([idea, task].sort());
      const scoped = await clientA.get(`/api/search?q=${token}&scope=project&scopeUuid=${P.uuid}`);
      expect(scoped.body.data.results.map((r: { uuid: string }) => r.uuid)).toEqual([task]);
      const paged = await clientA.get(`/api/search?q=${token}&pageSize=1&page=3`);
      expect(paged.body.data).toEqual(expect.objectContaining({ page: 3, pageSize: 1, total: 3 }));
      expect(paged.body.data.results).toHaveLength(1);
      const exact = await clientA.get(`/api/search?q=${task}`);
      expect(exact.body.data.results[0]).toEqual(expect.objectContaining({ uuid: task, entityType: 'task' }));
    });

    it('refuses bad queries with 400 details and missing or foreign scopes with 404', async () => {
      expectValidation(await clientA.get('/api/search'), 'q');
      expectValidation(await clientA.get('/api/search?q=%20%20'), 'query');
      expectValidation(await clientA.get(`/api/search?q=${'x'.repeat(201)}`), 'query');
      expectValidation(await clientA.get('/api/search?q=a&scope=planet'), 'scope');
      expectValidation(await clientA.get('/api/search?q=a&scope=project'), 'scopeUuid', 'scopeUuid is required unless scope is global');
      expectValidation(await clientA.get('/api/search?q=a&scope=project&scopeUuid=x'), 'scopeUuid');
      expectValidation(await clientA.get('/api/search?q=a&entityTypes=task,comment'), 'entityTypes');
      expectValidation(await clientA.get('/api/search?q=a&pageSize=500'), 'pageSize');
      for (const id of [randomUUID(), foreignProject.uuid]) {
        expectError(await clientA.get(`/api/search?q=a&scope=project&scopeUuid=${id}`), 404, 'NOT_FOUND', 'Project not found');
      }
      expectError(await clientA.get(`/api/search?q=a&scope=group&scopeUuid=${randomUUID()}`), 404, 'NOT_FOUND', 'Project group not found');
    });
  });

  describe('mentionables', () => {
    it("lists the company's users and non-archived agents by name, case-insensitive, with paging", async () => {
      const tag = `Mx${randomBytes(3).toString('hex')}`;
      const zed = await world.user(companyA, { name: `${tag} Zed`, email: `${tag.toLowerCase()}@zed.test` });
      const amy = await world.user(companyA, { name: `${tag} amy` });
      const bot = await world.agent(companyA, userA.uuid, { name: `${tag} Bot` });
      await world.user(companyB, { name: `${tag} Outsider` });
      const res = await clientA.get(`/api/mentionables?q=${tag.toLowerCase()}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        mentionables: [
          { type: 'user', uuid: amy.uuid, name: `${tag} amy`, email: amy.email },
          { type: 'agent', uuid: bot.uuid, name: `${tag} Bot`, email: null },
          { type: 'user', uuid: zed.uuid, name: `${tag} Zed`, email: zed.email },
        ],
        page: 1,
        pageSize: 20,
        total: 3,
      });
      const byEmail = await clientA.get(`/api/mentionables?q=${encodeURIComponent('@zed.test')}`);
      expect(byEmail.body.data.mentionables.map((m: { uuid: string }) => m.uuid)).toEqual([zed.uuid]);
      const second = await clientA.get(`/api/mentionables?q=${tag}&limit=1&offset=1`);
      expect(second.body.data.mentionables.map((m: { uuid: string }) => m.uuid)).toEqual([bot.uuid]);
      const everyone = await clientA.get('/api/mentionables?pageSize=100');
      expect(everyone.body.data.mentionables.some((m: { name: string }) => m.name.includes('Outsider'))).toBe(false);
    });

    it('refuses a query over 100 characters and bad paging with 400 details', async () => {
      expectValidation(await clientA.get(`/api/mentionables?q=${'x'.repeat(101)}`), 'query');
      expectValidation(await clientA.get('/api/mentionables?page=abc'), 'page');
      expectValidation(await clientA.get('/api/mentionables?q=a&q=b'), 'q');
    });
  });
});
