// The test environment of every project (jest.config.js `testEnvironment`): jest's node environment, plus one repair.
//
// jest-circus keeps the running test in an AsyncLocalStorage it creates for each test file and never disables. On
// Node 20 an enabled AsyncLocalStorage stays in the process's list of storages for good, and every new promise or
// other async resource walks that whole list; the app's own request context (src/shared/logging/logger.ts), loaded
// afresh for each file, adds one more. So each file a worker has run made every later file's awaits slower: the unit
// tests alone took 36 s in band with it and 26 s without (BENCHMARKS.md "npm test"). Here every storage that is
// entered while a file runs is disabled when the file ends; nothing outlives the file that needed it.
const { AsyncLocalStorage } = require('node:async_hooks');
const { TestEnvironment } = require('jest-environment-node');

/** Storages entered since the current file started (a worker runs one file at a time). */
const entered = new Set();
const installed = Symbol.for('svc.jest.storage-tracking');
const proto = AsyncLocalStorage.prototype;
if (!proto[installed]) {
  proto[installed] = true;
  for (const method of ['run', 'enterWith']) {
    const original = proto[method];
    proto[method] = function (...args) {
      entered.add(this);
      return original.apply(this, args);
    };
  }
}

class ServiceTestEnvironment extends TestEnvironment {
  async teardown() {
    for (const storage of entered) storage.disable();
    entered.clear();
    await super.teardown();
  }
}

module.exports = ServiceTestEnvironment;
