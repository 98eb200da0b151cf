import { randomUUID } from 'node:crypto';
import { change, ok, proposalIn, refusal, seedToolWorld, type ToolAgent, type ToolWorld } from '../utils/mcp-world.js';
import { callTool } from '../utils/mcp-client.js';
import { World } from '../utils/world.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SUMMARY_KEYS = ['uuid', 'projectUuid', 'type', 'title', 'version', 'proposalUuid', 'createdBy', 'createdAt', 'updatedAt'];
const sorted = (keys: string[]) => [...keys].sort();

describe('document tools (e2e, official SDK client)', () => {
  let app: World;
  let w: ToolWorld;

  beforeAll(async () => {
    app = await World.start();
    w = await seedToolWorld(app);
  });
  afterAll(async () => {
    await app?.close();
  });

  const docRow = async (uuid: string) => (await app.db.dataSource.query(`SELECT * FROM document WHERE uuid = $1`, [uuid]))[0];
  const counts = async () => (await app.db.dataSource.query(`SELECT (SELECT count(*)::int FROM document) AS documents, (SELECT count(*)::int FROM activity) AS activities`))[0];

  /** A refusal with this code and message that changes no document, writes no activity and publishes nothing. */
  async function refusedUnchanged(agent: ToolAgent, name: string, args: Record<string, unknown>, code: string, message: string, documentUuid?: string) {
    w.takeEvents();
    const before = [await counts(), documentUuid ? await docRow(documentUuid) : null];
    const error = await refusal(agent, name, args);
    expect({ code: error.code, message: error.message }).toEqual({ code, message });
    expect([await counts(), documentUuid ? await docRow(documentUuid) : null]).toEqual(before);
    expect(w.takeEvents()).toEqual([]);
    return error;
  }

  const create = (agent: ToolAgent, args: Record<string, unknown> = {}) =>
    ok(agent, 'svc_pm_create_document', { projectUuid: w.project.uuid, type: 'spec', title: 'Spec', content: 'Body', ...args });

  describe('svc_pm_create_document', () => {
    it('creates version 1 (DocumentRecord) with "document created", optionally linked to a proposal of the project', async () => {
      const d = await create(w.pm, { title: '  API spec  ', content: '# API' });
      expect(d).toEqual({
        uuid: expect.any(String), projectUuid: w.project.uuid, type: 'spec', title: 'API spec', version: 1, proposalUuid: null,
        createdBy: { type: 'agent', uuid: w.pm.uuid, name: 'PM' }, createdAt: expect.stringMatching(ISO), updatedAt: expect.stringMatching(ISO), content: '# API',
      });
      expect(w.takeEvents()).toEqual([change(w, 'document', d.uuid, 'created')]);
      const p = await proposalIn(w, 'draft');
      const linked = await create(w.pm, { proposalUuid: p.uuid, content: undefined });
      expect(linked).toMatchObject({ proposalUuid: p.uuid, content: '' });
    });

    it('refuses missing or other-company projects and proposals of another project, and a report type', async () => {
      const otherProject = await w.f.project(w.companyUuid);
      const p = await proposalIn(w, 'draft');
      await refusedUnchanged(w.pm, 'svc_pm_create_document', { projectUuid: w.other.project.uuid, type: 'spec', title: 'X' }, 'NOT_FOUND', 'Project not found');
      await refusedUnchanged(w.pm, 'svc_pm_create_document', { projectUuid: randomUUID(), type: 'spec', title: 'X' }, 'NOT_FOUND', 'Project not found');
      await refusedUnchanged(w.pm, 'svc_pm_create_document', { projectUuid: otherProject.uuid, type: 'spec', title: 'X', proposalUuid: p.uuid }, 'NOT_FOUND', 'Proposal not found');
      await refusedUnchanged(w.pm, 'svc_pm_create_document', { projectUuid: w.project.uuid, type: 'spec', title: 'X', proposalUuid: randomUUID() }, 'NOT_FOUND', 'Proposal not found');
      const bad = await refusedUnchanged(w.pm, 'svc_pm_create_document', { projectUuid: w.project.uuid, type: 'report', title: '', extra: 1 }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect((bad.details as Array<{ path: string }>).map((d) => d.path).sort()).toEqual(['extra', 'title', 'type']);
    });
  });

  describe('svc_get_documents / svc_get_document (public reads)', () => {
    it('lists documents without content, most recently updated first, filtered by type; a developer sees them', async () => {
      const project = await w.f.project(w.companyUuid);
      const a = await create(w.pm, { projectUuid: project.uuid, type: 'adr', title: 'A' });
      const b = await create(w.pm, { projectUuid: project.uuid, type: 'prd', title: 'B' });
      await ok(w.pm, 'svc_pm_update_document', { documentUuid: a.uuid, content: 'A2' });
      const all = await ok(w.developer, 'svc_get_documents', { projectUuid: project.uuid });
      expect(Object.keys(all).sort()).toEqual(['documents', 'page', 'pageSize', 'total']);
      expect(all).toMatchObject({ page: 1, pageSize: 20, total: 2 });
      expect(all.documents.map((d: { uuid: string }) => d.uuid)).toEqual([a.uuid, b.uuid]);
      expect(sorted(Object.keys(all.documents[0]))).toEqual(sorted(SUMMARY_KEYS));
      const prds = await ok(w.developer, 'svc_get_documents', { projectUuid: project.uuid, type: 'prd' });
      expect(prds.documents.map((d: { uuid: string }) => d.uuid)).toEqual([b.uuid]);
      const page2 = await ok(w.developer, 'svc_get_documents', { projectUuid: project.uuid, page: 2, pageSize: 1 });
      expect(page2).toMatchObject({ page: 2, pageSize: 1, total: 2, documents: [{ uuid: b.uuid }] });
    });

    it('refuses a missing or other-company project and bad arguments', async () => {
      expect(await refusal(w.pm, 'svc_get_documents', { projectUuid: w.other.project.uuid })).toEqual({ code: 'NOT_FOUND', message: 'Project not found' });
      const bad = await refusal(w.pm, 'svc_get_documents', { projectUuid: w.project.uuid, type: 'memo', page: 0 });
      expect(bad).toMatchObject({ code: 'VALIDATION_ERROR', message: 'Invalid arguments' });
      expect((bad.details as Array<{ path: string }>).map((d) => d.path).sort()).toEqual(['page', 'type']);
    });

    it('returns one document with its content; another company\'s is NOT_FOUND', async () => {
      const d = await create(w.pm, { content: 'Full text' });
      expect(await ok(w.developer, 'svc_get_document', { documentUuid: d.uuid })).toEqual(d);
      const foreign = await w.f.document(w.other.companyUuid, w.other.project.uuid, w.other.admin.who);
      expect(await refusal(w.pm, 'svc_get_document', { documentUuid: foreign.uuid })).toEqual({ code: 'NOT_FOUND', message: 'Document not found' });
      expect(await refusal(w.pm, 'svc_get_document', { documentUuid: 'x' })).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'documentUuid' }] });
    });
  });

  describe('svc_pm_update_document', () => {
    it('changes title and content, raising the version by one with "document updated"; same values change nothing', async () => {
      const d = await create(w.pm);
      w.takeEvents();
      const u = await ok(w.otherPm, 'svc_pm_update_document', { documentUuid: d.uuid, title: 'Spec v2', content: 'New body' });
      expect(u).toMatchObject({ uuid: d.uuid, title: 'Spec v2', content: 'New body', version: 2, createdBy: d.createdBy });
      expect(w.takeEvents()).toEqual([change(w, 'document', d.uuid, 'updated')]);
      const before = await docRow(d.uuid);
      expect(await ok(w.pm, 'svc_pm_update_document', { documentUuid: d.uuid, title: 'Spec v2' })).toMatchObject({ version: 2 });
      expect(await docRow(d.uuid)).toEqual(before);
      expect(w.takeEvents()).toEqual([]);
    });

    it('refuses an empty update and a missing or other-company document', async () => {
      const d = await create(w.pm);
      await refusedUnchanged(w.pm, 'svc_pm_update_document', { documentUuid: d.uuid }, 'VALIDATION_ERROR', 'Nothing to update', d.uuid);
      const foreign = await w.f.document(w.other.companyUuid, w.other.project.uuid, w.other.admin.who);
      await refusedUnchanged(w.pm, 'svc_pm_update_document', { documentUuid: foreign.uuid, title: 'Mine now' }, 'NOT_FOUND', 'Document not found', foreign.uuid);
      await refusedUnchanged(w.pm, 'svc_pm_update_document', { documentUuid: randomUUID(), title: 'X' }, 'NOT_FOUND', 'Document not found');
    });
  });

  describe('svc_create_report', () => {
    it('writes a report document linked to an approved proposal with "document created" and "idea updated" per input idea', async () => {
      const p = await proposalIn(w, 'approved');
      const r = await ok(w.pm, 'svc_create_report', { proposalUuid: p.uuid, title: 'Checkout report', content: '## Summary\nDone.' });
      expect(r).toMatchObject({ type: 'report', proposalUuid: p.uuid, projectUuid: w.project.uuid, title: 'Checkout report', content: '## Summary\nDone.', version: 1 });
      expect(w.takeEvents()).toEqual([change(w, 'document', r.uuid, 'created'), change(w, 'idea', p.idea.uuid, 'updated')]);
      await refusedUnchanged(w.pm, 'svc_create_report', { proposalUuid: p.uuid, title: 'Again', content: 'x' }, 'CONFLICT', 'A report already exists for this proposal; pass force=true to add another');
      const forced = await ok(w.pm, 'svc_create_report', { proposalUuid: p.uuid, title: 'Addendum', content: 'More', force: true });
      expect(forced).toMatchObject({ type: 'report', proposalUuid: p.uuid, title: 'Addendum' });
    });

    it('refuses unless the proposal is approved, a missing or other-company proposal, and empty content', async () => {
      const draft = await proposalIn(w, 'draft');
      await refusedUnchanged(w.pm, 'svc_create_report', { proposalUuid: draft.uuid, title: 'R', content: 'x' }, 'INVALID_STATE', 'Proposal is draft; create a report requires approved');
      const pending = await proposalIn(w, 'pending');
      await refusedUnchanged(w.pm, 'svc_create_report', { proposalUuid: pending.uuid, title: 'R', content: 'x' }, 'INVALID_STATE', 'Proposal is pending; create a report requires approved');
      await refusedUnchanged(w.pm, 'svc_create_report', { proposalUuid: randomUUID(), title: 'R', content: 'x' }, 'NOT_FOUND', 'Proposal not found');
      const foreign = (await app.db.dataSource.query(
        `INSERT INTO proposal (uuid, company_uuid, project_uuid, title, description, input_type, input_uuids, status, document_drafts, task_drafts, created_by_type, created_by_uuid)
         VALUES (gen_random_uuid(), $1, $2, 'Foreign', '', 'idea', '{}', 'approved', '[]', '[]', 'agent', $3) RETURNING uuid`,
        [w.other.companyUuid, w.other.project.uuid, w.other.admin.uuid],
      ))[0].uuid;
      await refusedUnchanged(w.pm, 'svc_create_report', { proposalUuid: foreign, title: 'R', content: 'x' }, 'NOT_FOUND', 'Proposal not found');
      const empty = await refusedUnchanged(w.pm, 'svc_create_report', { proposalUuid: draft.uuid, title: 'R', content: '' }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(empty.details).toEqual([{ path: 'content', message: expect.any(String) }]);
    });
  });

  describe('svc_admin_delete_document', () => {
    it('deletes a document and its comments with "document deleted"; hidden from a pm agent', async () => {
      const d = await create(w.pm);
      await w.f.comment(w.companyUuid, 'document', d.uuid, w.pm.who);
      w.takeEvents();
      await expect(w.pm.client.callTool({ name: 'svc_admin_delete_document', arguments: { documentUuid: d.uuid } })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Unknown tool: svc_admin_delete_document'),
      });
      expect(await docRow(d.uuid)).toBeDefined();
      expect(await ok(w.admin, 'svc_admin_delete_document', { documentUuid: d.uuid })).toEqual({ uuid: d.uuid, deleted: true });
      expect(w.takeEvents()).toEqual([change(w, 'document', d.uuid, 'deleted')]);
      expect(await docRow(d.uuid)).toBeUndefined();
      expect(await app.db.dataSource.query(`SELECT uuid FROM comment WHERE target_uuid = $1`, [d.uuid])).toEqual([]);
      await refusedUnchanged(w.admin, 'svc_admin_delete_document', { documentUuid: d.uuid }, 'NOT_FOUND', 'Document not found');
    });
  });

  it('answers NOT_FOUND "Document not found" for another company\'s document on every document tool, changing nothing', async () => {
    const foreign = await w.f.document(w.other.companyUuid, w.other.project.uuid, w.other.admin.who);
    const before = await docRow(foreign.uuid);
    w.takeEvents();
    for (const [name, args] of [
      ['svc_get_document', {}],
      ['svc_pm_update_document', { content: 'x' }],
      ['svc_admin_delete_document', {}],
    ] as const) {
      const res = await callTool(w.admin.client, name, { documentUuid: foreign.uuid, ...args });
      expect([name, res]).toEqual([name, { isError: true, data: { error: { code: 'NOT_FOUND', message: 'Document not found' } } }]);
    }
    expect(await docRow(foreign.uuid)).toEqual(before);
    expect(w.takeEvents()).toEqual([]);
  });
});
