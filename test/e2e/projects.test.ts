import { randomUUID } from 'node:crypto';
import type { Actor } from '../../src/shared/auth/actor.js';
import { ChangeEvents } from '../utils/change-events.js';
import type { HttpClient } from '../utils/http.js';
import { expectError, expectValidation } from '../utils/rest-expect.js';
import { userActor, World, type WorldAgent } from '../utils/world.js';
import type { RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { expectRefused, tableRows } from '../utils/mcp-expect.js';

/** One app for the whole file; each block below seeds companies of its own. */
let world: World;
beforeAll(async () => {
  world = await World.start();
});
afterAll(() => world.close());

describe('projects over REST', () => {
  const TASK_COUNTS = { open: 0, assigned: 0, in_progress: 0, to_verify: 0, done: 0, closed: 0 };
  const COUNTS = { ideas: 0, proposals: 0, documents: 0, tasks: 0 };

  describe('REST projects and project groups (e2e)', () => {
    let changes: ChangeEvents;
    /** A logged-in user of company A (with its Actor, for seeding) and one of company B. */
    let companyA: string;
    let actorA: Actor;
    let clientA: HttpClient;
    let clientB: HttpClient;

    beforeAll(async () => {
      companyA = (await world.company()).uuid;
      const userA = await world.user(companyA);
      actorA = userActor(userA);
      clientA = await world.login(userA);
      clientB = await world.login(await world.user((await world.company()).uuid));
    });

    beforeEach(async () => {
      changes = await ChangeEvents.open(world, clientA.cookie!, companyA);
    });
    afterEach(() => changes.close());

    const createProject = async (body: Record<string, unknown> = {}) => {
      const res = await clientA.post('/api/projects', { name: `P ${randomUUID().slice(0, 6)}`, ...body });
      expect(res.status).toBe(201);
      return res.body.data;
    };
    const createGroup = async (name = `G ${randomUUID().slice(0, 6)}`) => {
      const res = await clientA.post('/api/project-groups', { name });
      expect(res.status).toBe(201);
      return res.body.data;
    };

    it('answers 401 on every route without a session cookie', async () => {
      const id = randomUUID();
      const routes: Array<[string, string]> = [
        ['GET', '/api/projects'],
        ['POST', '/api/projects'],
        ['GET', `/api/projects/${id}`],
        ['PATCH', `/api/projects/${id}`],
        ['DELETE', `/api/projects/${id}`],
        ['GET', '/api/project-groups'],
        ['POST', '/api/project-groups'],
        ['GET', `/api/project-groups/${id}`],
        ['PATCH', `/api/project-groups/${id}`],
        ['DELETE', `/api/project-groups/${id}`],
        ['GET', `/api/project-groups/${id}/dashboard`],
      ];
      for (const [method, path] of routes) {
        const res = await world.http().request(method, path, method === 'GET' || method === 'DELETE' ? {} : { json: { name: 'x' } });
        expectError(res, 401, 'UNAUTHORIZED');
      }
      await changes.expectQuiet();
    });

    describe('projects', () => {
      it('creates a project (201, ProjectRecord, trimmed name) and publishes no change event', async () => {
        const res = await clientA.post('/api/projects', { name: '  Checkout  ', description: 'Pay flow' });
        expect(res.status).toBe(201);
        expect(res.body).toEqual({
          success: true,
          data: {
            uuid: expect.any(String),
            name: 'Checkout',
            description: 'Pay flow',
            groupUuid: null,
            counts: COUNTS,
            createdAt: expect.any(String),
            updatedAt: expect.any(String),
            group: null,
            taskStatusCounts: TASK_COUNTS,
          },
        });
        const group = await createGroup('Web');
        const inGroup = await createProject({ groupUuid: group.uuid });
        expect(inGroup.group).toEqual({ uuid: group.uuid, name: 'Web' });
        await changes.expectQuiet();
      });

      it('refuses invalid input with VALIDATION_ERROR details and a foreign group with 404, creating nothing', async () => {
        const before = (await clientA.get('/api/projects?pageSize=100')).body.data.total;
        expectValidation(await clientA.post('/api/projects', {}), 'name');
        expectValidation(await clientA.post('/api/projects', { name: '   ' }), 'name');
        expectValidation(await clientA.post('/api/projects', { name: 'x'.repeat(201) }), 'name');
        expectValidation(await clientA.post('/api/projects', { name: 'X', groupUuid: 'nope' }), 'groupUuid');
        expectValidation(await clientA.post('/api/projects', { name: 'X', color: 'red' }), 'color');
        const foreignGroup = (await clientB.post('/api/project-groups', { name: 'B' })).body.data.uuid;
        expectError(await clientA.post('/api/projects', { name: 'X', groupUuid: foreignGroup }), 404, 'NOT_FOUND', 'Project group not found');
        expect((await clientA.get('/api/projects?pageSize=100')).body.data.total).toBe(before);
        await changes.expectQuiet();
      });

      it('lists the company projects, newest update first, with page/pageSize validated and limit/offset clamped', async () => {
        const mine = [await createProject(), await createProject(), await createProject()];
        await clientB.post('/api/projects', { name: 'Theirs' });
        const all = await clientA.get('/api/projects?pageSize=100');
        expect(all.status).toBe(200);
        const uuids: string[] = all.body.data.projects.map((p: { uuid: string }) => p.uuid);
        expect(all.body.data).toEqual({ projects: expect.any(Array), page: 1, pageSize: 100, total: uuids.length });
        expect(uuids.slice(0, 3)).toEqual(mine.map((p) => p.uuid).reverse());
        expect(all.body.data.projects.some((p: { name: string }) => p.name === 'Theirs')).toBe(false);
        expect(all.body.data.projects[0]).toEqual(expect.objectContaining({ uuid: mine[2].uuid, counts: COUNTS }));
        expect(all.body.data.projects[0].taskStatusCounts).toBeUndefined();

        const page2 = await clientA.get('/api/projects?page=2&pageSize=1');
        expect(page2.body.data).toEqual(expect.objectContaining({ page: 2, pageSize: 1, total: uuids.length }));
        expect(page2.body.data.projects.map((p: { uuid: string }) => p.uuid)).toEqual([uuids[1]]);
        const clamped = await clientA.get('/api/projects?limit=0&offset=-3');
        expect(clamped.body.data).toEqual(expect.objectContaining({ page: 1, pageSize: 1 }));
        expect(clamped.body.data.projects.map((p: { uuid: string }) => p.uuid)).toEqual([uuids[0]]);
        const big = await clientA.get('/api/projects?limit=1000&offset=1');
        expect(big.body.data.pageSize).toBe(100);
        expect(big.body.data.projects.map((p: { uuid: string }) => p.uuid)).toEqual(uuids.slice(1));

        expectValidation(await clientA.get('/api/projects?pageSize=500'), 'pageSize');
        expectValidation(await clientA.get('/api/projects?page=0'), 'page');
        expectValidation(await clientA.get('/api/projects?page=x'), 'page');
        // Unknown query parameters (cache-busters, tracking) are ignored, never refused.
        const extra = await clientA.get('/api/projects?sort=name&_=123');
        expect(extra.status).toBe(200);
        expect(extra.body.data.total).toBe(uuids.length);
      });

      it('gets a project; missing, foreign and malformed uuids are 404 "Project not found"', async () => {
        const p = await createProject({ description: 'D' });
        const res = await clientA.get(`/api/projects/${p.uuid}`);
        expect(res.status).toBe(200);
        expect(res.body.data).toEqual(p);
        const foreign = (await clientB.post('/api/projects', { name: 'B' })).body.data.uuid;
        for (const id of [randomUUID(), foreign, 'not-a-uuid']) {
          expectError(await clientA.get(`/api/projects/${id}`), 404, 'NOT_FOUND', 'Project not found');
        }
      });

      it('updates name, description and group (null ungroups) without change events', async () => {
        const p = await createProject();
        const g = await createGroup('Mobile');
        const renamed = await clientA.patch(`/api/projects/${p.uuid}`, { name: ' Renamed ', description: 'New', groupUuid: g.uuid });
        expect(renamed.status).toBe(200);
        expect(renamed.body.data).toEqual(expect.objectContaining({ uuid: p.uuid, name: 'Renamed', description: 'New', groupUuid: g.uuid, group: { uuid: g.uuid, name: 'Mobile' } }));
        const ungrouped = await clientA.patch(`/api/projects/${p.uuid}`, { groupUuid: null });
        expect(ungrouped.body.data).toEqual(expect.objectContaining({ name: 'Renamed', groupUuid: null, group: null }));
        expect((await clientA.get(`/api/projects/${p.uuid}`)).body.data).toEqual(ungrouped.body.data);
        await changes.expectQuiet();
      });

      it('refuses bad updates (400 with details, 404 for missing or foreign records) and leaves the project unchanged', async () => {
        const p = await createProject({ description: 'Keep' });
        expectError(await clientA.patch(`/api/projects/${p.uuid}`, {}), 400, 'VALIDATION_ERROR', 'Nothing to update');
        expectValidation(await clientA.patch(`/api/projects/${p.uuid}`, { name: '' }), 'name');
        expectValidation(await clientA.patch(`/api/projects/${p.uuid}`, { name: 5 }), 'name');
        expectValidation(await clientA.patch(`/api/projects/${p.uuid}`, { groupUuid: 'x' }), 'groupUuid');
        const foreignGroup = (await clientB.post('/api/project-groups', { name: 'BG' })).body.data.uuid;
        expectError(await clientA.patch(`/api/projects/${p.uuid}`, { groupUuid: foreignGroup }), 404, 'NOT_FOUND', 'Project group not found');
        const foreign = (await clientB.post('/api/projects', { name: 'B' })).body.data.uuid;
        for (const id of [randomUUID(), foreign]) {
          expectError(await clientA.patch(`/api/projects/${id}`, { name: 'Hijack' }), 404, 'NOT_FOUND', 'Project not found');
        }
        expect((await clientA.get(`/api/projects/${p.uuid}`)).body.data).toEqual(p);
        expect((await clientB.get(`/api/projects/${foreign}`)).body.data.name).toBe('B');
        await changes.expectQuiet();
      });

      it('deletes an empty project ({uuid, deleted: true}); a non-empty one is 409 CONFLICT and stays', async () => {
        const empty = await createProject();
        const res = await clientA.delete(`/api/projects/${empty.uuid}`);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ success: true, data: { uuid: empty.uuid, deleted: true } });
        expectError(await clientA.get(`/api/projects/${empty.uuid}`), 404, 'NOT_FOUND');

        const used = await createProject();
        await world.domain.idea(actorA, used.uuid);
        expectError(await clientA.delete(`/api/projects/${used.uuid}`), 409, 'CONFLICT', 'Project is not empty');
        expect((await clientA.get(`/api/projects/${used.uuid}`)).body.data.counts.ideas).toBe(1);

        const foreign = (await clientB.post('/api/projects', { name: 'B' })).body.data.uuid;
        for (const id of [randomUUID(), foreign, 'nope']) {
          expectError(await clientA.delete(`/api/projects/${id}`), 404, 'NOT_FOUND', 'Project not found');
        }
        expect((await clientB.get(`/api/projects/${foreign}`)).status).toBe(200);
        await changes.expectQuiet();
      });
    });

    describe('project groups', () => {
      it('creates a group (201, GroupRecord) and refuses invalid input with details', async () => {
        const res = await clientA.post('/api/project-groups', { name: ' Platform ', description: 'Infra' });
        expect(res.status).toBe(201);
        expect(res.body.data).toEqual({
          uuid: expect.any(String),
          name: 'Platform',
          description: 'Infra',
          projectCount: 0,
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
          projects: [],
        });
        expectValidation(await clientA.post('/api/project-groups', {}), 'name');
        expectValidation(await clientA.post('/api/project-groups', { name: ' ' }), 'name');
        expectValidation(await clientA.post('/api/project-groups', { name: 'X', description: 7 }), 'description');
        await changes.expectQuiet();
      });

      it('lists groups oldest first with the ungrouped count and paging; other companies are never listed', async () => {
        await clientB.post('/api/project-groups', { name: 'Theirs' });
        const g1 = await createGroup();
        const g2 = await createGroup();
        await createProject({ groupUuid: g1.uuid });
        const res = await clientA.get('/api/project-groups?pageSize=100');
        expect(res.status).toBe(200);
        const names: string[] = res.body.data.groups.map((g: { name: string }) => g.name);
        expect(names).not.toContain('Theirs');
        expect(names.slice(-2)).toEqual([g1.name, g2.name]);
        const [{ n }] = await world.ds.query('SELECT count(*)::int AS n FROM project WHERE company_uuid = $1 AND group_uuid IS NULL', [companyA]);
        expect(res.body.data).toEqual({ groups: expect.any(Array), ungroupedCount: n, page: 1, pageSize: 100, total: names.length });
        expect(res.body.data.groups.find((g: { uuid: string }) => g.uuid === g1.uuid).projectCount).toBe(1);
        const last = await clientA.get(`/api/project-groups?limit=1&offset=${names.length - 1}`);
        expect(last.body.data.groups.map((g: { uuid: string }) => g.uuid)).toEqual([g2.uuid]);
        expectValidation(await clientA.get('/api/project-groups?pageSize=0'), 'pageSize');
      });

      it('gets a group with its projects; missing, foreign and malformed uuids are 404', async () => {
        const g = await createGroup();
        const p = await createProject({ groupUuid: g.uuid, description: 'in group' });
        const res = await clientA.get(`/api/project-groups/${g.uuid}`);
        expect(res.body.data).toEqual({ ...g, projectCount: 1, projects: [{ uuid: p.uuid, name: p.name, description: 'in group' }] });
        const foreign = (await clientB.post('/api/project-groups', { name: 'B' })).body.data.uuid;
        for (const id of [randomUUID(), foreign, 'x']) {
          for (const path of [`/api/project-groups/${id}`, `/api/project-groups/${id}/dashboard`]) {
            expectError(await clientA.get(path), 404, 'NOT_FOUND', 'Project group not found');
          }
        }
      });

      it('updates a group; refusals are 400/404 and change nothing', async () => {
        const g = await createGroup();
        const res = await clientA.patch(`/api/project-groups/${g.uuid}`, { name: 'Renamed', description: 'D' });
        expect(res.status).toBe(200);
        expect(res.body.data).toEqual(expect.objectContaining({ uuid: g.uuid, name: 'Renamed', description: 'D' }));
        expectError(await clientA.patch(`/api/project-groups/${g.uuid}`, {}), 400, 'VALIDATION_ERROR', 'Nothing to update');
        expectValidation(await clientA.patch(`/api/project-groups/${g.uuid}`, { name: '' }), 'name');
        const foreign = (await clientB.post('/api/project-groups', { name: 'B' })).body.data.uuid;
        for (const id of [randomUUID(), foreign]) {
          expectError(await clientA.patch(`/api/project-groups/${id}`, { name: 'Hijack' }), 404, 'NOT_FOUND', 'Project group not found');
        }
        expect((await clientA.get(`/api/project-groups/${g.uuid}`)).body.data).toEqual(expect.objectContaining({ name: 'Renamed', description: 'D' }));
        expect((await clientB.get(`/api/project-groups/${foreign}`)).body.data.name).toBe('B');
        await changes.expectQuiet();
      });

      it('deletes a group and ungroups its projects; missing and foreign groups are 404', async () => {
        const g = await createGroup();
        const p = await createProject({ groupUuid: g.uuid });
        const res = await clientA.delete(`/api/project-groups/${g.uuid}`);
        expect(res.body).toEqual({ success: true, data: { uuid: g.uuid, deleted: true, ungroupedProjects: 1 } });
        expect((await clientA.get(`/api/projects/${p.uuid}`)).body.data).toEqual(expect.objectContaining({ groupUuid: null, group: null }));
        expectError(await clientA.get(`/api/project-groups/${g.uuid}`), 404, 'NOT_FOUND');
        const foreign = (await clientB.post('/api/project-groups', { name: 'B' })).body.data.uuid;
        for (const id of [randomUUID(), foreign]) {
          expectError(await clientA.delete(`/api/project-groups/${id}`), 404, 'NOT_FOUND', 'Project group not found');
        }
        expect((await clientB.get(`/api/project-groups/${foreign}`)).status).toBe(200);
        await changes.expectQuiet();
      });

      it('serves the group dashboard: stats, projects and recent activity', async () => {
        const g = await createGroup('Dash');
        const p = await createProject({ groupUuid: g.uuid, name: 'Alpha' });
        const idea = await world.domain.idea(actorA, p.uuid, { title: 'Open idea' });
        const res = await clientA.get(`/api/project-groups/${g.uuid}/dashboard`);
        expect(res.status).toBe(200);
        expect(res.body.data).toEqual({
          group: expect.objectContaining({ uuid: g.uuid, name: 'Dash', projectCount: 1 }),
          stats: { projectCount: 1, totalTasks: 0, completedTasks: 0, completionRate: 0, openIdeas: 1, activeProposals: 0 },
          projects: [{ uuid: p.uuid, name: 'Alpha', taskCount: 0, completionRate: 0 }],
          recentActivity: [expect.objectContaining({ projectUuid: p.uuid, targetType: 'idea', targetUuid: idea.uuid, action: 'created' })],
        });
      });
    });
  });
});

describe('project tools', () => {
  const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  const ZERO_COUNTS = { ideas: 0, proposals: 0, documents: 0, tasks: 0 };
  const ZERO_STATUS = { open: 0, assigned: 0, in_progress: 0, to_verify: 0, done: 0, closed: 0 };

  describe('project and group tools (e2e, MCP SDK client)', () => {
    let events: RealtimeEvent[];
    // Company A (users Alice and Bob): a pm and a developer agent of Alice's, an admin agent of Bob's; company B: Mallory, an admin agent.
    let pm: WorldAgent;
    let dev: WorldAgent;
    let admin: WorldAgent;
    let mallory: WorldAgent;

    beforeAll(async () => {
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
});
