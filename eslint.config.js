// Flat config: eslint recommended + typescript-eslint recommended, no type-aware rules (they would need a full
// program per run and make `npm run lint` slow); `tsc --noEmit` in the lint script covers types.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

const nodeGlobals = Object.fromEntries(
  [
    'process', 'console', 'Buffer', 'URL', 'URLSearchParams', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval',
    'setImmediate', 'clearImmediate', 'fetch', 'AbortController', 'SharedArrayBuffer', 'Atomics', 'structuredClone',
    '__dirname', 'module', 'require', 'exports',
  ].map((name) => [name, 'readonly']),
);

export default defineConfig(
  { ignores: ['dist/', 'dist-bench/', 'node_modules/', '.data/', '.test-data/', 'coverage/', 'bench/results/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: nodeGlobals },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Abstract classes double as DI tokens and decorators need classes with only static members.
      '@typescript-eslint/no-extraneous-class': 'off',
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Tests poke at JSON bodies and internals; typing every response shape would add noise, not safety.
    files: ['test/**/*.ts', '**/*.spec.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
