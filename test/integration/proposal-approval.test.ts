import { In } from 'typeorm';
import type { MutationCommitted } from '../../src/shared/event-bus/events.js';
import type { Actor } from '../../src/shared/auth/actor.js';
import { DocumentService } from '../../src/modules/documents/index.js';
import { ProposalApprovalService, ProposalRevocationService, ProposalService } from '../../src/modules/proposals/index.js';
import { textsOf, userActor, World } from '../utils/world.js';
import { LONG_CONTENT, ProposalFactory, proposalIn, refusedUnchanged, type SeededProposalStatus, refused } from '../factories/proposal.factory.js';
import { AcceptanceCriterionEntity, CommentEntity, DocumentEntity, SessionTaskCheckinEntity, TaskDependencyEntity, TaskEntity, ProposalEntity } from '../../src/entities.js';

describe('proposal approval', () => {
  const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

  describe('proposal approval and revocation (docs/domain.md §5.3, §5.4)', () => {
    let world: World;
    let f: ProposalFactory;
    let proposals: ProposalService;
    let approval: ProposalApprovalService;
    let revocation: ProposalRevocationService;
    let documents: DocumentService;
    let companyUuid: string;
    /** A user; pm (pm_agent) and admin (admin_agent) are its agents, otherPm (pm_agent) a second user's. */
    let user: Actor;
    let pm: Actor;
    let admin: Actor;
    let otherPm: Actor;
    let projectUuid: string;
    const committed: MutationCommitted[] = [];

    beforeAll(async () => {
      world = await World.database();
      f = new ProposalFactory(world.ds);
      proposals = world.get(ProposalService);
      approval = world.get(ProposalApprovalService);
      revocation = world.get(ProposalRevocationService);
      documents = world.get(DocumentService);
      companyUuid = (await world.company()).uuid;
      const u = await world.user(companyUuid);
      const u2 = await world.user(companyUuid);
      user = userActor(u);
      pm = (await world.agent(companyUuid, u.uuid, { preset: 'pm_agent', name: 'PM' })).actor;
      admin = (await world.agent(companyUuid, u.uuid, { preset: 'admin_agent', name: 'Admin' })).actor;
      otherPm = (await world.agent(companyUuid, u2.uuid, { preset: 'pm_agent', name: 'Other PM' })).actor;
      projectUuid = await world.project(user);
      world.h.onCommitted((m) => {
        committed.push(m);
      });
    });
    afterAll(() => world.close());

    const em = () => world.ds.manager;
    const ev = (entityType: string, entityUuid: string, action: string) => ({ companyUuid, projectUuid, entityType, entityUuid, action });
    /** A proposal by `author` (default the pm agent) in the project, driven to `status` (the admin agent approves it). */
    const proposal = (status: SeededProposalStatus, author: Actor = pm) => proposalIn(world, status, { author, reviewer: admin, projectUuid });

    describe('approve: pending → approved', () => {
      it('materialises documents and tasks with criteria and dependencies in one transaction; exactly 1 + N events', async () => {
        const p = await proposal('pending');
        committed.length = 0;
        const r = await approval.approve(admin, { proposalUuid: p.uuid, reviewNote: ' Ship it ' });

        expect(r.proposal).toMatchObject({
          uuid: p.uuid,
          status: 'approved',
          reviewedBy: { type: 'agent', uuid: admin.uuid, name: admin.name },
          reviewNote: 'Ship it',
          reviewedAt: expect.stringMatching(ISO),
          section: 'basic',
          documentDraftCount: 2,
          taskDraftCount: 3,
        });
        const { a, b, c } = p.taskDrafts;
        expect(r.materializedTasks).toEqual([
          { draftUuid: a, taskUuid: expect.any(String), title: 'Task A' },
          { draftUuid: b, taskUuid: expect.any(String), title: 'Task B' },
          { draftUuid: c, taskUuid: expect.any(String), title: 'Task C' },
        ]);
        expect(r.materializedDocuments).toEqual([
          { draftUuid: p.docDrafts[0], documentUuid: expect.any(String), title: 'Design' },
          { draftUuid: p.docDrafts[1], documentUuid: expect.any(String), title: 'Requirements' },
        ]);
        const [ta, tb, tc] = r.materializedTasks.map((t) => t.taskUuid);

        const docs = await em().find(DocumentEntity, { where: { proposalUuid: p.uuid }, order: { title: 'ASC' } });
        expect(docs.map((d) => [d.uuid, d.type, d.title, d.content, d.version, d.projectUuid, d.createdByType, d.createdByUuid])).toEqual([
          [r.materializedDocuments[0].documentUuid, 'tech_design', 'Design', LONG_CONTENT, 1, projectUuid, 'agent', pm.uuid],
          [r.materializedDocuments[1].documentUuid, 'prd', 'Requirements', LONG_CONTENT, 1, projectUuid, 'agent', pm.uuid],
        ]);

        const tasks = await em().find(TaskEntity, { where: { proposalUuid: p.uuid } });
        const byUuid = new Map(tasks.map((t) => [t.uuid, t]));
        expect([ta, tb, tc].map((u) => byUuid.get(u)).map((t) => t && [t.title, t.status, t.priority, t.storyPoints, t.assigneeUuid, t.createdByType, t.createdByUuid, t.projectUuid])).toEqual([
          ['Task A', 'open', 'high', 3, null, 'agent', pm.uuid, projectUuid],
          ['Task B', 'open', 'medium', 5, null, 'agent', pm.uuid, projectUuid],
          ['Task C', 'open', 'low', 1, null, 'agent', pm.uuid, projectUuid],
        ]);
        expect(byUuid.get(ta)!.description).toContain('First');
        // Distinct creation times keep the drafts' order in createdAt listings.
        expect((await em().find(TaskEntity, { where: { proposalUuid: p.uuid }, order: { createdAt: 'ASC' } })).map((t) => t.title)).toEqual(['Task A', 'Task B', 'Task C']);

        const criteria = await em().find(AcceptanceCriterionEntity, { where: { taskUuid: In([ta, tc]) }, order: { taskUuid: 'ASC', sortOrder: 'ASC' } });
        const of = (task: string) => criteria.filter((x) => x.taskUuid === task).map((x) => [x.description, x.required, x.sortOrder, x.status, x.devStatus]);
        expect(of(ta)).toEqual([
          ['A1', true, 0, 'pending', 'pending'],
          ['A2', false, 1, 'pending', 'pending'],
        ]);
        expect(of(tc)).toEqual([
          ['C1', true, 0, 'pending', 'pending'],
          ['C2', true, 1, 'pending', 'pending'],
        ]);

        const edges = await em().find(TaskDependencyEntity, { where: { taskUuid: In([ta, tb, tc]) } });
        expect(edges.map((e) => `${e.taskUuid}->${e.dependsOnUuid}`).sort()).toEqual([`${tb}->${ta}`, `${tc}->${ta}`, `${tc}->${tb}`].sort());

        expect(world.h.takeEvents()).toEqual([ev('proposal', p.uuid, 'updated'), ev('task', ta, 'created'), ev('task', tb, 'created'), ev('task', tc, 'created')]);
        expect((await f.activities(p.uuid)).at(-1)).toMatchObject({ action: 'approved', actorUuid: admin.uuid, value: { reviewNote: 'Ship it' } });
        expect((await f.activities(ta)).map((x) => x.action)).toEqual(['created']);

        // Task descriptions are handed to the mention pipeline as new texts.
        expect(committed).toHaveLength(1);
        expect(textsOf(committed[0])).toEqual([
          expect.objectContaining({ sourceType: 'task', sourceUuid: ta, entityType: 'task', entityUuid: ta, entityTitle: 'Task A', before: null, after: expect.stringContaining('@[Someone]') }),
          expect.objectContaining({ sourceUuid: tb, before: null, after: 'Second' }),
          expect.objectContaining({ sourceUuid: tc, before: null, after: 'Third' }),
        ]);

        // The drafts stay on the proposal as its record.
        const full = await proposals.get(user, { proposalUuid: p.uuid, section: 'full' });
        expect(full.taskDrafts!.map((t) => t.uuid)).toEqual([a, b, c]);
        expect(full.documentDrafts).toHaveLength(2);
      });

      it('a user approves without a note; the tasks keep the proposal creator', async () => {
        const p = await proposal('pending', user);
        const r = await approval.approve(user, { proposalUuid: p.uuid });
        expect(r.proposal).toMatchObject({ status: 'approved', reviewNote: null, reviewedBy: { type: 'user', uuid: user.uuid } });
        const tasks = await em().find(TaskEntity, { where: { proposalUuid: p.uuid } });
        expect(new Set(tasks.map((t) => t.createdByUuid))).toEqual(new Set([user.uuid]));
      });

      it('row-locks the proposal: a concurrent status change is waited for and then refuses the approval', async () => {
        const p = await proposal('pending');
        const other = world.ds.createQueryRunner();
        await other.connect();
        await other.startTransaction();
        await other.query('SELECT 1 FROM proposal WHERE uuid = $1 FOR UPDATE', [p.uuid]);
        const approving = approval.approve(admin, { proposalUuid: p.uuid }).then(
          () => null,
          (err: unknown) => err,
        );
        await new Promise((r) => setTimeout(r, 300));
        await other.query(`UPDATE proposal SET status = 'closed' WHERE uuid = $1`, [p.uuid]);
        await other.commitTransaction();
        await other.release();
        expect(await approving).toMatchObject({ code: 'INVALID_STATE', message: 'Proposal is closed; approve requires pending' });
        expect(await em().count(TaskEntity, { where: { proposalUuid: p.uuid } })).toBe(0);
        expect(world.h.takeEvents()).toEqual([]);
      });

      it('rolls back everything when a write fails midway', async () => {
        const p = await proposal('pending');
        // A task draft title the task table refuses (over 200 characters) fails the transaction after the documents.
        const row = (await f.proposalRow(p.uuid))!;
        row.taskDrafts[2].title = 'x'.repeat(201);
        await em().save(row);
        const before = await em().count(DocumentEntity);
        const tasksBefore = await em().count(TaskEntity);
        world.h.takeEvents();
        await expect(approval.approve(admin, { proposalUuid: p.uuid })).rejects.toBeDefined();
        expect((await f.proposalRow(p.uuid))!.status).toBe('pending');
        expect(await em().count(DocumentEntity)).toBe(before);
        expect(await em().count(TaskEntity)).toBe(tasksBefore);
        expect(world.h.takeEvents()).toEqual([]);
      });
    });

    describe('revoke: approved → draft', () => {
      async function approvedWithWork() {
        const p = await proposal('approved');
        const tasks = await em().find(TaskEntity, { where: { proposalUuid: p.uuid } });
        const byTitle = new Map(tasks.map((t) => [t.title, t]));
        const [ta, tb, tc] = ['Task A', 'Task B', 'Task C'].map((t) => byTitle.get(t)!);
        // B in progress with an open check-in; C to_verify with marks; an extra task of the proposal already closed.
        await em().update(TaskEntity, { uuid: tb.uuid }, { status: 'in_progress', assigneeType: 'agent', assigneeUuid: pm.uuid, assignedAt: new Date() });
        const session = await f.checkedInSession(pm, [tb.uuid]);
        await em().update(TaskEntity, { uuid: tc.uuid }, { status: 'to_verify', assigneeType: 'agent', assigneeUuid: pm.uuid, assignedAt: new Date() });
        await em().update(
          AcceptanceCriterionEntity,
          { taskUuid: tc.uuid },
          { devStatus: 'passed', devEvidence: 'ok', devMarkedByType: 'agent', devMarkedByUuid: pm.uuid, devMarkedAt: new Date(), status: 'passed', evidence: 'seen', markedByType: 'user', markedByUuid: user.uuid, markedAt: new Date() },
        );
        const alreadyClosed = await f.task(companyUuid, projectUuid, pm, { title: 'Old', status: 'closed', proposalUuid: p.uuid });
        // Outside tasks: X depends on A (edge removed); A depends on Y (kept).
        const x = await f.task(companyUuid, projectUuid, user, { title: 'Outside X' });
        const y = await f.task(companyUuid, projectUuid, user, { title: 'Outside Y' });
        await f.dependency(x.uuid, ta.uuid);
        await f.dependency(ta.uuid, y.uuid);
        const report = await documents.createReport(pm, { proposalUuid: p.uuid, title: 'Report', content: 'Done' });
        const docComment = await f.comment(companyUuid, 'document', report.uuid, user);
        const docs = await em().find(DocumentEntity, { where: { proposalUuid: p.uuid }, order: { createdAt: 'ASC', uuid: 'ASC' } });
        world.h.takeEvents();
        return { p, ta, tb, tc, alreadyClosed, x, y, session, docs, docComment };
      }

      it('closes the tasks through the transition check, unlinks outside tasks, deletes documents; events per change', async () => {
        const s = await approvedWithWork();
        const r = await revocation.revoke(pm, { proposalUuid: s.p.uuid, reviewNote: 'Wrong approach' });

        expect(r.proposal).toMatchObject({
          status: 'draft',
          reviewedBy: { type: 'agent', uuid: pm.uuid },
          reviewNote: 'Wrong approach',
          reviewedAt: expect.stringMatching(ISO),
        });
        const closedOrder = (await em().find(TaskEntity, { where: { uuid: In([s.ta.uuid, s.tb.uuid, s.tc.uuid]) }, order: { createdAt: 'ASC', uuid: 'ASC' } })).map((t) => ({ uuid: t.uuid, title: t.title }));
        expect(r.closedTasks).toEqual(closedOrder);
        expect(r.closedTasks.map((t) => t.title)).toEqual(['Task A', 'Task B', 'Task C']);
        expect(r.deletedDocuments).toEqual(s.docs.map((d) => ({ uuid: d.uuid, title: d.title })));
        expect(r.deletedDocuments).toHaveLength(3);

        const after = new Map((await em().find(TaskEntity, { where: { uuid: In([s.ta.uuid, s.tb.uuid, s.tc.uuid, s.alreadyClosed.uuid]) } })).map((t) => [t.uuid, t]));
        expect([s.ta, s.tb, s.tc, s.alreadyClosed].map((t) => after.get(t.uuid)!.status)).toEqual(['closed', 'closed', 'closed', 'closed']);
        // Closing keeps the assignee (only entering open clears it) and the proposal link.
        expect(after.get(s.tb.uuid)).toMatchObject({ assigneeUuid: pm.uuid, proposalUuid: s.p.uuid });
        // Leaving to_verify resets every mark.
        const marks = await f.criteria(s.tc.uuid);
        expect(marks.map((m) => [m.status, m.evidence, m.markedByUuid, m.markedAt, m.devStatus, m.devEvidence, m.devMarkedByUuid, m.devMarkedAt])).toEqual(
          marks.map(() => ['pending', null, null, null, 'pending', null, null, null]),
        );
        // Open check-ins are checked out.
        const checkin = await em().findOneByOrFail(SessionTaskCheckinEntity, { sessionUuid: s.session.uuid, taskUuid: s.tb.uuid });
        expect(checkin.checkoutAt).toBeInstanceOf(Date);
        // Outside edge onto the proposal's task removed; its own outgoing edge and internal edges kept.
        const edges = (await em().find(TaskDependencyEntity)).map((e) => `${e.taskUuid}->${e.dependsOnUuid}`);
        expect(edges).not.toContain(`${s.x.uuid}->${s.ta.uuid}`);
        expect(edges).toContain(`${s.ta.uuid}->${s.y.uuid}`);
        expect(edges).toContain(`${s.tb.uuid}->${s.ta.uuid}`);
        expect(edges).toContain(`${s.tc.uuid}->${s.tb.uuid}`);
        // Documents gone with their comments.
        expect(await em().count(DocumentEntity, { where: { uuid: In(s.docs.map((d) => d.uuid)) } })).toBe(0);
        expect(await em().findOneBy(CommentEntity, { uuid: s.docComment.uuid })).toBeNull();

        expect(world.h.takeEvents()).toEqual([
          ev('proposal', s.p.uuid, 'updated'),
          ...r.closedTasks.map((t) => ev('task', t.uuid, 'updated')),
          ev('task', s.x.uuid, 'updated'),
          ...s.docs.map((d) => ev('document', d.uuid, 'deleted')),
        ]);
        expect((await f.activities(s.p.uuid)).at(-1)).toMatchObject({ action: 'revoked', value: { reviewNote: 'Wrong approach' } });
        expect((await f.activities(s.tb.uuid)).at(-1)).toMatchObject({ action: 'closed', value: { from: 'in_progress', proposalUuid: s.p.uuid } });
        // Closed through the tasks module's one transition, with the revocation's own activity value (no session list).
        expect((await f.activities(s.tb.uuid)).at(-1)?.value).toEqual({ from: 'in_progress', proposalUuid: s.p.uuid, reason: 'proposal_revoked' });
        expect((await f.activities(s.x.uuid)).map((a) => a.action)).toEqual(['dependency_removed']);
        expect((await f.activities(s.alreadyClosed.uuid))).toEqual([]);
        expect((await f.activities(s.docs[2].uuid)).map((a) => a.action)).toEqual(['report_created', 'deleted']);
      });

      it('lets the proposal be edited, resubmitted and approved again, creating new tasks', async () => {
        const s = await approvedWithWork();
        await revocation.revoke(admin, { proposalUuid: s.p.uuid });
        await proposals.edit(pm, { proposalUuid: s.p.uuid, description: 'Second attempt' });
        await proposals.submit(pm, { proposalUuid: s.p.uuid });
        const again = await approval.approve(admin, { proposalUuid: s.p.uuid });
        expect(again.materializedTasks.map((t) => t.taskUuid)).not.toContain(s.ta.uuid);
        expect(await em().count(TaskEntity, { where: { proposalUuid: s.p.uuid, status: 'open' } })).toBe(3);
        expect(await em().count(TaskEntity, { where: { proposalUuid: s.p.uuid, status: 'closed' } })).toBe(4);
      });

      it('is open to the creator by identity rule and to users; refuses another agent without proposal:admin, changing nothing', async () => {
        const s = await approvedWithWork();
        const statuses = async () => (await em().find(TaskEntity, { where: { proposalUuid: s.p.uuid }, order: { uuid: 'ASC' } })).map((t) => t.status);
        const before = await statuses();
        await refusedUnchanged(
          world,
          s.p.uuid,
          () => revocation.revoke(otherPm, { proposalUuid: s.p.uuid }),
          'FORBIDDEN',
          "Only the proposal's creator or a holder of proposal:admin can revoke it",
        );
        expect(await statuses()).toEqual(before);
        expect(await em().count(DocumentEntity, { where: { proposalUuid: s.p.uuid } })).toBe(3);
        expect(await em().count(TaskDependencyEntity, { where: { taskUuid: s.x.uuid } })).toBe(1);
        await refusedUnchanged(world, s.p.uuid, () => revocation.revoke(pm, { proposalUuid: s.p.uuid, reviewNote: 'x'.repeat(2001) }), 'VALIDATION_ERROR');

        // The creator is the pm agent; its owner (a user) may revoke — and so may any user.
        await expect(revocation.revoke(user, { proposalUuid: s.p.uuid })).resolves.toMatchObject({ proposal: { status: 'draft', reviewNote: null } });

        const byUser = await proposal('approved', user);
        // The pm agent is owned by the creating user: the creator identity rule matches.
        await expect(revocation.revoke(pm, { proposalUuid: byUser.uuid })).resolves.toMatchObject({ proposal: { status: 'draft' } });
      });
    });
  });
});

describe('proposals across companies', () => {
  /** One company seen through one world's context: its services, a user, an admin agent of that user, a project. */
  interface Tenant {
    proposals: ProposalService;
    approval: ProposalApprovalService;
    revocation: ProposalRevocationService;
    documents: DocumentService;
    companyUuid: string;
    user: Actor;
    admin: Actor;
    projectUuid: string;
  }

  async function tenant(world: World): Promise<Tenant> {
    const companyUuid = (await world.company()).uuid;
    const u = await world.user(companyUuid);
    const user = userActor(u);
    return {
      proposals: world.get(ProposalService),
      approval: world.get(ProposalApprovalService),
      revocation: world.get(ProposalRevocationService),
      documents: world.get(DocumentService),
      companyUuid,
      user,
      admin: (await world.agent(companyUuid, u.uuid, { preset: 'admin_agent', name: 'Admin' })).actor,
      projectUuid: await world.project(user),
    };
  }

  /** Records of another company are NOT_FOUND for every read and write, exactly like missing ones. */
  describe('proposals and documents: tenant isolation', () => {
    let world: World;
    let other: World;
    let f: ProposalFactory;
    let a: Tenant;
    let b: Tenant;
    let owned: { draft: string; pending: string; approved: string; closed: string; draftDoc: string; taskDraft: string; idea: string; document: string };

    beforeAll(async () => {
      world = await World.database();
      f = new ProposalFactory(world.ds);
      a = await tenant(world);
      // B on a second compiled context over the same database: its own bus, so B's events never mix with A's.
      other = await World.over(world.ds);
      b = await tenant(other);
      // A's proposals are written by A's pm agent and reviewed by A's admin agent.
      const pm = (await world.agent(a.companyUuid, a.user.uuid, { preset: 'pm_agent', name: 'PM' })).actor;
      const seed = { author: pm, reviewer: a.admin, projectUuid: a.projectUuid };
      const draft = await proposalIn(world, 'draft', seed);
      owned = {
        draft: draft.uuid,
        pending: (await proposalIn(world, 'pending', seed)).uuid,
        approved: (await proposalIn(world, 'approved', seed)).uuid,
        closed: (await proposalIn(world, 'closed', seed)).uuid,
        draftDoc: draft.docDrafts[0],
        taskDraft: draft.taskDrafts.a,
        idea: draft.idea.uuid,
        document: (await f.document(a.companyUuid, a.projectUuid, a.user)).uuid,
      };
    });
    afterAll(async () => {
      await other.close();
      await world.close();
    });

    const snapshot = async () => ({
      proposals: await world.ds.manager.find(ProposalEntity, { where: { companyUuid: a.companyUuid }, order: { uuid: 'ASC' } }),
      documents: await world.ds.manager.find(DocumentEntity, { where: { companyUuid: a.companyUuid }, order: { uuid: 'ASC' } }),
      activities: await f.activityCount(),
    });

    // Callers of company B: a user (every permission) and an admin agent.
    const callers = () => [b.user, b.admin];

    const proposalCalls = (o: typeof owned): Array<[string, (t: Tenant, actor: Actor) => Promise<unknown>, string]> => [
      ['get', (t, x) => t.proposals.get(x, { proposalUuid: o.draft, section: 'full' }), 'Proposal not found'],
      ['list', (t, x) => t.proposals.list(x, { projectUuid: a.projectUuid }), 'Project not found'],
      ['validate', (t, x) => t.proposals.validate(x, { proposalUuid: o.draft }), 'Proposal not found'],
      ['edit', (t, x) => t.proposals.edit(x, { proposalUuid: o.draft, title: 'Hijack' }), 'Proposal not found'],
      ['delete', (t, x) => t.proposals.delete(x, { proposalUuid: o.draft }), 'Proposal not found'],
      ['delete closed', (t, x) => t.proposals.delete(x, { proposalUuid: o.closed }), 'Proposal not found'],
      ['addDocumentDraft', (t, x) => t.proposals.addDocumentDraft(x, { proposalUuid: o.draft, type: 'prd', title: 'X', content: '' }), 'Proposal not found'],
      ['updateDocumentDraft', (t, x) => t.proposals.updateDocumentDraft(x, { proposalUuid: o.draft, draftUuid: o.draftDoc, title: 'X' }), 'Proposal not found'],
      ['removeDocumentDraft', (t, x) => t.proposals.removeDocumentDraft(x, { proposalUuid: o.draft, draftUuid: o.draftDoc }), 'Proposal not found'],
      ['addTaskDraft', (t, x) => t.proposals.addTaskDraft(x, { proposalUuid: o.draft, title: 'X', acceptanceCriteriaItems: [{ description: 'x' }] }), 'Proposal not found'],
      ['updateTaskDraft', (t, x) => t.proposals.updateTaskDraft(x, { proposalUuid: o.draft, draftUuid: o.taskDraft, title: 'X' }), 'Proposal not found'],
      ['removeTaskDraft', (t, x) => t.proposals.removeTaskDraft(x, { proposalUuid: o.draft, draftUuid: o.taskDraft }), 'Proposal not found'],
      ['submit', (t, x) => t.proposals.submit(x, { proposalUuid: o.draft }), 'Proposal not found'],
      ['approve', (t, x) => t.approval.approve(x, { proposalUuid: o.pending }), 'Proposal not found'],
      ['reject', (t, x) => t.proposals.reject(x, { proposalUuid: o.pending, reviewNote: 'n' }), 'Proposal not found'],
      ['close', (t, x) => t.proposals.close(x, { proposalUuid: o.pending, reviewNote: 'n' }), 'Proposal not found'],
      ['revoke', (t, x) => t.revocation.revoke(x, { proposalUuid: o.approved }), 'Proposal not found'],
      ['create in their project', (t, x) => t.proposals.create(x, { projectUuid: a.projectUuid, title: 'X', inputType: 'idea', inputUuids: [o.idea] }), 'Project not found'],
      ['create over their idea', (t, x) => t.proposals.create(x, { projectUuid: t.projectUuid, title: 'X', inputType: 'idea', inputUuids: [o.idea] }), 'Input idea not found'],
      ['create over their document', (t, x) => t.proposals.create(x, { projectUuid: t.projectUuid, title: 'X', inputType: 'document', inputUuids: [o.document] }), 'Input document not found'],
    ];

    const documentCalls = (o: typeof owned): Array<[string, (t: Tenant, actor: Actor) => Promise<unknown>, string]> => [
      ['get document', (t, x) => t.documents.get(x, { documentUuid: o.document }), 'Document not found'],
      ['list documents', (t, x) => t.documents.list(x, { projectUuid: a.projectUuid }), 'Project not found'],
      ['create document in their project', (t, x) => t.documents.create(x, { projectUuid: a.projectUuid, type: 'prd', title: 'X' }), 'Project not found'],
      ['create document on their proposal', (t, x) => t.documents.create(x, { projectUuid: t.projectUuid, type: 'prd', title: 'X', proposalUuid: o.draft }), 'Proposal not found'],
      ['update document', (t, x) => t.documents.update(x, { documentUuid: o.document, content: 'X' }), 'Document not found'],
      ['delete document', (t, x) => t.documents.delete(x, { documentUuid: o.document }), 'Document not found'],
      ['create report', (t, x) => t.documents.createReport(x, { proposalUuid: o.approved, title: 'R', content: 'x', force: true }), 'Proposal not found'],
    ];

    it.each(['a user', 'an admin agent'])('every proposal and document operation by %s of another company is NOT_FOUND and changes nothing', async (kind) => {
      const actor = kind === 'a user' ? callers()[0] : callers()[1];
      const before = await snapshot();
      other.h.takeEvents();
      world.h.takeEvents();
      for (const [name, call, message] of [...proposalCalls(owned), ...documentCalls(owned)]) {
        const err = await refused(call(b, actor), 'NOT_FOUND', message).catch((e: unknown) => {
          throw new Error(`${name}: ${String(e)}`);
        });
        expect(err.code).toBe('NOT_FOUND');
      }
      expect(await snapshot()).toEqual(before);
      expect(other.h.takeEvents()).toEqual([]);
      expect(world.h.takeEvents()).toEqual([]);
    });

    it('the owner company still sees and changes its own records', async () => {
      await expect(a.proposals.get(a.user, { proposalUuid: owned.draft })).resolves.toMatchObject({ uuid: owned.draft });
      await expect(a.documents.get(a.user, { documentUuid: owned.document })).resolves.toMatchObject({ uuid: owned.document });
      const list = await a.proposals.list(a.user, { projectUuid: a.projectUuid });
      expect(list.total).toBe(4);
      const other = await b.proposals.list(b.user, { projectUuid: b.projectUuid });
      expect(other.total).toBe(0);
    });
  });
});
