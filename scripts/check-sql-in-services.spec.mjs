// Unit tests of the SQL-in-services check (scripts/check-sql-in-services.mjs): what it finds in a service, what it
// lets through (a module's own repository, arrays and maps), and how the allow-list is held to the tree.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ALLOW_FILE, checkTree, looksLikeSql, scanService, violations } from './check-sql-in-services.mjs';

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
  const findings = [
    { file: 'src/modules/a/a.service.ts', line: 3, what: 'query(…)' },
    { file: 'src/modules/b/b.service.ts', line: 7, what: 'SQL text' },
  ];

  it('excuses the allowed files and reports the others', () => {
    const out = violations(findings, ['src/modules/b/b.service.ts']);
    expect(out.map((v) => v.message)).toEqual([
      "src/modules/a/a.service.ts:3: query(…) in an application service; move the statement into the module's repository",
    ]);
  });

  it('fails on an allow-list entry that holds no SQL any more or is gone', () => {
    const out = violations(findings, ['src/modules/a/a.service.ts', 'src/modules/b/b.service.ts', 'src/modules/c/c.service.ts', 'src/modules/d/d.service.ts'], (f) => f !== 'src/modules/d/d.service.ts');
    expect(out.map((v) => v.message)).toEqual([
      `src/modules/c/c.service.ts: listed in ${ALLOW_FILE} but holds no SQL any more; remove the entry`,
      `src/modules/d/d.service.ts: listed in ${ALLOW_FILE} but gone; remove the entry`,
    ]);
  });
});

describe('checkTree (this checkout)', () => {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const { files, allowed, violations: bad } = checkTree(root);

  it('passes, with the tasks, sessions and assignments services scanned and not allowed', () => {
    expect(bad.map((v) => v.message)).toEqual([]);
    expect(files).toEqual(expect.arrayContaining(['src/modules/tasks/task.service.ts', 'src/modules/tasks/task-tracker.service.ts', 'src/modules/sessions/session.service.ts']));
    expect(allowed.filter((f) => /^src\/modules\/(tasks|sessions|assignments)\//.test(f))).toEqual([]);
  });

  it('reads the allow-list from its file', () => {
    expect(JSON.parse(readFileSync(new URL(`../${ALLOW_FILE}`, import.meta.url), 'utf8')).files).toEqual(allowed);
  });
});
