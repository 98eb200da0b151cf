import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { CommentService, ReferenceService, deleteTargetCollaboration, insertReferences, listForTarget, validateReference } from '../../src/modules/collaboration/index.js';
import type { Actor } from '../../src/shared/auth/actor.js';
import { CollabFactory } from '../factories/collab.factory.js';
import { agentActor, type Harness, userActor, World } from '../utils/world.js';
import type { TestDatabase } from '../utils/test-database.js';
import { ActivityEntity, CommentEntity, ReferenceEntity } from '../../src/entities.js';

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
