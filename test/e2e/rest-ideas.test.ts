import { randomUUID } from 'node:crypto';
import type { ProjectRecord } from '../../src/modules/projects/index.js';
import type { Actor } from '../../src/shared/auth/actor.js';
import { question } from '../factories/domain.factory.js';
import type { SeededUser } from '../factories/identity.factory.js';
import { ChangeEvents } from '../utils/change-events.js';
import type { HttpClient } from '../utils/http.js';
import { expectError, expectValidation } from '../utils/rest-expect.js';
import { userActor, World } from '../utils/world.js';

const QUESTION = question('q1');
const ANSWER = { questionId: 'q1', selectedOptionId: 'a' };

describe('REST ideas and elaboration (e2e)', () => {
  let world: World;
  let changes: ChangeEvents;
  /** Company A: a user (whose stream `changes` reads) and a colleague; company B: a user. Clients are logged in. */
  let companyA: string;
  let userA: SeededUser;
  let actorA: Actor;
  let clientA: HttpClient;
  let colleague: SeededUser;
  let colleagueClient: HttpClient;
  let userB: SeededUser;
  let clientB: HttpClient;
  let P: ProjectRecord;
  let Q: ProjectRecord;
  let foreignProject: ProjectRecord;
  let foreignIdea: string;

  beforeAll(async () => {
    world = await World.start();
    companyA = (await world.company()).uuid;
    userA = await world.user(companyA);
    actorA = userActor(userA);
    clientA = await world.login(userA);
    colleague = await world.user(companyA);
    colleagueClient = await world.login(colleague);
    userB = await world.user((await world.company()).uuid);
    clientB = await world.login(userB);
    P = await world.domain.project(actorA, { name: 'P' });
    Q = await world.domain.project(actorA, { name: 'Q' });
    foreignProject = await world.domain.project(userActor(userB));
    foreignIdea = (await world.domain.idea(userActor(userB), foreignProject.uuid, { state: 'pending_answers' })).uuid;
  });
  afterAll(() => world.close());
  beforeEach(async () => {
    changes = await ChangeEvents.open(world, clientA.cookie!, companyA);
  });
  afterEach(() => changes.close());

  const get = async (uuid: string) => (await clientA.get(`/api/ideas/${uuid}`)).body.data;
  const updated = (uuid: string, projectUuid = P.uuid) => ({ projectUuid, entityType: 'idea' as const, entityUuid: uuid, action: 'updated' as const });
  const me = () => ({ type: 'user', uuid: userA.uuid, name: userA.name });

  const ideaRoutes = (id: string): Array<[string, string, unknown?]> => [
    ['GET', `/api/ideas/${id}`],
    ['PATCH', `/api/ideas/${id}`, { title: 'Hijack' }],
    ['DELETE', `/api/ideas/${id}`],
    ['POST', `/api/ideas/${id}/claim`],
    ['POST', `/api/ideas/${id}/release`],
    ['POST', `/api/ideas/${id}/move`, { targetProjectUuid: Q.uuid }],
    ['POST', `/api/ideas/${id}/assign`, { assigneeType: 'user', assigneeUuid: userA.uuid }],
    ['GET', `/api/ideas/${id}/elaboration`],
    ['POST', `/api/ideas/${id}/elaboration/rounds`, { depth: 'standard', questions: [QUESTION] }],
    ['POST', `/api/ideas/${id}/elaboration/answers`, { answers: [ANSWER] }],
    ['POST', `/api/ideas/${id}/elaboration/resolve`],
    ['POST', `/api/ideas/${id}/elaboration/skip`, { reason: 'Agreed' }],
  ];

  it('answers 401 on every route without a session cookie', async () => {
    const idea = await world.domain.idea(actorA, P.uuid);
    const routes = [...ideaRoutes(idea.uuid), ['GET', `/api/projects/${P.uuid}/ideas`], ['POST', `/api/projects/${P.uuid}/ideas`, { title: 'X' }]] as Array<[string, string, unknown?]>;
    for (const [method, path, json] of routes) expectError(await world.http().request(method, path, { json }), 401, 'UNAUTHORIZED');
    expect(await get(idea.uuid)).toEqual(idea);
    await changes.expectQuiet();
  });

  it('answers 404 for missing, foreign and malformed uuids on every route, touching nothing', async () => {
    const before = (await clientB.get(`/api/ideas/${foreignIdea}`)).body.data;
    for (const id of [randomUUID(), foreignIdea, 'not-a-uuid']) {
      for (const [method, path, json] of ideaRoutes(id)) expectError(await clientA.request(method, path, { json }), 404, 'NOT_FOUND', 'Idea not found');
    }
    for (const id of [randomUUID(), foreignProject.uuid, 'nope']) {
      expectError(await clientA.get(`/api/projects/${id}/ideas`), 404, 'NOT_FOUND', 'Project not found');
      expectError(await clientA.post(`/api/projects/${id}/ideas`, { title: 'X' }), 404, 'NOT_FOUND', 'Project not found');
    }
    expect((await clientB.get(`/api/ideas/${foreignIdea}`)).body.data).toEqual(before);
    await changes.expectQuiet();
  });

  describe('ideas', () => {
    it('creates an idea (201, IdeaRecord) publishing `idea created`, and a child also `idea updated` for its parent', async () => {
      const res = await clientA.post(`/api/projects/${P.uuid}/ideas`, {
        title: '  Dark mode  ',
        content: 'Night',
        isContainer: true,
        references: [{ type: 'docs', url: 'https://example.test/a', title: 'Spec' }],
      });
      expect(res.status).toBe(201);
      const idea = res.body.data;
      expect(idea).toEqual({
        uuid: expect.any(String),
        projectUuid: P.uuid,
        title: 'Dark mode',
        status: 'open',
        derivedStatus: expect.any(String),
        isContainer: true,
        parentUuid: null,
        assignee: null,
        elaborationStatus: null,
        childCount: 0,
        createdBy: me(),
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        content: 'Night',
        elaborationDepth: null,
        parent: null,
        children: [],
        proposals: [],
        reports: [],
        references: [expect.objectContaining({ targetType: 'idea', targetUuid: idea.uuid, type: 'docs', url: 'https://example.test/a', title: 'Spec', notes: null })],
      });
      await changes.expectExactly([{ projectUuid: P.uuid, entityType: 'idea', entityUuid: idea.uuid, action: 'created' }]);

      const child = (await clientA.post(`/api/projects/${P.uuid}/ideas`, { title: 'Child', parentUuid: idea.uuid })).body.data;
      expect(child).toEqual(expect.objectContaining({ parentUuid: idea.uuid, parent: { uuid: idea.uuid, title: 'Dark mode' } }));
      await changes.expectExactly([{ projectUuid: P.uuid, entityType: 'idea', entityUuid: child.uuid, action: 'created' }, updated(idea.uuid)]);
    });

    it('refuses invalid ideas with 400 (details) or 404, creating nothing and publishing nothing', async () => {
      const count = async () => (await clientA.get(`/api/projects/${P.uuid}/ideas?pageSize=1`)).body.data.total;
      const before = await count();
      const url = `/api/projects/${P.uuid}/ideas`;
      expectValidation(await clientA.post(url, {}), 'title');
      expectValidation(await clientA.post(url, { title: '  ' }), 'title');
      expectValidation(await clientA.post(url, { title: 'X', isContainer: 'yes' }), 'isContainer');
      expectValidation(await clientA.post(url, { title: 'X', isContainer: null }), 'isContainer');
      expectValidation(await clientA.post(url, { title: 'X', parentUuid: 'x' }), 'parentUuid');
      expectValidation(await clientA.post(url, { title: 'X', references: [{ type: 'docs', url: 'https://a.test', title: 'T', extra: 1 }] }), 'references.0.extra');
      expectError(await clientA.post(url, { title: 'X', references: [{ type: 'docs', url: 'ftp://a.test', title: 'T' }] }), 400, 'VALIDATION_ERROR', 'URL must start with http:// or https://');
      const elsewhere = await world.domain.idea(actorA, Q.uuid);
      expectError(await clientA.post(url, { title: 'X', parentUuid: elsewhere.uuid }), 400, 'VALIDATION_ERROR', 'Parent idea must be in the same project');
      expectError(await clientA.post(url, { title: 'X', parentUuid: foreignIdea }), 404, 'NOT_FOUND', 'Parent idea not found');
      expect(await count()).toBe(before);
      await changes.expectQuiet();
    });

    it('lists ideas newest first with ?status=, ?available=true and paging; bad filters are 400 with details', async () => {
      const R = await world.domain.project(actorA);
      const open = await world.domain.idea(actorA, R.uuid, { title: 'open' });
      const busy = await world.domain.idea(actorA, R.uuid, { state: 'elaborating', title: 'busy' });
      const done = await world.domain.idea(actorA, R.uuid, { state: 'elaborated', title: 'done' });
      const uuids = (res: { body: { data: { ideas: Array<{ uuid: string }> } } }) => res.body.data.ideas.map((i) => i.uuid);
      const all = await clientA.get(`/api/projects/${R.uuid}/ideas`);
      expect(all.status).toBe(200);
      expect(all.body.data).toEqual({ ideas: expect.any(Array), page: 1, pageSize: 20, total: 3 });
      expect(uuids(all)).toEqual([done.uuid, busy.uuid, open.uuid]);
      expect(all.body.data.ideas[0]).toEqual(expect.objectContaining({ uuid: done.uuid, status: 'elaborated', assignee: expect.objectContaining(me()) }));
      expect(all.body.data.ideas[0].content).toBeUndefined();
      expect(uuids(await clientA.get(`/api/projects/${R.uuid}/ideas?status=elaborating`))).toEqual([busy.uuid]);
      const available = await clientA.get(`/api/projects/${R.uuid}/ideas?available=true`);
      expect(available.body.data).toEqual(expect.objectContaining({ total: 1 }));
      expect(uuids(available)).toEqual([open.uuid]);
      expect(uuids(await clientA.get(`/api/projects/${R.uuid}/ideas?available=false&page=2&pageSize=1`))).toEqual([busy.uuid]);
      expect(uuids(await clientA.get(`/api/projects/${R.uuid}/ideas?limit=2&offset=2`))).toEqual([open.uuid]);
      expectValidation(await clientA.get(`/api/projects/${R.uuid}/ideas?status=closed`), 'status');
      expectValidation(await clientA.get(`/api/projects/${R.uuid}/ideas?available=yes`), 'available');
      expectValidation(await clientA.get(`/api/projects/${R.uuid}/ideas?available=true&status=open`), 'status');
      expectValidation(await clientA.get(`/api/projects/${R.uuid}/ideas?pageSize=101`), 'pageSize');
    });

    it('gets an idea record', async () => {
      const parent = await world.domain.idea(actorA, P.uuid, { title: 'Parent' });
      const child = await world.domain.idea(actorA, P.uuid, { parentUuid: parent.uuid, title: 'Kid' });
      const res = await clientA.get(`/api/ideas/${parent.uuid}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(expect.objectContaining({ uuid: parent.uuid, childCount: 1, children: [expect.objectContaining({ uuid: child.uuid, title: 'Kid', status: 'open' })] }));
    });

    it('edits an idea publishing `idea updated` (and both parents on a reparent); an edit that changes nothing publishes nothing', async () => {
      const idea = await world.domain.idea(actorA, P.uuid, { title: 'Old' });
      const res = await clientA.patch(`/api/ideas/${idea.uuid}`, { title: 'New', content: 'Body' });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(expect.objectContaining({ uuid: idea.uuid, title: 'New', content: 'Body' }));
      await changes.expectExactly([updated(idea.uuid)]);

      expect((await clientA.patch(`/api/ideas/${idea.uuid}`, { title: 'New' })).status).toBe(200);
      await changes.expectQuiet();

      const p1 = await world.domain.idea(actorA, P.uuid);
      const p2 = await world.domain.idea(actorA, P.uuid);
      await clientA.patch(`/api/ideas/${idea.uuid}`, { parentUuid: p1.uuid });
      await changes.expectExactly([updated(idea.uuid), updated(p1.uuid)]);
      await clientA.patch(`/api/ideas/${idea.uuid}`, { parentUuid: p2.uuid });
      await changes.expectExactly([updated(idea.uuid), updated(p1.uuid), updated(p2.uuid)]);
      const detached = await clientA.patch(`/api/ideas/${idea.uuid}`, { parentUuid: null });
      expect(detached.body.data).toEqual(expect.objectContaining({ parentUuid: null, parent: null }));
      await changes.expectExactly([updated(idea.uuid), updated(p2.uuid)]);
    });

    it('refuses bad edits with 400 and leaves the idea unchanged', async () => {
      const parent = await world.domain.idea(actorA, P.uuid);
      const idea = await world.domain.idea(actorA, P.uuid, { parentUuid: parent.uuid });
      const elsewhere = await world.domain.idea(actorA, Q.uuid);
      const before = await get(parent.uuid);
      const url = `/api/ideas/${parent.uuid}`;
      expectError(await clientA.patch(url, {}), 400, 'VALIDATION_ERROR', 'Nothing to update');
      expectValidation(await clientA.patch(url, { title: '' }), 'title');
      expectValidation(await clientA.patch(url, { content: 5 }), 'content');
      expectValidation(await clientA.patch(url, { status: 'elaborated' }), 'status');
      // null is not "omitted": it reached the NOT NULL column as a 500 (found by the fuzz suite)
      expectValidation(await clientA.patch(url, { isContainer: null }), 'isContainer');
      expectValidation(await clientA.patch(url, { title: 'Renamed', isContainer: null }), 'isContainer');
      expectError(await clientA.patch(url, { parentUuid: parent.uuid }), 400, 'VALIDATION_ERROR', 'An idea cannot be its own parent');
      expectError(await clientA.patch(url, { parentUuid: idea.uuid }), 400, 'VALIDATION_ERROR', 'Setting this parent would create a cycle');
      expectError(await clientA.patch(url, { parentUuid: elsewhere.uuid }), 400, 'VALIDATION_ERROR', 'Parent idea must be in the same project');
      expectError(await clientA.patch(url, { parentUuid: foreignIdea }), 404, 'NOT_FOUND', 'Parent idea not found');
      expect(await get(parent.uuid)).toEqual(before);
      await changes.expectQuiet();
    });

    it('deletes an idea: children become top-level; `idea updated` for children and parent, `idea deleted` for it', async () => {
      const parent = await world.domain.idea(actorA, P.uuid);
      const idea = await world.domain.idea(actorA, P.uuid, { parentUuid: parent.uuid });
      const child = await world.domain.idea(actorA, P.uuid, { parentUuid: idea.uuid });
      const res = await clientA.delete(`/api/ideas/${idea.uuid}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: { uuid: idea.uuid, deleted: true } });
      await changes.expectExactly([updated(child.uuid), updated(parent.uuid), { projectUuid: P.uuid, entityType: 'idea', entityUuid: idea.uuid, action: 'deleted' }]);
      expectError(await clientA.get(`/api/ideas/${idea.uuid}`), 404, 'NOT_FOUND', 'Idea not found');
      expect((await get(child.uuid)).parentUuid).toBeNull();
    });

    it('claims an open idea (200, `idea updated`); the assignee claiming again changes nothing; anyone else is INVALID_STATE', async () => {
      const idea = await world.domain.idea(actorA, P.uuid);
      const res = await clientA.post(`/api/ideas/${idea.uuid}/claim`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(expect.objectContaining({ status: 'elaborating', assignee: expect.objectContaining({ ...me(), assignedBy: me() }) }));
      await changes.expectExactly([updated(idea.uuid)]);
      const claimed = await get(idea.uuid);
      expect((await clientA.post(`/api/ideas/${idea.uuid}/claim`)).body.data).toEqual(claimed);
      expectError(await colleagueClient.post(`/api/ideas/${idea.uuid}/claim`), 409, 'INVALID_STATE', 'Idea is elaborating; claim requires open');
      expect(await get(idea.uuid)).toEqual(claimed);
      await changes.expectQuiet();
    });

    it('releases an idea (elaborating -> open, `idea updated`); others are FORBIDDEN, a resolved idea is INVALID_STATE', async () => {
      const idea = await world.domain.idea(actorA, P.uuid, { state: 'elaborating' });
      const before = await get(idea.uuid);
      expectError(await colleagueClient.post(`/api/ideas/${idea.uuid}/release`), 403, 'FORBIDDEN', 'Only the assignee can release this idea');
      expect(await get(idea.uuid)).toEqual(before);
      await changes.expectQuiet();
      const res = await clientA.post(`/api/ideas/${idea.uuid}/release`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(expect.objectContaining({ status: 'open', assignee: null, elaborationStatus: null }));
      await changes.expectExactly([updated(idea.uuid)]);

      const done = await world.domain.idea(actorA, P.uuid, { state: 'elaborated' });
      expectError(await clientA.post(`/api/ideas/${done.uuid}/release`), 409, 'INVALID_STATE', 'Idea is elaborated; release requires elaborating');
      expectError(await clientA.post(`/api/ideas/${idea.uuid}/release`), 403, 'FORBIDDEN');
      expect((await get(done.uuid)).status).toBe('elaborated');
      await changes.expectQuiet();
    });

    it('moves an idea with its subtree, publishing `idea updated` in the source and the target project', async () => {
      const root = await world.domain.idea(actorA, P.uuid);
      const child = await world.domain.idea(actorA, P.uuid, { parentUuid: root.uuid });
      const res = await clientA.post(`/api/ideas/${root.uuid}/move`, { targetProjectUuid: Q.uuid });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ idea: expect.objectContaining({ uuid: root.uuid, projectUuid: Q.uuid }), moved: { ideas: 2, proposals: 0, documents: 0, tasks: 0 } });
      await changes.expectExactly([updated(root.uuid), updated(child.uuid), updated(root.uuid, Q.uuid), updated(child.uuid, Q.uuid)]);
      expect((await get(child.uuid)).projectUuid).toBe(Q.uuid);
    });

    it('refuses moves: same project 400, missing or foreign target 404, crossing dependencies 409 CONFLICT', async () => {
      const idea = await world.domain.idea(actorA, P.uuid);
      const proposal = await world.domain.proposal(actorA, P.uuid, { inputUuids: [idea.uuid], status: 'approved' });
      const moving = await world.domain.task(actorA, P.uuid, { proposalUuid: proposal.uuid });
      const staying = await world.domain.task(actorA, P.uuid);
      await world.domain.dependency(moving.uuid, staying.uuid);
      const before = await get(idea.uuid);
      const move = (targetProjectUuid: unknown) => clientA.post(`/api/ideas/${idea.uuid}/move`, { targetProjectUuid });
      expectValidation(await move('x'), 'targetProjectUuid');
      expectValidation(await clientA.post(`/api/ideas/${idea.uuid}/move`, {}), 'targetProjectUuid');
      expectError(await move(P.uuid), 400, 'VALIDATION_ERROR', 'Idea is already in the target project');
      for (const id of [randomUUID(), foreignProject.uuid]) expectError(await move(id), 404, 'NOT_FOUND', 'Target project not found');
      expectError(await move(Q.uuid), 409, 'CONFLICT', 'Idea cannot be moved: a moved task depends on or is depended on by a task that stays');
      expect(await get(idea.uuid)).toEqual(before);
      await changes.expectQuiet();
    });

    it('assigns an idea to a user or an idea:write agent (`idea updated`); guards answer 400/404/409 and change nothing', async () => {
      const idea = await world.domain.idea(actorA, P.uuid);
      const assign = (body: Record<string, unknown>, uuid = idea.uuid) => clientA.post(`/api/ideas/${uuid}/assign`, body);
      const res = await assign({ assigneeType: 'user', assigneeUuid: colleague.uuid });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(
        expect.objectContaining({ status: 'elaborating', assignee: expect.objectContaining({ type: 'user', uuid: colleague.uuid, assignedBy: me() }) }),
      );
      await changes.expectExactly([updated(idea.uuid)]);
      expect((await assign({ assigneeType: 'user', assigneeUuid: colleague.uuid })).status).toBe(200);
      await changes.expectQuiet();

      const pm = await world.agent(companyA, userA.uuid, { preset: 'pm_agent', name: 'Planner' });
      const toAgent = await assign({ assigneeType: 'agent', assigneeUuid: pm.uuid });
      expect(toAgent.body.data.assignee).toEqual(expect.objectContaining({ type: 'agent', uuid: pm.uuid, name: 'Planner' }));
      await changes.expectExactly([updated(idea.uuid)]);

      const before = await get(idea.uuid);
      const dev = await world.agent(companyA, userA.uuid, { preset: 'developer_agent', name: 'Coder' });
      expectError(await assign({ assigneeType: 'agent', assigneeUuid: dev.uuid }), 400, 'VALIDATION_ERROR', 'Agent "Coder" does not have idea:write permission');
      expectError(await assign({ assigneeType: 'user', assigneeUuid: userB.uuid }), 404, 'NOT_FOUND', 'User not found');
      expectError(await assign({ assigneeType: 'agent', assigneeUuid: randomUUID() }), 404, 'NOT_FOUND', 'Agent not found');
      expectValidation(await assign({ assigneeType: 'robot', assigneeUuid: userA.uuid }), 'assigneeType');
      expectValidation(await assign({ assigneeType: 'user', assigneeUuid: 'me' }), 'assigneeUuid');
      expect(await get(idea.uuid)).toEqual(before);
      const done = await world.domain.idea(actorA, P.uuid, { state: 'elaborated' });
      expectError(await assign({ assigneeType: 'user', assigneeUuid: colleague.uuid }, done.uuid), 409, 'INVALID_STATE', 'Idea is elaborated; assign requires open or elaborating');
      expect((await get(done.uuid)).assignee.uuid).toBe(userA.uuid);
      await changes.expectQuiet();
    });
  });

  describe('elaboration', () => {
    const url = (uuid: string, action = '') => `/api/ideas/${uuid}/elaboration${action}`;

    it('reads the elaboration state', async () => {
      const idea = await world.domain.idea(actorA, P.uuid, { state: 'pending_answers' });
      const res = await clientA.get(url(idea.uuid));
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        ideaUuid: idea.uuid,
        ideaStatus: 'elaborating',
        depth: 'standard',
        status: 'pending_answers',
        rounds: [
          expect.objectContaining({
            roundNumber: 1,
            status: 'pending_answers',
            depth: 'standard',
            isAppended: false,
            questions: [expect.objectContaining({ questionId: 'q1', text: 'Question q1?', category: 'functional', required: true, answer: null })],
          }),
        ],
        summary: { totalQuestions: 1, answeredQuestions: 0, pendingRoundUuid: expect.any(String) },
      });
    });

    it('runs start -> answer -> resolve, each publishing `idea updated`', async () => {
      const idea = await world.domain.idea(actorA, P.uuid, { state: 'elaborating' });
      const started = await clientA.post(url(idea.uuid, '/rounds'), { depth: 'comprehensive', questions: [QUESTION, question('q2', { required: false })] });
      expect(started.status).toBe(201);
      expect(started.body.data).toEqual(expect.objectContaining({ ideaUuid: idea.uuid, depth: 'comprehensive', status: 'pending_answers' }));
      expect(started.body.data.rounds[0].questions.map((q: { questionId: string }) => q.questionId)).toEqual(['q1', 'q2']);
      await changes.expectExactly([updated(idea.uuid)]);

      const answered = await clientA.post(url(idea.uuid, '/answers'), { roundUuid: started.body.data.rounds[0].uuid, answers: [{ ...ANSWER, customText: 'because' }] });
      expect(answered.status).toBe(200);
      expect(answered.body.data).toEqual(expect.objectContaining({ status: 'validating', summary: { totalQuestions: 2, answeredQuestions: 1, pendingRoundUuid: null } }));
      expect(answered.body.data.rounds[0].questions[0].answer).toEqual(expect.objectContaining({ selectedOptionId: 'a', customText: 'because', answeredBy: me() }));
      await changes.expectExactly([updated(idea.uuid)]);

      const resolved = await clientA.post(url(idea.uuid, '/resolve'));
      expect(resolved.status).toBe(200);
      expect(resolved.body.data).toEqual(expect.objectContaining({ ideaStatus: 'elaborated', status: 'resolved' }));
      await changes.expectExactly([updated(idea.uuid)]);
      expect((await get(idea.uuid)).status).toBe('elaborated');
    });

    it('refuses rounds: open idea or a pending round is INVALID_STATE, bad questions are 400 with details', async () => {
      const open = await world.domain.idea(actorA, P.uuid);
      const pending = await world.domain.idea(actorA, P.uuid, { state: 'pending_answers' });
      const start = (uuid: string, body: Record<string, unknown>) => clientA.post(url(uuid, '/rounds'), body);
      const ok = { depth: 'standard', questions: [QUESTION] };
      expectError(await start(open.uuid, ok), 409, 'INVALID_STATE', 'Idea is open; start elaboration requires elaborating or elaborated');
      expectError(await start(pending.uuid, ok), 409, 'INVALID_STATE', 'Idea has a round awaiting answers; start elaboration requires every round answered');
      const busy = await world.domain.idea(actorA, P.uuid, { state: 'elaborating' });
      expectValidation(await start(busy.uuid, { depth: 'standard', questions: [] }), 'questions');
      expectValidation(await start(busy.uuid, { depth: 'deep', questions: [QUESTION] }), 'depth');
      expectValidation(await start(busy.uuid, { depth: 'standard' }), 'questions');
      expectValidation(await start(busy.uuid, { depth: 'standard', questions: [{ ...QUESTION, options: [QUESTION.options[0]] }] }), 'questions.0.options');
      expectValidation(await start(busy.uuid, { depth: 'standard', questions: [{ ...QUESTION, hint: 'x' }] }), 'questions.0.hint');
      expectError(await start(busy.uuid, { depth: 'standard', questions: [QUESTION, QUESTION] }), 400, 'VALIDATION_ERROR', 'Duplicate question id q1');
      for (const idea of [open, busy]) expect((await clientA.get(url(idea.uuid))).body.data.rounds).toEqual([]);
      expect((await clientA.get(url(pending.uuid))).body.data.rounds).toHaveLength(1);
      await changes.expectQuiet();
    });

    it('refuses answers: no pending round is INVALID_STATE, an unknown round 404, unknown questions 400', async () => {
      const busy = await world.domain.idea(actorA, P.uuid, { state: 'elaborating' });
      const pending = await world.domain.idea(actorA, P.uuid, { state: 'pending_answers' });
      const answer = (uuid: string, body: Record<string, unknown>) => clientA.post(url(uuid, '/answers'), body);
      expectError(await answer(busy.uuid, { answers: [ANSWER] }), 409, 'INVALID_STATE', 'Idea has no round in pending_answers; answer requires a pending round');
      expectError(await answer(pending.uuid, { roundUuid: randomUUID(), answers: [ANSWER] }), 404, 'NOT_FOUND', 'Round not found');
      expectError(await answer(pending.uuid, { answers: [{ questionId: 'zz', selectedOptionId: 'a' }] }), 400, 'VALIDATION_ERROR', 'Unknown question zz');
      expectValidation(await answer(pending.uuid, { answers: 'a' }), 'answers');
      expectValidation(await answer(pending.uuid, { answers: [{ questionId: 1 }] }), 'answers.0.questionId');
      expectValidation(await answer(pending.uuid, { roundUuid: 'r1', answers: [ANSWER] }), 'roundUuid');
      expect((await clientA.get(url(pending.uuid))).body.data.summary.answeredQuestions).toBe(0);
      await changes.expectQuiet();
    });

    it('refuses resolve: unanswered or missing rounds are 400, a resolved idea INVALID_STATE', async () => {
      const pending = await world.domain.idea(actorA, P.uuid, { state: 'pending_answers' });
      const busy = await world.domain.idea(actorA, P.uuid, { state: 'elaborating' });
      const done = await world.domain.idea(actorA, P.uuid, { state: 'elaborated' });
      expectError(await clientA.post(url(pending.uuid, '/resolve')), 400, 'VALIDATION_ERROR', '1 round(s) still await answers');
      expectError(await clientA.post(url(busy.uuid, '/resolve')), 400, 'VALIDATION_ERROR', 'The idea has no elaboration rounds');
      expectError(await clientA.post(url(done.uuid, '/resolve')), 409, 'INVALID_STATE', 'Idea is elaborated; validate elaboration requires elaborating');
      expect((await get(pending.uuid)).status).toBe('elaborating');
      expect((await get(busy.uuid)).status).toBe('elaborating');
      await changes.expectQuiet();
    });

    it('skips elaboration (-> elaborated, depth minimal, `idea updated`); an open idea is INVALID_STATE, a blank reason 400', async () => {
      const busy = await world.domain.idea(actorA, P.uuid, { state: 'elaborating' });
      const open = await world.domain.idea(actorA, P.uuid);
      expectValidation(await clientA.post(url(busy.uuid, '/skip'), { reason: '   ' }), 'reason');
      expectValidation(await clientA.post(url(busy.uuid, '/skip'), {}), 'reason');
      expectError(await clientA.post(url(open.uuid, '/skip'), { reason: 'Agreed' }), 409, 'INVALID_STATE', 'Idea is open; skip elaboration requires elaborating');
      expect((await get(open.uuid)).status).toBe('open');
      expect((await get(busy.uuid)).status).toBe('elaborating');
      await changes.expectQuiet();
      const res = await clientA.post(url(busy.uuid, '/skip'), { reason: 'Agreed with Ann' });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(expect.objectContaining({ ideaStatus: 'elaborated', depth: 'minimal', status: 'resolved', rounds: [] }));
      await changes.expectExactly([updated(busy.uuid)]);
    });
  });
});
