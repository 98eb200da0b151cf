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
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { AgentInboxService } from '../../src/modules/notifications/agent-inbox.service.js';
import type { InboxPage } from '../../src/modules/notifications/notification.service.js';
import { AppError } from '../../src/shared/errors/app-error.js';
import { NotificationFactory, type Inbox } from '../factories/notification.factory.js';
import { restInput } from '../utils/notification-inbox.js';

describe('notification generation', () => {
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
});

describe('the notification service', () => {
  let world: World;

  let tdb: TestDatabase;
  let db: DataSource;
  let svc: NotificationService;
  let agentInbox: AgentInboxService;
  let preferences: NotificationPreferenceService;
  let n: NotificationFactory;
  const frames: NotificationMessage[] = [];
  let me: Actor;
  let colleague: Actor;
  let bot: Actor;
  let stranger: Actor;
  const P1 = randomUUID();
  const P2 = randomUUID();

  const inbox = (a: Actor): Inbox => ({ type: a.type, uuid: a.uuid, companyUuid: a.companyUuid });
  const fresh = async (uuid: string) => db.getRepository(NotificationEntity).findOneByOrFail({ uuid });

  /** The REST list as the route reads it: the query through the REST pipe, then the page (never a delta here). */
  async function listed(a: Actor, raw: Record<string, unknown> = {}): Promise<InboxPage> {
    const answer = await svc.list(a, await restInput.listQuery(raw));
    if (answer.kind !== 'tagged') throw new Error('expected a page');
    return (await answer.body()) as InboxPage;
  }
  const listTag = async (a: Actor, raw: Record<string, unknown>): Promise<string> => {
    const answer = await svc.list(a, await restInput.listQuery(raw));
    if (answer.kind !== 'tagged') throw new Error('expected a page');
    return answer.tag;
  };
  const unreadCount = async (a: Actor): Promise<number> => (await (await svc.unreadCount(a)).body()).count;
  const readAll = async (a: Actor, raw: unknown): Promise<{ count: number }> => svc.readAll(a, await restInput.readAll(raw));
  const updatePreferences = async (a: Actor, raw: unknown) => preferences.update(a, await restInput.preferences(raw));

  async function refusal(p: Promise<unknown>): Promise<{ code: string; message: string } & Record<string, unknown>> {
    try {
      await p;
    } catch (err) {
      if (err instanceof AppError) return { code: err.code, message: err.message, ...err.extra };
      throw err;
    }
    throw new Error('expected a refusal');
  }

  beforeAll(async () => {
    world = await World.database({ modules: [...DOMAIN_MODULES, NotificationsModule], logStreams: true });
    tdb = world.db;
    db = tdb.dataSource;
    const h = world.h;
    svc = world.get(NotificationService);
    agentInbox = world.get(AgentInboxService);
    preferences = world.get(NotificationPreferenceService);
    h.bus.subscribe('notification', (m) => frames.push(m));
    n = new NotificationFactory(db);
    const ids = world.ids;
    const c = await ids.company();
    const u = await ids.user(c.uuid);
    me = userActor(u);
    colleague = userActor(await ids.user(c.uuid));
    bot = agentActor((await ids.agent(c.uuid, u.uuid)).agent, c.uuid);
    const other = await ids.company();
    stranger = userActor(await ids.user(other.uuid));
  });

  afterAll(() => world.close());

  beforeEach(async () => {
    await db.query('DELETE FROM notification; DELETE FROM notification_preference');
    frames.length = 0;
  });

  describe('list and count', () => {
    it('lists non-archived notifications newest first (uuid ascending on ties) with the global unread count', async () => {
      const [a, b] = await n.many(inbox(me), 2, { projectUuid: P1 });
      const tieAt = new Date('2040-01-01T00:00:00Z');
      const lo = await n.insert(inbox(me), { uuid: '00000000-0000-4000-8000-000000000001', createdAt: tieAt, projectUuid: P2 });
      const hi = await n.insert(inbox(me), { uuid: 'ffffffff-0000-4000-8000-000000000001', createdAt: tieAt, projectUuid: P2, readAt: new Date() });
      await n.insert(inbox(me), { archivedAt: new Date() });
      await n.insert(inbox(colleague));
      await n.insert(inbox(stranger));
      const res = await listed(me, {});
      expect(res.notifications.map((x) => x.uuid)).toEqual([lo.uuid, hi.uuid, b.uuid, a.uuid]);
      expect(res.unreadCount).toBe(3);
      expect(Object.keys(res.notifications[0])).toEqual([
        'uuid', 'projectUuid', 'projectName', 'recipientType', 'recipientUuid', 'entityType', 'entityUuid', 'entityTitle',
        'action', 'message', 'actorType', 'actorUuid', 'actorName', 'readAt', 'archivedAt', 'snoozedUntil', 'createdAt',
      ]);
      expect(res.notifications[1].readAt).toEqual(expect.stringMatching(/Z$/));
      expect(res.notifications[0]).toMatchObject({ readAt: null, archivedAt: null, createdAt: tieAt.toISOString() });

      expect((await listed(me, { unreadOnly: 'true' })).notifications.map((x) => x.uuid)).toEqual([lo.uuid, b.uuid, a.uuid]);
      const p1 = await listed(me, { projectUuid: P1, unreadOnly: 'true' });
      expect(p1).toEqual({ notifications: [expect.objectContaining({ uuid: b.uuid }), expect.objectContaining({ uuid: a.uuid })], unreadCount: 3 });
      expect((await listed(me, { limit: '1', offset: '1' })).notifications.map((x) => x.uuid)).toEqual([hi.uuid]);
      expect((await listed(me, { projectUuid: randomUUID() })).notifications).toEqual([]);
      expect(await unreadCount(me)).toBe(3);
      expect(await unreadCount(stranger)).toBe(1);
    });
  });

  describe('read, archive, read-all', () => {
    it('read sets readAt once, publishes one count_update, and is idempotent', async () => {
      const [x] = await n.many(inbox(me), 2);
      const first = await svc.read(me, x.uuid);
      expect(first.readAt).not.toBeNull();
      expect(frames).toEqual([{ recipientType: 'user', recipientUuid: me.uuid, frame: { type: 'count_update', unreadCount: 1 } }]);
      await new Promise((r) => setTimeout(r, 5));
      const again = await svc.read(me, x.uuid.toUpperCase());
      expect(again.readAt).toBe(first.readAt);
      expect(frames).toHaveLength(1);
    });

    it('a write that changes nothing takes no position and logs no frame (its transaction is rolled back)', async () => {
      const x = await n.insert(inbox(me));
      const head = async (): Promise<{ position: number; logged: number }> => {
        const [row]: Array<{ position: number | null; logged: number }> = await db.query(
          `SELECT (SELECT position::int FROM stream_head WHERE stream = 'n' AND key = $1) AS position,
                (SELECT count(*)::int FROM stream_log WHERE stream = 'n' AND key = $1) AS logged`,
          [`user:${me.uuid}`],
        );
        return { position: row.position ?? 0, logged: row.logged };
      };
      await svc.read(me, x.uuid);
      const after = await head();
      expect(after.logged).toBe(after.position);
      await svc.read(me, x.uuid);
      await svc.archive(me, x.uuid);
      await svc.archive(me, x.uuid);
      await readAll(me, undefined);
      expect(await head()).toEqual({ position: after.position + 1, logged: after.logged + 1 });
      expect(frames.map((f) => f.frame)).toEqual([
        { type: 'count_update', unreadCount: 0 },
        { type: 'count_update', unreadCount: 0 },
      ]);
    });

    it('archive sets archivedAt, leaves readAt alone, hides the row and is idempotent', async () => {
      const x = await n.insert(inbox(bot));
      const archived = await svc.archive(bot, x.uuid);
      expect(archived).toMatchObject({ uuid: x.uuid, readAt: null, archivedAt: expect.any(String) });
      expect(frames).toEqual([{ recipientType: 'agent', recipientUuid: bot.uuid, frame: { type: 'count_update', unreadCount: 0 } }]);
      expect((await svc.archive(bot, x.uuid)).archivedAt).toBe(archived.archivedAt);
      expect(frames).toHaveLength(1);
      expect((await listed(bot, {})).notifications).toEqual([]);
    });

    it('a missing, foreign, other-company or non-uuid notification is NOT_FOUND and changes nothing', async () => {
      const mine = await n.insert(inbox(me));
      const theirs = await n.insert(inbox(stranger));
      for (const [actor, uuid] of [
        [colleague, mine.uuid],
        [bot, mine.uuid],
        [stranger, mine.uuid],
        [me, theirs.uuid],
        [me, randomUUID()],
        [me, 'not-a-uuid'],
      ] as Array<[Actor, string]>) {
        expect(await refusal(svc.read(actor, uuid))).toEqual({ code: 'NOT_FOUND', message: 'Notification not found' });
        expect(await refusal(svc.archive(actor, uuid))).toEqual({ code: 'NOT_FOUND', message: 'Notification not found' });
      }
      expect(await fresh(mine.uuid)).toMatchObject({ readAt: null, archivedAt: null });
      expect(frames).toEqual([]);
    });

    it('read-all marks every unread (or one project’s), leaves archived ones alone, and reports the count', async () => {
      await n.many(inbox(me), 2, { projectUuid: P1 });
      await n.many(inbox(me), 3, { projectUuid: P2 });
      const archived = await n.insert(inbox(me), { projectUuid: P1, archivedAt: new Date() });
      await n.insert(inbox(colleague), { projectUuid: P1 });
      expect(await readAll(me, { projectUuid: P1, ignored: true })).toEqual({ count: 2 });
      expect(frames.map((f) => f.frame)).toEqual([{ type: 'count_update', unreadCount: 3 }]);
      expect(await readAll(me, undefined)).toEqual({ count: 3 });
      expect(await unreadCount(me)).toBe(0);
      expect(await unreadCount(colleague)).toBe(1);
      expect((await fresh(archived.uuid)).readAt).toBeNull();
      frames.length = 0;
      expect(await readAll(me, {})).toEqual({ count: 0 });
      expect(frames).toEqual([]);
      expect((await refusal(readAll(me, { projectUuid: 'x' }))).code).toBe('VALIDATION_ERROR');
      expect((await refusal(readAll(me, ['x']))).code).toBe('VALIDATION_ERROR');
    });
  });

  describe('preferences', () => {
    const all = (v: boolean) => ({
      taskAssigned: v, taskStatusChanged: v, taskVerified: v, taskReopened: v, proposalSubmitted: v, proposalApproved: v,
      proposalRejected: v, ideaClaimed: v, commentAdded: v, elaborationRequested: v, elaborationAnswered: v, mentioned: v,
    });

    it('creates the default row on first read and updates any subset', async () => {
      const prefs = await preferences.get(bot);
      expect(prefs).toEqual({ uuid: expect.any(String), ownerType: 'agent', ownerUuid: bot.uuid, ...all(true) });
      expect(await preferences.get(bot)).toEqual(prefs);
      const updated = await updatePreferences(bot, { mentioned: false, taskVerified: false });
      expect(updated).toEqual({ ...prefs, mentioned: false, taskVerified: false });
      expect(await updatePreferences(bot, {})).toEqual(updated);
      expect(await updatePreferences(bot, { mentioned: true })).toEqual({ ...prefs, taskVerified: false });
    });

    it('a first PUT creates the row; an invalid body saves nothing', async () => {
      expect(await updatePreferences(me, { commentAdded: false })).toMatchObject({ ownerType: 'user', ownerUuid: me.uuid, commentAdded: false, mentioned: true });
      const r = await refusal(updatePreferences(me, { commentAdded: true, nope: true, mentioned: 'no' }));
      expect(r).toEqual({
        code: 'VALIDATION_ERROR',
        message: 'Invalid input',
        details: [
          { field: 'nope', message: 'Unknown field' },
          { field: 'mentioned', message: 'must be a boolean' },
        ],
      });
      expect((await preferences.get(me)).commentAdded).toBe(false);
      expect((await refusal(updatePreferences(colleague, null))).code).toBe('VALIDATION_ERROR');
      expect(await db.query('SELECT 1 FROM notification_preference WHERE owner_uuid = $1', [colleague.uuid])).toEqual([]);
    });
  });

  describe('agent-facing methods (docs/notifications.md §7)', () => {
    it('svc_get_notifications: returns unread rows as fetched, then marks them read and counts after', async () => {
      const rows = await n.many(inbox(bot), 4, { projectUuid: P1 });
      await n.insert(inbox(bot), { readAt: new Date() });
      const page = await agentInbox.list(bot, { pageSize: 3 });
      expect(page).toMatchObject({ page: 1, pageSize: 3, total: 4, unreadCount: 1 });
      expect(page.notifications.map((x) => [x.uuid, x.readAt])).toEqual([
        [rows[3].uuid, null],
        [rows[2].uuid, null],
        [rows[1].uuid, null],
      ]);
      expect((await fresh(rows[3].uuid)).readAt).not.toBeNull();
      expect((await fresh(rows[0].uuid)).readAt).toBeNull();
      expect(frames.map((f) => f.frame)).toEqual([{ type: 'count_update', unreadCount: 1 }]);
    });

    it('svc_get_notifications: autoMarkRead false, status read / all and the project filter change nothing', async () => {
      await n.many(inbox(bot), 2, { projectUuid: P1 });
      await n.insert(inbox(bot), { projectUuid: P2, readAt: new Date() });
      expect(await agentInbox.list(bot, { autoMarkRead: false })).toMatchObject({ total: 2, unreadCount: 2 });
      expect(await agentInbox.list(bot, { status: 'read' })).toMatchObject({ total: 1, unreadCount: 2 });
      expect(await agentInbox.list(bot, { status: 'all', projectUuid: P2 })).toMatchObject({ total: 1, unreadCount: 2 });
      expect(frames).toEqual([]);
      expect((await refusal(agentInbox.list(bot, { pageSize: 101 }))).code).toBe('VALIDATION_ERROR');
      // An unknown status is the tool's DTO's: src/modules/notifications/dto/notification.dto.spec.ts.
    });

    it('svc_mark_notification_read: one, all, or a validation error', async () => {
      const [x] = await n.many(inbox(bot), 3, { projectUuid: P1 });
      const msg = 'notificationUuid or all=true required';
      expect(await refusal(agentInbox.markRead(bot, {}))).toEqual({ code: 'VALIDATION_ERROR', message: msg });
      expect(await refusal(agentInbox.markRead(bot, { notificationUuid: x.uuid, all: true }))).toEqual({ code: 'VALIDATION_ERROR', message: msg });
      expect(await refusal(agentInbox.markRead(bot, { notificationUuid: randomUUID() }))).toEqual({ code: 'NOT_FOUND', message: 'Notification not found' });
      const one = await agentInbox.markRead(bot, { notificationUuid: x.uuid });
      expect(one).toEqual({ notification: expect.objectContaining({ uuid: x.uuid, readAt: expect.any(String) }) });
      expect(await agentInbox.markRead(bot, { all: true, projectUuid: P2 })).toEqual({ count: 0 });
      expect(await agentInbox.markRead(bot, { all: true })).toEqual({ count: 2 });
      expect(frames.map((f) => f.frame)).toEqual([
        { type: 'count_update', unreadCount: 2 },
        { type: 'count_update', unreadCount: 0 },
      ]);
    });

    it('svc_checkin summary: the 5 newest unread, then marked read', async () => {
      const rows = await n.many(inbox(bot), 7);
      await n.insert(inbox(bot), { archivedAt: new Date() });
      const summary = await svc.checkinSummary(bot);
      expect(summary.unread).toBe(2);
      expect(summary.recent.map((r) => r.uuid)).toEqual(rows.slice(2).reverse().map((r) => r.uuid));
      expect(Object.keys(summary.recent[0])).toEqual(['uuid', 'action', 'entityType', 'entityUuid', 'entityTitle', 'projectUuid', 'actorName', 'message', 'createdAt']);
      expect((await fresh(rows[6].uuid)).readAt).not.toBeNull();
      expect((await fresh(rows[1].uuid)).readAt).toBeNull();
      expect(frames.map((f) => f.frame)).toEqual([{ type: 'count_update', unreadCount: 2 }]);
      frames.length = 0;
      await readAll(bot, undefined);
      frames.length = 0;
      expect(await svc.checkinSummary(bot)).toEqual({ unread: 0, recent: [] });
      expect(frames).toEqual([]);
    });
  });

  describe('cache tags', () => {
    it('change with every write to the recipient’s rows, whoever writes them, and only then', async () => {
      const t0 = await listTag(me, {});
      expect(await listTag(me, {})).toBe(t0);
      expect(await listTag(me, { limit: '5' })).not.toBe(t0);
      expect((await svc.unreadCount(me)).tag).not.toBe(t0);
      expect(await listTag(colleague, {})).not.toBe(t0);

      const x = await n.insert(inbox(me));
      const t1 = await listTag(me, {});
      expect(t1).not.toBe(t0);
      await n.insert(inbox(colleague));
      expect(await listTag(me, {})).toBe(t1);

      await svc.read(me, x.uuid);
      const t2 = await listTag(me, {});
      expect(t2).not.toBe(t1);
      await svc.read(me, x.uuid);
      await readAll(me, undefined);
      expect(await listTag(me, {})).toBe(t2);

      await svc.archive(me, x.uuid);
      const t3 = await listTag(me, {});
      expect(t3).not.toBe(t2);
      // Another instance (or a script) writing directly bumps the same version.
      await db.query('UPDATE notification SET archived_at = NULL WHERE uuid = $1', [x.uuid]);
      expect(await listTag(me, {})).not.toBe(t3);
    });

    it('validates the list query before reading anything', async () => {
      expect(await refusal(listTag(me, { projectUuid: 'x' }))).toEqual({
        code: 'VALIDATION_ERROR',
        message: 'Invalid input',
        details: [{ field: 'projectUuid', message: 'must be a uuid' }],
      });
    });
  });

  describe('inbox row (version and unread count kept by triggers)', () => {
    const who = [randomUUID(), randomUUID(), randomUUID()];
    type Op =
      | { kind: 'insert'; who: number; n: number; read: boolean; archived: boolean }
      | { kind: 'toggleRead' | 'toggleArchive' | 'delete'; who: number; parity: number }
      | { kind: 'move'; who: number; to: number }
      | { kind: 'truncate' };
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ kind: fc.constant('insert' as const), who: fc.nat(2), n: fc.integer({ min: 1, max: 4 }), read: fc.boolean(), archived: fc.boolean() }),
      fc.record({ kind: fc.constantFrom('toggleRead' as const, 'toggleArchive' as const, 'delete' as const), who: fc.nat(2), parity: fc.nat(1) }),
      fc.record({ kind: fc.constant('move' as const), who: fc.nat(2), to: fc.nat(2) }),
      fc.constant({ kind: 'truncate' as const }),
    );
    const subset = 'recipient_uuid = $1 AND get_byte(uuid_send(uuid), 15) % 2 = $2';

    async function apply(o: Op): Promise<void> {
      const c = me.companyUuid;
      if (o.kind === 'insert') {
        await db.query(
          `INSERT INTO notification (uuid, company_uuid, project_uuid, project_name, recipient_type, recipient_uuid, entity_type, entity_uuid,
                                   entity_title, action, message, actor_type, actor_uuid, actor_name, read_at, archived_at)
         SELECT gen_random_uuid(), $1, gen_random_uuid(), 'P', 'user', $2, 'task', gen_random_uuid(), 'T', 'task_assigned', 'm', 'user', $2, 'A',
                CASE WHEN $4 THEN now() END, CASE WHEN $5 THEN now() END
           FROM generate_series(1, $3::int)`,
          [c, who[o.who], o.n, o.read, o.archived],
        );
      } else if (o.kind === 'toggleRead') {
        await db.query(`UPDATE notification SET read_at = CASE WHEN read_at IS NULL THEN now() END WHERE ${subset}`, [who[o.who], o.parity]);
      } else if (o.kind === 'toggleArchive') {
        await db.query(`UPDATE notification SET archived_at = CASE WHEN archived_at IS NULL THEN now() END WHERE ${subset}`, [who[o.who], o.parity]);
      } else if (o.kind === 'delete') {
        await db.query(`DELETE FROM notification WHERE ${subset}`, [who[o.who], o.parity]);
      } else if (o.kind === 'move') {
        await db.query('UPDATE notification SET recipient_uuid = $2 WHERE recipient_uuid = $1', [who[o.who], who[o.to]]);
      } else {
        await db.query('TRUNCATE notification');
      }
    }

    async function state(): Promise<Array<{ unread: number; counted: number; version: number }>> {
      const rows: Array<{ uuid: string; unread: number; counted: number; version: string }> = await db.query(
        `SELECT r.uuid, coalesce(i.unread_count, 0) AS unread, coalesce(i.version, 0) AS version,
              (SELECT count(*)::int FROM notification n WHERE n.recipient_type = 'user' AND n.recipient_uuid = r.uuid
                                                          AND n.read_at IS NULL AND n.archived_at IS NULL) AS counted
         FROM unnest($1::uuid[]) AS r(uuid)
         LEFT JOIN notification_inbox i ON i.recipient_type = 'user' AND i.recipient_uuid = r.uuid
        ORDER BY array_position($1::uuid[], r.uuid)`,
        [who],
      );
      return rows.map((r) => ({ unread: r.unread, counted: r.counted, version: Number(r.version) }));
    }

    it('the unread count always equals the counted rows and the version never goes back', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(op, { maxLength: 10 }), async (ops) => {
          await db.query('DELETE FROM notification');
          let before = await state();
          for (const o of ops) {
            await apply(o);
            const after = await state();
            for (let i = 0; i < who.length; i++) {
              expect(after[i].unread).toBe(after[i].counted);
              expect(after[i].version).toBeGreaterThanOrEqual(before[i].version);
            }
            before = after;
          }
        }),
        { numRuns: 40 },
      );
    });

    it('every statement that changes a recipient’s rows bumps its version once; others are untouched', async () => {
      await apply({ kind: 'truncate' });
      await apply({ kind: 'insert', who: 0, n: 3, read: false, archived: false });
      const v0 = await state();
      expect(v0[0].unread).toBe(3);
      // One statement changing three rows: one bump.
      await db.query('UPDATE notification SET read_at = now() WHERE recipient_uuid = $1 AND read_at IS NULL', [who[0]]);
      const v1 = await state();
      expect(v1[0].version).toBe(v0[0].version + 1);
      expect(v1[0].unread).toBe(0);
      expect(v1[1].version).toBe(v0[1].version);
      // A statement that matches none of its rows: no bump.
      await db.query('UPDATE notification SET read_at = now() WHERE recipient_uuid = $1 AND read_at IS NULL', [who[0]]);
      expect((await state())[0].version).toBe(v1[0].version);
      // One row back to unread: one bump, and the count follows.
      await db.query('UPDATE notification SET read_at = NULL WHERE uuid = (SELECT uuid FROM notification WHERE recipient_uuid = $1 LIMIT 1)', [who[0]]);
      const v2 = await state();
      expect(v2[0].version).toBe(v1[0].version + 1);
      expect(v2[0].unread).toBe(1);
      expect(v2[1].version).toBe(v0[1].version);
    });
  });
});
