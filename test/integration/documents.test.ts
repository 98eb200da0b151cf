import type { Actor } from '../../src/shared/auth/actor.js';
import { DocumentService } from '../../src/modules/documents/index.js';
import { userActor, World } from '../utils/world.js';
import { ProposalFactory, proposalIn, refused, type SeededProposalStatus } from '../factories/proposal.factory.js';
import { CommentEntity, DocumentEntity, IdeaEntity, ProposalEntity } from '../../src/entities.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('documents (docs/tool-conventions.md §5.7)', () => {
  let world: World;
  let f: ProposalFactory;
  let documents: DocumentService;
  let companyUuid: string;
  /** A user; pm (pm_agent) and admin (admin_agent) are its agents. */
  let user: Actor;
  let pm: Actor;
  let admin: Actor;
  let projectUuid: string;

  beforeAll(async () => {
    world = await World.database();
    f = new ProposalFactory(world.ds);
    documents = world.get(DocumentService);
    companyUuid = (await world.company()).uuid;
    const u = await world.user(companyUuid);
    user = userActor(u);
    pm = (await world.agent(companyUuid, u.uuid, { preset: 'pm_agent', name: 'PM' })).actor;
    admin = (await world.agent(companyUuid, u.uuid, { preset: 'admin_agent', name: 'Admin' })).actor;
    projectUuid = await world.project(user);
  });
  afterAll(() => world.close());

  const em = () => world.ds.manager;
  const ev = (entityType: string, entityUuid: string, action: string) => ({ companyUuid, projectUuid, entityType, entityUuid, action });
  /** A proposal of the pm agent in the project, driven to `status` (the admin agent approves or closes it). */
  const proposal = (status: SeededProposalStatus) => proposalIn(world, status, { author: pm, reviewer: admin, projectUuid });

  /** A refused document call changes no document row and publishes nothing. */
  async function refusedUnchanged(call: () => Promise<unknown>, code: string, message?: string) {
    const rows = await em().find(DocumentEntity, { order: { uuid: 'ASC' } });
    const activities = await f.activityCount();
    world.h.takeEvents();
    await refused(call(), code, message);
    expect(await em().find(DocumentEntity, { order: { uuid: 'ASC' } })).toEqual(rows);
    expect(await f.activityCount()).toBe(activities);
    expect(world.h.takeEvents()).toEqual([]);
  }

  describe('create', () => {
    it('creates version 1 with the caller as creator; one event, activity created', async () => {
      const r = await documents.create(pm, { projectUuid, type: 'adr', title: ' Use Postgres ', content: '# Decision' });
      expect(r).toEqual({
        uuid: expect.any(String),
        projectUuid,
        type: 'adr',
        title: 'Use Postgres',
        version: 1,
        proposalUuid: null,
        createdBy: { type: 'agent', uuid: pm.uuid, name: pm.name },
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
        content: '# Decision',
      });
      expect(world.h.takeEvents()).toEqual([ev('document', r.uuid, 'created')]);
      expect((await f.activities(r.uuid)).map((a) => [a.action, a.targetType, a.actorUuid])).toEqual([['created', 'document', pm.uuid]]);
    });

    it('links to a proposal of the same project only', async () => {
      const p = await proposal('draft');
      const linked = await documents.create(pm, { projectUuid, type: 'spec', title: 'Spec', proposalUuid: p.uuid });
      expect(linked).toMatchObject({ proposalUuid: p.uuid, content: '' });
      world.h.takeEvents();
      const other = await world.project(user);
      await refusedUnchanged(() => documents.create(pm, { projectUuid: other, type: 'spec', title: 'Spec', proposalUuid: p.uuid }), 'NOT_FOUND', 'Proposal not found');
      await refusedUnchanged(
        () => documents.create(pm, { projectUuid, type: 'spec', title: 'Spec', proposalUuid: '00000000-0000-4000-8000-000000000003' }),
        'NOT_FOUND',
        'Proposal not found',
      );
      await refusedUnchanged(() => documents.create(pm, { projectUuid: '00000000-0000-4000-8000-000000000004', type: 'spec', title: 'Spec' }), 'NOT_FOUND', 'Project not found');
      await refusedUnchanged(() => documents.create(pm, { projectUuid, type: 'prd', title: '  ' }), 'VALIDATION_ERROR', 'Title must not be blank');
      // A report type and too long content are the DTO's: src/modules/documents/dto/document.dto.spec.ts.
    });
  });

  describe('update', () => {
    it('raises the version on every real change; identical values change nothing', async () => {
      const d = await documents.create(pm, { projectUuid, type: 'guide', title: 'Guide', content: 'v1' });
      world.h.takeEvents();
      const r1 = await documents.update(user, { documentUuid: d.uuid, content: 'v2' });
      expect(r1).toMatchObject({ version: 2, content: 'v2', title: 'Guide', createdBy: { uuid: pm.uuid } });
      expect(world.h.takeEvents()).toEqual([ev('document', d.uuid, 'updated')]);
      const r2 = await documents.update(user, { documentUuid: d.uuid, title: 'Guide 2', content: 'v3' });
      expect(r2).toMatchObject({ version: 3, title: 'Guide 2', content: 'v3' });
      expect((await f.activities(d.uuid)).at(-1)).toMatchObject({ action: 'edited', value: { fields: ['title', 'content'], version: 3 } });
      world.h.takeEvents();
      const same = await documents.update(user, { documentUuid: d.uuid, title: 'Guide 2' });
      expect(same.version).toBe(3);
      expect(world.h.takeEvents()).toEqual([]);
      await refusedUnchanged(() => documents.update(user, { documentUuid: d.uuid }), 'VALIDATION_ERROR', 'Nothing to update');
      await refusedUnchanged(() => documents.update(user, { documentUuid: d.uuid, title: '' }), 'VALIDATION_ERROR');
      await refusedUnchanged(() => documents.update(user, { documentUuid: '00000000-0000-4000-8000-000000000005', title: 'x' }), 'NOT_FOUND', 'Document not found');
    });
  });

  describe('delete', () => {
    it('deletes the document and its comments; one event, activity deleted', async () => {
      const d = await documents.create(pm, { projectUuid, type: 'prd', title: 'Gone' });
      const c = await f.comment(companyUuid, 'document', d.uuid, user);
      world.h.takeEvents();
      expect(await documents.delete(admin, { documentUuid: d.uuid })).toEqual({ uuid: d.uuid, deleted: true });
      expect(await em().findOneBy(DocumentEntity, { uuid: d.uuid })).toBeNull();
      expect(await em().findOneBy(CommentEntity, { uuid: c.uuid })).toBeNull();
      expect(world.h.takeEvents()).toEqual([ev('document', d.uuid, 'deleted')]);
      expect((await f.activities(d.uuid)).at(-1)).toMatchObject({ action: 'deleted' });
      await refusedUnchanged(() => documents.delete(admin, { documentUuid: d.uuid }), 'NOT_FOUND', 'Document not found');
    });
  });

  describe('reads', () => {
    it('lists by updatedAt desc with type filter and paging; get returns the content', async () => {
      const project = await world.project(user);
      const a = await documents.create(pm, { projectUuid: project, type: 'prd', title: 'A', content: 'a' });
      const b = await documents.create(pm, { projectUuid: project, type: 'adr', title: 'B' });
      const c = await documents.create(pm, { projectUuid: project, type: 'prd', title: 'C' });
      await documents.update(pm, { documentUuid: a.uuid, content: 'a2' });
      const all = await documents.list(user, { projectUuid: project });
      expect(Object.keys(all)).toEqual(['documents', 'page', 'pageSize', 'total']);
      expect(all).toMatchObject({ page: 1, pageSize: 20, total: 3 });
      // Exactly the list shape of docs/tool-conventions.md §1.2: no paging internals (offset) leak out.
      expect(Object.keys(all).sort()).toEqual(['documents', 'page', 'pageSize', 'total']);
      expect(all.documents.map((d) => d.uuid)).toEqual([a.uuid, c.uuid, b.uuid]);
      expect(all.documents[0]).not.toHaveProperty('content');
      expect(Object.keys(all.documents[0])).toEqual(['uuid', 'projectUuid', 'type', 'title', 'version', 'proposalUuid', 'createdBy', 'createdAt', 'updatedAt']);
      const prds = await documents.list(user, { projectUuid: project, type: 'prd', pageSize: 1, page: 2 });
      expect(prds).toMatchObject({ total: 2, page: 2, pageSize: 1 });
      expect(prds.documents.map((d) => d.uuid)).toEqual([c.uuid]);
      expect(await documents.get(user, { documentUuid: a.uuid })).toMatchObject({ uuid: a.uuid, content: 'a2', version: 2 });
      await refused(documents.list(user, { projectUuid: project, page: 0 }), 'VALIDATION_ERROR');
      await refused(documents.list(user, { projectUuid: '00000000-0000-4000-8000-000000000006' }), 'NOT_FOUND', 'Project not found');
      await refused(documents.get(user, { documentUuid: '00000000-0000-4000-8000-000000000006' }), 'NOT_FOUND', 'Document not found');
    });
  });

  describe('createReport', () => {
    it('writes a report linked to an approved proposal; events document created + idea updated per input idea', async () => {
      const p = await proposal('approved');
      const r = await documents.createReport(pm, { proposalUuid: p.uuid, title: 'Completion report', content: '## Summary\nDone' });
      expect(r).toMatchObject({ type: 'report', proposalUuid: p.uuid, projectUuid, version: 1, title: 'Completion report', content: '## Summary\nDone' });
      expect(world.h.takeEvents()).toEqual([ev('document', r.uuid, 'created'), ev('idea', p.idea.uuid, 'updated')]);
      expect((await f.activities(r.uuid)).map((a) => [a.action, a.targetType])).toEqual([['report_created', 'document']]);

      await refusedUnchanged(
        () => documents.createReport(pm, { proposalUuid: p.uuid, title: 'Again', content: 'x' }),
        'CONFLICT',
        'A report already exists for this proposal; pass force=true to add another',
      );
      const forced = await documents.createReport(pm, { proposalUuid: p.uuid, title: 'Again', content: 'x', force: true });
      expect(forced.uuid).not.toBe(r.uuid);
      expect(await em().count(DocumentEntity, { where: { proposalUuid: p.uuid, type: 'report' } })).toBe(2);
      expect(world.h.takeEvents()).toEqual([ev('document', forced.uuid, 'created'), ev('idea', p.idea.uuid, 'updated')]);
    });

    it('serialises concurrent reports on the proposal row: without force only one is written', async () => {
      const p = await proposal('approved');
      const results = await Promise.allSettled([1, 2].map((n) => documents.createReport(pm, { proposalUuid: p.uuid, title: `R${n}`, content: 'x' })));
      expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason).toMatchObject({ code: 'CONFLICT' });
      expect(await em().count(DocumentEntity, { where: { proposalUuid: p.uuid, type: 'report' } })).toBe(1);
    });

    it('reports the input ideas that still exist; document inputs publish no idea events', async () => {
      const p = await proposal('approved');
      await em().delete(IdeaEntity, { uuid: p.idea.uuid });
      const r = await documents.createReport(pm, { proposalUuid: p.uuid, title: 'R', content: 'x' });
      expect(world.h.takeEvents()).toEqual([ev('document', r.uuid, 'created')]);

      const fromDoc = await proposal('approved');
      const input = await f.document(companyUuid, projectUuid, user);
      await em().update(ProposalEntity, { uuid: fromDoc.uuid }, { inputType: 'document', inputUuids: [input.uuid] });
      const r2 = await documents.createReport(pm, { proposalUuid: fromDoc.uuid, title: 'R', content: 'x' });
      expect(world.h.takeEvents()).toEqual([ev('document', r2.uuid, 'created')]);
    });

    it.each(['draft', 'pending', 'closed'] as const)('refuses a %s proposal with INVALID_STATE', async (status) => {
      const p = await proposal(status);
      await refusedUnchanged(() => documents.createReport(pm, { proposalUuid: p.uuid, title: 'R', content: 'x' }), 'INVALID_STATE', `Proposal is ${status}; create a report requires approved`);
    });

    it('refuses a missing proposal and blank content', async () => {
      const p = await proposal('approved');
      await refusedUnchanged(() => documents.createReport(pm, { proposalUuid: '00000000-0000-4000-8000-000000000007', title: 'R', content: 'x' }), 'NOT_FOUND', 'Proposal not found');
      await refusedUnchanged(() => documents.createReport(pm, { proposalUuid: p.uuid, title: 'R', content: '  ' }), 'VALIDATION_ERROR');
    });
  });
});
