import type { Actor } from '../../src/shared/auth/actor.js';
import { AgentService } from '../../src/modules/identity/index.js';
import { SessionService } from '../../src/modules/sessions/session.service.js';
import { TaskService, type TaskStatus, type TaskRecord } from '../../src/modules/tasks/index.js';
import { expectRefused, type TaskFactory } from '../factories/task.factory.js';
import { type Harness, userActor, World, textsOf } from '../utils/world.js';
import type { MutationCommitted } from '../../src/shared/event-bus/events.js';

/**
 * One database for the file and the cast every block reads: a company; `admin`, a user of it (creator, admin moves,
 * verification marks) who owns the developer agents `dev` and `dev2`; `user2`, another user of the company, who owns
 * `otherDev`; a project of `admin`. Each test seeds the tasks it reads. `mutations` holds every committed mutation;
 * the blocks that read it empty it before each test.
 */
let world: World;
let h: Harness;
let f: TaskFactory;
let tasks: TaskService;
let sessions: SessionService;
let companyUuid: string;
let projectUuid: string;
let admin: Actor;
let dev: Actor;
let dev2: Actor;
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

/** The change event of an update to a task of the project. */
const updated = (taskUuid: string) => ({ companyUuid, projectUuid, entityType: 'task', entityUuid: taskUuid, action: 'updated' });

/** docs/domain.md §6.1/§6.2: every transition row, its side effects and event, and every guard's refusal. */
describe('task transitions', () => {
  beforeEach(() => h.takeEvents());

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

/** The acceptance-criteria gate, self-check, verification marks and the reset rule (docs/domain.md §6.3, §6.5). */
describe('task acceptance criteria', () => {
  const get = (uuid: string): Promise<TaskRecord> => tasks.get(admin, { taskUuid: uuid });
  /** criteria[0], [1] required; [2] optional (factory default). */
  const criteriaOf = async (uuid: string) => (await get(uuid)).acceptanceCriteriaItems.map((c) => c.uuid);

  describe('gate', () => {
    it('blocks verify until every required criterion is passed by a verification mark', async () => {
      const uuid = await world.taskIn('to_verify', admin, projectUuid, dev);
      const [a, b] = await criteriaOf(uuid);
      const err = await tasks.verify(admin, { taskUuid: uuid }).catch((e: unknown) => e);
      expect(err).toMatchObject({
        code: 'CRITERIA_NOT_PASSED',
        message: 'Not all required acceptance criteria are passed (required 2, passed 0, failed 0, pending 2)',
        extra: { acceptanceSummary: { total: 3, required: 2, passed: 0, failed: 0, pending: 3, requiredPassed: 0, requiredFailed: 0, requiredPending: 2 } },
      });

      await tasks.markCriteria(admin, { taskUuid: uuid, criteria: [{ uuid: a, status: 'passed' }, { uuid: b, status: 'failed', evidence: 'broken' }] });
      await expectRefused(f, h, uuid, () => tasks.verify(admin, { taskUuid: uuid }), 'CRITERIA_NOT_PASSED', 'Not all required acceptance criteria are passed (required 2, passed 1, failed 1, pending 0)');
      expect((await get(uuid)).status).toBe('to_verify');

      // The optional criterion stays pending and does not block.
      await tasks.markCriteria(admin, { taskUuid: uuid, criteria: [{ uuid: b, status: 'passed' }] });
      h.takeEvents();
      const done = await tasks.verify(admin, { taskUuid: uuid });
      expect(done).toMatchObject({ status: 'done', acceptanceStatus: 'passed', acceptance: { passed: 2, total: 3 } });
      expect(h.takeEvents()).toEqual([updated(uuid)]);
      // Leaving for done keeps the marks.
      expect(done.acceptanceCriteriaItems.map((c) => c.status)).toEqual(['passed', 'passed', 'pending']);
    });

    it('self-check marks never count', async () => {
      const uuid = await world.taskIn('to_verify', admin, projectUuid, dev);
      const ids = await criteriaOf(uuid);
      const r = await tasks.selfCheck(dev, { taskUuid: uuid, criteria: ids.map((id) => ({ uuid: id, devStatus: 'passed' })) });
      expect(r.acceptanceCriteriaItems.every((c) => c.devStatus === 'passed' && c.status === 'pending')).toBe(true);
      expect(r.acceptanceStatus).toBe('not_started');
      await expectRefused(f, h, uuid, () => tasks.verify(admin, { taskUuid: uuid }), 'CRITERIA_NOT_PASSED');
    });
  });

  describe('verification marks (svc_mark_acceptance_criteria)', () => {
    it('sets status, evidence and marker; pending clears the marker; activity criteria_marked', async () => {
      const uuid = await world.taskIn('in_progress', admin, projectUuid, dev);
      const [a, b] = await criteriaOf(uuid);
      h.takeEvents();
      const r = await tasks.markCriteria(admin, { taskUuid: uuid, criteria: [{ uuid: a, status: 'passed', evidence: 'CI green' }, { uuid: b, status: 'failed' }] });
      const [ca, cb] = r.acceptanceCriteriaItems;
      expect(ca).toMatchObject({ status: 'passed', evidence: 'CI green', markedBy: { type: 'user', uuid: admin.uuid, name: admin.name } });
      expect(typeof ca.markedAt).toBe('string');
      expect(cb).toMatchObject({ status: 'failed', evidence: null });
      expect(r.acceptanceStatus).toBe('failed');
      expect(r.acceptanceSummary).toMatchObject({ passed: 1, failed: 1, pending: 1, requiredPassed: 1, requiredFailed: 1 });
      expect(h.takeEvents()).toEqual([updated(uuid)]);
      const acts = await f.activities(uuid);
      expect(acts.at(-1)).toMatchObject({ action: 'criteria_marked', value: { criteria: [{ uuid: a, status: 'passed' }, { uuid: b, status: 'failed' }] } });

      const back = await tasks.markCriteria(admin, { taskUuid: uuid, criteria: [{ uuid: b, status: 'pending' }] });
      expect(back.acceptanceCriteriaItems[1]).toMatchObject({ status: 'pending', evidence: null, markedBy: null, markedAt: null });
      expect(back.acceptanceStatus).toBe('in_progress');
    });

    it('identical marks change nothing and publish nothing', async () => {
      const uuid = await world.taskIn('in_progress', admin, projectUuid, dev);
      const [a] = await criteriaOf(uuid);
      await tasks.markCriteria(admin, { taskUuid: uuid, criteria: [{ uuid: a, status: 'passed', evidence: 'e' }] });
      const before = await f.snapshot(uuid);
      h.takeEvents();
      await tasks.markCriteria(admin, { taskUuid: uuid, criteria: [{ uuid: a, status: 'passed', evidence: 'e' }] });
      expect(await f.snapshot(uuid)).toEqual(before);
      expect(h.takeEvents()).toEqual([]);
    });

    it('a criterion of another task refuses the whole call before any write', async () => {
      const uuid = await world.taskIn('to_verify', admin, projectUuid, dev);
      const other = await world.taskIn('to_verify', admin, projectUuid, dev);
      const [a] = await criteriaOf(uuid);
      const [foreign] = await criteriaOf(other);
      await expectRefused(
        f,
        h,
        uuid,
        () => tasks.markCriteria(admin, { taskUuid: uuid, criteria: [{ uuid: a, status: 'passed' }, { uuid: foreign, status: 'passed' }] }),
        'VALIDATION_ERROR',
        `Criterion ${foreign} does not belong to this task`,
      );
    });

    it('on a closed task: INVALID_STATE; NOT_FOUND for a missing task', async () => {
      const uuid = await world.taskIn('closed', admin, projectUuid, dev);
      const [a] = await criteriaOf(uuid);
      await expectRefused(f, h, uuid, () => tasks.markCriteria(admin, { taskUuid: uuid, criteria: [{ uuid: a, status: 'passed' }] }), 'INVALID_STATE');
      await expect(tasks.markCriteria(admin, { taskUuid: '00000000-0000-4000-8000-000000000000', criteria: [{ uuid: a, status: 'passed' }] })).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });
    });

    // An empty list, an unknown status and too long evidence are the DTO's: src/modules/tasks/dto/task-action.dto.spec.ts.
  });

  describe('self-check (svc_report_criteria_self_check)', () => {
    it('the assignee records devStatus and devEvidence; activity criteria_self_checked', async () => {
      const uuid = await world.taskIn('in_progress', admin, projectUuid, dev);
      const [a, b] = await criteriaOf(uuid);
      h.takeEvents();
      const r = await tasks.selfCheck(dev, { taskUuid: uuid, criteria: [{ uuid: a, devStatus: 'passed', devEvidence: 'unit tests' }, { uuid: b, devStatus: 'failed' }] });
      expect(r.acceptanceCriteriaItems[0]).toMatchObject({ devStatus: 'passed', devEvidence: 'unit tests', devMarkedBy: { type: 'agent', uuid: dev.uuid }, status: 'pending' });
      expect(r.acceptanceCriteriaItems[1]).toMatchObject({ devStatus: 'failed', devEvidence: null });
      expect(h.takeEvents()).toEqual([updated(uuid)]);
      expect((await f.activities(uuid)).at(-1)).toMatchObject({ action: 'criteria_self_checked' });
    });

    it('by someone else: FORBIDDEN', async () => {
      const uuid = await world.taskIn('in_progress', admin, projectUuid, dev);
      const [a] = await criteriaOf(uuid);
      await expectRefused(f, h, uuid, () => tasks.selfCheck(otherDev, { taskUuid: uuid, criteria: [{ uuid: a, devStatus: 'passed' }] }), 'FORBIDDEN', 'Only the assignee can self-check this task');
    });

    it.each(['done', 'closed'] as const)('on a %s task: INVALID_STATE', async (s) => {
      const uuid = await world.taskIn(s, admin, projectUuid, dev);
      const [a] = await criteriaOf(uuid);
      // A closed task built by the factory has no assignee; assign one through the row to reach the state guard.
      if (s === 'closed') await world.ds.query(`UPDATE task SET assignee_type = 'agent', assignee_uuid = $2 WHERE uuid = $1`, [uuid, dev.uuid]);
      await expectRefused(f, h, uuid, () => tasks.selfCheck(dev, { taskUuid: uuid, criteria: [{ uuid: a, devStatus: 'passed' }] }), 'INVALID_STATE');
    });

    it('a criterion of another task: VALIDATION_ERROR, nothing written', async () => {
      const uuid = await world.taskIn('in_progress', admin, projectUuid, dev);
      const other = await world.taskIn('open', admin, projectUuid, dev);
      const [a] = await criteriaOf(uuid);
      const [foreign] = await criteriaOf(other);
      await expectRefused(
        f,
        h,
        uuid,
        () => tasks.selfCheck(dev, { taskUuid: uuid, criteria: [{ uuid: a, devStatus: 'passed' }, { uuid: foreign, devStatus: 'passed' }] }),
        'VALIDATION_ERROR',
        `Criterion ${foreign} does not belong to this task`,
      );
    });
  });

  describe('reset rule', () => {
    async function markedToVerify(): Promise<string> {
      const uuid = await world.taskIn('to_verify', admin, projectUuid, dev);
      const [a, b] = await criteriaOf(uuid);
      await tasks.selfCheck(dev, { taskUuid: uuid, criteria: [{ uuid: a, devStatus: 'passed', devEvidence: 'x' }] });
      await tasks.markCriteria(admin, { taskUuid: uuid, criteria: [{ uuid: b, status: 'failed', evidence: 'y' }] });
      return uuid;
    }
    const allPending = (r: TaskRecord): boolean =>
      r.acceptanceCriteriaItems.every((c) => c.devStatus === 'pending' && c.status === 'pending' && c.devEvidence === null && c.evidence === null && c.devMarkedBy === null && c.markedBy === null);

    it('leaving to_verify by pull back, reopen or close resets every mark', async () => {
      expect(allPending(await tasks.update(dev, { taskUuid: await markedToVerify(), status: 'in_progress' }))).toBe(true);
      expect(allPending(await tasks.reopen(admin, { taskUuid: await markedToVerify() }))).toBe(true);
      expect(allPending(await tasks.close(admin, { taskUuid: await markedToVerify() }))).toBe(true);
    });

    it('marks made before submission survive the move into to_verify', async () => {
      const uuid = await world.taskIn('in_progress', admin, projectUuid, dev);
      const [a] = await criteriaOf(uuid);
      await tasks.selfCheck(dev, { taskUuid: uuid, criteria: [{ uuid: a, devStatus: 'passed' }] });
      const r = await tasks.submitForVerify(dev, { taskUuid: uuid });
      expect(r.acceptanceCriteriaItems[0].devStatus).toBe('passed');
    });

    it('replacing the criteria list discards every mark', async () => {
      const uuid = await markedToVerify();
      const r = await tasks.update(admin, { taskUuid: uuid, acceptanceCriteriaItems: [{ description: '  only one  ' }, { description: '   ' }, { description: 'opt', required: false }] });
      expect(r.status).toBe('to_verify');
      expect(r.acceptanceCriteriaItems.map((c) => [c.description, c.required, c.sortOrder])).toEqual([
        ['only one', true, 0],
        ['opt', false, 1],
      ]);
      expect(allPending(r)).toBe(true);
      expect((await f.activities(uuid)).at(-1)).toMatchObject({ action: 'edited', value: { fields: ['acceptanceCriteriaItems'] } });
    });

    it('an all-blank criteria list is refused', async () => {
      const uuid = await world.taskIn('open', admin, projectUuid, dev);
      await expectRefused(
        f,
        h,
        uuid,
        () => tasks.update(admin, { taskUuid: uuid, acceptanceCriteriaItems: [{ description: ' ' }] }),
        'VALIDATION_ERROR',
        'At least one acceptance criterion with a non-empty description is required',
      );
    });
  });
});

/** svc_create_tasks, dependency edits (docs/domain.md §6.4) and task deletion (§8). */
describe('task creation, dependencies and deletion', () => {
  beforeEach(() => {
    h.takeEvents();
    mutations.length = 0;
  });

  const ev = (uuid: string, action: string, project = projectUuid) => ({ companyUuid, projectUuid: project, entityType: 'task', entityUuid: uuid, action });
  const crit = [{ description: 'done' }];
  const taskCount = async (): Promise<number> => (await world.ds.query(`SELECT count(*)::int AS n FROM task`))[0].n;
  const edgesOf = async (uuid: string): Promise<string[]> =>
    (await world.ds.query(`SELECT depends_on_uuid FROM task_dependency WHERE task_uuid = $1 ORDER BY depends_on_uuid`, [uuid])).map((r: { depends_on_uuid: string }) => r.depends_on_uuid);

  describe('svc_create_tasks', () => {
    it('creates a batch with batch-local and existing dependencies, in input order', async () => {
      const existing = await world.task(admin, projectUuid, { title: 'Existing' });
      h.takeEvents();
      const { tasks: created } = await tasks.createTasks(dev, {
        projectUuid,
        tasks: [
          { title: '  API  ', description: 'Hi @[Admin](user:' + admin.uuid + ')', priority: 'high', storyPoints: 3, draftUuid: 'api', acceptanceCriteriaItems: crit, dependsOnTaskUuids: [existing.uuid] },
          {
            title: 'UI',
            draftUuid: 'ui',
            dependsOnDraftUuids: ['api'],
            acceptanceCriteriaItems: [{ description: ' a ' }, { description: '' }, { description: 'b', required: false }],
            references: [
              { type: 'docs', url: 'https://example.test/a', title: 'First' },
              { type: 'repo', url: 'http://example.test/b', title: 'Second', notes: 'n' },
            ],
          },
        ],
      });
      expect(created.map((t) => t.title)).toEqual(['API', 'UI']);
      expect(created[0]).toMatchObject({ status: 'open', priority: 'high', storyPoints: 3, assignee: null, proposalUuid: null, acceptance: { passed: 0, total: 1 } });
      expect(created[1]).toMatchObject({ priority: 'medium', storyPoints: null, acceptance: { passed: 0, total: 2 } });
      const [api, ui] = created.map((t) => t.uuid);
      expect(await edgesOf(api)).toEqual([existing.uuid]);
      expect(await edgesOf(ui)).toEqual([api]);

      const events = h.takeEvents();
      expect(events).toHaveLength(3);
      expect(events).toEqual(expect.arrayContaining([ev(api, 'created'), ev(ui, 'created'), ev(existing.uuid, 'updated')]));

      const record = await tasks.get(admin, { taskUuid: ui });
      expect(record.createdBy).toEqual({ type: 'agent', uuid: dev.uuid, name: dev.name });
      expect(record.references.map((r) => [r.title, r.notes])).toEqual([
        ['First', null],
        ['Second', 'n'],
      ]);
      expect(record.references[0]).toMatchObject({ targetType: 'task', targetUuid: ui, type: 'docs', url: 'https://example.test/a', createdBy: { uuid: dev.uuid } });
      expect(record.dependsOn).toEqual([{ uuid: api, title: 'API', status: 'open' }]);
      expect((await tasks.get(admin, { taskUuid: existing.uuid })).dependedBy).toEqual([{ uuid: api, title: 'API', status: 'open' }]);
      expect((await f.activities(api)).map((a) => a.action)).toEqual(['created']);
      // Descriptions are mention sources on creation.
      expect(textsOf(mutations.at(-1)!)).toEqual([
        expect.objectContaining({ sourceType: 'task', sourceUuid: api, entityType: 'task', entityUuid: api, entityTitle: 'API', before: null, after: expect.stringContaining('@[Admin]') }),
      ]);
    });

    it('links an approved proposal of the same project', async () => {
      const proposal = await f.proposal(projectUuid, admin, 'approved');
      const { tasks: created } = await tasks.createTasks(admin, { projectUuid, proposalUuid: proposal, tasks: [{ title: 'From proposal', acceptanceCriteriaItems: crit }] });
      expect(created[0].proposalUuid).toBe(proposal);
    });

    it('refuses a proposal that is not approved, or of another project', async () => {
      const draft = await f.proposal(projectUuid, admin, 'draft');
      const otherProject = await world.project(admin);
      const elsewhere = await f.proposal(otherProject, admin, 'approved');
      const before = await taskCount();
      await expect(tasks.createTasks(admin, { projectUuid, proposalUuid: draft, tasks: [{ title: 'x', acceptanceCriteriaItems: crit }] })).rejects.toMatchObject({
        code: 'INVALID_STATE',
        message: 'Proposal is draft; create tasks requires approved',
      });
      await expect(tasks.createTasks(admin, { projectUuid, proposalUuid: elsewhere, tasks: [{ title: 'x', acceptanceCriteriaItems: crit }] })).rejects.toMatchObject({
        code: 'NOT_FOUND',
        message: 'Proposal not found',
      });
      expect(await taskCount()).toBe(before);
      expect(h.takeEvents()).toEqual([]);
    });

    it('is all-or-nothing: one invalid item refuses the whole batch', async () => {
      // Shapes and limits (story points, list sizes) are the DTO's: src/modules/tasks/dto/task.dto.spec.ts.
      const before = await taskCount();
      const cases: Array<[unknown[], string, string]> = [
        [[{ title: 'ok', acceptanceCriteriaItems: crit }, { title: 'Bad', acceptanceCriteriaItems: [{ description: '  ' }] }], 'VALIDATION_ERROR', 'Task "Bad": At least one acceptance criterion with a non-empty description is required'],
        [[{ title: 'ok', acceptanceCriteriaItems: crit, dependsOnDraftUuids: ['nope'] }], 'VALIDATION_ERROR', 'Task "ok": Unknown draftUuid "nope"'],
        [[{ title: 'a', draftUuid: 'x', acceptanceCriteriaItems: crit }, { title: 'b', draftUuid: 'x', acceptanceCriteriaItems: crit }], 'VALIDATION_ERROR', 'Duplicate draftUuid "x"'],
        [[{ title: 'a', draftUuid: 'x', dependsOnDraftUuids: ['x'], acceptanceCriteriaItems: crit }], 'VALIDATION_ERROR', 'A task cannot depend on itself'],
        [
          [
            { title: 'a', draftUuid: 'a', dependsOnDraftUuids: ['b'], acceptanceCriteriaItems: crit },
            { title: 'b', draftUuid: 'b', dependsOnDraftUuids: ['a'], acceptanceCriteriaItems: crit },
          ],
          'VALIDATION_ERROR',
          'Adding this dependency would create a cycle',
        ],
        [[{ title: 'ok', acceptanceCriteriaItems: crit }, { title: 'x', acceptanceCriteriaItems: crit, dependsOnTaskUuids: ['00000000-0000-4000-8000-000000000000'] }], 'NOT_FOUND', 'Dependency task not found'],
        [[{ title: 'ok', acceptanceCriteriaItems: crit, references: [{ type: 'docs', url: 'ftp://x', title: 't' }] }], 'VALIDATION_ERROR', 'URL must start with http:// or https://'],
        [[{ title: '   ', acceptanceCriteriaItems: crit }], 'VALIDATION_ERROR', 'Title must be 1-200 characters'],
      ];
      for (const [items, code, message] of cases) {
        await expect(tasks.createTasks(admin, { projectUuid, tasks: items as never })).rejects.toMatchObject({ code, message });
      }
      expect(await taskCount()).toBe(before);
      expect(h.takeEvents()).toEqual([]);
    });

    it('a prerequisite in another project or another company', async () => {
      const otherProject = await world.project(admin);
      const there = await world.task(admin, otherProject);
      const strangerCompany = (await world.company()).uuid;
      const stranger = userActor(await world.user(strangerCompany));
      const strangerProject = await world.project(stranger);
      const foreign = await world.task(stranger, strangerProject);
      h.takeEvents();
      await expect(tasks.createTasks(admin, { projectUuid, tasks: [{ title: 'x', acceptanceCriteriaItems: crit, dependsOnTaskUuids: [there.uuid] }] })).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
        message: 'Tasks must belong to the same project',
      });
      await expect(tasks.createTasks(admin, { projectUuid, tasks: [{ title: 'x', acceptanceCriteriaItems: crit, dependsOnTaskUuids: [foreign.uuid] }] })).rejects.toMatchObject({
        code: 'NOT_FOUND',
        message: 'Dependency task not found',
      });
      await expect(tasks.createTasks(admin, { projectUuid: strangerProject, tasks: [{ title: 'x', acceptanceCriteriaItems: crit }] })).rejects.toMatchObject({
        code: 'NOT_FOUND',
        message: 'Project not found',
      });
      expect(h.takeEvents()).toEqual([]);
    });
  });

  describe('svc_update_task dependency edits', () => {
    it('adds and removes edges; events for both ends; activities on the edited task', async () => {
      const a = await world.task(admin, projectUuid);
      const b = await world.task(admin, projectUuid);
      const c = await world.task(admin, projectUuid);
      h.takeEvents();
      const r = await tasks.update(dev, { taskUuid: a.uuid, addDependsOn: [b.uuid, c.uuid] });
      expect(r.dependsOn.map((d) => d.uuid).sort()).toEqual([b.uuid, c.uuid].sort());
      const events = h.takeEvents();
      expect(events).toHaveLength(3);
      expect(events).toEqual(expect.arrayContaining([ev(a.uuid, 'updated'), ev(b.uuid, 'updated'), ev(c.uuid, 'updated')]));
      const [act] = (await f.activities(a.uuid)).slice(-1);
      expect(act.action).toBe('dependency_added');
      expect((await f.activities(b.uuid)).map((x) => x.action)).toEqual(['created']);

      await tasks.update(dev, { taskUuid: a.uuid, removeDependsOn: [b.uuid] });
      expect(await edgesOf(a.uuid)).toEqual([c.uuid]);
      expect(h.takeEvents()).toEqual(expect.arrayContaining([ev(a.uuid, 'updated'), ev(b.uuid, 'updated')]));
      expect((await f.activities(a.uuid)).at(-1)).toMatchObject({ action: 'dependency_removed', value: { dependsOnUuid: b.uuid } });
    });

    it('adding an existing edge or removing a missing one is a no-op without event', async () => {
      const a = await world.task(admin, projectUuid);
      const b = await world.task(admin, projectUuid);
      await tasks.update(dev, { taskUuid: a.uuid, addDependsOn: [b.uuid] });
      const before = await f.snapshot(a.uuid);
      h.takeEvents();
      await tasks.update(dev, { taskUuid: a.uuid, addDependsOn: [b.uuid], removeDependsOn: ['00000000-0000-4000-8000-000000000000'] });
      expect(await f.snapshot(a.uuid)).toEqual(before);
      expect(h.takeEvents()).toEqual([]);
    });

    it('refuses self, other project, missing task and cycles, leaving everything unchanged', async () => {
      const a = await world.task(admin, projectUuid);
      const b = await world.task(admin, projectUuid, { dependsOnTaskUuids: [a.uuid] });
      const c = await world.task(admin, projectUuid, { dependsOnTaskUuids: [b.uuid] });
      const elsewhere = await world.task(admin, await world.project(admin));
      await expectRefused(f, h, a.uuid, () => tasks.update(dev, { taskUuid: a.uuid, addDependsOn: [a.uuid] }), 'VALIDATION_ERROR', 'A task cannot depend on itself');
      await expectRefused(f, h, a.uuid, () => tasks.update(dev, { taskUuid: a.uuid, addDependsOn: [elsewhere.uuid] }), 'VALIDATION_ERROR', 'Tasks must belong to the same project');
      await expectRefused(f, h, a.uuid, () => tasks.update(dev, { taskUuid: a.uuid, addDependsOn: ['00000000-0000-4000-8000-000000000000'] }), 'NOT_FOUND', 'Dependency task not found');
      await expectRefused(f, h, a.uuid, () => tasks.update(dev, { taskUuid: a.uuid, addDependsOn: [b.uuid] }), 'VALIDATION_ERROR', 'Adding this dependency would create a cycle');
      await expectRefused(f, h, a.uuid, () => tasks.update(dev, { taskUuid: a.uuid, addDependsOn: [c.uuid] }), 'VALIDATION_ERROR', 'Adding this dependency would create a cycle');
      // A field edit in the same call is rolled back with the refused edge.
      await expectRefused(f, h, a.uuid, () => tasks.update(dev, { taskUuid: a.uuid, title: 'renamed', addDependsOn: [c.uuid] }), 'VALIDATION_ERROR');
      // Removing the edge that closes the loop first makes it legal.
      await tasks.update(dev, { taskUuid: b.uuid, removeDependsOn: [a.uuid] });
      expect((await tasks.update(dev, { taskUuid: a.uuid, addDependsOn: [c.uuid] })).dependsOn.map((d) => d.uuid)).toEqual([c.uuid]);
    });

    it('concurrent opposite edges cannot both succeed', async () => {
      const a = await world.task(admin, projectUuid);
      const b = await world.task(admin, projectUuid);
      const results = await Promise.allSettled([
        tasks.update(dev, { taskUuid: a.uuid, addDependsOn: [b.uuid] }),
        tasks.update(dev2, { taskUuid: b.uuid, addDependsOn: [a.uuid] }),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const rejected = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')!;
      expect(rejected.reason).toMatchObject({ code: 'VALIDATION_ERROR', message: 'Adding this dependency would create a cycle' });
    });
  });

  describe('unblocked listing', () => {
    it('lists open/assigned tasks whose prerequisites are all done or closed', async () => {
      const project = await world.project(admin);
      const prereqDone = await world.taskIn('done', admin, project, dev);
      const prereqOpen = await world.taskIn('open', admin, project, dev);
      const free = await world.taskIn('open', admin, project, dev);
      const afterDone = (await world.task(admin, project, { dependsOnTaskUuids: [prereqDone] })).uuid;
      const blocked = (await world.task(admin, project, { dependsOnTaskUuids: [prereqOpen, prereqDone] })).uuid;
      const assigned = await world.taskIn('assigned', admin, project, dev);
      await world.taskIn('in_progress', admin, project, dev);
      const list = await tasks.listUnblocked(dev, { projectUuid: project });
      expect(list.tasks.map((t) => t.uuid).sort()).toEqual([prereqOpen, free, afterDone, assigned].sort());
      expect(list.total).toBe(4);
      expect(list.tasks.map((t) => t.uuid)).not.toContain(blocked);
    });
  });

  describe('delete (svc_admin_delete_task)', () => {
    it('removes edges, criteria, check-ins, comments and references; task deleted + neighbours updated', async () => {
      const pre = await world.task(admin, projectUuid);
      const victim = await world.task(admin, projectUuid, { dependsOnTaskUuids: [pre.uuid], references: [{ type: 'docs', url: 'https://x.test', title: 'r' }] });
      const post = await world.task(admin, projectUuid, { dependsOnTaskUuids: [victim.uuid] });
      await tasks.claim(dev, { taskUuid: victim.uuid });
      await tasks.reportWork(dev, { taskUuid: victim.uuid, report: 'progress' });
      const session = await sessions.create(dev, { name: 's' });
      await sessions.checkinTask(dev, { sessionUuid: session.uuid, taskUuid: victim.uuid });
      h.takeEvents();
      expect(await tasks.delete(admin, { taskUuid: victim.uuid })).toEqual({ uuid: victim.uuid, deleted: true });
      const events = h.takeEvents();
      expect(events).toHaveLength(3);
      expect(events).toEqual(expect.arrayContaining([ev(victim.uuid, 'deleted'), ev(pre.uuid, 'updated'), ev(post.uuid, 'updated')]));
      const snap = (await f.snapshot(victim.uuid)) as Record<string, unknown[]>;
      expect({ ...snap, activities: [] }).toEqual({ task: [], criteria: [], edges: [], checkins: [], comments: [], activities: [] });
      expect(await world.ds.query(`SELECT uuid FROM reference WHERE target_uuid = $1`, [victim.uuid])).toEqual([]);
      // Activities are kept, ending with `deleted`.
      expect((await f.activities(victim.uuid)).at(-1)).toMatchObject({ action: 'deleted' });
      expect((await tasks.get(admin, { taskUuid: post.uuid })).dependsOn).toEqual([]);
      await expect(tasks.get(admin, { taskUuid: victim.uuid })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Task not found' });
      await expect(tasks.delete(admin, { taskUuid: victim.uuid })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });
  });
});

/** svc_update_task field edits and named sessions, svc_report_work (docs/tool-conventions.md §5.2, §5.4). */
describe('task edits and work reports', () => {
  beforeEach(() => {
    h.takeEvents();
    mutations.length = 0;
  });

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
