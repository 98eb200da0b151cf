// The order jest starts test files in (jest.config.js `testSequencer`). Jest runs the longest files first when its
// cache recorded their durations, and otherwise (a fresh clone, CI) the largest files first — which puts the fuzz
// suites, short files that run long, at the end of the run, where three of them overlap and make the tail. Here a file
// without a recorded duration gets an estimate from its tier and size instead, so a fresh clone starts in the order a
// second run would. Measured durations, and failed-first, are jest's own.
const { statSync } = require('node:fs');
const Sequencer = require('@jest/test-sequencer').default;

/** Seconds, roughly, as measured on the 2-core CI machine: a fixed part per tier and a part per byte of the file. */
function estimate(path) {
  const kb = statSync(path).size / 1024;
  if (path.includes('/test/fuzz/')) return 60;
  if (path.includes('/test/system/')) return 20 + kb;
  if (path.includes('/test/e2e/')) return 5 + kb * 0.7;
  if (path.includes('/test/integration/')) return 3 + kb * 0.4;
  return 1 + kb * 0.05;
}

class TierSequencer extends Sequencer {
  time(test) {
    return super.time(test) ?? estimate(test.path);
  }
}

module.exports = TierSequencer;
