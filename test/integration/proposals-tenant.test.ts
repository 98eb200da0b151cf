import type { Actor } from '../../src/shared/auth/actor.js';
import { DocumentService } from '../../src/modules/documents/index.js';
import { ProposalApprovalService, ProposalRevocationService, ProposalService } from '../../src/modules/proposals/index.js';
import { userActor, World } from '../utils/world.js';
import { ProposalFactory, proposalIn, refused } from '../factories/proposal.factory.js';
import { DocumentEntity, ProposalEntity } from '../../src/entities.js';

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
