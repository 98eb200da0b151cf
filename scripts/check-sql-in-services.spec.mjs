// Unit tests of the SQL-outside-repositories check (scripts/check-sql-in-services.mjs): what it finds in a service
// or any other application file, what it lets through (a module's own repository, arrays and maps), which files are
// exempt, and that this checkout passes.
import { describe, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { EXEMPT, checkTree, looksLikeSql, scanService, violations } from './check-sql-in-services.mjs';

const kinds = (text) => scanService(text).map((f) => f.what);

describe('scanService', () => {
  it('finds raw SQL calls on any receiver', () => {
    const src = `
      await this.db.query('SELECT 1');
      await tx.manager.query(sql, params);
      await preparedQuery(this.db.manager, STATEMENT, []);
      const qb = em.createQueryBuilder(TaskEntity, 't');
      const repo = this.db.getRepository(TaskEntity);`;
    expect(kinds(src)).toEqual(['query(…)', 'query(…)', 'preparedQuery(…)', 'createQueryBuilder(…)', 'getRepository(…)']);
  });

  it('finds TypeORM data calls on a manager or a data source', () => {
    const src = `
      await em.find(TaskEntity, { where });
      await tx.manager.update(TaskEntity, { uuid }, patch);
      await this.db.manager.findOneByOrFail(TaskEntity, { uuid });
      await this.entityManager.save(task);
      await this.dataSource.count(TaskEntity);`;
    expect(kinds(src)).toEqual([
      'EntityManager .find(…)',
      'EntityManager .update(…)',
      'EntityManager .findOneByOrFail(…)',
      'EntityManager .save(…)',
      'DataSource .count(…)',
    ]);
  });

  it('finds calls on a TypeORM Repository<E>, typed or injected', () => {
    const src = `
      class S {
        constructor(@InjectRepository(TaskEntity) private readonly rows, private readonly typed: Repository<TaskEntity>) {}
        a() { return this.rows.findOneBy({ uuid }); }
        b() { return this.typed.delete({ uuid }); }
      }`;
    expect(kinds(src)).toEqual(['TypeORM repository .findOneBy(…)', 'TypeORM repository .delete(…)']);
  });

  it('finds SQL text in strings and templates, not prose', () => {
    expect(kinds('const q = `SELECT uuid FROM task WHERE uuid = ${"$1"}`;')).toEqual(['SQL text']);
    expect(kinds(`const w = { sql: "t.status = 'open' AND NOT EXISTS (SELECT 1 FROM task_dependency d WHERE d.x = t.uuid)" };`)).toEqual(['SQL text']);
    for (const text of ['INSERT INTO x (a) VALUES (1)', 'UPDATE agent_session SET x = 1', 'DELETE FROM task', 'WITH gone AS (SELECT 1) SELECT 2']) {
      expect(looksLikeSql(text)).toBe(true);
    }
    for (const text of ['Only the assignee can update this task', 'Select a project from the list', 'Task is closed; delete from the UI']) {
      expect(looksLikeSql(text)).toBe(false);
    }
  });

  it("lets a module's own repository, arrays, maps and sets through", () => {
    const src = `
      class TaskService {
        constructor(private readonly tasks: TaskRepository, private readonly reads: TaskReadRepository) {}
        async a(tx) {
          const tasks = this.tasks.in(tx);
          await tasks.update(uuid, patch);
          await this.tasks.find(company, uuid);
          await this.reads.page(filter, 20, 0);
          record.dependsOn.find((d) => d.uuid === x);
          seen.delete(x);
          byUuid.insert?.(x);
        }
      }`;
    expect(kinds(src)).toEqual([]);
  });

  it('reports each finding once per line and kind, with its line', () => {
    expect(scanService('\n\nawait em.query(`SELECT 1 FROM task`, []); await em.query(`SELECT 2 FROM task`, []);')).toEqual([
      { line: 3, what: 'query(…)' },
      { line: 3, what: 'SQL text' },
    ]);
  });
});

describe('violations', () => {
  it('reports every finding with its file and line', () => {
    const out = violations([
      { file: 'src/modules/a/a.service.ts', line: 3, what: 'query(…)' },
      { file: 'src/modules/b/b.controller.ts', line: 7, what: 'SQL text' },
    ]);
    expect(out.map((v) => v.message)).toEqual([
      "src/modules/a/a.service.ts:3: query(…) outside a repository; move the statement into the module's repository",
      "src/modules/b/b.controller.ts:7: SQL text outside a repository; move the statement into the module's repository",
    ]);
  });

  it('exempts repositories, stores and specs only', () => {
    for (const f of ['src/modules/a/a.repository.ts', 'src/modules/oauth/oauth.store.ts', 'src/modules/a/a.spec.ts']) expect(EXEMPT.test(f)).toBe(true);
    for (const f of ['src/modules/a/a.service.ts', 'src/modules/a/a.controller.ts', 'src/modules/a/a.steps.ts', 'src/modules/a/a.queries.ts', 'src/modules/a/login-throttle.ts', 'src/modules/a/repository-helpers.ts']) {
      expect(EXEMPT.test(f)).toBe(false);
    }
  });
});

describe('checkTree (this checkout)', () => {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const { files, violations: bad } = checkTree(root);

  it('passes, with the services and every other application file scanned, repositories and stores not', () => {
    expect(bad.map((v) => v.message)).toEqual([]);
    expect(files).toEqual(
      expect.arrayContaining([
        'src/modules/tasks/task.service.ts',
        'src/modules/identity/auth.service.ts',
        'src/modules/identity/agent.service.ts',
        'src/modules/identity/identity-admin.service.ts',
        'src/modules/identity/login-throttle.ts',
        'src/modules/health/health.controller.ts',
        'src/modules/tools/mcp.guards.ts',
        'src/modules/notifications/notification-generator.ts',
      ]),
    );
    expect(files.filter((f) => EXEMPT.test(f))).toEqual([]);
  });
});
