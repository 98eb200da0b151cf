import { randomUUID } from 'node:crypto';
import { createIdeaToolWorld, type IdeaToolWorld } from '../utils/mcp-world.js';

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
const ZERO_COUNTS = { ideas: 0, proposals: 0, documents: 0, tasks: 0 };
const ZERO_STATUS = { open: 0, assigned: 0, in_progress: 0, to_verify: 0, done: 0, closed: 0 };

describe('project and group tools (e2e, MCP SDK client)', () => {
  let w: IdeaToolWorld;

  beforeAll(async () => {
    w = await createIdeaToolWorld();
  });
  afterAll(() => w.close());
  beforeEach(() => w.takeEvents());

  describe('svc_admin_create_project_group / svc_admin_create_project', () => {
    it('creates a group (GroupRecord, no projects) and a project inside it (ProjectRecord); no change events', async () => {
      const group = await w.ok(w.pm, 'svc_admin_create_project_group', { name: '  Platform  ', description: 'All platform work' });
      expect(group).toEqual({ uuid: expect.any(String), name: 'Platform', description: 'All platform work', projectCount: 0, createdAt: ISO, updatedAt: ISO, projects: [] });

      const project = await w.ok(w.pm, 'svc_admin_create_project', { name: 'API', description: 'The API', groupUuid: group.uuid });
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
      const bare = await w.ok(w.admin, 'svc_admin_create_project', { name: 'Loose' });
      expect(bare).toMatchObject({ description: '', groupUuid: null, group: null });
      expect(w.takeEvents()).toEqual([]);
    });

    it('refuses a group of another company or an unknown group with NOT_FOUND "Project group not found"', async () => {
      const foreign = await w.ok(w.mallory, 'svc_admin_create_project_group', { name: 'Theirs' });
      await w.refused(w.pm, 'svc_admin_create_project', { name: 'X', groupUuid: foreign.uuid }, 'NOT_FOUND', 'Project group not found');
      await w.refused(w.pm, 'svc_admin_create_project', { name: 'X', groupUuid: randomUUID() }, 'NOT_FOUND', 'Project group not found');
    });

    it('refuses a blank name after trimming', async () => {
      await w.refused(w.pm, 'svc_admin_create_project', { name: '   ' }, 'VALIDATION_ERROR');
      await w.refused(w.pm, 'svc_admin_create_project_group', { name: '   ' }, 'VALIDATION_ERROR');
    });
  });

  describe('reads', () => {
    let groupUuid: string;
    let p1: string;
    let p2: string;
    let ungroupedBefore: number;

    beforeAll(async () => {
      ungroupedBefore = (await w.ok(w.dev, 'svc_get_project_groups')).ungroupedCount;
      groupUuid = (await w.ok(w.pm, 'svc_admin_create_project_group', { name: 'Reads group' })).uuid;
      p1 = (await w.ok(w.pm, 'svc_admin_create_project', { name: 'Zeta', groupUuid })).uuid;
      p2 = (await w.ok(w.pm, 'svc_admin_create_project', { name: 'Alpha', groupUuid })).uuid;
      await w.ok(w.pm, 'svc_admin_create_project', { name: 'Ungrouped' });
      const pm = w.pm.actor;
      const idea = await w.f.idea(pm, p1, { state: 'elaborated' });
      await w.f.idea(pm, p1);
      await w.f.idea(pm, p2, { state: 'elaborated' });
      const proposal = await w.f.proposal(pm, p1, { inputUuids: [idea.uuid], status: 'pending' });
      await w.f.proposal(pm, p2, { inputUuids: [], status: 'closed' });
      await w.f.task(pm, p1, { proposalUuid: proposal.uuid, status: 'done' });
      await w.f.task(pm, p1, { status: 'closed' });
      await w.f.task(pm, p1, { status: 'in_progress' });
      await w.f.task(pm, p2, { status: 'open' });
      await w.f.document(pm, p1);
    });

    it('svc_list_projects lists the company projects by updatedAt desc with counts and paging', async () => {
      const mine = await w.ok(w.dev, 'svc_list_projects', { pageSize: 100 });
      expect(mine).toMatchObject({ page: 1, pageSize: 100, total: mine.projects.length });
      const updated = mine.projects.map((p: any) => p.updatedAt);
      expect([...updated].sort().reverse()).toEqual(updated);
      const zeta = mine.projects.find((p: any) => p.uuid === p1);
      expect(zeta).toEqual({ uuid: p1, name: 'Zeta', description: '', groupUuid, counts: { ideas: 2, proposals: 1, documents: 1, tasks: 3 }, createdAt: ISO, updatedAt: ISO });
      const theirs = await w.ok(w.mallory, 'svc_list_projects');
      expect(theirs.projects.map((p: any) => p.uuid)).not.toContain(p1);

      const page2 = await w.ok(w.dev, 'svc_list_projects', { page: 2, pageSize: 1 });
      expect(page2.projects).toEqual([mine.projects[1]]);
      expect(page2.total).toBe(mine.total);
    });

    it('svc_get_project returns the ProjectRecord with group and task status counts', async () => {
      const p = await w.ok(w.dev, 'svc_get_project', { projectUuid: p1 });
      expect(p).toMatchObject({
        uuid: p1,
        group: { uuid: groupUuid, name: 'Reads group' },
        counts: { ideas: 2, proposals: 1, documents: 1, tasks: 3 },
        taskStatusCounts: { ...ZERO_STATUS, done: 1, closed: 1, in_progress: 1 },
      });
      await w.refused(w.dev, 'svc_get_project', { projectUuid: randomUUID() }, 'NOT_FOUND', 'Project not found');
    });

    it('svc_get_project_groups lists groups by createdAt asc with project counts and ungroupedCount', async () => {
      const res = await w.ok(w.dev, 'svc_get_project_groups', { pageSize: 100 });
      expect(res).toMatchObject({ page: 1, pageSize: 100, total: res.groups.length, ungroupedCount: ungroupedBefore + 1 });
      const created = res.groups.map((g: any) => g.createdAt);
      expect([...created].sort()).toEqual(created);
      expect(res.groups.find((g: any) => g.uuid === groupUuid)).toEqual({ uuid: groupUuid, name: 'Reads group', description: '', projectCount: 2, createdAt: ISO, updatedAt: ISO });
      const theirs = await w.ok(w.mallory, 'svc_get_project_groups');
      expect(theirs.groups.map((g: any) => g.uuid)).not.toContain(groupUuid);
    });

    it('svc_get_project_group returns the GroupRecord with its projects by name', async () => {
      const g = await w.ok(w.dev, 'svc_get_project_group', { groupUuid });
      expect(g).toMatchObject({ uuid: groupUuid, projectCount: 2 });
      expect(g.projects).toEqual([
        { uuid: p2, name: 'Alpha', description: '' },
        { uuid: p1, name: 'Zeta', description: '' },
      ]);
      await w.refused(w.dev, 'svc_get_project_group', { groupUuid: randomUUID() }, 'NOT_FOUND', 'Project group not found');
    });

    it('svc_get_group_dashboard computes completion, open ideas, active proposals and recent activity', async () => {
      const d = await w.ok(w.dev, 'svc_get_group_dashboard', { groupUuid });
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
      await w.refused(w.dev, 'svc_get_group_dashboard', { groupUuid: randomUUID() }, 'NOT_FOUND', 'Project group not found');
    });
  });

  describe('svc_admin_update_project_group', () => {
    it('renames and re-describes a group; changes nothing else; no events', async () => {
      const g = await w.ok(w.pm, 'svc_admin_create_project_group', { name: 'Old', description: 'old' });
      const renamed = await w.ok(w.pm, 'svc_admin_update_project_group', { groupUuid: g.uuid, name: 'New' });
      expect(renamed).toMatchObject({ uuid: g.uuid, name: 'New', description: 'old', projects: [] });
      const described = await w.ok(w.pm, 'svc_admin_update_project_group', { groupUuid: g.uuid, description: 'fresh' });
      expect(described).toMatchObject({ name: 'New', description: 'fresh' });
      expect(w.takeEvents()).toEqual([]);
    });

    it('refuses "Nothing to update" and an unknown group', async () => {
      const g = await w.ok(w.pm, 'svc_admin_create_project_group', { name: 'Stay' });
      await w.refused(w.pm, 'svc_admin_update_project_group', { groupUuid: g.uuid }, 'VALIDATION_ERROR', 'Nothing to update');
      await w.refused(w.pm, 'svc_admin_update_project_group', { groupUuid: randomUUID(), name: 'X' }, 'NOT_FOUND', 'Project group not found');
    });
  });

  describe('svc_admin_delete_project_group', () => {
    it('deletes the group and leaves its projects ungrouped', async () => {
      const g = await w.ok(w.pm, 'svc_admin_create_project_group', { name: 'Doomed' });
      const a = await w.ok(w.pm, 'svc_admin_create_project', { name: 'A', groupUuid: g.uuid });
      await w.ok(w.pm, 'svc_admin_create_project', { name: 'B', groupUuid: g.uuid });
      const res = await w.ok(w.pm, 'svc_admin_delete_project_group', { groupUuid: g.uuid });
      expect(res).toEqual({ uuid: g.uuid, deleted: true, ungroupedProjects: 2 });
      expect(await w.ok(w.pm, 'svc_get_project', { projectUuid: a.uuid })).toMatchObject({ groupUuid: null, group: null });
      await w.refused(w.pm, 'svc_get_project_group', { groupUuid: g.uuid }, 'NOT_FOUND', 'Project group not found');
      await w.refused(w.pm, 'svc_admin_delete_project_group', { groupUuid: g.uuid }, 'NOT_FOUND', 'Project group not found');
      expect(w.takeEvents()).toEqual([]);
    });
  });

  describe('svc_admin_move_project_to_group', () => {
    it('moves a project into a group and out of every group with null', async () => {
      const g = await w.ok(w.pm, 'svc_admin_create_project_group', { name: 'Target' });
      const p = await w.ok(w.pm, 'svc_admin_create_project', { name: 'Mover' });
      const moved = await w.ok(w.pm, 'svc_admin_move_project_to_group', { projectUuid: p.uuid, groupUuid: g.uuid });
      expect(moved).toMatchObject({ uuid: p.uuid, groupUuid: g.uuid, group: { uuid: g.uuid, name: 'Target' } });
      expect((await w.ok(w.pm, 'svc_get_project_group', { groupUuid: g.uuid })).projects.map((x: any) => x.uuid)).toEqual([p.uuid]);
      const out = await w.ok(w.pm, 'svc_admin_move_project_to_group', { projectUuid: p.uuid, groupUuid: null });
      expect(out).toMatchObject({ uuid: p.uuid, groupUuid: null, group: null });
      // Idempotent: ungrouping an ungrouped project succeeds unchanged.
      expect(await w.ok(w.pm, 'svc_admin_move_project_to_group', { projectUuid: p.uuid, groupUuid: null })).toMatchObject({ groupUuid: null, updatedAt: out.updatedAt });
      expect(w.takeEvents()).toEqual([]);
    });

    it('requires the groupUuid key and refuses unknown projects and groups', async () => {
      const p = await w.ok(w.pm, 'svc_admin_create_project', { name: 'Stays' });
      const err = await w.refused(w.pm, 'svc_admin_move_project_to_group', { projectUuid: p.uuid }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(err.details).toEqual([expect.objectContaining({ path: 'groupUuid' })]);
      await w.refused(w.pm, 'svc_admin_move_project_to_group', { projectUuid: randomUUID(), groupUuid: null }, 'NOT_FOUND', 'Project not found');
      await w.refused(w.pm, 'svc_admin_move_project_to_group', { projectUuid: p.uuid, groupUuid: randomUUID() }, 'NOT_FOUND', 'Project group not found');
    });
  });

  describe('tenant isolation', () => {
    it("answers another company's project and group uuids with NOT_FOUND", async () => {
      const g = await w.ok(w.pm, 'svc_admin_create_project_group', { name: 'Private' });
      const p = await w.ok(w.pm, 'svc_admin_create_project', { name: 'Private', groupUuid: g.uuid });
      const theirGroup = await w.ok(w.mallory, 'svc_admin_create_project_group', { name: 'Theirs' });
      const m = w.mallory;
      await w.refused(m, 'svc_get_project', { projectUuid: p.uuid }, 'NOT_FOUND', 'Project not found');
      await w.refused(m, 'svc_get_project_group', { groupUuid: g.uuid }, 'NOT_FOUND', 'Project group not found');
      await w.refused(m, 'svc_get_group_dashboard', { groupUuid: g.uuid }, 'NOT_FOUND', 'Project group not found');
      await w.refused(m, 'svc_admin_update_project_group', { groupUuid: g.uuid, name: 'Owned' }, 'NOT_FOUND', 'Project group not found');
      await w.refused(m, 'svc_admin_delete_project_group', { groupUuid: g.uuid }, 'NOT_FOUND', 'Project group not found');
      await w.refused(m, 'svc_admin_move_project_to_group', { projectUuid: p.uuid, groupUuid: null }, 'NOT_FOUND', 'Project not found');
      await w.refused(w.pm, 'svc_admin_move_project_to_group', { projectUuid: p.uuid, groupUuid: theirGroup.uuid }, 'NOT_FOUND', 'Project group not found');
    });
  });

  describe('arguments and permissions', () => {
    it('answers a wrong type, an unknown argument and a malformed uuid with VALIDATION_ERROR details', async () => {
      const wrongType = await w.refused(w.pm, 'svc_list_projects', { pageSize: '20' }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(wrongType.details).toEqual([{ path: 'pageSize', message: expect.any(String) }]);
      const unknown = await w.refused(w.pm, 'svc_admin_create_project_group', { name: 'G', colour: 'red' }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(unknown.details).toEqual([{ path: 'colour', message: 'should not exist' }]);
      const malformed = await w.refused(w.pm, 'svc_get_project', { projectUuid: 'not-a-uuid' }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(malformed.details).toEqual([{ path: 'projectUuid', message: expect.any(String) }]);
      const range = await w.refused(w.pm, 'svc_get_project_groups', { page: 0, pageSize: 101 }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(range.details.map((d: any) => d.path).sort()).toEqual(['page', 'pageSize']);
      const long = await w.refused(w.pm, 'svc_admin_create_project', { name: 'x'.repeat(201) }, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(long.details).toEqual([{ path: 'name', message: expect.any(String) }]);
    });

    it('lists the reads to everyone and the admin tools only with project:write, with their hints', async () => {
      const admin = ['svc_admin_create_project', 'svc_admin_create_project_group', 'svc_admin_update_project_group', 'svc_admin_delete_project_group', 'svc_admin_move_project_to_group'];
      const reads = ['svc_list_projects', 'svc_get_project', 'svc_get_project_groups', 'svc_get_project_group', 'svc_get_group_dashboard'];
      const devTools = (await w.dev.client.listTools()).tools;
      const names = devTools.map((t) => t.name);
      for (const n of reads) expect(names).toContain(n);
      for (const n of admin) expect(names).not.toContain(n);
      const pmTools = new Map((await w.pm.client.listTools()).tools.map((t) => [t.name, t]));
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

      await expect(w.dev.client.callTool({ name: 'svc_admin_create_project', arguments: { name: 'Nope' } })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Unknown tool: svc_admin_create_project'),
      });
    });
  });
});
