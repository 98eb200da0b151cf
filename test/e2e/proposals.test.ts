import { randomUUID } from 'node:crypto';
import type { Actor } from '../../src/shared/auth/actor.js';
import { LONG_CONTENT } from '../factories/proposal.factory.js';
import { ChangeEvents, ev } from '../utils/change-events.js';
import type { HttpClient, HttpResult } from '../utils/http.js';
import { expectError, expectInvalid, expectRefused, type Observed, withEvents } from '../utils/rest-expect.js';
import { userActor, World, type WorldAgent } from '../utils/world.js';
import type { RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { callTool } from '../utils/mcp-client.js';
import { refusal } from '../utils/mcp-expect.js';
import { draftProposal as draftThroughTools, proposalIn as proposalThroughTools } from '../utils/mcp-proposals.js';

/** One app for the whole file; each block below seeds companies of its own. */
let world: World;
beforeAll(async () => {
  world = await World.start();
});
afterAll(() => world.close());

/** Proposal routes of docs/platform.md §9 (and the proposal report) over a running app, events read from a real EventSource. */
describe('REST proposals (e2e)', () => {
  let n = 0;
  const CRITERIA = [{ description: 'works' }];
  /**
   * Company A: alice (logged in) with an agent of hers, carol, projects A and A2; company B: bob (logged in) and
   * project B. As Actors, for seeding.
   */
  let aliceActor: Actor;
  let aliceAgent: Actor;
  let carolActor: Actor;
  let bobActor: Actor;
  let alice: HttpClient;
  let bob: HttpClient;
  let projectA: string;
  let projectA2: string;
  let projectB: string;
  /** Alice's company stream and the app's database. */
  let seen: Observed;

  beforeAll(async () => {
    const [companyA, companyB] = [(await world.company()).uuid, (await world.company()).uuid];
    const aliceUser = await world.user(companyA, { name: 'Alice' });
    const bobUser = await world.user(companyB, { name: 'Bob' });
    [aliceActor, carolActor, bobActor] = [userActor(aliceUser), userActor(await world.user(companyA, { name: 'Carol' })), userActor(bobUser)];
    aliceAgent = (await world.agent(companyA, aliceUser.uuid, { name: 'Alice bot' })).actor;
    [alice, bob] = [await world.login(aliceUser), await world.login(bobUser)];
    [projectA, projectA2, projectB] = [await world.project(aliceActor), await world.project(aliceActor), await world.project(bobActor)];
    seen = { changes: await ChangeEvents.open(world, alice.cookie!, companyA), companyUuid: companyA, ds: world.ds };
  });
  afterAll(async () => {
    seen.changes.close();
  });

  const data = (res: HttpResult, status = 200) => {
    expect({ status: res.status, body: res.status === status ? 'ok' : res.body }).toEqual({ status, body: 'ok' });
    return res.body.data;
  };
  const read = (uuid: string, section = 'full') => () => alice.get(`/api/proposals/${uuid}?section=${section}`);
  const updated = (uuid: string, project = projectA) => ev('proposal', 'updated', uuid, project);

  /** A resolved idea of project A, elaborated by alice (or by `assignee`) and so assigned to her: a valid proposal input. */
  const idea = (assignee: Actor = aliceActor, project = projectA) => world.domain.idea(assignee, project, { state: 'elaborated' });

  async function createProposal(body: Record<string, unknown> = {}, project = projectA) {
    const inputUuids = body.inputUuids ?? [(await idea(undefined, project)).uuid];
    return data(await alice.post(`/api/projects/${project}/proposals`, { title: `Proposal ${++n}`, inputType: 'idea', inputUuids, ...body }), 201);
  }

  /** A draft that validates: two document drafts and three task drafts, B after A, C after A and B. */
  async function readyProposal() {
    const p = await createProposal({ description: 'Why' });
    const post = (path: string, body: unknown) => alice.post(`/api/proposals/${p.uuid}/${path}`, body);
    data(await post('document-drafts', { type: 'tech_design', title: 'Design', content: LONG_CONTENT }), 201);
    data(await post('document-drafts', { type: 'prd', title: 'Requirements', content: LONG_CONTENT }), 201);
    const a = data(await post('task-drafts', { title: 'Task A', acceptanceCriteriaItems: CRITERIA, priority: 'high', storyPoints: 3 }), 201).draftUuid;
    const b = data(await post('task-drafts', { title: 'Task B', acceptanceCriteriaItems: CRITERIA, dependsOnDraftUuids: [a] }), 201).draftUuid;
    data(await post('task-drafts', { title: 'Task C', acceptanceCriteriaItems: CRITERIA, dependsOnDraftUuids: [a, b] }), 201);
    return p as { uuid: string; inputUuids: string[] };
  }

  async function proposalIn(status: 'draft' | 'pending' | 'approved' | 'closed') {
    const p = await readyProposal();
    if (status !== 'draft') data(await alice.post(`/api/proposals/${p.uuid}/submit`));
    if (status === 'approved') data(await alice.post(`/api/proposals/${p.uuid}/approve`, {}));
    if (status === 'closed') data(await alice.post(`/api/proposals/${p.uuid}/close`, { reviewNote: 'Not now' }));
    return p;
  }

  describe('authentication and tenancy', () => {
    const proposalRoutes = (uuid: string, draft = randomUUID()): Array<[string, string, unknown?]> => [
      ['GET', `/api/proposals/${uuid}`],
      ['PATCH', `/api/proposals/${uuid}`, { title: 'Taken' }],
      ['DELETE', `/api/proposals/${uuid}`],
      ['POST', `/api/proposals/${uuid}/document-drafts`, { type: 'prd', title: 'D', content: 'c' }],
      ['PATCH', `/api/proposals/${uuid}/document-drafts/${draft}`, { title: 'D' }],
      ['DELETE', `/api/proposals/${uuid}/document-drafts/${draft}`],
      ['POST', `/api/proposals/${uuid}/task-drafts`, { title: 'T', acceptanceCriteriaItems: CRITERIA }],
      ['PATCH', `/api/proposals/${uuid}/task-drafts/${draft}`, { title: 'T' }],
      ['DELETE', `/api/proposals/${uuid}/task-drafts/${draft}`],
      ['GET', `/api/proposals/${uuid}/validation`],
      ['POST', `/api/proposals/${uuid}/submit`],
      ['POST', `/api/proposals/${uuid}/approve`, {}],
      ['POST', `/api/proposals/${uuid}/reject`, { reviewNote: 'No' }],
      ['POST', `/api/proposals/${uuid}/close`, { reviewNote: 'No' }],
      ['POST', `/api/proposals/${uuid}/revoke`, {}],
      ['POST', `/api/proposals/${uuid}/reports`, { title: 'R', content: 'Summary' }],
    ];
    const projectRoutes = (uuid: string, inputUuid: string): Array<[string, string, unknown?]> => [
      ['GET', `/api/projects/${uuid}/proposals`],
      ['POST', `/api/projects/${uuid}/proposals`, { title: 'P', inputType: 'idea', inputUuids: [inputUuid] }],
    ];
    const call = (c: HttpClient, [method, path, json]: [string, string, unknown?]) => c.request(method, path, { json });

    it('answers 401 UNAUTHORIZED without a session cookie on every route, changing nothing', async () => {
      const p = await readyProposal();
      const i = await idea();
      for (const route of [...proposalRoutes(p.uuid), ...projectRoutes(projectA, i.uuid)]) {
        await expectRefused(seen, () => call(world.http(), route), 401, 'UNAUTHORIZED', 'Authentication required', read(p.uuid));
      }
    });

    it('answers 404 for a missing, malformed or other-company uuid on every route, with no event', async () => {
      const bobIdea = await world.domain.idea(bobActor, projectB, { state: 'elaborated' });
      const theirs = data(await bob.post(`/api/projects/${projectB}/proposals`, { title: 'Theirs', inputType: 'idea', inputUuids: [bobIdea.uuid] }), 201);
      const before = (await bob.get(`/api/proposals/${theirs.uuid}?section=full`)).body;
      const mine = await idea();
      for (const uuid of [randomUUID(), 'not-a-uuid', theirs.uuid]) {
        for (const route of proposalRoutes(uuid)) await expectRefused(seen, () => call(alice, route), 404, 'NOT_FOUND', 'Proposal not found');
      }
      for (const uuid of [randomUUID(), 'nope', projectB]) {
        for (const route of projectRoutes(uuid, mine.uuid)) await expectRefused(seen, () => call(alice, route), 404, 'NOT_FOUND', 'Project not found');
      }
      expect((await bob.get(`/api/proposals/${theirs.uuid}?section=full`)).body).toEqual(before);
      // An input of another company is as unknown as a missing one.
      await expectRefused(seen, () => alice.post(`/api/projects/${projectA}/proposals`, { title: 'P', inputType: 'idea', inputUuids: [bobIdea.uuid] }), 404, 'NOT_FOUND', 'Input idea not found');
    });
  });

  describe('POST /api/projects/:uuid/proposals', () => {
    it('creates a draft (201, proposal created), with references; a second proposal over the same idea warns', async () => {
      const i = await idea();
      const body = { title: ' Plan ', description: 'Why', inputType: 'idea', inputUuids: [i.uuid], references: [{ type: 'docs', url: 'https://example.test/spec', title: 'Spec' }] };
      const { res, events } = await withEvents(seen, () => alice.post(`/api/projects/${projectA}/proposals`, body));
      const p = data(res, 201);
      expect(p).toMatchObject({
        projectUuid: projectA,
        title: 'Plan',
        description: 'Why',
        status: 'draft',
        inputType: 'idea',
        inputUuids: [i.uuid],
        documentDraftCount: 0,
        taskDraftCount: 0,
        createdBy: { type: 'user', uuid: aliceActor.uuid, name: 'Alice' },
        reviewedBy: null,
        submittedAt: null,
        section: 'basic',
        documentDraftIndex: [],
        taskDraftIndex: [],
        references: [expect.objectContaining({ type: 'docs', url: 'https://example.test/spec', title: 'Spec', notes: null })],
      });
      expect(p.warnings).toBeUndefined();
      expect(events).toEqual([ev('proposal', 'created', p.uuid, projectA)]);
      const second = data(await alice.post(`/api/projects/${projectA}/proposals`, { ...body, title: 'Again', references: undefined }), 201);
      expect(second.warnings).toEqual([`Idea "${i.title}" already feeds proposal "Plan" (draft)`]);
    });

    it('accepts ideas held by an agent the user owns, refuses ideas held by someone else (403)', async () => {
      const viaAgent = await idea(aliceAgent);
      data(await alice.post(`/api/projects/${projectA}/proposals`, { title: 'Mine', inputType: 'idea', inputUuids: [viaAgent.uuid] }), 201);
      const carols = await idea(carolActor);
      await expectRefused(seen, () => alice.post(`/api/projects/${projectA}/proposals`, { title: 'P', inputType: 'idea', inputUuids: [carols.uuid] }), 403, 'FORBIDDEN', 'Input ideas must be assigned to you');
    });

    it('validates: 400 with details for shapes, the service messages for domain rules, 404 for inputs outside the project', async () => {
      const post = (body: unknown) => () => alice.post(`/api/projects/${projectA}/proposals`, body);
      expectInvalid(await expectRefused(seen, post({ title: 5, inputType: 'memo', inputUuids: [] }), 400, 'VALIDATION_ERROR', 'Invalid input'), 'title', 'inputType', 'inputUuids');
      const i = await idea();
      expectInvalid(await expectRefused(seen, post({ title: 'P', inputType: 'idea', inputUuids: [i.uuid], references: [{ type: 'blog', url: 'x', title: 'T' }], extra: 1 }), 400, 'VALIDATION_ERROR'), 'references.0.type', 'extra');
      await expectRefused(seen, post({ title: '  ', inputType: 'idea', inputUuids: [i.uuid] }), 400, 'VALIDATION_ERROR', 'Title must not be blank');
      await expectRefused(seen, post({ title: 'P', inputType: 'idea', inputUuids: [i.uuid, i.uuid] }), 400, 'VALIDATION_ERROR', 'Input uuids must be distinct');
      const theme = await world.domain.idea(aliceActor, projectA, { state: 'elaborated', isContainer: true });
      await expectRefused(seen, post({ title: 'P', inputType: 'idea', inputUuids: [theme.uuid] }), 400, 'VALIDATION_ERROR', 'Container ideas cannot be proposal inputs; derive a child idea');
      const elsewhere = await idea(undefined, projectA2);
      await expectRefused(seen, post({ title: 'P', inputType: 'idea', inputUuids: [elsewhere.uuid] }), 404, 'NOT_FOUND', 'Input idea not found');
      await expectRefused(seen, post({ title: 'P', inputType: 'document', inputUuids: [randomUUID()] }), 404, 'NOT_FOUND', 'Input document not found');
    });
  });

  describe('GET /api/projects/:uuid/proposals and /api/proposals/:uuid', () => {
    it('lists newest first with a status filter and paging', async () => {
      const first = await createProposal({}, projectA2);
      const second = await createProposal({}, projectA2);
      data(await alice.post(`/api/proposals/${first.uuid}/document-drafts`, { type: 'prd', title: 'D', content: 'c' }), 201);
      const list = (q: string) => alice.get(`/api/projects/${projectA2}/proposals${q}`);
      const all = data(await list(''));
      expect(all).toEqual({ proposals: [expect.objectContaining({ uuid: second.uuid }), expect.objectContaining({ uuid: first.uuid, documentDraftCount: 1 })], page: 1, pageSize: 20, total: 2 });
      expect(Object.keys(all.proposals[0]).sort()).toEqual(
        ['uuid', 'projectUuid', 'title', 'status', 'inputType', 'inputUuids', 'documentDraftCount', 'taskDraftCount', 'createdBy', 'reviewedBy', 'createdAt', 'updatedAt'].sort(),
      );
      expect(data(await list('?status=pending')).proposals).toEqual([]);
      expect(data(await list('?page=2&pageSize=1'))).toMatchObject({ proposals: [expect.objectContaining({ uuid: first.uuid })], page: 2, pageSize: 1, total: 2 });
      expect(data(await list('?limit=1&offset=1'))).toMatchObject({ proposals: [expect.objectContaining({ uuid: first.uuid })], page: 2, pageSize: 1 });
      expectInvalid(await list('?status=bogus'), 'status');
      expectInvalid(await list('?page=0'), 'page');
    });

    it('returns the chosen section: basic indexes by default, full drafts on request', async () => {
      const p = await readyProposal();
      const basic = data(await alice.get(`/api/proposals/${p.uuid}`));
      expect(basic).toMatchObject({ section: 'basic', documentDraftCount: 2, taskDraftCount: 3 });
      expect(basic.documentDraftIndex).toEqual([expect.objectContaining({ type: 'tech_design', title: 'Design', contentLength: LONG_CONTENT.length }), expect.objectContaining({ title: 'Requirements' })]);
      expect(basic.taskDraftIndex.map((t: { title: string }) => t.title)).toEqual(['Task A', 'Task B', 'Task C']);
      expect(basic.documentDrafts).toBeUndefined();
      const full = data(await alice.get(`/api/proposals/${p.uuid}?section=full`));
      expect(full.documentDrafts[0]).toEqual({ uuid: expect.any(String), type: 'tech_design', title: 'Design', content: LONG_CONTENT });
      expect(full.taskDrafts[2].dependsOnDraftUuids).toEqual([full.taskDrafts[0].uuid, full.taskDrafts[1].uuid]);
      expect(full.documentDraftIndex).toBeUndefined();
      expect(Object.keys(data(await alice.get(`/api/proposals/${p.uuid}?section=tasks`)))).toContain('taskDrafts');
      expectInvalid(await alice.get(`/api/proposals/${p.uuid}?section=bogus`), 'section');
    });
  });

  describe('PATCH and DELETE /api/proposals/:uuid', () => {
    it('edits a draft (proposal updated); an unchanged edit emits nothing; only drafts are editable', async () => {
      const p = await createProposal();
      const { res, events } = await withEvents(seen, () => alice.patch(`/api/proposals/${p.uuid}`, { title: 'Better', description: 'Because' }));
      expect(data(res)).toMatchObject({ title: 'Better', description: 'Because', status: 'draft' });
      expect(events).toEqual([updated(p.uuid)]);
      expect((await withEvents(seen, () => alice.patch(`/api/proposals/${p.uuid}`, { title: 'Better' }))).events).toEqual([]);
      const patch = (body: unknown, uuid = p.uuid) => () => alice.patch(`/api/proposals/${uuid}`, body);
      expectInvalid(await expectRefused(seen, patch({ title: 5, status: 'approved' }), 400, 'VALIDATION_ERROR', 'Invalid input', read(p.uuid)), 'title', 'status');
      await expectRefused(seen, patch({}), 400, 'VALIDATION_ERROR', 'Nothing to update', read(p.uuid));
      await expectRefused(seen, patch({ title: ' ' }), 400, 'VALIDATION_ERROR', 'Title must not be blank', read(p.uuid));
      const pending = await proposalIn('pending');
      await expectRefused(seen, patch({ title: 'Late' }, pending.uuid), 409, 'INVALID_STATE', 'Proposal is pending; edit requires draft', read(pending.uuid));
    });

    it('deletes a draft or closed proposal ({uuid, deleted: true}); linked documents are unlinked and updated', async () => {
      const p = await createProposal();
      const doc = data(await alice.post(`/api/projects/${projectA}/documents`, { type: 'prd', title: 'Linked', proposalUuid: p.uuid }), 201);
      const { res, events } = await withEvents(seen, () => alice.delete(`/api/proposals/${p.uuid}`));
      expect(data(res)).toEqual({ uuid: p.uuid, deleted: true });
      expect(events).toEqual([ev('proposal', 'deleted', p.uuid, projectA), ev('document', 'updated', doc.uuid, projectA)]);
      expectError(await alice.get(`/api/proposals/${p.uuid}`), 404, 'NOT_FOUND', 'Proposal not found');
      expect(data(await alice.get(`/api/documents/${doc.uuid}`)).proposalUuid).toBeNull();
      const closed = await proposalIn('closed');
      const gone = await withEvents(seen, () => alice.delete(`/api/proposals/${closed.uuid}`));
      expect(data(gone.res)).toEqual({ uuid: closed.uuid, deleted: true });
      expect(gone.events).toEqual([ev('proposal', 'deleted', closed.uuid, projectA)]);
      for (const status of ['pending', 'approved'] as const) {
        const q = await proposalIn(status);
        await expectRefused(seen, () => alice.delete(`/api/proposals/${q.uuid}`), 409, 'INVALID_STATE', `Proposal is ${status}; delete requires draft or closed`, read(q.uuid));
      }
    });
  });

  describe('drafts', () => {
    it('adds (201 + draftUuid), updates and removes document drafts, each emitting proposal updated', async () => {
      const p = await createProposal();
      const added = await withEvents(seen, () => alice.post(`/api/proposals/${p.uuid}/document-drafts`, { type: 'prd', title: 'Req', content: 'Short' }));
      const { draftUuid, documentDraftIndex } = data(added.res, 201);
      expect(documentDraftIndex).toEqual([{ uuid: draftUuid, type: 'prd', title: 'Req', contentLength: 5 }]);
      expect(added.events).toEqual([updated(p.uuid)]);
      const changed = await withEvents(seen, () => alice.patch(`/api/proposals/${p.uuid}/document-drafts/${draftUuid}`, { type: 'spec', content: LONG_CONTENT }));
      expect(data(changed.res).documentDraftIndex).toEqual([{ uuid: draftUuid, type: 'spec', title: 'Req', contentLength: LONG_CONTENT.length }]);
      expect(changed.events).toEqual([updated(p.uuid)]);
      const removed = await withEvents(seen, () => alice.delete(`/api/proposals/${p.uuid}/document-drafts/${draftUuid}`));
      expect(data(removed.res)).toMatchObject({ documentDraftCount: 0, documentDraftIndex: [] });
      expect(removed.events).toEqual([updated(p.uuid)]);
      const absent = await withEvents(seen, () => alice.delete(`/api/proposals/${p.uuid}/document-drafts/${draftUuid}`));
      expect(data(absent.res).documentDraftCount).toBe(0);
      expect(absent.events).toEqual([]);
    });

    it('refuses document draft edits with bad bodies (400), unknown drafts (404) or outside draft status (409)', async () => {
      const p = await createProposal();
      const draft = data(await alice.post(`/api/proposals/${p.uuid}/document-drafts`, { type: 'prd', title: 'Req', content: 'x' }), 201).draftUuid;
      const url = `/api/proposals/${p.uuid}/document-drafts`;
      expectInvalid(await expectRefused(seen, () => alice.post(url, { type: 'memo', title: 'T' }), 400, 'VALIDATION_ERROR', 'Invalid input', read(p.uuid)), 'type', 'content');
      expectInvalid(await expectRefused(seen, () => alice.patch(`${url}/${draft}`, { title: 7 }), 400, 'VALIDATION_ERROR', 'Invalid input', read(p.uuid)), 'title');
      await expectRefused(seen, () => alice.patch(`${url}/${draft}`, {}), 400, 'VALIDATION_ERROR', 'Nothing to update', read(p.uuid));
      await expectRefused(seen, () => alice.patch(`${url}/${randomUUID()}`, { title: 'X' }), 404, 'NOT_FOUND', 'Document draft not found', read(p.uuid));
      await expectRefused(seen, () => alice.patch(`${url}/not-a-uuid`, { title: 'X' }), 404, 'NOT_FOUND', 'Document draft not found', read(p.uuid));
      const pending = await proposalIn('pending');
      const full = data(await alice.get(`/api/proposals/${pending.uuid}?section=documents`));
      const pendingUrl = `/api/proposals/${pending.uuid}/document-drafts`;
      await expectRefused(seen, () => alice.post(pendingUrl, { type: 'prd', title: 'T', content: 'c' }), 409, 'INVALID_STATE', 'Proposal is pending; add a document draft requires draft', read(pending.uuid));
      await expectRefused(seen, () => alice.patch(`${pendingUrl}/${full.documentDrafts[0].uuid}`, { title: 'T' }), 409, 'INVALID_STATE', 'Proposal is pending; update a document draft requires draft', read(pending.uuid));
      await expectRefused(seen, () => alice.delete(`${pendingUrl}/${full.documentDrafts[0].uuid}`), 409, 'INVALID_STATE', 'Proposal is pending; remove a document draft requires draft', read(pending.uuid));
    });

    it('adds, updates and removes task drafts; a removed draft leaves its siblings’ dependencies', async () => {
      const p = await createProposal();
      const url = `/api/proposals/${p.uuid}/task-drafts`;
      const added = await withEvents(seen, () => alice.post(url, { title: 'A', description: 'First', priority: 'low', storyPoints: 2, acceptanceCriteriaItems: [{ description: ' a1 ' }, { description: 'a2', required: false }] }));
      const a = data(added.res, 201).draftUuid;
      expect(added.events).toEqual([updated(p.uuid)]);
      const b = data(await alice.post(url, { title: 'B', acceptanceCriteriaItems: CRITERIA, dependsOnDraftUuids: [a] }), 201).draftUuid;
      const changed = await withEvents(seen, () => alice.patch(`${url}/${a}`, { title: 'A2', storyPoints: null, priority: null }));
      expect(data(changed.res).taskDraftIndex[0]).toEqual({ uuid: a, title: 'A2', priority: null, storyPoints: null, acceptanceCriteriaCount: 2, dependsOnDraftUuids: [] });
      expect(changed.events).toEqual([updated(p.uuid)]);
      const removed = await withEvents(seen, () => alice.delete(`${url}/${a}`));
      expect(data(removed.res).taskDraftIndex).toEqual([expect.objectContaining({ uuid: b, dependsOnDraftUuids: [] })]);
      expect(removed.events).toEqual([updated(p.uuid)]);
      expect((await withEvents(seen, () => alice.delete(`${url}/${a}`))).events).toEqual([]);
    });

    it('refuses task draft edits breaking the rules (400), unknown drafts (404) or outside draft status (409)', async () => {
      const p = await createProposal();
      const url = `/api/proposals/${p.uuid}/task-drafts`;
      const a = data(await alice.post(url, { title: 'A', acceptanceCriteriaItems: CRITERIA }), 201).draftUuid;
      const b = data(await alice.post(url, { title: 'B', acceptanceCriteriaItems: CRITERIA, dependsOnDraftUuids: [a] }), 201).draftUuid;
      expectInvalid(await expectRefused(seen, () => alice.post(url, { title: 'T', storyPoints: -1 }), 400, 'VALIDATION_ERROR', 'Invalid input', read(p.uuid)), 'storyPoints', 'acceptanceCriteriaItems');
      expectInvalid(await expectRefused(seen, () => alice.patch(`${url}/${a}`, { dependsOnDraftUuids: ['x'] }), 400, 'VALIDATION_ERROR', 'Invalid input', read(p.uuid)), 'dependsOnDraftUuids');
      await expectRefused(seen, () => alice.post(url, { title: 'T', acceptanceCriteriaItems: [{ description: ' ' }] }), 400, 'VALIDATION_ERROR', 'At least one acceptance criterion with a non-empty description is required', read(p.uuid));
      const ghost = randomUUID();
      await expectRefused(seen, () => alice.post(url, { title: 'T', acceptanceCriteriaItems: CRITERIA, dependsOnDraftUuids: [ghost] }), 400, 'VALIDATION_ERROR', `Unknown task draft ${ghost}`, read(p.uuid));
      await expectRefused(seen, () => alice.patch(`${url}/${a}`, { dependsOnDraftUuids: [a] }), 400, 'VALIDATION_ERROR', 'A task draft cannot depend on itself', read(p.uuid));
      await expectRefused(seen, () => alice.patch(`${url}/${a}`, { dependsOnDraftUuids: [b] }), 400, 'VALIDATION_ERROR', 'Draft dependencies would create a cycle', read(p.uuid));
      await expectRefused(seen, () => alice.patch(`${url}/${randomUUID()}`, { title: 'X' }), 404, 'NOT_FOUND', 'Task draft not found', read(p.uuid));
      const approved = await proposalIn('approved');
      const drafts = data(await alice.get(`/api/proposals/${approved.uuid}?section=tasks`)).taskDrafts;
      const approvedUrl = `/api/proposals/${approved.uuid}/task-drafts`;
      await expectRefused(seen, () => alice.post(approvedUrl, { title: 'T', acceptanceCriteriaItems: CRITERIA }), 409, 'INVALID_STATE', 'Proposal is approved; add a task draft requires draft', read(approved.uuid));
      await expectRefused(seen, () => alice.patch(`${approvedUrl}/${drafts[0].uuid}`, { title: 'T' }), 409, 'INVALID_STATE', 'Proposal is approved; update a task draft requires draft', read(approved.uuid));
      await expectRefused(seen, () => alice.delete(`${approvedUrl}/${drafts[0].uuid}`), 409, 'INVALID_STATE', 'Proposal is approved; remove a task draft requires draft', read(approved.uuid));
    });
  });

  describe('validation and submission', () => {
    it('validates without changing anything, and submits only a valid draft (409 PROPOSAL_INVALID otherwise)', async () => {
      const empty = await createProposal();
      const report = data(await alice.get(`/api/proposals/${empty.uuid}/validation`));
      expect(report.valid).toBe(false);
      expect(report.issues.filter((i: { level: string }) => i.level === 'error').map((i: { id: string }) => i.id)).toEqual(['E1', 'E3']);
      const refused = await expectRefused(seen, () => alice.post(`/api/proposals/${empty.uuid}/submit`), 409, 'PROPOSAL_INVALID', 'Proposal validation failed', read(empty.uuid));
      expect(refused.body.error.issues).toEqual(report.issues);
      const p = await readyProposal();
      expect(data(await alice.get(`/api/proposals/${p.uuid}/validation`))).toEqual({ valid: true, issues: expect.any(Array) });
      const { res, events } = await withEvents(seen, () => alice.post(`/api/proposals/${p.uuid}/submit`));
      expect(data(res)).toMatchObject({ status: 'pending', submittedAt: expect.any(String) });
      expect(events).toEqual([updated(p.uuid)]);
      await expectRefused(seen, () => alice.post(`/api/proposals/${p.uuid}/submit`), 409, 'INVALID_STATE', 'Proposal is pending; submit requires draft', read(p.uuid));
    });
  });

  describe('review: approve, reject, close, revoke', () => {
    it('approves: every draft materialised, exactly proposal updated + one task created per task draft', async () => {
      const p = await proposalIn('pending');
      expectInvalid(await expectRefused(seen, () => alice.post(`/api/proposals/${p.uuid}/approve`, { reviewNote: 5 }), 400, 'VALIDATION_ERROR', 'Invalid input', read(p.uuid)), 'reviewNote');
      const { res, events } = await withEvents(seen, () => alice.post(`/api/proposals/${p.uuid}/approve`, { reviewNote: 'Go' }));
      const result = data(res);
      expect(result.proposal).toMatchObject({ status: 'approved', reviewNote: 'Go', reviewedBy: { type: 'user', uuid: aliceActor.uuid, name: 'Alice' } });
      expect(result.materializedTasks.map((t: { title: string }) => t.title)).toEqual(['Task A', 'Task B', 'Task C']);
      expect(result.materializedDocuments.map((d: { title: string }) => d.title)).toEqual(['Design', 'Requirements']);
      expect(events).toHaveLength(1 + 3);
      expect(events).toEqual([updated(p.uuid), ...result.materializedTasks.map((t: { taskUuid: string }) => ev('task', 'created', t.taskUuid, projectA))]);
      const tasks = data(await alice.get(`/api/projects/${projectA}/tasks?proposalUuids=${p.uuid}`));
      expect(tasks.total).toBe(3);
      const c = data(await alice.get(`/api/tasks/${result.materializedTasks[2].taskUuid}`));
      expect(c.dependsOn.map((d: { title: string }) => d.title).sort()).toEqual(['Task A', 'Task B']);
      const docs = data(await alice.get(`/api/projects/${projectA}/documents`)).documents.filter((d: { proposalUuid: string }) => d.proposalUuid === p.uuid);
      expect(docs).toHaveLength(2);
      await expectRefused(seen, () => alice.post(`/api/proposals/${p.uuid}/approve`, {}), 409, 'INVALID_STATE', 'Proposal is approved; approve requires pending', read(p.uuid));
    });

    it('rejects a pending proposal back to draft with a required note', async () => {
      const p = await proposalIn('pending');
      const reject = (body: unknown, uuid = p.uuid) => () => alice.post(`/api/proposals/${uuid}/reject`, body);
      expectInvalid(await expectRefused(seen, reject({}), 400, 'VALIDATION_ERROR', 'Invalid input', read(p.uuid)), 'reviewNote');
      expectInvalid(await expectRefused(seen, reject({ reviewNote: '  ' }), 400, 'VALIDATION_ERROR', 'A review note is required', read(p.uuid)), 'reviewNote');
      const { res, events } = await withEvents(seen, reject({ reviewNote: 'Split task B' }));
      expect(data(res)).toMatchObject({ status: 'draft', reviewNote: 'Split task B' });
      expect(events).toEqual([updated(p.uuid)]);
      await expectRefused(seen, reject({ reviewNote: 'Again' }), 409, 'INVALID_STATE', 'Proposal is draft; reject requires pending', read(p.uuid));
    });

    it('closes a pending proposal for good', async () => {
      const p = await proposalIn('pending');
      expectInvalid(await expectRefused(seen, () => alice.post(`/api/proposals/${p.uuid}/close`, { reviewNote: 3 }), 400, 'VALIDATION_ERROR', 'Invalid input', read(p.uuid)), 'reviewNote');
      const { res, events } = await withEvents(seen, () => alice.post(`/api/proposals/${p.uuid}/close`, { reviewNote: 'Out of scope' }));
      expect(data(res)).toMatchObject({ status: 'closed', reviewNote: 'Out of scope' });
      expect(events).toEqual([updated(p.uuid)]);
      await expectRefused(seen, () => alice.post(`/api/proposals/${p.uuid}/close`, { reviewNote: 'Again' }), 409, 'INVALID_STATE', 'Proposal is closed; close requires pending', read(p.uuid));
    });

    it('revokes an approval: tasks closed, outside dependants unlinked, documents deleted, each with its event', async () => {
      const p = await proposalIn('pending');
      const approved = data(await alice.post(`/api/proposals/${p.uuid}/approve`, {}));
      const [a, b, c] = approved.materializedTasks.map((t: { taskUuid: string }) => t.taskUuid);
      const docs = approved.materializedDocuments.map((d: { documentUuid: string }) => d.documentUuid);
      data(await alice.post(`/api/tasks/${a}/claim`));
      const outside = data(await alice.post(`/api/projects/${projectA}/tasks`, { tasks: [{ title: 'Outside', acceptanceCriteriaItems: CRITERIA, dependsOnTaskUuids: [c] }] }), 201).tasks[0];
      expectInvalid(await expectRefused(seen, () => alice.post(`/api/proposals/${p.uuid}/revoke`, { reviewNote: [] }), 400, 'VALIDATION_ERROR', 'Invalid input', read(p.uuid)), 'reviewNote');
      const { res, events } = await withEvents(seen, () => alice.post(`/api/proposals/${p.uuid}/revoke`, { reviewNote: 'Wrong approach' }));
      const result = data(res);
      expect(result.proposal).toMatchObject({ status: 'draft', reviewNote: 'Wrong approach' });
      expect(result.closedTasks.map((t: { uuid: string }) => t.uuid)).toEqual([a, b, c]);
      expect(result.deletedDocuments.map((d: { uuid: string }) => d.uuid)).toEqual(docs);
      expect(events).toEqual([
        updated(p.uuid),
        ...[a, b, c, outside.uuid].map((t) => ev('task', 'updated', t, projectA)),
        ...docs.map((d: string) => ev('document', 'deleted', d, projectA)),
      ]);
      expect(data(await alice.get(`/api/tasks/${a}`)).status).toBe('closed');
      expect(data(await alice.get(`/api/tasks/${outside.uuid}`)).dependsOn).toEqual([]);
      expectError(await alice.get(`/api/documents/${docs[0]}`), 404, 'NOT_FOUND', 'Document not found');
      await expectRefused(seen, () => alice.post(`/api/proposals/${p.uuid}/revoke`, {}), 409, 'INVALID_STATE', 'Proposal is draft; revoke requires approved', read(p.uuid));
    });
  });

  describe('POST /api/proposals/:uuid/reports', () => {
    it('writes the report of an approved proposal (201): document created and idea updated per input idea; a second one needs force', async () => {
      const p = await proposalIn('approved');
      const url = `/api/proposals/${p.uuid}/reports`;
      const { res, events } = await withEvents(seen, () => alice.post(url, { title: 'Outcome', content: '## Summary\nShipped.' }));
      const doc = data(res, 201);
      expect(doc).toMatchObject({ type: 'report', title: 'Outcome', content: '## Summary\nShipped.', proposalUuid: p.uuid, projectUuid: projectA, version: 1 });
      expect(events).toEqual([ev('document', 'created', doc.uuid, projectA), ev('idea', 'updated', p.inputUuids[0], projectA)]);
      await expectRefused(seen, () => alice.post(url, { title: 'Again', content: 'More' }), 409, 'CONFLICT', 'A report already exists for this proposal; pass force=true to add another');
      const forced = await withEvents(seen, () => alice.post(url, { title: 'Again', content: 'More', force: true }));
      expect(data(forced.res, 201).title).toBe('Again');
      expect(forced.events).toHaveLength(2);
    });

    it('refuses bad bodies (400) and proposals that are not approved (409)', async () => {
      const p = await proposalIn('approved');
      const url = `/api/proposals/${p.uuid}/reports`;
      expectInvalid(await expectRefused(seen, () => alice.post(url, { title: 1, force: 'yes' }), 400, 'VALIDATION_ERROR', 'Invalid input'), 'title', 'content', 'force');
      expectInvalid(await expectRefused(seen, () => alice.post(url, { title: 'R', content: '   ' }), 400, 'VALIDATION_ERROR', 'Content must not be blank'), 'content');
      const draft = await proposalIn('draft');
      await expectRefused(seen, () => alice.post(`/api/proposals/${draft.uuid}/reports`, { title: 'R', content: 'c' }), 409, 'INVALID_STATE', 'Proposal is draft; create a report requires approved');
    });
  });
});

describe('proposal tools', () => {
  const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
  const SUMMARY_KEYS = ['uuid', 'projectUuid', 'title', 'status', 'inputType', 'inputUuids', 'documentDraftCount', 'taskDraftCount', 'createdBy', 'reviewedBy', 'createdAt', 'updatedAt'];
  const RECORD_KEYS = [...SUMMARY_KEYS, 'description', 'submittedAt', 'reviewNote', 'reviewedAt', 'references', 'section'];
  const sorted = (keys: string[]) => [...keys].sort();

  describe('proposal tools (e2e, official SDK client)', () => {
    let events: RealtimeEvent[];
    let companyUuid: string;
    let project: string;
    // Company A: a pm, another user's pm, an admin and a developer agent; company B: its admin agent and project.
    let pm: WorldAgent;
    let otherPm: WorldAgent;
    let admin: WorldAgent;
    let developer: WorldAgent;
    let other: { companyUuid: string; project: string; admin: WorldAgent };

    beforeAll(async () => {
      const a = await world.company();
      const ownerUser = await world.user(a.uuid, { name: 'Owner' });
      const colleague = await world.user(a.uuid, { name: 'Colleague' });
      companyUuid = a.uuid;
      project = await world.project(userActor(ownerUser));
      pm = await world.agent(a.uuid, ownerUser.uuid, { preset: 'pm_agent', name: 'PM' });
      otherPm = await world.agent(a.uuid, colleague.uuid, { preset: 'pm_agent', name: 'Other PM' });
      admin = await world.agent(a.uuid, ownerUser.uuid, { preset: 'admin_agent', name: 'Admin' });
      developer = await world.agent(a.uuid, ownerUser.uuid, { preset: 'developer_agent', name: 'Developer' });
      const b = await world.company();
      const outsider = userActor(await world.user(b.uuid, { name: 'Outsider' }));
      other = { companyUuid: b.uuid, project: await world.project(outsider), admin: await world.agent(b.uuid, outsider.uuid, { preset: 'admin_agent', name: 'Outsider admin' }) };
      events = world.recordEvents();
    });

    const takeEvents = (): RealtimeEvent[] => events.splice(0, events.length);
    const change = (entityType: RealtimeEvent['entityType'], entityUuid: string, action: RealtimeEvent['action'], projectUuid = project): RealtimeEvent => ({ companyUuid, projectUuid, entityType, entityUuid, action });
    /** A draft proposal of the pm built through the tools (it validates); the setup's events are discarded. */
    const draftProposal = async () => {
      const p = await draftThroughTools(world, pm, project);
      takeEvents();
      return p;
    };
    /** A proposal of the pm driven through the tools to `status`; the setup's events are discarded. */
    const proposalIn = async (status: 'draft' | 'pending' | 'approved' | 'closed') => {
      const p = await proposalThroughTools(world, status, { by: pm, admin, projectUuid: project });
      takeEvents();
      return p;
    };
    /** A resolved idea assigned to `agent` (a valid proposal input). */
    const readyIdea = (agent: WorldAgent, opts: { title?: string; isContainer?: boolean } = {}, projectUuid = project) => world.idea(agent.actor, projectUuid, { state: 'elaborated', ...opts });

    const row = async (uuid: string) => (await world.ds.query(`SELECT * FROM proposal WHERE uuid = $1`, [uuid]))[0];
    const activityCount = async () => (await world.ds.query(`SELECT count(*)::int AS n FROM activity`))[0].n;

    /** A refusal with this code and message that leaves the proposal row and the activity log as they were and publishes nothing. */
    async function refusedUnchanged(agent: WorldAgent, name: string, args: Record<string, unknown>, proposalUuid: string, code: string, message: string) {
      takeEvents();
      const [before, activities] = [await row(proposalUuid), await activityCount()];
      const error = await refusal(agent, name, args);
      expect({ code: error.code, message: error.message }).toEqual({ code, message });
      expect(await row(proposalUuid)).toEqual(before);
      expect(await activityCount()).toBe(activities);
      expect(takeEvents()).toEqual([]);
      return error;
    }

    describe('svc_get_proposals / svc_get_proposal (public reads)', () => {
      it('lists a project\'s proposals newest first with summaries, filters by status, and is visible to a developer', async () => {
        const first = await proposalIn('pending');
        const second = await draftProposal();
        const all = await world.ok(developer, 'svc_get_proposals', { projectUuid: project, pageSize: 100 });
        expect(Object.keys(all).sort()).toEqual(['page', 'pageSize', 'proposals', 'total']);
        const uuids = all.proposals.map((p: { uuid: string }) => p.uuid);
        expect(uuids.indexOf(second.uuid)).toBeLessThan(uuids.indexOf(first.uuid));
        expect(all.total).toBe(all.proposals.length);
        expect(sorted(Object.keys(all.proposals[0]))).toEqual(sorted(SUMMARY_KEYS));
        const s = all.proposals.find((p: { uuid: string }) => p.uuid === first.uuid);
        expect(s).toEqual({
          uuid: first.uuid, projectUuid: project, title: 'Checkout rework', status: 'pending', inputType: 'idea', inputUuids: [first.idea.uuid],
          documentDraftCount: 1, taskDraftCount: 2, createdBy: { type: 'agent', uuid: pm.uuid, name: 'PM' }, reviewedBy: null,
          createdAt: expect.stringMatching(ISO), updatedAt: expect.stringMatching(ISO),
        });
        const pending = await world.ok(developer, 'svc_get_proposals', { projectUuid: project, status: 'pending', pageSize: 100 });
        expect(pending.proposals.every((p: { status: string }) => p.status === 'pending')).toBe(true);
        expect(pending.proposals.map((p: { uuid: string }) => p.uuid)).toContain(first.uuid);
        const paged = await world.ok(developer, 'svc_get_proposals', { projectUuid: project, pageSize: 1, page: 2 });
        expect(paged).toMatchObject({ page: 2, pageSize: 1, total: all.total, proposals: [{ uuid: uuids[1] }] });
      });

      it('answers NOT_FOUND for a missing or other-company project and VALIDATION_ERROR for bad arguments', async () => {
        for (const projectUuid of [randomUUID(), other.project]) {
          expect(await refusal(pm, 'svc_get_proposals', { projectUuid })).toEqual({ code: 'NOT_FOUND', message: 'Project not found' });
        }
        const bad = await refusal(pm, 'svc_get_proposals', { projectUuid: 'nope', status: 'open', pageSize: 101, colour: 'red' });
        expect(bad.code).toBe('VALIDATION_ERROR');
        expect(bad.message).toBe('Invalid arguments');
        expect((bad.details as Array<{ path: string }>).map((d) => d.path).sort()).toEqual(['colour', 'pageSize', 'projectUuid', 'status']);
      });

      it('returns one proposal with the chosen section', async () => {
        const p = await draftProposal();
        const basic = await world.ok(developer, 'svc_get_proposal', { proposalUuid: p.uuid });
        expect(sorted(Object.keys(basic))).toEqual(sorted([...RECORD_KEYS, 'documentDraftIndex', 'taskDraftIndex']));
        expect(basic).toMatchObject({ section: 'basic', description: '', submittedAt: null, reviewNote: null, reviewedAt: null, references: [] });
        expect(basic.documentDraftIndex).toEqual([{ uuid: p.docDraft, type: 'tech_design', title: 'Design', contentLength: LONG_CONTENT.length }]);
        expect(basic.taskDraftIndex).toEqual([
          { uuid: p.taskDrafts.a, title: 'Task A', priority: 'high', storyPoints: null, acceptanceCriteriaCount: 1, dependsOnDraftUuids: [] },
          { uuid: p.taskDrafts.b, title: 'Task B', priority: null, storyPoints: 3, acceptanceCriteriaCount: 2, dependsOnDraftUuids: [p.taskDrafts.a] },
        ]);
        const docs = await world.ok(developer, 'svc_get_proposal', { proposalUuid: p.uuid, section: 'documents' });
        expect(sorted(Object.keys(docs))).toEqual(sorted([...RECORD_KEYS, 'documentDrafts']));
        expect(docs.documentDrafts).toEqual([{ uuid: p.docDraft, type: 'tech_design', title: 'Design', content: LONG_CONTENT }]);
        const tasks = await world.ok(developer, 'svc_get_proposal', { proposalUuid: p.uuid, section: 'tasks' });
        expect(sorted(Object.keys(tasks))).toEqual(sorted([...RECORD_KEYS, 'taskDrafts']));
        expect(tasks.taskDrafts[1]).toEqual({
          uuid: p.taskDrafts.b, title: 'Task B', description: '', priority: null, storyPoints: 3,
          acceptanceCriteriaItems: [{ description: 'B works', required: true }, { description: 'B is fast', required: false }], dependsOnDraftUuids: [p.taskDrafts.a],
        });
        const full = await world.ok(developer, 'svc_get_proposal', { proposalUuid: p.uuid, section: 'full' });
        expect(sorted(Object.keys(full))).toEqual(sorted([...RECORD_KEYS, 'documentDrafts', 'taskDrafts']));
        expect(await refusal(pm, 'svc_get_proposal', { proposalUuid: p.uuid, section: 'all' })).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'section' }] });
      });
    });

    describe('svc_pm_create_proposal', () => {
      it('creates an empty draft over assigned resolved ideas, publishes "proposal created", and warns about an idea already feeding another proposal', async () => {
        const idea = await readyIdea(pm, { title: 'Faster checkout' });
        const p = await world.ok(pm, 'svc_pm_create_proposal', {
          projectUuid: project, title: '  First  ', description: 'Why', inputType: 'idea', inputUuids: [idea.uuid],
          references: [{ type: 'docs', url: 'https://example.test/spec', title: 'Spec' }],
        });
        expect(p).toMatchObject({ title: 'First', status: 'draft', description: 'Why', inputUuids: [idea.uuid], documentDraftCount: 0, taskDraftCount: 0, section: 'basic', documentDraftIndex: [], taskDraftIndex: [] });
        expect(p.references).toEqual([expect.objectContaining({ targetType: 'proposal', targetUuid: p.uuid, url: 'https://example.test/spec' })]);
        expect(p.warnings).toBeUndefined();
        expect(takeEvents()).toEqual([change('proposal', p.uuid, 'created')]);

        const again = await world.ok(pm, 'svc_pm_create_proposal', { projectUuid: project, title: 'Second', inputType: 'idea', inputUuids: [idea.uuid] });
        expect(again.warnings).toEqual(['Idea "Faster checkout" already feeds proposal "First" (draft)']);
      });

      it('accepts documents as inputs', async () => {
        const doc = await world.domain.document(pm.actor, project);
        const p = await world.ok(pm, 'svc_pm_create_proposal', { projectUuid: project, title: 'From a doc', inputType: 'document', inputUuids: [doc.uuid] });
        expect(p).toMatchObject({ inputType: 'document', inputUuids: [doc.uuid], status: 'draft' });
      });

      it('refuses missing projects and inputs, other-company records, theme ideas and ideas not assigned to the caller, creating nothing', async () => {
        const [before] = await world.ds.query(`SELECT count(*)::int AS n FROM proposal`);
        takeEvents();
        const mine = await readyIdea(pm);
        const theme = await readyIdea(pm, { isContainer: true });
        const theirs = await readyIdea(otherPm);
        const foreign = await readyIdea(other.admin, {}, other.project);
        const base = { projectUuid: project, title: 'X', inputType: 'idea' };
        const cases: Array<[Record<string, unknown>, string, string]> = [
          [{ ...base, projectUuid: other.project, inputUuids: [mine.uuid] }, 'NOT_FOUND', 'Project not found'],
          [{ ...base, inputUuids: [mine.uuid, randomUUID()] }, 'NOT_FOUND', 'Input idea not found'],
          [{ ...base, inputUuids: [foreign.uuid] }, 'NOT_FOUND', 'Input idea not found'],
          [{ ...base, inputType: 'document', inputUuids: [randomUUID()] }, 'NOT_FOUND', 'Input document not found'],
          [{ ...base, inputUuids: [theme.uuid] }, 'VALIDATION_ERROR', 'Container ideas cannot be proposal inputs; derive a child idea'],
          [{ ...base, inputUuids: [mine.uuid, theirs.uuid] }, 'FORBIDDEN', 'Input ideas must be assigned to you'],
          [{ ...base, inputUuids: [] }, 'VALIDATION_ERROR', 'Invalid arguments'],
          [{ ...base, inputType: 'task', inputUuids: [mine.uuid] }, 'VALIDATION_ERROR', 'Invalid arguments'],
        ];
        for (const [args, code, message] of cases) expect([args, await refusal(pm, 'svc_pm_create_proposal', args)]).toEqual([args, expect.objectContaining({ code, message })]);
        expect((await world.ds.query(`SELECT count(*)::int AS n FROM proposal`))[0]).toEqual(before);
        expect(takeEvents()).toEqual([]);
      });
    });

    describe('draft editing (any holder of proposal:write)', () => {
      it('adds document and task drafts, returning the draft uuid and publishing "proposal updated"', async () => {
        const p = await draftProposal();
        const d = await world.ok(otherPm, 'svc_pm_add_document_draft', { proposalUuid: p.uuid, type: 'prd', title: 'Requirements', content: 'Short' });
        expect(d).toMatchObject({ uuid: p.uuid, draftUuid: expect.any(String), documentDraftCount: 2 });
        expect(d.documentDraftIndex[1]).toEqual({ uuid: d.draftUuid, type: 'prd', title: 'Requirements', contentLength: 5 });
        expect(takeEvents()).toEqual([change('proposal', p.uuid, 'updated')]);
        const t = await world.ok(pm, 'svc_pm_add_task_draft', {
          proposalUuid: p.uuid, title: 'Task C', description: 'Third', priority: 'low', storyPoints: 1,
          acceptanceCriteriaItems: [{ description: ' C1 ' }, { description: '  ' }], dependsOnDraftUuids: [p.taskDrafts.a, p.taskDrafts.b],
        });
        expect(t.taskDraftIndex[2]).toEqual({ uuid: t.draftUuid, title: 'Task C', priority: 'low', storyPoints: 1, acceptanceCriteriaCount: 1, dependsOnDraftUuids: [p.taskDrafts.a, p.taskDrafts.b] });
        expect(takeEvents()).toEqual([change('proposal', p.uuid, 'updated')]);
      });

      it('refuses task drafts without a real criterion or with unknown dependencies, and drafts beyond the limits', async () => {
        const p = await draftProposal();
        const base = { proposalUuid: p.uuid, title: 'T' };
        await refusedUnchanged(pm, 'svc_pm_add_task_draft', { ...base, acceptanceCriteriaItems: [{ description: '   ' }] }, p.uuid, 'VALIDATION_ERROR', 'At least one acceptance criterion with a non-empty description is required');
        const ghost = randomUUID();
        await refusedUnchanged(pm, 'svc_pm_add_task_draft', { ...base, acceptanceCriteriaItems: [{ description: 'ok' }], dependsOnDraftUuids: [ghost] }, p.uuid, 'VALIDATION_ERROR', `Unknown task draft ${ghost}`);
        const empty = await refusedUnchanged(pm, 'svc_pm_add_task_draft', { ...base, acceptanceCriteriaItems: [] }, p.uuid, 'VALIDATION_ERROR', 'Invalid arguments');
        expect(empty.details).toEqual([{ path: 'acceptanceCriteriaItems', message: expect.any(String) }]);

        // Fill up to the limits directly, then one more through the tools.
        const docs = Array.from({ length: 20 }, () => ({ uuid: randomUUID(), type: 'spec', title: 'D', content: '' }));
        const tasks = Array.from({ length: 100 }, () => ({ uuid: randomUUID(), title: 'T', description: '', priority: null, storyPoints: null, acceptanceCriteriaItems: [{ description: 'x', required: true }], dependsOnDraftUuids: [] }));
        await world.ds.query(`UPDATE proposal SET document_drafts = $2::jsonb, task_drafts = $3::jsonb WHERE uuid = $1`, [p.uuid, JSON.stringify(docs), JSON.stringify(tasks)]);
        await refusedUnchanged(pm, 'svc_pm_add_document_draft', { proposalUuid: p.uuid, type: 'spec', title: 'One more', content: '' }, p.uuid, 'VALIDATION_ERROR', 'A proposal can have at most 20 document drafts');
        await refusedUnchanged(pm, 'svc_pm_add_task_draft', { ...base, acceptanceCriteriaItems: [{ description: 'x' }] }, p.uuid, 'VALIDATION_ERROR', 'A proposal can have at most 100 task drafts');
      });

      it('updates document and task drafts; a given criteria or dependency list replaces the old one', async () => {
        const p = await draftProposal();
        const d = await world.ok(pm, 'svc_pm_update_document_draft', { proposalUuid: p.uuid, draftUuid: p.docDraft, title: 'Design v2', type: 'adr' });
        expect(d.documentDraftIndex).toEqual([{ uuid: p.docDraft, type: 'adr', title: 'Design v2', contentLength: LONG_CONTENT.length }]);
        expect(takeEvents()).toEqual([change('proposal', p.uuid, 'updated')]);
        const t = await world.ok(pm, 'svc_pm_update_task_draft', { proposalUuid: p.uuid, draftUuid: p.taskDrafts.b, storyPoints: null, acceptanceCriteriaItems: [{ description: 'Only this' }], dependsOnDraftUuids: [] });
        expect(t.taskDraftIndex[1]).toEqual({ uuid: p.taskDrafts.b, title: 'Task B', priority: null, storyPoints: null, acceptanceCriteriaCount: 1, dependsOnDraftUuids: [] });
        expect(takeEvents()).toEqual([change('proposal', p.uuid, 'updated')]);
      });

      it('refuses unknown drafts, empty updates, self and cyclic dependencies', async () => {
        const p = await draftProposal();
        const ghost = randomUUID();
        await refusedUnchanged(pm, 'svc_pm_update_document_draft', { proposalUuid: p.uuid, draftUuid: ghost, title: 'X' }, p.uuid, 'NOT_FOUND', 'Document draft not found');
        await refusedUnchanged(pm, 'svc_pm_update_document_draft', { proposalUuid: p.uuid, draftUuid: p.docDraft }, p.uuid, 'VALIDATION_ERROR', 'Nothing to update');
        await refusedUnchanged(pm, 'svc_pm_update_task_draft', { proposalUuid: p.uuid, draftUuid: ghost, title: 'X' }, p.uuid, 'NOT_FOUND', 'Task draft not found');
        await refusedUnchanged(pm, 'svc_pm_update_task_draft', { proposalUuid: p.uuid, draftUuid: p.taskDrafts.a, dependsOnDraftUuids: [p.taskDrafts.a] }, p.uuid, 'VALIDATION_ERROR', 'A task draft cannot depend on itself');
        await refusedUnchanged(pm, 'svc_pm_update_task_draft', { proposalUuid: p.uuid, draftUuid: p.taskDrafts.a, dependsOnDraftUuids: [p.taskDrafts.b] }, p.uuid, 'VALIDATION_ERROR', 'Draft dependencies would create a cycle');
        await refusedUnchanged(pm, 'svc_pm_update_task_draft', { proposalUuid: p.uuid, draftUuid: p.taskDrafts.a, acceptanceCriteriaItems: [{ description: '' }] }, p.uuid, 'VALIDATION_ERROR', 'At least one acceptance criterion with a non-empty description is required');
      });

      it('removes drafts (a task draft also from its siblings\' dependencies); an absent draft is a success that changes nothing', async () => {
        const p = await draftProposal();
        const t = await world.ok(pm, 'svc_pm_remove_task_draft', { proposalUuid: p.uuid, draftUuid: p.taskDrafts.a });
        expect(t.taskDraftIndex).toEqual([expect.objectContaining({ uuid: p.taskDrafts.b, dependsOnDraftUuids: [] })]);
        expect(takeEvents()).toEqual([change('proposal', p.uuid, 'updated')]);
        const d = await world.ok(pm, 'svc_pm_remove_document_draft', { proposalUuid: p.uuid, draftUuid: p.docDraft });
        expect(d.documentDraftIndex).toEqual([]);
        expect(takeEvents()).toEqual([change('proposal', p.uuid, 'updated')]);

        const before = await row(p.uuid);
        const activities = await activityCount();
        for (const name of ['svc_pm_remove_task_draft', 'svc_pm_remove_document_draft']) {
          const same = await world.ok(pm, name, { proposalUuid: p.uuid, draftUuid: p.taskDrafts.a });
          expect(same.uuid).toBe(p.uuid);
        }
        expect(await row(p.uuid)).toEqual(before);
        expect(await activityCount()).toBe(activities);
        expect(takeEvents()).toEqual([]);
      });

      it('refuses every draft edit unless the proposal is a draft', async () => {
        const p = await proposalIn('pending');
        const pu = p.uuid;
        const cases: Array<[string, Record<string, unknown>, string]> = [
          ['svc_pm_add_document_draft', { proposalUuid: pu, type: 'spec', title: 'X', content: '' }, 'add a document draft'],
          ['svc_pm_add_task_draft', { proposalUuid: pu, title: 'X', acceptanceCriteriaItems: [{ description: 'x' }] }, 'add a task draft'],
          ['svc_pm_update_document_draft', { proposalUuid: pu, draftUuid: p.docDraft, title: 'X' }, 'update a document draft'],
          ['svc_pm_update_task_draft', { proposalUuid: pu, draftUuid: p.taskDrafts.a, title: 'X' }, 'update a task draft'],
          ['svc_pm_remove_document_draft', { proposalUuid: pu, draftUuid: p.docDraft }, 'remove a document draft'],
          ['svc_pm_remove_task_draft', { proposalUuid: pu, draftUuid: p.taskDrafts.a }, 'remove a task draft'],
        ];
        for (const [name, args, op] of cases) await refusedUnchanged(pm, name, args, pu, 'INVALID_STATE', `Proposal is pending; ${op} requires draft`);
      });
    });

    describe('svc_pm_validate_proposal / svc_pm_submit_proposal', () => {
      it('lists the issues of an incomplete proposal, and submission refuses it with PROPOSAL_INVALID and the same issues', async () => {
        const idea = await readyIdea(pm);
        const p = await world.ok(pm, 'svc_pm_create_proposal', { projectUuid: project, title: 'Empty', inputType: 'idea', inputUuids: [idea.uuid] });
        const v = await world.ok(pm, 'svc_pm_validate_proposal', { proposalUuid: p.uuid });
        expect(v.valid).toBe(false);
        expect(v.issues.filter((i: { level: string }) => i.level === 'error').map((i: { id: string }) => i.id)).toEqual(['E1', 'E3']);
        const error = await refusedUnchanged(pm, 'svc_pm_submit_proposal', { proposalUuid: p.uuid }, p.uuid, 'PROPOSAL_INVALID', 'Proposal validation failed');
        expect(error.issues).toEqual(v.issues);
      });

      it('submits a valid draft (draft -> pending) with "proposal updated", and refuses a second submission', async () => {
        const p = await draftProposal();
        expect(await world.ok(pm, 'svc_pm_validate_proposal', { proposalUuid: p.uuid })).toMatchObject({ valid: true });
        const s = await world.ok(pm, 'svc_pm_submit_proposal', { proposalUuid: p.uuid });
        expect(s).toMatchObject({ uuid: p.uuid, status: 'pending', submittedAt: expect.stringMatching(ISO), section: 'basic' });
        expect(takeEvents()).toEqual([change('proposal', p.uuid, 'updated')]);
        const err = await refusedUnchanged(pm, 'svc_pm_submit_proposal', { proposalUuid: p.uuid }, p.uuid, 'INVALID_STATE', 'Proposal is pending; submit requires draft');
        // The hint names the review tools that move a pending proposal on (docs/tool-conventions.md §1.5).
        expect(err.hints).toEqual([expect.stringMatching(/svc_admin_approve_proposal.*proposal:admin.*svc_pm_reject_proposal/)]);
      });
    });

    describe('review: reject, close, approve, revoke', () => {
      it('reject: the creator sends a pending proposal back with a note; others are FORBIDDEN; a draft is INVALID_STATE', async () => {
        const p = await proposalIn('pending');
        await refusedUnchanged(otherPm, 'svc_pm_reject_proposal', { proposalUuid: p.uuid, reviewNote: 'No' }, p.uuid, 'FORBIDDEN', "Only the proposal's creator or a holder of proposal:admin can reject it");
        const bad = await refusedUnchanged(pm, 'svc_pm_reject_proposal', { proposalUuid: p.uuid }, p.uuid, 'VALIDATION_ERROR', 'Invalid arguments');
        expect(bad.details).toEqual([{ path: 'reviewNote', message: expect.any(String) }]);
        const r = await world.ok(pm, 'svc_pm_reject_proposal', { proposalUuid: p.uuid, reviewNote: ' Needs a design ' });
        expect(r).toMatchObject({ status: 'draft', reviewNote: 'Needs a design', reviewedBy: { type: 'agent', uuid: pm.uuid, name: 'PM' }, reviewedAt: expect.stringMatching(ISO) });
        expect(takeEvents()).toEqual([change('proposal', p.uuid, 'updated')]);
        await refusedUnchanged(pm, 'svc_pm_reject_proposal', { proposalUuid: p.uuid, reviewNote: 'Again' }, p.uuid, 'INVALID_STATE', 'Proposal is draft; reject requires pending');
      });

      it('close: an admin closes a pending proposal for good (pending -> closed); the tool is hidden from a pm agent', async () => {
        const p = await proposalIn('pending');
        await expect(pm.client.callTool({ name: 'svc_admin_close_proposal', arguments: { proposalUuid: p.uuid, reviewNote: 'x' } })).rejects.toMatchObject({
          code: -32602,
          message: expect.stringContaining('Unknown tool: svc_admin_close_proposal'),
        });
        const c = await world.ok(admin, 'svc_admin_close_proposal', { proposalUuid: p.uuid, reviewNote: 'Out of scope' });
        expect(c).toMatchObject({ status: 'closed', reviewNote: 'Out of scope', reviewedBy: { type: 'agent', uuid: admin.uuid, name: 'Admin' } });
        expect(sorted(Object.keys(c))).toEqual(sorted([...RECORD_KEYS, 'documentDraftIndex', 'taskDraftIndex']));
        expect(takeEvents()).toEqual([change('proposal', p.uuid, 'updated')]);
        await refusedUnchanged(admin, 'svc_admin_close_proposal', { proposalUuid: p.uuid, reviewNote: 'Again' }, p.uuid, 'INVALID_STATE', 'Proposal is closed; close requires pending');
      });

      it('approve: exactly one "proposal updated" plus one "task created" per task on the bus, materialising drafts', async () => {
        const p = await proposalIn('pending');
        const r = await world.ok(admin, 'svc_admin_approve_proposal', { proposalUuid: p.uuid, reviewNote: 'Ship it' });
        expect(Object.keys(r).sort()).toEqual(['materializedDocuments', 'materializedTasks', 'proposal']);
        expect(r.proposal).toMatchObject({ uuid: p.uuid, status: 'approved', reviewNote: 'Ship it', section: 'basic' });
        expect(r.materializedTasks).toEqual([
          { draftUuid: p.taskDrafts.a, taskUuid: expect.any(String), title: 'Task A' },
          { draftUuid: p.taskDrafts.b, taskUuid: expect.any(String), title: 'Task B' },
        ]);
        expect(r.materializedDocuments).toEqual([{ draftUuid: p.docDraft, documentUuid: expect.any(String), title: 'Design' }]);
        expect(takeEvents()).toEqual([
          change('proposal', p.uuid, 'updated'),
          ...r.materializedTasks.map((t: { taskUuid: string }) => change('task', t.taskUuid, 'created')),
        ]);
        const tasks = await world.ds.query(`SELECT status, proposal_uuid FROM task WHERE proposal_uuid = $1`, [p.uuid]);
        expect(tasks).toEqual([{ status: 'open', proposal_uuid: p.uuid }, { status: 'open', proposal_uuid: p.uuid }]);
        await refusedUnchanged(admin, 'svc_admin_approve_proposal', { proposalUuid: p.uuid }, p.uuid, 'INVALID_STATE', 'Proposal is approved; approve requires pending');
        const draft = await draftProposal();
        await refusedUnchanged(admin, 'svc_admin_approve_proposal', { proposalUuid: draft.uuid }, draft.uuid, 'INVALID_STATE', 'Proposal is draft; approve requires pending');
      });

      it('revoke: the creator withdraws an approved proposal, closing its tasks and deleting its documents, with their events', async () => {
        const p = await proposalIn('approved');
        const tasks: Array<{ uuid: string; title: string }> = await world.ds.query(`SELECT uuid, title FROM task WHERE proposal_uuid = $1 ORDER BY created_at, uuid`, [p.uuid]);
        const docs: Array<{ uuid: string; title: string }> = await world.ds.query(`SELECT uuid, title FROM document WHERE proposal_uuid = $1`, [p.uuid]);
        expect([tasks.length, docs.length]).toEqual([2, 1]);
        await refusedUnchanged(otherPm, 'svc_pm_revoke_proposal', { proposalUuid: p.uuid }, p.uuid, 'FORBIDDEN', "Only the proposal's creator or a holder of proposal:admin can revoke it");
        const r = await world.ok(pm, 'svc_pm_revoke_proposal', { proposalUuid: p.uuid, reviewNote: 'Wrong approach' });
        expect(Object.keys(r).sort()).toEqual(['closedTasks', 'deletedDocuments', 'proposal']);
        expect(r.proposal).toMatchObject({ uuid: p.uuid, status: 'draft', reviewNote: 'Wrong approach' });
        expect(r.closedTasks).toEqual(tasks);
        expect(r.deletedDocuments).toEqual(docs);
        const events = takeEvents();
        expect(events[0]).toEqual(change('proposal', p.uuid, 'updated'));
        expect(events.slice(1)).toEqual(expect.arrayContaining([...tasks.map((t) => change('task', t.uuid, 'updated')), change('document', docs[0].uuid, 'deleted')]));
        expect(events).toHaveLength(1 + tasks.length + docs.length);
        expect(await world.ds.query(`SELECT DISTINCT status FROM task WHERE proposal_uuid = $1`, [p.uuid])).toEqual([{ status: 'closed' }]);
        expect(await world.ds.query(`SELECT uuid FROM document WHERE proposal_uuid = $1`, [p.uuid])).toEqual([]);
        const err = await refusedUnchanged(pm, 'svc_pm_revoke_proposal', { proposalUuid: p.uuid }, p.uuid, 'INVALID_STATE', 'Proposal is draft; revoke requires approved');
        expect(err.hints).toEqual(['Submit it for review: svc_pm_submit_proposal (check it first with svc_pm_validate_proposal)']);
      });

      it('revoke: a holder of proposal:admin may revoke another agent\'s proposal', async () => {
        const p = await proposalIn('approved');
        expect(await world.ok(admin, 'svc_pm_revoke_proposal', { proposalUuid: p.uuid })).toMatchObject({ proposal: { status: 'draft', reviewNote: null } });
      });
    });

    it('answers NOT_FOUND "Proposal not found" for a missing or other-company proposal on every proposal tool', async () => {
      const foreign = (await world.ds.query(
        `INSERT INTO proposal (uuid, company_uuid, project_uuid, title, description, input_type, input_uuids, status, document_drafts, task_drafts, created_by_type, created_by_uuid)
       VALUES (gen_random_uuid(), $1, $2, 'Foreign', '', 'idea', '{}', 'pending', '[]', '[]', 'agent', $3) RETURNING uuid`,
        [other.companyUuid, other.project, other.admin.uuid],
      ))[0].uuid as string;
      const draftUuid = randomUUID();
      const cases: Array<[WorldAgent, string, Record<string, unknown>]> = [
        [admin, 'svc_get_proposal', {}],
        [admin, 'svc_pm_validate_proposal', {}],
        [admin, 'svc_pm_submit_proposal', {}],
        [admin, 'svc_pm_add_document_draft', { type: 'spec', title: 'X', content: '' }],
        [admin, 'svc_pm_add_task_draft', { title: 'X', acceptanceCriteriaItems: [{ description: 'x' }] }],
        [admin, 'svc_pm_update_document_draft', { draftUuid, title: 'X' }],
        [admin, 'svc_pm_update_task_draft', { draftUuid, title: 'X' }],
        [admin, 'svc_pm_remove_document_draft', { draftUuid }],
        [admin, 'svc_pm_remove_task_draft', { draftUuid }],
        [admin, 'svc_pm_reject_proposal', { reviewNote: 'x' }],
        [admin, 'svc_pm_revoke_proposal', {}],
        [admin, 'svc_admin_approve_proposal', {}],
        [admin, 'svc_admin_close_proposal', { reviewNote: 'x' }],
      ];
      takeEvents();
      for (const proposalUuid of [foreign, randomUUID()]) {
        for (const [agent, name, args] of cases) {
          const res = await callTool(agent.client, name, { proposalUuid, ...args });
          expect([name, res]).toEqual([name, { isError: true, data: { error: { code: 'NOT_FOUND', message: 'Proposal not found' } } }]);
        }
      }
      expect((await row(foreign)).status).toBe('pending');
      expect(takeEvents()).toEqual([]);
    });
  });
});
