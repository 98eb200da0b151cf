import { World } from '../utils/world.js';
import { LONG_CONTENT, readyProposal, refused, refusedUnchanged, seedWorld, type ProposalWorld } from '../factories/proposal.factory.js';

describe('proposal drafts (docs/tool-conventions.md §5.6)', () => {
  let world: World;
  let w: ProposalWorld;

  beforeAll(async () => {
    world = await World.database();
    w = await seedWorld(world);
  });
  afterAll(() => world.close());

  const updated = (uuid: string) => [{ companyUuid: w.companyUuid, projectUuid: w.project.uuid, entityType: 'proposal', entityUuid: uuid, action: 'updated' }];

  async function emptyDraft(): Promise<string> {
    const idea = await w.f.idea(w.companyUuid, w.project.uuid, w.pm);
    const p = await w.proposals.create(w.pm, { projectUuid: w.project.uuid, title: 'Drafts', inputType: 'idea', inputUuids: [idea.uuid] });
    w.h.takeEvents();
    return p.uuid;
  }

  describe('document drafts', () => {
    it('adds a draft: record plus draftUuid, one event, activity edited', async () => {
      const pu = await emptyDraft();
      const r = await w.proposals.addDocumentDraft(w.otherPm, { proposalUuid: pu, type: 'adr', title: ' Decision ', content: 'Body' });
      expect(r.draftUuid).toEqual(expect.any(String));
      expect(r.documentDraftIndex).toEqual([{ uuid: r.draftUuid, type: 'adr', title: 'Decision', contentLength: 4 }]);
      expect(r.documentDraftCount).toBe(1);
      expect(w.h.takeEvents()).toEqual(updated(pu));
      expect((await w.f.activities(pu)).at(-1)).toMatchObject({ action: 'edited', actorUuid: w.otherPm.uuid, value: { documentDraftAdded: r.draftUuid } });
      expect((await w.f.proposalRow(pu))!.documentDrafts).toEqual([{ uuid: r.draftUuid, type: 'adr', title: 'Decision', content: 'Body' }]);
    });

    it('refuses a 21st document draft and invalid fields', async () => {
      const pu = await emptyDraft();
      for (let i = 0; i < 20; i++) await w.proposals.addDocumentDraft(w.pm, { proposalUuid: pu, type: 'spec', title: `D${i}`, content: '' });
      await refusedUnchanged(
        w,
        pu,
        () => w.proposals.addDocumentDraft(w.pm, { proposalUuid: pu, type: 'spec', title: 'One too many', content: '' }),
        'VALIDATION_ERROR',
        'A proposal can have at most 20 document drafts',
      );
      await refusedUnchanged(w, pu, () => w.proposals.addDocumentDraft(w.pm, { proposalUuid: pu, type: 'prd', title: '', content: '' }), 'VALIDATION_ERROR');
      // A report type and too long content are the DTO's: src/modules/proposals/dto/proposal-draft.dto.spec.ts.
    });

    it('updates given fields only; an identical update publishes nothing; unknown draft is NOT_FOUND', async () => {
      const p = await readyProposal(w);
      const [design, prd] = p.docDrafts;
      const r = await w.proposals.updateDocumentDraft(w.pm, { proposalUuid: p.uuid, draftUuid: prd, title: 'PRD v2', type: 'spec' });
      expect(r.documentDraftIndex![1]).toEqual({ uuid: prd, type: 'spec', title: 'PRD v2', contentLength: [...LONG_CONTENT].length });
      expect(r.documentDraftIndex![0].uuid).toBe(design);
      expect(w.h.takeEvents()).toEqual(updated(p.uuid));
      const count = await w.f.activityCount();
      await w.proposals.updateDocumentDraft(w.pm, { proposalUuid: p.uuid, draftUuid: prd, title: 'PRD v2' });
      expect(w.h.takeEvents()).toEqual([]);
      expect(await w.f.activityCount()).toBe(count);
      await refusedUnchanged(
        w,
        p.uuid,
        () => w.proposals.updateDocumentDraft(w.pm, { proposalUuid: p.uuid, draftUuid: p.taskDrafts.a, title: 'x' }),
        'NOT_FOUND',
        'Document draft not found',
      );
      await refusedUnchanged(w, p.uuid, () => w.proposals.updateDocumentDraft(w.pm, { proposalUuid: p.uuid, draftUuid: prd }), 'VALIDATION_ERROR', 'Nothing to update');
    });

    it('removes a draft; removing an absent draft succeeds unchanged with no event', async () => {
      const p = await readyProposal(w);
      const r = await w.proposals.removeDocumentDraft(w.pm, { proposalUuid: p.uuid, draftUuid: p.docDrafts[0] });
      expect(r.documentDraftIndex!.map((d) => d.uuid)).toEqual([p.docDrafts[1]]);
      expect(w.h.takeEvents()).toEqual(updated(p.uuid));
      expect((await w.f.activities(p.uuid)).at(-1)).toMatchObject({ action: 'edited', value: { documentDraftRemoved: p.docDrafts[0] } });
      const before = await w.f.proposalRow(p.uuid);
      const count = await w.f.activityCount();
      const again = await w.proposals.removeDocumentDraft(w.pm, { proposalUuid: p.uuid, draftUuid: p.docDrafts[0] });
      expect(again.documentDraftCount).toBe(1);
      expect(await w.f.proposalRow(p.uuid)).toEqual(before);
      expect(await w.f.activityCount()).toBe(count);
      expect(w.h.takeEvents()).toEqual([]);
    });
  });

  describe('task drafts', () => {
    it('adds a draft with normalised criteria and sibling dependencies', async () => {
      const pu = await emptyDraft();
      const a = await w.proposals.addTaskDraft(w.pm, { proposalUuid: pu, title: 'A', acceptanceCriteriaItems: [{ description: ' one ' }, { description: '' }, { description: 'two', required: false }] });
      expect(w.h.takeEvents()).toEqual(updated(pu));
      expect((await w.f.activities(pu)).at(-1)).toMatchObject({ action: 'edited', value: { taskDraftAdded: a.draftUuid } });
      const b = await w.proposals.addTaskDraft(w.pm, {
        proposalUuid: pu,
        title: 'B',
        description: 'desc',
        priority: 'high',
        storyPoints: 2.5,
        acceptanceCriteriaItems: [{ description: 'x' }],
        dependsOnDraftUuids: [a.draftUuid, a.draftUuid],
      });
      expect(w.h.takeEvents()).toEqual(updated(pu));
      const full = await w.proposals.get(w.pm, { proposalUuid: pu, section: 'tasks' });
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
      const add = (extra: Record<string, unknown>) => () => w.proposals.addTaskDraft(w.pm, { proposalUuid: pu, title: 'T', acceptanceCriteriaItems: [{ description: 'ok' }], ...extra });
      await refusedUnchanged(
        w,
        pu,
        add({ acceptanceCriteriaItems: [{ description: '  ' }] }),
        'VALIDATION_ERROR',
        'At least one acceptance criterion with a non-empty description is required',
      );
      await refusedUnchanged(w, pu, add({ acceptanceCriteriaItems: [] }), 'VALIDATION_ERROR', 'At least one acceptance criterion with a non-empty description is required');
      const ghost = '00000000-0000-4000-8000-0000000000ff';
      await refusedUnchanged(w, pu, add({ dependsOnDraftUuids: [ghost] }), 'VALIDATION_ERROR', `Unknown task draft ${ghost}`);
      await refusedUnchanged(w, pu, add({ title: '\t' }), 'VALIDATION_ERROR');
      for (let i = 0; i < 100; i++) await add({ title: `T${i}` })();
      await refusedUnchanged(w, pu, add({}), 'VALIDATION_ERROR', 'A proposal can have at most 100 task drafts');
    });

    it('updates a draft: given lists replace, null story points clear; self, unknown and cyclic dependencies are refused', async () => {
      const p = await readyProposal(w);
      const { a, b, c } = p.taskDrafts;
      const r = await w.proposals.updateTaskDraft(w.pm, {
        proposalUuid: p.uuid,
        draftUuid: b,
        storyPoints: null,
        acceptanceCriteriaItems: [{ description: 'new' }],
        dependsOnDraftUuids: [],
      });
      expect(r.taskDraftIndex![1]).toEqual({ uuid: b, title: 'Task B', priority: null, storyPoints: null, acceptanceCriteriaCount: 1, dependsOnDraftUuids: [] });
      expect(w.h.takeEvents()).toEqual(updated(p.uuid));
      expect((await w.f.activities(p.uuid)).at(-1)).toMatchObject({ action: 'edited', value: { taskDraftUpdated: b } });

      await refusedUnchanged(w, p.uuid, () => w.proposals.updateTaskDraft(w.pm, { proposalUuid: p.uuid, draftUuid: a, dependsOnDraftUuids: [a] }), 'VALIDATION_ERROR', 'A task draft cannot depend on itself');
      const ghost = '00000000-0000-4000-8000-0000000000fe';
      await refusedUnchanged(w, p.uuid, () => w.proposals.updateTaskDraft(w.pm, { proposalUuid: p.uuid, draftUuid: a, dependsOnDraftUuids: [ghost] }), 'VALIDATION_ERROR', `Unknown task draft ${ghost}`);
      // c depends on a: a depending on c closes a cycle.
      await refusedUnchanged(w, p.uuid, () => w.proposals.updateTaskDraft(w.pm, { proposalUuid: p.uuid, draftUuid: a, dependsOnDraftUuids: [c] }), 'VALIDATION_ERROR', 'Draft dependencies would create a cycle');
      await refusedUnchanged(w, p.uuid, () => w.proposals.updateTaskDraft(w.pm, { proposalUuid: p.uuid, draftUuid: a, acceptanceCriteriaItems: [{ description: ' ' }] }), 'VALIDATION_ERROR', 'At least one acceptance criterion with a non-empty description is required');
      await refusedUnchanged(w, p.uuid, () => w.proposals.updateTaskDraft(w.pm, { proposalUuid: p.uuid, draftUuid: p.docDrafts[0], title: 'x' }), 'NOT_FOUND', 'Task draft not found');
      await refusedUnchanged(w, p.uuid, () => w.proposals.updateTaskDraft(w.pm, { proposalUuid: p.uuid, draftUuid: a }), 'VALIDATION_ERROR', 'Nothing to update');
      // A dependency in the allowed direction is fine.
      const ok = await w.proposals.updateTaskDraft(w.pm, { proposalUuid: p.uuid, draftUuid: b, dependsOnDraftUuids: [a] });
      expect(ok.taskDraftIndex![1].dependsOnDraftUuids).toEqual([a]);
    });

    it('removes a draft and strips it from siblings’ dependencies; absent draft succeeds unchanged', async () => {
      const p = await readyProposal(w);
      const { a, b, c } = p.taskDrafts;
      const r = await w.proposals.removeTaskDraft(w.pm, { proposalUuid: p.uuid, draftUuid: a });
      expect(r.taskDraftIndex!.map((t) => [t.uuid, t.dependsOnDraftUuids])).toEqual([
        [b, []],
        [c, [b]],
      ]);
      expect(w.h.takeEvents()).toEqual(updated(p.uuid));
      const before = await w.f.proposalRow(p.uuid);
      const count = await w.f.activityCount();
      const again = await w.proposals.removeTaskDraft(w.pm, { proposalUuid: p.uuid, draftUuid: a });
      expect(again.taskDraftCount).toBe(2);
      expect(await w.f.proposalRow(p.uuid)).toEqual(before);
      expect(await w.f.activityCount()).toBe(count);
      expect(w.h.takeEvents()).toEqual([]);
    });
  });

  it('lets any holder edit drafts (no identity rule on drafts)', async () => {
    const p = await readyProposal(w);
    await expect(w.proposals.addDocumentDraft(w.otherPm, { proposalUuid: p.uuid, type: 'guide', title: 'Guide', content: '' })).resolves.toMatchObject({ documentDraftCount: 3 });
    await refused(w.proposals.addDocumentDraft(w.otherPm, { proposalUuid: p.uuid, type: 'guide', title: '', content: '' }), 'VALIDATION_ERROR');
  });
});
