import type { Actor } from '../../src/shared/auth/actor.js';
import { ProposalService } from '../../src/modules/proposals/index.js';
import { userActor, World } from '../utils/world.js';
import { LONG_CONTENT, ProposalFactory, readyProposal, refused, refusedUnchanged } from '../factories/proposal.factory.js';

describe('proposal drafts (docs/tool-conventions.md §5.6)', () => {
  let world: World;
  let f: ProposalFactory;
  let proposals: ProposalService;
  let companyUuid: string;
  /** A pm agent of one user, and otherPm, a pm agent of a second user of the company. */
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
    pm = (await world.agent(companyUuid, u.uuid, { preset: 'pm_agent', name: 'PM' })).actor;
    otherPm = (await world.agent(companyUuid, u2.uuid, { preset: 'pm_agent', name: 'Other PM' })).actor;
    projectUuid = await world.project(userActor(u));
  });
  afterAll(() => world.close());

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
