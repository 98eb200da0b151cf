import type { Actor } from '../../src/shared/auth/actor.js';
import { IdeaService, IdeaTrackerService, type DerivedStatus } from '../../src/modules/ideas/index.js';
import type { IdeaState } from '../factories/domain.factory.js';
import { userActor, World } from '../utils/world.js';

let world: World;
let ideas: IdeaService;
let tracker: IdeaTrackerService;
/** Alice, her pm_agent (who works the ideas) and Mallory of another company. */
let alice: Actor;
let pm: Actor;
let mallory: Actor;
let projectUuid: string;

beforeAll(async () => {
  world = await World.database();
  ideas = world.get(IdeaService);
  tracker = world.get(IdeaTrackerService);
  const a = (await world.company()).uuid;
  const aliceU = await world.user(a, { name: 'Alice' });
  alice = userActor(aliceU);
  pm = (await world.agent(a, aliceU.uuid, { preset: 'pm_agent', name: 'PM' })).actor;
  mallory = userActor(await world.user((await world.company()).uuid, { name: 'Mallory' }));
  projectUuid = (await world.domain.project(alice)).uuid;
});
afterAll(() => world.close());

/** Derived status as seen by get, list and the tracker: all three must agree. */
async function derived(ideaUuid: string, viewer: Actor = pm): Promise<DerivedStatus> {
  const record = await ideas.get(alice, { ideaUuid });
  const listed = (await ideas.list(alice, { projectUuid, pageSize: 100 })).ideas.find((i) => i.uuid === ideaUuid);
  expect(listed?.derivedStatus).toBe(record.derivedStatus);
  const tracked = (await tracker.tracker(viewer, { projectScope: [projectUuid] }))[projectUuid]?.ideas.find((i) => i.uuid === ideaUuid);
  if (tracked) expect(tracked.derivedStatus).toBe(record.derivedStatus);
  return record.derivedStatus;
}

const idea = (state: IdeaState, opts: { parentUuid?: string; isContainer?: boolean } = {}) => world.domain.idea(alice, projectUuid, { state, assignee: pm, ...opts });
const minutesAgo = (n: number): Date => new Date(Date.now() - n * 60_000);

describe('derived status on read (docs/domain.md §4.2), every row', () => {
  it('open -> todo; elaborating -> in_progress; pending_answers -> human_conduct_required; validating -> in_progress', async () => {
    expect(await derived((await idea('open')).uuid)).toBe('todo');
    expect(await derived((await idea('elaborating')).uuid)).toBe('in_progress');
    expect(await derived((await idea('pending_answers')).uuid)).toBe('human_conduct_required');
    expect(await derived((await idea('validating')).uuid)).toBe('in_progress');
  });

  it('elaborated without proposals -> in_progress; with an appended round pending -> human_conduct_required', async () => {
    expect(await derived((await idea('elaborated')).uuid)).toBe('in_progress');
    expect(await derived((await idea('skipped')).uuid)).toBe('in_progress');
    expect(await derived((await idea('appended')).uuid)).toBe('human_conduct_required');
  });

  it('elaborated with a pending proposal -> human_conduct_required, even when approved work is done', async () => {
    const i = await idea('elaborated');
    const approved = await world.domain.proposal(pm, projectUuid, { inputUuids: [i.uuid], status: 'approved' });
    await world.domain.task(pm, projectUuid, { proposalUuid: approved.uuid, status: 'done' });
    expect(await derived(i.uuid)).toBe('done');
    await world.domain.proposal(pm, projectUuid, { inputUuids: [i.uuid], status: 'pending' });
    expect(await derived(i.uuid)).toBe('human_conduct_required');
  });

  it('latest approved proposal: a task in to_verify -> human_conduct_required; all done or closed -> done; else in_progress', async () => {
    const verify = await idea('elaborated');
    const p1 = await world.domain.proposal(pm, projectUuid, { inputUuids: [verify.uuid], status: 'approved' });
    await world.domain.task(pm, projectUuid, { proposalUuid: p1.uuid, status: 'to_verify' });
    await world.domain.task(pm, projectUuid, { proposalUuid: p1.uuid, status: 'done' });
    expect(await derived(verify.uuid)).toBe('human_conduct_required');

    const finished = await idea('elaborated');
    const p2 = await world.domain.proposal(pm, projectUuid, { inputUuids: [finished.uuid], status: 'approved' });
    await world.domain.task(pm, projectUuid, { proposalUuid: p2.uuid, status: 'done' });
    await world.domain.task(pm, projectUuid, { proposalUuid: p2.uuid, status: 'closed' });
    expect(await derived(finished.uuid)).toBe('done');

    const underway = await idea('elaborated');
    const p3 = await world.domain.proposal(pm, projectUuid, { inputUuids: [underway.uuid], status: 'approved' });
    await world.domain.task(pm, projectUuid, { proposalUuid: p3.uuid, status: 'done' });
    await world.domain.task(pm, projectUuid, { proposalUuid: p3.uuid, status: 'in_progress' });
    expect(await derived(underway.uuid)).toBe('in_progress');

    const noTasks = await idea('elaborated');
    await world.domain.proposal(pm, projectUuid, { inputUuids: [noTasks.uuid], status: 'approved' });
    expect(await derived(noTasks.uuid)).toBe('in_progress');

    const draftOnly = await idea('elaborated');
    await world.domain.proposal(pm, projectUuid, { inputUuids: [draftOnly.uuid], status: 'draft' });
    await world.domain.proposal(pm, projectUuid, { inputUuids: [draftOnly.uuid], status: 'closed' });
    expect(await derived(draftOnly.uuid)).toBe('in_progress');
  });

  it('only the latest approved proposal by reviewedAt counts', async () => {
    const laterOpen = await idea('elaborated');
    const old = await world.domain.proposal(pm, projectUuid, { inputUuids: [laterOpen.uuid], status: 'approved', reviewedAt: minutesAgo(10) });
    await world.domain.task(pm, projectUuid, { proposalUuid: old.uuid, status: 'done' });
    const recent = await world.domain.proposal(pm, projectUuid, { inputUuids: [laterOpen.uuid], status: 'approved', reviewedAt: minutesAgo(1) });
    await world.domain.task(pm, projectUuid, { proposalUuid: recent.uuid, status: 'open' });
    expect(await derived(laterOpen.uuid)).toBe('in_progress');

    const laterDone = await idea('elaborated');
    const recent2 = await world.domain.proposal(pm, projectUuid, { inputUuids: [laterDone.uuid], status: 'approved', reviewedAt: minutesAgo(1) });
    await world.domain.task(pm, projectUuid, { proposalUuid: recent2.uuid, status: 'done' });
    const old2 = await world.domain.proposal(pm, projectUuid, { inputUuids: [laterDone.uuid], status: 'approved', reviewedAt: minutesAgo(10) });
    await world.domain.task(pm, projectUuid, { proposalUuid: old2.uuid, status: 'to_verify' });
    expect(await derived(laterDone.uuid)).toBe('done');
  });

  it('themes derive from their children: all done -> done, all todo -> todo, otherwise in_progress; nested themes too', async () => {
    const doneChild = async (parentUuid: string): Promise<void> => {
      const c = await idea('elaborated', { parentUuid });
      const p = await world.domain.proposal(pm, projectUuid, { inputUuids: [c.uuid], status: 'approved' });
      await world.domain.task(pm, projectUuid, { proposalUuid: p.uuid, status: 'done' });
    };
    const allDone = await idea('elaborating', { isContainer: true });
    await doneChild(allDone.uuid);
    await doneChild(allDone.uuid);
    expect(await derived(allDone.uuid)).toBe('done');

    const allTodo = await idea('elaborated', { isContainer: true });
    await idea('open', { parentUuid: allTodo.uuid });
    await idea('open', { parentUuid: allTodo.uuid });
    expect(await derived(allTodo.uuid)).toBe('todo');

    const mixed = await idea('open', { isContainer: true });
    await idea('open', { parentUuid: mixed.uuid });
    await doneChild(mixed.uuid);
    expect(await derived(mixed.uuid)).toBe('in_progress');

    const top = await idea('open', { isContainer: true });
    const sub = await idea('open', { isContainer: true, parentUuid: top.uuid });
    await doneChild(sub.uuid);
    expect(await derived(sub.uuid)).toBe('done');
    expect(await derived(top.uuid)).toBe('done');
    const record = await ideas.get(alice, { ideaUuid: top.uuid });
    expect(record.children).toEqual([{ uuid: sub.uuid, title: sub.title, status: 'open', derivedStatus: 'done' }]);

    const empty = await idea('pending_answers', { isContainer: true });
    expect(await derived(empty.uuid)).toBe('human_conduct_required');
  });

  it('ignores proposals of another company that name the idea', async () => {
    const i = await idea('elaborated');
    const foreignProject = await world.domain.project(mallory);
    await world.domain.proposal(mallory, foreignProject.uuid, { inputUuids: [i.uuid], status: 'pending' });
    expect(await derived(i.uuid)).toBe('in_progress');
  });
});
