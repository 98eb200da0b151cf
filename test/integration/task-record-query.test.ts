import { randomUUID } from 'node:crypto';
import { jest } from '@jest/globals';
import type { Pool } from 'pg';
import type { EntityManager } from 'typeorm';
import { PersonResolver } from '../../src/shared/database/person.js';
import { SessionService } from '../../src/modules/sessions/session.service.js';
import { ReferenceService, countComments, listForTarget } from '../../src/modules/collaboration/index.js';
import { acceptanceStatus, acceptanceSummary } from '../../src/modules/tasks/domain/task-transition.js';
import { TaskService } from '../../src/modules/tasks/index.js';
import { AcceptanceCriterionEntity, TaskEntity } from '../../src/modules/tasks/task.entity.js';
import { TaskReadRepository } from '../../src/modules/tasks/task-read.repository.js';
import { taskPeople, toCriterionRecord, toTaskSummary } from '../../src/modules/tasks/task.records.js';
import { userActor, World } from '../utils/world.js';

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
  let tasks: TaskService;
  let sessions: SessionService;
  beforeAll(async () => {
    world = await World.database();
    tasks = world.get(TaskService);
    sessions = world.get(SessionService);
  });
  afterAll(() => world.close());

  it('equals the query-by-query record for every task', async () => {
    const companyUuid = (await world.company()).uuid;
    const admin = userActor(await world.user(companyUuid));
    const dev = (await world.agent(companyUuid, admin.uuid, { preset: 'developer_agent', name: 'Dev' })).actor;
    const dev2 = (await world.agent(companyUuid, admin.uuid, { preset: 'developer_agent', name: 'Dev2' })).actor;
    const projectUuid = await world.project(admin);
    const refsSvc = world.get(ReferenceService);
    const pre = await world.task(admin, projectUuid, { title: 'Pre "quoted" \\ back' });
    const pre2 = await world.task(admin, projectUuid, { title: 'Pre2 ünïcödé 🚀' });
    const t = await world.task(admin, projectUuid, {
      title: 'Main', description: 'line1\nline2\t"q" \\ 🚀 <b>&amp;</b>', priority: 'high', storyPoints: 2.5,
      dependsOnTaskUuids: [pre.uuid, pre2.uuid], references: [{ type: 'issue_pr', url: 'https://x.test/1', title: 'PR' }, { type: 'docs', url: 'https://x.test/2', title: 'Docs', notes: 'n\no' }],
    });
    await world.task(admin, projectUuid, { title: 'Post', dependsOnTaskUuids: [t.uuid] });
    await world.task(admin, projectUuid, { title: 'Post2', dependsOnTaskUuids: [t.uuid], storyPoints: 0.1 });
    await tasks.assign(admin, { taskUuid: t.uuid, agentUuid: dev.uuid });
    await tasks.reportWork(dev, { taskUuid: t.uuid, report: 'r1' });
    await refsSvc.add(dev, { targetType: 'task', targetUuid: t.uuid, type: 'repo', url: 'https://x.test/3', title: 'Repo by agent' });
    const rec = await tasks.get(admin, { taskUuid: t.uuid });
    await tasks.selfCheck(dev, { taskUuid: t.uuid, criteria: [{ uuid: rec.acceptanceCriteriaItems[0].uuid, devStatus: 'passed', devEvidence: 'ok' }, { uuid: rec.acceptanceCriteriaItems[2].uuid, devStatus: 'failed' }] });
    await tasks.markCriteria(admin, { taskUuid: t.uuid, criteria: [{ uuid: rec.acceptanceCriteriaItems[1].uuid, status: 'failed', evidence: 'nope' }] });
    const s1 = await sessions.create(dev, { name: 'w1' });
    const s2 = await sessions.create(dev, { name: 'w2' });
    const s3 = await sessions.create(dev, { name: 'w3' });
    await sessions.checkinTask(dev, { sessionUuid: s1.uuid, taskUuid: t.uuid });
    await sessions.checkinTask(dev, { sessionUuid: s2.uuid, taskUuid: t.uuid });
    await sessions.checkinTask(dev, { sessionUuid: s3.uuid, taskUuid: t.uuid });
    await sessions.checkoutTask(dev, { sessionUuid: s2.uuid, taskUuid: t.uuid });
    await world.ds.query(`INSERT INTO reference (uuid, company_uuid, target_type, target_uuid, type, url, title, created_by_type, created_by_uuid) VALUES ($1, $2, 'task', $3, 'docs', 'https://x', 'Ghost', 'agent', $4)`, [randomUUID(), companyUuid, t.uuid, randomUUID()]);
    await world.ds.query(`UPDATE task SET assigned_at = '2025-01-01 00:00:00.57+00', story_points = 1.10 WHERE uuid = $1`, [pre2.uuid]);
    for (const st of ['open', 'assigned', 'in_progress', 'to_verify', 'done', 'closed'] as const) await world.taskIn(st, admin, projectUuid, dev2);
    const all: TaskEntity[] = await world.ds.getRepository(TaskEntity).find();
    expect(all.length).toBeGreaterThan(10);
    let checked = 0;
    for (const task of all) {
      const expected = await referenceRecord(world.ds.manager, task);
      const actual = await world.get(TaskReadRepository).record(task.companyUuid, task.uuid);
      expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
      expect(actual).toEqual(expected);
      const inTx = await world.ds.transaction((em) => new TaskReadRepository(em).recordOf(task));
      expect(JSON.stringify(inTx)).toBe(JSON.stringify(expected));
      checked++;
    }
    expect(checked).toBe(all.length);
    const main = (await world.get(TaskReadRepository).record(companyUuid, t.uuid))!;
    expect(main.references.map((r) => r.createdBy.name)).toContain('(unknown)');
    expect(main.acceptanceCriteriaItems.map((c) => [c.devMarkedBy?.type ?? null, c.markedBy?.type ?? null])).toEqual([['agent', null], [null, 'user'], ['agent', null]]);
    expect(main.activeSessions.map((s) => s.sessionName)).toEqual(['w1', 'w3']);
    expect(main.storyPoints).toBe(2.5);
    // Another company's task is not found.
    expect(await world.get(TaskReadRepository).record(randomUUID(), t.uuid)).toBeNull();
  });

  it("is svc_get_task's only statement: the named prepared svc_task_record, straight on the pool", async () => {
    const companyUuid = (await world.company()).uuid;
    const admin = userActor(await world.user(companyUuid));
    const dev = (await world.agent(companyUuid, admin.uuid, { preset: 'developer_agent', name: 'Dev' })).actor;
    const projectUuid = await world.project(admin);
    const t = await world.task(admin, projectUuid, { title: 'Hot path', dependsOnTaskUuids: [(await world.task(admin, projectUuid, { title: 'Pre' })).uuid] });
    const pool = (world.ds.driver as unknown as { master: Pool }).master;
    const sent: unknown[] = [];
    const query = pool.query;
    pool.query = function (this: Pool, ...args: unknown[]) {
      sent.push(args[0]);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof pool.query;
    // Anything through TypeORM (em.query, find, a query builder) takes a query runner first.
    const runners = jest.spyOn(world.ds, 'createQueryRunner');
    try {
      const record = await tasks.get(dev, { taskUuid: t.uuid });
      expect(record.dependsOn.map((d) => d.title)).toEqual(['Pre']);
    } finally {
      pool.query = query;
      runners.mockRestore();
    }
    expect(sent).toEqual([expect.objectContaining({ name: 'svc_task_record' })]);
    expect(runners).not.toHaveBeenCalled();
  });
});
