// jest 30 in ESM mode (NODE_OPTIONS=--experimental-vm-modules), TypeScript through @swc/jest.
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'es6' },
    sourceMaps: 'inline',
  },
];

const common = {
  extensionsToTreatAsEsm: ['.ts'],
  // @nestjs/throttler is CommonJS and require()s ESM-only NestJS 12, which Jest's runtime cannot do on Node < 24.9
  // (Node itself can, from 20.19): its two require() calls of Nest are pointed at the test's own instances.
  transform: { '^.+\\.ts$': swc, '/node_modules/@nestjs/throttler/.+\\.js$': '<rootDir>/test/utils/jest-require-esm.cjs' },
  transformIgnorePatterns: ['/node_modules/(?!@nestjs/throttler/)'],
  setupFilesAfterEnv: ['<rootDir>/test/utils/jest-esm-globals.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testEnvironment: '<rootDir>/test/utils/jest-environment.cjs',
};

/** @type {import('jest').Config} */
export default {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/scripts/**/*.spec.mjs'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/utils/global-setup.ts',
      globalTeardown: '<rootDir>/test/utils/global-teardown.ts',
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.test.ts'],
      globalSetup: '<rootDir>/test/utils/global-setup.ts',
      globalTeardown: '<rootDir>/test/utils/global-teardown.ts',
    },
    {
      // Input fuzzing against the real service (README.md "Fuzzing"): FUZZ_SEED, FUZZ_RUNS.
      ...common,
      displayName: 'fuzz',
      testMatch: ['<rootDir>/test/fuzz/**/*.test.ts'],
      globalSetup: '<rootDir>/test/utils/global-setup.ts',
      globalTeardown: '<rootDir>/test/utils/global-teardown.ts',
    },
    {
      // Long system suites (README.md "Testing"): multi-process fault injection, clusters; `npm run test:system`.
      ...common,
      displayName: 'system',
      testMatch: ['<rootDir>/test/system/**/*.test.ts'],
      globalSetup: '<rootDir>/test/utils/global-setup.ts',
      globalTeardown: '<rootDir>/test/utils/global-teardown.ts',
    },
  ],
  // Two cores: jest's default (cores - 1) runs one file at a time; the database- and I/O-bound files overlap well at
  // three (measured on the 2-core CI machine: integration 53 s at 2 workers, 35 s at 3, 58 s at 4; e2e 203 / 171 / 203 s).
  // `--maxWorkers` on the command line overrides it.
  maxWorkers: 3,
  // Longest files first on a fresh clone too (test/utils/sequencer.cjs).
  testSequencer: '<rootDir>/test/utils/sequencer.cjs',
  testTimeout: 30000,
};
