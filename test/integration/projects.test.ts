import { randomUUID } from 'node:crypto';
import type { Actor } from '../../src/shared/auth/actor.js';
import { ProjectGroupService, ProjectService } from '../../src/modules/projects/index.js';
import { DomainFactory } from '../factories/domain.factory.js';
import { expectAppError, tableCounts } from '../utils/expect-error.js';
import { type Harness, userActor, World } from '../utils/world.js';
import type { TestDatabase } from '../utils/test-database.js';
import { resolveProjectScope } from '../../src/modules/assignments/index.js';

describe('projects', () => {
  let world: World;

  let db: TestDatabase;
  let h: Harness;
  let projects: ProjectService;
  let groups: ProjectGroupService;
  let f: DomainFactory;
  let alice: Actor;
  let mallory: Actor;

  beforeAll(async () => {
    world = await World.database();
    db = world.db;
    h = world.h;
    projects = world.get(ProjectService);
    groups = world.get(ProjectGroupService);
    f = new DomainFactory(world);
    const ids = world.ids;
    const a = await ids.company();
    alice = userActor(await ids.user(a.uuid, { name: 'Alice' }));
    const b = await ids.company();
    mallory = userActor(await ids.user(b.uuid, { name: 'Mallory' }));
  });

  afterAll(() => world.close());
  beforeEach(() => h.takeEvents());

  describe('ProjectService', () => {
    it('creates a project with trimmed name, empty counts and all six task status counts', async () => {
      const p = await projects.create(alice, { name: '  Apollo  ' });
      expect(p).toEqual({
        uuid: expect.any(String),
        name: 'Apollo',
        description: '',
        groupUuid: null,
        counts: { ideas: 0, proposals: 0, documents: 0, tasks: 0 },
        createdAt: expect.stringMatching(/Z$/),
        updatedAt: expect.stringMatching(/Z$/),
        group: null,
        taskStatusCounts: { open: 0, assigned: 0, in_progress: 0, to_verify: 0, done: 0, closed: 0 },
      });
      expect(h.takeEvents()).toEqual([]);
    });

    it('rejects blank or long names and a foreign or missing group, writing nothing', async () => {
      const before = await tableCounts(db.dataSource);
      await expectAppError(projects.create(alice, { name: '   ' }), 'VALIDATION_ERROR');
      await expectAppError(projects.create(alice, { name: 'x'.repeat(201) }), 'VALIDATION_ERROR');
      const foreign = await f.group(mallory);
      await expectAppError(projects.create(alice, { name: 'P', groupUuid: foreign.uuid }), 'NOT_FOUND', 'Project group not found');
      await expectAppError(projects.create(alice, { name: 'P', groupUuid: randomUUID() }), 'NOT_FOUND', 'Project group not found');
      const after = await tableCounts(db.dataSource);
      expect(after).toEqual({ ...before, project_group: before.project_group + 1 });
    });

    it('gets a project with its group, counts and task status counts', async () => {
      const g = await f.group(alice, { name: 'Rockets' });
      const p = await f.project(alice, { groupUuid: g.uuid });
      const idea = await f.idea(alice, p.uuid);
      const proposal = await f.proposal(alice, p.uuid, { inputUuids: [idea.uuid], status: 'approved' });
      await f.task(alice, p.uuid, { proposalUuid: proposal.uuid, status: 'done' });
      await f.task(alice, p.uuid, { status: 'to_verify' });
      await f.task(alice, p.uuid, { status: 'to_verify' });
      await f.document(alice, p.uuid);
      const r = await projects.get(alice, { projectUuid: p.uuid });
      expect(r.group).toEqual({ uuid: g.uuid, name: 'Rockets' });
      expect(r.groupUuid).toBe(g.uuid);
      expect(r.counts).toEqual({ ideas: 1, proposals: 1, documents: 1, tasks: 3 });
      expect(r.taskStatusCounts).toEqual({ open: 0, assigned: 0, in_progress: 0, to_verify: 2, done: 1, closed: 0 });
    });

    it('lists projects by updatedAt desc with paging and total', async () => {
      const ids = world.ids;
      const c = await ids.company();
      const carol = userActor(await ids.user(c.uuid));
      const p1 = await f.project(carol, { name: 'One' });
      const p2 = await f.project(carol, { name: 'Two' });
      const p3 = await f.project(carol, { name: 'Three' });
      await projects.update(carol, { projectUuid: p1.uuid, description: 'touched' });
      const page1 = await projects.list(carol, { page: 1, pageSize: 2 });
      expect(page1.total).toBe(3);
      expect(page1.projects.map((p) => p.uuid)).toEqual([p1.uuid, p3.uuid]);
      expect(page1.projects[0].counts).toEqual({ ideas: 0, proposals: 0, documents: 0, tasks: 0 });
      const page2 = await projects.list(carol, { page: 2, pageSize: 2 });
      expect(page2).toMatchObject({ page: 2, pageSize: 2, total: 3 });
      expect(page2.projects.map((p) => p.uuid)).toEqual([p2.uuid]);
      await expectAppError(projects.list(carol, { pageSize: 101 }), 'VALIDATION_ERROR', 'Invalid arguments');
      await expectAppError(projects.list(carol, { page: 0 }), 'VALIDATION_ERROR', 'Invalid arguments');
    });

    it('updates name and description, moves into a group and out with null (svc_admin_move_project_to_group)', async () => {
      const g = await f.group(alice);
      const p = await f.project(alice);
      const renamed = await projects.update(alice, { projectUuid: p.uuid, name: ' Renamed ', description: 'Desc' });
      expect(renamed).toMatchObject({ name: 'Renamed', description: 'Desc', groupUuid: null });
      const grouped = await projects.update(alice, { projectUuid: p.uuid, groupUuid: g.uuid });
      expect(grouped.group).toEqual({ uuid: g.uuid, name: g.name });
      expect((await groups.get(alice, { groupUuid: g.uuid })).projects.map((x) => x.uuid)).toEqual([p.uuid]);
      const ungrouped = await projects.update(alice, { projectUuid: p.uuid, groupUuid: null });
      expect(ungrouped).toMatchObject({ groupUuid: null, group: null });
      expect(h.takeEvents()).toEqual([]);
    });

    it('refuses updates with nothing to change, a foreign group or a foreign project', async () => {
      const p = await f.project(alice, { name: 'Stable' });
      const foreignGroup = await f.group(mallory);
      await expectAppError(projects.update(alice, { projectUuid: p.uuid }), 'VALIDATION_ERROR', 'Nothing to update');
      await expectAppError(projects.update(alice, { projectUuid: p.uuid, groupUuid: foreignGroup.uuid }), 'NOT_FOUND', 'Project group not found');
      await expectAppError(projects.update(mallory, { projectUuid: p.uuid, name: 'Hijack' }), 'NOT_FOUND', 'Project not found');
      expect(await projects.get(alice, { projectUuid: p.uuid })).toMatchObject({ name: 'Stable', groupUuid: null });
    });

    it('deletes only an empty project', async () => {
      for (const fill of ['idea', 'proposal', 'document', 'task'] as const) {
        const p = await f.project(alice);
        if (fill === 'idea') await f.idea(alice, p.uuid);
        if (fill === 'proposal') await f.proposal(alice, p.uuid, { inputUuids: [randomUUID()] });
        if (fill === 'document') await f.document(alice, p.uuid);
        if (fill === 'task') await f.task(alice, p.uuid);
        await expectAppError(projects.delete(alice, { projectUuid: p.uuid }), 'CONFLICT', 'Project is not empty');
        expect((await projects.get(alice, { projectUuid: p.uuid })).uuid).toBe(p.uuid);
      }
      const empty = await f.project(alice);
      h.takeEvents();
      await expectAppError(projects.delete(mallory, { projectUuid: empty.uuid }), 'NOT_FOUND', 'Project not found');
      expect(await projects.delete(alice, { projectUuid: empty.uuid })).toEqual({ uuid: empty.uuid, deleted: true });
      await expectAppError(projects.get(alice, { projectUuid: empty.uuid }), 'NOT_FOUND', 'Project not found');
      expect(h.takeEvents()).toEqual([]);
    });

    it('isolates tenants: reads and writes of another company see NOT_FOUND', async () => {
      const p = await f.project(alice);
      await expectAppError(projects.get(mallory, { projectUuid: p.uuid }), 'NOT_FOUND', 'Project not found');
      expect((await projects.list(mallory)).projects.map((x) => x.uuid)).not.toContain(p.uuid);
    });
  });

  describe('ProjectGroupService', () => {
    let carol: Actor;
    beforeAll(async () => {
      const ids = world.ids;
      const c = await ids.company();
      carol = userActor(await ids.user(c.uuid, { name: 'Carol' }));
    });

    it('creates, lists by createdAt asc with ungroupedCount, gets with projects by name', async () => {
      const g1 = await groups.create(carol, { name: ' First ', description: 'd' });
      expect(g1).toEqual({ uuid: expect.any(String), name: 'First', description: 'd', projectCount: 0, createdAt: expect.any(String), updatedAt: expect.any(String), projects: [] });
      const g2 = await f.group(carol, { name: 'Second' });
      await f.project(carol, { name: 'Zeta', groupUuid: g2.uuid });
      await f.project(carol, { name: 'Alpha', groupUuid: g2.uuid });
      await f.project(carol, { name: 'Loose' });
      const list = await groups.list(carol, { page: 1, pageSize: 20 });
      expect(list).toMatchObject({ page: 1, pageSize: 20, total: 2, ungroupedCount: 1 });
      expect(list.groups.map((g) => [g.name, g.projectCount])).toEqual([
        ['First', 0],
        ['Second', 2],
      ]);
      const rec = await groups.get(carol, { groupUuid: g2.uuid });
      expect(rec.projects.map((p) => p.name)).toEqual(['Alpha', 'Zeta']);
      expect(rec.projects[0]).toEqual({ uuid: expect.any(String), name: 'Alpha', description: '' });
      expect((await groups.list(carol, { page: 2, pageSize: 1 })).groups.map((g) => g.name)).toEqual(['Second']);
    });

    it('updates a group, refusing an empty update and another company', async () => {
      const g = await f.group(carol, { name: 'Before' });
      await expectAppError(groups.update(carol, { groupUuid: g.uuid }), 'VALIDATION_ERROR', 'Nothing to update');
      await expectAppError(groups.update(alice, { groupUuid: g.uuid, name: 'X' }), 'NOT_FOUND', 'Project group not found');
      await expectAppError(groups.update(carol, { groupUuid: g.uuid, name: '' }), 'VALIDATION_ERROR');
      expect((await groups.get(carol, { groupUuid: g.uuid })).name).toBe('Before');
      expect(await groups.update(carol, { groupUuid: g.uuid, name: 'After', description: 'new' })).toMatchObject({ name: 'After', description: 'new' });
    });

    it('deletes a group and ungroups its projects', async () => {
      const g = await f.group(carol);
      const p1 = await f.project(carol, { groupUuid: g.uuid });
      const p2 = await f.project(carol, { groupUuid: g.uuid });
      await expectAppError(groups.delete(alice, { groupUuid: g.uuid }), 'NOT_FOUND', 'Project group not found');
      expect(await groups.delete(carol, { groupUuid: g.uuid })).toEqual({ uuid: g.uuid, deleted: true, ungroupedProjects: 2 });
      expect((await projects.get(carol, { projectUuid: p1.uuid })).groupUuid).toBeNull();
      expect((await projects.get(carol, { projectUuid: p2.uuid })).group).toBeNull();
      await expectAppError(groups.get(carol, { groupUuid: g.uuid }), 'NOT_FOUND', 'Project group not found');
      expect(h.takeEvents()).toEqual([]);
    });

    it('builds the dashboard: stats, per-project rates and the 20 newest activities', async () => {
      const g = await f.group(carol, { name: 'Dash' });
      const p1 = await f.project(carol, { name: 'B project', groupUuid: g.uuid });
      const p2 = await f.project(carol, { name: 'A project', groupUuid: g.uuid });
      const outside = await f.project(carol, { name: 'Outside' });
      for (const status of ['done', 'closed', 'open'] as const) await f.task(carol, p1.uuid, { status });
      await f.idea(carol, p1.uuid); // open
      await f.idea(carol, p1.uuid, { state: 'elaborating' });
      await f.idea(carol, p2.uuid, { state: 'elaborated' });
      for (const status of ['draft', 'pending', 'approved', 'closed'] as const) await f.proposal(carol, p2.uuid, { inputUuids: [randomUUID()], status });
      await f.task(carol, outside.uuid, { status: 'done' });
      await f.idea(carol, outside.uuid);
      for (let i = 0; i < 8; i++) await f.idea(carol, p2.uuid, { title: `Bulk ${i}` });
      // 16 activities so far in the group; four more of the outside project must not count, six more inside do.
      for (let i = 0; i < 4; i++) await f.idea(carol, outside.uuid);
      for (let i = 8; i < 14; i++) await f.idea(carol, p2.uuid, { title: `Bulk ${i}` });

      const d = await groups.dashboard(carol, { groupUuid: g.uuid });
      expect(d.group).toMatchObject({ uuid: g.uuid, name: 'Dash', projectCount: 2 });
      expect(d.stats).toEqual({ projectCount: 2, totalTasks: 3, completedTasks: 2, completionRate: 0.67, openIdeas: 16, activeProposals: 2 });
      expect(d.projects).toEqual([
        { uuid: p2.uuid, name: 'A project', taskCount: 0, completionRate: 0 },
        { uuid: p1.uuid, name: 'B project', taskCount: 3, completionRate: 0.67 },
      ]);
      expect(d.recentActivity).toHaveLength(20);
      const times = d.recentActivity.map((a) => a.createdAt);
      expect([...times].sort().reverse()).toEqual(times);
      expect(d.recentActivity[0]).toEqual({
        uuid: expect.any(String),
        projectUuid: p2.uuid,
        targetType: 'idea',
        targetUuid: expect.any(String),
        actor: { type: 'user', uuid: carol.uuid, name: 'Carol' },
        action: 'created',
        value: { title: 'Bulk 13' },
        sessionUuid: null,
        sessionName: null,
        createdAt: expect.any(String),
      });
      expect(d.recentActivity.every((a) => a.projectUuid !== outside.uuid)).toBe(true);

      const empty = await f.group(carol);
      expect(await groups.dashboard(carol, { groupUuid: empty.uuid })).toMatchObject({
        stats: { projectCount: 0, totalTasks: 0, completedTasks: 0, completionRate: 0, openIdeas: 0, activeProposals: 0 },
        projects: [],
        recentActivity: [],
      });
      await expectAppError(groups.dashboard(alice, { groupUuid: g.uuid }), 'NOT_FOUND', 'Project group not found');
    });
  });
});

describe('resolveProjectScope (docs/tool-conventions.md §2) against PostgreSQL', () => {
  let world: World;
  let db: TestDatabase;
  let company: string;
  let g1: string;
  let empty: string;
  let foreignGroup: string;
  let foreignProject: string;
  let p1: string;
  let p2: string;
  let p3: string;

  beforeAll(async () => {
    world = await World.database();
    db = world.db;
    const ids = world.ids;
    const projects = world.get(ProjectService);
    const groups = world.get(ProjectGroupService);
    const a = userActor(await ids.user((await ids.company()).uuid));
    const b = userActor(await ids.user((await ids.company()).uuid));
    company = a.companyUuid;
    g1 = (await groups.create(a, { name: 'G1' })).uuid;
    empty = (await groups.create(a, { name: 'Empty' })).uuid;
    foreignGroup = (await groups.create(b, { name: 'Foreign' })).uuid;
    p1 = (await projects.create(a, { name: 'P1', groupUuid: g1 })).uuid;
    p2 = (await projects.create(a, { name: 'P2', groupUuid: g1 })).uuid;
    p3 = (await projects.create(a, { name: 'P3' })).uuid;
    foreignProject = (await projects.create(b, { name: 'FP', groupUuid: foreignGroup })).uuid;
  });
  afterAll(() => world.close());

  const resolve = (headers: Record<string, string>) => resolveProjectScope(db.dataSource.manager, company, headers);

  it('is null (all projects) without a usable header', async () => {
    expect(await resolve({})).toBeNull();
    expect(await resolve({ 'x-service-project-group': ' ', 'x-service-project': '' })).toBeNull();
  });

  it('resolves a group of the company to its projects, anything else to the empty scope', async () => {
    expect(new Set(await resolve({ 'x-service-project-group': g1, 'x-service-project': p3 }))).toEqual(new Set([p1, p2]));
    for (const group of [empty, foreignGroup, randomUUID(), 'nope']) expect(await resolve({ 'x-service-project-group': group })).toEqual([]);
  });

  it('keeps only the listed projects of the company', async () => {
    expect(new Set(await resolve({ 'x-service-project': ` ${p3}, junk,,${foreignProject},${randomUUID()}, ${p1.toUpperCase()} ` }))).toEqual(new Set([p1, p3]));
    expect(await resolve({ 'x-service-project': `${foreignProject}, junk` })).toEqual([]);
  });
});
