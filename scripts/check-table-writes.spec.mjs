// Unit tests of the table-ownership scanner (scripts/check-table-writes.mjs): it must find each kind of write and
// fail on a module writing a table it does not own.
import { describe, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { checkTree, entityClasses, ownersFrom, scanSource, sqlWrites, violations } from './check-table-writes.mjs';

const ENTITIES = new Map([
  ['TaskEntity', 'task'],
  ['AcceptanceCriterionEntity', 'acceptance_criterion'],
  ['AgentSessionEntity', 'agent_session'],
]);
const { owners } = ownersFrom({ tasks: ['task', 'acceptance_criterion'], sessions: ['agent_session', 'session_task_checkin'] });

const scan = (file, text) => scanSource(text, file, ENTITIES).map((w) => ({ file, ...w }));
const tables = (text) => scan('src/modules/tasks/x.ts', text).map((w) => w.table);

describe('sqlWrites', () => {
  it('names the table of each SQL write form', () => {
    expect(sqlWrites(`INSERT INTO session_task_checkin (a) VALUES ($1)`).map((w) => [w.kind, w.table])).toEqual([['INSERT INTO', 'session_task_checkin']]);
    expect(sqlWrites(`update agent_session set last_active_at = now()`)[0].table).toBe('agent_session');
    expect(sqlWrites(`UPDATE notification_inbox AS i SET version = 1`)[0].table).toBe('notification_inbox');
    expect(sqlWrites(`WITH gone AS (DELETE FROM "public"."task" WHERE x RETURNING 1) SELECT 1`)[0].table).toBe('task');
    expect(sqlWrites(`TRUNCATE TABLE task`)[0].table).toBe('task');
    expect(sqlWrites(`INSERT INTO t AS i (a) VALUES (1) ON CONFLICT (a) DO UPDATE SET a = EXCLUDED.a`)[0].kind).toBe('INSERT … ON CONFLICT DO UPDATE');
  });

  it('ignores reads, row locks and prose', () => {
    expect(sqlWrites(`SELECT * FROM task WHERE uuid = $1 FOR UPDATE`)).toEqual([]);
    expect(sqlWrites(`INSERT INTO x (a) VALUES (1) ON CONFLICT (a) DO UPDATE SET a = 2`).map((w) => w.table)).toEqual(['x']);
    expect(sqlWrites('Only the assignee can update this task')).toEqual([]);
  });
});

describe('scanSource', () => {
  it('finds SQL in strings, templates and constants', () => {
    const src = `
      const RENEW = { text: 'UPDATE agent_session SET last_active_at = now()' };
      await em.query(\`DELETE FROM task WHERE uuid = \${'$1'}\`, [uuid]);`;
    expect(tables(src)).toEqual(['agent_session', 'task']);
  });

  it('reports a substituted table name as unnamed', () => {
    expect(tables('await em.query(`UPDATE ${table} SET project_uuid = $1`)')).toEqual([null]);
  });

  it('finds TypeORM writes that name an entity class, on a manager, a repository or a query builder', () => {
    const src = `
      await em.insert(TaskEntity, row);
      await tx.manager.update(AcceptanceCriterionEntity, { taskUuid }, patch);
      await this.db.getRepository(AgentSessionEntity).delete({ uuid });
      await em.createQueryBuilder().insert().into(AgentSessionEntity).values(rows).execute();
      await em.createQueryBuilder().delete().from(TaskEntity).where('x').execute();
      await em.createQueryBuilder(AgentSessionEntity, 's').softDelete().where('x').execute();`;
    expect(tables(src)).toEqual(['task', 'acceptance_criterion', 'agent_session', 'agent_session', 'task', 'agent_session']);
  });

  it('follows repositories held in fields and locals', () => {
    const src = `
      class S {
        constructor(@InjectRepository(TaskEntity) private readonly tasks: Repository<TaskEntity>) {}
        private readonly sessions = this.db.getRepository(AgentSessionEntity);
        async a() { await this.tasks.save(t); await this.sessions.increment({ uuid }, 'n', 1); }
      }
      const repo = em.getRepository(AcceptanceCriterionEntity);
      await repo.upsert(rows, ['uuid']);`;
    expect(tables(src)).toEqual(['task', 'agent_session', 'acceptance_criterion']);
  });

  it('traces the entity of an instance saved through a manager', () => {
    const src = `
      async function f(em: EntityManager, t: TaskEntity) { await em.save(t); }
      async function g(em) { const s = await em.findOne(AgentSessionEntity, {}); s.name = 'x'; await em.save(s); }
      class C {
        private find(): Promise<TaskEntity> { return x; }
        async h(tx) { const task = await this.find(); await tx.manager.save(task); }
      }
      async function k(em, list: TaskEntity[]) { for (const t of list) await em.save(t); }
      async function l(em) { await em.save(new AgentSessionEntity()); }`;
    expect(tables(src)).toEqual(['task', 'agent_session', 'task', 'task', 'agent_session']);
  });

  it('asks the resolver about imported functions, and reports an untraceable instance as unnamed', () => {
    const src = `
      import { lockTask } from './task-lifecycle.steps.js';
      const a = await lockTask(tx, uuid); await em.save(a);
      const b = somethingElse(); await em.save(b);`;
    const resolver = (spec, name) => new Set(spec === './task-lifecycle.steps.js' && name === 'lockTask' ? ['TaskEntity'] : []);
    expect(scanSource(src, 'src/modules/tasks/x.ts', ENTITIES, resolver).map((w) => w.table)).toEqual(['task', null]);
  });

  it('leaves alone calls that are not TypeORM writes', () => {
    const src = `
      this.failures.delete(email);
      createHash('sha256').update(value).digest('hex');
      return this.tasks.update(actor, { ...body, taskUuid });
      await em.find(TaskEntity, { where: {} });
      await em.createQueryBuilder(TaskEntity, 't').select('t.uuid').from(TaskEntity, 'x').getMany();`;
    expect(tables(src)).toEqual([]);
  });
});

describe('violations', () => {
  it('fails a module writing a table it does not own, naming file, line, module and table', () => {
    const writes = scan('src/modules/tasks/task-lifecycle.steps.ts', `\n\nawait em.query('UPDATE agent_session SET last_active_at = now() WHERE uuid = $1', [u]);`);
    const bad = violations(writes, owners, []);
    expect(bad).toHaveLength(1);
    expect(bad[0].message).toBe(
      "src/modules/tasks/task-lifecycle.steps.ts:3: module 'tasks' writes table 'agent_session' owned by module 'sessions' (SQL UPDATE); call the owner's service instead",
    );
  });

  it('passes the owner, and fails the kernel, an unknown table and an unnamed one', () => {
    expect(violations(scan('src/modules/sessions/s.ts', `await em.insert(AgentSessionEntity, row);`), owners, [])).toEqual([]);
    expect(violations(scan('src/shared/database/x.ts', `await em.insert(TaskEntity, row);`), owners, [])[0].message).toMatch(/module '\(shared kernel\)' writes table 'task'/);
    expect(violations(scan('src/modules/tasks/x.ts', `await em.query('DELETE FROM mystery')`), owners, [])[0].message).toMatch(/missing from src\/modules\/table-ownership.json/);
    expect(violations(scan('src/modules/tasks/x.ts', 'await em.query(`DELETE FROM ${t}`)'), owners, [])[0].message).toMatch(/cannot name/);
  });

  it('excuses a pending entry, and fails it once the write is gone', () => {
    const pending = [{ file: 'src/modules/tasks/x.ts', table: 'agent_session', reason: 'moved later' }];
    expect(violations(scan('src/modules/tasks/x.ts', `await em.insert(AgentSessionEntity, row);`), owners, pending)).toEqual([]);
    expect(violations([], owners, pending)[0].message).toMatch(/stale exception for table 'agent_session'/);
  });
});

describe('the ownership map', () => {
  it('refuses a table owned twice', () => {
    expect(ownersFrom({ a: ['t'], b: ['t'] }).errors).toEqual(["table 't' is owned twice: by 'a' and 'b'"]);
  });

  it('reads table names from @Entity decorators', () => {
    expect([...entityClasses(`@Entity('task') export class TaskEntity {}\n@Entity({ name: 'x' }) class X {}\n@Entity() class Y {}`)]).toEqual([
      ['TaskEntity', 'task'],
      ['X', 'x'],
      ['Y', null],
    ]);
  });

  it('holds for this repository: every table owned once, every write in its owner', () => {
    const result = checkTree(fileURLToPath(new URL('..', import.meta.url)));
    expect(result.errors).toEqual([]);
    expect(result.violations.map((v) => v.message)).toEqual([]);
    expect(result.writes.length).toBeGreaterThan(50);
  });
});
