// The NestJS modules that jest-require-esm.cjs hands to CommonJS packages, loaded from the test file's own module
// registry so that both sides share one instance (decorator metadata, DI tokens such as Reflector, instanceof).
const key = Symbol.for('svc.jest.esm');
(globalThis as Record<symbol, unknown>)[key] = {
  '@nestjs/common': await import('@nestjs/common'),
  '@nestjs/core': await import('@nestjs/core'),
};

export {};
