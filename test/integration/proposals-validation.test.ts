import type { Actor } from '../../src/shared/auth/actor.js';
import { ProposalService } from '../../src/modules/proposals/index.js';
import { userActor, World } from '../utils/world.js';
import { ProposalFactory, readyProposal, refusedUnchanged } from '../factories/proposal.factory.js';
import { DocumentEntity, IdeaEntity, ProposalEntity } from '../../src/entities.js';

/** docs/domain.md §5.2, rule by rule: what validate reports and whether submit refuses. */
describe('proposal validation (docs/domain.md §5.2)', () => {
  let world: World;
  let f: ProposalFactory;
  let proposals: ProposalService;
  let companyUuid: string;
  /** A user and its pm agent, which writes the proposals. */
  let user: Actor;
  let pm: Actor;
  let projectUuid: string;

  beforeAll(async () => {
    world = await World.database();
    f = new ProposalFactory(world.ds);
    proposals = world.get(ProposalService);
    companyUuid = (await world.company()).uuid;
    const u = await world.user(companyUuid);
    user = userActor(u);
    pm = (await world.agent(companyUuid, u.uuid, { preset: 'pm_agent', name: 'PM' })).actor;
    projectUuid = await world.project(user);
  });
  afterAll(() => world.close());

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
