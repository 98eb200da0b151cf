/**
 * Layering checked by a tool (docs/architecture.md), run by `npm run lint` as `depcruise src`.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycles make module initialisation order fragile (ESM) and hide layering mistakes.',
      // Type-only imports vanish at compile time and cannot cause an initialisation cycle.
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'no-module-cycle',
      severity: 'error',
      comment:
        'Modules form a directed graph (docs/architecture.md): no module reaches itself through others, whatever files ' +
        'the path goes through and type-only imports included. A reaction that would point back goes through a typed ' +
        'event (shared/events) instead of an import.',
      scope: 'folder',
      from: { path: '^src/modules/[^/]+$' },
      to: { path: '^src/modules/[^/]+$', circular: true },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'Pure domain rules must not depend on the framework, the ORM or HTTP.',
      from: { path: '/domain/' },
      to: { path: '(^|/)node_modules/(@nestjs/[^/]+|typeorm|express)/' },
    },
    {
      name: 'module-through-index',
      severity: 'error',
      comment: "A module reaches another module only through that module's index.ts, never its internals.",
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/[^/]+/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index\\.ts$'] },
    },
    {
      name: 'entity-stays-in-its-module',
      severity: 'error',
      comment:
        "Only a table's owner writes it (README 'Table ownership'): a module's *.entity.ts files are imported by its " +
        "own files only; other modules call the owner's exported service or read its exported types.",
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/[^/]+/[^/]+[.]entity[.]ts$', pathNot: '^src/modules/$1/' },
    },
    {
      name: 'entity-only-through-bootstrap',
      severity: 'error',
      comment: 'Outside the modules only the bootstrap list src/entities.ts (data source, CLI seed, tests) holds entity classes.',
      from: { path: '^src/', pathNot: ['^src/modules/', '^src/entities[.]ts$'] },
      to: { path: '^src/modules/[^/]+/[^/]+[.]entity[.]ts$' },
    },
    {
      name: 'entity-exported-as-type',
      severity: 'error',
      comment:
        "A module's index.ts exports its entity classes as types only (`export type`): a class value would let " +
        'another module hand it to TypeORM and write the table.',
      from: { path: '^src/modules/[^/]+/index[.]ts$' },
      to: { path: '^src/modules/[^/]+/[^/]+[.]entity[.]ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'shared-without-modules',
      severity: 'error',
      comment: 'The kernel (src/shared) holds no business rules and knows no module; modules plug into its ports.',
      from: { path: '^src/shared/' },
      to: { path: '^src/modules/' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to nothing fails at run time.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    moduleSystems: ['es6', 'cjs'],
  },
};
