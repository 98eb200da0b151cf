import type { Actor } from '../../src/shared/auth/actor.js';
import { TaskService, type TaskRecord } from '../../src/modules/tasks/index.js';
import { expectRefused, type TaskFactory } from '../factories/task.factory.js';
import { type Harness, userActor, World } from '../utils/world.js';

/** The acceptance-criteria gate, self-check, verification marks and the reset rule (docs/domain.md §6.3, §6.5). */
describe('task acceptance criteria', () => {
  let world: World;
  let h: Harness;
  let f: TaskFactory;
  let tasks: TaskService;
  let companyUuid: string;
  let projectUuid: string;
  /** A user of the company (creator, verification marks) and `dev`, a developer agent it owns. */
  let admin: Actor;
  let dev: Actor;
  /** A developer agent of another user of the same company. */
  let otherDev: Actor;

  beforeAll(async () => {
    world = await World.database();
    h = world.h;
    f = world.tasks;
    tasks = world.get(TaskService);
    companyUuid = (await world.company()).uuid;
    admin = userActor(await world.user(companyUuid));
    dev = (await world.agent(companyUuid, admin.uuid, { preset: 'developer_agent', name: 'Dev' })).actor;
    otherDev = (await world.agent(companyUuid, (await world.user(companyUuid)).uuid, { preset: 'developer_agent', name: 'OtherDev' })).actor;
    projectUuid = await world.project(admin);
  });
  afterAll(() => world.close());

  const updated = (taskUuid: string) => ({ companyUuid, projectUuid, entityType: 'task', entityUuid: taskUuid, action: 'updated' });
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
