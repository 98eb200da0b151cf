import { randomUUID } from 'node:crypto';
import type { RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { expectRefused, tableRows } from '../utils/mcp-expect.js';
import { World, type WorldAgent } from '../utils/world.js';

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
const ZERO_COUNTS = { ideas: 0, proposals: 0, documents: 0, tasks: 0 };
const ZERO_STATUS = { open: 0, assigned: 0, in_progress: 0, to_verify: 0, done: 0, closed: 0 };

describe('project and group tools (e2e, MCP SDK client)', () => {
  let world: World;
  let events: RealtimeEvent[];
  // Company A (users Alice and Bob): a pm and a developer agent of Alice's, an admin agent of Bob's; company B: Mallory, an admin agent.
  let pm: WorldAgent;
  let dev: WorldAgent;
  let admin: WorldAgent;
  let mallory: WorldAgent;

  beforeAll(async () => {
    world = await World.start();
    const a = await world.company();
    const alice = await world.user(a.uuid, { name: 'Alice' });
    const bob = await world.user(a.uuid, { name: 'Bob' });
    const b = await world.company();
    const malloryUser = await world.user(b.uuid, { name: 'Mallory' });
    pm = await world.agent(a.uuid, alice.uuid, { preset: 'pm_agent', name: 'PM' });
    dev = await world.agent(a.uuid, alice.uuid, { preset: 'developer_agent', name: 'Dev' });
    admin = await world.agent(a.uuid, bob.uuid, { preset: 'admin_agent', name: 'Admin' });
    mallory = await world.agent(b.uuid, malloryUser.uuid, { preset: 'admin_agent', name: 'Mallory' });
    events = world.recordEvents();
  });
  afterAll(() => world.close());
  beforeEach(() => takeEvents());

  const takeEvents = (): RealtimeEvent[] => events.splice(0, events.length);
  /** A refused call: the error code (and message), no change event and the domain tables unchanged; returns the error. */
  const refused = (agent: WorldAgent, name: string, args: Record<string, unknown>, code: string, message?: string) =>
    expectRefused(events, agent, name, args, { code, message, unchanged: () => tableRows(world.ds) });

  describe('svc_admin_create_project_group / svc_admin_create_project', () => {
    it('creates a group (GroupRecord, no projects) and a project inside it (ProjectRecord); no change events', async () => {
      const group = await world.ok(pm, 'svc_admin_create_project_group', { name: '  Platform  ', description: 'All platform work' });
      expect(group).toEqual({ uuid: expect.any(String), name: 'Platform', description: 'All platform work', projectCount: 0, createdAt: ISO, updatedAt: ISO, projects: [] });

      const project = await world.ok(pm, 'svc_admin_create_project', { name: 'API', description: 'The API', groupUuid: group.uuid });
      expect(project).toEqual({
        uuid: expect.any(String),
        name: 'API',
        description: 'The API',
        groupUuid: group.uuid,
        counts: ZERO_COUNTS,
        createdAt: ISO,
        updatedAt: ISO,
        group: { uuid: group.uuid, name: 'Platform' },
        taskStatusCounts: ZERO_STATUS,
      });
      const bare = await world.ok(admin, 'svc_admin_create_project', { name: 'Loose' });
      expect(bare).toMatchObject({ description: '', groupUuid: null, group: null });
      expect(takeEvents()).toEqual([]);
    });

    it('refuses a group of another company or an unknown group with NOT_FOUND "Project group not found"', async () => {
      const foreign = await world.ok(mallory, 'svc_admin_create_project_group', { name: 'Theirs' });
      await refused(pm, 'svc_admin_create_project', { name: 'X', groupUuid: foreign.uuid }, 'NOT_FOUND', 'Project group not found');
      await refused(pm, 'svc_admin_create_project', { name: 'X', groupUuid: randomUUID() }, 'NOT_FOUND', 'Project group not found');
    });

    it('refuses a blank name after trimming', async () => {
      await refused(pm, 'svc_admin_create_project', { name: '   ' }, 'VALIDATION_ERROR');
      await refused(pm, 'svc_admin_create_project_group', { name: '   ' }, 'VALIDATION_ERROR');
    });
  });

  describe('reads', () => {
    let groupUuid: string;
    let p1: string;
    let p2: string;
    let ungroupedBefore: number;

    beforeAll(async () => {
      ungroupedBefore = (await world.ok(dev, 'svc_get_project_groups')).ungroupedCount;
      groupUuid = (await world.ok(pm, 'svc_admin_create_project_group', { name: 'Reads group' })).uuid;
      p1 = (await world.ok(pm, 'svc_admin_create_project', { name: 'Zeta', groupUuid })).uuid;
      p2 = (await world.ok(pm, 'svc_admin_create_project', { name: 'Alpha', groupUuid })).uuid;
      await world.ok(pm, 'svc_admin_create_project', { name: 'Ungrouped' });
      const by = pm.actor;
      const idea = await world.domain.idea(by, p1, { state: 'elaborated' });
      await world.domain.idea(by, p1);
      await world.domain.idea(by, p2, { state: 'elaborated' });
      const proposal = await world.domain.proposal(by, p1, { inputUuids: [idea.uuid], status: 'pending' });
      await world.domain.proposal(by, p2, { inputUuids: [], status: 'closed' });
      await world.domain.task(by, p1, { proposalUuid: proposal.uuid, status: 'done' });
      await world.domain.task(by, p1, { status: 'closed' });
      await world.domain.task(by, p1, { status: 'in_progress' });
      await world.domain.task(by, p2, { status: 'open' });
      await world.domain.document(by, p1);
    });

    it('svc_list_projects lists the company projects by updatedAt desc with counts and paging', async () => {
      const mine = await world.ok(dev, 'svc_list_projects', { pageSize: 100 });
      expect(mine).toMatchObject({ page: 1, pageSize: 100, total: mine.projects.length });
      const updated = mine.projects.map((p: any) => p.updatedAt);
      expect([...updated].sort().reverse()).toEqual(updated);
      const zeta = mine.projects.find((p: any) => p.uuid === p1);
      expect(zeta).toEqual({ uuid: p1, name: 'Zeta', description: '', groupUuid, counts: { ideas: 2, proposals: 1, documents: 1, tasks: 3 }, createdAt: ISO, updatedAt: ISO });
      const theirs = await world.ok(mallory, 'svc_list_projects');
      expect(theirs.projects.map((p: any) => p.uuid)).not.toContain(p1);

      const page2 = await world.ok(dev, 'svc_list_projects', { page: 2, pageSize: 1 });
      expect(page2.projects).toEqual([mine.projects[1]]);
      expect(page2.total).toBe(mine.total);
    });

    it('svc_get_project returns the ProjectRecord with group and task status counts', async () => {
      const p = await world.ok(dev, 'svc_get_project', { projectUuid: p1 });
      expect(p).toMatchObject({
        uuid: p1,
        group: { uuid: groupUuid, name: 'Reads group' },
        counts: { ideas: 2, proposals: 1, documents: 1, tasks: 3 },
        taskStatusCounts: { ...ZERO_STATUS, done: 1, closed: 1, in_progress: 1 },
      });
      await refused(dev, 'svc_get_project', { projectUuid: randomUUID() }, 'NOT_FOUND', 'Project not found');
    });

    it('svc_get_project_groups lists groups by createdAt asc with project counts and ungroupedCount', async () => {
      const res = await world.ok(dev, 'svc_get_project_groups', { pageSize: 100 });
      expect(res).toMatchObject({ page: 1, pageSize: 100, total: res.groups.length, ungroupedCount: ungroupedBefore + 1 });
      const created = res.groups.map((g: any) => g.createdAt);
      expect([...created].sort()).toEqual(created);
      expect(res.groups.find((g: any) => g.uuid === groupUuid)).toEqual({ uuid: groupUuid, name: 'Reads group', description: '', projectCount: 2, createdAt: ISO, updatedAt: ISO });
      const theirs = await world.ok(mallory, 'svc_get_project_groups');
      expect(theirs.groups.map((g: any) => g.uuid)).not.toContain(groupUuid);
    });

    it('svc_get_project_group returns the GroupRecord with its projects by name', async () => {
      const g = await world.ok(dev, 'svc_get_project_group', { groupUuid });
      expect(g).toMatchObject({ uuid: groupUuid, projectCount: 2 });
      expect(g.projects).toEqual([
        { uuid: p2, name: 'Alpha', description: '' },
        { uuid: p1, name: 'Zeta', description: '' },
      ]);
      await refused(dev, 'svc_get_project_group', { groupUuid: randomUUID() }, 'NOT_FOUND', 'Project group not found');
    });

    it('svc_get_group_dashboard computes completion, open ideas, active proposals and recent activity', async () => {
      const d = await world.ok(dev, 'svc_get_group_dashboard', { groupUuid });
      expect(d.group).toEqual({ uuid: groupUuid, name: 'Reads group', description: '', projectCount: 2, createdAt: ISO, updatedAt: ISO });
      expect(d.stats).toEqual({ projectCount: 2, totalTasks: 4, completedTasks: 2, completionRate: 0.5, openIdeas: 1, activeProposals: 1 });
      expect(d.projects).toEqual([
        { uuid: p2, name: 'Alpha', taskCount: 1, completionRate: 0 },
        { uuid: p1, name: 'Zeta', taskCount: 3, completionRate: 0.67 },
      ]);
      expect(d.recentActivity.length).toBeGreaterThan(0);
      expect(d.recentActivity.length).toBeLessThanOrEqual(20);
      expect(d.recentActivity[0]).toEqual(
        expect.objectContaining({ uuid: expect.any(String), projectUuid: expect.any(String), actor: expect.objectContaining({ type: 'agent' }), createdAt: ISO }),
      );
      await refused(dev, 'svc_get_group_dashboard', { groupUuid: randomUUID() }, 'NOT_FOUND', 'Project group not found');
    });
  });

  describe('svc_admin_update_project_group', () => {
    it('renames and re-describes a group; changes nothing else; no events', async () => {
      const g = await world.ok(pm, 'svc_admin_create_project_group', { name: 'Old', description: 'old' });
      const renamed = await world.ok(pm, 'svc_admin_update_project_group', { groupUuid: g.uuid, name: 'New' });
      expect(renamed).toMatchObject({ uuid: g.uuid, name: 'New', description: 'old', projects: [] });
      const described = await world.ok(pm, 'svc_admin_update_project_group', { groupUuid: g.uuid, description: 'fresh' });
      expect(described).toMatchObject({ name: 'New', description: 'fresh' });
      expect(takeEvents()).toEqual([]);
    });

    it('refuses "Nothing to update" and an unknown group', async () => {
      const g = await world.ok(pm, 'svc_admin_create_project_group', { name: 'Stay' });
      await refused(pm, 'svc_admin_update_project_group', { groupUuid: g.uuid }, 'VALIDATION_ERROR', 'Nothing to update');
      await refused(pm, 'svc_admin_update_project_group', { groupUuid: randomUUID(), name: 'X' }, 'NOT_FOUND', 'Project group not found');
    });
  });

  describe('svc_admin_delete_project_group', () => {
    it('deletes the group and leaves its projects ungrouped', async () => {
      const g = await world.ok(pm, 'svc_admin_create_project_group', { name: 'Doomed' });
      const a = await world.ok(pm, 'svc_admin_create_project', { name: 'A', groupUuid: g.uuid });
      await world.ok(pm, 'svc_admin_create_project', { name: 'B', groupUuid: g.uuid });
      const res = await world.ok(pm, 'svc_admin_delete_project_group', { groupUuid: g.uuid });
      expect(res).toEqual({ uuid: g.uuid, deleted: true, ungroupedProjects: 2 });
      expect(await world.ok(pm, 'svc_get_project', { projectUuid: a.uuid })).toMatchObject({ groupUuid: null, group: null });
      await refused(pm, 'svc_get_project_group', { groupUuid: g.uuid }, 'NOT_FOUND', 'Project group not found');
      await refused(pm, 'svc_admin_delete_project_group', { groupUuid: g.uuid }, 'NOT_FOUND', 'Project group not found');
      expect(takeEvents()).toEqual([]);
    });
  });

  describe('svc_admin_move_project_to_group', () => {
    it('moves a project into a group and out of every group with null', async () => {
      const g = await world.ok(pm, 'svc_admin_create_project_group', { name: 'Target' });
      const p = await world.ok(pm, 'svc_admin_create_project', { name: 'Mover' });
      const moved = await world.ok(pm, 'svc_admin_move_project_to_group', { projectUuid: p.uuid, groupUuid: g.uuid });
      expect(moved).toMatchObject({ uuid: p.uuid, groupUuid: g.uuid, group: { uuid: g.uuid, name: 'Target' } });
      expect((await world.ok(pm, 'svc_get_project_group', { groupUuid: g.uuid })).projects.map((x: any) => x.uuid)).toEqual([p.uuid]);
      const out = await world.ok(pm, 'svc_admin_move_project_to_group', { projectUuid: p.uuid, groupUuid: null });
      expect(out).toMatchObject({ uuid: p.uuid, groupUuid: null, group: null });
      // Idempotent: ungrouping an ungrouped project succeeds unchanged.
      expect(await world.ok(pm, 'svc_admin_move_project_to_group', { projectUuid: p.uuid, groupUuid: null })).toMatchObject({ groupUuid: null, updatedAt: out.updatedAt });
      expect(takeEvents()).toEqual([]);
    });

    it('requires the groupUuid key and refuses unknown projects and groups', async () => {
      const p = await world.ok(pm, 'svc_admin_create_project', { name: 'Stays' });
      const err = await refused(pm, 'svc_admin_move_project_to_group', { projectUuid: p.uuid }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(err.details).toEqual([expect.objectContaining({ path: 'groupUuid' })]);
      await refused(pm, 'svc_admin_move_project_to_group', { projectUuid: randomUUID(), groupUuid: null }, 'NOT_FOUND', 'Project not found');
      await refused(pm, 'svc_admin_move_project_to_group', { projectUuid: p.uuid, groupUuid: randomUUID() }, 'NOT_FOUND', 'Project group not found');
    });
  });

  describe('tenant isolation', () => {
    it("answers another company's project and group uuids with NOT_FOUND", async () => {
      const g = await world.ok(pm, 'svc_admin_create_project_group', { name: 'Private' });
      const p = await world.ok(pm, 'svc_admin_create_project', { name: 'Private', groupUuid: g.uuid });
      const theirGroup = await world.ok(mallory, 'svc_admin_create_project_group', { name: 'Theirs' });
      const m = mallory;
      await refused(m, 'svc_get_project', { projectUuid: p.uuid }, 'NOT_FOUND', 'Project not found');
      await refused(m, 'svc_get_project_group', { groupUuid: g.uuid }, 'NOT_FOUND', 'Project group not found');
      await refused(m, 'svc_get_group_dashboard', { groupUuid: g.uuid }, 'NOT_FOUND', 'Project group not found');
      await refused(m, 'svc_admin_update_project_group', { groupUuid: g.uuid, name: 'Owned' }, 'NOT_FOUND', 'Project group not found');
      await refused(m, 'svc_admin_delete_project_group', { groupUuid: g.uuid }, 'NOT_FOUND', 'Project group not found');
      await refused(m, 'svc_admin_move_project_to_group', { projectUuid: p.uuid, groupUuid: null }, 'NOT_FOUND', 'Project not found');
      await refused(pm, 'svc_admin_move_project_to_group', { projectUuid: p.uuid, groupUuid: theirGroup.uuid }, 'NOT_FOUND', 'Project group not found');
    });
  });

  describe('arguments and permissions', () => {
    it('answers a wrong type, an unknown argument and a malformed uuid with VALIDATION_ERROR details', async () => {
      const wrongType = await refused(pm, 'svc_list_projects', { pageSize: '20' }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(wrongType.details).toEqual([{ path: 'pageSize', message: expect.any(String) }]);
      const unknown = await refused(pm, 'svc_admin_create_project_group', { name: 'G', colour: 'red' }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(unknown.details).toEqual([{ path: 'colour', message: 'should not exist' }]);
      const malformed = await refused(pm, 'svc_get_project', { projectUuid: 'not-a-uuid' }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(malformed.details).toEqual([{ path: 'projectUuid', message: expect.any(String) }]);
      const range = await refused(pm, 'svc_get_project_groups', { page: 0, pageSize: 101 }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(range.details.map((d: any) => d.path).sort()).toEqual(['page', 'pageSize']);
      const long = await refused(pm, 'svc_admin_create_project', { name: 'x'.repeat(201) }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(long.details).toEqual([{ path: 'name', message: expect.any(String) }]);
    });

    it('lists the reads to everyone and the admin tools only with project:write, with their hints', async () => {
      const admin = ['svc_admin_create_project', 'svc_admin_create_project_group', 'svc_admin_update_project_group', 'svc_admin_delete_project_group', 'svc_admin_move_project_to_group'];
      const reads = ['svc_list_projects', 'svc_get_project', 'svc_get_project_groups', 'svc_get_project_group', 'svc_get_group_dashboard'];
      const devTools = (await dev.client.listTools()).tools;
      const names = devTools.map((t) => t.name);
      for (const n of reads) expect(names).toContain(n);
      for (const n of admin) expect(names).not.toContain(n);
      const pmTools = new Map((await pm.client.listTools()).tools.map((t) => [t.name, t]));
      for (const n of admin) expect(pmTools.has(n)).toBe(true);
      const hint = (n: string) => {
        const a = pmTools.get(n)!.annotations!;
        return [a.readOnlyHint, a.destructiveHint, a.idempotentHint, a.openWorldHint];
      };
      expect(hint('svc_list_projects')).toEqual([true, false, true, false]);
      expect(hint('svc_admin_create_project')).toEqual([false, false, false, false]);
      expect(hint('svc_admin_update_project_group')).toEqual([false, false, true, false]);
      expect(hint('svc_admin_move_project_to_group')).toEqual([false, false, true, false]);
      expect(hint('svc_admin_delete_project_group')).toEqual([false, true, true, false]);
      const move = pmTools.get('svc_admin_move_project_to_group')!.inputSchema as any;
      expect(move.required.sort()).toEqual(['groupUuid', 'projectUuid']);
      expect(move.additionalProperties).toBe(false);

      await expect(dev.client.callTool({ name: 'svc_admin_create_project', arguments: { name: 'Nope' } })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Unknown tool: svc_admin_create_project'),
      });
    });
  });
});
