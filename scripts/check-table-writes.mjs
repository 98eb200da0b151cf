#!/usr/bin/env node
// Table ownership check (README "Table ownership"), run by `npm run lint`: every INSERT/UPDATE/DELETE of a table —
// in an SQL string or a TypeORM write call — must sit in the module that owns the table
// (src/modules/table-ownership.json). Syntactic on purpose: the TypeScript parser without a type checker scans the
// tree in about 3 s of CPU on the 2-core machine, a typed program of the same files about 13 s more on top of
// `tsc --noEmit`. What syntax alone cannot tell (`em.save(x)` of an entity it cannot trace) is reported as a
// violation rather than let through.
//
//   node scripts/check-table-writes.mjs          violations (exit 1 if any)
//   node scripts/check-table-writes.mjs --list   every write found, with its module and the table's owner
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { declaredReturnType, entitiesUnder, entityClasses, scanSource, tableName } from './table-write-scan.mjs';

export { entityClasses, scanSource, sqlWrites } from './table-write-scan.mjs';

/**
 * Writes that are known and scheduled to move. Each entry must still match a write: a stale entry fails the check,
 * so the list cannot outlive its reason.
 */
export const PENDING = [];

/** src/modules/<m>/… → m; anything else under src/ belongs to no module. */
export function moduleOf(file) {
  const m = /^src\/modules\/([^/]+)\//.exec(file);
  return m ? m[1] : file.startsWith('src/shared/') ? '(shared kernel)' : '(outside modules)';
}

/** table → owning module, from the ownership file; a table listed twice is an error. */
export function ownersFrom(map) {
  const owners = new Map();
  const errors = [];
  for (const [module, tables] of Object.entries(map)) {
    if (module.startsWith('$')) continue;
    for (const t of tables) {
      if (owners.has(t)) errors.push(`table '${t}' is owned twice: by '${owners.get(t)}' and '${module}'`);
      else owners.set(t, module);
    }
  }
  return { owners, errors };
}

/**
 * Writes outside the table's owner. `writes` are `{ file, line, table, how }`; `pending` entries excuse one
 * (file, table) pair each and must match at least one write.
 */
export function violations(writes, owners, pending = PENDING) {
  const out = [];
  const used = new Set();
  for (const w of writes) {
    const module = moduleOf(w.file);
    const owner = w.table === null ? undefined : owners.get(w.table);
    if (owner === module) continue;
    const excuse = pending.find((p) => p.file === w.file && p.table === w.table);
    if (excuse) {
      used.add(excuse);
      continue;
    }
    let why;
    if (w.table === null) why = `writes a table the check cannot name (${w.how}); name the entity class or the table literally`;
    else if (owner === undefined) why = `writes table '${w.table}', which is missing from src/modules/table-ownership.json (${w.how})`;
    else why = `writes table '${w.table}' owned by module '${owner}' (${w.how}); call the owner's service instead`;
    out.push({ ...w, module, owner, message: `${w.file}:${w.line}: module '${module}' ${why}` });
  }
  for (const p of pending) {
    if (!used.has(p)) out.push({ ...p, line: 0, message: `${p.file}: stale exception for table '${p.table}' (${p.reason}) — the write is gone; remove the entry from PENDING in scripts/check-table-writes.mjs` });
  }
  return out;
}

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (p.endsWith('.ts') && !p.endsWith('.spec.ts') && !p.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** The whole check over a checkout: map consistency plus every write under src/modules and src/shared. */
export function checkTree(root) {
  const rel = (p) => relative(root, p).split(sep).join('/');
  const { owners, errors } = ownersFrom(JSON.parse(readFileSync(join(root, 'src/modules/table-ownership.json'), 'utf8')));
  const files = [...walk(join(root, 'src/modules')), ...walk(join(root, 'src/shared'))];
  const entities = new Map();
  for (const f of files.filter((p) => /\.entity\.ts$/.test(p))) {
    for (const [cls, table] of entityClasses(readFileSync(f, 'utf8'), f)) {
      if (table === null) errors.push(`${rel(f)}: @Entity ${cls} must name its table`);
      else if (!owners.has(table)) errors.push(`${rel(f)}: table '${table}' of ${cls} has no owner in src/modules/table-ownership.json`);
      else if (moduleOf(rel(f)) !== owners.get(table) && rel(f).startsWith('src/modules/')) {
        errors.push(`${rel(f)}: ${cls} (table '${table}') lives outside its owner module '${owners.get(table)}'`);
      }
      entities.set(cls, table);
    }
  }
  for (const f of walk(join(root, 'migrations'))) {
    for (const m of readFileSync(f, 'utf8').matchAll(/\bCREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?("?[A-Za-z_][\w.]*"?)/gi)) {
      const t = tableName(m[1]);
      if (!owners.has(t)) errors.push(`${rel(f)}: table '${t}' has no owner in src/modules/table-ownership.json`);
    }
  }
  const parsed = new Map();
  const parse = (p) => {
    if (!parsed.has(p)) parsed.set(p, existsSync(p) ? ts.createSourceFile(p, readFileSync(p, 'utf8'), ts.ScriptTarget.Latest, true) : null);
    return parsed.get(p);
  };
  const resolverFor = (f) => (specifier, name) => {
    if (!specifier.startsWith('.')) return new Set();
    const target = parse(join(dirname(f), specifier.replace(/\.js$/, '.ts')));
    return target ? entitiesUnder(declaredReturnType(target, name), entities) : new Set();
  };
  const writes = files.flatMap((f) => scanSource(readFileSync(f, 'utf8'), rel(f), entities, resolverFor(f)).map((w) => ({ file: rel(f), ...w })));
  return { owners, errors, writes, violations: violations(writes, owners) };
}

function main() {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const { owners, errors, writes, violations: bad } = checkTree(root);
  if (process.argv.includes('--list')) {
    for (const w of writes) {
      const module = moduleOf(w.file);
      const owner = owners.get(w.table) ?? '?';
      console.log(`${owner === module ? '  ' : '✗ '}${w.file}:${w.line}  ${module} → ${w.table ?? '?'} (owner ${owner})  ${w.how}`);
    }
  }
  const cross = writes.filter((w) => owners.get(w.table) !== moduleOf(w.file));
  const pairs = new Set(cross.filter((w) => w.table !== null).map((w) => `${moduleOf(w.file)}→${w.table}`));
  const unnamed = cross.filter((w) => w.table === null).length;
  for (const e of errors) console.error(`ownership map: ${e}`);
  for (const v of bad) console.error(v.message);
  console.log(
    `table writes: ${writes.length} in ${new Set(writes.map((w) => w.file)).size} files; ${cross.length} outside the owner ` +
      `(${pairs.size} module→table pairs${unnamed ? `, ${unnamed} with a table the check cannot name` : ''}), ` +
      `${cross.length - bad.filter((v) => v.line > 0).length} of them pending; ${bad.length} violation(s).`,
  );
  if (errors.length || bad.length) process.exit(1);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
