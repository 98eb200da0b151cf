import { Writable } from 'node:stream';
import { jest } from '@jest/globals';
import { pino } from 'pino';
import type { DataSource } from 'typeorm';
import { AgentService } from '../../src/modules/identity/index.js';
import { NotificationGenerator, NotificationService, NotificationsModule } from '../../src/modules/notifications/index.js';
import type { Actor } from '../../src/shared/auth/actor.js';
import type { NotificationMessage } from '../../src/shared/event-bus/events.js';
import { requestContext } from '../../src/shared/logging/logger.js';
import { CollabFactory } from '../factories/collab.factory.js';
import { MutationDriver, type Kind } from '../factories/mutation.factory.js';
import { agentActor, DOMAIN_MODULES, type Harness, userActor, World } from '../utils/world.js';
import type { TestDatabase } from '../utils/test-database.js';
import { ActivityEntity, MentionEntity, NotificationEntity, TaskEntity } from '../../src/entities.js';
import { NotificationPreferenceService } from '../../src/modules/notifications/notification-preference.service.js';

type Who = { type: 'user' | 'agent'; uuid: string };

let world: World;

let tdb: TestDatabase;
let db: DataSource;
let h: Harness;
let f: CollabFactory;
let drive: MutationDriver;
let generator: NotificationGenerator;
let inbox: NotificationService;
let preferences: NotificationPreferenceService;
const frames: NotificationMessage[] = [];
const logs: Array<Record<string, unknown>> = [];

let companyUuid: string;
let project: { uuid: string; companyUuid: string; name: string };
// alice creates things; dev (owned by bob) acts; helper (owned by carol) is assigned; ghost is archived.
let alice: Actor, bob: Actor, carol: Actor, dev: Actor, helper: Actor, ghost: Actor, outsider: Actor;
const extraUsers: Actor[] = [];

const who = (a: Actor): Who => ({ type: a.type, uuid: a.uuid });
const mention = (a: Actor, name = a.name): string => `@[${name}](${a.type}:${a.uuid})`;

async function rows(): Promise<NotificationEntity[]> {
  return db.getRepository(NotificationEntity).find({ order: { createdAt: 'ASC' } });
}
const recipients = (list: NotificationEntity[]): Who[] => list.map((n) => ({ type: n.recipientType, uuid: n.recipientUuid }));
const sortWho = (list: Who[]): Who[] => [...list].sort((x, y) => `${x.type}${x.uuid}`.localeCompare(`${y.type}${y.uuid}`));

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) logs.push(JSON.parse(line) as Record<string, unknown>);
      cb();
    },
  });
  // The notifications module with the domain modules, its generator bound to committed mutations by Nest.
  world = await World.database({ modules: [...DOMAIN_MODULES, NotificationsModule], logger: pino({ level: 'info' }, sink), logStreams: true });
  tdb = world.db;
  db = tdb.dataSource;
  h = world.h;
  generator = world.get(NotificationGenerator);
  inbox = world.get(NotificationService);
  preferences = world.get(NotificationPreferenceService);
  h.bus.subscribe('notification', (m) => frames.push(m));
  f = new CollabFactory(db);
  drive = new MutationDriver(h.runner);

  const ids = world.ids;
  const company = await ids.company();
  companyUuid = company.uuid;
  const ua = await ids.user(companyUuid, { name: 'Alice' });
  const ub = await ids.user(companyUuid, { name: 'Bob' });
  const uc = await ids.user(companyUuid, { name: 'Carol' });
  alice = userActor(ua);
  bob = userActor(ub);
  carol = userActor(uc);
  dev = agentActor((await ids.agent(companyUuid, ub.uuid, { name: 'Dev Bot' })).agent, companyUuid);
  helper = agentActor((await ids.agent(companyUuid, uc.uuid, { name: 'Helper Bot' })).agent, companyUuid);
  const g = await ids.agent(companyUuid, uc.uuid, { name: 'Ghost Bot' });
  ghost = agentActor(g.agent, companyUuid);
  await world.get(AgentService).archive({ companyUuid, userUuid: uc.uuid }, g.agent.uuid);
  for (let i = 0; i < 12; i++) extraUsers.push(userActor(await ids.user(companyUuid, { name: `Extra ${i}` })));
  const other = await ids.company();
  outsider = userActor(await ids.user(other.uuid, { name: 'Outsider' }));
  project = await f.project(companyUuid, { name: 'Apollo' });
});

afterAll(() => world.close());

beforeEach(async () => {
  await db.query('DELETE FROM notification; DELETE FROM mention; DELETE FROM notification_preference');
  frames.length = 0;
  logs.length = 0;
});

const assignedTask = async (assignee: Actor = helper, creator: Actor = alice, o: { title?: string; description?: string } = {}) => {
  const t = await f.task(project, who(creator), o);
  await db.getRepository(TaskEntity).update({ uuid: t.uuid }, { assigneeType: assignee.type, assigneeUuid: assignee.uuid, status: 'assigned' });
  return t;
};

describe('categories and recipients (docs/notifications.md §4.1–4.2)', () => {
  it('task assigned → the new assignee only', async () => {
    const t = await f.task(project, who(alice), { title: 'Wire it' });
    await drive.act(dev, 'task', t, 'assigned', { patch: { assigneeType: 'agent', assigneeUuid: helper.uuid, status: 'assigned' } });
    const got = await rows();
    expect(recipients(got)).toEqual([who(helper)]);
    expect(got[0]).toMatchObject({
      action: 'task_assigned',
      message: 'Dev Bot assigned you to task "Wire it"',
      companyUuid,
      projectUuid: project.uuid,
      projectName: 'Apollo',
      entityType: 'task',
      entityUuid: t.uuid,
      entityTitle: 'Wire it',
      actorType: 'agent',
      actorUuid: dev.uuid,
      actorName: 'Dev Bot',
      readAt: null,
      archivedAt: null,
    });
  });

  it('task status changed → assignee and creator, with the new status', async () => {
    const t = await assignedTask(helper, alice, { title: 'Move it' });
    await drive.act(dev, 'task', t, 'status_changed', { patch: { status: 'in_progress' }, value: { from: 'assigned', to: 'in_progress' } });
    const got = await rows();
    expect(sortWho(recipients(got))).toEqual(sortWho([who(helper), who(alice)]));
    expect(new Set(got.map((n) => n.message))).toEqual(new Set(['Dev Bot moved task "Move it" to in_progress']));
  });

  it('task submitted → creator and the owner of the acting agent (the actor itself never)', async () => {
    const t = await assignedTask(dev, alice, { title: 'Ship it' });
    await drive.act(dev, 'task', t, 'submitted', { patch: { status: 'to_verify' }, value: { summary: 'done' } });
    const got = await rows();
    expect(sortWho(recipients(got))).toEqual(sortWho([who(alice), who(bob)]));
    expect(got.every((n) => n.action === 'task_submitted_for_verify' && n.message === 'Dev Bot submitted task "Ship it" for verification')).toBe(true);
  });

  it.each([
    ['verified', 'task_verified', 'Task "Check it" has been verified'],
    ['reopened', 'task_reopened', 'Task "Check it" has been reopened'],
  ])('task %s → the assignee', async (activity, action, message) => {
    const t = await assignedTask(helper, alice, { title: 'Check it' });
    await drive.act(alice, 'task', t, activity);
    const got = await rows();
    expect(recipients(got)).toEqual([who(helper)]);
    expect(got[0]).toMatchObject({ action, message, actorName: 'Alice' });
  });

  it('proposal submitted → the owner of the actor and the creator of every input idea', async () => {
    const i1 = await f.idea(project, who(alice));
    const i2 = await f.idea(project, who(carol));
    const i3 = await f.idea(project, who(dev));
    const p = await f.proposal(project, who(dev), { title: 'Plan' });
    await db.query('UPDATE proposal SET input_uuids = $1 WHERE uuid = $2', [[i1.uuid, i2.uuid, i3.uuid], p.uuid]);
    await drive.act(dev, 'proposal', p, 'submitted', { patch: { status: 'pending' } });
    const got = await rows();
    expect(sortWho(recipients(got))).toEqual(sortWho([who(bob), who(alice), who(carol)]));
    expect(got[0]).toMatchObject({ action: 'proposal_submitted', message: 'Dev Bot submitted proposal "Plan" for review', entityType: 'proposal' });
  });

  it('proposal approved / rejected → the creator, with the note', async () => {
    const p = await f.proposal(project, who(carol), { title: 'Plan' });
    await drive.act(alice, 'proposal', p, 'approved', { patch: { status: 'approved', reviewNote: 'nice' }, value: { reviewNote: 'nice' } });
    const p2 = await f.proposal(project, who(carol), { title: 'Plan B' });
    await drive.act(alice, 'proposal', p2, 'approved', { patch: { status: 'approved' }, value: { reviewNote: null } });
    const p3 = await f.proposal(project, who(carol), { title: 'Plan C' });
    await drive.act(alice, 'proposal', p3, 'rejected', { patch: { status: 'draft', reviewNote: 'too big' }, value: { reviewNote: 'too big' } });
    const got = await rows();
    expect(recipients(got)).toEqual([who(carol), who(carol), who(carol)]);
    expect(got.map((n) => [n.action, n.message])).toEqual([
      ['proposal_approved', 'Proposal "Plan" has been approved. Note: nice'],
      ['proposal_approved', 'Proposal "Plan B" has been approved'],
      ['proposal_rejected', 'Proposal "Plan C" was sent back to draft. Reason: too big'],
    ]);
  });

  it('idea claimed → creator and new assignee', async () => {
    const i = await f.idea(project, who(alice), { title: 'Dream' });
    await drive.act(helper, 'idea', i, 'assigned', { patch: { assigneeType: 'agent', assigneeUuid: helper.uuid, status: 'elaborating' } });
    const got = await rows();
    expect(recipients(got)).toEqual([who(alice)]);
    expect(got[0]).toMatchObject({ action: 'idea_claimed', message: 'Helper Bot claimed idea "Dream"' });
  });

  it.each([
    ['elaboration_started', 'elaboration_requested', 'asked questions about idea', () => [who(alice), who(bob)]],
    ['elaboration_answered', 'elaboration_answered', 'answered questions about idea', () => [who(helper), who(alice)]],
    ['elaboration_resolved', 'elaboration_resolved', 'resolved the elaboration of idea', () => [who(helper), who(alice)]],
    ['elaboration_skipped', 'elaboration_resolved', 'resolved the elaboration of idea', () => [who(helper), who(alice)]],
  ])('idea %s → %s', async (activity, action, words, expected) => {
    const i = await f.idea(project, who(alice), { title: 'Dream' });
    await db.query("UPDATE idea SET assignee_type = 'agent', assignee_uuid = $1, status = 'elaborating' WHERE uuid = $2", [helper.uuid, i.uuid]);
    await drive.act(dev, 'idea', i, activity);
    const got = await rows();
    expect(sortWho(recipients(got))).toEqual(sortWho(expected()));
    expect(got.every((n) => n.action === action && n.message === `Dev Bot ${words} "Dream"`)).toBe(true);
  });

  it.each([
    ['task', () => [who(helper), who(alice)]],
    ['idea', () => [who(helper), who(alice)]],
    ['proposal', () => [who(alice)]],
    ['document', () => [who(alice)]],
  ] as Array<[Kind, () => Who[]]>)('comment on a %s → its assignee and creator as applicable', async (kind, expected) => {
    const t = await f.targets(project, who(alice));
    if (kind === 'task' || kind === 'idea') await db.query(`UPDATE ${kind} SET assignee_type = 'agent', assignee_uuid = $1, status = $2 WHERE uuid = $3`, [helper.uuid, kind === 'task' ? 'assigned' : 'elaborating', t[kind].uuid]);
    await drive.comment(dev, kind, t[kind].uuid, 'Looks good');
    const got = await rows();
    expect(sortWho(recipients(got))).toEqual(sortWho(expected()));
    expect(got[0]).toMatchObject({ action: 'comment_added', entityType: kind, entityUuid: t[kind].uuid, message: `Dev Bot commented on "${t[kind].title}"` });
  });

  it('activities that are not in §4.1 notify nobody', async () => {
    const t = await assignedTask();
    for (const action of ['released', 'closed', 'edited', 'reference_added', 'session_checkin', 'criteria_marked', 'deleted']) {
      await drive.act(dev, 'task', t, action);
    }
    expect(await rows()).toEqual([]);
    expect(frames).toEqual([]);
  });
});

describe('filtering (docs/notifications.md §4.3)', () => {
  it('never notifies the actor: a user acting on their own task notifies only the others', async () => {
    const t = await assignedTask(helper, alice);
    await drive.act(alice, 'task', t, 'status_changed', { value: { to: 'in_progress' } });
    expect(recipients(await rows())).toEqual([who(helper)]);
  });

  it('de-duplicates a recipient who is both assignee and creator', async () => {
    const t = await assignedTask(alice, alice);
    await drive.act(dev, 'task', t, 'status_changed', { value: { to: 'in_progress' } });
    expect(recipients(await rows())).toEqual([who(alice)]);
  });

  it('drops archived agents', async () => {
    const t = await assignedTask(ghost, alice);
    await drive.act(alice, 'task', t, 'verified');
    expect(await rows()).toEqual([]);
  });

  it('a preference set to false suppresses only its own category', async () => {
    await preferences.update(helper, { taskAssigned: false });
    const t = await f.task(project, who(alice));
    await h.runner.run(dev, async (tx) => {
      await tx.manager.update(TaskEntity, { uuid: t.uuid }, { assigneeType: 'agent', assigneeUuid: helper.uuid, status: 'assigned' });
      tx.record('task.assigned', { projectUuid: project.uuid, uuid: t.uuid }, {} as never);
      tx.record('comment.added', { projectUuid: project.uuid, uuid: t.uuid, type: 'task' }, { commentUuid: '' });
    });
    const got = await rows();
    expect(got.map((n) => [n.recipientUuid, n.action])).toEqual([
      [helper.uuid, 'comment_added'],
      [alice.uuid, 'comment_added'],
    ]);
  });

  it('a rolled-back mutation notifies nobody', async () => {
    const t = await f.task(project, who(alice));
    await expect(
      h.runner.run(dev, async (tx) => {
        tx.record('task.verified', { projectUuid: project.uuid, uuid: t.uuid }, {} as never);
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await rows()).toEqual([]);
    expect(frames).toEqual([]);
  });
});

describe('@mentions (docs/notifications.md §5)', () => {
  it('notifies valid targets of a comment: other company, archived agents, unknown uuids and the actor are ignored', async () => {
    const t = await f.task(project, who(alice), { title: 'Wire it' });
    const text = `Hey ${mention(carol)}, ${mention(outsider)} ${mention(ghost)} ${mention(dev)} @[Nobody](user:99999999-9999-4999-8999-999999999999) and ${mention(carol, 'again')} ${mention(helper)}`;
    const comment = await drive.comment(dev, 'task', t.uuid, text);
    const got = await rows();
    const mentioned = got.filter((n) => n.action === 'mentioned');
    expect(recipients(mentioned)).toEqual([who(carol), who(helper)]);
    expect(mentioned[0]).toMatchObject({ entityType: 'task', entityUuid: t.uuid, entityTitle: 'Wire it', actorName: 'Dev Bot' });
    expect(mentioned[0].message).toBe(`Dev Bot mentioned you: "Hey @Carol, @Outsider @Ghost Bot @Dev Bot @Nobody and @again @Helper Bot"`);
    // alice (creator) gets the comment notification; nobody gets both.
    expect(got.filter((n) => n.action === 'comment_added').map((n) => n.recipientUuid)).toEqual([alice.uuid]);
    const stored = await db.getRepository(MentionEntity).find({ order: { createdAt: 'ASC' } });
    expect(stored.map((m) => [m.sourceType, m.sourceUuid, m.mentionedType, m.mentionedUuid, m.actorType, m.actorUuid, m.companyUuid])).toEqual([
      ['comment', comment.uuid, 'user', carol.uuid, 'agent', dev.uuid, companyUuid],
      ['comment', comment.uuid, 'agent', helper.uuid, 'agent', dev.uuid, companyUuid],
    ]);
  });

  it('the assignee mentioned in a comment gets `mentioned` instead of `comment_added`', async () => {
    const t = await assignedTask(helper, alice);
    await drive.comment(bob, 'task', t.uuid, `please look ${mention(helper)}`);
    const got = await rows();
    expect(got.map((n) => [n.recipientUuid, n.action]).sort()).toEqual(
      [
        [alice.uuid, 'comment_added'],
        [helper.uuid, 'mentioned'],
      ].sort(),
    );
  });

  it('stops at the tenth distinct target of a text', async () => {
    const i = await f.idea(project, who(alice));
    const text = extraUsers.map((u) => mention(u)).join(' ');
    await drive.editText(bob, 'idea', i, `${mention(extraUsers[0])} ${text}`);
    const got = await rows();
    expect(recipients(got.filter((n) => n.action === 'mentioned'))).toEqual(extraUsers.slice(0, 10).map(who));
    expect(await db.getRepository(MentionEntity).count()).toBe(10);
  });

  it('on an edit only newly added targets notify', async () => {
    const t = await f.task(project, who(alice), { description: `for ${mention(carol)}` });
    await drive.editText(bob, 'task', t, `for ${mention(carol)} and ${mention(helper)}`);
    expect(recipients(await rows())).toEqual([who(helper)]);
    await drive.editText(bob, 'task', t, `for ${mention(helper)} and ${mention(carol)}, reworded`);
    expect(await rows()).toHaveLength(1);
    const stored = await db.getRepository(MentionEntity).find();
    expect(stored.map((m) => [m.sourceType, m.sourceUuid, m.mentionedUuid])).toEqual([['task', t.uuid, helper.uuid]]);
  });

  it('stores the Mention row even when the target muted mentions', async () => {
    await preferences.update(carol, { mentioned: false });
    const i = await f.idea(project, who(alice));
    await drive.editText(bob, 'idea', i, `cc ${mention(carol)}`);
    expect(await rows()).toEqual([]);
    expect(frames).toEqual([]);
    const stored = await db.getRepository(MentionEntity).find();
    expect(stored.map((m) => [m.sourceType, m.sourceUuid, m.mentionedUuid, m.actorUuid])).toEqual([['idea', i.uuid, carol.uuid, bob.uuid]]);
  });

  it('snippets collapse whitespace and cut long texts at 117 characters plus ...', async () => {
    const i = await f.idea(project, who(alice));
    await drive.editText(bob, 'idea', i, `${mention(carol)}\n\n  ${'x'.repeat(200)}`);
    const [n] = await rows();
    expect(n.message).toBe(`Bob mentioned you: "@Carol ${'x'.repeat(117 - 7)}..."`);
  });
});

describe('batches and frames (docs/notifications.md §3, §4.5)', () => {
  it('one batch per mutation and one new_notification frame per recipient with its count after insert', async () => {
    // helper already has one unread and one read notification.
    const t0 = await assignedTask(helper, alice);
    await drive.act(alice, 'task', t0, 'verified');
    await drive.act(alice, 'task', t0, 'reopened');
    const [first] = await rows();
    await inbox.read(helper, first.uuid);
    frames.length = 0;

    const t = await f.task(project, who(alice), { title: 'Big one' });
    await drive.editText(bob, 'task', t, `owner: ${mention(helper)} fyi ${mention(carol)}`, async (tx) => {
      await tx.manager.update(TaskEntity, { uuid: t.uuid }, { assigneeType: 'agent', assigneeUuid: helper.uuid, status: 'assigned' });
      tx.record('task.assigned', { projectUuid: project.uuid, uuid: t.uuid }, {} as never);
    });
    const batch = (await rows()).filter((n) => n.entityUuid === t.uuid);
    expect(batch.map((n) => [n.recipientUuid, n.action])).toEqual([
      [helper.uuid, 'task_assigned'],
      [helper.uuid, 'mentioned'],
      [carol.uuid, 'mentioned'],
    ]);
    expect(frames).toEqual([
      {
        recipientType: 'agent',
        recipientUuid: helper.uuid,
        frame: {
          type: 'new_notification',
          notificationUuid: batch[0].uuid,
          unreadCount: 3,
          action: 'task_assigned',
          actorName: 'Bob',
          entityTitle: 'Big one',
          entityType: 'task',
          entityUuid: t.uuid,
          projectUuid: project.uuid,
        },
      },
      {
        recipientType: 'user',
        recipientUuid: carol.uuid,
        frame: {
          type: 'new_notification',
          notificationUuid: batch[2].uuid,
          unreadCount: 1,
          action: 'mentioned',
          actorName: 'Bob',
          entityTitle: 'Big one',
          entityType: 'task',
          entityUuid: t.uuid,
          projectUuid: project.uuid,
        },
      },
    ]);
    expect(Object.keys(frames[0].frame)).toEqual(['type', 'notificationUuid', 'unreadCount', 'action', 'actorName', 'entityTitle', 'entityType', 'entityUuid', 'projectUuid']);
  });

  it('a failing generator is logged with the request id and never fails the mutation', async () => {
    const t = await f.task(project, who(alice));
    const spy = jest.spyOn(generator, 'generate').mockRejectedValueOnce(new Error('boom'));
    const result = await requestContext.run({ requestId: 'req-42' }, () =>
      h.runner.run(alice, async (tx) => {
        await tx.manager.update(TaskEntity, { uuid: t.uuid }, { title: 'Renamed' });
        tx.record('task.verified', { projectUuid: project.uuid, uuid: t.uuid }, {} as never);
        return 'done';
      }),
    );
    spy.mockRestore();
    expect(result).toBe('done');
    expect((await db.getRepository(TaskEntity).findOneByOrFail({ uuid: t.uuid })).title).toBe('Renamed');
    expect(logs).toContainEqual(expect.objectContaining({ level: 50, msg: 'notification generation failed', requestId: 'req-42', err: 'boom' }));
  });

  // The mention rows belong to the mutation (collaboration writes them in its transaction); only the notification
  // batch, written after commit, is lost when it fails.
  it('a batch that fails in the database writes no notification and no frame, and keeps the mutation and its mentions', async () => {
    const i = await f.idea(project, who(alice));
    await h.runner.run(bob, async (tx) => {
      tx.record('idea.edited', { projectUuid: project.uuid, uuid: i.uuid }, {} as never);
      // An entity type the notification table refuses: the whole batch must roll back.
      tx.text({ sourceType: 'idea', sourceUuid: i.uuid, entityType: 'bogus' as 'idea', entityUuid: i.uuid, entityTitle: 'x', projectUuid: project.uuid, before: null, after: mention(carol) });
    });
    expect(await rows()).toEqual([]);
    expect(await db.getRepository(MentionEntity).findBy({ sourceUuid: i.uuid })).toEqual([expect.objectContaining({ mentionedType: 'user', mentionedUuid: carol.uuid })]);
    expect(frames).toEqual([]);
    expect(logs.some((l) => l.msg === 'notification generation failed')).toBe(true);
  });

  it('a mutation that rolls back writes no activity, no mention and no notification, and publishes nothing', async () => {
    const i = await f.idea(project, who(alice));
    h.takeEvents();
    const before = await db.getRepository(ActivityEntity).countBy({ targetUuid: i.uuid });
    await expect(
      h.runner.run(bob, async (tx) => {
        tx.change('idea', i.uuid, project.uuid, 'updated');
        tx.record('idea.edited', { projectUuid: project.uuid, uuid: i.uuid }, {} as never);
        tx.text({ sourceType: 'idea', sourceUuid: i.uuid, entityType: 'idea', entityUuid: i.uuid, entityTitle: 'x', projectUuid: project.uuid, before: null, after: mention(carol) });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await db.getRepository(ActivityEntity).countBy({ targetUuid: i.uuid })).toBe(before);
    expect(await db.getRepository(MentionEntity).countBy({ sourceUuid: i.uuid })).toBe(0);
    expect(await rows()).toEqual([]);
    expect(frames).toEqual([]);
    expect(h.takeEvents()).toEqual([]);
  });

  it('a failing audit write rolls the mutation back and publishes nothing', async () => {
    const t = await f.task(project, who(alice));
    h.takeEvents();
    await expect(
      h.runner.run(bob, async (tx) => {
        await tx.manager.update(TaskEntity, { uuid: t.uuid }, { title: 'Never' });
        tx.change('task', t.uuid, project.uuid, 'updated');
        // A mention source type the mention table refuses: collaboration's write fails inside the transaction.
        tx.text({ sourceType: 'bogus' as 'task', sourceUuid: t.uuid, entityType: 'task', entityUuid: t.uuid, entityTitle: 'x', projectUuid: project.uuid, before: null, after: mention(carol) });
      }),
    ).rejects.toThrow();
    expect((await db.getRepository(TaskEntity).findOneByOrFail({ uuid: t.uuid })).title).not.toBe('Never');
    expect(await rows()).toEqual([]);
    expect(h.takeEvents()).toEqual([]);
  });

  it('messages relayed on the bus never generate anything', async () => {
    h.bus.publish('change', { companyUuid, projectUuid: project.uuid, entityType: 'task', entityUuid: project.uuid, action: 'updated' }, 'e-1');
    h.bus.publish('notification', { recipientType: 'user', recipientUuid: carol.uuid, frame: { type: 'count_update', unreadCount: 1 } }, 'e-1');
    await new Promise((r) => setTimeout(r, 20));
    expect(await rows()).toEqual([]);
  });
});
