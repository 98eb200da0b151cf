import { randomUUID } from 'node:crypto';
import type { Actor } from '../../src/shared/auth/actor.js';
import { ChangeEvents } from '../utils/change-events.js';
import type { HttpClient } from '../utils/http.js';
import { expectError, expectValidation } from '../utils/rest-expect.js';
import { userActor, World } from '../utils/world.js';

const TASK_COUNTS = { open: 0, assigned: 0, in_progress: 0, to_verify: 0, done: 0, closed: 0 };
const COUNTS = { ideas: 0, proposals: 0, documents: 0, tasks: 0 };

describe('REST projects and project groups (e2e)', () => {
  let world: World;
  let changes: ChangeEvents;
  /** A logged-in user of company A (with its Actor, for seeding) and one of company B. */
  let companyA: string;
  let actorA: Actor;
  let clientA: HttpClient;
  let clientB: HttpClient;

  beforeAll(async () => {
    world = await World.start();
    companyA = (await world.company()).uuid;
    const userA = await world.user(companyA);
    actorA = userActor(userA);
    clientA = await world.login(userA);
    clientB = await world.login(await world.user((await world.company()).uuid));
  });
  afterAll(() => world.close());
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
