import type { Actor } from '../../src/shared/auth/actor.js';
import { AgentService } from '../../src/modules/identity/index.js';
import { SessionService } from '../../src/modules/sessions/session.service.js';
import { TaskService, type TaskStatus } from '../../src/modules/tasks/index.js';
import { expectRefused, type TaskFactory } from '../factories/task.factory.js';
import { type Harness, userActor, World } from '../utils/world.js';

/** docs/domain.md §6.1/§6.2: every transition row, its side effects and event, and every guard's refusal. */
describe('task transitions', () => {
  let world: World;
  let h: Harness;
  let f: TaskFactory;
  let tasks: TaskService;
  let sessions: SessionService;
  let companyUuid: string;
  let projectUuid: string;
  /** A user of the company (creator, admin moves, marks), owner of `dev` and `dev2`, two developer agents. */
  let admin: Actor;
  let dev: Actor;
  let dev2: Actor;
  /** Another user of the same company, and a developer agent it owns. */
  let user2: Actor;
  let otherDev: Actor;

  beforeAll(async () => {
    world = await World.database();
    h = world.h;
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
  beforeEach(() => h.takeEvents());

  const updated = (taskUuid: string) => ({ companyUuid, projectUuid, entityType: 'task', entityUuid: taskUuid, action: 'updated' });
  const lastActivity = async (taskUuid: string) => (await f.activities(taskUuid)).at(-1)!;
  const taskIn = (s: TaskStatus, who: Actor = dev) => world.taskIn(s, admin, projectUuid, who);

  describe('self-claim', () => {
    it('open -> assigned: caller becomes assignee, activity assigned, one task updated', async () => {
      const uuid = await taskIn('open');
      h.takeEvents();
      const r = await tasks.claim(dev, { taskUuid: uuid });
      expect(r.status).toBe('assigned');
      expect(r.assignee).toMatchObject({ type: 'agent', uuid: dev.uuid, name: dev.name, assignedBy: { type: 'agent', uuid: dev.uuid, name: dev.name } });
      expect(typeof r.assignee!.assignedAt).toBe('string');
      expect(h.takeEvents()).toEqual([updated(uuid)]);
      expect(await lastActivity(uuid)).toMatchObject({ action: 'assigned', value: { assignee: { type: 'agent', uuid: dev.uuid } }, actor_uuid: dev.uuid });
      expect(r.hints).toBeUndefined();
    });

    it.each(['assigned', 'in_progress', 'to_verify'] as TaskStatus[])('by the current assignee of a %s task: unchanged success, no event', async (s) => {
      const uuid = await taskIn(s);
      const before = await f.snapshot(uuid);
      h.takeEvents();
      const r = await tasks.claim(dev, { taskUuid: uuid });
      expect(r.status).toBe(s);
      expect(await f.snapshot(uuid)).toEqual(before);
      expect(h.takeEvents()).toEqual([]);
    });

    it('identity rule: the owner of the assigned agent, and an agent of the assigned user, count as the assignee', async () => {
      const byAgent = await taskIn('assigned', dev);
      const byUser = await taskIn('in_progress', admin);
      h.takeEvents();
      expect((await tasks.claim(admin, { taskUuid: byAgent })).assignee!.uuid).toBe(dev.uuid);
      expect((await tasks.claim(dev, { taskUuid: byUser })).assignee!.uuid).toBe(admin.uuid);
      expect(h.takeEvents()).toEqual([]);
    });

    it.each(['assigned', 'in_progress', 'to_verify'] as TaskStatus[])('of a %s task held by someone else: INVALID_STATE, unchanged', async (s) => {
      const uuid = await taskIn(s, dev);
      await expectRefused(f, h, uuid, () => tasks.claim(otherDev, { taskUuid: uuid }), 'INVALID_STATE', 'Task is assigned to someone else; claim requires open');
      // A sibling agent of the same owner is not the assignee either.
      await expectRefused(f, h, uuid, () => tasks.claim(dev2, { taskUuid: uuid }), 'INVALID_STATE');
    });

    it.each(['done', 'closed'] as TaskStatus[])('of a %s task: INVALID_STATE', async (s) => {
      const uuid = await taskIn(s);
      await expectRefused(f, h, uuid, () => tasks.claim(dev, { taskUuid: uuid }), 'INVALID_STATE', `Task is ${s}; claim requires open`);
    });

    it('a missing task: NOT_FOUND', async () => {
      await expect(tasks.claim(dev, { taskUuid: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Task not found' });
      await expect(tasks.claim(dev, { taskUuid: 'nope' })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Task not found' });
    });

    it('20 parallel claims by different agents: exactly one success, the rest INVALID_STATE', async () => {
      const uuid = await taskIn('open');
      const agents = await Promise.all(Array.from({ length: 20 }, async () => (await world.agent(companyUuid, admin.uuid, { preset: 'developer_agent' })).actor));
      h.takeEvents();
      const results = await Promise.allSettled(agents.map((a) => tasks.claim(a, { taskUuid: uuid })));
      const ok = results.filter((r) => r.status === 'fulfilled');
      const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(ok).toHaveLength(1);
      expect(failed.map((r) => (r.reason as { code: string }).code)).toEqual(Array(19).fill('INVALID_STATE'));
      const winner = (ok[0] as PromiseFulfilledResult<{ assignee: { uuid: string } }>).value.assignee.uuid;
      expect((await tasks.get(admin, { taskUuid: uuid })).assignee!.uuid).toBe(winner);
      expect(h.takeEvents()).toEqual([updated(uuid)]);
      expect((await f.activities(uuid)).filter((a) => a.action === 'assigned')).toHaveLength(1);
    });
  });

  describe('assign', () => {
    it.each(['open', 'assigned'] as TaskStatus[])('%s -> assigned to an agent holding task:write, with assignedBy = caller', async (s) => {
      const uuid = await taskIn(s, dev);
      h.takeEvents();
      const r = await tasks.assign(admin, { taskUuid: uuid, agentUuid: dev2.uuid });
      expect(r.status).toBe('assigned');
      expect(r.assignee).toMatchObject({ type: 'agent', uuid: dev2.uuid, assignedBy: { type: 'user', uuid: admin.uuid } });
      expect(h.takeEvents()).toEqual([updated(uuid)]);
      expect(await lastActivity(uuid)).toMatchObject({ action: 'assigned', value: { assignee: { type: 'agent', uuid: dev2.uuid } } });
    });

    it('REST form assigns a user', async () => {
      const uuid = await taskIn('open');
      const r = await tasks.assign(admin, { taskUuid: uuid, assigneeType: 'user', assigneeUuid: user2.uuid });
      expect(r.assignee).toMatchObject({ type: 'user', uuid: user2.uuid, name: user2.name });
    });

    it('the same target again: no change, no event', async () => {
      const uuid = await taskIn('assigned', dev);
      await expectRefused(f, h, uuid, async () => {
        await tasks.assign(admin, { taskUuid: uuid, agentUuid: dev.uuid });
        throw Object.assign(new Error('unchanged'), { code: 'UNCHANGED' });
      }, 'UNCHANGED');
    });

    it.each(['in_progress', 'to_verify', 'done', 'closed'] as TaskStatus[])('from %s: INVALID_STATE', async (s) => {
      const uuid = await taskIn(s);
      await expectRefused(f, h, uuid, () => tasks.assign(admin, { taskUuid: uuid, agentUuid: dev2.uuid }), 'INVALID_STATE', `Task is ${s}; assign requires open or assigned`);
    });

    it('an archived agent or an unknown one: NOT_FOUND "Agent not found"', async () => {
      const uuid = await taskIn('open');
      const archived = await world.agent(companyUuid, admin.uuid, { preset: 'developer_agent' });
      await world.get(AgentService).archive({ companyUuid, userUuid: admin.uuid }, archived.uuid);
      await expectRefused(f, h, uuid, () => tasks.assign(admin, { taskUuid: uuid, agentUuid: archived.uuid }), 'NOT_FOUND', 'Agent not found');
      await expectRefused(f, h, uuid, () => tasks.assign(admin, { taskUuid: uuid, agentUuid: '00000000-0000-4000-8000-000000000000' }), 'NOT_FOUND', 'Agent not found');
    });

    it('result carries BLOCKED and UNBLOCKS hints', async () => {
      const prereq = await world.task(admin, projectUuid, { title: 'Prereq A' });
      const mid = await world.task(admin, projectUuid, { title: 'Middle', dependsOnTaskUuids: [prereq.uuid] });
      await world.task(admin, projectUuid, { title: 'Later', dependsOnTaskUuids: [mid.uuid] });
      const r = await tasks.assign(admin, { taskUuid: mid.uuid, agentUuid: dev.uuid });
      expect(r.hints).toEqual(['BLOCKED: waiting for Prereq A', 'UNBLOCKS: Later']);
      const c = await tasks.claim(dev, { taskUuid: mid.uuid });
      expect(c.hints).toEqual(['BLOCKED: waiting for Prereq A', 'UNBLOCKS: Later']);
    });
  });

  describe('release', () => {
    it('assigned -> open by the assignee: assignee cleared, activity released', async () => {
      const uuid = await taskIn('assigned');
      h.takeEvents();
      const r = await tasks.release(dev, { taskUuid: uuid });
      expect(r).toMatchObject({ status: 'open', assignee: null });
      const [row] = await world.ds.query(`SELECT assignee_type, assignee_uuid, assigned_at, assigned_by_uuid FROM task WHERE uuid = $1`, [uuid]);
      expect(row).toEqual({ assignee_type: null, assignee_uuid: null, assigned_at: null, assigned_by_uuid: null });
      expect(h.takeEvents()).toEqual([updated(uuid)]);
      expect((await lastActivity(uuid)).action).toBe('released');
    });

    it('by someone else (or of an open task): FORBIDDEN', async () => {
      const uuid = await taskIn('assigned');
      await expectRefused(f, h, uuid, () => tasks.release(otherDev, { taskUuid: uuid }), 'FORBIDDEN', 'Only the assignee can release this task');
      const open = await taskIn('open');
      await expectRefused(f, h, open, () => tasks.release(dev, { taskUuid: open }), 'FORBIDDEN');
    });

    it.each(['in_progress', 'to_verify', 'done'] as TaskStatus[])('from %s: INVALID_STATE', async (s) => {
      const uuid = await taskIn(s);
      await expectRefused(f, h, uuid, () => tasks.release(dev, { taskUuid: uuid }), 'INVALID_STATE', `Task is ${s}; release requires assigned`);
    });
  });

  describe('start (assigned -> in_progress)', () => {
    it('through svc_update_task: activity status_changed with from/to', async () => {
      const uuid = await taskIn('assigned');
      h.takeEvents();
      const r = await tasks.update(dev, { taskUuid: uuid, status: 'in_progress' });
      expect(r.status).toBe('in_progress');
      expect(h.takeEvents()).toEqual([updated(uuid)]);
      expect(await lastActivity(uuid)).toMatchObject({ action: 'status_changed', value: { from: 'assigned', to: 'in_progress' } });
    });

    it('through svc_report_work', async () => {
      const uuid = await taskIn('assigned');
      const r = await tasks.reportWork(dev, { taskUuid: uuid, report: 'starting', status: 'in_progress' });
      expect(r.task.status).toBe('in_progress');
    });

    it('by someone else: FORBIDDEN', async () => {
      const uuid = await taskIn('assigned');
      await expectRefused(f, h, uuid, () => tasks.update(otherDev, { taskUuid: uuid, status: 'in_progress' }), 'FORBIDDEN', "Only the assignee can change this task's status");
    });

    it('with an unresolved prerequisite: BLOCKED with the blockers', async () => {
      const prereq = await world.task(admin, projectUuid, { title: 'Blocker' });
      await tasks.claim(dev2, { taskUuid: prereq.uuid });
      const uuid = await taskIn('assigned', dev);
      await tasks.update(admin, { taskUuid: uuid, addDependsOn: [prereq.uuid] });
      const before = await f.snapshot(uuid);
      h.takeEvents();
      const err = await tasks.update(dev, { taskUuid: uuid, status: 'in_progress' }).catch((e: unknown) => e);
      expect(err).toMatchObject({
        code: 'BLOCKED',
        message: 'Cannot move to in_progress: 1 prerequisite(s) not done or closed',
        extra: { blockers: [{ uuid: prereq.uuid, title: 'Blocker', status: 'assigned', assignee: { type: 'agent', uuid: dev2.uuid } }] },
      });
      expect(await f.snapshot(uuid)).toEqual(before);
      expect(h.takeEvents()).toEqual([]);
      // A to_verify prerequisite does not resolve it; done does.
      await tasks.update(dev2, { taskUuid: prereq.uuid, status: 'in_progress' });
      await tasks.submitForVerify(dev2, { taskUuid: prereq.uuid });
      await expect(tasks.update(dev, { taskUuid: uuid, status: 'in_progress' })).rejects.toMatchObject({ code: 'BLOCKED' });
      await tasks.close(admin, { taskUuid: prereq.uuid });
      expect((await tasks.update(dev, { taskUuid: uuid, status: 'in_progress' })).status).toBe('in_progress');
    });

    it.each(['open', 'in_progress', 'done'] as TaskStatus[])('from %s (by the assignee where there is one): refused', async (s) => {
      const uuid = await taskIn(s);
      await expectRefused(f, h, uuid, () => tasks.update(dev, { taskUuid: uuid, status: 'in_progress' }), s === 'open' ? 'FORBIDDEN' : 'INVALID_STATE');
    });
  });

  describe('submit (in_progress -> to_verify)', () => {
    it('svc_submit_for_verify stores the summary in the activity', async () => {
      const uuid = await taskIn('in_progress');
      h.takeEvents();
      const r = await tasks.submitForVerify(dev, { taskUuid: uuid, summary: 'All done' });
      expect(r.status).toBe('to_verify');
      expect(h.takeEvents()).toEqual([updated(uuid)]);
      expect(await lastActivity(uuid)).toMatchObject({ action: 'submitted', value: { summary: 'All done' } });
    });

    it('svc_update_task and svc_report_work can submit too', async () => {
      const a = await taskIn('in_progress');
      expect((await tasks.update(dev, { taskUuid: a, status: 'to_verify' })).status).toBe('to_verify');
      const b = await taskIn('in_progress');
      expect((await tasks.reportWork(dev, { taskUuid: b, report: 'done', status: 'to_verify' })).task.status).toBe('to_verify');
      expect((await lastActivity(b)).action).toBe('submitted');
    });

    it('by someone else: FORBIDDEN; from assigned: INVALID_STATE (a too long summary: task-action.dto.spec.ts)', async () => {
      const uuid = await taskIn('in_progress');
      await expectRefused(f, h, uuid, () => tasks.submitForVerify(otherDev, { taskUuid: uuid }), 'FORBIDDEN', 'Only the assignee can submit this task');
      const assigned = await taskIn('assigned');
      await expectRefused(f, h, assigned, () => tasks.submitForVerify(dev, { taskUuid: assigned }), 'INVALID_STATE', 'Task is assigned; submit requires in_progress');
    });
  });

  describe('pull back (to_verify -> in_progress)', () => {
    it('resets every criterion mark, activity status_changed', async () => {
      const uuid = await taskIn('to_verify');
      const rec = await tasks.get(admin, { taskUuid: uuid });
      await tasks.selfCheck(dev, { taskUuid: uuid, criteria: [{ uuid: rec.acceptanceCriteriaItems[0].uuid, devStatus: 'passed', devEvidence: 'ok' }] });
      await tasks.markCriteria(admin, { taskUuid: uuid, criteria: [{ uuid: rec.acceptanceCriteriaItems[0].uuid, status: 'failed', evidence: 'no' }] });
      h.takeEvents();
      const r = await tasks.update(dev, { taskUuid: uuid, status: 'in_progress' });
      expect(r.status).toBe('in_progress');
      for (const c of r.acceptanceCriteriaItems) {
        expect(c).toMatchObject({ devStatus: 'pending', devEvidence: null, devMarkedBy: null, devMarkedAt: null, status: 'pending', evidence: null, markedBy: null, markedAt: null });
      }
      expect(h.takeEvents()).toEqual([updated(uuid)]);
      expect(await lastActivity(uuid)).toMatchObject({ action: 'status_changed', value: { from: 'to_verify', to: 'in_progress' } });
    });

    it('subject to the dependency rule and the assignee rule', async () => {
      const uuid = await taskIn('to_verify');
      const prereq = await world.task(admin, projectUuid);
      await tasks.update(admin, { taskUuid: uuid, addDependsOn: [prereq.uuid] });
      await expectRefused(f, h, uuid, () => tasks.update(dev, { taskUuid: uuid, status: 'in_progress' }), 'BLOCKED');
      await expectRefused(f, h, uuid, () => tasks.update(otherDev, { taskUuid: uuid, status: 'in_progress' }), 'FORBIDDEN');
    });
  });

  describe('verify (to_verify -> done)', () => {
    it('with every required criterion passed: done, activity verified', async () => {
      const uuid = await taskIn('to_verify');
      const rec = await tasks.get(admin, { taskUuid: uuid });
      const required = rec.acceptanceCriteriaItems.filter((c) => c.required);
      await tasks.markCriteria(admin, { taskUuid: uuid, criteria: required.map((c) => ({ uuid: c.uuid, status: 'passed' })) });
      h.takeEvents();
      const r = await tasks.verify(admin, { taskUuid: uuid });
      expect(r).toMatchObject({ status: 'done', acceptanceStatus: 'passed' });
      expect(h.takeEvents()).toEqual([updated(uuid)]);
      expect((await lastActivity(uuid)).action).toBe('verified');
    });

    it.each(['open', 'assigned', 'in_progress', 'done', 'closed'] as TaskStatus[])('from %s: INVALID_STATE', async (s) => {
      const uuid = await taskIn(s);
      await expectRefused(f, h, uuid, () => tasks.verify(admin, { taskUuid: uuid }), 'INVALID_STATE', `Task is ${s}; verify requires to_verify`);
    });
  });

  describe('reopen (to_verify -> in_progress)', () => {
    it('resets criteria, activity reopened noting force', async () => {
      const uuid = await taskIn('to_verify');
      const rec = await tasks.get(admin, { taskUuid: uuid });
      await tasks.markCriteria(admin, { taskUuid: uuid, criteria: [{ uuid: rec.acceptanceCriteriaItems[1].uuid, status: 'passed' }] });
      h.takeEvents();
      const r = await tasks.reopen(admin, { taskUuid: uuid });
      expect(r.status).toBe('in_progress');
      expect(r.acceptanceCriteriaItems.every((c) => c.status === 'pending' && c.devStatus === 'pending')).toBe(true);
      expect(r.assignee!.uuid).toBe(dev.uuid);
      expect(h.takeEvents()).toEqual([updated(uuid)]);
      expect(await lastActivity(uuid)).toMatchObject({ action: 'reopened', value: { force: false } });
    });

    it('BLOCKED by an unresolved prerequisite unless force', async () => {
      const uuid = await taskIn('to_verify');
      const prereq = await world.task(admin, projectUuid);
      await tasks.update(admin, { taskUuid: uuid, addDependsOn: [prereq.uuid] });
      await expectRefused(f, h, uuid, () => tasks.reopen(admin, { taskUuid: uuid }), 'BLOCKED');
      const r = await tasks.reopen(admin, { taskUuid: uuid, force: true });
      expect(r.status).toBe('in_progress');
      expect(await lastActivity(uuid)).toMatchObject({ action: 'reopened', value: { force: true } });
    });

    it.each(['assigned', 'in_progress', 'done'] as TaskStatus[])('from %s: INVALID_STATE', async (s) => {
      const uuid = await taskIn(s);
      await expectRefused(f, h, uuid, () => tasks.reopen(admin, { taskUuid: uuid, force: true }), 'INVALID_STATE', `Task is ${s}; reopen requires to_verify`);
    });
  });

  describe('close (any but closed -> closed)', () => {
    it.each(['open', 'assigned', 'in_progress', 'done'] as TaskStatus[])('from %s: closed, activity closed with the reason, assignee kept', async (s) => {
      const uuid = await taskIn(s);
      const before = await tasks.get(admin, { taskUuid: uuid });
      h.takeEvents();
      const r = await tasks.close(admin, { taskUuid: uuid, reason: 'obsolete' });
      expect(r.status).toBe('closed');
      expect(r.assignee?.uuid ?? null).toBe(before.assignee?.uuid ?? null);
      expect(h.takeEvents()).toEqual([updated(uuid)]);
      expect(await lastActivity(uuid)).toMatchObject({ action: 'closed', value: { reason: 'obsolete' } });
      // Leaving anything but to_verify keeps the marks (done keeps its passed marks).
      expect(r.acceptanceCriteriaItems.map((c) => c.status)).toEqual(before.acceptanceCriteriaItems.map((c) => c.status));
    });

    it('from to_verify: criteria reset; open check-ins checked out', async () => {
      const uuid = await taskIn('to_verify');
      const rec = await tasks.get(admin, { taskUuid: uuid });
      await tasks.markCriteria(admin, { taskUuid: uuid, criteria: [{ uuid: rec.acceptanceCriteriaItems[0].uuid, status: 'passed' }] });
      const session = await sessions.create(dev, { name: 'worker' });
      await sessions.checkinTask(dev, { sessionUuid: session.uuid, taskUuid: uuid });
      expect((await tasks.get(admin, { taskUuid: uuid })).activeSessions).toHaveLength(1);
      h.takeEvents();
      const r = await tasks.close(admin, { taskUuid: uuid });
      expect(r.acceptanceCriteriaItems.every((c) => c.status === 'pending')).toBe(true);
      expect(r.activeSessions).toEqual([]);
      const [checkin] = await world.ds.query(`SELECT checkout_at FROM session_task_checkin WHERE task_uuid = $1`, [uuid]);
      expect(checkin.checkout_at).toBeInstanceOf(Date);
      expect(h.takeEvents()).toEqual([updated(uuid)]);
      expect(await lastActivity(uuid)).toMatchObject({ action: 'closed', value: { reason: null, checkedOutSessions: [session.uuid] } });
    });

    it('of a closed task: INVALID_STATE', async () => {
      const uuid = await taskIn('closed');
      await expectRefused(f, h, uuid, () => tasks.close(admin, { taskUuid: uuid }), 'INVALID_STATE', 'Task is closed; close requires not closed');
    });
  });
});
