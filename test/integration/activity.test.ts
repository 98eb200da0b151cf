import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { ActivityService, CommentService, ReferenceService, recentActivities } from '../../src/modules/collaboration/index.js';
import { ActivityEntity } from '../../src/entities.js';
import type { Actor } from '../../src/shared/auth/actor.js';
import { CollabFactory } from '../factories/collab.factory.js';
import { agentActor, type Harness, userActor, World } from '../utils/world.js';
import type { TestDatabase } from '../utils/test-database.js';

let world: World;

let tdb: TestDatabase;
let db: DataSource;
let h: Harness;
let svc: ActivityService;
let f: CollabFactory;
let user: Actor;
let agent: Actor;
let other: Actor;
let projectUuid: string;
let secondProjectUuid: string;
let otherProjectUuid: string;
let ideaUuid: string;
let taskUuid: string;
/** Activity uuids of the main project, newest first. */
let expectedOrder: string[];

beforeAll(async () => {
  world = await World.database();
  tdb = world.db;
  db = tdb.dataSource;
  h = world.h;
  svc = world.get(ActivityService);
  f = new CollabFactory(db);
  const ids = world.ids;
  const company = await ids.company();
  const u = await ids.user(company.uuid, { name: 'Una User' });
  user = userActor(u);
  agent = { ...agentActor((await ids.agent(company.uuid, u.uuid, { name: 'Ava Agent', preset: 'pm_agent' })).agent, company.uuid), session: { uuid: randomUUID(), name: 's-1' } };
  const project = await f.project(company.uuid);
  projectUuid = project.uuid;
  const second = await f.project(company.uuid);
  secondProjectUuid = second.uuid;
  const by = { type: 'user' as const, uuid: u.uuid };
  const idea = await f.idea(project, by);
  const task = await f.task(project, by);
  ideaUuid = idea.uuid;
  taskUuid = task.uuid;

  // Real writes through the services produce the activities.
  const comments = world.get(CommentService);
  const references = world.get(ReferenceService);
  await comments.add(user, { targetType: 'idea', targetUuid: ideaUuid, content: 'first' });
  const ref = await references.add(agent, { targetType: 'task', targetUuid: taskUuid, type: 'docs', url: 'https://x.test', title: 'Docs' });
  await comments.add(agent, { targetType: 'task', targetUuid: taskUuid, content: 'second' });
  await references.remove(user, { referenceUuid: ref.uuid });
  await comments.add(user, { targetType: 'task', targetUuid: (await f.task(second, by)).uuid, content: 'elsewhere' });
  expectedOrder = (
    await db.getRepository(ActivityEntity).find({ where: { projectUuid }, order: { createdAt: 'DESC' } })
  ).map((a) => a.uuid);

  const oc = await ids.company();
  const ou = await ids.user(oc.uuid);
  other = userActor(ou);
  const op = await f.project(oc.uuid);
  otherProjectUuid = op.uuid;
  await comments.add(other, { targetType: 'idea', targetUuid: (await f.idea(op, { type: 'user', uuid: ou.uuid })).uuid, content: 'theirs' });
});

afterAll(() => world.close());

describe('ActivityService.list', () => {
  it('lists the project\'s activities newest first as ActivityRecords', async () => {
    const res = await svc.list(user, { projectUuid });
    expect(res).toMatchObject({ page: 1, pageSize: 20, total: 4 });
    expect(res.activities.map((a) => a.action)).toEqual(['reference_removed', 'comment_added', 'reference_added', 'comment_added']);
    expect(res.activities.map((a) => a.uuid)).toEqual(expectedOrder);
    expect(res.activities[2]).toEqual({
      uuid: expect.any(String),
      projectUuid,
      targetType: 'task',
      targetUuid: taskUuid,
      actor: { type: 'agent', uuid: agent.uuid, name: 'Ava Agent' },
      action: 'reference_added',
      value: expect.objectContaining({ title: 'Docs', url: 'https://x.test' }),
      sessionUuid: agent.session!.uuid,
      sessionName: 's-1',
      createdAt: expect.stringMatching(/Z$/),
    });
    expect(res.activities[3]).toMatchObject({ targetType: 'idea', targetUuid: ideaUuid, actor: { type: 'user', uuid: user.uuid, name: 'Una User' }, sessionUuid: null, sessionName: null });
  });

  it('filters by target type, and by target type and uuid', async () => {
    const tasks = await svc.list(user, { projectUuid, targetType: 'task' });
    expect(tasks.total).toBe(3);
    expect(tasks.activities.every((a) => a.targetType === 'task')).toBe(true);
    const idea = await svc.list(user, { projectUuid, targetType: 'idea', targetUuid: ideaUuid });
    expect(idea.activities.map((a) => a.targetUuid)).toEqual([ideaUuid]);
    const mismatch = await svc.list(user, { projectUuid, targetType: 'idea', targetUuid: taskUuid });
    expect(mismatch).toEqual({ activities: [], page: 1, pageSize: 20, total: 0 });
    expect((await svc.list(user, { projectUuid, targetType: 'document' })).total).toBe(0);
  });

  it('keeps activities of deleted targets readable (no existence check on the target)', async () => {
    const ghost = randomUUID();
    await h.runner.run(user, async (tx) => tx.record('document.deleted', { projectUuid: secondProjectUuid, uuid: ghost }, { title: 'Ghost' }));
    const res = await svc.list(user, { projectUuid: secondProjectUuid, targetType: 'document', targetUuid: ghost });
    expect(res.activities.map((a) => a.action)).toEqual(['deleted']);
  });

  it('pages with the full total', async () => {
    const p1 = await svc.list(user, { projectUuid, page: 1, pageSize: 3 });
    const p2 = await svc.list(user, { projectUuid, page: 2, pageSize: 3 });
    expect(p1.total).toBe(4);
    expect(p2.total).toBe(4);
    expect([...p1.activities, ...p2.activities].map((a) => a.uuid)).toEqual(expectedOrder);
    await expect(svc.list(user, { projectUuid, pageSize: 0 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('breaks createdAt ties by uuid ascending', async () => {
    const p = await f.project(user.companyUuid);
    const at = new Date('2025-01-01T00:00:00.000Z');
    const uuids = [randomUUID(), randomUUID(), randomUUID()];
    await db.getRepository(ActivityEntity).insert(
      uuids.map((uuid) => ({ uuid, companyUuid: user.companyUuid, projectUuid: p.uuid, targetType: 'task' as const, targetUuid: randomUUID(), actorType: 'user' as const, actorUuid: user.uuid, action: 'edited', value: null, sessionUuid: null, sessionName: null, createdAt: at })),
    );
    const res = await svc.list(user, { projectUuid: p.uuid });
    expect(res.activities.map((a) => a.uuid)).toEqual([...uuids].sort());
  });

  it('refuses a targetUuid without targetType and an unknown targetType', async () => {
    await expect(svc.list(user, { projectUuid, targetUuid: taskUuid })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(svc.list(user, { projectUuid, targetType: 'project' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('is NOT_FOUND "Project not found" for missing, malformed and other company\'s projects', async () => {
    for (const uuid of [randomUUID(), 'bogus', otherProjectUuid]) {
      await expect(svc.list(user, { projectUuid: uuid })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Project not found' });
    }
    await expect(svc.list(other, { projectUuid })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Project not found' });
    // The other company sees only its own.
    const theirs = await svc.list(other, { projectUuid: otherProjectUuid });
    expect(theirs.total).toBe(1);
    expect(theirs.activities[0].actor.uuid).toBe(other.uuid);
  });
});

describe('recentActivities', () => {
  it('merges several projects newest first, limited, tenant scoped', async () => {
    const all = await recentActivities(db.manager, user.companyUuid, [projectUuid, secondProjectUuid], 20);
    expect(all.length).toBe(6);
    const times = all.map((a) => a.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    expect(await recentActivities(db.manager, user.companyUuid, [projectUuid, secondProjectUuid], 2)).toEqual(all.slice(0, 2));
    expect(await recentActivities(db.manager, other.companyUuid, [projectUuid], 20)).toEqual([]);
    expect(await recentActivities(db.manager, user.companyUuid, [], 20)).toEqual([]);
  });
});
