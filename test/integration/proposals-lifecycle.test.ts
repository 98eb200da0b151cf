import type { TestDatabase } from '../utils/test-database.js';
import { World } from '../utils/world.js';
import { proposalIn, readyProposal, refused, refusedUnchanged, seedWorld, type ProposalWorld } from '../factories/proposal.factory.js';
import { CommentEntity, DocumentEntity, ProposalEntity, ReferenceEntity, TaskEntity } from '../../src/entities.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('proposal lifecycle (docs/domain.md §5.1)', () => {
  let world: World;
  let db: TestDatabase;
  let w: ProposalWorld;

  beforeAll(async () => {
    world = await World.database();
    db = world.db;
    w = await seedWorld(world);
  });
  afterAll(() => world.close());

  const ev = (entityType: string, entityUuid: string, action: string, projectUuid = w.project.uuid) => ({
    companyUuid: w.companyUuid,
    projectUuid,
    entityType,
    entityUuid,
    action,
  });

  describe('create', () => {
    it('creates an empty draft over ideas assigned to the caller, with references, one event and one activity', async () => {
      const idea = await w.f.idea(w.companyUuid, w.project.uuid, w.pm);
      w.h.takeEvents();
      const r = await w.proposals.create(w.pm, {
        projectUuid: w.project.uuid,
        title: '  Checkout revamp  ',
        description: 'Faster checkout',
        inputType: 'idea',
        inputUuids: [idea.uuid],
        references: [
          { type: 'docs', url: 'https://example.test/a', title: 'First' },
          { type: 'repo', url: 'http://example.test/b', title: 'Second', notes: 'n' },
        ],
      });
      expect(r).toEqual({
        uuid: expect.any(String),
        projectUuid: w.project.uuid,
        title: 'Checkout revamp',
        status: 'draft',
        inputType: 'idea',
        inputUuids: [idea.uuid],
        documentDraftCount: 0,
        taskDraftCount: 0,
        createdBy: { type: 'agent', uuid: w.pm.uuid, name: w.pm.name },
        reviewedBy: null,
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
        description: 'Faster checkout',
        submittedAt: null,
        reviewNote: null,
        reviewedAt: null,
        references: [
          expect.objectContaining({ targetType: 'proposal', targetUuid: expect.any(String), type: 'docs', url: 'https://example.test/a', title: 'First', notes: null }),
          expect.objectContaining({ type: 'repo', url: 'http://example.test/b', title: 'Second', notes: 'n', createdBy: { type: 'agent', uuid: w.pm.uuid, name: w.pm.name } }),
        ],
        section: 'basic',
        documentDraftIndex: [],
        taskDraftIndex: [],
      });
      expect(r).not.toHaveProperty('warnings');
      expect(r.references[0].targetUuid).toBe(r.uuid);
      expect(await db.dataSource.manager.count(ReferenceEntity, { where: { targetType: 'proposal', targetUuid: r.uuid } })).toBe(2);
      expect(w.h.takeEvents()).toEqual([ev('proposal', r.uuid, 'created')]);
      expect((await w.f.activities(r.uuid)).map((a) => [a.action, a.actorType, a.actorUuid, a.targetType])).toEqual([['created', 'agent', w.pm.uuid, 'proposal']]);
    });

    it('applies the identity rule both ways: a user owns its agents’ ideas, an agent its owner’s', async () => {
      const ideaOfAgent = await w.f.idea(w.companyUuid, w.project.uuid, w.pm);
      const byUser = await w.proposals.create(w.user, { projectUuid: w.project.uuid, title: 'By user', inputType: 'idea', inputUuids: [ideaOfAgent.uuid] });
      expect(byUser.createdBy).toEqual({ type: 'user', uuid: w.user.uuid, name: w.user.name });
      const ideaOfUser = await w.f.idea(w.companyUuid, w.project.uuid, w.user);
      const byAgent = await w.proposals.create(w.pm, { projectUuid: w.project.uuid, title: 'By agent', inputType: 'idea', inputUuids: [ideaOfUser.uuid] });
      expect(byAgent.status).toBe('draft');
    });

    it('warns when an input idea already feeds another non-closed proposal, not when that one is closed', async () => {
      const idea = await w.f.idea(w.companyUuid, w.project.uuid, w.pm, { title: 'Shared idea' });
      const first = await w.proposals.create(w.pm, { projectUuid: w.project.uuid, title: 'First', inputType: 'idea', inputUuids: [idea.uuid] });
      const second = await w.proposals.create(w.pm, { projectUuid: w.project.uuid, title: 'Second', inputType: 'idea', inputUuids: [idea.uuid] });
      expect(second.warnings).toEqual(['Idea "Shared idea" already feeds proposal "First" (draft)']);
      await db.dataSource.manager.update(ProposalEntity, { uuid: first.uuid }, { status: 'closed' });
      await db.dataSource.manager.update(ProposalEntity, { uuid: second.uuid }, { status: 'closed' });
      const third = await w.proposals.create(w.pm, { projectUuid: w.project.uuid, title: 'Third', inputType: 'idea', inputUuids: [idea.uuid] });
      expect(third).not.toHaveProperty('warnings');
    });

    it('accepts documents of the project as inputs', async () => {
      const doc = await w.f.document(w.companyUuid, w.project.uuid, w.user);
      const r = await w.proposals.create(w.pm, { projectUuid: w.project.uuid, title: 'From doc', inputType: 'document', inputUuids: [doc.uuid] });
      expect(r).toMatchObject({ inputType: 'document', inputUuids: [doc.uuid] });
    });

    it('refuses bad inputs with the exact codes and messages, creating nothing', async () => {
      const mine = await w.f.idea(w.companyUuid, w.project.uuid, w.pm);
      const theme = await w.f.idea(w.companyUuid, w.project.uuid, w.pm, { isContainer: true });
      const notMine = await w.f.idea(w.companyUuid, w.project.uuid, w.otherPm);
      const unassigned = await w.f.idea(w.companyUuid, w.project.uuid, null);
      const elsewhere = await w.f.project(w.companyUuid);
      const ideaElsewhere = await w.f.idea(w.companyUuid, elsewhere.uuid, w.pm);
      const docElsewhere = await w.f.document(w.companyUuid, elsewhere.uuid, w.pm);
      const base = { projectUuid: w.project.uuid, title: 'T', inputType: 'idea' };
      const missing = '00000000-0000-4000-8000-000000000099';
      // Shapes and sizes (input type, 1-20 inputs, 10 references) are the DTO's: src/modules/proposals/dto/proposal.dto.spec.ts.
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [{ projectUuid: missing, inputUuids: [mine.uuid] }, 'NOT_FOUND', 'Project not found'],
        [{ inputUuids: [mine.uuid, missing] }, 'NOT_FOUND', 'Input idea not found'],
        [{ inputUuids: [ideaElsewhere.uuid] }, 'NOT_FOUND', 'Input idea not found'],
        [{ inputType: 'document', inputUuids: [missing] }, 'NOT_FOUND', 'Input document not found'],
        [{ inputType: 'document', inputUuids: [docElsewhere.uuid] }, 'NOT_FOUND', 'Input document not found'],
        [{ inputUuids: [mine.uuid, theme.uuid] }, 'VALIDATION_ERROR', 'Container ideas cannot be proposal inputs; derive a child idea'],
        [{ inputUuids: [mine.uuid, notMine.uuid] }, 'FORBIDDEN', 'Input ideas must be assigned to you'],
        [{ inputUuids: [unassigned.uuid] }, 'FORBIDDEN', 'Input ideas must be assigned to you'],
        [{ inputUuids: [mine.uuid, mine.uuid] }, 'VALIDATION_ERROR', 'Input uuids must be distinct'],
        [{ title: '   ', inputUuids: [mine.uuid] }, 'VALIDATION_ERROR', 'Title must not be blank'],
        [{ title: 'x'.repeat(201), inputUuids: [mine.uuid] }, 'VALIDATION_ERROR', 'Title must be at most 200 characters'],
        [{ inputUuids: [mine.uuid], references: [{ type: 'docs', url: 'ftp://x', title: 'r' }] }, 'VALIDATION_ERROR', 'URL must start with http:// or https://'],
      ];
      const before = await db.dataSource.manager.count(ProposalEntity);
      const activities = await w.f.activityCount();
      w.h.takeEvents();
      for (const [override, code, message] of cases) {
        await refused(w.proposals.create(w.pm, { ...base, ...override } as never), code, message);
      }
      expect(await db.dataSource.manager.count(ProposalEntity)).toBe(before);
      expect(await w.f.activityCount()).toBe(activities);
      expect(w.h.takeEvents()).toEqual([]);
    });
  });

  describe('reads', () => {
    it('get renders each section: indexes for basic, full drafts for documents/tasks/full', async () => {
      const p = await readyProposal(w);
      const basic = await w.proposals.get(w.user, { proposalUuid: p.uuid });
      expect(basic.section).toBe('basic');
      expect(basic.documentDraftIndex).toEqual([
        { uuid: p.docDrafts[0], type: 'tech_design', title: 'Design', contentLength: expect.any(Number) },
        { uuid: p.docDrafts[1], type: 'prd', title: 'Requirements', contentLength: expect.any(Number) },
      ]);
      expect(basic.documentDraftIndex![0].contentLength).toBeGreaterThanOrEqual(100);
      expect(basic.taskDraftIndex).toEqual([
        { uuid: p.taskDrafts.a, title: 'Task A', priority: 'high', storyPoints: 3, acceptanceCriteriaCount: 2, dependsOnDraftUuids: [] },
        { uuid: p.taskDrafts.b, title: 'Task B', priority: null, storyPoints: 5, acceptanceCriteriaCount: 1, dependsOnDraftUuids: [p.taskDrafts.a] },
        { uuid: p.taskDrafts.c, title: 'Task C', priority: 'low', storyPoints: 1, acceptanceCriteriaCount: 2, dependsOnDraftUuids: [p.taskDrafts.a, p.taskDrafts.b] },
      ]);
      expect(basic).not.toHaveProperty('documentDrafts');
      expect(basic).not.toHaveProperty('taskDrafts');
      expect(basic).toMatchObject({ documentDraftCount: 2, taskDraftCount: 3 });

      const docs = await w.proposals.get(w.user, { proposalUuid: p.uuid, section: 'documents' });
      expect(docs.documentDrafts!.map((d) => Object.keys(d))).toEqual([
        ['uuid', 'type', 'title', 'content'],
        ['uuid', 'type', 'title', 'content'],
      ]);
      expect(docs).not.toHaveProperty('taskDrafts');
      expect(docs).not.toHaveProperty('documentDraftIndex');

      const tasks = await w.proposals.get(w.user, { proposalUuid: p.uuid, section: 'tasks' });
      expect(tasks.taskDrafts![0]).toEqual({
        uuid: p.taskDrafts.a,
        title: 'Task A',
        description: expect.stringContaining('First'),
        priority: 'high',
        storyPoints: 3,
        acceptanceCriteriaItems: [
          { description: 'A1', required: true },
          { description: 'A2', required: false },
        ],
        dependsOnDraftUuids: [],
      });
      expect(tasks).not.toHaveProperty('documentDrafts');

      const full = await w.proposals.get(w.user, { proposalUuid: p.uuid, section: 'full' });
      expect(full.documentDrafts).toHaveLength(2);
      expect(full.taskDrafts).toHaveLength(3);
      expect(full).not.toHaveProperty('taskDraftIndex');

      await refused(w.proposals.get(w.user, { proposalUuid: '00000000-0000-4000-8000-000000000001' }), 'NOT_FOUND', 'Proposal not found');
    });

    it('lists a project’s proposals newest first with status filter and paging', async () => {
      const project = await w.f.project(w.companyUuid);
      const made: string[] = [];
      for (let i = 0; i < 3; i++) {
        const idea = await w.f.idea(w.companyUuid, project.uuid, w.pm);
        made.push((await w.proposals.create(w.pm, { projectUuid: project.uuid, title: `P${i}`, inputType: 'idea', inputUuids: [idea.uuid] })).uuid);
      }
      await db.dataSource.manager.update(ProposalEntity, { uuid: made[1] }, { status: 'closed' });
      const all = await w.proposals.list(w.user, { projectUuid: project.uuid });
      expect(Object.keys(all)).toEqual(['proposals', 'page', 'pageSize', 'total']);
      expect(all).toMatchObject({ page: 1, pageSize: 20, total: 3 });
      // Exactly the list shape of docs/tool-conventions.md §1.2: no paging internals (offset) leak out.
      expect(Object.keys(all).sort()).toEqual(['page', 'pageSize', 'proposals', 'total']);
      expect(all.proposals.map((p) => p.uuid)).toEqual([made[2], made[1], made[0]]);
      expect(Object.keys(all.proposals[0])).toEqual([
        'uuid',
        'projectUuid',
        'title',
        'status',
        'inputType',
        'inputUuids',
        'documentDraftCount',
        'taskDraftCount',
        'createdBy',
        'reviewedBy',
        'createdAt',
        'updatedAt',
      ]);
      const closed = await w.proposals.list(w.user, { projectUuid: project.uuid, status: 'closed' });
      expect(closed.proposals.map((p) => p.uuid)).toEqual([made[1]]);
      expect(closed.total).toBe(1);
      const page2 = await w.proposals.list(w.user, { projectUuid: project.uuid, page: 2, pageSize: 2 });
      expect(page2).toMatchObject({ page: 2, pageSize: 2, total: 3 });
      expect(page2.proposals.map((p) => p.uuid)).toEqual([made[0]]);
      await refused(w.proposals.list(w.user, { projectUuid: project.uuid, pageSize: 101 }), 'VALIDATION_ERROR');
      await refused(w.proposals.list(w.user, { projectUuid: '00000000-0000-4000-8000-000000000002' }), 'NOT_FOUND', 'Project not found');
    });
  });

  describe('draft: edit title/description', () => {
    it('edits, records one activity and one event; an identical edit changes nothing', async () => {
      const p = await readyProposal(w);
      const r = await w.proposals.edit(w.user, { proposalUuid: p.uuid, title: ' New title ', description: '' });
      expect(r).toMatchObject({ title: 'New title', description: '', status: 'draft' });
      expect(w.h.takeEvents()).toEqual([ev('proposal', p.uuid, 'updated')]);
      const acts = await w.f.activities(p.uuid);
      expect(acts.at(-1)).toMatchObject({ action: 'edited', value: { fields: ['title', 'description'] } });
      const count = await w.f.activityCount();
      await w.proposals.edit(w.user, { proposalUuid: p.uuid, title: 'New title' });
      expect(w.h.takeEvents()).toEqual([]);
      expect(await w.f.activityCount()).toBe(count);
      await refusedUnchanged(w, p.uuid, () => w.proposals.edit(w.user, { proposalUuid: p.uuid }), 'VALIDATION_ERROR', 'Nothing to update');
      await refusedUnchanged(w, p.uuid, () => w.proposals.edit(w.user, { proposalUuid: p.uuid, title: ' ' }), 'VALIDATION_ERROR', 'Title must not be blank');
    });
  });

  describe('draft → pending: submit', () => {
    it('submits a valid draft: submittedAt set, activity submitted, one event', async () => {
      const p = await readyProposal(w);
      const r = await w.proposals.submit(w.pm, { proposalUuid: p.uuid });
      expect(r).toMatchObject({ status: 'pending', submittedAt: expect.stringMatching(ISO), reviewedBy: null, section: 'basic' });
      expect(w.h.takeEvents()).toEqual([ev('proposal', p.uuid, 'updated')]);
      expect((await w.f.activities(p.uuid)).at(-1)).toMatchObject({ action: 'submitted', actorType: 'agent', actorUuid: w.pm.uuid });
      expect((await w.f.proposalRow(p.uuid))!.submittedAt).toBeInstanceOf(Date);
    });

    it('refuses an invalid draft with PROPOSAL_INVALID and the issue list, changing nothing', async () => {
      const idea = await w.f.idea(w.companyUuid, w.project.uuid, w.pm);
      const p = await w.proposals.create(w.pm, { projectUuid: w.project.uuid, title: 'Empty', inputType: 'idea', inputUuids: [idea.uuid] });
      const err = await refusedUnchanged(w, p.uuid, () => w.proposals.submit(w.pm, { proposalUuid: p.uuid }), 'PROPOSAL_INVALID', 'Proposal validation failed');
      expect((err.extra.issues as Array<{ id: string }>).map((i) => i.id)).toEqual(['E1', 'E3', 'W1', 'W4']);
    });
  });

  describe('pending → draft: reject', () => {
    it('sends the proposal back with reviewer, note and time; activity rejected', async () => {
      const p = await proposalIn(w, 'pending');
      const r = await w.proposals.reject(w.pm, { proposalUuid: p.uuid, reviewNote: '  Needs numbers ' });
      expect(r).toMatchObject({
        status: 'draft',
        reviewedBy: { type: 'agent', uuid: w.pm.uuid, name: w.pm.name },
        reviewNote: 'Needs numbers',
        reviewedAt: expect.stringMatching(ISO),
        submittedAt: expect.stringMatching(ISO),
      });
      expect(w.h.takeEvents()).toEqual([ev('proposal', p.uuid, 'updated')]);
      expect((await w.f.activities(p.uuid)).at(-1)).toMatchObject({ action: 'rejected', value: { reviewNote: 'Needs numbers' } });
    });

    it('lets the creator’s owner-side identity, a proposal:admin holder and a user reject', async () => {
      const byOwnerUser = await proposalIn(w, 'pending', w.user);
      // The pm agent is owned by the user who created the proposal: the creator identity rule matches.
      await expect(w.proposals.reject(w.pm, { proposalUuid: byOwnerUser.uuid, reviewNote: 'n' })).resolves.toMatchObject({ status: 'draft' });
      const p2 = await proposalIn(w, 'pending');
      await expect(w.proposals.reject(w.admin, { proposalUuid: p2.uuid, reviewNote: 'n' })).resolves.toMatchObject({ status: 'draft' });
      const p3 = await proposalIn(w, 'pending');
      await expect(w.proposals.reject(w.otherUser, { proposalUuid: p3.uuid, reviewNote: 'n' })).resolves.toMatchObject({ status: 'draft' });
    });

    it('refuses an agent that is neither creator nor proposal:admin, and a missing note', async () => {
      const p = await proposalIn(w, 'pending');
      await refusedUnchanged(
        w,
        p.uuid,
        () => w.proposals.reject(w.otherPm, { proposalUuid: p.uuid, reviewNote: 'no' }),
        'FORBIDDEN',
        "Only the proposal's creator or a holder of proposal:admin can reject it",
      );
      await refusedUnchanged(w, p.uuid, () => w.proposals.reject(w.pm, { proposalUuid: p.uuid, reviewNote: '  ' }), 'VALIDATION_ERROR', 'A review note is required');
      await refusedUnchanged(w, p.uuid, () => w.proposals.reject(w.pm, { proposalUuid: p.uuid, reviewNote: 'x'.repeat(2001) }), 'VALIDATION_ERROR');
    });
  });

  describe('pending → closed: close', () => {
    it('closes for good with a note; activity closed', async () => {
      const p = await proposalIn(w, 'pending');
      const r = await w.proposals.close(w.admin, { proposalUuid: p.uuid, reviewNote: 'Out of scope' });
      expect(r).toMatchObject({ status: 'closed', reviewNote: 'Out of scope', reviewedBy: { type: 'agent', uuid: w.admin.uuid, name: w.admin.name } });
      expect(w.h.takeEvents()).toEqual([ev('proposal', p.uuid, 'updated')]);
      expect((await w.f.activities(p.uuid)).at(-1)).toMatchObject({ action: 'closed' });
      await refusedUnchanged(w, p.uuid, () => w.proposals.submit(w.pm, { proposalUuid: p.uuid }), 'INVALID_STATE', 'Proposal is closed; submit requires draft');
    });

    it('requires a note', async () => {
      const p = await proposalIn(w, 'pending');
      await refusedUnchanged(w, p.uuid, () => w.proposals.close(w.admin, { proposalUuid: p.uuid, reviewNote: ' \n ' }), 'VALIDATION_ERROR', 'A review note is required');
    });
  });

  describe('draft, closed → removed: delete', () => {
    it.each(['draft', 'closed'] as const)('deletes a %s proposal with its comments and references, unlinking its documents and tasks', async (status) => {
      const p = await proposalIn(w, status);
      const task = await w.f.task(w.companyUuid, w.project.uuid, w.user, { proposalUuid: p.uuid });
      const doc = await w.f.document(w.companyUuid, w.project.uuid, w.user, { proposalUuid: p.uuid });
      const comment = await w.f.comment(w.companyUuid, 'proposal', p.uuid, w.user);
      const ref = await w.f.reference(w.companyUuid, 'proposal', p.uuid, w.user);
      const otherComment = await w.f.comment(w.companyUuid, 'task', task.uuid, w.user);
      w.h.takeEvents();
      expect(await w.proposals.delete(w.user, { proposalUuid: p.uuid })).toEqual({ uuid: p.uuid, deleted: true });
      const em = db.dataSource.manager;
      expect(await w.f.proposalRow(p.uuid)).toBeNull();
      expect(await em.findOneBy(CommentEntity, { uuid: comment.uuid })).toBeNull();
      expect(await em.findOneBy(ReferenceEntity, { uuid: ref.uuid })).toBeNull();
      expect(await em.findOneBy(CommentEntity, { uuid: otherComment.uuid })).not.toBeNull();
      expect((await em.findOneByOrFail(TaskEntity, { uuid: task.uuid })).proposalUuid).toBeNull();
      expect((await em.findOneByOrFail(DocumentEntity, { uuid: doc.uuid })).proposalUuid).toBeNull();
      expect(w.h.takeEvents()).toEqual([ev('proposal', p.uuid, 'deleted'), ev('task', task.uuid, 'updated'), ev('document', doc.uuid, 'updated')]);
      // Activities outlive their target.
      expect((await w.f.activities(p.uuid)).at(-1)).toMatchObject({ action: 'deleted', targetType: 'proposal' });
    });
  });

  describe('every other (state, trigger) is INVALID_STATE', () => {
    const statuses = ['draft', 'pending', 'approved', 'closed'] as const;
    const calls: Record<string, { allowed: readonly string[]; message: string; run: (uuid: string, w: ProposalWorld) => Promise<unknown> }> = {
      edit: { allowed: ['draft'], message: 'edit requires draft', run: (u, w) => w.proposals.edit(w.user, { proposalUuid: u, title: 'Changed' }) },
      addDocumentDraft: {
        allowed: ['draft'],
        message: 'add a document draft requires draft',
        run: (u, w) => w.proposals.addDocumentDraft(w.pm, { proposalUuid: u, type: 'prd', title: 'D', content: 'c' }),
      },
      addTaskDraft: {
        allowed: ['draft'],
        message: 'add a task draft requires draft',
        run: (u, w) => w.proposals.addTaskDraft(w.pm, { proposalUuid: u, title: 'T', acceptanceCriteriaItems: [{ description: 'x' }] }),
      },
      updateDocumentDraft: {
        allowed: ['draft'],
        message: 'update a document draft requires draft',
        run: async (u, w) => w.proposals.updateDocumentDraft(w.pm, { proposalUuid: u, draftUuid: (await w.f.proposalRow(u))!.documentDrafts[0].uuid, title: 'X' }),
      },
      updateTaskDraft: {
        allowed: ['draft'],
        message: 'update a task draft requires draft',
        run: async (u, w) => w.proposals.updateTaskDraft(w.pm, { proposalUuid: u, draftUuid: (await w.f.proposalRow(u))!.taskDrafts[0].uuid, title: 'X' }),
      },
      removeDocumentDraft: {
        allowed: ['draft'],
        message: 'remove a document draft requires draft',
        run: async (u, w) => w.proposals.removeDocumentDraft(w.pm, { proposalUuid: u, draftUuid: (await w.f.proposalRow(u))!.documentDrafts[0].uuid }),
      },
      removeTaskDraft: {
        allowed: ['draft'],
        message: 'remove a task draft requires draft',
        run: async (u, w) => w.proposals.removeTaskDraft(w.pm, { proposalUuid: u, draftUuid: (await w.f.proposalRow(u))!.taskDrafts[0].uuid }),
      },
      submit: { allowed: ['draft'], message: 'submit requires draft', run: (u, w) => w.proposals.submit(w.pm, { proposalUuid: u }) },
      approve: { allowed: ['pending'], message: 'approve requires pending', run: (u, w) => w.approval.approve(w.admin, { proposalUuid: u }) },
      reject: { allowed: ['pending'], message: 'reject requires pending', run: (u, w) => w.proposals.reject(w.pm, { proposalUuid: u, reviewNote: 'n' }) },
      close: { allowed: ['pending'], message: 'close requires pending', run: (u, w) => w.proposals.close(w.admin, { proposalUuid: u, reviewNote: 'n' }) },
      revoke: { allowed: ['approved'], message: 'revoke requires approved', run: (u, w) => w.revocation.revoke(w.pm, { proposalUuid: u }) },
      delete: { allowed: ['draft', 'closed'], message: 'delete requires draft or closed', run: (u, w) => w.proposals.delete(w.user, { proposalUuid: u }) },
    };
    const refusals = statuses.flatMap((s) => Object.entries(calls).filter(([, c]) => !c.allowed.includes(s)).map(([name, c]) => [s, name, c] as const));

    it.each(refusals.map(([s, name]) => [s, name]))('%s: %s is refused', async (status, name) => {
      const c = calls[name];
      const p = await proposalIn(w, status);
      await refusedUnchanged(w, p.uuid, () => c.run(p.uuid, w), 'INVALID_STATE', `Proposal is ${status}; ${c.message}`);
    });
  });

  it('reports NOT_FOUND for a missing proposal on every operation', async () => {
    const missing = '00000000-0000-4000-8000-0000000000aa';
    const ops: Array<() => Promise<unknown>> = [
      () => w.proposals.get(w.user, { proposalUuid: missing }),
      () => w.proposals.edit(w.user, { proposalUuid: missing, title: 'x' }),
      () => w.proposals.delete(w.user, { proposalUuid: missing }),
      () => w.proposals.validate(w.user, { proposalUuid: missing }),
      () => w.proposals.submit(w.user, { proposalUuid: missing }),
      () => w.proposals.reject(w.user, { proposalUuid: missing, reviewNote: 'n' }),
      () => w.proposals.close(w.user, { proposalUuid: missing, reviewNote: 'n' }),
      () => w.approval.approve(w.user, { proposalUuid: missing }),
      () => w.revocation.revoke(w.user, { proposalUuid: missing }),
      () => w.proposals.addDocumentDraft(w.user, { proposalUuid: missing, type: 'prd', title: 'd', content: '' }),
      () => w.proposals.removeTaskDraft(w.user, { proposalUuid: missing, draftUuid: missing }),
    ];
    for (const op of ops) await refused(op(), 'NOT_FOUND', 'Proposal not found');
    expect(w.h.takeEvents()).toEqual([]);
  });
});
