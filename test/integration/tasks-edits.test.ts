import type { Actor } from '../../src/shared/auth/actor.js';
import { SessionService } from '../../src/modules/sessions/session.service.js';
import { TaskService } from '../../src/modules/tasks/index.js';
import type { MutationCommitted } from '../../src/shared/event-bus/events.js';
import { expectRefused, type TaskFactory } from '../factories/task.factory.js';
import { type Harness, textsOf, userActor, World } from '../utils/world.js';

/** svc_update_task field edits and named sessions, svc_report_work (docs/tool-conventions.md §5.2, §5.4). */
describe('task edits and work reports', () => {
  let world: World;
  let h: Harness;
  let f: TaskFactory;
  let tasks: TaskService;
  let sessions: SessionService;
  let companyUuid: string;
  let projectUuid: string;
  /** A user of the company, owner of `dev` and `dev2`, two developer agents. */
  let admin: Actor;
  let dev: Actor;
  let dev2: Actor;
  /** Another user of the same company, and a developer agent it owns. */
  let user2: Actor;
  let otherDev: Actor;
  const mutations: MutationCommitted[] = [];

  beforeAll(async () => {
    world = await World.database();
    h = world.h;
    h.onCommitted((m) => {
      mutations.push(m);
    });
    f = world.tasks;
    tasks = world.get(TaskService);
    sessions = world.get(SessionService);
    companyUuid = (await world.company()).uuid;
    admin = userActor(await world.user(companyUuid));
    user2 = userActor(await world.user(companyUuid));
    dev = (await world.agent(companyUuid, admin.uuid, { preset: 'developer_agent', name: 'Dev' })).actor;
    dev2 = (await world.agent(companyUuid, admin.uuid, { preset: 'developer_agent', name: 'Dev2' })).actor;
    otherDev = (await world.agent(companyUuid, user2.uuid, { preset: 'developer_agent', name: 'OtherDev' })).actor;
    projectUuid = await world.project(admin);
  });
  afterAll(() => world.close());
  beforeEach(() => {
    h.takeEvents();
    mutations.length = 0;
  });

  const updated = (taskUuid: string) => ({ companyUuid, projectUuid, entityType: 'task', entityUuid: taskUuid, action: 'updated' });
  const sessionRow = async (uuid: string) => (await world.ds.query(`SELECT last_active_at FROM agent_session WHERE uuid = $1`, [uuid]))[0] as { last_active_at: Date };

  describe('svc_update_task fields', () => {
    it('edits fields by any caller; one edited activity listing them; mentions with before/after', async () => {
      const t = await world.task(admin, projectUuid, { description: 'old @[A](user:' + user2.uuid + ')' });
      h.takeEvents();
      mutations.length = 0;
      const r = await tasks.update(otherDev, { taskUuid: t.uuid, title: ' New title ', description: 'new', priority: 'low', storyPoints: 8 });
      expect(r).toMatchObject({ title: 'New title', description: 'new', priority: 'low', storyPoints: 8, status: 'open' });
      expect(h.takeEvents()).toEqual([updated(t.uuid)]);
      expect((await f.activities(t.uuid)).at(-1)).toMatchObject({ action: 'edited', value: { fields: ['title', 'description', 'priority', 'storyPoints'] } });
      expect(textsOf(mutations[0])).toEqual([
        { sourceType: 'task', sourceUuid: t.uuid, entityType: 'task', entityUuid: t.uuid, entityTitle: 'New title', projectUuid, before: 'old @[A](user:' + user2.uuid + ')', after: 'new' },
      ]);
      expect((await tasks.update(otherDev, { taskUuid: t.uuid, storyPoints: null })).storyPoints).toBeNull();
    });

    it('values equal to the stored ones change nothing and publish nothing', async () => {
      const t = await world.task(admin, projectUuid, { title: 'Same', priority: 'high' });
      const before = await f.snapshot(t.uuid);
      h.takeEvents();
      mutations.length = 0;
      await tasks.update(dev, { taskUuid: t.uuid, title: 'Same', priority: 'high' });
      expect(await f.snapshot(t.uuid)).toEqual(before);
      expect(h.takeEvents()).toEqual([]);
      expect(mutations).toEqual([]);
    });

    it('refuses an empty call and invalid fields', async () => {
      const t = await world.task(admin, projectUuid);
      await expectRefused(f, h, t.uuid, () => tasks.update(dev, { taskUuid: t.uuid }), 'VALIDATION_ERROR', 'Nothing to update');
      await expectRefused(f, h, t.uuid, () => tasks.update(dev, { taskUuid: t.uuid, sessionUuid: '00000000-0000-4000-8000-000000000000' }), 'VALIDATION_ERROR', 'Nothing to update');
      await expectRefused(f, h, t.uuid, () => tasks.update(dev, { taskUuid: t.uuid, title: '  ' }), 'VALIDATION_ERROR');
      await expectRefused(f, h, t.uuid, () => tasks.update(dev, { taskUuid: t.uuid, title: ` ${'x'.repeat(201)} ` }), 'VALIDATION_ERROR');
      // Field shapes and limits (description length, priority, story points, status) are the DTO's: task.dto.spec.ts.
      await expect(tasks.update(dev, { taskUuid: '00000000-0000-4000-8000-000000000000', title: 'x' })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Task not found' });
    });

    it('is all-or-nothing: a refused status move rolls back the field edits', async () => {
      const uuid = await world.taskIn('assigned', admin, projectUuid, dev);
      await expectRefused(f, h, uuid, () => tasks.update(otherDev, { taskUuid: uuid, title: 'renamed', status: 'in_progress' }), 'FORBIDDEN');
      await expectRefused(f, h, uuid, () => tasks.update(dev, { taskUuid: uuid, title: 'renamed', status: 'to_verify' }), 'INVALID_STATE', 'Task is assigned; submit requires in_progress');
    });

    it('an edit and a move in one call write one merged activity', async () => {
      const uuid = await world.taskIn('assigned', admin, projectUuid, dev);
      h.takeEvents();
      await tasks.update(dev, { taskUuid: uuid, title: 'Started', status: 'in_progress' });
      expect(h.takeEvents()).toEqual([updated(uuid)]);
      const last = (await f.activities(uuid)).at(-1)!;
      expect(last.action).toBe('status_changed');
      expect(last.value).toMatchObject({ changes: [{ action: 'edited', fields: ['title'] }, { action: 'status_changed', from: 'assigned', to: 'in_progress' }] });
    });
  });

  describe('named session on a call', () => {
    it('must be the caller\'s own active session; recorded on the activity; counts as a heartbeat', async () => {
      const uuid = await world.taskIn('assigned', admin, projectUuid, dev);
      const session = await sessions.create(dev, { name: 'runner-7' });
      const before = await sessionRow(session.uuid);
      await new Promise((r) => setTimeout(r, 15));
      await tasks.update(dev, { taskUuid: uuid, status: 'in_progress', sessionUuid: session.uuid });
      expect((await f.activities(uuid)).at(-1)).toMatchObject({ action: 'status_changed', session_uuid: session.uuid, session_name: 'runner-7' });
      expect((await sessionRow(session.uuid)).last_active_at.getTime()).toBeGreaterThan(before.last_active_at.getTime());
      // The caller's actor object is not altered.
      expect(dev.session).toBeUndefined();
      await tasks.reportWork(dev, { taskUuid: uuid, report: 'progress', sessionUuid: session.uuid });
      expect((await f.activities(uuid)).at(-1)).toMatchObject({ action: 'comment_added', session_uuid: session.uuid });
    });

    it('another agent\'s session: FORBIDDEN; closed: INVALID_STATE; missing: NOT_FOUND — nothing written', async () => {
      const uuid = await world.taskIn('assigned', admin, projectUuid, dev);
      const foreign = await sessions.create(dev2, { name: 'theirs' });
      const closed = await sessions.create(dev, { name: 'done' });
      await sessions.close(dev, { sessionUuid: closed.uuid });
      await expectRefused(f, h, uuid, () => tasks.update(dev, { taskUuid: uuid, status: 'in_progress', sessionUuid: foreign.uuid }), 'FORBIDDEN', 'Session belongs to another agent');
      await expectRefused(f, h, uuid, () => tasks.update(dev, { taskUuid: uuid, title: 't', sessionUuid: closed.uuid }), 'INVALID_STATE', 'Session is closed; task update requires active');
      await expectRefused(f, h, uuid, () => tasks.update(dev, { taskUuid: uuid, title: 't', sessionUuid: '00000000-0000-4000-8000-000000000000' }), 'NOT_FOUND', 'Session not found');
      await expectRefused(f, h, uuid, () => tasks.reportWork(dev, { taskUuid: uuid, report: 'x', sessionUuid: foreign.uuid }), 'FORBIDDEN', 'Session belongs to another agent');
    });
  });

  describe('svc_report_work', () => {
    it('stores the report as a comment by the caller; activity comment_added; mention source; one event', async () => {
      const uuid = await world.taskIn('in_progress', admin, projectUuid, dev);
      h.takeEvents();
      mutations.length = 0;
      const text = 'Half done, ping @[Admin](user:' + admin.uuid + ')';
      const r = await tasks.reportWork(dev, { taskUuid: uuid, report: text });
      expect(r.task.commentCount).toBe(1);
      const [comment] = await world.ds.query(`SELECT uuid, content, author_type, author_uuid, target_type, company_uuid FROM comment WHERE target_uuid = $1`, [uuid]);
      expect(comment).toEqual({ uuid: r.commentUuid, content: text, author_type: 'agent', author_uuid: dev.uuid, target_type: 'task', company_uuid: companyUuid });
      expect(h.takeEvents()).toEqual([updated(uuid)]);
      expect((await f.activities(uuid)).at(-1)).toMatchObject({ action: 'comment_added', value: { commentUuid: r.commentUuid } });
      expect(textsOf(mutations[0])).toEqual([
        { sourceType: 'comment', sourceUuid: r.commentUuid, entityType: 'task', entityUuid: uuid, entityTitle: r.task.title, projectUuid, before: null, after: text },
      ]);
    });

    it('by someone else: FORBIDDEN; blank or too long: VALIDATION_ERROR', async () => {
      const uuid = await world.taskIn('in_progress', admin, projectUuid, dev);
      await expectRefused(f, h, uuid, () => tasks.reportWork(otherDev, { taskUuid: uuid, report: 'x' }), 'FORBIDDEN', 'Only the assignee can report work on this task');
      await expectRefused(f, h, uuid, () => tasks.reportWork(dev, { taskUuid: uuid, report: '  ' }), 'VALIDATION_ERROR');
      await expectRefused(f, h, uuid, () => tasks.reportWork(dev, { taskUuid: uuid, report: 'x'.repeat(20_001) }), 'VALIDATION_ERROR');
    });

    it('a refused status move rejects the whole call (no comment)', async () => {
      const prereq = await world.task(admin, projectUuid);
      const uuid = await world.taskIn('assigned', admin, projectUuid, dev, { dependsOnTaskUuids: [prereq.uuid] });
      await expectRefused(f, h, uuid, () => tasks.reportWork(dev, { taskUuid: uuid, report: 'start', status: 'in_progress' }), 'BLOCKED');
      await expectRefused(f, h, uuid, () => tasks.reportWork(dev, { taskUuid: uuid, report: 'submit', status: 'to_verify' }), 'INVALID_STATE');
    });
  });
});
