// Jest transform for CommonJS packages that require() NestJS 12, which is ESM-only: Node >= 20.19 loads such a
// require() natively (the built service does), but Jest's module runtime only does on Node >= 24.9. The package's
// require("@nestjs/common") / require("@nestjs/core") calls are pointed at the very module instances the test file
// imports, which jest-esm-globals.ts (setupFilesAfterEnv) loads first. Applies to @nestjs/throttler only
// (jest.config.js); nothing of it reaches the built service.
const NEST = /require\("(@nestjs\/(?:common|core))"\)/g;

module.exports = {
  process(source) {
    return { code: source.replace(NEST, (_, name) => `globalThis[Symbol.for('svc.jest.esm')][${JSON.stringify(name)}]`) };
  },
  getCacheKey(source, path) {
    return `jest-require-esm-1:${path}:${source.length}:${require('node:crypto').createHash('sha256').update(source).digest('hex')}`;
  },
};
