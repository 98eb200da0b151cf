import type { Actor } from '../../src/shared/auth/actor.js';
import { ProposalApprovalService, ProposalRevocationService, ProposalService } from '../../src/modules/proposals/index.js';
import { userActor, World } from '../utils/world.js';
import { ProposalFactory, proposalIn, readyProposal, refused, refusedUnchanged, type SeededProposalStatus, LONG_CONTENT } from '../factories/proposal.factory.js';
import { CommentEntity, DocumentEntity, ProposalEntity, ReferenceEntity, TaskEntity, IdeaEntity } from '../../src/entities.js';

/**
 * One database for the file and the cast the `proposal drafts` and `proposal validation` blocks read (the lifecycle
 * block seeds worlds of its own): a company; `user`, a user of it whose pm agent `pm` writes the proposals; `otherPm`,
 * the pm agent of a second user of the company; a project of `user`.
 */
let world: World;
let f: ProposalFactory;
let proposals: ProposalService;
let companyUuid: string;
let user: Actor;
let pm: Actor;
let otherPm: Actor;
let projectUuid: string;

beforeAll(async () => {
  world = await World.database();
  f = new ProposalFactory(world.ds);
  proposals = world.get(ProposalService);
  companyUuid = (await world.company()).uuid;
  const u = await world.user(companyUuid);
  const u2 = await world.user(companyUuid);
  user = userActor(u);
  pm = (await world.agent(companyUuid, u.uuid, { preset: 'pm_agent', name: 'PM' })).actor;
  otherPm = (await world.agent(companyUuid, u2.uuid, { preset: 'pm_agent', name: 'Other PM' })).actor;
  projectUuid = await world.project(user);
});
afterAll(() => world.close());

describe('proposal lifecycle', () => {
  const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

  describe('proposal lifecycle (docs/domain.md §5.1)', () => {
    let world: World;
    let f: ProposalFactory;
    let proposals: ProposalService;
    let approval: ProposalApprovalService;
    let revocation: ProposalRevocationService;
    let companyUuid: string;
    /** A user; pm (pm_agent) and admin (admin_agent) are its agents; otherUser a second user and otherPm its pm agent. */
    let user: Actor;
    let pm: Actor;
    let admin: Actor;
    let otherUser: Actor;
    let otherPm: Actor;
    let projectUuid: string;

    beforeAll(async () => {
      world = await World.database();
      f = new ProposalFactory(world.ds);
      proposals = world.get(ProposalService);
      approval = world.get(ProposalApprovalService);
      revocation = world.get(ProposalRevocationService);
      companyUuid = (await world.company()).uuid;
      const u = await world.user(companyUuid);
      const u2 = await world.user(companyUuid);
      user = userActor(u);
      otherUser = userActor(u2);
      pm = (await world.agent(companyUuid, u.uuid, { preset: 'pm_agent', name: 'PM' })).actor;
      admin = (await world.agent(companyUuid, u.uuid, { preset: 'admin_agent', name: 'Admin' })).actor;
      otherPm = (await world.agent(companyUuid, u2.uuid, { preset: 'pm_agent', name: 'Other PM' })).actor;
      projectUuid = await world.project(user);
    });
    afterAll(() => world.close());

    const ev = (entityType: string, entityUuid: string, action: string) => ({ companyUuid, projectUuid, entityType, entityUuid, action });
    /** An idea of the project elaborated by `assignee` and assigned to it: a valid proposal input of `assignee`. */
    const ideaOf = (assignee: Actor, opts: { title?: string; isContainer?: boolean; projectUuid?: string } = {}) =>
      world.idea(assignee, opts.projectUuid ?? projectUuid, { state: 'elaborated', title: opts.title, isContainer: opts.isContainer });
    /** A proposal by `author` (default the pm agent) in the project, driven to `status` (the admin agent approves or closes it). */
    const proposal = (status: SeededProposalStatus, author: Actor = pm) => proposalIn(world, status, { author, reviewer: admin, projectUuid });

    describe('create', () => {
      it('creates an empty draft over ideas assigned to the caller, with references, one event and one activity', async () => {
        const idea = await ideaOf(pm);
        world.h.takeEvents();
        const r = await proposals.create(pm, {
          projectUuid,
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
          projectUuid,
          title: 'Checkout revamp',
          status: 'draft',
          inputType: 'idea',
          inputUuids: [idea.uuid],
          documentDraftCount: 0,
          taskDraftCount: 0,
          createdBy: { type: 'agent', uuid: pm.uuid, name: pm.name },
          reviewedBy: null,
          createdAt: expect.stringMatching(ISO),
          updatedAt: expect.stringMatching(ISO),
          description: 'Faster checkout',
          submittedAt: null,
          reviewNote: null,
          reviewedAt: null,
          references: [
            expect.objectContaining({ targetType: 'proposal', targetUuid: expect.any(String), type: 'docs', url: 'https://example.test/a', title: 'First', notes: null }),
            expect.objectContaining({ type: 'repo', url: 'http://example.test/b', title: 'Second', notes: 'n', createdBy: { type: 'agent', uuid: pm.uuid, name: pm.name } }),
          ],
          section: 'basic',
          documentDraftIndex: [],
          taskDraftIndex: [],
        });
        expect(r).not.toHaveProperty('warnings');
        expect(r.references[0].targetUuid).toBe(r.uuid);
        expect(await world.ds.manager.count(ReferenceEntity, { where: { targetType: 'proposal', targetUuid: r.uuid } })).toBe(2);
        expect(world.h.takeEvents()).toEqual([ev('proposal', r.uuid, 'created')]);
        expect((await f.activities(r.uuid)).map((a) => [a.action, a.actorType, a.actorUuid, a.targetType])).toEqual([['created', 'agent', pm.uuid, 'proposal']]);
      });

      it('applies the identity rule both ways: a user owns its agents’ ideas, an agent its owner’s', async () => {
        const ideaOfAgent = await ideaOf(pm);
        const byUser = await proposals.create(user, { projectUuid, title: 'By user', inputType: 'idea', inputUuids: [ideaOfAgent.uuid] });
        expect(byUser.createdBy).toEqual({ type: 'user', uuid: user.uuid, name: user.name });
        const ideaOfUser = await ideaOf(user);
        const byAgent = await proposals.create(pm, { projectUuid, title: 'By agent', inputType: 'idea', inputUuids: [ideaOfUser.uuid] });
        expect(byAgent.status).toBe('draft');
      });

      it('warns when an input idea already feeds another non-closed proposal, not when that one is closed', async () => {
        const idea = await ideaOf(pm, { title: 'Shared idea' });
        const first = await proposals.create(pm, { projectUuid, title: 'First', inputType: 'idea', inputUuids: [idea.uuid] });
        const second = await proposals.create(pm, { projectUuid, title: 'Second', inputType: 'idea', inputUuids: [idea.uuid] });
        expect(second.warnings).toEqual(['Idea "Shared idea" already feeds proposal "First" (draft)']);
        await world.ds.manager.update(ProposalEntity, { uuid: first.uuid }, { status: 'closed' });
        await world.ds.manager.update(ProposalEntity, { uuid: second.uuid }, { status: 'closed' });
        const third = await proposals.create(pm, { projectUuid, title: 'Third', inputType: 'idea', inputUuids: [idea.uuid] });
        expect(third).not.toHaveProperty('warnings');
      });

      it('accepts documents of the project as inputs', async () => {
        const doc = await f.document(companyUuid, projectUuid, user);
        const r = await proposals.create(pm, { projectUuid, title: 'From doc', inputType: 'document', inputUuids: [doc.uuid] });
        expect(r).toMatchObject({ inputType: 'document', inputUuids: [doc.uuid] });
      });

      it('refuses bad inputs with the exact codes and messages, creating nothing', async () => {
        const mine = await ideaOf(pm);
        const theme = await ideaOf(pm, { isContainer: true });
        const notMine = await ideaOf(otherPm);
        const unassigned = await world.idea(user, projectUuid);
        const elsewhere = await world.project(user);
        const ideaElsewhere = await ideaOf(pm, { projectUuid: elsewhere });
        const docElsewhere = await f.document(companyUuid, elsewhere, pm);
        const base = { projectUuid, title: 'T', inputType: 'idea' };
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
        const before = await world.ds.manager.count(ProposalEntity);
        const activities = await f.activityCount();
        world.h.takeEvents();
        for (const [override, code, message] of cases) {
          await refused(proposals.create(pm, { ...base, ...override } as never), code, message);
        }
        expect(await world.ds.manager.count(ProposalEntity)).toBe(before);
        expect(await f.activityCount()).toBe(activities);
        expect(world.h.takeEvents()).toEqual([]);
      });
    });

    describe('reads', () => {
      it('get renders each section: indexes for basic, full drafts for documents/tasks/full', async () => {
        const p = await readyProposal(world, pm, projectUuid);
        const basic = await proposals.get(user, { proposalUuid: p.uuid });
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

        const docs = await proposals.get(user, { proposalUuid: p.uuid, section: 'documents' });
        expect(docs.documentDrafts!.map((d) => Object.keys(d))).toEqual([
          ['uuid', 'type', 'title', 'content'],
          ['uuid', 'type', 'title', 'content'],
        ]);
        expect(docs).not.toHaveProperty('taskDrafts');
        expect(docs).not.toHaveProperty('documentDraftIndex');

        const tasks = await proposals.get(user, { proposalUuid: p.uuid, section: 'tasks' });
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

        const full = await proposals.get(user, { proposalUuid: p.uuid, section: 'full' });
        expect(full.documentDrafts).toHaveLength(2);
        expect(full.taskDrafts).toHaveLength(3);
        expect(full).not.toHaveProperty('taskDraftIndex');

        await refused(proposals.get(user, { proposalUuid: '00000000-0000-4000-8000-000000000001' }), 'NOT_FOUND', 'Proposal not found');
      });

      it('lists a project’s proposals newest first with status filter and paging', async () => {
        const project = await world.project(user);
        const made: string[] = [];
        for (let i = 0; i < 3; i++) {
          const idea = await ideaOf(pm, { projectUuid: project });
          made.push((await proposals.create(pm, { projectUuid: project, title: `P${i}`, inputType: 'idea', inputUuids: [idea.uuid] })).uuid);
        }
        await world.ds.manager.update(ProposalEntity, { uuid: made[1] }, { status: 'closed' });
        const all = await proposals.list(user, { projectUuid: project });
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
        const closed = await proposals.list(user, { projectUuid: project, status: 'closed' });
        expect(closed.proposals.map((p) => p.uuid)).toEqual([made[1]]);
        expect(closed.total).toBe(1);
        const page2 = await proposals.list(user, { projectUuid: project, page: 2, pageSize: 2 });
        expect(page2).toMatchObject({ page: 2, pageSize: 2, total: 3 });
        expect(page2.proposals.map((p) => p.uuid)).toEqual([made[0]]);
        await refused(proposals.list(user, { projectUuid: project, pageSize: 101 }), 'VALIDATION_ERROR');
        await refused(proposals.list(user, { projectUuid: '00000000-0000-4000-8000-000000000002' }), 'NOT_FOUND', 'Project not found');
      });
    });

    describe('draft: edit title/description', () => {
      it('edits, records one activity and one event; an identical edit changes nothing', async () => {
        const p = await readyProposal(world, pm, projectUuid);
        const r = await proposals.edit(user, { proposalUuid: p.uuid, title: ' New title ', description: '' });
        expect(r).toMatchObject({ title: 'New title', description: '', status: 'draft' });
        expect(world.h.takeEvents()).toEqual([ev('proposal', p.uuid, 'updated')]);
        const acts = await f.activities(p.uuid);
        expect(acts.at(-1)).toMatchObject({ action: 'edited', value: { fields: ['title', 'description'] } });
        const count = await f.activityCount();
        await proposals.edit(user, { proposalUuid: p.uuid, title: 'New title' });
        expect(world.h.takeEvents()).toEqual([]);
        expect(await f.activityCount()).toBe(count);
        await refusedUnchanged(world, p.uuid, () => proposals.edit(user, { proposalUuid: p.uuid }), 'VALIDATION_ERROR', 'Nothing to update');
        await refusedUnchanged(world, p.uuid, () => proposals.edit(user, { proposalUuid: p.uuid, title: ' ' }), 'VALIDATION_ERROR', 'Title must not be blank');
      });
    });

    describe('draft → pending: submit', () => {
      it('submits a valid draft: submittedAt set, activity submitted, one event', async () => {
        const p = await readyProposal(world, pm, projectUuid);
        const r = await proposals.submit(pm, { proposalUuid: p.uuid });
        expect(r).toMatchObject({ status: 'pending', submittedAt: expect.stringMatching(ISO), reviewedBy: null, section: 'basic' });
        expect(world.h.takeEvents()).toEqual([ev('proposal', p.uuid, 'updated')]);
        expect((await f.activities(p.uuid)).at(-1)).toMatchObject({ action: 'submitted', actorType: 'agent', actorUuid: pm.uuid });
        expect((await f.proposalRow(p.uuid))!.submittedAt).toBeInstanceOf(Date);
      });

      it('refuses an invalid draft with PROPOSAL_INVALID and the issue list, changing nothing', async () => {
        const idea = await ideaOf(pm);
        const p = await proposals.create(pm, { projectUuid, title: 'Empty', inputType: 'idea', inputUuids: [idea.uuid] });
        const err = await refusedUnchanged(world, p.uuid, () => proposals.submit(pm, { proposalUuid: p.uuid }), 'PROPOSAL_INVALID', 'Proposal validation failed');
        expect((err.extra.issues as Array<{ id: string }>).map((i) => i.id)).toEqual(['E1', 'E3', 'W1', 'W4']);
      });
    });

    describe('pending → draft: reject', () => {
      it('sends the proposal back with reviewer, note and time; activity rejected', async () => {
        const p = await proposal('pending');
        const r = await proposals.reject(pm, { proposalUuid: p.uuid, reviewNote: '  Needs numbers ' });
        expect(r).toMatchObject({
          status: 'draft',
          reviewedBy: { type: 'agent', uuid: pm.uuid, name: pm.name },
          reviewNote: 'Needs numbers',
          reviewedAt: expect.stringMatching(ISO),
          submittedAt: expect.stringMatching(ISO),
        });
        expect(world.h.takeEvents()).toEqual([ev('proposal', p.uuid, 'updated')]);
        expect((await f.activities(p.uuid)).at(-1)).toMatchObject({ action: 'rejected', value: { reviewNote: 'Needs numbers' } });
      });

      it('lets the creator’s owner-side identity, a proposal:admin holder and a user reject', async () => {
        const byOwnerUser = await proposal('pending', user);
        // The pm agent is owned by the user who created the proposal: the creator identity rule matches.
        await expect(proposals.reject(pm, { proposalUuid: byOwnerUser.uuid, reviewNote: 'n' })).resolves.toMatchObject({ status: 'draft' });
        const p2 = await proposal('pending');
        await expect(proposals.reject(admin, { proposalUuid: p2.uuid, reviewNote: 'n' })).resolves.toMatchObject({ status: 'draft' });
        const p3 = await proposal('pending');
        await expect(proposals.reject(otherUser, { proposalUuid: p3.uuid, reviewNote: 'n' })).resolves.toMatchObject({ status: 'draft' });
      });

      it('refuses an agent that is neither creator nor proposal:admin, and a missing note', async () => {
        const p = await proposal('pending');
        await refusedUnchanged(
          world,
          p.uuid,
          () => proposals.reject(otherPm, { proposalUuid: p.uuid, reviewNote: 'no' }),
          'FORBIDDEN',
          "Only the proposal's creator or a holder of proposal:admin can reject it",
        );
        await refusedUnchanged(world, p.uuid, () => proposals.reject(pm, { proposalUuid: p.uuid, reviewNote: '  ' }), 'VALIDATION_ERROR', 'A review note is required');
        await refusedUnchanged(world, p.uuid, () => proposals.reject(pm, { proposalUuid: p.uuid, reviewNote: 'x'.repeat(2001) }), 'VALIDATION_ERROR');
      });
    });

    describe('pending → closed: close', () => {
      it('closes for good with a note; activity closed', async () => {
        const p = await proposal('pending');
        const r = await proposals.close(admin, { proposalUuid: p.uuid, reviewNote: 'Out of scope' });
        expect(r).toMatchObject({ status: 'closed', reviewNote: 'Out of scope', reviewedBy: { type: 'agent', uuid: admin.uuid, name: admin.name } });
        expect(world.h.takeEvents()).toEqual([ev('proposal', p.uuid, 'updated')]);
        expect((await f.activities(p.uuid)).at(-1)).toMatchObject({ action: 'closed' });
        await refusedUnchanged(world, p.uuid, () => proposals.submit(pm, { proposalUuid: p.uuid }), 'INVALID_STATE', 'Proposal is closed; submit requires draft');
      });

      it('requires a note', async () => {
        const p = await proposal('pending');
        await refusedUnchanged(world, p.uuid, () => proposals.close(admin, { proposalUuid: p.uuid, reviewNote: ' \n ' }), 'VALIDATION_ERROR', 'A review note is required');
      });
    });

    describe('draft, closed → removed: delete', () => {
      it.each(['draft', 'closed'] as const)('deletes a %s proposal with its comments and references, unlinking its documents and tasks', async (status) => {
        const p = await proposal(status);
        const task = await f.task(companyUuid, projectUuid, user, { proposalUuid: p.uuid });
        const doc = await f.document(companyUuid, projectUuid, user, { proposalUuid: p.uuid });
        const comment = await f.comment(companyUuid, 'proposal', p.uuid, user);
        const ref = await f.reference(companyUuid, 'proposal', p.uuid, user);
        const otherComment = await f.comment(companyUuid, 'task', task.uuid, user);
        world.h.takeEvents();
        expect(await proposals.delete(user, { proposalUuid: p.uuid })).toEqual({ uuid: p.uuid, deleted: true });
        const em = world.ds.manager;
        expect(await f.proposalRow(p.uuid)).toBeNull();
        expect(await em.findOneBy(CommentEntity, { uuid: comment.uuid })).toBeNull();
        expect(await em.findOneBy(ReferenceEntity, { uuid: ref.uuid })).toBeNull();
        expect(await em.findOneBy(CommentEntity, { uuid: otherComment.uuid })).not.toBeNull();
        expect((await em.findOneByOrFail(TaskEntity, { uuid: task.uuid })).proposalUuid).toBeNull();
        expect((await em.findOneByOrFail(DocumentEntity, { uuid: doc.uuid })).proposalUuid).toBeNull();
        expect(world.h.takeEvents()).toEqual([ev('proposal', p.uuid, 'deleted'), ev('task', task.uuid, 'updated'), ev('document', doc.uuid, 'updated')]);
        // Activities outlive their target.
        expect((await f.activities(p.uuid)).at(-1)).toMatchObject({ action: 'deleted', targetType: 'proposal' });
      });
    });

    describe('every other (state, trigger) is INVALID_STATE', () => {
      const statuses = ['draft', 'pending', 'approved', 'closed'] as const;
      const calls: Record<string, { allowed: readonly string[]; message: string; run: (uuid: string) => Promise<unknown> }> = {
        edit: { allowed: ['draft'], message: 'edit requires draft', run: (u) => proposals.edit(user, { proposalUuid: u, title: 'Changed' }) },
        addDocumentDraft: {
          allowed: ['draft'],
          message: 'add a document draft requires draft',
          run: (u) => proposals.addDocumentDraft(pm, { proposalUuid: u, type: 'prd', title: 'D', content: 'c' }),
        },
        addTaskDraft: {
          allowed: ['draft'],
          message: 'add a task draft requires draft',
          run: (u) => proposals.addTaskDraft(pm, { proposalUuid: u, title: 'T', acceptanceCriteriaItems: [{ description: 'x' }] }),
        },
        updateDocumentDraft: {
          allowed: ['draft'],
          message: 'update a document draft requires draft',
          run: async (u) => proposals.updateDocumentDraft(pm, { proposalUuid: u, draftUuid: (await f.proposalRow(u))!.documentDrafts[0].uuid, title: 'X' }),
        },
        updateTaskDraft: {
          allowed: ['draft'],
          message: 'update a task draft requires draft',
          run: async (u) => proposals.updateTaskDraft(pm, { proposalUuid: u, draftUuid: (await f.proposalRow(u))!.taskDrafts[0].uuid, title: 'X' }),
        },
        removeDocumentDraft: {
          allowed: ['draft'],
          message: 'remove a document draft requires draft',
          run: async (u) => proposals.removeDocumentDraft(pm, { proposalUuid: u, draftUuid: (await f.proposalRow(u))!.documentDrafts[0].uuid }),
        },
        removeTaskDraft: {
          allowed: ['draft'],
          message: 'remove a task draft requires draft',
          run: async (u) => proposals.removeTaskDraft(pm, { proposalUuid: u, draftUuid: (await f.proposalRow(u))!.taskDrafts[0].uuid }),
        },
        submit: { allowed: ['draft'], message: 'submit requires draft', run: (u) => proposals.submit(pm, { proposalUuid: u }) },
        approve: { allowed: ['pending'], message: 'approve requires pending', run: (u) => approval.approve(admin, { proposalUuid: u }) },
        reject: { allowed: ['pending'], message: 'reject requires pending', run: (u) => proposals.reject(pm, { proposalUuid: u, reviewNote: 'n' }) },
        close: { allowed: ['pending'], message: 'close requires pending', run: (u) => proposals.close(admin, { proposalUuid: u, reviewNote: 'n' }) },
        revoke: { allowed: ['approved'], message: 'revoke requires approved', run: (u) => revocation.revoke(pm, { proposalUuid: u }) },
        delete: { allowed: ['draft', 'closed'], message: 'delete requires draft or closed', run: (u) => proposals.delete(user, { proposalUuid: u }) },
      };
      const refusals = statuses.flatMap((s) => Object.entries(calls).filter(([, c]) => !c.allowed.includes(s)).map(([name, c]) => [s, name, c] as const));

      it.each(refusals.map(([s, name]) => [s, name]))('%s: %s is refused', async (status, name) => {
        const c = calls[name];
        const p = await proposal(status);
        await refusedUnchanged(world, p.uuid, () => c.run(p.uuid), 'INVALID_STATE', `Proposal is ${status}; ${c.message}`);
      });
    });

    it('reports NOT_FOUND for a missing proposal on every operation', async () => {
      const missing = '00000000-0000-4000-8000-0000000000aa';
      const ops: Array<() => Promise<unknown>> = [
        () => proposals.get(user, { proposalUuid: missing }),
        () => proposals.edit(user, { proposalUuid: missing, title: 'x' }),
        () => proposals.delete(user, { proposalUuid: missing }),
        () => proposals.validate(user, { proposalUuid: missing }),
        () => proposals.submit(user, { proposalUuid: missing }),
        () => proposals.reject(user, { proposalUuid: missing, reviewNote: 'n' }),
        () => proposals.close(user, { proposalUuid: missing, reviewNote: 'n' }),
        () => approval.approve(user, { proposalUuid: missing }),
        () => revocation.revoke(user, { proposalUuid: missing }),
        () => proposals.addDocumentDraft(user, { proposalUuid: missing, type: 'prd', title: 'd', content: '' }),
        () => proposals.removeTaskDraft(user, { proposalUuid: missing, draftUuid: missing }),
      ];
      for (const op of ops) await refused(op(), 'NOT_FOUND', 'Proposal not found');
      expect(world.h.takeEvents()).toEqual([]);
    });
  });
});

describe('proposal drafts (docs/tool-conventions.md §5.6)', () => {
  const updated = (uuid: string) => [{ companyUuid, projectUuid, entityType: 'proposal', entityUuid: uuid, action: 'updated' }];
  /** A ready proposal of the pm agent (readyProposal). */
  const ready = () => readyProposal(world, pm, projectUuid);

  async function emptyDraft(): Promise<string> {
    const idea = await world.idea(pm, projectUuid, { state: 'elaborated' });
    const p = await proposals.create(pm, { projectUuid, title: 'Drafts', inputType: 'idea', inputUuids: [idea.uuid] });
    world.h.takeEvents();
    return p.uuid;
  }

  describe('document drafts', () => {
    it('adds a draft: record plus draftUuid, one event, activity edited', async () => {
      const pu = await emptyDraft();
      const r = await proposals.addDocumentDraft(otherPm, { proposalUuid: pu, type: 'adr', title: ' Decision ', content: 'Body' });
      expect(r.draftUuid).toEqual(expect.any(String));
      expect(r.documentDraftIndex).toEqual([{ uuid: r.draftUuid, type: 'adr', title: 'Decision', contentLength: 4 }]);
      expect(r.documentDraftCount).toBe(1);
      expect(world.h.takeEvents()).toEqual(updated(pu));
      expect((await f.activities(pu)).at(-1)).toMatchObject({ action: 'edited', actorUuid: otherPm.uuid, value: { documentDraftAdded: r.draftUuid } });
      expect((await f.proposalRow(pu))!.documentDrafts).toEqual([{ uuid: r.draftUuid, type: 'adr', title: 'Decision', content: 'Body' }]);
    });

    it('refuses a 21st document draft and invalid fields', async () => {
      const pu = await emptyDraft();
      for (let i = 0; i < 20; i++) await proposals.addDocumentDraft(pm, { proposalUuid: pu, type: 'spec', title: `D${i}`, content: '' });
      await refusedUnchanged(
        world,
        pu,
        () => proposals.addDocumentDraft(pm, { proposalUuid: pu, type: 'spec', title: 'One too many', content: '' }),
        'VALIDATION_ERROR',
        'A proposal can have at most 20 document drafts',
      );
      await refusedUnchanged(world, pu, () => proposals.addDocumentDraft(pm, { proposalUuid: pu, type: 'prd', title: '', content: '' }), 'VALIDATION_ERROR');
      // A report type and too long content are the DTO's: src/modules/proposals/dto/proposal-draft.dto.spec.ts.
    });

    it('updates given fields only; an identical update publishes nothing; unknown draft is NOT_FOUND', async () => {
      const p = await ready();
      const [design, prd] = p.docDrafts;
      const r = await proposals.updateDocumentDraft(pm, { proposalUuid: p.uuid, draftUuid: prd, title: 'PRD v2', type: 'spec' });
      expect(r.documentDraftIndex![1]).toEqual({ uuid: prd, type: 'spec', title: 'PRD v2', contentLength: [...LONG_CONTENT].length });
      expect(r.documentDraftIndex![0].uuid).toBe(design);
      expect(world.h.takeEvents()).toEqual(updated(p.uuid));
      const count = await f.activityCount();
      await proposals.updateDocumentDraft(pm, { proposalUuid: p.uuid, draftUuid: prd, title: 'PRD v2' });
      expect(world.h.takeEvents()).toEqual([]);
      expect(await f.activityCount()).toBe(count);
      await refusedUnchanged(
        world,
        p.uuid,
        () => proposals.updateDocumentDraft(pm, { proposalUuid: p.uuid, draftUuid: p.taskDrafts.a, title: 'x' }),
        'NOT_FOUND',
        'Document draft not found',
      );
      await refusedUnchanged(world, p.uuid, () => proposals.updateDocumentDraft(pm, { proposalUuid: p.uuid, draftUuid: prd }), 'VALIDATION_ERROR', 'Nothing to update');
    });

    it('removes a draft; removing an absent draft succeeds unchanged with no event', async () => {
      const p = await ready();
      const r = await proposals.removeDocumentDraft(pm, { proposalUuid: p.uuid, draftUuid: p.docDrafts[0] });
      expect(r.documentDraftIndex!.map((d) => d.uuid)).toEqual([p.docDrafts[1]]);
      expect(world.h.takeEvents()).toEqual(updated(p.uuid));
      expect((await f.activities(p.uuid)).at(-1)).toMatchObject({ action: 'edited', value: { documentDraftRemoved: p.docDrafts[0] } });
      const before = await f.proposalRow(p.uuid);
      const count = await f.activityCount();
      const again = await proposals.removeDocumentDraft(pm, { proposalUuid: p.uuid, draftUuid: p.docDrafts[0] });
      expect(again.documentDraftCount).toBe(1);
      expect(await f.proposalRow(p.uuid)).toEqual(before);
      expect(await f.activityCount()).toBe(count);
      expect(world.h.takeEvents()).toEqual([]);
    });
  });

  describe('task drafts', () => {
    it('adds a draft with normalised criteria and sibling dependencies', async () => {
      const pu = await emptyDraft();
      const a = await proposals.addTaskDraft(pm, { proposalUuid: pu, title: 'A', acceptanceCriteriaItems: [{ description: ' one ' }, { description: '' }, { description: 'two', required: false }] });
      expect(world.h.takeEvents()).toEqual(updated(pu));
      expect((await f.activities(pu)).at(-1)).toMatchObject({ action: 'edited', value: { taskDraftAdded: a.draftUuid } });
      const b = await proposals.addTaskDraft(pm, {
        proposalUuid: pu,
        title: 'B',
        description: 'desc',
        priority: 'high',
        storyPoints: 2.5,
        acceptanceCriteriaItems: [{ description: 'x' }],
        dependsOnDraftUuids: [a.draftUuid, a.draftUuid],
      });
      expect(world.h.takeEvents()).toEqual(updated(pu));
      const full = await proposals.get(pm, { proposalUuid: pu, section: 'tasks' });
      expect(full.taskDrafts).toEqual([
        {
          uuid: a.draftUuid,
          title: 'A',
          description: '',
          priority: null,
          storyPoints: null,
          acceptanceCriteriaItems: [
            { description: 'one', required: true },
            { description: 'two', required: false },
          ],
          dependsOnDraftUuids: [],
        },
        {
          uuid: b.draftUuid,
          title: 'B',
          description: 'desc',
          priority: 'high',
          storyPoints: 2.5,
          acceptanceCriteriaItems: [{ description: 'x', required: true }],
          dependsOnDraftUuids: [a.draftUuid],
        },
      ]);
      expect(b.taskDraftIndex![1]).toEqual({ uuid: b.draftUuid, title: 'B', priority: 'high', storyPoints: 2.5, acceptanceCriteriaCount: 1, dependsOnDraftUuids: [a.draftUuid] });
    });

    it('refuses empty criteria, unknown dependencies, bad fields and a 101st draft', async () => {
      const pu = await emptyDraft();
      const add = (extra: Record<string, unknown>) => () => proposals.addTaskDraft(pm, { proposalUuid: pu, title: 'T', acceptanceCriteriaItems: [{ description: 'ok' }], ...extra });
      await refusedUnchanged(
        world,
        pu,
        add({ acceptanceCriteriaItems: [{ description: '  ' }] }),
        'VALIDATION_ERROR',
        'At least one acceptance criterion with a non-empty description is required',
      );
      await refusedUnchanged(world, pu, add({ acceptanceCriteriaItems: [] }), 'VALIDATION_ERROR', 'At least one acceptance criterion with a non-empty description is required');
      const ghost = '00000000-0000-4000-8000-0000000000ff';
      await refusedUnchanged(world, pu, add({ dependsOnDraftUuids: [ghost] }), 'VALIDATION_ERROR', `Unknown task draft ${ghost}`);
      await refusedUnchanged(world, pu, add({ title: '\t' }), 'VALIDATION_ERROR');
      for (let i = 0; i < 100; i++) await add({ title: `T${i}` })();
      await refusedUnchanged(world, pu, add({}), 'VALIDATION_ERROR', 'A proposal can have at most 100 task drafts');
    });

    it('updates a draft: given lists replace, null story points clear; self, unknown and cyclic dependencies are refused', async () => {
      const p = await ready();
      const { a, b, c } = p.taskDrafts;
      const r = await proposals.updateTaskDraft(pm, {
        proposalUuid: p.uuid,
        draftUuid: b,
        storyPoints: null,
        acceptanceCriteriaItems: [{ description: 'new' }],
        dependsOnDraftUuids: [],
      });
      expect(r.taskDraftIndex![1]).toEqual({ uuid: b, title: 'Task B', priority: null, storyPoints: null, acceptanceCriteriaCount: 1, dependsOnDraftUuids: [] });
      expect(world.h.takeEvents()).toEqual(updated(p.uuid));
      expect((await f.activities(p.uuid)).at(-1)).toMatchObject({ action: 'edited', value: { taskDraftUpdated: b } });

      await refusedUnchanged(world, p.uuid, () => proposals.updateTaskDraft(pm, { proposalUuid: p.uuid, draftUuid: a, dependsOnDraftUuids: [a] }), 'VALIDATION_ERROR', 'A task draft cannot depend on itself');
      const ghost = '00000000-0000-4000-8000-0000000000fe';
      await refusedUnchanged(world, p.uuid, () => proposals.updateTaskDraft(pm, { proposalUuid: p.uuid, draftUuid: a, dependsOnDraftUuids: [ghost] }), 'VALIDATION_ERROR', `Unknown task draft ${ghost}`);
      // c depends on a: a depending on c closes a cycle.
      await refusedUnchanged(world, p.uuid, () => proposals.updateTaskDraft(pm, { proposalUuid: p.uuid, draftUuid: a, dependsOnDraftUuids: [c] }), 'VALIDATION_ERROR', 'Draft dependencies would create a cycle');
      await refusedUnchanged(world, p.uuid, () => proposals.updateTaskDraft(pm, { proposalUuid: p.uuid, draftUuid: a, acceptanceCriteriaItems: [{ description: ' ' }] }), 'VALIDATION_ERROR', 'At least one acceptance criterion with a non-empty description is required');
      await refusedUnchanged(world, p.uuid, () => proposals.updateTaskDraft(pm, { proposalUuid: p.uuid, draftUuid: p.docDrafts[0], title: 'x' }), 'NOT_FOUND', 'Task draft not found');
      await refusedUnchanged(world, p.uuid, () => proposals.updateTaskDraft(pm, { proposalUuid: p.uuid, draftUuid: a }), 'VALIDATION_ERROR', 'Nothing to update');
      // A dependency in the allowed direction is fine.
      const ok = await proposals.updateTaskDraft(pm, { proposalUuid: p.uuid, draftUuid: b, dependsOnDraftUuids: [a] });
      expect(ok.taskDraftIndex![1].dependsOnDraftUuids).toEqual([a]);
    });

    it('removes a draft and strips it from siblings’ dependencies; absent draft succeeds unchanged', async () => {
      const p = await ready();
      const { a, b, c } = p.taskDrafts;
      const r = await proposals.removeTaskDraft(pm, { proposalUuid: p.uuid, draftUuid: a });
      expect(r.taskDraftIndex!.map((t) => [t.uuid, t.dependsOnDraftUuids])).toEqual([
        [b, []],
        [c, [b]],
      ]);
      expect(world.h.takeEvents()).toEqual(updated(p.uuid));
      const before = await f.proposalRow(p.uuid);
      const count = await f.activityCount();
      const again = await proposals.removeTaskDraft(pm, { proposalUuid: p.uuid, draftUuid: a });
      expect(again.taskDraftCount).toBe(2);
      expect(await f.proposalRow(p.uuid)).toEqual(before);
      expect(await f.activityCount()).toBe(count);
      expect(world.h.takeEvents()).toEqual([]);
    });
  });

  it('lets any holder edit drafts (no identity rule on drafts)', async () => {
    const p = await ready();
    await expect(proposals.addDocumentDraft(otherPm, { proposalUuid: p.uuid, type: 'guide', title: 'Guide', content: '' })).resolves.toMatchObject({ documentDraftCount: 3 });
    await refused(proposals.addDocumentDraft(otherPm, { proposalUuid: p.uuid, type: 'guide', title: '', content: '' }), 'VALIDATION_ERROR');
  });
});

/** docs/domain.md §5.2, rule by rule: what validate reports and whether submit refuses. */
describe('proposal validation (docs/domain.md §5.2)', () => {
  /** A ready proposal whose stored row is then changed directly (to reach states the draft tools never write). */
  async function proposalWith(change: (p: ProposalEntity) => void = () => undefined) {
    const ready = await readyProposal(world, pm, projectUuid);
    const row = (await f.proposalRow(ready.uuid))!;
    change(row);
    await world.ds.manager.save(row);
    return { ...ready, row };
  }

  const validate = (uuid: string) => proposals.validate(user, { proposalUuid: uuid });
  const ids = async (uuid: string) => (await validate(uuid)).issues.map((i) => i.id);

  async function expectSubmitRefused(uuid: string, id: string) {
    const err = await refusedUnchanged(world, uuid, () => proposals.submit(pm, { proposalUuid: uuid }), 'PROPOSAL_INVALID', 'Proposal validation failed');
    expect((err.extra.issues as Array<{ id: string }>).map((i) => i.id)).toContain(id);
    expect(err.extra.issues).toEqual((await validate(uuid)).issues);
  }

  it('a ready proposal is valid; infos and warnings do not block submission', async () => {
    const p = await proposalWith();
    const r = await validate(p.uuid);
    expect(r).toEqual({
      valid: true,
      issues: [{ id: 'I1', level: 'info', message: 'Task draft "Task B" has no priority; medium will be used', field: 'taskDrafts[1]' }],
    });
    await expect(proposals.submit(pm, { proposalUuid: p.uuid })).resolves.toMatchObject({ status: 'pending' });
    // validate is a read: it works in any status and changes nothing.
    expect((await validate(p.uuid)).valid).toBe(true);
  });

  it('E1: at least one document draft', async () => {
    const p = await proposalWith((r) => (r.documentDrafts = []));
    expect((await validate(p.uuid)).issues.filter((i) => i.level === 'error')).toEqual([
      { id: 'E1', level: 'error', message: 'At least one document draft is required', field: 'documentDrafts' },
    ]);
    await expectSubmitRefused(p.uuid, 'E1');
  });

  it('E2: every document draft has at least 100 characters of content', async () => {
    const p = await proposalWith((r) => {
      r.documentDrafts[0].content = 'é'.repeat(100);
      r.documentDrafts[1].content = 'x'.repeat(99);
    });
    expect((await validate(p.uuid)).issues.filter((i) => i.level === 'error')).toEqual([
      { id: 'E2', level: 'error', message: 'Document draft "Requirements" needs at least 100 characters of content', field: 'documentDrafts[1]' },
    ]);
    await expectSubmitRefused(p.uuid, 'E2');
  });

  it('E3: at least one task draft', async () => {
    const p = await proposalWith((r) => (r.taskDrafts = []));
    expect(await ids(p.uuid)).toEqual(['E3']);
    await expectSubmitRefused(p.uuid, 'E3');
  });

  it('E4: inputs not empty and still in the project', async () => {
    const noInputs = await proposalWith((r) => (r.inputUuids = []));
    expect((await validate(noInputs.uuid)).issues).toContainEqual({ id: 'E4', level: 'error', message: 'The proposal has no inputs', field: 'inputUuids' });
    await expectSubmitRefused(noInputs.uuid, 'E4');

    const deleted = await proposalWith();
    await world.ds.manager.delete(IdeaEntity, { uuid: deleted.idea.uuid });
    expect((await validate(deleted.uuid)).issues).toContainEqual({
      id: 'E4',
      level: 'error',
      message: `Input idea ${deleted.idea.uuid} no longer exists in the project`,
      field: 'inputUuids[0]',
    });
    await expectSubmitRefused(deleted.uuid, 'E4');

    const moved = await proposalWith();
    const elsewhere = await world.project(user);
    await world.ds.manager.update(IdeaEntity, { uuid: moved.idea.uuid }, { projectUuid: elsewhere });
    expect(await ids(moved.uuid)).toContain('E4');

    const doc = await f.document(companyUuid, projectUuid, user);
    const fromDoc = await proposalWith((r) => {
      r.inputType = 'document';
      r.inputUuids = [doc.uuid];
    });
    expect((await validate(fromDoc.uuid)).valid).toBe(true);
    await world.ds.manager.delete(DocumentEntity, { uuid: doc.uuid });
    expect((await validate(fromDoc.uuid)).issues).toContainEqual(expect.objectContaining({ id: 'E4', message: `Input document ${doc.uuid} no longer exists in the project` }));
  });

  it('E5: input ideas are resolved and not themes', async () => {
    const unresolved = await proposalWith();
    await world.ds.manager.update(IdeaEntity, { uuid: unresolved.idea.uuid }, { status: 'elaborating', elaborationStatus: 'validating' });
    expect((await validate(unresolved.uuid)).issues.filter((i) => i.level === 'error')).toEqual([
      { id: 'E5', level: 'error', message: `Input idea "${unresolved.idea.title}" is not resolved`, field: 'inputUuids[0]' },
    ]);
    await expectSubmitRefused(unresolved.uuid, 'E5');

    const theme = await proposalWith();
    await world.ds.manager.update(IdeaEntity, { uuid: theme.idea.uuid }, { isContainer: true });
    expect((await validate(theme.uuid)).issues.filter((i) => i.level === 'error')).toEqual([
      { id: 'E5', level: 'error', message: `Input idea "${theme.idea.title}" is a theme; derive a child idea`, field: 'inputUuids[0]' },
    ]);
    await expectSubmitRefused(theme.uuid, 'E5');
  });

  it('E6: every task draft has a criterion with a non-blank description', async () => {
    const p = await proposalWith((r) => (r.taskDrafts[2].acceptanceCriteriaItems = [{ description: '   ', required: true }]));
    expect((await validate(p.uuid)).issues.filter((i) => i.level === 'error')).toEqual([
      { id: 'E6', level: 'error', message: 'Task draft "Task C" needs at least one acceptance criterion with a non-empty description', field: 'taskDrafts[2]' },
    ]);
    await expectSubmitRefused(p.uuid, 'E6');
  });

  it('E7: dependencies name other drafts of the proposal and form no cycle', async () => {
    const ghost = '00000000-0000-4000-8000-00000000beef';
    const unknown = await proposalWith((r) => r.taskDrafts[1].dependsOnDraftUuids.push(ghost));
    expect((await validate(unknown.uuid)).issues.filter((i) => i.level === 'error')).toEqual([
      { id: 'E7', level: 'error', message: `Task draft "Task B" depends on unknown task draft ${ghost}`, field: 'taskDrafts[1]' },
    ]);
    await expectSubmitRefused(unknown.uuid, 'E7');

    const self = await proposalWith((r) => r.taskDrafts[0].dependsOnDraftUuids.push(r.taskDrafts[0].uuid));
    expect((await validate(self.uuid)).issues.filter((i) => i.level === 'error')).toEqual([
      { id: 'E7', level: 'error', message: 'Task draft "Task A" depends on itself', field: 'taskDrafts[0]' },
    ]);
    await expectSubmitRefused(self.uuid, 'E7');

    // A depends on C while C depends on A (and B).
    const cycle = await proposalWith((r) => r.taskDrafts[0].dependsOnDraftUuids.push(r.taskDrafts[2].uuid));
    const errors = (await validate(cycle.uuid)).issues.filter((i) => i.level === 'error');
    expect(errors).toEqual([{ id: 'E7', level: 'error', message: expect.stringMatching(/^Task draft dependencies form a cycle: "Task A" -> "Task C"/), field: 'taskDrafts[0]' }]);
    await expectSubmitRefused(cycle.uuid, 'E7');
  });

  it('W1–W4 and I1–I2 are reported but never block', async () => {
    const p = await proposalWith((r) => {
      r.description = '  ';
      r.documentDrafts = r.documentDrafts.filter((d) => d.type !== 'tech_design');
      r.taskDrafts = r.taskDrafts.map((t) => ({ ...t, dependsOnDraftUuids: [] }));
      r.taskDrafts[0].description = ' ';
      r.taskDrafts[2].priority = null;
      r.taskDrafts[1].storyPoints = null;
    });
    const r = await validate(p.uuid);
    expect(r.valid).toBe(true);
    expect(r.issues).toEqual([
      { id: 'W1', level: 'warning', message: 'No document draft of type tech_design', field: 'documentDrafts' },
      { id: 'W2', level: 'warning', message: 'Task draft "Task A" has no description', field: 'taskDrafts[0]' },
      { id: 'W3', level: 'warning', message: 'No task draft declares a dependency', field: 'taskDrafts' },
      { id: 'W4', level: 'warning', message: 'The proposal description is empty', field: 'description' },
      { id: 'I1', level: 'info', message: 'Task draft "Task B" has no priority; medium will be used', field: 'taskDrafts[1]' },
      { id: 'I1', level: 'info', message: 'Task draft "Task C" has no priority; medium will be used', field: 'taskDrafts[2]' },
      { id: 'I2', level: 'info', message: 'Task draft "Task B" has no story points', field: 'taskDrafts[1]' },
    ]);
    await expect(proposals.submit(pm, { proposalUuid: p.uuid })).resolves.toMatchObject({ status: 'pending' });
  });

  it('W3 needs two or more task drafts', async () => {
    const p = await proposalWith((r) => (r.taskDrafts = [{ ...r.taskDrafts[0], dependsOnDraftUuids: [] }]));
    expect(await ids(p.uuid)).not.toContain('W3');
  });

  it('reports every error at once, errors before warnings before infos', async () => {
    const p = await proposalWith((r) => {
      r.documentDrafts = [];
      r.taskDrafts = [];
      r.inputUuids = [];
      r.description = '';
    });
    expect(await ids(p.uuid)).toEqual(['E1', 'E3', 'E4', 'W1', 'W4']);
  });
});
