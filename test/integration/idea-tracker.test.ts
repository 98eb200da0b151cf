import type { Actor } from '../../src/shared/auth/actor.js';
import { createIdeaWorld, type IdeaWorld } from '../utils/domain-world.js';

let w: IdeaWorld;
let pA: string;
let pB: string;
let pC: string;

beforeAll(async () => {
  w = await createIdeaWorld();
  pA = (await w.f.project(w.alice, { name: 'Alpha' })).uuid;
  pB = (await w.f.project(w.alice, { name: 'Beta' })).uuid;
  pC = (await w.f.project(w.alice, { name: 'Gamma' })).uuid;
});
afterAll(() => w.close());

/** Pins an idea's updatedAt so the order under test does not depend on timing. */
async function at(ideaUuid: string, minutesAgo: number): Promise<void> {
  await w.db.dataSource.query(`UPDATE idea SET updated_at = now() - make_interval(mins => $2) WHERE uuid = $1`, [ideaUuid, minutesAgo]);
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
      const i = await w.f.idea(w.alice, project, { state: 'elaborating', assignee: w.pm });
      await at(i.uuid, ago);
      mine.push({ uuid: i.uuid, project });
    }
    const own = await w.f.idea(w.alice, pA, { state: 'elaborating', assignee: w.alice });
    await at(own.uuid, 6);
    ownerIdea = own.uuid;
    for (const who of [w.pm2, w.bob]) {
      const other = await w.f.idea(w.alice, pA, { state: 'elaborating', assignee: who });
      await at(other.uuid, 0);
    }
    await w.f.idea(w.alice, pA); // open, nobody's
  });

  it('lists my ideas (agent or its owner) newest first, grouped by project in order of first idea', async () => {
    const t = await w.tracker.tracker(w.pm, { projectScope: null });
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
    const t = await w.tracker.tracker(w.alice, { projectScope: null });
    expect(uuidsOf(t).flat().sort()).toEqual([...mine.map((m) => m.uuid), ownerIdea].sort());
    const bob = await w.tracker.tracker(w.bob, { projectScope: null });
    expect(uuidsOf(bob).flat()).toHaveLength(2); // bob's own and pm2's
  });

  it('honours the scope: null = all, a list = those projects, empty = empty tracker', async () => {
    const scoped = await w.tracker.tracker(w.pm, { projectScope: [pA, pC] });
    expect(Object.keys(scoped)).toEqual([pA, pC]);
    expect(await w.tracker.tracker(w.pm, { projectScope: [] })).toEqual({});
    const foreign = await w.tracker.tracker(w.malloryAgent, { projectScope: [pA] });
    expect(foreign).toEqual({});
  });

  it('caps at the limit across projects (checkin: 10) keeping the order', async () => {
    const t = await w.tracker.tracker(w.pm, { projectScope: null, limit: 3 });
    expect(uuidsOf(t)).toEqual([[mine[0].uuid, mine[2].uuid], [mine[1].uuid]]);
    const extra: string[] = [];
    for (let i = 0; i < 8; i++) extra.push((await w.f.idea(w.alice, pC, { state: 'elaborating', assignee: w.pm })).uuid);
    const ten = await w.tracker.tracker(w.pm, { projectScope: null, limit: 10 });
    expect(uuidsOf(ten).flat()).toHaveLength(10);
    expect(Object.keys(ten)[0]).toBe(pC);
    expect(uuidsOf(await w.tracker.tracker(w.pm, { projectScope: null })).flat()).toHaveLength(14);
  });

  it('counts pending and approved proposals and the tasks of the latest approved one', async () => {
    const i = await w.f.idea(w.alice, pA, { state: 'elaborated', assignee: w.pm });
    const approved = await w.f.proposal(w.pm, pA, { inputUuids: [i.uuid], status: 'approved' });
    await w.f.task(w.pm, pA, { proposalUuid: approved.uuid, status: 'to_verify' });
    await w.f.task(w.pm, pA, { proposalUuid: approved.uuid, status: 'done' });
    await w.f.proposal(w.pm, pA, { inputUuids: [i.uuid], status: 'pending' });
    await w.f.proposal(w.pm, pA, { inputUuids: [i.uuid], status: 'draft' });
    await w.f.proposal(w.pm, pA, { inputUuids: [i.uuid], status: 'closed' });
    await at(i.uuid, -1);
    const t = await w.tracker.tracker(w.pm, { projectScope: [pA], limit: 1 });
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
    const p = (await w.f.project(w.alice)).uuid;
    const actor: Actor = w.dev;
    const uuids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const idea = await w.f.idea(w.alice, p, { state: 'elaborating', assignee: w.alice });
      await w.ideas.assign(w.alice, { ideaUuid: idea.uuid, assigneeType: 'user', assigneeUuid: w.bob.uuid });
      uuids.push(idea.uuid);
    }
    await w.db.dataSource.query(`UPDATE idea SET updated_at = '2030-01-01T00:00:00Z' WHERE uuid = ANY($1::uuid[])`, [uuids]);
    const t = await w.tracker.tracker(w.bob, { projectScope: [p] });
    expect(t[p].ideas.map((i) => i.uuid)).toEqual([...uuids].sort());
    expect(await w.tracker.tracker(actor, { projectScope: [p] })).toEqual({});
  });
});
