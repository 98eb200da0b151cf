// `npm run fuzz`: the fuzz project only (test/fuzz/), with many runs and a random seed it prints first, so a failure
// can be replayed with `FUZZ_SEED=<seed> FUZZ_RUNS=<runs> npm run fuzz`. Extra arguments go to jest
// (e.g. `npm run fuzz -- test/fuzz/mcp-tools.test.ts`).
import { randomInt } from 'node:crypto';
import { spawnSync } from 'node:child_process';

const seed = process.env.FUZZ_SEED ?? String(randomInt(1, 2 ** 31 - 1));
const runs = process.env.FUZZ_RUNS ?? '1000';
console.error(`fuzz: FUZZ_SEED=${seed} FUZZ_RUNS=${runs}  (replay: FUZZ_SEED=${seed} FUZZ_RUNS=${runs} npm run fuzz)`);

const res = spawnSync('npx', ['jest', ...process.argv.slice(2), '--selectProjects', 'fuzz'], {
  stdio: 'inherit',
  env: { ...process.env, FUZZ_SEED: seed, FUZZ_RUNS: runs, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --experimental-vm-modules --no-warnings`.trim() },
});
console.error(`fuzz: done (FUZZ_SEED=${seed} FUZZ_RUNS=${runs}), exit ${res.status}`);
process.exit(res.status ?? 1);
