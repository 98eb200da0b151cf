import { randomUUID } from 'node:crypto';
import { IdeaService } from '../../src/modules/ideas/index.js';
import type { Actor } from '../../src/shared/auth/actor.js';
import { expectIdeaRefused } from '../utils/expect-error.js';
import { userActor, World } from '../utils/world.js';

let world: World;
let ideas: IdeaService;
/** Alice and her pm agent (who moves ideas); Mallory and her admin agent in another company. */
let alice: Actor;
let pm: Actor;
let mallory: Actor;
let malloryAgent: Actor;

beforeAll(async () => {
  world = await World.database();
  ideas = world.get(IdeaService);
  const a = (await world.company()).uuid;
  const aliceU = await world.user(a, { name: 'Alice' });
  alice = userActor(aliceU);
  pm = (await world.agent(a, aliceU.uuid, { preset: 'pm_agent', name: 'PM' })).actor;
  const b = (await world.company()).uuid;
  const malloryU = await world.user(b, { name: 'Mallory' });
  mallory = userActor(malloryU);
  malloryAgent = (await world.agent(b, malloryU.uuid, { preset: 'admin_agent', name: 'Evil' })).actor;
});
afterAll(() => world.close());
beforeEach(() => world.h.takeEvents());

const refused = (call: () => Promise<unknown>, code: string, message?: string): Promise<void> => expectIdeaRefused(world, call, code, message);
const activities = (targetUuid: string): Promise<Array<{ action: string; project_uuid: string; value: Record<string, unknown> | null; actor_uuid: string }>> =>
  world.ds.query(`SELECT action, project_uuid, value, actor_uuid FROM activity WHERE target_uuid = $1 ORDER BY created_at ASC, uuid ASC`, [targetUuid]);

const ev = (entityType: string, entityUuid: string, projectUuid: string): Record<string, string> => ({
  companyUuid: alice.companyUuid,
  projectUuid,
  entityType,
  entityUuid,
  action: 'updated',
});
const projectOf = async (table: string, uuid: string): Promise<string> => (await world.ds.query(`SELECT project_uuid FROM ${table} WHERE uuid = $1`, [uuid]))[0].project_uuid;

describe('move (svc_move_idea, docs/domain.md §8)', () => {
  it('moves the subtree, the proposals naming it and their tasks and documents; detaches the root; events in both projects', async () => {
    const source = (await world.domain.project(alice, { name: 'Source' })).uuid;
    const target = (await world.domain.project(alice, { name: 'Target' })).uuid;
    const parent = await world.domain.idea(alice, source, { isContainer: true, title: 'Stays' });
    const root = await ideas.create(alice, { projectUuid: source, title: 'Root', isContainer: true, parentUuid: parent.uuid, references: [{ type: 'docs', url: 'https://r.example', title: 'R' }] });
    const c1 = await world.domain.idea(alice, source, { parentUuid: root.uuid, state: 'elaborated', title: 'C1' });
    const c2 = await world.domain.idea(alice, source, { parentUuid: root.uuid, title: 'C2' });
    const g = await world.domain.idea(alice, source, { parentUuid: c1.uuid, state: 'elaborated', title: 'G' });
    const outsider = await world.domain.idea(alice, source, { state: 'elaborated', title: 'Outsider' });
    const p1 = await world.domain.proposal(alice, source, { inputUuids: [c1.uuid], status: 'approved' });
    const p2 = await world.domain.proposal(alice, source, { inputUuids: [outsider.uuid, g.uuid], status: 'draft' });
    const p3 = await world.domain.proposal(alice, source, { inputUuids: [outsider.uuid], status: 'approved' });
    const t1 = await world.domain.task(alice, source, { proposalUuid: p1.uuid, status: 'done' });
    const t2 = await world.domain.task(alice, source, { proposalUuid: p1.uuid });
    await world.domain.dependency(t2.uuid, t1.uuid);
    const d1 = await world.domain.document(alice, source, { proposalUuid: p1.uuid, type: 'report' });
    const t3 = await world.domain.task(alice, source, { proposalUuid: p3.uuid });
    const t4 = await world.domain.task(alice, source);
    const d2 = await world.domain.document(alice, source);
    world.h.takeEvents();

    const result = await ideas.move(pm, { ideaUuid: root.uuid, targetProjectUuid: target });
    expect(result.moved).toEqual({ ideas: 4, proposals: 2, documents: 1, tasks: 2 });
    expect(result.idea).toMatchObject({ uuid: root.uuid, projectUuid: target, parentUuid: null, parent: null, childCount: 2 });
    expect(result.idea.references).toHaveLength(1);

    for (const uuid of [root.uuid, c1.uuid, c2.uuid, g.uuid]) expect(await projectOf('idea', uuid)).toBe(target);
    for (const uuid of [p1.uuid, p2.uuid]) expect(await projectOf('proposal', uuid)).toBe(target);
    for (const uuid of [t1.uuid, t2.uuid]) expect(await projectOf('task', uuid)).toBe(target);
    expect(await projectOf('document', d1.uuid)).toBe(target);
    for (const [table, uuid] of [['idea', parent.uuid], ['idea', outsider.uuid], ['proposal', p3.uuid], ['task', t3.uuid], ['task', t4.uuid], ['document', d2.uuid]]) {
      expect(await projectOf(table, uuid)).toBe(source);
    }
    expect((await ideas.get(alice, { ideaUuid: c1.uuid })).parentUuid).toBe(root.uuid);
    expect((await ideas.get(alice, { ideaUuid: g.uuid })).parentUuid).toBe(c1.uuid);
    expect((await ideas.get(alice, { ideaUuid: parent.uuid })).childCount).toBe(0);
    expect((await world.domain.projects.get(alice, { projectUuid: target })).counts).toEqual({ ideas: 4, proposals: 2, documents: 1, tasks: 2 });
    expect((await world.domain.projects.get(alice, { projectUuid: source })).counts).toEqual({ ideas: 2, proposals: 1, documents: 1, tasks: 2 });

    const events = world.h.takeEvents();
    const expected = [
      ...[root, c1, c2, g].map((i) => ev('idea', i.uuid, source)),
      ev('idea', parent.uuid, source),
      ...[root, c1, c2, g].map((i) => ev('idea', i.uuid, target)),
      ev('proposal', p1.uuid, target),
      ev('proposal', p2.uuid, target),
      ev('task', t1.uuid, target),
      ev('task', t2.uuid, target),
      ev('document', d1.uuid, target),
    ];
    expect(events).toHaveLength(expected.length);
    expect(events).toEqual(expect.arrayContaining(expected));

    const acts = await activities(root.uuid);
    expect(acts.at(-1)).toEqual({
      action: 'moved',
      project_uuid: target,
      value: { fromProjectUuid: source, toProjectUuid: target, detachedFromParentUuid: parent.uuid, moved: result.moved },
      actor_uuid: pm.uuid,
    });
    for (const uuid of [c1.uuid, p1.uuid, t1.uuid, d1.uuid]) {
      expect((await activities(uuid)).at(-1)).toMatchObject({ action: 'moved', project_uuid: target, value: { fromProjectUuid: source, toProjectUuid: target, withIdeaUuid: root.uuid } });
    }
    // Earlier activities stay in the source project's stream.
    expect(acts[0]).toMatchObject({ action: 'created', project_uuid: source });
  });

  it('moves a lone idea: counts of one, events in both projects', async () => {
    const source = (await world.domain.project(alice)).uuid;
    const target = (await world.domain.project(alice)).uuid;
    const idea = await world.domain.idea(alice, source, { state: 'elaborating', assignee: pm });
    world.h.takeEvents();
    const r = await ideas.move(pm, { ideaUuid: idea.uuid, targetProjectUuid: target });
    expect(r).toMatchObject({ idea: { projectUuid: target, status: 'elaborating' }, moved: { ideas: 1, proposals: 0, documents: 0, tasks: 0 } });
    expect(world.h.takeEvents()).toEqual([ev('idea', idea.uuid, source), ev('idea', idea.uuid, target)]);
  });

  it('refuses with CONFLICT when a dependency edge would cross projects, in either direction, changing nothing', async () => {
    const source = (await world.domain.project(alice)).uuid;
    const target = (await world.domain.project(alice)).uuid;
    const idea = await world.domain.idea(alice, source, { state: 'elaborated' });
    const proposal = await world.domain.proposal(alice, source, { inputUuids: [idea.uuid], status: 'approved' });
    const moving = await world.domain.task(alice, source, { proposalUuid: proposal.uuid });
    const staying = await world.domain.task(alice, source);
    await world.domain.dependency(moving.uuid, staying.uuid);
    const message = 'Idea cannot be moved: a moved task depends on or is depended on by a task that stays';
    await refused(() => ideas.move(pm, { ideaUuid: idea.uuid, targetProjectUuid: target }), 'CONFLICT', message);

    const idea2 = await world.domain.idea(alice, source, { state: 'elaborated' });
    const child = await world.domain.idea(alice, source, { parentUuid: idea2.uuid, state: 'elaborated' });
    const proposal2 = await world.domain.proposal(alice, source, { inputUuids: [child.uuid], status: 'approved' });
    const prerequisite = await world.domain.task(alice, source, { proposalUuid: proposal2.uuid });
    const dependent = await world.domain.task(alice, source);
    await world.domain.dependency(dependent.uuid, prerequisite.uuid);
    await refused(() => ideas.move(pm, { ideaUuid: idea2.uuid, targetProjectUuid: target }), 'CONFLICT', message);
  });

  it('refuses the same project, a missing or foreign target and a foreign idea', async () => {
    const source = (await world.domain.project(alice)).uuid;
    const idea = await world.domain.idea(alice, source);
    const foreign = await world.domain.project(mallory);
    await refused(() => ideas.move(pm, { ideaUuid: idea.uuid, targetProjectUuid: source }), 'VALIDATION_ERROR', 'Idea is already in the target project');
    await refused(() => ideas.move(pm, { ideaUuid: idea.uuid, targetProjectUuid: foreign.uuid }), 'NOT_FOUND', 'Target project not found');
    await refused(() => ideas.move(pm, { ideaUuid: idea.uuid, targetProjectUuid: randomUUID() }), 'NOT_FOUND', 'Target project not found');
    await refused(() => ideas.move(malloryAgent, { ideaUuid: idea.uuid, targetProjectUuid: foreign.uuid }), 'NOT_FOUND', 'Idea not found');
  });
});
