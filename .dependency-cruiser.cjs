/**
 * Layering checked by a tool (ARCHITECTURE.md rule 12), run by `npm run lint` as `depcruise src`.
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
