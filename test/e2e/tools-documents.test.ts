import { randomUUID } from 'node:crypto';
import type { Actor } from '../../src/shared/auth/actor.js';
import type { RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { callTool } from '../utils/mcp-client.js';
import { refusal } from '../utils/mcp-expect.js';
import { proposalIn as proposalThroughTools } from '../utils/mcp-proposals.js';
import { userActor, World, type WorldAgent } from '../utils/world.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SUMMARY_KEYS = ['uuid', 'projectUuid', 'type', 'title', 'version', 'proposalUuid', 'createdBy', 'createdAt', 'updatedAt'];
const sorted = (keys: string[]) => [...keys].sort();

describe('document tools (e2e, official SDK client)', () => {
  let world: World;
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
    world = await World.start();
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
  afterAll(async () => {
    await world?.close();
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
