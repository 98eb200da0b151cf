// The syntactic half of the table-ownership check (scripts/check-table-writes.mjs): where a source file writes a
// table, from SQL text and from TypeORM calls, using the TypeScript parser without a type checker.
import ts from 'typescript';

/** TypeORM methods that write rows, on an EntityManager, a Repository or a query builder. */
const WRITE_METHODS = new Set(['insert', 'update', 'delete', 'save', 'upsert', 'softDelete', 'restore', 'remove', 'softRemove', 'recover', 'increment', 'decrement', 'clear']);
/** Methods whose first argument is an entity instance rather than the target class. */
const INSTANCE_METHODS = new Set(['save', 'remove', 'softRemove', 'recover']);
/** Query-builder steps that turn a builder into a write, and the steps that then name its table. */
const QB_WRITES = new Set(['insert', 'update', 'delete', 'softDelete', 'restore']);
const QB_TARGETS = new Set(['into', 'from', 'update']);
/** A receiver that holds an EntityManager by this codebase's naming (`em`, `tx.manager`, `this.db.manager` …). */
const MANAGER_RECEIVER = /(^|\.)(em|manager|entityManager|[a-z]\w*Manager)$/;

const IDENT = String.raw`(?:"[^"]+"|[A-Za-z_]\w*)`;
const NAME = String.raw`(${IDENT}(?:\.${IDENT})?|\$\{\})`;
const SQL_WRITES = [
  { kind: 'INSERT INTO', re: new RegExp(String.raw`\bINSERT\s+INTO\s+(?:ONLY\s+)?${NAME}`, 'gi') },
  { kind: 'UPDATE', re: new RegExp(String.raw`\bUPDATE\s+(?:ONLY\s+)?${NAME}(?:\s+(?:AS\s+)?[A-Za-z_]\w*)?\s+SET\b`, 'gi') },
  { kind: 'DELETE FROM', re: new RegExp(String.raw`\bDELETE\s+FROM\s+(?:ONLY\s+)?${NAME}`, 'gi') },
  { kind: 'TRUNCATE', re: new RegExp(String.raw`\bTRUNCATE\s+(?:TABLE\s+)?(?:ONLY\s+)?${NAME}`, 'gi') },
  { kind: 'MERGE INTO', re: new RegExp(String.raw`\bMERGE\s+INTO\s+(?:ONLY\s+)?${NAME}`, 'gi') },
];
const SQL_KEYWORDS = new Set(['set', 'only', 'table', 'select', 'values']);

export function tableName(raw) {
  if (raw === '${}') return null;
  const name = raw.replace(/"/g, '').toLowerCase();
  return name.startsWith('public.') ? name.slice('public.'.length) : name;
}

/** The text of a string or template literal, `${}` standing for each substitution. */
function literalText(node) {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return node.head.text + node.templateSpans.map((s) => '${}' + s.literal.text).join('');
  return null;
}

/** SQL writes inside one literal: `{ kind, table, offset }` (table null when it is a substitution). */
export function sqlWrites(text) {
  const found = [];
  for (const { kind, re } of SQL_WRITES) {
    for (const m of text.matchAll(re)) {
      if (SQL_KEYWORDS.has(m[1].toLowerCase())) continue;
      const upsert = kind === 'INSERT INTO' && /\bON\s+CONFLICT\b[\s\S]*?\bDO\s+UPDATE\b/i.test(text.slice(m.index));
      found.push({ kind: upsert ? 'INSERT … ON CONFLICT DO UPDATE' : kind, table: tableName(m[1]), offset: m.index });
    }
  }
  return found.sort((a, b) => a.offset - b.offset);
}

function decoratorCall(decorator, name) {
  const e = decorator.expression;
  return ts.isCallExpression(e) && ts.isIdentifier(e.expression) && e.expression.text === name ? e : null;
}

/** `@Entity('table')` classes of one file: className → table. */
export function entityClasses(text, file = 'x.ts') {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out = new Map();
  for (const st of sf.statements) {
    if (!ts.isClassDeclaration(st) || !st.name) continue;
    for (const d of ts.getDecorators(st) ?? []) {
      const call = decoratorCall(d, 'Entity');
      if (!call) continue;
      const arg = call.arguments[0];
      let table = null;
      if (arg && ts.isStringLiteralLike(arg)) table = arg.text;
      else if (arg && ts.isObjectLiteralExpression(arg)) {
        const p = arg.properties.find((x) => ts.isPropertyAssignment(x) && x.name.getText(sf) === 'name');
        if (p && ts.isStringLiteralLike(p.initializer)) table = p.initializer.text;
      }
      out.set(st.name.text, table);
    }
  }
  return out;
}

/** Entity class names mentioned anywhere under a node (a type annotation, an initializer, a call's arguments). */
export function entitiesUnder(node, entities) {
  const names = new Set();
  const visit = (n) => {
    if (ts.isIdentifier(n) && entities.has(n.text)) names.add(n.text);
    ts.forEachChild(n, visit);
  };
  if (node) visit(node);
  return names;
}

/** The receiver chain of a call: `a.b().c(X).d` → the calls and identifiers it passes through. */
function chainCalls(node) {
  const calls = [];
  let n = node;
  for (;;) {
    if (ts.isCallExpression(n)) {
      calls.push(n);
      n = n.expression;
    } else if (ts.isPropertyAccessExpression(n) || ts.isNonNullExpression(n) || ts.isParenthesizedExpression(n) || ts.isAwaitExpression(n)) {
      n = n.expression;
    } else return calls;
  }
}

function methodName(call) {
  const e = call.expression;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  if (ts.isIdentifier(e)) return e.text;
  return null;
}

/** The declaration that binds `name` closest around `at`: a variable, a parameter or a class property. */
function findBinding(name, at) {
  for (let scope = at.parent; scope; scope = scope.parent) {
    let hit = null;
    const visit = (n) => {
      if (hit) return;
      if ((ts.isVariableDeclaration(n) || ts.isParameter(n) || ts.isPropertyDeclaration(n)) && ts.isIdentifier(n.name) && n.name.text === name && n.pos <= at.pos) hit = n;
      else if (n === scope || !ts.isFunctionLike(n)) ts.forEachChild(n, visit);
    };
    if (ts.isFunctionLike(scope) || ts.isBlock(scope) || ts.isSourceFile(scope) || ts.isClassLike(scope)) visit(scope);
    if (hit) return hit;
  }
  return null;
}

/** Repository fields of a class: `this.x = …getRepository(E)`, `x: Repository<E>`, `@InjectRepository(E) x`. */
function repositoryFields(sf, entities) {
  const fields = new Map();
  const visit = (n) => {
    if ((ts.isPropertyDeclaration(n) || ts.isParameter(n)) && ts.isIdentifier(n.name)) {
      const typed = n.type && /^Repository</.test(n.type.getText(sf)) ? entitiesUnder(n.type, entities) : new Set();
      const injected = (ts.canHaveDecorators(n) ? ts.getDecorators(n) ?? [] : []).map((d) => decoratorCall(d, 'InjectRepository')).filter(Boolean);
      const names = new Set([...typed, ...injected.flatMap((c) => [...entitiesUnder(c, entities)])]);
      if (n.initializer && /getRepository\(/.test(n.initializer.getText(sf))) for (const e of entitiesUnder(n.initializer, entities)) names.add(e);
      if (names.size === 1) fields.set(n.name.text, [...names][0]);
    }
    if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(n.left) && n.left.expression.kind === ts.SyntaxKind.ThisKeyword) {
      const names = /getRepository\(/.test(n.right.getText(sf)) ? entitiesUnder(n.right, entities) : new Set();
      if (names.size === 1) fields.set(n.left.name.text, [...names][0]);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return fields;
}

/** The entity a repository receiver stands for: `getRepository(E)`, a local bound to one, or a repository field. */
function repositoryEntity(receiver, sf, entities, fields) {
  for (const c of chainCalls(receiver)) {
    if (methodName(c) === 'getRepository' && c.arguments[0] && ts.isIdentifier(c.arguments[0]) && entities.has(c.arguments[0].text)) return c.arguments[0].text;
  }
  if (ts.isPropertyAccessExpression(receiver) && receiver.expression.kind === ts.SyntaxKind.ThisKeyword) return fields.get(receiver.name.text) ?? null;
  if (ts.isIdentifier(receiver)) {
    const b = findBinding(receiver.text, receiver);
    if (b && (ts.isVariableDeclaration(b) || ts.isParameter(b))) {
      const viaInit = b.initializer && /getRepository\(/.test(b.initializer.getText(sf)) ? entitiesUnder(b.initializer, entities) : new Set();
      const viaType = b.type && /^Repository</.test(b.type.getText(sf)) ? entitiesUnder(b.type, entities) : new Set();
      const names = new Set([...viaInit, ...viaType]);
      if (names.size === 1) return [...names][0];
    }
  }
  return null;
}

/** The return type annotation of a function or method named `name` declared at top level or in `cls`. */
export function declaredReturnType(container, name) {
  for (const st of container.statements ?? container.members ?? []) {
    if ((ts.isFunctionDeclaration(st) || ts.isMethodDeclaration(st)) && st.name?.getText() === name) return st.type ?? null;
    if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) {
        if (ts.isIdentifier(d.name) && d.name.text === name && d.initializer && ts.isArrowFunction(d.initializer)) return d.initializer.type ?? null;
      }
    }
  }
  return null;
}

/**
 * Entities a call's result holds, from the callee's declared return type: `this.find(…)` in the same class,
 * `lockThing(…)` declared in the file or imported from a relative path (`resolveImport(specifier, name)`).
 */
function callResultEntities(call, entities, resolveImport) {
  const callee = call.expression;
  if (ts.isPropertyAccessExpression(callee) && callee.expression.kind === ts.SyntaxKind.ThisKeyword) {
    let cls = call.parent;
    while (cls && !ts.isClassLike(cls)) cls = cls.parent;
    return cls ? entitiesUnder(declaredReturnType(cls, callee.name.text), entities) : new Set();
  }
  if (!ts.isIdentifier(callee)) return new Set();
  const sf = call.getSourceFile();
  const local = declaredReturnType(sf, callee.text);
  if (local) return entitiesUnder(local, entities);
  for (const st of sf.statements) {
    if (!ts.isImportDeclaration(st) || !st.importClause?.namedBindings || !ts.isNamedImports(st.importClause.namedBindings)) continue;
    const spec = st.importClause.namedBindings.elements.find((e) => e.name.text === callee.text);
    if (spec && resolveImport) return resolveImport(st.moduleSpecifier.text, (spec.propertyName ?? spec.name).text);
  }
  return new Set();
}

/** Which entity an instance argument (`em.save(task)`) holds, traced through its declaration; null if unknown. */
function instanceEntity(arg, entities, resolveImport) {
  if (ts.isArrayLiteralExpression(arg)) {
    const names = new Set(arg.elements.map((e) => instanceEntity(e, entities, resolveImport)));
    return names.size === 1 ? [...names][0] : null;
  }
  if (ts.isNewExpression(arg) && ts.isIdentifier(arg.expression) && entities.has(arg.expression.text)) return arg.expression.text;
  if (!ts.isIdentifier(arg)) return null;
  const b = findBinding(arg.text, arg);
  if (!b) return null;
  // `for (const task of tasks)`: the element of whatever `tasks` holds.
  const loop = b.parent?.parent;
  if (ts.isVariableDeclaration(b) && !b.type && loop && ts.isForOfStatement(loop)) return instanceEntity(loop.expression, entities, resolveImport);
  const names = new Set([...entitiesUnder(b.type, entities), ...(b.initializer ? entitiesUnder(b.initializer, entities) : [])]);
  let init = b.initializer;
  while (init && (ts.isAwaitExpression(init) || ts.isParenthesizedExpression(init))) init = init.expression;
  if (names.size === 0 && init && ts.isCallExpression(init)) for (const e of callResultEntities(init, entities, resolveImport)) names.add(e);
  return names.size === 1 ? [...names][0] : null;
}

/**
 * Every table write in one source file: `{ line, table, how }`. `table` is null when the write's table cannot be
 * told from the source (an SQL substitution, an untraceable instance) — the check reports those too.
 * `entities` maps entity class name → table; `resolveImport(specifier, name)` names the entities an imported
 * function returns (for `const p = await lockProposal(…); em.save(p)`).
 */
export function scanSource(text, file, entities, resolveImport = null) {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const fields = repositoryFields(sf, entities);
  const writes = [];
  const lineOf = (pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const add = (pos, table, how) => {
    const line = lineOf(pos);
    if (!writes.some((w) => w.line === line && w.table === table)) writes.push({ line, table, how });
  };
  const visit = (node) => {
    const text = literalText(node);
    if (text !== null) {
      const start = node.getStart(sf) + 1;
      for (const w of sqlWrites(text)) add(start + w.offset, w.table, `SQL ${w.kind}`);
    } else if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      callWrite(node);
    }
    ts.forEachChild(node, visit);
  };
  const entityArg = (call) => {
    const a = call.arguments[0];
    return a && ts.isIdentifier(a) && entities.has(a.text) ? a.text : null;
  };
  const callWrite = (call) => {
    const method = call.expression.name.text;
    const receiver = call.expression.expression;
    const pos = call.expression.name.getStart(sf);
    const below = chainCalls(receiver);
    const qbWrite = below.find((c) => QB_WRITES.has(methodName(c)));
    // A query builder: `.insert().into(E)`, `.delete().from(E)`, `.update(E)`, `createQueryBuilder(E).delete()`.
    if (QB_TARGETS.has(method) && entityArg(call) && qbWrite) {
      return add(pos, entities.get(entityArg(call)), `query builder .${methodName(qbWrite)}().${method}(${entityArg(call)})`);
    }
    if (!WRITE_METHODS.has(method)) return;
    if (entityArg(call)) return add(pos, entities.get(entityArg(call)), `.${method}(${entityArg(call)})`);
    const qbRoot = below.find((c) => ['createQueryBuilder', 'getRepository'].includes(methodName(c)) && entityArg(c));
    if (qbRoot && below.some((c) => methodName(c) === 'createQueryBuilder')) {
      return add(pos, entities.get(entityArg(qbRoot)), `query builder on ${entityArg(qbRoot)} .${method}()`);
    }
    const repo = repositoryEntity(receiver, sf, entities, fields);
    if (repo) return add(pos, entities.get(repo), `repository of ${repo} .${method}()`);
    const recv = receiver.getText(sf).replace(/\s+/g, '');
    if (!MANAGER_RECEIVER.test(recv)) return;
    const a = call.arguments[0];
    if (a && ts.isStringLiteralLike(a)) return add(pos, a.text, `${recv}.${method}('${a.text}')`);
    if (INSTANCE_METHODS.has(method) && a) {
      const e = instanceEntity(a, entities, resolveImport);
      return add(pos, e ? entities.get(e) : null, `${recv}.${method}(${a.getText(sf)})${e ? ` of ${e}` : ''}`);
    }
  };
  visit(sf);
  return writes;
}
