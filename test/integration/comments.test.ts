import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { CommentService, countComments, parseMentions, resolveTarget, validMentionTargets, writeComment } from '../../src/modules/collaboration/index.js';
import type { Actor } from '../../src/shared/auth/actor.js';
import type { MutationCommitted } from '../../src/shared/event-bus/events.js';
import { CollabFactory } from '../factories/collab.factory.js';
import { agentActor, type Harness, textsOf, userActor, World } from '../utils/world.js';
import type { TestDatabase } from '../utils/test-database.js';
import { ActivityEntity, CommentEntity } from '../../src/entities.js';

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
