import { randomUUID } from 'node:crypto';
import { CommentService } from '../../src/modules/collaboration/index.js';
import type { SeededUser } from '../factories/identity.factory.js';
import { ChangeEvents, ev } from '../utils/change-events.js';
import type { HttpClient, HttpResult } from '../utils/http.js';
import { expectError, expectInvalid, expectRefused, type Observed, withEvents } from '../utils/rest-expect.js';
import { userActor, World, type WorldAgent } from '../utils/world.js';
import type { Actor } from '../../src/shared/auth/actor.js';
import type { RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { callTool } from '../utils/mcp-client.js';
import { refusal } from '../utils/mcp-expect.js';
import { proposalIn as proposalThroughTools } from '../utils/mcp-proposals.js';

/** One app for the whole file; each block below seeds companies of its own. */
let world: World;
beforeAll(async () => {
  world = await World.start();
});
afterAll(() => world.close());

/** Document routes of docs/platform.md §9 over a running app, events read from a real EventSource. */
describe('REST documents (e2e)', () => {
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
    const [companyA, companyB] = [(await world.company()).uuid, (await world.company()).uuid];
    aliceUser = await world.user(companyA, { name: 'Alice' });
    const bobUser = await world.user(companyB, { name: 'Bob' });
    [alice, carol, bob] = [await world.login(aliceUser), await world.login(await world.user(companyA, { name: 'Carol' })), await world.login(bobUser)];
    [projectA, projectA2, projectB] = [await world.project(userActor(aliceUser)), await world.project(userActor(aliceUser)), await world.project(userActor(bobUser))];
    seen = { changes: await ChangeEvents.open(world, alice.cookie!, companyA), companyUuid: companyA, ds: world.ds };
  });
  afterAll(async () => {
    seen.changes.close();
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

describe('document tools', () => {
  const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
  const SUMMARY_KEYS = ['uuid', 'projectUuid', 'type', 'title', 'version', 'proposalUuid', 'createdBy', 'createdAt', 'updatedAt'];
  const sorted = (keys: string[]) => [...keys].sort();

  describe('document tools (e2e, official SDK client)', () => {
    let events: RealtimeEvent[];
    let companyUuid: string;
    let project: string;
    let owner: Actor;
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
      owner = userActor(ownerUser);
      project = await world.project(owner);
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
    /** A proposal of the pm driven through the tools to `status`; the setup's events are discarded. */
    const proposalIn = async (status: 'draft' | 'pending' | 'approved' | 'closed') => {
      const p = await proposalThroughTools(world, status, { by: pm, admin, projectUuid: project });
      takeEvents();
      return p;
    };

    const docRow = async (uuid: string) => (await world.ds.query(`SELECT * FROM document WHERE uuid = $1`, [uuid]))[0];
    const counts = async () => (await world.ds.query(`SELECT (SELECT count(*)::int FROM document) AS documents, (SELECT count(*)::int FROM activity) AS activities`))[0];

    /** A refusal with this code and message that changes no document, writes no activity and publishes nothing. */
    async function refusedUnchanged(agent: WorldAgent, name: string, args: Record<string, unknown>, code: string, message: string, documentUuid?: string) {
      takeEvents();
      const before = [await counts(), documentUuid ? await docRow(documentUuid) : null];
      const error = await refusal(agent, name, args);
      expect({ code: error.code, message: error.message }).toEqual({ code, message });
      expect([await counts(), documentUuid ? await docRow(documentUuid) : null]).toEqual(before);
      expect(takeEvents()).toEqual([]);
      return error;
    }

    const create = (agent: WorldAgent, args: Record<string, unknown> = {}) =>
      world.ok(agent, 'svc_pm_create_document', { projectUuid: project, type: 'spec', title: 'Spec', content: 'Body', ...args });

    describe('svc_pm_create_document', () => {
      it('creates version 1 (DocumentRecord) with "document created", optionally linked to a proposal of the project', async () => {
        const d = await create(pm, { title: '  API spec  ', content: '# API' });
        expect(d).toEqual({
          uuid: expect.any(String), projectUuid: project, type: 'spec', title: 'API spec', version: 1, proposalUuid: null,
          createdBy: { type: 'agent', uuid: pm.uuid, name: 'PM' }, createdAt: expect.stringMatching(ISO), updatedAt: expect.stringMatching(ISO), content: '# API',
        });
        expect(takeEvents()).toEqual([change('document', d.uuid, 'created')]);
        const p = await proposalIn('draft');
        const linked = await create(pm, { proposalUuid: p.uuid, content: undefined });
        expect(linked).toMatchObject({ proposalUuid: p.uuid, content: '' });
      });

      it('refuses missing or other-company projects and proposals of another project, and a report type', async () => {
        const otherProject = await world.project(owner);
        const p = await proposalIn('draft');
        await refusedUnchanged(pm, 'svc_pm_create_document', { projectUuid: other.project, type: 'spec', title: 'X' }, 'NOT_FOUND', 'Project not found');
        await refusedUnchanged(pm, 'svc_pm_create_document', { projectUuid: randomUUID(), type: 'spec', title: 'X' }, 'NOT_FOUND', 'Project not found');
        await refusedUnchanged(pm, 'svc_pm_create_document', { projectUuid: otherProject, type: 'spec', title: 'X', proposalUuid: p.uuid }, 'NOT_FOUND', 'Proposal not found');
        await refusedUnchanged(pm, 'svc_pm_create_document', { projectUuid: project, type: 'spec', title: 'X', proposalUuid: randomUUID() }, 'NOT_FOUND', 'Proposal not found');
        const bad = await refusedUnchanged(pm, 'svc_pm_create_document', { projectUuid: project, type: 'report', title: '', extra: 1 }, 'VALIDATION_ERROR', 'Invalid arguments');
        expect((bad.details as Array<{ path: string }>).map((d) => d.path).sort()).toEqual(['extra', 'title', 'type']);
      });
    });

    describe('svc_get_documents / svc_get_document (public reads)', () => {
      it('lists documents without content, most recently updated first, filtered by type; a developer sees them', async () => {
        const project = await world.project(owner);
        const a = await create(pm, { projectUuid: project, type: 'adr', title: 'A' });
        const b = await create(pm, { projectUuid: project, type: 'prd', title: 'B' });
        await world.ok(pm, 'svc_pm_update_document', { documentUuid: a.uuid, content: 'A2' });
        const all = await world.ok(developer, 'svc_get_documents', { projectUuid: project });
        expect(Object.keys(all).sort()).toEqual(['documents', 'page', 'pageSize', 'total']);
        expect(all).toMatchObject({ page: 1, pageSize: 20, total: 2 });
        expect(all.documents.map((d: { uuid: string }) => d.uuid)).toEqual([a.uuid, b.uuid]);
        expect(sorted(Object.keys(all.documents[0]))).toEqual(sorted(SUMMARY_KEYS));
        const prds = await world.ok(developer, 'svc_get_documents', { projectUuid: project, type: 'prd' });
        expect(prds.documents.map((d: { uuid: string }) => d.uuid)).toEqual([b.uuid]);
        const page2 = await world.ok(developer, 'svc_get_documents', { projectUuid: project, page: 2, pageSize: 1 });
        expect(page2).toMatchObject({ page: 2, pageSize: 1, total: 2, documents: [{ uuid: b.uuid }] });
      });

      it('refuses a missing or other-company project and bad arguments', async () => {
        expect(await refusal(pm, 'svc_get_documents', { projectUuid: other.project })).toEqual({ code: 'NOT_FOUND', message: 'Project not found' });
        const bad = await refusal(pm, 'svc_get_documents', { projectUuid: project, type: 'memo', page: 0 });
        expect(bad).toMatchObject({ code: 'VALIDATION_ERROR', message: 'Invalid arguments' });
        expect((bad.details as Array<{ path: string }>).map((d) => d.path).sort()).toEqual(['page', 'type']);
      });

      it('returns one document with its content; another company\'s is NOT_FOUND', async () => {
        const d = await create(pm, { content: 'Full text' });
        expect(await world.ok(developer, 'svc_get_document', { documentUuid: d.uuid })).toEqual(d);
        const foreign = await world.domain.document(other.admin.actor, other.project);
        expect(await refusal(pm, 'svc_get_document', { documentUuid: foreign.uuid })).toEqual({ code: 'NOT_FOUND', message: 'Document not found' });
        expect(await refusal(pm, 'svc_get_document', { documentUuid: 'x' })).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'documentUuid' }] });
      });
    });

    describe('svc_pm_update_document', () => {
      it('changes title and content, raising the version by one with "document updated"; same values change nothing', async () => {
        const d = await create(pm);
        takeEvents();
        const u = await world.ok(otherPm, 'svc_pm_update_document', { documentUuid: d.uuid, title: 'Spec v2', content: 'New body' });
        expect(u).toMatchObject({ uuid: d.uuid, title: 'Spec v2', content: 'New body', version: 2, createdBy: d.createdBy });
        expect(takeEvents()).toEqual([change('document', d.uuid, 'updated')]);
        const before = await docRow(d.uuid);
        expect(await world.ok(pm, 'svc_pm_update_document', { documentUuid: d.uuid, title: 'Spec v2' })).toMatchObject({ version: 2 });
        expect(await docRow(d.uuid)).toEqual(before);
        expect(takeEvents()).toEqual([]);
      });

      it('refuses an empty update and a missing or other-company document', async () => {
        const d = await create(pm);
        await refusedUnchanged(pm, 'svc_pm_update_document', { documentUuid: d.uuid }, 'VALIDATION_ERROR', 'Nothing to update', d.uuid);
        const foreign = await world.domain.document(other.admin.actor, other.project);
        await refusedUnchanged(pm, 'svc_pm_update_document', { documentUuid: foreign.uuid, title: 'Mine now' }, 'NOT_FOUND', 'Document not found', foreign.uuid);
        await refusedUnchanged(pm, 'svc_pm_update_document', { documentUuid: randomUUID(), title: 'X' }, 'NOT_FOUND', 'Document not found');
      });
    });

    describe('svc_create_report', () => {
      it('writes a report document linked to an approved proposal with "document created" and "idea updated" per input idea', async () => {
        const p = await proposalIn('approved');
        const r = await world.ok(pm, 'svc_create_report', { proposalUuid: p.uuid, title: 'Checkout report', content: '## Summary\nDone.' });
        expect(r).toMatchObject({ type: 'report', proposalUuid: p.uuid, projectUuid: project, title: 'Checkout report', content: '## Summary\nDone.', version: 1 });
        expect(takeEvents()).toEqual([change('document', r.uuid, 'created'), change('idea', p.idea.uuid, 'updated')]);
        await refusedUnchanged(pm, 'svc_create_report', { proposalUuid: p.uuid, title: 'Again', content: 'x' }, 'CONFLICT', 'A report already exists for this proposal; pass force=true to add another');
        const forced = await world.ok(pm, 'svc_create_report', { proposalUuid: p.uuid, title: 'Addendum', content: 'More', force: true });
        expect(forced).toMatchObject({ type: 'report', proposalUuid: p.uuid, title: 'Addendum' });
      });

      it('refuses unless the proposal is approved, a missing or other-company proposal, and empty content', async () => {
        const draft = await proposalIn('draft');
        await refusedUnchanged(pm, 'svc_create_report', { proposalUuid: draft.uuid, title: 'R', content: 'x' }, 'INVALID_STATE', 'Proposal is draft; create a report requires approved');
        const pending = await proposalIn('pending');
        await refusedUnchanged(pm, 'svc_create_report', { proposalUuid: pending.uuid, title: 'R', content: 'x' }, 'INVALID_STATE', 'Proposal is pending; create a report requires approved');
        await refusedUnchanged(pm, 'svc_create_report', { proposalUuid: randomUUID(), title: 'R', content: 'x' }, 'NOT_FOUND', 'Proposal not found');
        const foreign = (await world.ds.query(
          `INSERT INTO proposal (uuid, company_uuid, project_uuid, title, description, input_type, input_uuids, status, document_drafts, task_drafts, created_by_type, created_by_uuid)
         VALUES (gen_random_uuid(), $1, $2, 'Foreign', '', 'idea', '{}', 'approved', '[]', '[]', 'agent', $3) RETURNING uuid`,
          [other.companyUuid, other.project, other.admin.uuid],
        ))[0].uuid;
        await refusedUnchanged(pm, 'svc_create_report', { proposalUuid: foreign, title: 'R', content: 'x' }, 'NOT_FOUND', 'Proposal not found');
        const empty = await refusedUnchanged(pm, 'svc_create_report', { proposalUuid: draft.uuid, title: 'R', content: '' }, 'VALIDATION_ERROR', 'Invalid arguments');
        expect(empty.details).toEqual([{ path: 'content', message: expect.any(String) }]);
      });
    });

    describe('svc_admin_delete_document', () => {
      it('deletes a document and its comments with "document deleted"; hidden from a pm agent', async () => {
        const d = await create(pm);
        await world.ok(pm, 'svc_add_comment', { targetType: 'document', targetUuid: d.uuid, content: 'A comment' });
        takeEvents();
        await expect(pm.client.callTool({ name: 'svc_admin_delete_document', arguments: { documentUuid: d.uuid } })).rejects.toMatchObject({
          code: -32602,
          message: expect.stringContaining('Unknown tool: svc_admin_delete_document'),
        });
        expect(await docRow(d.uuid)).toBeDefined();
        expect(await world.ok(admin, 'svc_admin_delete_document', { documentUuid: d.uuid })).toEqual({ uuid: d.uuid, deleted: true });
        expect(takeEvents()).toEqual([change('document', d.uuid, 'deleted')]);
        expect(await docRow(d.uuid)).toBeUndefined();
        expect(await world.ds.query(`SELECT uuid FROM comment WHERE target_uuid = $1`, [d.uuid])).toEqual([]);
        await refusedUnchanged(admin, 'svc_admin_delete_document', { documentUuid: d.uuid }, 'NOT_FOUND', 'Document not found');
      });
    });

    it('answers NOT_FOUND "Document not found" for another company\'s document on every document tool, changing nothing', async () => {
      const foreign = await world.domain.document(other.admin.actor, other.project);
      const before = await docRow(foreign.uuid);
      takeEvents();
      for (const [name, args] of [
        ['svc_get_document', {}],
        ['svc_pm_update_document', { content: 'x' }],
        ['svc_admin_delete_document', {}],
      ] as const) {
        const res = await callTool(admin.client, name, { documentUuid: foreign.uuid, ...args });
        expect([name, res]).toEqual([name, { isError: true, data: { error: { code: 'NOT_FOUND', message: 'Document not found' } } }]);
      }
      expect(await docRow(foreign.uuid)).toEqual(before);
      expect(takeEvents()).toEqual([]);
    });
  });
});
