import type { Actor } from '../../src/shared/auth/actor.js';
import { IdeaService, IdeaTrackerService } from '../../src/modules/ideas/index.js';
import { userActor, World } from '../utils/world.js';

let world: World;
let tracker: IdeaTrackerService;
/** Alice and Bob of one company; pm (pm_agent) and dev (developer_agent) are Alice's agents, pm2 Bob's; mallory's agent is of another company. */
let alice: Actor;
let bob: Actor;
let pm: Actor;
let pm2: Actor;
let dev: Actor;
let malloryAgent: Actor;
let pA: string;
let pB: string;
let pC: string;

beforeAll(async () => {
  world = await World.database();
  tracker = world.get(IdeaTrackerService);
  const a = (await world.company()).uuid;
  const aliceU = await world.user(a, { name: 'Alice' });
  const bobU = await world.user(a, { name: 'Bob' });
  [alice, bob] = [userActor(aliceU), userActor(bobU)];
  pm = (await world.agent(a, aliceU.uuid, { preset: 'pm_agent', name: 'PM' })).actor;
  pm2 = (await world.agent(a, bobU.uuid, { preset: 'pm_agent', name: 'PM2' })).actor;
  dev = (await world.agent(a, aliceU.uuid, { preset: 'developer_agent', name: 'Dev' })).actor;
  const b = (await world.company()).uuid;
  malloryAgent = (await world.agent(b, (await world.user(b, { name: 'Mallory' })).uuid, { preset: 'admin_agent', name: 'Evil' })).actor;
  pA = (await world.domain.project(alice, { name: 'Alpha' })).uuid;
  pB = (await world.domain.project(alice, { name: 'Beta' })).uuid;
  pC = (await world.domain.project(alice, { name: 'Gamma' })).uuid;
});
afterAll(() => world.close());

/** Pins an idea's updatedAt so the order under test does not depend on timing. */
async function at(ideaUuid: string, minutesAgo: number): Promise<void> {
  await world.ds.query(`UPDATE idea SET updated_at = now() - make_interval(mins => $2) WHERE uuid = $1`, [ideaUuid, minutesAgo]);
}
const uuidsOf = (tracker: Record<string, { ideas: Array<{ uuid: string }> }>): string[][] => Object.values(tracker).map((p) => p.ideas.map((i) => i.uuid));

describe('IdeaTrackerService.tracker (docs/tool-conventions.md §3)', () => {
  let mine: Array<{ uuid: string; project: string }>;
  let ownerIdea: string;

  beforeAll(async () => {
    // pm's ideas: B(1 min ago), A(2), B(3), C(4), A(5); alice's own idea (pm's owner) at 6; others' ideas newest of all.
    const plan: Array<[string, number]> = [
      [pB, 1],
      [pA, 2],
      [pB, 3],
      [pC, 4],
      [pA, 5],
    ];
    mine = [];
    for (const [project, ago] of plan) {
      const i = await world.domain.idea(alice, project, { state: 'elaborating', assignee: pm });
      await at(i.uuid, ago);
      mine.push({ uuid: i.uuid, project });
    }
    const own = await world.domain.idea(alice, pA, { state: 'elaborating', assignee: alice });
    await at(own.uuid, 6);
    ownerIdea = own.uuid;
    for (const who of [pm2, bob]) {
      const other = await world.domain.idea(alice, pA, { state: 'elaborating', assignee: who });
      await at(other.uuid, 0);
    }
    await world.domain.idea(alice, pA); // open, nobody's
  });

  it('lists my ideas (agent or its owner) newest first, grouped by project in order of first idea', async () => {
    const t = await tracker.tracker(pm, { projectScope: null });
    expect(Object.keys(t)).toEqual([pB, pA, pC]);
    expect(t[pB].name).toBe('Beta');
    expect(uuidsOf(t)).toEqual([
      [mine[0].uuid, mine[2].uuid],
      [mine[1].uuid, mine[4].uuid, ownerIdea],
      [mine[3].uuid],
    ]);
    expect(t[pB].ideas[0]).toEqual({
      uuid: mine[0].uuid,
      title: expect.any(String),
      status: 'elaborating',
      derivedStatus: 'in_progress',
      elaborationStatus: null,
      proposalCount: 0,
      taskCount: 0,
      updatedAt: expect.any(String),
    });
  });

  it('a user sees its own ideas and those of the agents it owns', async () => {
    const t = await tracker.tracker(alice, { projectScope: null });
    expect(uuidsOf(t).flat().sort()).toEqual([...mine.map((m) => m.uuid), ownerIdea].sort());
    const bobs = await tracker.tracker(bob, { projectScope: null });
    expect(uuidsOf(bobs).flat()).toHaveLength(2); // bob's own and pm2's
  });

  it('honours the scope: null = all, a list = those projects, empty = empty tracker', async () => {
    const scoped = await tracker.tracker(pm, { projectScope: [pA, pC] });
    expect(Object.keys(scoped)).toEqual([pA, pC]);
    expect(await tracker.tracker(pm, { projectScope: [] })).toEqual({});
    const foreign = await tracker.tracker(malloryAgent, { projectScope: [pA] });
    expect(foreign).toEqual({});
  });

  it('caps at the limit across projects (checkin: 10) keeping the order', async () => {
    const t = await tracker.tracker(pm, { projectScope: null, limit: 3 });
    expect(uuidsOf(t)).toEqual([[mine[0].uuid, mine[2].uuid], [mine[1].uuid]]);
    const extra: string[] = [];
    for (let i = 0; i < 8; i++) extra.push((await world.domain.idea(alice, pC, { state: 'elaborating', assignee: pm })).uuid);
    const ten = await tracker.tracker(pm, { projectScope: null, limit: 10 });
    expect(uuidsOf(ten).flat()).toHaveLength(10);
    expect(Object.keys(ten)[0]).toBe(pC);
    expect(uuidsOf(await tracker.tracker(pm, { projectScope: null })).flat()).toHaveLength(14);
  });

  it('counts pending and approved proposals and the tasks of the latest approved one', async () => {
    const i = await world.domain.idea(alice, pA, { state: 'elaborated', assignee: pm });
    const approved = await world.domain.proposal(pm, pA, { inputUuids: [i.uuid], status: 'approved' });
    await world.domain.task(pm, pA, { proposalUuid: approved.uuid, status: 'to_verify' });
    await world.domain.task(pm, pA, { proposalUuid: approved.uuid, status: 'done' });
    await world.domain.proposal(pm, pA, { inputUuids: [i.uuid], status: 'pending' });
    await world.domain.proposal(pm, pA, { inputUuids: [i.uuid], status: 'draft' });
    await world.domain.proposal(pm, pA, { inputUuids: [i.uuid], status: 'closed' });
    await at(i.uuid, -1);
    const t = await tracker.tracker(pm, { projectScope: [pA], limit: 1 });
    expect(t[pA].ideas).toEqual([
      {
        uuid: i.uuid,
        title: i.title,
        status: 'elaborated',
        derivedStatus: 'human_conduct_required',
        elaborationStatus: 'resolved',
        proposalCount: 2,
        taskCount: 2,
        updatedAt: expect.any(String),
      },
    ]);
  });

  it('ties on updatedAt break by uuid ascending', async () => {
    const p = (await world.domain.project(alice)).uuid;
    const actor: Actor = dev;
    const uuids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const idea = await world.domain.idea(alice, p, { state: 'elaborating', assignee: alice });
      await world.get(IdeaService).assign(alice, { ideaUuid: idea.uuid, assigneeType: 'user', assigneeUuid: bob.uuid });
      uuids.push(idea.uuid);
    }
    await world.ds.query(`UPDATE idea SET updated_at = '2030-01-01T00:00:00Z' WHERE uuid = ANY($1::uuid[])`, [uuids]);
    const t = await tracker.tracker(bob, { projectScope: [p] });
    expect(t[p].ideas.map((i) => i.uuid)).toEqual([...uuids].sort());
    expect(await tracker.tracker(actor, { projectScope: [p] })).toEqual({});
  });
});
