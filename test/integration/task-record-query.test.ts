import { randomUUID } from 'node:crypto';
import { jest } from '@jest/globals';
import type { Pool } from 'pg';
import type { EntityManager } from 'typeorm';
import { PersonResolver } from '../../src/shared/database/person.js';
import { ReferenceService, countComments, listForTarget } from '../../src/modules/collaboration/index.js';
import { acceptanceStatus, acceptanceSummary } from '../../src/modules/tasks/domain/task-transition.js';
import { AcceptanceCriterionEntity, TaskEntity } from '../../src/modules/tasks/task.entity.js';
import { TaskReadRepository } from '../../src/modules/tasks/task-read.repository.js';
import { taskPeople, toCriterionRecord, toTaskSummary } from '../../src/modules/tasks/task.records.js';
import { TaskFactory } from '../factories/task.factory.js';
import { World } from '../utils/world.js';
import type { TestDatabase } from '../utils/test-database.js';

/*
 * TaskReadRepository.record reads a whole TaskRecord in one statement (JSON aggregates, timestamps as text). This test holds
 * it to the plain query-by-query assembly it replaced (kept below as the reference) on tasks covering every part of
 * the record: marks by agents and users, unknown people, fractional story points, unicode and escapes, dependency
 * and session ordering, checked-out sessions, every status; outside and inside a transaction.
 */
async function links(em: EntityManager, taskUuid: string, direction: 'dependsOn' | 'dependedBy') {
  const [mine, other] = direction === 'dependsOn' ? ['task_uuid', 'depends_on_uuid'] : ['depends_on_uuid', 'task_uuid'];
  return em.query(`SELECT t.uuid, t.title, t.status FROM task_dependency d JOIN task t ON t.uuid = d.${other} WHERE d.${mine} = $1 ORDER BY d.created_at, t.uuid`, [taskUuid]);
}
async function activeSessions(em: EntityManager, taskUuid: string) {
  const rows: Array<{ session_uuid: string; name: string; agent_uuid: string; checkin_at: Date }> = await em.query(
    `SELECT c.session_uuid, s.name, s.agent_uuid, c.checkin_at FROM session_task_checkin c JOIN agent_session s ON s.uuid = c.session_uuid
      WHERE c.task_uuid = $1 AND c.checkout_at IS NULL ORDER BY c.checkin_at, c.session_uuid`, [taskUuid]);
  return rows.map((r) => ({ sessionUuid: r.session_uuid, sessionName: r.name, agentUuid: r.agent_uuid, checkinAt: r.checkin_at.toISOString() }));
}
async function referenceRecord(em: EntityManager, task: TaskEntity) {
  const criteria = await em.find(AcceptanceCriterionEntity, { where: { taskUuid: task.uuid }, order: { sortOrder: 'ASC', uuid: 'ASC' } });
  const [dependsOn, dependedBy, sessions, commentCount, references] = await Promise.all([
    links(em, task.uuid, 'dependsOn'), links(em, task.uuid, 'dependedBy'), activeSessions(em, task.uuid),
    countComments(em, task.companyUuid, 'task', task.uuid), listForTarget(em, task.companyUuid, 'task', task.uuid),
  ]);
  const refs = [...taskPeople(task), ...criteria.flatMap((c) => [{ type: c.devMarkedByType, uuid: c.devMarkedByUuid }, { type: c.markedByType, uuid: c.markedByUuid }])];
  const people = await PersonResolver.load(em, refs);
  const summary = acceptanceSummary(criteria);
  return {
    ...toTaskSummary(task, { passed: summary.passed, total: summary.total }, people),
    description: task.description,
    createdBy: people.person({ type: task.createdByType, uuid: task.createdByUuid }),
    acceptanceCriteriaItems: criteria.map((c) => toCriterionRecord(c, people)),
    acceptanceStatus: acceptanceStatus(summary),
    acceptanceSummary: summary,
    dependsOn, dependedBy, activeSessions: sessions, commentCount, references,
  };
}

describe('TaskReadRepository.record (one statement)', () => {
  let world: World;
  let tdb: TestDatabase;
  afterAll(() => world.close());
  it('equals the query-by-query record for every task', async () => {
    world = await World.database();
    tdb = world.db;
    const f = new TaskFactory(world);
    const w = await f.world();
    const refsSvc = world.get(ReferenceService);
    const pre = await f.task(w.admin, w.projectUuid, { title: 'Pre "quoted" \\ back' });
    const pre2 = await f.task(w.admin, w.projectUuid, { title: 'Pre2 ünïcödé 🚀' });
    const t = await f.task(w.admin, w.projectUuid, {
      title: 'Main', description: 'line1\nline2\t"q" \\ 🚀 <b>&amp;</b>', priority: 'high', storyPoints: 2.5,
      dependsOnTaskUuids: [pre.uuid, pre2.uuid], references: [{ type: 'issue_pr', url: 'https://x.test/1', title: 'PR' }, { type: 'docs', url: 'https://x.test/2', title: 'Docs', notes: 'n\no' }],
    });
    await f.task(w.admin, w.projectUuid, { title: 'Post', dependsOnTaskUuids: [t.uuid] });
    await f.task(w.admin, w.projectUuid, { title: 'Post2', dependsOnTaskUuids: [t.uuid], storyPoints: 0.1 });
    await f.tasks.assign(w.admin, { taskUuid: t.uuid, agentUuid: w.dev.uuid });
    await f.tasks.reportWork(w.dev, { taskUuid: t.uuid, report: 'r1' });
    await refsSvc.add(w.dev, { targetType: 'task', targetUuid: t.uuid, type: 'repo', url: 'https://x.test/3', title: 'Repo by agent' });
    const rec = await f.tasks.get(w.admin, { taskUuid: t.uuid });
    await f.tasks.selfCheck(w.dev, { taskUuid: t.uuid, criteria: [{ uuid: rec.acceptanceCriteriaItems[0].uuid, devStatus: 'passed', devEvidence: 'ok' }, { uuid: rec.acceptanceCriteriaItems[2].uuid, devStatus: 'failed' }] });
    await f.tasks.markCriteria(w.admin, { taskUuid: t.uuid, criteria: [{ uuid: rec.acceptanceCriteriaItems[1].uuid, status: 'failed', evidence: 'nope' }] });
    const s1 = await f.sessions.create(w.dev, { name: 'w1' });
    const s2 = await f.sessions.create(w.dev, { name: 'w2' });
    const s3 = await f.sessions.create(w.dev, { name: 'w3' });
    await f.sessions.checkinTask(w.dev, { sessionUuid: s1.uuid, taskUuid: t.uuid });
    await f.sessions.checkinTask(w.dev, { sessionUuid: s2.uuid, taskUuid: t.uuid });
    await f.sessions.checkinTask(w.dev, { sessionUuid: s3.uuid, taskUuid: t.uuid });
    await f.sessions.checkoutTask(w.dev, { sessionUuid: s2.uuid, taskUuid: t.uuid });
    await tdb.dataSource.query(`INSERT INTO reference (uuid, company_uuid, target_type, target_uuid, type, url, title, created_by_type, created_by_uuid) VALUES ($1, $2, 'task', $3, 'docs', 'https://x', 'Ghost', 'agent', $4)`, [randomUUID(), w.companyUuid, t.uuid, randomUUID()]);
    await tdb.dataSource.query(`UPDATE task SET assigned_at = '2025-01-01 00:00:00.57+00', story_points = 1.10 WHERE uuid = $1`, [pre2.uuid]);
    for (const st of ['open', 'assigned', 'in_progress', 'to_verify', 'done', 'closed'] as const) await f.taskIn(st, w, w.dev2);
    const all: TaskEntity[] = await tdb.dataSource.getRepository(TaskEntity).find();
    expect(all.length).toBeGreaterThan(10);
    let checked = 0;
    for (const task of all) {
      const expected = await referenceRecord(tdb.dataSource.manager, task);
      const actual = await world.get(TaskReadRepository).record(task.companyUuid, task.uuid);
      expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
      expect(actual).toEqual(expected);
      const inTx = await tdb.dataSource.transaction((em) => new TaskReadRepository(em).recordOf(task));
      expect(JSON.stringify(inTx)).toBe(JSON.stringify(expected));
      checked++;
    }
    expect(checked).toBe(all.length);
    const main = (await world.get(TaskReadRepository).record(w.companyUuid, t.uuid))!;
    expect(main.references.map((r) => r.createdBy.name)).toContain('(unknown)');
    expect(main.acceptanceCriteriaItems.map((c) => [c.devMarkedBy?.type ?? null, c.markedBy?.type ?? null])).toEqual([['agent', null], [null, 'user'], ['agent', null]]);
    expect(main.activeSessions.map((s) => s.sessionName)).toEqual(['w1', 'w3']);
    expect(main.storyPoints).toBe(2.5);
    // Another company's task is not found.
    expect(await world.get(TaskReadRepository).record(randomUUID(), t.uuid)).toBeNull();
  });

  it("is svc_get_task's only statement: the named prepared svc_task_record, straight on the pool", async () => {
    const f = new TaskFactory(world);
    const w = await f.world();
    const t = await f.task(w.admin, w.projectUuid, { title: 'Hot path', dependsOnTaskUuids: [(await f.task(w.admin, w.projectUuid, { title: 'Pre' })).uuid] });
    const pool = (tdb.dataSource.driver as unknown as { master: Pool }).master;
    const sent: unknown[] = [];
    const query = pool.query;
    pool.query = function (this: Pool, ...args: unknown[]) {
      sent.push(args[0]);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof pool.query;
    // Anything through TypeORM (em.query, find, a query builder) takes a query runner first.
    const runners = jest.spyOn(tdb.dataSource, 'createQueryRunner');
    try {
      const record = await f.tasks.get(w.dev, { taskUuid: t.uuid });
      expect(record.dependsOn.map((d) => d.title)).toEqual(['Pre']);
    } finally {
      pool.query = query;
      runners.mockRestore();
    }
    expect(sent).toEqual([expect.objectContaining({ name: 'svc_task_record' })]);
    expect(runners).not.toHaveBeenCalled();
  });
});
