import { randomUUID } from 'node:crypto';
import type { ProjectRecord } from '../../src/modules/projects/index.js';
import type { Actor } from '../../src/shared/auth/actor.js';
import { question, type DomainFactory } from '../factories/domain.factory.js';
import type { SeededUser } from '../factories/identity.factory.js';
import { ChangeEvents } from '../utils/change-events.js';
import type { HttpClient } from '../utils/http.js';
import { expectError, expectValidation } from '../utils/rest-expect.js';
import { userActor, World, type WorldAgent } from '../utils/world.js';
import type { RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { expectRefused, sortEvents, tableRows } from '../utils/mcp-expect.js';

/** One app for the whole file; each block below seeds companies of its own. */
let world: World;
beforeAll(async () => {
  world = await World.start();
});
afterAll(() => world.close());

describe('ideas over REST', () => {
  const QUESTION = question('q1');
  const ANSWER = { questionId: 'q1', selectedOptionId: 'a' };

  describe('REST ideas and elaboration (e2e)', () => {
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
});

describe('idea tools', () => {
  const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  const q = (id: string, extra: Record<string, unknown> = {}) => ({ ...question(id), ...extra });

  describe('idea and elaboration tools (e2e, MCP SDK client)', () => {
    let events: RealtimeEvent[];
    let companyUuid: string;
    // Company A (users Alice and Bob): pm and dev of Alice's, pm2 and admin of Bob's; company B: Mallory, an admin agent.
    let pm: WorldAgent;
    let pm2: WorldAgent;
    let dev: WorldAgent;
    let admin: WorldAgent;
    let mallory: WorldAgent;
    let project: string;
    let other: string;
    let theirProject: string;
    const idea = (opts: Parameters<DomainFactory['idea']>[2] = {}) => world.domain.idea(pm.actor, project, opts);

    beforeAll(async () => {
      const ca = await world.company();
      companyUuid = ca.uuid;
      const alice = await world.user(ca.uuid, { name: 'Alice' });
      const bob = await world.user(ca.uuid, { name: 'Bob' });
      const cb = await world.company();
      const malloryUser = await world.user(cb.uuid, { name: 'Mallory' });
      pm = await world.agent(ca.uuid, alice.uuid, { preset: 'pm_agent', name: 'PM' });
      pm2 = await world.agent(ca.uuid, bob.uuid, { preset: 'pm_agent', name: 'PM2' });
      dev = await world.agent(ca.uuid, alice.uuid, { preset: 'developer_agent', name: 'Dev' });
      admin = await world.agent(ca.uuid, bob.uuid, { preset: 'admin_agent', name: 'Admin' });
      mallory = await world.agent(cb.uuid, malloryUser.uuid, { preset: 'admin_agent', name: 'Mallory' });
      events = world.recordEvents();
      project = (await world.ok(pm, 'svc_admin_create_project', { name: 'Ideas' })).uuid;
      other = (await world.ok(pm, 'svc_admin_create_project', { name: 'Elsewhere' })).uuid;
      theirProject = (await world.ok(mallory, 'svc_admin_create_project', { name: 'Theirs' })).uuid;
    });

    beforeEach(() => takeEvents());

    const takeEvents = (): RealtimeEvent[] => events.splice(0, events.length);
    /** The change event shape the bus carries, in company A. */
    const ev = (entityType: RealtimeEvent['entityType'], entityUuid: string, projectUuid: string, action: RealtimeEvent['action']): RealtimeEvent => ({ companyUuid, projectUuid, entityType, entityUuid, action });
    /** A refused call: the error code (and message), no change event and the domain tables unchanged; returns the error. */
    const refused = (agent: WorldAgent, name: string, args: Record<string, unknown>, code: string, message?: string) =>
      expectRefused(events, agent, name, args, { code, message, unchanged: () => tableRows(world.ds) });

    describe('svc_pm_create_idea', () => {
      it('creates an open idea (IdeaRecord) with references and publishes idea created', async () => {
        const rec = await world.ok(pm, 'svc_pm_create_idea', {
          projectUuid: project,
          title: '  Dark mode  ',
          content: 'Users want it',
          isContainer: true,
          references: [{ type: 'docs', url: 'https://example.com/dark', title: 'Spec', notes: 'n' }],
        });
        expect(rec).toEqual({
          uuid: expect.any(String),
          projectUuid: project,
          title: 'Dark mode',
          status: 'open',
          derivedStatus: expect.any(String),
          isContainer: true,
          parentUuid: null,
          assignee: null,
          elaborationStatus: null,
          childCount: 0,
          createdBy: { type: 'agent', uuid: pm.uuid, name: 'PM' },
          createdAt: ISO,
          updatedAt: ISO,
          content: 'Users want it',
          elaborationDepth: null,
          parent: null,
          children: [],
          proposals: [],
          reports: [],
          references: [
            {
              uuid: expect.any(String),
              targetType: 'idea',
              targetUuid: rec.uuid,
              type: 'docs',
              url: 'https://example.com/dark',
              title: 'Spec',
              notes: 'n',
              createdBy: { type: 'agent', uuid: pm.uuid, name: 'PM' },
              createdAt: ISO,
              updatedAt: ISO,
            },
          ],
        });
        expect(takeEvents()).toEqual([ev('idea', rec.uuid, project, 'created')]);
      });

      it('creates a child idea: idea created plus idea updated for the parent', async () => {
        const parent = await idea();
        takeEvents();
        const child = await world.ok(pm, 'svc_pm_create_idea', { projectUuid: project, title: 'Child', parentUuid: parent.uuid });
        expect(child).toMatchObject({ parentUuid: parent.uuid, parent: { uuid: parent.uuid, title: parent.title } });
        expect(sortEvents(takeEvents())).toEqual(sortEvents([ev('idea', child.uuid, project, 'created'), ev('idea', parent.uuid, project, 'updated')]));
      });

      it('refuses unknown project and parent, a parent in another project and a bad reference URL', async () => {
        const elsewhere = await world.domain.idea(pm.actor, other);
        await refused(pm, 'svc_pm_create_idea', { projectUuid: randomUUID(), title: 'X' }, 'NOT_FOUND', 'Project not found');
        await refused(pm, 'svc_pm_create_idea', { projectUuid: project, title: 'X', parentUuid: randomUUID() }, 'NOT_FOUND', 'Parent idea not found');
        await refused(pm, 'svc_pm_create_idea', { projectUuid: project, title: 'X', parentUuid: elsewhere.uuid }, 'VALIDATION_ERROR', 'Parent idea must be in the same project');
        await refused(
          pm,
          'svc_pm_create_idea',
          { projectUuid: project, title: 'X', references: [{ type: 'repo', url: 'ftp://example.com', title: 'R' }] },
          'VALIDATION_ERROR',
          'URL must start with http:// or https://',
        );
        await refused(pm, 'svc_pm_create_idea', { projectUuid: project, title: '   ' }, 'VALIDATION_ERROR');
        const many = Array.from({ length: 11 }, (_, i) => ({ type: 'docs', url: `https://e.com/${i}`, title: `R${i}` }));
        const err = await refused(pm, 'svc_pm_create_idea', { projectUuid: project, title: 'X', references: many }, 'VALIDATION_ERROR', 'Invalid arguments');
        expect(err.details).toEqual([{ path: 'references', message: expect.any(String) }]);
      });
    });

    describe('reads', () => {
      it('svc_get_ideas lists by createdAt desc with a status filter; svc_get_available_ideas lists open ideas', async () => {
        const p = (await world.ok(pm, 'svc_admin_create_project', { name: 'Reads' })).uuid;
        const open = await world.domain.idea(pm.actor, p, { title: 'Open one' });
        const claimed = await world.domain.idea(pm.actor, p, { state: 'elaborating' });
        const done = await world.domain.idea(pm.actor, p, { state: 'skipped' });
        const all = await world.ok(dev, 'svc_get_ideas', { projectUuid: p });
        expect(all).toMatchObject({ page: 1, pageSize: 20, total: 3 });
        expect(all.ideas.map((i: any) => i.uuid)).toEqual([done.uuid, claimed.uuid, open.uuid]);
        expect(Object.keys(all.ideas[0]).sort()).toEqual(
          ['uuid', 'projectUuid', 'title', 'status', 'derivedStatus', 'isContainer', 'parentUuid', 'assignee', 'elaborationStatus', 'childCount', 'createdBy', 'createdAt', 'updatedAt'].sort(),
        );
        expect(all.ideas[1].assignee).toEqual({ type: 'agent', uuid: pm.uuid, name: 'PM', assignedAt: ISO, assignedBy: { type: 'agent', uuid: pm.uuid, name: 'PM' } });
        const elaborated = await world.ok(dev, 'svc_get_ideas', { projectUuid: p, status: 'elaborated' });
        expect(elaborated.ideas.map((i: any) => i.uuid)).toEqual([done.uuid]);
        const page = await world.ok(dev, 'svc_get_ideas', { projectUuid: p, page: 2, pageSize: 2 });
        expect(page).toMatchObject({ page: 2, pageSize: 2, total: 3 });
        expect(page.ideas.map((i: any) => i.uuid)).toEqual([open.uuid]);
        const available = await world.ok(dev, 'svc_get_available_ideas', { projectUuid: p });
        expect(available).toMatchObject({ total: 1 });
        expect(available.ideas.map((i: any) => i.uuid)).toEqual([open.uuid]);
        const err = await refused(dev, 'svc_get_ideas', { projectUuid: p, status: 'closed' }, 'VALIDATION_ERROR', 'Invalid arguments');
        expect(err.details).toEqual([{ path: 'status', message: expect.any(String) }]);
        await refused(dev, 'svc_get_ideas', { projectUuid: randomUUID() }, 'NOT_FOUND', 'Project not found');
        await refused(dev, 'svc_get_available_ideas', { projectUuid: randomUUID() }, 'NOT_FOUND', 'Project not found');
      });

      it('svc_get_idea returns lineage, proposals and references; svc_get_elaboration returns the rounds', async () => {
        const parent = await idea({ title: 'Parent' });
        const child = await idea({ parentUuid: parent.uuid, state: 'pending_answers' });
        const proposal = await world.domain.proposal(pm.actor, project, { inputUuids: [child.uuid], status: 'pending' });
        const rec = await world.ok(dev, 'svc_get_idea', { ideaUuid: child.uuid });
        expect(rec).toMatchObject({ uuid: child.uuid, parent: { uuid: parent.uuid, title: 'Parent' }, proposals: [{ uuid: proposal.uuid, title: proposal.title, status: 'pending' }] });
        expect((await world.ok(dev, 'svc_get_idea', { ideaUuid: parent.uuid })).children).toEqual([{ uuid: child.uuid, title: child.title, status: 'elaborating', derivedStatus: expect.any(String) }]);
        await refused(dev, 'svc_get_idea', { ideaUuid: randomUUID() }, 'NOT_FOUND', 'Idea not found');

        const state = await world.ok(dev, 'svc_get_elaboration', { ideaUuid: child.uuid });
        expect(state).toEqual({
          ideaUuid: child.uuid,
          ideaStatus: 'elaborating',
          depth: 'standard',
          status: 'pending_answers',
          rounds: [
            {
              uuid: expect.any(String),
              roundNumber: 1,
              status: 'pending_answers',
              depth: 'standard',
              isAppended: false,
              createdBy: { type: 'agent', uuid: pm.uuid, name: 'PM' },
              answeredAt: null,
              createdAt: ISO,
              questions: [
                {
                  uuid: expect.any(String),
                  questionId: 'q1',
                  text: 'Question q1?',
                  category: 'functional',
                  options: [
                    { id: 'a', label: 'Option A', description: null },
                    { id: 'b', label: 'Option B', description: 'the other one' },
                  ],
                  required: true,
                  answer: null,
                },
              ],
            },
          ],
          summary: { totalQuestions: 1, answeredQuestions: 0, pendingRoundUuid: state.rounds[0].uuid },
        });
        await refused(dev, 'svc_get_elaboration', { ideaUuid: randomUUID() }, 'NOT_FOUND', 'Idea not found');
      });
    });

    describe('svc_claim_idea / svc_release_idea', () => {
      it('claims an open idea (open -> elaborating), is idempotent for the assignee and refuses others', async () => {
        const i = await idea();
        takeEvents();
        const claimed = await world.ok(pm, 'svc_claim_idea', { ideaUuid: i.uuid });
        expect(claimed).toMatchObject({ uuid: i.uuid, status: 'elaborating', assignee: { type: 'agent', uuid: pm.uuid, name: 'PM', assignedAt: ISO } });
        expect(takeEvents()).toEqual([ev('idea', i.uuid, project, 'updated')]);

        const again = await world.ok(pm, 'svc_claim_idea', { ideaUuid: i.uuid });
        expect(again).toEqual(claimed);
        expect(takeEvents()).toEqual([]);

        const held = await refused(pm2, 'svc_claim_idea', { ideaUuid: i.uuid }, 'INVALID_STATE', 'Idea is elaborating; claim requires open');
        expect(held.hints).toEqual([expect.stringContaining('svc_release_idea')]);
        await refused(pm, 'svc_claim_idea', { ideaUuid: randomUUID() }, 'NOT_FOUND', 'Idea not found');
      });

      it('releases (elaborating -> open) for the assignee only, and only while elaborating', async () => {
        const i = await idea({ state: 'elaborating' });
        await refused(pm2, 'svc_release_idea', { ideaUuid: i.uuid }, 'FORBIDDEN', 'Only the assignee can release this idea');
        takeEvents();
        const released = await world.ok(pm, 'svc_release_idea', { ideaUuid: i.uuid });
        expect(released).toMatchObject({ status: 'open', assignee: null, elaborationStatus: null, elaborationDepth: null });
        expect(takeEvents()).toEqual([ev('idea', i.uuid, project, 'updated')]);

        const resolved = await idea({ state: 'skipped' });
        await refused(pm, 'svc_release_idea', { ideaUuid: resolved.uuid }, 'INVALID_STATE', 'Idea is elaborated; release requires elaborating');
        await refused(pm, 'svc_release_idea', { ideaUuid: randomUUID() }, 'NOT_FOUND', 'Idea not found');
      });
    });

    describe('svc_edit_idea', () => {
      it('edits fields (idea updated) and changes nothing on a same-value edit', async () => {
        const i = await idea({ title: 'Before' });
        takeEvents();
        const edited = await world.ok(pm2, 'svc_edit_idea', { ideaUuid: i.uuid, title: 'After', content: 'Body', isContainer: true });
        expect(edited).toMatchObject({ uuid: i.uuid, title: 'After', content: 'Body', isContainer: true });
        expect(takeEvents()).toEqual([ev('idea', i.uuid, project, 'updated')]);
        const same = await world.ok(pm2, 'svc_edit_idea', { ideaUuid: i.uuid, title: 'After' });
        expect(same.updatedAt).toBe(edited.updatedAt);
        expect(takeEvents()).toEqual([]);
      });

      it('re-parents (updated for the idea, old and new parent) and detaches with null', async () => {
        const oldParent = await idea();
        const newParent = await idea();
        const i = await idea({ parentUuid: oldParent.uuid });
        takeEvents();
        const moved = await world.ok(pm, 'svc_edit_idea', { ideaUuid: i.uuid, parentUuid: newParent.uuid });
        expect(moved).toMatchObject({ parentUuid: newParent.uuid, parent: { uuid: newParent.uuid } });
        expect(sortEvents(takeEvents())).toEqual(
          sortEvents([ev('idea', i.uuid, project, 'updated'), ev('idea', oldParent.uuid, project, 'updated'), ev('idea', newParent.uuid, project, 'updated')]),
        );
        const detached = await world.ok(pm, 'svc_edit_idea', { ideaUuid: i.uuid, parentUuid: null });
        expect(detached).toMatchObject({ parentUuid: null, parent: null });
        expect(sortEvents(takeEvents())).toEqual(sortEvents([ev('idea', i.uuid, project, 'updated'), ev('idea', newParent.uuid, project, 'updated')]));
      });

      it('refuses nothing to update, self-parenting, other projects, cycles and unknown records', async () => {
        const top = await idea();
        const mid = await idea({ parentUuid: top.uuid });
        const elsewhere = await world.domain.idea(pm.actor, other);
        await refused(pm, 'svc_edit_idea', { ideaUuid: top.uuid }, 'VALIDATION_ERROR', 'Nothing to update');
        await refused(pm, 'svc_edit_idea', { ideaUuid: top.uuid, parentUuid: top.uuid }, 'VALIDATION_ERROR', 'An idea cannot be its own parent');
        await refused(pm, 'svc_edit_idea', { ideaUuid: top.uuid, parentUuid: elsewhere.uuid }, 'VALIDATION_ERROR', 'Parent idea must be in the same project');
        await refused(pm, 'svc_edit_idea', { ideaUuid: top.uuid, parentUuid: mid.uuid }, 'VALIDATION_ERROR', 'Setting this parent would create a cycle');
        await refused(pm, 'svc_edit_idea', { ideaUuid: randomUUID(), title: 'X' }, 'NOT_FOUND', 'Idea not found');
        await refused(pm, 'svc_edit_idea', { ideaUuid: top.uuid, parentUuid: randomUUID() }, 'NOT_FOUND', 'Parent idea not found');
      });
    });

    describe('svc_move_idea', () => {
      it('moves the subtree and what was built on it; idea updated in both projects, the rest in the target', async () => {
        const src = (await world.ok(pm, 'svc_admin_create_project', { name: 'Source' })).uuid;
        const dst = (await world.ok(pm, 'svc_admin_create_project', { name: 'Target' })).uuid;
        const a = pm.actor;
        const keeper = await world.domain.idea(a, src);
        const root = await world.domain.idea(a, src, { parentUuid: keeper.uuid, state: 'elaborated' });
        const child = await world.domain.idea(a, src, { parentUuid: root.uuid });
        const proposal = await world.domain.proposal(a, src, { inputUuids: [root.uuid], status: 'approved' });
        const task = await world.domain.task(a, src, { proposalUuid: proposal.uuid });
        const doc = await world.domain.document(a, src, { proposalUuid: proposal.uuid });
        takeEvents();

        const res = await world.ok(pm, 'svc_move_idea', { ideaUuid: root.uuid, targetProjectUuid: dst });
        expect(res.moved).toEqual({ ideas: 2, proposals: 1, documents: 1, tasks: 1 });
        expect(res.idea).toMatchObject({ uuid: root.uuid, projectUuid: dst, parentUuid: null });
        expect(sortEvents(takeEvents())).toEqual(
          sortEvents([
            ev('idea', root.uuid, src, 'updated'),
            ev('idea', child.uuid, src, 'updated'),
            ev('idea', keeper.uuid, src, 'updated'),
            ev('idea', root.uuid, dst, 'updated'),
            ev('idea', child.uuid, dst, 'updated'),
            ev('proposal', proposal.uuid, dst, 'updated'),
            ev('task', task.uuid, dst, 'updated'),
            ev('document', doc.uuid, dst, 'updated'),
          ]),
        );
        expect((await world.ok(dev, 'svc_get_idea', { ideaUuid: child.uuid })).projectUuid).toBe(dst);
      });

      it('refuses unknown idea or target, the same project, and crossing dependencies', async () => {
        const src = (await world.ok(pm, 'svc_admin_create_project', { name: 'Tangled' })).uuid;
        const a = pm.actor;
        const i = await world.domain.idea(a, src, { state: 'elaborated' });
        await refused(pm, 'svc_move_idea', { ideaUuid: randomUUID(), targetProjectUuid: other }, 'NOT_FOUND', 'Idea not found');
        await refused(pm, 'svc_move_idea', { ideaUuid: i.uuid, targetProjectUuid: randomUUID() }, 'NOT_FOUND', 'Target project not found');
        await refused(pm, 'svc_move_idea', { ideaUuid: i.uuid, targetProjectUuid: src }, 'VALIDATION_ERROR', 'Idea is already in the target project');
        const proposal = await world.domain.proposal(a, src, { inputUuids: [i.uuid], status: 'approved' });
        const moving = await world.domain.task(a, src, { proposalUuid: proposal.uuid });
        const staying = await world.domain.task(a, src);
        await world.domain.dependency(moving.uuid, staying.uuid);
        await refused(pm, 'svc_move_idea', { ideaUuid: i.uuid, targetProjectUuid: other }, 'CONFLICT', 'Idea cannot be moved: a moved task depends on or is depended on by a task that stays');
      });
    });

    describe('elaboration', () => {
      it('svc_pm_start_elaboration opens a round for the assignee (idea updated); holders of idea:admin pass', async () => {
        const i = await idea({ state: 'elaborating' });
        takeEvents();
        const state = await world.ok(pm, 'svc_pm_start_elaboration', { ideaUuid: i.uuid, depth: 'comprehensive', questions: [q('scope', { category: 'scope', required: false }), q('users')] });
        expect(state).toMatchObject({ ideaUuid: i.uuid, ideaStatus: 'elaborating', depth: 'comprehensive', status: 'pending_answers', summary: { totalQuestions: 2, answeredQuestions: 0 } });
        expect(state.rounds[0].questions.map((x: any) => [x.questionId, x.category, x.required])).toEqual([
          ['scope', 'scope', false],
          ['users', 'functional', true],
        ]);
        expect(takeEvents()).toEqual([ev('idea', i.uuid, project, 'updated')]);

        const j = await idea({ state: 'elaborating' });
        takeEvents();
        await world.ok(admin, 'svc_pm_start_elaboration', { ideaUuid: j.uuid, depth: 'minimal', questions: [q('q1')] });
        expect(takeEvents()).toEqual([ev('idea', j.uuid, project, 'updated')]);
      });

      it('svc_pm_start_elaboration refuses non-assignees, wrong states, an open round, duplicate ids and an 11th round', async () => {
        const i = await idea({ state: 'elaborating' });
        const body = { ideaUuid: i.uuid, depth: 'standard', questions: [q('q1')] };
        await refused(pm2, 'svc_pm_start_elaboration', body, 'FORBIDDEN', 'Only the assignee can elaborate this idea');
        const open = await idea();
        await refused(admin, 'svc_pm_start_elaboration', { ...body, ideaUuid: open.uuid }, 'INVALID_STATE', 'Idea is open; start elaboration requires elaborating or elaborated');
        const pending = await idea({ state: 'pending_answers' });
        const waiting = await refused(pm, 'svc_pm_start_elaboration', { ...body, ideaUuid: pending.uuid }, 'INVALID_STATE', 'Idea has a round awaiting answers; start elaboration requires every round answered');
        expect(waiting.hints).toEqual(['Answer the pending round first: svc_answer_elaboration (svc_get_elaboration shows its questions)']);
        await refused(pm, 'svc_pm_start_elaboration', { ...body, questions: [q('q1'), q('q1')] }, 'VALIDATION_ERROR', 'Duplicate question id q1');
        const dupOptions = q('q1', { options: [{ id: 'a', label: 'A' }, { id: 'a', label: 'B' }] });
        await refused(pm, 'svc_pm_start_elaboration', { ...body, questions: [dupOptions] }, 'VALIDATION_ERROR', 'Duplicate option id a in question q1');
        await refused(pm, 'svc_pm_start_elaboration', { ...body, ideaUuid: randomUUID() }, 'NOT_FOUND', 'Idea not found');
        const oneOption = await refused(pm, 'svc_pm_start_elaboration', { ...body, questions: [q('q1', { options: [{ id: 'a', label: 'A' }] })] }, 'VALIDATION_ERROR', 'Invalid arguments');
        expect(oneOption.details).toEqual([{ path: 'questions.0.options', message: expect.any(String) }]);

        for (let n = 0; n < 10; n++) {
          await world.domain.elaboration.start(pm.actor, { ideaUuid: i.uuid, depth: 'minimal', questions: [question('q1')] });
          await world.domain.elaboration.answer(pm.actor, { ideaUuid: i.uuid, answers: [{ questionId: 'q1', selectedOptionId: 'a' }] });
        }
        await refused(pm, 'svc_pm_start_elaboration', body, 'VALIDATION_ERROR', 'Maximum 10 elaboration rounds per idea');
      });

      it('svc_answer_elaboration is open to any agent and closes the round (pending_answers -> answered)', async () => {
        const i = await idea({ state: 'elaborating' });
        await world.domain.elaboration.start(pm.actor, { ideaUuid: i.uuid, depth: 'standard', questions: [question('q1'), question('q2'), question('opt', { required: false })] });
        takeEvents();
        const partial = await world.ok(dev, 'svc_answer_elaboration', { ideaUuid: i.uuid, answers: [{ questionId: 'q1', selectedOptionId: 'a', customText: null }] });
        expect(partial).toMatchObject({ status: 'pending_answers', summary: { answeredQuestions: 1 } });
        expect(partial.rounds[0].questions[0].answer).toEqual({ selectedOptionId: 'a', customText: null, answeredAt: ISO, answeredBy: { type: 'agent', uuid: dev.uuid, name: 'Dev' } });
        expect(takeEvents()).toEqual([ev('idea', i.uuid, project, 'updated')]);

        const roundUuid = partial.rounds[0].uuid;
        const done = await world.ok(dev, 'svc_answer_elaboration', { ideaUuid: i.uuid, roundUuid, answers: [{ questionId: 'q2', customText: '  Both  ' }] });
        expect(done).toMatchObject({ status: 'validating', summary: { answeredQuestions: 2, pendingRoundUuid: null } });
        expect(done.rounds[0]).toMatchObject({ status: 'answered', answeredAt: ISO });
        expect(done.rounds[0].questions[1].answer).toMatchObject({ selectedOptionId: null, customText: 'Both' });
        expect(takeEvents()).toEqual([ev('idea', i.uuid, project, 'updated')]);

        await refused(dev, 'svc_answer_elaboration', { ideaUuid: i.uuid, roundUuid, answers: [{ questionId: 'opt', selectedOptionId: 'a' }] }, 'INVALID_STATE', 'Round is answered; answer requires pending_answers');
        await refused(dev, 'svc_answer_elaboration', { ideaUuid: i.uuid, answers: [{ questionId: 'opt', selectedOptionId: 'a' }] }, 'INVALID_STATE');
      });

      it('svc_answer_elaboration refuses unknown ideas, rounds, questions and options and empty answers', async () => {
        const i = await idea({ state: 'pending_answers' });
        const a = (answers: unknown[], extra: Record<string, unknown> = {}) => ({ ideaUuid: i.uuid, answers, ...extra });
        await refused(dev, 'svc_answer_elaboration', { ...a([{ questionId: 'q1', selectedOptionId: 'a' }]), ideaUuid: randomUUID() }, 'NOT_FOUND', 'Idea not found');
        await refused(dev, 'svc_answer_elaboration', a([{ questionId: 'q1', selectedOptionId: 'a' }], { roundUuid: randomUUID() }), 'NOT_FOUND', 'Round not found');
        await refused(dev, 'svc_answer_elaboration', a([{ questionId: 'nope', selectedOptionId: 'a' }]), 'VALIDATION_ERROR', 'Unknown question nope');
        await refused(dev, 'svc_answer_elaboration', a([{ questionId: 'q1', selectedOptionId: 'z' }]), 'VALIDATION_ERROR', 'Unknown option z for question q1');
        await refused(dev, 'svc_answer_elaboration', a([{ questionId: 'q1', selectedOptionId: null, customText: '   ' }]), 'VALIDATION_ERROR', 'Question q1 needs an option or a non-empty customText');
        const none = await refused(dev, 'svc_answer_elaboration', a([]), 'VALIDATION_ERROR', 'Invalid arguments');
        expect(none.details).toEqual([{ path: 'answers', message: expect.any(String) }]);
        const open = await idea({ state: 'elaborating' });
        await refused(dev, 'svc_answer_elaboration', { ideaUuid: open.uuid, answers: [{ questionId: 'q1', selectedOptionId: 'a' }] }, 'INVALID_STATE');
      });

      it('svc_pm_skip_elaboration resolves an elaborating idea (elaborating -> elaborated) for the assignee', async () => {
        const i = await idea({ state: 'elaborating' });
        await refused(pm2, 'svc_pm_skip_elaboration', { ideaUuid: i.uuid, reason: 'Clear' }, 'FORBIDDEN', 'Only the assignee can elaborate this idea');
        takeEvents();
        const state = await world.ok(pm, 'svc_pm_skip_elaboration', { ideaUuid: i.uuid, reason: 'Agreed with Alice' });
        expect(state).toMatchObject({ ideaUuid: i.uuid, ideaStatus: 'elaborated', depth: 'minimal', status: 'resolved', rounds: [] });
        expect(takeEvents()).toEqual([ev('idea', i.uuid, project, 'updated')]);
        await refused(pm, 'svc_pm_skip_elaboration', { ideaUuid: i.uuid, reason: 'Again' }, 'INVALID_STATE', 'Idea is elaborated; skip elaboration requires elaborating');
        await refused(pm, 'svc_pm_skip_elaboration', { ideaUuid: randomUUID(), reason: 'X' }, 'NOT_FOUND', 'Idea not found');
        const blank = await refused(pm, 'svc_pm_skip_elaboration', { ideaUuid: i.uuid, reason: '' }, 'VALIDATION_ERROR', 'Invalid arguments');
        expect(blank.details).toEqual([{ path: 'reason', message: expect.any(String) }]);
      });

      it('svc_pm_validate_elaboration (idea:admin) resolves an answered idea and refuses the rest', async () => {
        const i = await idea({ state: 'validating' });
        takeEvents();
        const state = await world.ok(admin, 'svc_pm_validate_elaboration', { ideaUuid: i.uuid });
        expect(state).toMatchObject({ ideaStatus: 'elaborated', status: 'resolved' });
        expect(takeEvents()).toEqual([ev('idea', i.uuid, project, 'updated')]);
        await refused(admin, 'svc_pm_validate_elaboration', { ideaUuid: i.uuid }, 'INVALID_STATE', 'Idea is elaborated; validate elaboration requires elaborating');
        const bare = await idea({ state: 'elaborating' });
        await refused(admin, 'svc_pm_validate_elaboration', { ideaUuid: bare.uuid }, 'VALIDATION_ERROR', 'The idea has no elaboration rounds');
        const pending = await idea({ state: 'pending_answers' });
        await refused(admin, 'svc_pm_validate_elaboration', { ideaUuid: pending.uuid }, 'VALIDATION_ERROR', '1 round(s) still await answers');
        await refused(admin, 'svc_pm_validate_elaboration', { ideaUuid: randomUUID() }, 'NOT_FOUND', 'Idea not found');
        await expect(pm.client.callTool({ name: 'svc_pm_validate_elaboration', arguments: { ideaUuid: i.uuid } })).rejects.toMatchObject({ code: -32602 });
      });
    });

    describe('svc_admin_delete_idea', () => {
      it('deletes the idea, lifts its children to top level: idea deleted, updated per child and for the parent', async () => {
        const parent = await idea();
        const doomed = await idea({ parentUuid: parent.uuid });
        const c1 = await idea({ parentUuid: doomed.uuid });
        const c2 = await idea({ parentUuid: doomed.uuid });
        takeEvents();
        expect(await world.ok(admin, 'svc_admin_delete_idea', { ideaUuid: doomed.uuid })).toEqual({ uuid: doomed.uuid, deleted: true });
        expect(sortEvents(takeEvents())).toEqual(
          sortEvents([ev('idea', doomed.uuid, project, 'deleted'), ev('idea', c1.uuid, project, 'updated'), ev('idea', c2.uuid, project, 'updated'), ev('idea', parent.uuid, project, 'updated')]),
        );
        expect((await world.ok(dev, 'svc_get_idea', { ideaUuid: c1.uuid })).parentUuid).toBeNull();
        await refused(admin, 'svc_admin_delete_idea', { ideaUuid: doomed.uuid }, 'NOT_FOUND', 'Idea not found');
        await expect(pm.client.callTool({ name: 'svc_admin_delete_idea', arguments: { ideaUuid: parent.uuid } })).rejects.toMatchObject({ code: -32602 });
      });
    });

    describe('tenant isolation', () => {
      it("answers another company's uuids with NOT_FOUND on every idea tool", async () => {
        const i = await idea({ state: 'pending_answers' });
        const round = (await world.ok(pm, 'svc_get_elaboration', { ideaUuid: i.uuid })).rounds[0].uuid;
        const theirs = await world.ok(mallory, 'svc_pm_create_idea', { projectUuid: theirProject, title: 'Theirs' });
        const m = mallory;
        const ideaUuid = i.uuid;
        await refused(m, 'svc_get_ideas', { projectUuid: project }, 'NOT_FOUND', 'Project not found');
        await refused(m, 'svc_get_available_ideas', { projectUuid: project }, 'NOT_FOUND', 'Project not found');
        await refused(m, 'svc_get_idea', { ideaUuid }, 'NOT_FOUND', 'Idea not found');
        await refused(m, 'svc_get_elaboration', { ideaUuid }, 'NOT_FOUND', 'Idea not found');
        await refused(m, 'svc_answer_elaboration', { ideaUuid, roundUuid: round, answers: [{ questionId: 'q1', selectedOptionId: 'a' }] }, 'NOT_FOUND', 'Idea not found');
        await refused(m, 'svc_answer_elaboration', { ideaUuid: theirs.uuid, roundUuid: round, answers: [{ questionId: 'q1', selectedOptionId: 'a' }] }, 'NOT_FOUND', 'Round not found');
        await refused(m, 'svc_claim_idea', { ideaUuid }, 'NOT_FOUND', 'Idea not found');
        await refused(m, 'svc_release_idea', { ideaUuid }, 'NOT_FOUND', 'Idea not found');
        await refused(m, 'svc_move_idea', { ideaUuid, targetProjectUuid: theirProject }, 'NOT_FOUND', 'Idea not found');
        await refused(m, 'svc_move_idea', { ideaUuid: theirs.uuid, targetProjectUuid: project }, 'NOT_FOUND', 'Target project not found');
        await refused(m, 'svc_pm_create_idea', { projectUuid: project, title: 'X' }, 'NOT_FOUND', 'Project not found');
        await refused(m, 'svc_pm_create_idea', { projectUuid: theirProject, title: 'X', parentUuid: ideaUuid }, 'NOT_FOUND', 'Parent idea not found');
        await refused(m, 'svc_edit_idea', { ideaUuid, title: 'X' }, 'NOT_FOUND', 'Idea not found');
        await refused(m, 'svc_edit_idea', { ideaUuid: theirs.uuid, parentUuid: ideaUuid }, 'NOT_FOUND', 'Parent idea not found');
        await refused(m, 'svc_pm_start_elaboration', { ideaUuid, depth: 'minimal', questions: [q('q1')] }, 'NOT_FOUND', 'Idea not found');
        await refused(m, 'svc_pm_skip_elaboration', { ideaUuid, reason: 'X' }, 'NOT_FOUND', 'Idea not found');
        await refused(m, 'svc_pm_validate_elaboration', { ideaUuid }, 'NOT_FOUND', 'Idea not found');
        await refused(m, 'svc_admin_delete_idea', { ideaUuid }, 'NOT_FOUND', 'Idea not found');
      });
    });

    describe('arguments and permissions', () => {
      it('answers a wrong type, an unknown argument and a malformed uuid with VALIDATION_ERROR details', async () => {
        const i = await idea();
        const wrongType = await refused(pm, 'svc_edit_idea', { ideaUuid: i.uuid, isContainer: 'yes' }, 'VALIDATION_ERROR', 'Invalid arguments');
        expect(wrongType.details).toEqual([{ path: 'isContainer', message: expect.any(String) }]);
        const unknown = await refused(pm, 'svc_claim_idea', { ideaUuid: i.uuid, force: true }, 'VALIDATION_ERROR', 'Invalid arguments');
        expect(unknown.details).toEqual([{ path: 'force', message: 'should not exist' }]);
        const malformed = await refused(pm, 'svc_get_idea', { ideaUuid: 'idea-1' }, 'VALIDATION_ERROR', 'Invalid arguments');
        expect(malformed.details).toEqual([{ path: 'ideaUuid', message: expect.any(String) }]);
        const nested = await refused(
          pm,
          'svc_answer_elaboration',
          { ideaUuid: i.uuid, answers: [{ questionId: 'q1', selectedOptionId: 1 }] },
          'VALIDATION_ERROR',
          'Invalid arguments',
        );
        expect(nested.details).toEqual([{ path: 'answers.0.selectedOptionId', message: expect.any(String) }]);
        const depth = await refused(pm, 'svc_pm_start_elaboration', { ideaUuid: i.uuid, depth: 'deep', questions: [q('q1')] }, 'VALIDATION_ERROR', 'Invalid arguments');
        expect(depth.details).toEqual([{ path: 'depth', message: expect.any(String) }]);
      });

      it('gates the PM tools on idea:write and the admin ones on idea:admin, with their hints', async () => {
        const pmWrites = ['svc_claim_idea', 'svc_release_idea', 'svc_move_idea', 'svc_pm_create_idea', 'svc_edit_idea', 'svc_pm_start_elaboration', 'svc_pm_skip_elaboration'];
        const adminOnly = ['svc_pm_validate_elaboration', 'svc_admin_delete_idea'];
        const publicOnes = ['svc_get_ideas', 'svc_get_idea', 'svc_get_available_ideas', 'svc_get_elaboration', 'svc_answer_elaboration'];
        const devNames = (await dev.client.listTools()).tools.map((t) => t.name);
        const pmNames = (await pm.client.listTools()).tools.map((t) => t.name);
        const adminTools = new Map((await admin.client.listTools()).tools.map((t) => [t.name, t]));
        for (const n of publicOnes) expect(devNames).toContain(n);
        for (const n of [...pmWrites, ...adminOnly]) expect(devNames).not.toContain(n);
        for (const n of pmWrites) expect(pmNames).toContain(n);
        for (const n of adminOnly) expect(pmNames).not.toContain(n);
        for (const n of [...publicOnes, ...pmWrites, ...adminOnly]) expect(adminTools.has(n)).toBe(true);
        const hint = (n: string) => {
          const a = adminTools.get(n)!.annotations!;
          return `${a.readOnlyHint ? 'r' : ''}${a.destructiveHint ? 'd' : ''}${a.idempotentHint ? 'i' : ''}`;
        };
        expect(['svc_get_ideas', 'svc_get_idea', 'svc_get_available_ideas', 'svc_get_elaboration'].map(hint)).toEqual(['ri', 'ri', 'ri', 'ri']);
        expect(['svc_claim_idea', 'svc_edit_idea'].map(hint)).toEqual(['i', 'i']);
        expect(['svc_answer_elaboration', 'svc_release_idea', 'svc_move_idea', 'svc_pm_create_idea', 'svc_pm_start_elaboration', 'svc_pm_skip_elaboration', 'svc_pm_validate_elaboration'].map(hint)).toEqual(
          ['', '', '', '', '', '', ''],
        );
        expect(hint('svc_admin_delete_idea')).toBe('di');
        await expect(dev.client.callTool({ name: 'svc_claim_idea', arguments: { ideaUuid: randomUUID() } })).rejects.toMatchObject({ code: -32602 });
      });
    });
  });
});
