import type { MutationCommitted } from '../../src/shared/event-bus/events.js';
import { expectRefused, TaskFactory, type TaskWorld } from '../factories/task.factory.js';
import { type Harness, textsOf, World } from '../utils/world.js';
import type { TestDatabase } from '../utils/test-database.js';

/** svc_update_task field edits and named sessions, svc_report_work (docs/tool-conventions.md §5.2, §5.4). */
describe('task edits and work reports', () => {
  let world: World;
  let tdb: TestDatabase;
  let h: Harness;
  let f: TaskFactory;
  let w: TaskWorld;
  const mutations: MutationCommitted[] = [];

  beforeAll(async () => {
    world = await World.database();
    tdb = world.db;
    h = world.h;
    h.onCommitted((m) => {
      mutations.push(m);
    });
    f = new TaskFactory(world);
    w = await f.world();
  });
  afterAll(() => world.close());
  beforeEach(() => {
    h.takeEvents();
    mutations.length = 0;
  });

  const updated = (taskUuid: string) => ({ companyUuid: w.companyUuid, projectUuid: w.projectUuid, entityType: 'task', entityUuid: taskUuid, action: 'updated' });
  const sessionRow = async (uuid: string) => (await tdb.dataSource.query(`SELECT last_active_at FROM agent_session WHERE uuid = $1`, [uuid]))[0] as { last_active_at: Date };

  describe('svc_update_task fields', () => {
    it('edits fields by any caller; one edited activity listing them; mentions with before/after', async () => {
      const t = await f.task(w.admin, w.projectUuid, { description: 'old @[A](user:' + w.user2.uuid + ')' });
      h.takeEvents();
      mutations.length = 0;
      const r = await f.tasks.update(w.otherDev, { taskUuid: t.uuid, title: ' New title ', description: 'new', priority: 'low', storyPoints: 8 });
      expect(r).toMatchObject({ title: 'New title', description: 'new', priority: 'low', storyPoints: 8, status: 'open' });
      expect(h.takeEvents()).toEqual([updated(t.uuid)]);
      expect((await f.activities(t.uuid)).at(-1)).toMatchObject({ action: 'edited', value: { fields: ['title', 'description', 'priority', 'storyPoints'] } });
      expect(textsOf(mutations[0])).toEqual([
        { sourceType: 'task', sourceUuid: t.uuid, entityType: 'task', entityUuid: t.uuid, entityTitle: 'New title', projectUuid: w.projectUuid, before: 'old @[A](user:' + w.user2.uuid + ')', after: 'new' },
      ]);
      expect((await f.tasks.update(w.otherDev, { taskUuid: t.uuid, storyPoints: null })).storyPoints).toBeNull();
    });

    it('values equal to the stored ones change nothing and publish nothing', async () => {
      const t = await f.task(w.admin, w.projectUuid, { title: 'Same', priority: 'high' });
      const before = await f.snapshot(t.uuid);
      h.takeEvents();
      mutations.length = 0;
      await f.tasks.update(w.dev, { taskUuid: t.uuid, title: 'Same', priority: 'high' });
      expect(await f.snapshot(t.uuid)).toEqual(before);
      expect(h.takeEvents()).toEqual([]);
      expect(mutations).toEqual([]);
    });

    it('refuses an empty call and invalid fields', async () => {
      const t = await f.task(w.admin, w.projectUuid);
      await expectRefused(f, h, t.uuid, () => f.tasks.update(w.dev, { taskUuid: t.uuid }), 'VALIDATION_ERROR', 'Nothing to update');
      await expectRefused(f, h, t.uuid, () => f.tasks.update(w.dev, { taskUuid: t.uuid, sessionUuid: '00000000-0000-4000-8000-000000000000' }), 'VALIDATION_ERROR', 'Nothing to update');
      await expectRefused(f, h, t.uuid, () => f.tasks.update(w.dev, { taskUuid: t.uuid, title: '  ' }), 'VALIDATION_ERROR');
      await expectRefused(f, h, t.uuid, () => f.tasks.update(w.dev, { taskUuid: t.uuid, title: ` ${'x'.repeat(201)} ` }), 'VALIDATION_ERROR');
      // Field shapes and limits (description length, priority, story points, status) are the DTO's: task.dto.spec.ts.
      await expect(f.tasks.update(w.dev, { taskUuid: '00000000-0000-4000-8000-000000000000', title: 'x' })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Task not found' });
    });

    it('is all-or-nothing: a refused status move rolls back the field edits', async () => {
      const uuid = await f.taskIn('assigned', w, w.dev);
      await expectRefused(f, h, uuid, () => f.tasks.update(w.otherDev, { taskUuid: uuid, title: 'renamed', status: 'in_progress' }), 'FORBIDDEN');
      await expectRefused(f, h, uuid, () => f.tasks.update(w.dev, { taskUuid: uuid, title: 'renamed', status: 'to_verify' }), 'INVALID_STATE', 'Task is assigned; submit requires in_progress');
    });

    it('an edit and a move in one call write one merged activity', async () => {
      const uuid = await f.taskIn('assigned', w, w.dev);
      h.takeEvents();
      await f.tasks.update(w.dev, { taskUuid: uuid, title: 'Started', status: 'in_progress' });
      expect(h.takeEvents()).toEqual([updated(uuid)]);
      const last = (await f.activities(uuid)).at(-1)!;
      expect(last.action).toBe('status_changed');
      expect(last.value).toMatchObject({ changes: [{ action: 'edited', fields: ['title'] }, { action: 'status_changed', from: 'assigned', to: 'in_progress' }] });
    });
  });

  describe('named session on a call', () => {
    it('must be the caller\'s own active session; recorded on the activity; counts as a heartbeat', async () => {
      const uuid = await f.taskIn('assigned', w, w.dev);
      const session = await f.sessions.create(w.dev, { name: 'runner-7' });
      const before = await sessionRow(session.uuid);
      await new Promise((r) => setTimeout(r, 15));
      await f.tasks.update(w.dev, { taskUuid: uuid, status: 'in_progress', sessionUuid: session.uuid });
      expect((await f.activities(uuid)).at(-1)).toMatchObject({ action: 'status_changed', session_uuid: session.uuid, session_name: 'runner-7' });
      expect((await sessionRow(session.uuid)).last_active_at.getTime()).toBeGreaterThan(before.last_active_at.getTime());
      // The caller's actor object is not altered.
      expect(w.dev.session).toBeUndefined();
      await f.tasks.reportWork(w.dev, { taskUuid: uuid, report: 'progress', sessionUuid: session.uuid });
      expect((await f.activities(uuid)).at(-1)).toMatchObject({ action: 'comment_added', session_uuid: session.uuid });
    });

    it('another agent\'s session: FORBIDDEN; closed: INVALID_STATE; missing: NOT_FOUND — nothing written', async () => {
      const uuid = await f.taskIn('assigned', w, w.dev);
      const foreign = await f.sessions.create(w.dev2, { name: 'theirs' });
      const closed = await f.sessions.create(w.dev, { name: 'done' });
      await f.sessions.close(w.dev, { sessionUuid: closed.uuid });
      await expectRefused(f, h, uuid, () => f.tasks.update(w.dev, { taskUuid: uuid, status: 'in_progress', sessionUuid: foreign.uuid }), 'FORBIDDEN', 'Session belongs to another agent');
      await expectRefused(f, h, uuid, () => f.tasks.update(w.dev, { taskUuid: uuid, title: 't', sessionUuid: closed.uuid }), 'INVALID_STATE', 'Session is closed; task update requires active');
      await expectRefused(f, h, uuid, () => f.tasks.update(w.dev, { taskUuid: uuid, title: 't', sessionUuid: '00000000-0000-4000-8000-000000000000' }), 'NOT_FOUND', 'Session not found');
      await expectRefused(f, h, uuid, () => f.tasks.reportWork(w.dev, { taskUuid: uuid, report: 'x', sessionUuid: foreign.uuid }), 'FORBIDDEN', 'Session belongs to another agent');
    });
  });

  describe('svc_report_work', () => {
    it('stores the report as a comment by the caller; activity comment_added; mention source; one event', async () => {
      const uuid = await f.taskIn('in_progress', w, w.dev);
      h.takeEvents();
      mutations.length = 0;
      const text = 'Half done, ping @[Admin](user:' + w.admin.uuid + ')';
      const r = await f.tasks.reportWork(w.dev, { taskUuid: uuid, report: text });
      expect(r.task.commentCount).toBe(1);
      const [comment] = await tdb.dataSource.query(`SELECT uuid, content, author_type, author_uuid, target_type, company_uuid FROM comment WHERE target_uuid = $1`, [uuid]);
      expect(comment).toEqual({ uuid: r.commentUuid, content: text, author_type: 'agent', author_uuid: w.dev.uuid, target_type: 'task', company_uuid: w.companyUuid });
      expect(h.takeEvents()).toEqual([updated(uuid)]);
      expect((await f.activities(uuid)).at(-1)).toMatchObject({ action: 'comment_added', value: { commentUuid: r.commentUuid } });
      expect(textsOf(mutations[0])).toEqual([
        { sourceType: 'comment', sourceUuid: r.commentUuid, entityType: 'task', entityUuid: uuid, entityTitle: r.task.title, projectUuid: w.projectUuid, before: null, after: text },
      ]);
    });

    it('by someone else: FORBIDDEN; blank or too long: VALIDATION_ERROR', async () => {
      const uuid = await f.taskIn('in_progress', w, w.dev);
      await expectRefused(f, h, uuid, () => f.tasks.reportWork(w.otherDev, { taskUuid: uuid, report: 'x' }), 'FORBIDDEN', 'Only the assignee can report work on this task');
      await expectRefused(f, h, uuid, () => f.tasks.reportWork(w.dev, { taskUuid: uuid, report: '  ' }), 'VALIDATION_ERROR');
      await expectRefused(f, h, uuid, () => f.tasks.reportWork(w.dev, { taskUuid: uuid, report: 'x'.repeat(20_001) }), 'VALIDATION_ERROR');
    });

    it('a refused status move rejects the whole call (no comment)', async () => {
      const prereq = await f.task(w.admin, w.projectUuid);
      const uuid = await f.taskIn('assigned', w, w.dev, { dependsOnTaskUuids: [prereq.uuid] });
      await expectRefused(f, h, uuid, () => f.tasks.reportWork(w.dev, { taskUuid: uuid, report: 'start', status: 'in_progress' }), 'BLOCKED');
      await expectRefused(f, h, uuid, () => f.tasks.reportWork(w.dev, { taskUuid: uuid, report: 'submit', status: 'to_verify' }), 'INVALID_STATE');
    });
  });
});
