import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { CommentService, countComments, parseMentions, resolveTarget, validMentionTargets, writeComment, ActivityService, ReferenceService, recentActivities, deleteTargetCollaboration, insertReferences, listForTarget, validateReference, SearchService } from '../../src/modules/collaboration/index.js';
import type { Actor } from '../../src/shared/auth/actor.js';
import type { MutationCommitted } from '../../src/shared/event-bus/events.js';
import { CollabFactory } from '../factories/collab.factory.js';
import { agentActor, type Harness, textsOf, userActor, World } from '../utils/world.js';
import type { TestDatabase } from '../utils/test-database.js';
import { ActivityEntity, CommentEntity, ReferenceEntity } from '../../src/entities.js';

describe('comments', () => {
  type Kind = 'idea' | 'proposal' | 'task' | 'document';
  const KINDS: Kind[] = ['idea', 'proposal', 'task', 'document'];
  const NAMES: Record<Kind, string> = { idea: 'Idea', proposal: 'Proposal', task: 'Task', document: 'Document' };

  let world: World;

  let tdb: TestDatabase;
  let db: DataSource;
  let h: Harness;
  let svc: CommentService;
  let f: CollabFactory;
  let user: Actor;
  let agent: Actor;
  let other: Actor;
  let projectUuid: string;
  let targets: Record<Kind, { uuid: string; title: string }>;
  let otherTargets: Record<Kind, { uuid: string }>;
  const mutations: MutationCommitted[] = [];

  async function snapshot(): Promise<{ comments: number; activities: number }> {
    return { comments: await db.getRepository(CommentEntity).count(), activities: await db.getRepository(ActivityEntity).count() };
  }

  beforeAll(async () => {
    world = await World.database();
    tdb = world.db;
    db = tdb.dataSource;
    h = world.h;
    h.onCommitted((m) => {
      mutations.push(m);
    });
    svc = world.get(CommentService);
    f = new CollabFactory(db);
    const ids = world.ids;
    const company = await ids.company();
    const u = await ids.user(company.uuid, { name: 'Alice Author' });
    user = userActor(u);
    const a = await ids.agent(company.uuid, u.uuid, { name: 'Dev Bot' });
    agent = { ...agentActor(a.agent, company.uuid), session: { uuid: randomUUID(), name: 'worker-1' } };
    const project = await f.project(company.uuid);
    projectUuid = project.uuid;
    targets = await f.targets(project, { type: 'user', uuid: u.uuid });

    const otherCompany = await ids.company();
    const ou = await ids.user(otherCompany.uuid);
    other = userActor(ou);
    otherTargets = await f.targets(await f.project(otherCompany.uuid), { type: 'user', uuid: ou.uuid });
  });

  afterAll(() => world.close());

  beforeEach(() => {
    h.takeEvents();
    mutations.length = 0;
  });

  describe('CommentService.add', () => {
    it.each(KINDS)('comments on a %s: record, row, event, activity and mention source', async (kind) => {
      const before = await snapshot();
      const rec = await svc.add(user, { targetType: kind, targetUuid: targets[kind].uuid, content: `  hello ${kind}  ` });

      expect(rec).toEqual({
        uuid: expect.any(String),
        targetType: kind,
        targetUuid: targets[kind].uuid,
        content: `hello ${kind}`,
        author: { type: 'user', uuid: user.uuid, name: 'Alice Author' },
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
      const row = await db.getRepository(CommentEntity).findOneByOrFail({ uuid: rec.uuid });
      expect(row).toMatchObject({ companyUuid: user.companyUuid, targetType: kind, targetUuid: targets[kind].uuid, content: `hello ${kind}`, authorType: 'user', authorUuid: user.uuid });
      expect(row.createdAt.toISOString()).toBe(rec.createdAt);

      expect(h.takeEvents()).toEqual([{ companyUuid: user.companyUuid, projectUuid, entityType: kind, entityUuid: targets[kind].uuid, action: 'updated' }]);

      const after = await snapshot();
      expect(after.comments).toBe(before.comments + 1);
      expect(after.activities).toBe(before.activities + 1);
      const activity = await db.getRepository(ActivityEntity).findOneByOrFail({ targetUuid: targets[kind].uuid, action: 'comment_added', value: { commentUuid: rec.uuid } as never });
      expect(activity).toMatchObject({ companyUuid: user.companyUuid, projectUuid, targetType: kind, actorType: 'user', actorUuid: user.uuid, sessionUuid: null, sessionName: null });

      expect(mutations).toHaveLength(1);
      expect(textsOf(mutations[0])).toEqual([
        {
          sourceType: 'comment',
          sourceUuid: rec.uuid,
          entityType: kind,
          entityUuid: targets[kind].uuid,
          entityTitle: targets[kind].title,
          projectUuid,
          before: null,
          after: `hello ${kind}`,
        },
      ]);
      expect(mutations[0].events.map((e) => e.name)).toEqual(['comment.added', 'text.written']);
    });

    it('records the agent author and its session on the activity', async () => {
      const rec = await svc.add(agent, { targetType: 'task', targetUuid: targets.task.uuid, content: 'from the bot' });
      expect(rec.author).toEqual({ type: 'agent', uuid: agent.uuid, name: 'Dev Bot' });
      const activity = await db.getRepository(ActivityEntity).findOneByOrFail({ action: 'comment_added', value: { commentUuid: rec.uuid } as never });
      expect(activity).toMatchObject({ actorType: 'agent', actorUuid: agent.uuid, sessionUuid: agent.session!.uuid, sessionName: 'worker-1' });
    });

    it('accepts exactly 20,000 characters and refuses 20,001, blank and whitespace-only content without writing', async () => {
      const ok = await svc.add(user, { targetType: 'idea', targetUuid: targets.idea.uuid, content: 'x'.repeat(20_000) });
      expect(ok.content).toHaveLength(20_000);
      h.takeEvents();
      mutations.length = 0;
      const before = await snapshot();
      for (const content of ['x'.repeat(20_001), '', '   \n\t ']) {
        await expect(svc.add(user, { targetType: 'idea', targetUuid: targets.idea.uuid, content })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
      }
      expect(await snapshot()).toEqual(before);
      expect(h.events).toEqual([]);
      expect(mutations).toEqual([]);
    });

    it('refuses an unknown target type', async () => {
      await expect(svc.add(user, { targetType: 'project', targetUuid: targets.task.uuid, content: 'x' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    });

    it.each(KINDS)('%s: a missing, malformed or other company\'s target is NOT_FOUND and nothing is written', async (kind) => {
      const before = await snapshot();
      for (const targetUuid of [randomUUID(), otherTargets[kind].uuid, 'not-a-uuid']) {
        await expect(svc.add(user, { targetType: kind, targetUuid, content: 'hi' })).rejects.toMatchObject({ code: 'NOT_FOUND', message: `${NAMES[kind]} not found` });
      }
      // The right kind of target matters: a task uuid is not an idea.
      const wrongKind = kind === 'task' ? targets.idea.uuid : targets.task.uuid;
      await expect(svc.add(user, { targetType: kind, targetUuid: wrongKind, content: 'hi' })).rejects.toMatchObject({ message: `${NAMES[kind]} not found` });
      expect(await snapshot()).toEqual(before);
      expect(h.events).toEqual([]);
      expect(mutations).toEqual([]);
    });

    it('writeComment joins a larger mutation: one event and merged activity per target', async () => {
      const before = await snapshot();
      await h.runner.run(user, async (tx) => {
        const target = await resolveTarget(tx.manager, user.companyUuid, 'task', targets.task.uuid);
        await writeComment(tx, target, 'first');
        await writeComment(tx, target, 'second');
      });
      expect(h.takeEvents()).toHaveLength(1);
      const after = await snapshot();
      expect(after.comments).toBe(before.comments + 2);
      expect(after.activities).toBe(before.activities + 1);
      expect(textsOf(mutations[0]).map((m) => m.after)).toEqual(['first', 'second']);
      // Both share one transaction, yet keep their order.
      const listed = await svc.list(user, { targetType: 'task', targetUuid: targets.task.uuid, pageSize: 100 });
      expect(listed.comments.slice(-2).map((c) => c.content)).toEqual(['first', 'second']);
    });
  });

  describe('CommentService.list', () => {
    let proposalUuid: string;
    const added: string[] = [];

    beforeAll(async () => {
      const p = await f.proposal({ uuid: projectUuid, companyUuid: user.companyUuid }, { type: 'user', uuid: user.uuid });
      proposalUuid = p.uuid;
      for (let i = 0; i < 5; i++) {
        const actor = i % 2 ? agent : user;
        added.push((await svc.add(actor, { targetType: 'proposal', targetUuid: proposalUuid, content: `c${i}` })).uuid);
      }
    });

    it('lists oldest first with authors and the full total', async () => {
      const res = await svc.list(user, { targetType: 'proposal', targetUuid: proposalUuid });
      expect(res).toMatchObject({ page: 1, pageSize: 20, total: 5 });
      expect(res.comments.map((c) => c.uuid)).toEqual(added);
      expect(res.comments.map((c) => c.content)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
      expect(res.comments[1].author).toEqual({ type: 'agent', uuid: agent.uuid, name: 'Dev Bot' });
      expect(res.comments[0]).toEqual({
        uuid: added[0],
        targetType: 'proposal',
        targetUuid: proposalUuid,
        content: 'c0',
        author: { type: 'user', uuid: user.uuid, name: 'Alice Author' },
        createdAt: expect.any(String),
      });
    });

    it('pages through the list', async () => {
      const p1 = await svc.list(user, { targetType: 'proposal', targetUuid: proposalUuid, page: 1, pageSize: 2 });
      const p3 = await svc.list(user, { targetType: 'proposal', targetUuid: proposalUuid, page: 3, pageSize: 2 });
      const p4 = await svc.list(user, { targetType: 'proposal', targetUuid: proposalUuid, page: 4, pageSize: 2 });
      expect(p1.comments.map((c) => c.uuid)).toEqual(added.slice(0, 2));
      expect(p3.comments.map((c) => c.uuid)).toEqual(added.slice(4));
      expect(p4).toEqual({ comments: [], page: 4, pageSize: 2, total: 5 });
    });

    it('keeps resolving an archived agent author by name', async () => {
      await db.query('UPDATE agent SET archived_at = now() WHERE uuid = $1', [agent.uuid]);
      try {
        const res = await svc.list(user, { targetType: 'proposal', targetUuid: proposalUuid });
        expect(res.comments[1].author.name).toBe('Dev Bot');
      } finally {
        await db.query('UPDATE agent SET archived_at = NULL WHERE uuid = $1', [agent.uuid]);
      }
    });

    it('returns an empty page for a target without comments', async () => {
      const doc = await f.document({ uuid: projectUuid, companyUuid: user.companyUuid }, { type: 'user', uuid: user.uuid });
      expect(await svc.list(user, { targetType: 'document', targetUuid: doc.uuid })).toEqual({ comments: [], page: 1, pageSize: 20, total: 0 });
    });

    it('is tenant scoped: another company cannot read them', async () => {
      await expect(svc.list(other, { targetType: 'proposal', targetUuid: proposalUuid })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Proposal not found' });
    });

    it('validates paging', async () => {
      await expect(svc.list(user, { targetType: 'proposal', targetUuid: proposalUuid, pageSize: 101 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
      await expect(svc.list(user, { targetType: 'proposal', targetUuid: proposalUuid, page: 0 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    });

    it('counts comments of one target', async () => {
      expect(await countComments(db.manager, user.companyUuid, 'proposal', proposalUuid)).toBe(5);
      expect(await countComments(db.manager, other.companyUuid, 'proposal', proposalUuid)).toBe(0);
    });
  });

  describe('validMentionTargets', () => {
    it('keeps users and non-archived agents of the company in text order, drops the actor and everything else', async () => {
      const ids = world.ids;
      const colleague = await ids.user(user.companyUuid);
      const archived = (await ids.agent(user.companyUuid, user.uuid, { name: 'Old Bot' })).agent;
      await db.query('UPDATE agent SET archived_at = now() WHERE uuid = $1', [archived.uuid]);
      const text = [
        `@[Bot](agent:${agent.uuid.toUpperCase()})`,
        `@[Me](user:${user.uuid})`,
        `@[Col](user:${colleague.uuid})`,
        `@[Old](agent:${archived.uuid})`,
        `@[Stranger](user:${other.uuid})`,
        `@[Nobody](user:${randomUUID()})`,
        `@[Wrong type](agent:${colleague.uuid})`,
      ].join(' ');
      const kept = await validMentionTargets(db.manager, user.companyUuid, user, parseMentions(text));
      expect(kept).toEqual([
        { type: 'agent', uuid: agent.uuid },
        { type: 'user', uuid: colleague.uuid },
      ]);
      // The agent mentioning itself is dropped; its owner user is a different person and stays.
      const byAgent = await validMentionTargets(db.manager, user.companyUuid, agent, parseMentions(text));
      expect(byAgent).toEqual([
        { type: 'user', uuid: user.uuid },
        { type: 'user', uuid: colleague.uuid },
      ]);
      expect(await validMentionTargets(db.manager, user.companyUuid, user, [])).toEqual([]);
    });
  });
});

describe('activity', () => {
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
});

describe('references', () => {
  type Kind = 'idea' | 'proposal' | 'task';
  const KINDS: Kind[] = ['idea', 'proposal', 'task'];
  const NAMES: Record<Kind, string> = { idea: 'Idea', proposal: 'Proposal', task: 'Task' };

  let world: World;

  let tdb: TestDatabase;
  let db: DataSource;
  let h: Harness;
  let svc: ReferenceService;
  let f: CollabFactory;
  let user: Actor;
  let agent: Actor;
  let other: Actor;
  let projectUuid: string;
  let targets: Record<Kind | 'document', { uuid: string }>;
  let otherTargets: Record<Kind, { uuid: string }>;

  const link = (n = 1): { type: string; url: string; title: string } => ({ type: 'docs', url: `https://example.com/${n}`, title: `Link ${n}` });

  async function snapshot(): Promise<{ refs: ReferenceEntity[]; activities: number }> {
    return {
      refs: await db.getRepository(ReferenceEntity).find({ order: { uuid: 'ASC' } }),
      activities: await db.getRepository(ActivityEntity).count(),
    };
  }

  async function activityFor(referenceUuid: string, action: string): Promise<ActivityEntity[]> {
    return db
      .getRepository(ActivityEntity)
      .createQueryBuilder('a')
      .where('a.action = :action', { action })
      .andWhere("a.value->>'referenceUuid' = :referenceUuid", { referenceUuid })
      .getMany();
  }

  beforeAll(async () => {
    world = await World.database();
    tdb = world.db;
    db = tdb.dataSource;
    h = world.h;
    svc = world.get(ReferenceService);
    f = new CollabFactory(db);
    const ids = world.ids;
    const company = await ids.company();
    const u = await ids.user(company.uuid, { name: 'Pat PM' });
    user = userActor(u);
    agent = agentActor((await ids.agent(company.uuid, u.uuid, { name: 'PM Bot', preset: 'pm_agent' })).agent, company.uuid);
    const project = await f.project(company.uuid);
    projectUuid = project.uuid;
    targets = await f.targets(project, { type: 'user', uuid: u.uuid });
    const oc = await ids.company();
    const ou = await ids.user(oc.uuid);
    other = userActor(ou);
    otherTargets = await f.targets(await f.project(oc.uuid), { type: 'user', uuid: ou.uuid });
  });

  afterAll(() => world.close());
  beforeEach(() => h.takeEvents());

  describe('ReferenceService.add', () => {
    it.each(KINDS)('adds a reference to a %s: record, row, event and activity', async (kind) => {
      const before = await snapshot();
      const rec = await svc.add(agent, { targetType: kind, targetUuid: targets[kind].uuid, type: 'repo', url: '  https://github.com/x/y ', title: ' Repo ', notes: 'see main' });
      expect(rec).toEqual({
        uuid: expect.any(String),
        targetType: kind,
        targetUuid: targets[kind].uuid,
        type: 'repo',
        url: 'https://github.com/x/y',
        title: 'Repo',
        notes: 'see main',
        createdBy: { type: 'agent', uuid: agent.uuid, name: 'PM Bot' },
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      const row = await db.getRepository(ReferenceEntity).findOneByOrFail({ uuid: rec.uuid });
      expect(row).toMatchObject({ companyUuid: agent.companyUuid, targetType: kind, targetUuid: targets[kind].uuid, url: 'https://github.com/x/y', createdByType: 'agent', createdByUuid: agent.uuid });
      expect(h.takeEvents()).toEqual([{ companyUuid: agent.companyUuid, projectUuid, entityType: kind, entityUuid: targets[kind].uuid, action: 'updated' }]);
      const [activity] = await activityFor(rec.uuid, 'reference_added');
      expect(activity).toMatchObject({ projectUuid, targetType: kind, targetUuid: targets[kind].uuid, actorType: 'agent', actorUuid: agent.uuid });
      expect((await snapshot()).activities).toBe(before.activities + 1);
    });

    it('stores missing notes as null', async () => {
      const rec = await svc.add(user, { targetType: 'idea', targetUuid: targets.idea.uuid, ...link(9) });
      expect(rec.notes).toBeNull();
    });

    it('refuses documents and unknown target types', async () => {
      const before = await snapshot();
      for (const targetType of ['document', 'comment']) {
        await expect(svc.add(user, { targetType, targetUuid: targets.document.uuid, ...link() })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
      }
      expect(await snapshot()).toEqual(before);
      expect(h.events).toEqual([]);
    });

    it('applies the reference input rules without writing', async () => {
      const before = await snapshot();
      const bad: Array<[Record<string, unknown>, string]> = [
        [{ url: 'ftp://example.com' }, 'URL must start with http:// or https://'],
        [{ url: 'example.com' }, 'URL must start with http:// or https://'],
        [{ url: `https://e.com/${'a'.repeat(2040)}` }, 'URL must be at most 2048 characters'],
        [{ title: '   ' }, 'Reference title must be 1-200 characters'],
        [{ title: 't'.repeat(201) }, 'Reference title must be 1-200 characters'],
        [{ notes: 'n'.repeat(501) }, 'Reference notes must be at most 500 characters'],
        [{ type: 'blog' }, 'Invalid reference type: blog'],
      ];
      for (const [override, message] of bad) {
        await expect(svc.add(user, { targetType: 'task', targetUuid: targets.task.uuid, ...link(), ...override } as never)).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message });
      }
      expect(await snapshot()).toEqual(before);
      expect(h.events).toEqual([]);
    });

    it.each(KINDS)('%s: a missing, malformed or other company\'s target is NOT_FOUND', async (kind) => {
      const before = await snapshot();
      for (const targetUuid of [randomUUID(), otherTargets[kind].uuid, 'nope']) {
        await expect(svc.add(user, { targetType: kind, targetUuid, ...link() })).rejects.toMatchObject({ code: 'NOT_FOUND', message: `${NAMES[kind]} not found` });
      }
      expect(await snapshot()).toEqual(before);
      expect(h.events).toEqual([]);
    });

    it('allows 50 references per target and refuses the 51st', async () => {
      const task = await f.task({ uuid: projectUuid, companyUuid: user.companyUuid }, { type: 'user', uuid: user.uuid });
      await h.runner.run(user, (tx) =>
        insertReferences(tx, { type: 'task', uuid: task.uuid }, Array.from({ length: 49 }, (_, i) => validateReference(link(i)))),
      );
      await svc.add(user, { targetType: 'task', targetUuid: task.uuid, ...link(49) });
      h.takeEvents();
      const before = await snapshot();
      await expect(svc.add(user, { targetType: 'task', targetUuid: task.uuid, ...link(50) })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: 'Maximum 50 references per target' });
      expect(await snapshot()).toEqual(before);
      expect(h.events).toEqual([]);
      const listed = await listForTarget(db.manager, user.companyUuid, 'task', task.uuid);
      expect(listed).toHaveLength(50);
      // Oldest first, in insertion order.
      expect(listed.map((r) => r.title)).toEqual(Array.from({ length: 50 }, (_, i) => `Link ${i}`));
    });

    it('serialises concurrent adds at the limit: exactly one of two wins the last slot', async () => {
      const idea = await f.idea({ uuid: projectUuid, companyUuid: user.companyUuid }, { type: 'user', uuid: user.uuid });
      await h.runner.run(user, (tx) => insertReferences(tx, { type: 'idea', uuid: idea.uuid }, Array.from({ length: 49 }, (_, i) => validateReference(link(i)))));
      const results = await Promise.allSettled([
        svc.add(user, { targetType: 'idea', targetUuid: idea.uuid, ...link(100) }),
        svc.add(agent, { targetType: 'idea', targetUuid: idea.uuid, ...link(101) }),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(await db.getRepository(ReferenceEntity).countBy({ targetUuid: idea.uuid })).toBe(50);
    });
  });

  describe('ReferenceService.update', () => {
    let refUuid: string;

    beforeEach(async () => {
      refUuid = (await svc.add(user, { targetType: 'proposal', targetUuid: targets.proposal.uuid, ...link(1), notes: 'old' })).uuid;
      h.takeEvents();
    });

    it('changes the given fields, keeps the others, bumps updatedAt, records event and activity', async () => {
      const prev = await db.getRepository(ReferenceEntity).findOneByOrFail({ uuid: refUuid });
      const rec = await svc.update(agent, { referenceUuid: refUuid, title: ' New title ', type: 'issue_pr' });
      expect(rec).toMatchObject({ uuid: refUuid, type: 'issue_pr', title: 'New title', url: 'https://example.com/1', notes: 'old', createdBy: { type: 'user', uuid: user.uuid, name: 'Pat PM' } });
      expect(new Date(rec.updatedAt).getTime()).toBeGreaterThan(prev.updatedAt.getTime());
      expect(rec.createdAt).toBe(prev.createdAt.toISOString());
      expect(await db.getRepository(ReferenceEntity).findOneByOrFail({ uuid: refUuid })).toMatchObject({ type: 'issue_pr', title: 'New title', notes: 'old' });
      expect(h.takeEvents()).toEqual([{ companyUuid: user.companyUuid, projectUuid, entityType: 'proposal', entityUuid: targets.proposal.uuid, action: 'updated' }]);
      const [activity] = await activityFor(refUuid, 'reference_updated');
      expect(activity).toMatchObject({ targetType: 'proposal', targetUuid: targets.proposal.uuid, actorType: 'agent', value: { referenceUuid: refUuid, fields: ['type', 'title'] } });
    });

    it('clears notes with null', async () => {
      const rec = await svc.update(user, { referenceUuid: refUuid, notes: null });
      expect(rec.notes).toBeNull();
      expect((await db.getRepository(ReferenceEntity).findOneByOrFail({ uuid: refUuid })).notes).toBeNull();
    });

    it('refuses an empty update with "Nothing to update"', async () => {
      const before = await snapshot();
      await expect(svc.update(user, { referenceUuid: refUuid })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: 'Nothing to update' });
      expect(await snapshot()).toEqual(before);
      expect(h.events).toEqual([]);
    });

    it('applies the URL rule to the merged reference without writing', async () => {
      const before = await snapshot();
      await expect(svc.update(user, { referenceUuid: refUuid, url: 'mailto:x@y.z' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: 'URL must start with http:// or https://' });
      expect(await snapshot()).toEqual(before);
      expect(h.events).toEqual([]);
    });

    it('refuses null for type, url and title', async () => {
      const before = await snapshot();
      for (const field of ['type', 'url', 'title']) {
        await expect(svc.update(user, { referenceUuid: refUuid, [field]: null } as never)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
      }
      expect(await snapshot()).toEqual(before);
    });

    it('an update to the same values changes nothing: no event, no activity', async () => {
      const before = await snapshot();
      const rec = await svc.update(user, { referenceUuid: refUuid, title: 'Link 1', notes: 'old' });
      expect(rec.title).toBe('Link 1');
      expect(await snapshot()).toEqual(before);
      expect(h.events).toEqual([]);
    });

    it('NOT_FOUND "Reference not found" for missing, malformed and other company\'s references', async () => {
      const foreign = await svc.add(other, { targetType: 'task', targetUuid: otherTargets.task.uuid, ...link() });
      h.takeEvents();
      const before = await snapshot();
      for (const referenceUuid of [randomUUID(), foreign.uuid, 'x']) {
        await expect(svc.update(user, { referenceUuid, title: 'hijack' })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Reference not found' });
        await expect(svc.remove(user, { referenceUuid })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Reference not found' });
      }
      expect(await snapshot()).toEqual(before);
      expect(h.events).toEqual([]);
    });
  });

  describe('ReferenceService.remove', () => {
    it('deletes the reference with event and activity', async () => {
      const ref = await svc.add(user, { targetType: 'task', targetUuid: targets.task.uuid, ...link(7) });
      h.takeEvents();
      expect(await svc.remove(agent, { referenceUuid: ref.uuid })).toEqual({ uuid: ref.uuid, deleted: true });
      expect(await db.getRepository(ReferenceEntity).findOneBy({ uuid: ref.uuid })).toBeNull();
      expect(h.takeEvents()).toEqual([{ companyUuid: user.companyUuid, projectUuid, entityType: 'task', entityUuid: targets.task.uuid, action: 'updated' }]);
      const [activity] = await activityFor(ref.uuid, 'reference_removed');
      expect(activity).toMatchObject({ targetType: 'task', targetUuid: targets.task.uuid, actorType: 'agent', actorUuid: agent.uuid });
      await expect(svc.remove(agent, { referenceUuid: ref.uuid })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Reference not found' });
    });
  });

  describe('listForTarget and cleanup helpers', () => {
    it('lists one target\'s references oldest first, tenant scoped', async () => {
      const idea = await f.idea({ uuid: projectUuid, companyUuid: user.companyUuid }, { type: 'user', uuid: user.uuid });
      const a = await svc.add(user, { targetType: 'idea', targetUuid: idea.uuid, ...link(1) });
      const b = await svc.add(agent, { targetType: 'idea', targetUuid: idea.uuid, ...link(2) });
      const listed = await listForTarget(db.manager, user.companyUuid, 'idea', idea.uuid);
      expect(listed).toEqual([a, b]);
      expect(await listForTarget(db.manager, other.companyUuid, 'idea', idea.uuid)).toEqual([]);
    });

    it('deleteTargetCollaboration removes comments and references of the named targets only', async () => {
      const comments = world.get(CommentService);
      const [t1, t2] = [
        await f.task({ uuid: projectUuid, companyUuid: user.companyUuid }, { type: 'user', uuid: user.uuid }),
        await f.task({ uuid: projectUuid, companyUuid: user.companyUuid }, { type: 'user', uuid: user.uuid }),
      ];
      for (const t of [t1, t2]) {
        await svc.add(user, { targetType: 'task', targetUuid: t.uuid, ...link() });
        await comments.add(user, { targetType: 'task', targetUuid: t.uuid, content: 'c' });
      }
      const activities = await db.getRepository(ActivityEntity).count();
      await db.transaction((em) => deleteTargetCollaboration(em, user.companyUuid, 'task', [t1.uuid]));
      expect(await db.getRepository(ReferenceEntity).countBy({ targetUuid: t1.uuid })).toBe(0);
      expect(await db.getRepository(CommentEntity).countBy({ targetUuid: t1.uuid })).toBe(0);
      expect(await db.getRepository(ReferenceEntity).countBy({ targetUuid: t2.uuid })).toBe(1);
      expect(await db.getRepository(CommentEntity).countBy({ targetUuid: t2.uuid })).toBe(1);
      expect(await db.getRepository(ActivityEntity).count()).toBe(activities);
    });
  });
});

describe('search', () => {
  let world: World;

  let tdb: TestDatabase;
  let db: DataSource;
  let svc: SearchService;
  let f: CollabFactory;
  let user: Actor;
  let other: Actor;
  const ids: Record<string, string> = {};
  let otherUuids: Set<string>;
  let otherProjectUuid: string;
  let otherGroupUuid: string;

  const day = (n: number): Date => new Date(Date.UTC(2025, 0, n));

  beforeAll(async () => {
    world = await World.database();
    tdb = world.db;
    db = tdb.dataSource;
    svc = world.get(SearchService);
    f = new CollabFactory(db);
    const idf = world.ids;
    const company = await idf.company();
    const u = await idf.user(company.uuid, { name: 'Sam Searcher', email: 'sam@corp.test' });
    user = userActor(u);
    const by = { type: 'user' as const, uuid: u.uuid };

    const group = await f.group(company.uuid, { name: 'Falcon Group', description: 'birds of prey' });
    const p1 = await f.project(company.uuid, { name: 'Falcon Web', groupUuid: group.uuid });
    const p2 = await f.project(company.uuid, { name: 'Hawk', groupUuid: group.uuid, description: 'a sibling of the falcon project' });
    const p3 = await f.project(company.uuid, { name: 'Orca' });
    Object.assign(ids, { group: group.uuid, p1: p1.uuid, p2: p2.uuid, p3: p3.uuid });

    ids.task1 = (await f.task(p1, by, { title: 'Build FALCON login' })).uuid;
    ids.idea1 = (await f.idea(p1, by, { title: 'Falcon idea', content: 'short content' })).uuid;
    ids.proposal1 = (await f.proposal(p1, by, { title: 'Unrelated title', description: 'ships the falcon release', status: 'pending' })).uuid;
    ids.doc1 = (await f.document(p1, by, { title: 'Spec', content: `${'lorem ipsum '.repeat(40)}the Falcon protocol ${'dolor sit '.repeat(40)}` })).uuid;
    ids.task3 = (await f.task(p3, by, { title: 'Whale watching', description: 'not a falcon at all' })).uuid;
    ids.idea3 = (await f.idea(p3, by, { title: 'Discount 50%_off', content: '' })).uuid;
    ids.task3b = (await f.task(p3, by, { title: 'Discount 50 percent off', description: 'x' })).uuid;
    // Mentions task1's uuid in its text: matches by text, but ranks after the exact uuid match.
    ids.doc3 = (await f.document(p3, by, { title: 'Links', content: `see ${ids.task1}` })).uuid;

    // Newest first among the "falcon" matches: group, p2, task3, doc1, proposal1, idea1, p1, task1.
    const order: Array<[Parameters<CollabFactory['setUpdatedAt']>[0], string]> = [
      ['project_group', group.uuid],
      ['project', p2.uuid],
      ['task', ids.task3],
      ['document', ids.doc1],
      ['proposal', ids.proposal1],
      ['idea', ids.idea1],
      ['project', p1.uuid],
      ['task', ids.task1],
    ];
    for (const [i, [table, uuid]] of order.entries()) await f.setUpdatedAt(table, uuid, day(20 - i));
    await f.setUpdatedAt('document', ids.doc3, day(25));

    const oc = await idf.company();
    const ou = await idf.user(oc.uuid, { name: 'Alice Other', email: 'alice@other.test' });
    other = userActor(ou);
    const og = await f.group(oc.uuid, { name: 'Falcon Group B' });
    const op = await f.project(oc.uuid, { name: 'Falcon B', groupUuid: og.uuid });
    otherProjectUuid = op.uuid;
    otherGroupUuid = og.uuid;
    const ob = { type: 'user' as const, uuid: ou.uuid };
    otherUuids = new Set([og.uuid, op.uuid, (await f.task(op, ob, { title: 'falcon task' })).uuid, (await f.idea(op, ob, { title: 'falcon idea' })).uuid]);
  });

  afterAll(() => world.close());

  const uuidsOf = (r: { results: Array<{ uuid: string }> }): string[] => r.results.map((x) => x.uuid);

  describe('SearchService.search', () => {
    it('finds every entity type by title or text, case-insensitively, newest first', async () => {
      const res = await svc.search(user, { query: 'falcon' });
      expect(uuidsOf(res)).toEqual([ids.group, ids.p2, ids.task3, ids.doc1, ids.proposal1, ids.idea1, ids.p1, ids.task1]);
      expect(res.counts).toEqual({ tasks: 2, ideas: 1, proposals: 1, documents: 1, projects: 2, projectGroups: 1 });
      expect(res).toMatchObject({ page: 1, pageSize: 20, total: 8 });
      expect(uuidsOf(await svc.search(user, { query: 'fAlCoN' }))).toEqual(uuidsOf(res));
    });

    it('renders each result with status, project and snippet', async () => {
      const res = await svc.search(user, { query: 'falcon' });
      const by = new Map(res.results.map((r) => [r.uuid, r]));
      expect(by.get(ids.task1)).toEqual({
        entityType: 'task',
        uuid: ids.task1,
        title: 'Build FALCON login',
        snippet: '',
        status: 'open',
        projectUuid: ids.p1,
        projectName: 'Falcon Web',
        updatedAt: day(13).toISOString(),
      });
      expect(by.get(ids.proposal1)).toMatchObject({ entityType: 'proposal', status: 'pending', snippet: 'ships the falcon release', projectName: 'Falcon Web' });
      expect(by.get(ids.idea1)).toMatchObject({ entityType: 'idea', status: 'open', snippet: 'short content' });
      expect(by.get(ids.p2)).toMatchObject({ entityType: 'project', title: 'Hawk', status: null, projectUuid: ids.p2, projectName: 'Hawk', snippet: 'a sibling of the falcon project' });
      expect(by.get(ids.group)).toMatchObject({ entityType: 'project_group', title: 'Falcon Group', status: null, projectUuid: null, projectName: null, snippet: 'birds of prey' });
      const doc = by.get(ids.doc1)!;
      expect(doc).toMatchObject({ entityType: 'document', status: null, projectUuid: ids.p1 });
      expect(doc.snippet.length).toBeLessThanOrEqual(200);
      expect(doc.snippet).toContain('the Falcon protocol');
      expect(doc.snippet.startsWith('...')).toBe(true);
    });

    it('ranks an exact uuid match first, then text matches by updatedAt', async () => {
      const res = await svc.search(user, { query: ids.task1.toUpperCase() });
      expect(uuidsOf(res)).toEqual([ids.task1, ids.doc3]);
      expect(res.counts).toMatchObject({ tasks: 1, documents: 1 });
    });

    it('restricts to the requested entity types; counts cover what was searched', async () => {
      const res = await svc.search(user, { query: 'falcon', entityTypes: ['task', 'project_group'] });
      expect(uuidsOf(res)).toEqual([ids.group, ids.task3, ids.task1]);
      expect(res.counts).toEqual({ tasks: 2, ideas: 0, proposals: 0, documents: 0, projects: 0, projectGroups: 1 });
      expect(res.total).toBe(3);
    });

    it('scope project: that project\'s entities and the project itself, no groups', async () => {
      const res = await svc.search(user, { query: 'falcon', scope: 'project', scopeUuid: ids.p1 });
      expect(uuidsOf(res)).toEqual([ids.doc1, ids.proposal1, ids.idea1, ids.p1, ids.task1]);
      expect(res.counts.projectGroups).toBe(0);
      const p3 = await svc.search(user, { query: 'falcon', scope: 'project', scopeUuid: ids.p3 });
      expect(uuidsOf(p3)).toEqual([ids.task3]);
    });

    it('scope group: the group, its projects and their entities', async () => {
      const res = await svc.search(user, { query: 'falcon', scope: 'group', scopeUuid: ids.group });
      expect(uuidsOf(res)).toEqual([ids.group, ids.p2, ids.doc1, ids.proposal1, ids.idea1, ids.p1, ids.task1]);
      const empty = await f.group(user.companyUuid, { name: 'Empty falcon nest' });
      const onlyGroup = await svc.search(user, { query: 'falcon', scope: 'group', scopeUuid: empty.uuid });
      expect(uuidsOf(onlyGroup)).toEqual([empty.uuid]);
      await db.query('DELETE FROM project_group WHERE uuid = $1', [empty.uuid]);
    });

    it('takes LIKE wildcards literally', async () => {
      expect(uuidsOf(await svc.search(user, { query: '50%_off' }))).toEqual([ids.idea3]);
      expect(uuidsOf(await svc.search(user, { query: '50%' }))).toEqual([ids.idea3]);
      expect((await svc.search(user, { query: '%' })).results.map((r) => r.uuid)).toEqual([ids.idea3]);
      expect((await svc.search(user, { query: '_' })).total).toBe(1);
    });

    it('pages with a stable order and the full total', async () => {
      const all = uuidsOf(await svc.search(user, { query: 'falcon' }));
      const pages = [];
      for (let page = 1; page <= 3; page++) pages.push(await svc.search(user, { query: 'falcon', page, pageSize: 3 }));
      expect(pages.flatMap(uuidsOf)).toEqual(all);
      expect(pages.map((p) => p.total)).toEqual([8, 8, 8]);
      expect(pages[2].counts).toEqual(pages[0].counts);
      expect((await svc.search(user, { query: 'falcon', page: 9 })).results).toEqual([]);
    });

    it('never returns another company\'s rows', async () => {
      const mine = await svc.search(user, { query: 'falcon', pageSize: 100 });
      expect(mine.results.some((r) => otherUuids.has(r.uuid))).toBe(false);
      const theirs = await svc.search(other, { query: 'falcon', pageSize: 100 });
      expect(new Set(uuidsOf(theirs))).toEqual(otherUuids);
      expect((await svc.search(other, { query: ids.task1 })).total).toBe(0);
    });

    it('validates query, scope, scopeUuid and entityTypes', async () => {
      const cases: Array<Record<string, unknown>> = [
        { query: '' },
        { query: '    ' },
        { query: 'x'.repeat(201) },
        { query: 'x', scope: 'world' },
        { query: 'x', scope: 'project' },
        { query: 'x', scope: 'group', scopeUuid: '' },
        { query: 'x', scope: 'project', scopeUuid: 'nope' },
        { query: 'x', entityTypes: ['task', 'comment'] },
        { query: 'x', pageSize: 101 },
      ];
      for (const input of cases) await expect(svc.search(user, input as never)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
      await expect(svc.search(user, { query: 'x', scope: 'group' })).rejects.toMatchObject({ message: 'scopeUuid is required unless scope is global' });
      expect((await svc.search(user, { query: 'x'.repeat(200) })).total).toBe(0);
    });

    it('NOT_FOUND for a missing or another company\'s scope', async () => {
      for (const scopeUuid of [randomUUID(), otherProjectUuid]) {
        await expect(svc.search(user, { query: 'falcon', scope: 'project', scopeUuid })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Project not found' });
      }
      for (const scopeUuid of [randomUUID(), otherGroupUuid, ids.p1]) {
        await expect(svc.search(user, { query: 'falcon', scope: 'group', scopeUuid })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Project group not found' });
      }
    });
  });

  describe('SearchService.mentionables', () => {
    const people: Record<string, string> = {};

    beforeAll(async () => {
      const idf = world.ids;
      const company = user.companyUuid;
      people.bob = (await idf.user(company, { name: 'bob Brown', email: 'bob@corp.test' })).uuid;
      people.alice = (await idf.user(company, { name: 'Alice Anders', email: 'anders@corp.test' })).uuid;
      people.carol = (await idf.user(company, { name: 'Carol', email: 'carol.alpha@corp.test' })).uuid;
      people.alpha = (await idf.agent(company, people.alice, { name: 'Alpha Bot' })).agent.uuid;
      people.archived = (await idf.agent(company, people.alice, { name: 'Alpine Archived' })).agent.uuid;
      await db.query('UPDATE agent SET archived_at = now() WHERE uuid = $1', [people.archived]);
      // Another company's agent with a matching name.
      await idf.agent(other.companyUuid, other.uuid, { name: 'Alpha Other' });
    });

    it('lists users and non-archived agents of the company by name, case-insensitively', async () => {
      const res = await svc.mentionables(user, {});
      expect(res.mentionables.map((m) => m.name)).toEqual(['Alice Anders', 'Alpha Bot', 'bob Brown', 'Carol', 'Sam Searcher']);
      expect(res).toMatchObject({ page: 1, pageSize: 20, total: 5 });
      expect(res.mentionables[0]).toEqual({ type: 'user', uuid: people.alice, name: 'Alice Anders', email: 'anders@corp.test' });
      expect(res.mentionables[1]).toEqual({ type: 'agent', uuid: people.alpha, name: 'Alpha Bot', email: null });
    });

    it('matches users by name or email and agents by name only', async () => {
      const al = await svc.mentionables(user, { query: '  AL ' });
      // Carol matches through her email; the archived agent and the other company's agent never appear.
      expect(al.mentionables.map((m) => m.uuid)).toEqual([people.alice, people.alpha, people.carol]);
      expect((await svc.mentionables(user, { query: 'bob@corp' })).mentionables.map((m) => m.uuid)).toEqual([people.bob]);
      expect((await svc.mentionables(user, { query: 'Other' })).total).toBe(0);
      expect((await svc.mentionables(user, { query: '%' })).total).toBe(0);
    });

    it('pages with the full total', async () => {
      const p1 = await svc.mentionables(user, { pageSize: 2 });
      const p3 = await svc.mentionables(user, { pageSize: 2, page: 3 });
      expect(p1.total).toBe(5);
      expect(p1.mentionables.map((m) => m.name)).toEqual(['Alice Anders', 'Alpha Bot']);
      expect(p3.mentionables.map((m) => m.name)).toEqual(['Sam Searcher']);
    });

    it('never returns another company\'s people', async () => {
      const res = await svc.mentionables(other, { pageSize: 100 });
      expect(res.mentionables.map((m) => m.name)).toEqual(['Alice Other', 'Alpha Other']);
    });

    it('refuses a query over 100 characters', async () => {
      await expect(svc.mentionables(user, { query: 'x'.repeat(101) })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
      expect((await svc.mentionables(user, { query: 'x'.repeat(100) })).total).toBe(0);
    });
  });
});
