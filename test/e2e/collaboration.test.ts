import { ReferenceService } from '../../src/modules/collaboration/index.js';
import { randomBytes, randomUUID } from 'node:crypto';
import type { ProjectRecord } from '../../src/modules/projects/index.js';
import type { Actor } from '../../src/shared/auth/actor.js';
import type { EntityType, RealtimeEvent } from '../../src/shared/event-bus/events.js';
import type { SeededUser } from '../factories/identity.factory.js';
import { ChangeEvents } from '../utils/change-events.js';
import type { HttpClient } from '../utils/http.js';
import { expectError, expectValidation } from '../utils/rest-expect.js';
import { userActor, World, type WorldAgent } from '../utils/world.js';
import { expectRefused, tableRows } from '../utils/mcp-expect.js';

/** One app for the whole file; each block below seeds companies of its own. */
let world: World;
beforeAll(async () => {
  world = await World.start();
});
afterAll(() => world.close());

describe('REST comments, references, activity, search and mentionables (e2e)', () => {
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

describe('collaboration tools', () => {
  const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  type Kind = 'idea' | 'proposal' | 'task' | 'document';
  const DISPLAY: Record<Kind, string> = { idea: 'Idea', proposal: 'Proposal', task: 'Task', document: 'Document' };

  describe('activity, comment, search and reference tools (e2e, MCP SDK client)', () => {
    let events: RealtimeEvent[];
    let companyUuid: string;
    let aliceUuid: string;
    // Company A (users Alice and Bob): pm and dev of Alice's, pm2 and an admin agent of Bob's; company B: Mallory, an admin agent.
    let pm: WorldAgent;
    let pm2: WorldAgent;
    let dev: WorldAgent;
    let mallory: WorldAgent;
    let project: string;
    let groupUuid: string;
    const targets = {} as Record<Kind, string>;

    beforeAll(async () => {
      const ca = await world.company();
      companyUuid = ca.uuid;
      const alice = await world.user(ca.uuid, { name: 'Alice' });
      aliceUuid = alice.uuid;
      const bob = await world.user(ca.uuid, { name: 'Bob' });
      const cb = await world.company();
      const malloryUser = await world.user(cb.uuid, { name: 'Mallory' });
      pm = await world.agent(ca.uuid, alice.uuid, { preset: 'pm_agent', name: 'PM' });
      pm2 = await world.agent(ca.uuid, bob.uuid, { preset: 'pm_agent', name: 'PM2' });
      dev = await world.agent(ca.uuid, alice.uuid, { preset: 'developer_agent', name: 'Dev' });
      await world.agent(ca.uuid, bob.uuid, { preset: 'admin_agent', name: 'Admin' }); // one of the mentionables
      mallory = await world.agent(cb.uuid, malloryUser.uuid, { preset: 'admin_agent', name: 'Mallory' });
      events = world.recordEvents();
      groupUuid = (await world.ok(pm, 'svc_admin_create_project_group', { name: 'Collab group' })).uuid;
      project = (await world.ok(pm, 'svc_admin_create_project', { name: 'Collab', groupUuid })).uuid;
      const a = pm.actor;
      targets.idea = (await world.ok(pm, 'svc_pm_create_idea', { projectUuid: project, title: 'Quokka idea', content: 'about marsupials' })).uuid;
      targets.proposal = (await world.domain.proposal(a, project, { inputUuids: [targets.idea], title: 'Quokka proposal' })).uuid;
      targets.task = (await world.domain.task(a, project, { title: 'Wombat task' })).uuid;
      targets.document = (await world.domain.document(a, project, { title: 'Wombat doc' })).uuid;
    });

    beforeEach(() => takeEvents());

    const takeEvents = (): RealtimeEvent[] => events.splice(0, events.length);
    /** The change event shape the bus carries, in company A. */
    const ev = (entityType: RealtimeEvent['entityType'], entityUuid: string, projectUuid: string, action: RealtimeEvent['action']): RealtimeEvent => ({ companyUuid, projectUuid, entityType, entityUuid, action });
    /** A refused call: the error code (and message), no change event and the domain tables unchanged; returns the error. */
    const refused = (agent: WorldAgent, name: string, args: Record<string, unknown>, code: string, message?: string) =>
      expectRefused(events, agent, name, args, { code, message, unchanged: () => tableRows(world.ds) });

    describe('svc_add_comment / svc_get_comments', () => {
      it.each(['idea', 'proposal', 'task', 'document'] as Kind[])('comments on a %s (CommentRecord) and publishes <targetType> updated', async (kind) => {
        const c = await world.ok(dev, 'svc_add_comment', { targetType: kind, targetUuid: targets[kind], content: `  First on ${kind}  ` });
        expect(c).toEqual({ uuid: expect.any(String), targetType: kind, targetUuid: targets[kind], content: `First on ${kind}`, author: { type: 'agent', uuid: dev.uuid, name: 'Dev' }, createdAt: ISO });
        expect(takeEvents()).toEqual([ev(kind, targets[kind], project, 'updated')]);
        await refused(dev, 'svc_add_comment', { targetType: kind, targetUuid: randomUUID(), content: 'x' }, 'NOT_FOUND', `${DISPLAY[kind]} not found`);
        await refused(dev, 'svc_get_comments', { targetType: kind, targetUuid: randomUUID() }, 'NOT_FOUND', `${DISPLAY[kind]} not found`);
      });

      it('lists comments oldest first with paging', async () => {
        const t = (await world.domain.task(pm.actor, project)).uuid;
        const made = [];
        for (const text of ['one', 'two', 'three']) made.push((await world.ok(pm, 'svc_add_comment', { targetType: 'task', targetUuid: t, content: text })).uuid);
        const all = await world.ok(dev, 'svc_get_comments', { targetType: 'task', targetUuid: t });
        expect(all).toMatchObject({ page: 1, pageSize: 20, total: 3 });
        expect(all.comments.map((c: any) => c.content)).toEqual(['one', 'two', 'three']);
        expect(all.comments[0]).toEqual({ uuid: made[0], targetType: 'task', targetUuid: t, content: 'one', author: { type: 'agent', uuid: pm.uuid, name: 'PM' }, createdAt: ISO });
        const second = await world.ok(dev, 'svc_get_comments', { targetType: 'task', targetUuid: t, page: 2, pageSize: 2 });
        expect(second.comments.map((c: any) => c.uuid)).toEqual([made[2]]);
      });

      it('refuses blank or oversized content and a target type that takes no comments', async () => {
        await refused(dev, 'svc_add_comment', { targetType: 'task', targetUuid: targets.task, content: '   ' }, 'VALIDATION_ERROR');
        const long = await refused(dev, 'svc_add_comment', { targetType: 'task', targetUuid: targets.task, content: 'x'.repeat(20_001) }, 'VALIDATION_ERROR', 'Invalid arguments');
        expect(long.details).toEqual([{ path: 'content', message: expect.any(String) }]);
        const kind = await refused(dev, 'svc_add_comment', { targetType: 'project', targetUuid: project, content: 'x' }, 'VALIDATION_ERROR', 'Invalid arguments');
        expect(kind.details).toEqual([{ path: 'targetType', message: expect.any(String) }]);
      });
    });

    describe('svc_get_activity', () => {
      it("lists a project's activity newest first, optionally for one target", async () => {
        const p = (await world.ok(pm, 'svc_admin_create_project', { name: 'Activity' })).uuid;
        const i = await world.ok(pm, 'svc_pm_create_idea', { projectUuid: p, title: 'Tracked' });
        await world.ok(pm, 'svc_claim_idea', { ideaUuid: i.uuid });
        const other = await world.ok(pm, 'svc_pm_create_idea', { projectUuid: p, title: 'Other' });
        const all = await world.ok(dev, 'svc_get_activity', { projectUuid: p });
        expect(all).toMatchObject({ page: 1, pageSize: 20, total: 3 });
        expect(all.activities.map((a: any) => [a.targetUuid, a.action])).toEqual([
          [other.uuid, 'created'],
          [i.uuid, 'assigned'],
          [i.uuid, 'created'],
        ]);
        expect(all.activities[2]).toEqual({
          uuid: expect.any(String),
          projectUuid: p,
          targetType: 'idea',
          targetUuid: i.uuid,
          actor: { type: 'agent', uuid: pm.uuid, name: 'PM' },
          action: 'created',
          value: { title: 'Tracked' },
          sessionUuid: null,
          sessionName: null,
          createdAt: ISO,
        });
        const one = await world.ok(dev, 'svc_get_activity', { projectUuid: p, targetType: 'idea', targetUuid: i.uuid });
        expect(one.activities.map((a: any) => a.action)).toEqual(['assigned', 'created']);
        const tasks = await world.ok(dev, 'svc_get_activity', { projectUuid: p, targetType: 'task' });
        expect(tasks).toMatchObject({ activities: [], total: 0 });
        const err = await refused(dev, 'svc_get_activity', { projectUuid: p, targetUuid: i.uuid }, 'VALIDATION_ERROR', 'Invalid arguments');
        expect(err.details).toEqual([{ path: 'targetUuid', message: 'requires targetType' }]);
        await refused(dev, 'svc_get_activity', { projectUuid: randomUUID() }, 'NOT_FOUND', 'Project not found');
      });
    });

    describe('svc_search', () => {
      it('finds records by text across types with counts, scopes and an exact uuid first', async () => {
        const res = await world.ok(dev, 'svc_search', { query: 'QUOKKA' });
        expect(res).toMatchObject({ page: 1, pageSize: 20, total: 2, counts: { tasks: 0, ideas: 1, proposals: 1, documents: 0, projects: 0, projectGroups: 0 } });
        expect(res.results.map((r: any) => r.uuid).sort()).toEqual([targets.idea, targets.proposal].sort());
        const ideaHit = res.results.find((r: any) => r.entityType === 'idea');
        expect(ideaHit).toEqual({ entityType: 'idea', uuid: targets.idea, title: 'Quokka idea', snippet: expect.any(String), status: 'open', projectUuid: project, projectName: 'Collab', updatedAt: ISO });

        const wombats = await world.ok(dev, 'svc_search', { query: 'wombat', scope: 'project', scopeUuid: project, entityTypes: ['document'] });
        expect(wombats.results.map((r: any) => r.uuid)).toEqual([targets.document]);
        expect(wombats.counts).toMatchObject({ documents: 1, tasks: 0 });
        const inGroup = await world.ok(dev, 'svc_search', { query: 'collab', scope: 'group', scopeUuid: groupUuid });
        expect(inGroup.results.map((r: any) => r.entityType).sort()).toEqual(['project', 'project_group']);

        const exact = await world.ok(dev, 'svc_search', { query: targets.task });
        expect(exact.results[0]).toMatchObject({ entityType: 'task', uuid: targets.task });
      });

      it('requires scopeUuid unless global and refuses unknown scopes', async () => {
        await refused(dev, 'svc_search', { query: 'x', scope: 'project' }, 'VALIDATION_ERROR', 'scopeUuid is required unless scope is global');
        await refused(dev, 'svc_search', { query: 'x', scope: 'project', scopeUuid: randomUUID() }, 'NOT_FOUND', 'Project not found');
        await refused(dev, 'svc_search', { query: 'x', scope: 'group', scopeUuid: randomUUID() }, 'NOT_FOUND', 'Project group not found');
        const empty = await refused(dev, 'svc_search', { query: '' }, 'VALIDATION_ERROR', 'Invalid arguments');
        expect(empty.details).toEqual([{ path: 'query', message: expect.any(String) }]);
        const kind = await refused(dev, 'svc_search', { query: 'x', entityTypes: ['comment'] }, 'VALIDATION_ERROR', 'Invalid arguments');
        expect(kind.details).toEqual([{ path: 'entityTypes.0', message: expect.any(String) }]);
      });
    });

    describe('svc_search_mentionables', () => {
      it('finds users by name or email and non-archived agents by name, of the caller company only', async () => {
        const alice = await world.ok(dev, 'svc_search_mentionables', { query: 'alic' });
        expect(alice).toMatchObject({ page: 1, pageSize: 20, total: 1 });
        expect(alice.mentionables).toEqual([{ type: 'user', uuid: aliceUuid, name: 'Alice', email: expect.stringContaining('@example.test') }]);
        const pms = await world.ok(dev, 'svc_search_mentionables', { query: 'pm' });
        expect(pms.mentionables).toEqual([
          { type: 'agent', uuid: pm.uuid, name: 'PM', email: null },
          { type: 'agent', uuid: pm2.uuid, name: 'PM2', email: null },
        ]);
        const everyone = await world.ok(dev, 'svc_search_mentionables', {});
        expect(everyone.mentionables.map((m: any) => m.name)).toEqual(['Admin', 'Alice', 'Bob', 'Dev', 'PM', 'PM2']);
        expect((await world.ok(dev, 'svc_search_mentionables', { query: 'mallory' })).total).toBe(0);
        const long = await refused(dev, 'svc_search_mentionables', { query: 'x'.repeat(101) }, 'VALIDATION_ERROR', 'Invalid arguments');
        expect(long.details).toEqual([{ path: 'query', message: expect.any(String) }]);
      });
    });

    describe('references', () => {
      it.each(['idea', 'proposal', 'task'] as const)('svc_add_reference attaches a link to a %s and publishes <targetType> updated', async (kind) => {
        const ref = await world.ok(pm, 'svc_add_reference', { targetType: kind, targetUuid: targets[kind], type: 'repo', url: ' https://example.com/r ', title: 'Repo', notes: 'main' });
        expect(ref).toEqual({
          uuid: expect.any(String),
          targetType: kind,
          targetUuid: targets[kind],
          type: 'repo',
          url: 'https://example.com/r',
          title: 'Repo',
          notes: 'main',
          createdBy: { type: 'agent', uuid: pm.uuid, name: 'PM' },
          createdAt: ISO,
          updatedAt: ISO,
        });
        expect(takeEvents()).toEqual([ev(kind, targets[kind], project, 'updated')]);
        await refused(pm, 'svc_add_reference', { targetType: kind, targetUuid: randomUUID(), type: 'docs', url: 'https://e.com', title: 'T' }, 'NOT_FOUND', `${DISPLAY[kind]} not found`);
      });

      it('svc_add_reference refuses a non-http URL, documents as targets and the 51st link', async () => {
        const t = (await world.domain.task(pm.actor, project)).uuid;
        const link = (i: number) => ({ targetType: 'task', targetUuid: t, type: 'docs', url: `https://e.com/${i}`, title: `L${i}` });
        await refused(pm, 'svc_add_reference', { ...link(0), url: 'javascript:alert(1)' }, 'VALIDATION_ERROR', 'URL must start with http:// or https://');
        const doc = await refused(pm, 'svc_add_reference', { ...link(0), targetType: 'document', targetUuid: targets.document }, 'VALIDATION_ERROR', 'Invalid arguments');
        expect(doc.details).toEqual([{ path: 'targetType', message: expect.any(String) }]);
        for (let i = 0; i < 50; i++) await world.ok(pm, 'svc_add_reference', link(i));
        await refused(pm, 'svc_add_reference', link(50), 'VALIDATION_ERROR', 'Maximum 50 references per target');
      });

      it('svc_update_reference changes fields, clears notes with null, and publishes nothing when nothing changes', async () => {
        const ref = await world.ok(pm, 'svc_add_reference', { targetType: 'idea', targetUuid: targets.idea, type: 'docs', url: 'https://e.com/a', title: 'A', notes: 'keep' });
        takeEvents();
        const updated = await world.ok(pm2, 'svc_update_reference', { referenceUuid: ref.uuid, type: 'issue_pr', url: 'http://e.com/b', title: 'B' });
        expect(updated).toMatchObject({ uuid: ref.uuid, type: 'issue_pr', url: 'http://e.com/b', title: 'B', notes: 'keep', createdBy: { uuid: pm.uuid } });
        expect(takeEvents()).toEqual([ev('idea', targets.idea, project, 'updated')]);
        const cleared = await world.ok(pm2, 'svc_update_reference', { referenceUuid: ref.uuid, notes: null });
        expect(cleared.notes).toBeNull();
        expect(takeEvents()).toEqual([ev('idea', targets.idea, project, 'updated')]);
        const same = await world.ok(pm2, 'svc_update_reference', { referenceUuid: ref.uuid, title: 'B' });
        expect(same).toEqual(cleared);
        expect(takeEvents()).toEqual([]);

        await refused(pm, 'svc_update_reference', { referenceUuid: ref.uuid }, 'VALIDATION_ERROR', 'Nothing to update');
        await refused(pm, 'svc_update_reference', { referenceUuid: ref.uuid, url: 'ftp://e.com' }, 'VALIDATION_ERROR', 'URL must start with http:// or https://');
        await refused(pm, 'svc_update_reference', { referenceUuid: randomUUID(), title: 'X' }, 'NOT_FOUND', 'Reference not found');
      });

      it('svc_remove_reference deletes the link and publishes <targetType> updated', async () => {
        const ref = await world.ok(pm, 'svc_add_reference', { targetType: 'proposal', targetUuid: targets.proposal, type: 'paper_blog', url: 'https://e.com/p', title: 'Paper' });
        takeEvents();
        expect(await world.ok(pm, 'svc_remove_reference', { referenceUuid: ref.uuid })).toEqual({ uuid: ref.uuid, deleted: true });
        expect(takeEvents()).toEqual([ev('proposal', targets.proposal, project, 'updated')]);
        await refused(pm, 'svc_remove_reference', { referenceUuid: ref.uuid }, 'NOT_FOUND', 'Reference not found');
      });
    });

    describe('tenant isolation', () => {
      it("answers another company's uuids with NOT_FOUND", async () => {
        const ref = await world.ok(pm, 'svc_add_reference', { targetType: 'task', targetUuid: targets.task, type: 'docs', url: 'https://e.com/t', title: 'Mine' });
        const m = mallory;
        await refused(m, 'svc_get_activity', { projectUuid: project }, 'NOT_FOUND', 'Project not found');
        for (const kind of ['idea', 'proposal', 'task', 'document'] as Kind[]) {
          await refused(m, 'svc_get_comments', { targetType: kind, targetUuid: targets[kind] }, 'NOT_FOUND', `${DISPLAY[kind]} not found`);
          await refused(m, 'svc_add_comment', { targetType: kind, targetUuid: targets[kind], content: 'hi' }, 'NOT_FOUND', `${DISPLAY[kind]} not found`);
        }
        await refused(m, 'svc_add_reference', { targetType: 'idea', targetUuid: targets.idea, type: 'docs', url: 'https://e.com', title: 'T' }, 'NOT_FOUND', 'Idea not found');
        await refused(m, 'svc_update_reference', { referenceUuid: ref.uuid, title: 'Theirs' }, 'NOT_FOUND', 'Reference not found');
        await refused(m, 'svc_remove_reference', { referenceUuid: ref.uuid }, 'NOT_FOUND', 'Reference not found');
        await refused(m, 'svc_search', { query: 'quokka', scope: 'project', scopeUuid: project }, 'NOT_FOUND', 'Project not found');
        await refused(m, 'svc_search', { query: 'quokka', scope: 'group', scopeUuid: groupUuid }, 'NOT_FOUND', 'Project group not found');
        expect((await world.ok(m, 'svc_search', { query: 'quokka' })).total).toBe(0);
        expect((await world.ok(m, 'svc_search', { query: targets.task })).total).toBe(0);
      });
    });

    describe('arguments and permissions', () => {
      it('answers a wrong type, an unknown argument and a malformed uuid with VALIDATION_ERROR details', async () => {
        const wrongType = await refused(dev, 'svc_get_comments', { targetType: 'task', targetUuid: targets.task, page: '1' }, 'VALIDATION_ERROR', 'Invalid arguments');
        expect(wrongType.details).toEqual([{ path: 'page', message: expect.any(String) }]);
        const unknown = await refused(dev, 'svc_add_comment', { targetType: 'task', targetUuid: targets.task, content: 'x', silent: true }, 'VALIDATION_ERROR', 'Invalid arguments');
        expect(unknown.details).toEqual([{ path: 'silent', message: 'should not exist' }]);
        const malformed = await refused(pm, 'svc_remove_reference', { referenceUuid: '1234' }, 'VALIDATION_ERROR', 'Invalid arguments');
        expect(malformed.details).toEqual([{ path: 'referenceUuid', message: expect.any(String) }]);
        const several = await refused(pm, 'svc_update_reference', { referenceUuid: 'x', notes: 5, type: 'video' }, 'VALIDATION_ERROR', 'Invalid arguments');
        expect(several.details.map((d: any) => d.path).sort()).toEqual(['notes', 'referenceUuid', 'type']);
      });

      it('lists the public tools to everyone and the reference tools with document:write only, with their hints', async () => {
        const publicOnes = ['svc_get_activity', 'svc_get_comments', 'svc_search', 'svc_search_mentionables', 'svc_add_comment'];
        const gated = ['svc_add_reference', 'svc_update_reference', 'svc_remove_reference'];
        const devNames = (await dev.client.listTools()).tools.map((t) => t.name);
        const pmTools = new Map((await pm.client.listTools()).tools.map((t) => [t.name, t]));
        for (const n of publicOnes) expect(devNames).toContain(n);
        for (const n of gated) expect(devNames).not.toContain(n);
        for (const n of [...publicOnes, ...gated]) expect(pmTools.has(n)).toBe(true);
        const hint = (n: string) => {
          const a = pmTools.get(n)!.annotations!;
          return `${a.readOnlyHint ? 'r' : ''}${a.destructiveHint ? 'd' : ''}${a.idempotentHint ? 'i' : ''}`;
        };
        expect([...publicOnes, ...gated].map(hint)).toEqual(['ri', 'ri', 'ri', 'ri', '', '', 'i', 'di']);
        await expect(dev.client.callTool({ name: 'svc_remove_reference', arguments: { referenceUuid: randomUUID() } })).rejects.toMatchObject({ code: -32602 });
      });
    });
  });
});
