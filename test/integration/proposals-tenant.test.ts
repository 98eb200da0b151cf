import type { TestDatabase } from '../utils/test-database.js';
import { World } from '../utils/world.js';
import { proposalIn, refused, seedWorld, type ProposalWorld } from '../factories/proposal.factory.js';
import { DocumentEntity, ProposalEntity } from '../../src/entities.js';

/** Records of another company are NOT_FOUND for every read and write, exactly like missing ones. */
describe('proposals and documents: tenant isolation', () => {
  let world: World;
  let other: World;
  let db: TestDatabase;
  let a: ProposalWorld;
  let b: ProposalWorld;
  let owned: { draft: string; pending: string; approved: string; closed: string; draftDoc: string; taskDraft: string; idea: string; document: string };

  beforeAll(async () => {
    world = await World.database();
    db = world.db;
    a = await seedWorld(world);
    // B's cast on a second compiled context over the same database: its own bus, so B's events never mix with A's.
    other = await World.over(world.ds);
    b = await seedWorld(other);
    const draft = await proposalIn(a, 'draft');
    owned = {
      draft: draft.uuid,
      pending: (await proposalIn(a, 'pending')).uuid,
      approved: (await proposalIn(a, 'approved')).uuid,
      closed: (await proposalIn(a, 'closed')).uuid,
      draftDoc: draft.docDrafts[0],
      taskDraft: draft.taskDrafts.a,
      idea: draft.idea.uuid,
      document: (await a.f.document(a.companyUuid, a.project.uuid, a.user)).uuid,
    };
  });
  afterAll(async () => {
    await other.close();
    await world.close();
  });

  const snapshot = async () => ({
    proposals: await db.dataSource.manager.find(ProposalEntity, { where: { companyUuid: a.companyUuid }, order: { uuid: 'ASC' } }),
    documents: await db.dataSource.manager.find(DocumentEntity, { where: { companyUuid: a.companyUuid }, order: { uuid: 'ASC' } }),
    activities: await a.f.activityCount(),
  });

  // Callers of company B: a user (every permission) and an admin agent.
  const callers = () => [b.user, b.admin];

  const proposalCalls = (o: typeof owned): Array<[string, (w: ProposalWorld, actor: ProposalWorld['user']) => Promise<unknown>, string]> => [
    ['get', (w, x) => w.proposals.get(x, { proposalUuid: o.draft, section: 'full' }), 'Proposal not found'],
    ['list', (w, x) => w.proposals.list(x, { projectUuid: a.project.uuid }), 'Project not found'],
    ['validate', (w, x) => w.proposals.validate(x, { proposalUuid: o.draft }), 'Proposal not found'],
    ['edit', (w, x) => w.proposals.edit(x, { proposalUuid: o.draft, title: 'Hijack' }), 'Proposal not found'],
    ['delete', (w, x) => w.proposals.delete(x, { proposalUuid: o.draft }), 'Proposal not found'],
    ['delete closed', (w, x) => w.proposals.delete(x, { proposalUuid: o.closed }), 'Proposal not found'],
    ['addDocumentDraft', (w, x) => w.proposals.addDocumentDraft(x, { proposalUuid: o.draft, type: 'prd', title: 'X', content: '' }), 'Proposal not found'],
    ['updateDocumentDraft', (w, x) => w.proposals.updateDocumentDraft(x, { proposalUuid: o.draft, draftUuid: o.draftDoc, title: 'X' }), 'Proposal not found'],
    ['removeDocumentDraft', (w, x) => w.proposals.removeDocumentDraft(x, { proposalUuid: o.draft, draftUuid: o.draftDoc }), 'Proposal not found'],
    ['addTaskDraft', (w, x) => w.proposals.addTaskDraft(x, { proposalUuid: o.draft, title: 'X', acceptanceCriteriaItems: [{ description: 'x' }] }), 'Proposal not found'],
    ['updateTaskDraft', (w, x) => w.proposals.updateTaskDraft(x, { proposalUuid: o.draft, draftUuid: o.taskDraft, title: 'X' }), 'Proposal not found'],
    ['removeTaskDraft', (w, x) => w.proposals.removeTaskDraft(x, { proposalUuid: o.draft, draftUuid: o.taskDraft }), 'Proposal not found'],
    ['submit', (w, x) => w.proposals.submit(x, { proposalUuid: o.draft }), 'Proposal not found'],
    ['approve', (w, x) => w.approval.approve(x, { proposalUuid: o.pending }), 'Proposal not found'],
    ['reject', (w, x) => w.proposals.reject(x, { proposalUuid: o.pending, reviewNote: 'n' }), 'Proposal not found'],
    ['close', (w, x) => w.proposals.close(x, { proposalUuid: o.pending, reviewNote: 'n' }), 'Proposal not found'],
    ['revoke', (w, x) => w.revocation.revoke(x, { proposalUuid: o.approved }), 'Proposal not found'],
    ['create in their project', (w, x) => w.proposals.create(x, { projectUuid: a.project.uuid, title: 'X', inputType: 'idea', inputUuids: [o.idea] }), 'Project not found'],
    ['create over their idea', (w, x) => w.proposals.create(x, { projectUuid: w.project.uuid, title: 'X', inputType: 'idea', inputUuids: [o.idea] }), 'Input idea not found'],
    ['create over their document', (w, x) => w.proposals.create(x, { projectUuid: w.project.uuid, title: 'X', inputType: 'document', inputUuids: [o.document] }), 'Input document not found'],
  ];

  const documentCalls = (o: typeof owned): Array<[string, (w: ProposalWorld, actor: ProposalWorld['user']) => Promise<unknown>, string]> => [
    ['get document', (w, x) => w.documents.get(x, { documentUuid: o.document }), 'Document not found'],
    ['list documents', (w, x) => w.documents.list(x, { projectUuid: a.project.uuid }), 'Project not found'],
    ['create document in their project', (w, x) => w.documents.create(x, { projectUuid: a.project.uuid, type: 'prd', title: 'X' }), 'Project not found'],
    ['create document on their proposal', (w, x) => w.documents.create(x, { projectUuid: w.project.uuid, type: 'prd', title: 'X', proposalUuid: o.draft }), 'Proposal not found'],
    ['update document', (w, x) => w.documents.update(x, { documentUuid: o.document, content: 'X' }), 'Document not found'],
    ['delete document', (w, x) => w.documents.delete(x, { documentUuid: o.document }), 'Document not found'],
    ['create report', (w, x) => w.documents.createReport(x, { proposalUuid: o.approved, title: 'R', content: 'x', force: true }), 'Proposal not found'],
  ];

  it.each(['a user', 'an admin agent'])('every proposal and document operation by %s of another company is NOT_FOUND and changes nothing', async (kind) => {
    const actor = kind === 'a user' ? callers()[0] : callers()[1];
    const before = await snapshot();
    b.h.takeEvents();
    a.h.takeEvents();
    for (const [name, call, message] of [...proposalCalls(owned), ...documentCalls(owned)]) {
      const err = await refused(call(b, actor), 'NOT_FOUND', message).catch((e: unknown) => {
        throw new Error(`${name}: ${String(e)}`);
      });
      expect(err.code).toBe('NOT_FOUND');
    }
    expect(await snapshot()).toEqual(before);
    expect(b.h.takeEvents()).toEqual([]);
    expect(a.h.takeEvents()).toEqual([]);
  });

  it('the owner company still sees and changes its own records', async () => {
    await expect(a.proposals.get(a.user, { proposalUuid: owned.draft })).resolves.toMatchObject({ uuid: owned.draft });
    await expect(a.documents.get(a.user, { documentUuid: owned.document })).resolves.toMatchObject({ uuid: owned.document });
    const list = await a.proposals.list(a.user, { projectUuid: a.project.uuid });
    expect(list.total).toBe(4);
    const other = await b.proposals.list(b.user, { projectUuid: b.project.uuid });
    expect(other.total).toBe(0);
  });
});
