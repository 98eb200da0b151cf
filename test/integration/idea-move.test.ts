import { randomUUID } from 'node:crypto';
import { createIdeaWorld, type IdeaWorld } from '../utils/domain-world.js';

let w: IdeaWorld;

beforeAll(async () => {
  w = await createIdeaWorld();
});
afterAll(() => w.close());
beforeEach(() => w.h.takeEvents());

const ev = (entityType: string, entityUuid: string, projectUuid: string): Record<string, string> => ({
  companyUuid: w.alice.companyUuid,
  projectUuid,
  entityType,
  entityUuid,
  action: 'updated',
});
const projectOf = async (table: string, uuid: string): Promise<string> => (await w.db.dataSource.query(`SELECT project_uuid FROM ${table} WHERE uuid = $1`, [uuid]))[0].project_uuid;

describe('move (svc_move_idea, docs/domain.md §8)', () => {
  it('moves the subtree, the proposals naming it and their tasks and documents; detaches the root; events in both projects', async () => {
    const source = (await w.f.project(w.alice, { name: 'Source' })).uuid;
    const target = (await w.f.project(w.alice, { name: 'Target' })).uuid;
    const parent = await w.f.idea(w.alice, source, { isContainer: true, title: 'Stays' });
    const root = await w.ideas.create(w.alice, { projectUuid: source, title: 'Root', isContainer: true, parentUuid: parent.uuid, references: [{ type: 'docs', url: 'https://r.example', title: 'R' }] });
    const c1 = await w.f.idea(w.alice, source, { parentUuid: root.uuid, state: 'elaborated', title: 'C1' });
    const c2 = await w.f.idea(w.alice, source, { parentUuid: root.uuid, title: 'C2' });
    const g = await w.f.idea(w.alice, source, { parentUuid: c1.uuid, state: 'elaborated', title: 'G' });
    const outsider = await w.f.idea(w.alice, source, { state: 'elaborated', title: 'Outsider' });
    const p1 = await w.f.proposal(w.alice, source, { inputUuids: [c1.uuid], status: 'approved' });
    const p2 = await w.f.proposal(w.alice, source, { inputUuids: [outsider.uuid, g.uuid], status: 'draft' });
    const p3 = await w.f.proposal(w.alice, source, { inputUuids: [outsider.uuid], status: 'approved' });
    const t1 = await w.f.task(w.alice, source, { proposalUuid: p1.uuid, status: 'done' });
    const t2 = await w.f.task(w.alice, source, { proposalUuid: p1.uuid });
    await w.f.dependency(t2.uuid, t1.uuid);
    const d1 = await w.f.document(w.alice, source, { proposalUuid: p1.uuid, type: 'report' });
    const t3 = await w.f.task(w.alice, source, { proposalUuid: p3.uuid });
    const t4 = await w.f.task(w.alice, source);
    const d2 = await w.f.document(w.alice, source);
    w.h.takeEvents();

    const result = await w.ideas.move(w.pm, { ideaUuid: root.uuid, targetProjectUuid: target });
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
    expect((await w.ideas.get(w.alice, { ideaUuid: c1.uuid })).parentUuid).toBe(root.uuid);
    expect((await w.ideas.get(w.alice, { ideaUuid: g.uuid })).parentUuid).toBe(c1.uuid);
    expect((await w.ideas.get(w.alice, { ideaUuid: parent.uuid })).childCount).toBe(0);
    expect((await w.f.projects.get(w.alice, { projectUuid: target })).counts).toEqual({ ideas: 4, proposals: 2, documents: 1, tasks: 2 });
    expect((await w.f.projects.get(w.alice, { projectUuid: source })).counts).toEqual({ ideas: 2, proposals: 1, documents: 1, tasks: 2 });

    const events = w.h.takeEvents();
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

    const acts = await w.activities(root.uuid);
    expect(acts.at(-1)).toEqual({
      action: 'moved',
      project_uuid: target,
      value: { fromProjectUuid: source, toProjectUuid: target, detachedFromParentUuid: parent.uuid, moved: result.moved },
      actor_uuid: w.pm.uuid,
    });
    for (const uuid of [c1.uuid, p1.uuid, t1.uuid, d1.uuid]) {
      expect((await w.activities(uuid)).at(-1)).toMatchObject({ action: 'moved', project_uuid: target, value: { fromProjectUuid: source, toProjectUuid: target, withIdeaUuid: root.uuid } });
    }
    // Earlier activities stay in the source project's stream.
    expect(acts[0]).toMatchObject({ action: 'created', project_uuid: source });
  });

  it('moves a lone idea: counts of one, events in both projects', async () => {
    const source = (await w.f.project(w.alice)).uuid;
    const target = (await w.f.project(w.alice)).uuid;
    const idea = await w.f.idea(w.alice, source, { state: 'elaborating', assignee: w.pm });
    w.h.takeEvents();
    const r = await w.ideas.move(w.pm, { ideaUuid: idea.uuid, targetProjectUuid: target });
    expect(r).toMatchObject({ idea: { projectUuid: target, status: 'elaborating' }, moved: { ideas: 1, proposals: 0, documents: 0, tasks: 0 } });
    expect(w.h.takeEvents()).toEqual([ev('idea', idea.uuid, source), ev('idea', idea.uuid, target)]);
  });

  it('refuses with CONFLICT when a dependency edge would cross projects, in either direction, changing nothing', async () => {
    const source = (await w.f.project(w.alice)).uuid;
    const target = (await w.f.project(w.alice)).uuid;
    const idea = await w.f.idea(w.alice, source, { state: 'elaborated' });
    const proposal = await w.f.proposal(w.alice, source, { inputUuids: [idea.uuid], status: 'approved' });
    const moving = await w.f.task(w.alice, source, { proposalUuid: proposal.uuid });
    const staying = await w.f.task(w.alice, source);
    await w.f.dependency(moving.uuid, staying.uuid);
    const message = 'Idea cannot be moved: a moved task depends on or is depended on by a task that stays';
    await w.refused(() => w.ideas.move(w.pm, { ideaUuid: idea.uuid, targetProjectUuid: target }), 'CONFLICT', message);

    const idea2 = await w.f.idea(w.alice, source, { state: 'elaborated' });
    const child = await w.f.idea(w.alice, source, { parentUuid: idea2.uuid, state: 'elaborated' });
    const proposal2 = await w.f.proposal(w.alice, source, { inputUuids: [child.uuid], status: 'approved' });
    const prerequisite = await w.f.task(w.alice, source, { proposalUuid: proposal2.uuid });
    const dependent = await w.f.task(w.alice, source);
    await w.f.dependency(dependent.uuid, prerequisite.uuid);
    await w.refused(() => w.ideas.move(w.pm, { ideaUuid: idea2.uuid, targetProjectUuid: target }), 'CONFLICT', message);
  });

  it('refuses the same project, a missing or foreign target and a foreign idea', async () => {
    const source = (await w.f.project(w.alice)).uuid;
    const idea = await w.f.idea(w.alice, source);
    const foreign = await w.f.project(w.mallory);
    await w.refused(() => w.ideas.move(w.pm, { ideaUuid: idea.uuid, targetProjectUuid: source }), 'VALIDATION_ERROR', 'Idea is already in the target project');
    await w.refused(() => w.ideas.move(w.pm, { ideaUuid: idea.uuid, targetProjectUuid: foreign.uuid }), 'NOT_FOUND', 'Target project not found');
    await w.refused(() => w.ideas.move(w.pm, { ideaUuid: idea.uuid, targetProjectUuid: randomUUID() }), 'NOT_FOUND', 'Target project not found');
    await w.refused(() => w.ideas.move(w.malloryAgent, { ideaUuid: idea.uuid, targetProjectUuid: foreign.uuid }), 'NOT_FOUND', 'Idea not found');
  });
});
