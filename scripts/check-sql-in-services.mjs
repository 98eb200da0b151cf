#!/usr/bin/env node
// No SQL outside repositories (README "Architecture": services orchestrate, each aggregate's SQL lives in its
// module's repository), run by `npm run lint`. Scans every TypeScript file under src/modules/ — services, controllers,
// guards, tool handlers, steps, queries, records — except specs, repositories (`*.repository.ts`) and stores
// (`*.store.ts`: storage a library calls through its own interface, e.g. OAuth's adapter), with the TypeScript
// parser, no type checker, and reports:
//   - a `.query(…)` call on any receiver, a `createQueryBuilder(…)`, `preparedQuery(…)` or `getRepository(…)` call;
//   - a TypeORM data call (find*, count*, exists*, insert, update, delete, save, upsert, remove, increment …) on an
//     EntityManager (`em`, `manager`, `tx.manager`, `this.db.manager`, `<x>Manager`), a DataSource (`db`,
//     `dataSource`, `connection`), or a TypeORM `Repository<E>` (a field or local typed so, or `@InjectRepository`);
//   - SQL text in a string or template literal (`SELECT … FROM`, `INSERT INTO`, `UPDATE x SET`, `DELETE FROM`,
//     `WITH x AS (`, upper-case keywords, so prose does not match).
// A module's own repository (a class extending shared/database/repository.ts) is not a TypeORM receiver: calling
// `this.tasks.update(…)` on it is what a service should do.
//
//   node scripts/check-sql-in-services.mjs          violations (exit 1 if any)
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

/** TypeORM EntityManager / DataSource / Repository methods that run a statement. */
const DATA_METHODS = new Set([
  'find', 'findOne', 'findOneBy', 'findOneOrFail', 'findOneByOrFail', 'findBy', 'findAndCount', 'findAndCountBy', 'findByIds',
  'count', 'countBy', 'exists', 'existsBy', 'sum', 'average', 'minimum', 'maximum', 'preload',
  'insert', 'update', 'updateAll', 'delete', 'deleteAll', 'save', 'upsert', 'remove', 'softDelete', 'softRemove', 'restore',
  'recover', 'increment', 'decrement', 'clear', 'query', 'sql',
]);
/** Calls that are SQL (or reach for the ORM's SQL) whatever their receiver. */
const ALWAYS = new Set(['query', 'createQueryBuilder', 'preparedQuery', 'getRepository']);
const MANAGER = /(^|\.)(em|manager|entityManager|[a-z]\w*Manager)$/;
const DATA_SOURCE = /(^|\.)(db|dataSource|connection)$/;
const SQL_TEXT = [
  /\bSELECT\b[\s\S]*?\bFROM\b/,
  /\bINSERT\s+INTO\b/,
  /\bUPDATE\s+\S+\s+SET\b/,
  /\bDELETE\s+FROM\b/,
  /\bWITH\s+(?:RECURSIVE\s+)?\w+\s+AS\s*\(/,
];

/** Files that may hold SQL: a module's repositories and stores; specs are not scanned. */
export const EXEMPT = /(\.repository|\.store|\.spec)\.ts$/;

/** The text of a string or template literal (substitutions as `${}`), or null. */
function literalText(node) {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return node.head.text + node.templateSpans.map((s) => '${}' + s.literal.text).join('');
  return null;
}

/** Whether SQL statement text appears in a literal. */
export function looksLikeSql(text) {
  return SQL_TEXT.some((re) => re.test(text));
}

/** Names of fields, parameters and locals of a file typed `Repository<…>` or decorated `@InjectRepository(…)`. */
function typeormRepositoryNames(sf) {
  const names = new Set();
  const visit = (n) => {
    if ((ts.isPropertyDeclaration(n) || ts.isParameter(n) || ts.isVariableDeclaration(n)) && ts.isIdentifier(n.name)) {
      const typed = n.type && /^Repository\s*</.test(n.type.getText(sf));
      const injected = ts.canHaveDecorators(n) && (ts.getDecorators(n) ?? []).some((d) => /^InjectRepository\b/.test(d.expression.getText(sf)));
      if (typed || injected) names.add(n.name.text);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return names;
}

function calleeName(call) {
  const e = call.expression;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  if (ts.isIdentifier(e)) return e.text;
  return null;
}

/** Every SQL finding in one file: `{ line, what }`, one per line and kind. */
export function scanService(text, file = 'x.service.ts') {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const repositories = typeormRepositoryNames(sf);
  const found = [];
  const add = (node, what) => {
    const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
    if (!found.some((f) => f.line === line && f.what === what)) found.push({ line, what });
  };
  const visit = (node) => {
    const literal = literalText(node);
    if (literal !== null && looksLikeSql(literal)) add(node, 'SQL text');
    if (ts.isCallExpression(node)) {
      const name = calleeName(node);
      if (name && ALWAYS.has(name)) add(node, `${name}(…)`);
      else if (name && DATA_METHODS.has(name) && ts.isPropertyAccessExpression(node.expression)) {
        const receiver = node.expression.expression;
        const recv = receiver.getText(sf).replace(/\s+/g, '');
        const last = recv.replace(/^.*\./, '');
        if (MANAGER.test(recv)) add(node, `EntityManager .${name}(…)`);
        else if (DATA_SOURCE.test(recv)) add(node, `DataSource .${name}(…)`);
        else if (repositories.has(last)) add(node, `TypeORM repository .${name}(…)`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found.sort((a, b) => a.line - b.line);
}

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (p.endsWith('.ts') && !EXEMPT.test(p)) out.push(p);
  }
  return out;
}

/** One violation per finding: the file, its line, what was found. */
export function violations(findings) {
  return findings.map((f) => ({ ...f, message: `${f.file}:${f.line}: ${f.what} outside a repository; move the statement into the module's repository` }));
}

/** The whole check over a checkout. */
export function checkTree(root) {
  const rel = (p) => relative(root, p).split(sep).join('/');
  const files = walk(join(root, 'src/modules')).map(rel).sort();
  const findings = files.flatMap((file) => scanService(readFileSync(join(root, file), 'utf8'), file).map((f) => ({ file, ...f })));
  return { files, findings, violations: violations(findings) };
}

function main() {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const { files, violations: bad } = checkTree(root);
  for (const v of bad) console.error(v.message);
  console.log(`sql outside repositories: ${files.length} files of src/modules scanned (repositories, stores and specs exempt); ${bad.length} violation(s).`);
  if (bad.length) process.exit(1);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
