import type { TaskRecord } from '../../src/modules/tasks/index.js';
import { expectRefused, TaskFactory, type TaskWorld } from '../factories/task.factory.js';
import { type Harness, World } from '../utils/world.js';
import type { TestDatabase } from '../utils/test-database.js';

/** The acceptance-criteria gate, self-check, verification marks and the reset rule (docs/domain.md §6.3, §6.5). */
describe('task acceptance criteria', () => {
  let world: World;
  let tdb: TestDatabase;
  let h: Harness;
  let f: TaskFactory;
  let w: TaskWorld;

  beforeAll(async () => {
    world = await World.database();
    tdb = world.db;
    h = world.h;
    f = new TaskFactory(world);
    w = await f.world();
  });
  afterAll(() => world.close());

  const updated = (taskUuid: string) => ({ companyUuid: w.companyUuid, projectUuid: w.projectUuid, entityType: 'task', entityUuid: taskUuid, action: 'updated' });
  const get = (uuid: string): Promise<TaskRecord> => f.tasks.get(w.admin, { taskUuid: uuid });
  /** criteria[0], [1] required; [2] optional (factory default). */
  const criteriaOf = async (uuid: string) => (await get(uuid)).acceptanceCriteriaItems.map((c) => c.uuid);

  describe('gate', () => {
    it('blocks verify until every required criterion is passed by a verification mark', async () => {
      const uuid = await f.taskIn('to_verify', w, w.dev);
      const [a, b] = await criteriaOf(uuid);
      const err = await f.tasks.verify(w.admin, { taskUuid: uuid }).catch((e: unknown) => e);
      expect(err).toMatchObject({
        code: 'CRITERIA_NOT_PASSED',
        message: 'Not all required acceptance criteria are passed (required 2, passed 0, failed 0, pending 2)',
        extra: { acceptanceSummary: { total: 3, required: 2, passed: 0, failed: 0, pending: 3, requiredPassed: 0, requiredFailed: 0, requiredPending: 2 } },
      });

      await f.tasks.markCriteria(w.admin, { taskUuid: uuid, criteria: [{ uuid: a, status: 'passed' }, { uuid: b, status: 'failed', evidence: 'broken' }] });
      await expectRefused(f, h, uuid, () => f.tasks.verify(w.admin, { taskUuid: uuid }), 'CRITERIA_NOT_PASSED', 'Not all required acceptance criteria are passed (required 2, passed 1, failed 1, pending 0)');
      expect((await get(uuid)).status).toBe('to_verify');

      // The optional criterion stays pending and does not block.
      await f.tasks.markCriteria(w.admin, { taskUuid: uuid, criteria: [{ uuid: b, status: 'passed' }] });
      h.takeEvents();
      const done = await f.tasks.verify(w.admin, { taskUuid: uuid });
      expect(done).toMatchObject({ status: 'done', acceptanceStatus: 'passed', acceptance: { passed: 2, total: 3 } });
      expect(h.takeEvents()).toEqual([updated(uuid)]);
      // Leaving for done keeps the marks.
      expect(done.acceptanceCriteriaItems.map((c) => c.status)).toEqual(['passed', 'passed', 'pending']);
    });

    it('self-check marks never count', async () => {
      const uuid = await f.taskIn('to_verify', w, w.dev);
      const ids = await criteriaOf(uuid);
      const r = await f.tasks.selfCheck(w.dev, { taskUuid: uuid, criteria: ids.map((id) => ({ uuid: id, devStatus: 'passed' })) });
      expect(r.acceptanceCriteriaItems.every((c) => c.devStatus === 'passed' && c.status === 'pending')).toBe(true);
      expect(r.acceptanceStatus).toBe('not_started');
      await expectRefused(f, h, uuid, () => f.tasks.verify(w.admin, { taskUuid: uuid }), 'CRITERIA_NOT_PASSED');
    });
  });

  describe('verification marks (svc_mark_acceptance_criteria)', () => {
    it('sets status, evidence and marker; pending clears the marker; activity criteria_marked', async () => {
      const uuid = await f.taskIn('in_progress', w, w.dev);
      const [a, b] = await criteriaOf(uuid);
      h.takeEvents();
      const r = await f.tasks.markCriteria(w.admin, { taskUuid: uuid, criteria: [{ uuid: a, status: 'passed', evidence: 'CI green' }, { uuid: b, status: 'failed' }] });
      const [ca, cb] = r.acceptanceCriteriaItems;
      expect(ca).toMatchObject({ status: 'passed', evidence: 'CI green', markedBy: { type: 'user', uuid: w.admin.uuid, name: w.admin.name } });
      expect(typeof ca.markedAt).toBe('string');
      expect(cb).toMatchObject({ status: 'failed', evidence: null });
      expect(r.acceptanceStatus).toBe('failed');
      expect(r.acceptanceSummary).toMatchObject({ passed: 1, failed: 1, pending: 1, requiredPassed: 1, requiredFailed: 1 });
      expect(h.takeEvents()).toEqual([updated(uuid)]);
      const acts = await f.activities(uuid);
      expect(acts.at(-1)).toMatchObject({ action: 'criteria_marked', value: { criteria: [{ uuid: a, status: 'passed' }, { uuid: b, status: 'failed' }] } });

      const back = await f.tasks.markCriteria(w.admin, { taskUuid: uuid, criteria: [{ uuid: b, status: 'pending' }] });
      expect(back.acceptanceCriteriaItems[1]).toMatchObject({ status: 'pending', evidence: null, markedBy: null, markedAt: null });
      expect(back.acceptanceStatus).toBe('in_progress');
    });

    it('identical marks change nothing and publish nothing', async () => {
      const uuid = await f.taskIn('in_progress', w, w.dev);
      const [a] = await criteriaOf(uuid);
      await f.tasks.markCriteria(w.admin, { taskUuid: uuid, criteria: [{ uuid: a, status: 'passed', evidence: 'e' }] });
      const before = await f.snapshot(uuid);
      h.takeEvents();
      await f.tasks.markCriteria(w.admin, { taskUuid: uuid, criteria: [{ uuid: a, status: 'passed', evidence: 'e' }] });
      expect(await f.snapshot(uuid)).toEqual(before);
      expect(h.takeEvents()).toEqual([]);
    });

    it('a criterion of another task refuses the whole call before any write', async () => {
      const uuid = await f.taskIn('to_verify', w, w.dev);
      const other = await f.taskIn('to_verify', w, w.dev);
      const [a] = await criteriaOf(uuid);
      const [foreign] = await criteriaOf(other);
      await expectRefused(
        f,
        h,
        uuid,
        () => f.tasks.markCriteria(w.admin, { taskUuid: uuid, criteria: [{ uuid: a, status: 'passed' }, { uuid: foreign, status: 'passed' }] }),
        'VALIDATION_ERROR',
        `Criterion ${foreign} does not belong to this task`,
      );
    });

    it('on a closed task: INVALID_STATE; NOT_FOUND for a missing task', async () => {
      const uuid = await f.taskIn('closed', w, w.dev);
      const [a] = await criteriaOf(uuid);
      await expectRefused(f, h, uuid, () => f.tasks.markCriteria(w.admin, { taskUuid: uuid, criteria: [{ uuid: a, status: 'passed' }] }), 'INVALID_STATE');
      await expect(f.tasks.markCriteria(w.admin, { taskUuid: '00000000-0000-4000-8000-000000000000', criteria: [{ uuid: a, status: 'passed' }] })).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });
    });

    // An empty list, an unknown status and too long evidence are the DTO's: src/modules/tasks/dto/task-action.dto.spec.ts.
  });

  describe('self-check (svc_report_criteria_self_check)', () => {
    it('the assignee records devStatus and devEvidence; activity criteria_self_checked', async () => {
      const uuid = await f.taskIn('in_progress', w, w.dev);
      const [a, b] = await criteriaOf(uuid);
      h.takeEvents();
      const r = await f.tasks.selfCheck(w.dev, { taskUuid: uuid, criteria: [{ uuid: a, devStatus: 'passed', devEvidence: 'unit tests' }, { uuid: b, devStatus: 'failed' }] });
      expect(r.acceptanceCriteriaItems[0]).toMatchObject({ devStatus: 'passed', devEvidence: 'unit tests', devMarkedBy: { type: 'agent', uuid: w.dev.uuid }, status: 'pending' });
      expect(r.acceptanceCriteriaItems[1]).toMatchObject({ devStatus: 'failed', devEvidence: null });
      expect(h.takeEvents()).toEqual([updated(uuid)]);
      expect((await f.activities(uuid)).at(-1)).toMatchObject({ action: 'criteria_self_checked' });
    });

    it('by someone else: FORBIDDEN', async () => {
      const uuid = await f.taskIn('in_progress', w, w.dev);
      const [a] = await criteriaOf(uuid);
      await expectRefused(f, h, uuid, () => f.tasks.selfCheck(w.otherDev, { taskUuid: uuid, criteria: [{ uuid: a, devStatus: 'passed' }] }), 'FORBIDDEN', 'Only the assignee can self-check this task');
    });

    it.each(['done', 'closed'] as const)('on a %s task: INVALID_STATE', async (s) => {
      const uuid = await f.taskIn(s, w, w.dev);
      const [a] = await criteriaOf(uuid);
      // A closed task built by the factory has no assignee; assign one through the row to reach the state guard.
      if (s === 'closed') await tdb.dataSource.query(`UPDATE task SET assignee_type = 'agent', assignee_uuid = $2 WHERE uuid = $1`, [uuid, w.dev.uuid]);
      await expectRefused(f, h, uuid, () => f.tasks.selfCheck(w.dev, { taskUuid: uuid, criteria: [{ uuid: a, devStatus: 'passed' }] }), 'INVALID_STATE');
    });

    it('a criterion of another task: VALIDATION_ERROR, nothing written', async () => {
      const uuid = await f.taskIn('in_progress', w, w.dev);
      const other = await f.taskIn('open', w, w.dev);
      const [a] = await criteriaOf(uuid);
      const [foreign] = await criteriaOf(other);
      await expectRefused(
        f,
        h,
        uuid,
        () => f.tasks.selfCheck(w.dev, { taskUuid: uuid, criteria: [{ uuid: a, devStatus: 'passed' }, { uuid: foreign, devStatus: 'passed' }] }),
        'VALIDATION_ERROR',
        `Criterion ${foreign} does not belong to this task`,
      );
    });
  });

  describe('reset rule', () => {
    async function markedToVerify(): Promise<string> {
      const uuid = await f.taskIn('to_verify', w, w.dev);
      const [a, b] = await criteriaOf(uuid);
      await f.tasks.selfCheck(w.dev, { taskUuid: uuid, criteria: [{ uuid: a, devStatus: 'passed', devEvidence: 'x' }] });
      await f.tasks.markCriteria(w.admin, { taskUuid: uuid, criteria: [{ uuid: b, status: 'failed', evidence: 'y' }] });
      return uuid;
    }
    const allPending = (r: TaskRecord): boolean =>
      r.acceptanceCriteriaItems.every((c) => c.devStatus === 'pending' && c.status === 'pending' && c.devEvidence === null && c.evidence === null && c.devMarkedBy === null && c.markedBy === null);

    it('leaving to_verify by pull back, reopen or close resets every mark', async () => {
      expect(allPending(await f.tasks.update(w.dev, { taskUuid: await markedToVerify(), status: 'in_progress' }))).toBe(true);
      expect(allPending(await f.tasks.reopen(w.admin, { taskUuid: await markedToVerify() }))).toBe(true);
      expect(allPending(await f.tasks.close(w.admin, { taskUuid: await markedToVerify() }))).toBe(true);
    });

    it('marks made before submission survive the move into to_verify', async () => {
      const uuid = await f.taskIn('in_progress', w, w.dev);
      const [a] = await criteriaOf(uuid);
      await f.tasks.selfCheck(w.dev, { taskUuid: uuid, criteria: [{ uuid: a, devStatus: 'passed' }] });
      const r = await f.tasks.submitForVerify(w.dev, { taskUuid: uuid });
      expect(r.acceptanceCriteriaItems[0].devStatus).toBe('passed');
    });

    it('replacing the criteria list discards every mark', async () => {
      const uuid = await markedToVerify();
      const r = await f.tasks.update(w.admin, { taskUuid: uuid, acceptanceCriteriaItems: [{ description: '  only one  ' }, { description: '   ' }, { description: 'opt', required: false }] });
      expect(r.status).toBe('to_verify');
      expect(r.acceptanceCriteriaItems.map((c) => [c.description, c.required, c.sortOrder])).toEqual([
        ['only one', true, 0],
        ['opt', false, 1],
      ]);
      expect(allPending(r)).toBe(true);
      expect((await f.activities(uuid)).at(-1)).toMatchObject({ action: 'edited', value: { fields: ['acceptanceCriteriaItems'] } });
    });

    it('an all-blank criteria list is refused', async () => {
      const uuid = await f.taskIn('open', w, w.dev);
      await expectRefused(
        f,
        h,
        uuid,
        () => f.tasks.update(w.admin, { taskUuid: uuid, acceptanceCriteriaItems: [{ description: ' ' }] }),
        'VALIDATION_ERROR',
        'At least one acceptance criterion with a non-empty description is required',
      );
    });
  });
});
