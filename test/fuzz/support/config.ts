import type { Parameters } from 'fast-check';

/**
 * Fuzz run settings, from the environment so CI and `npm run fuzz` share the suite:
 * - FUZZ_SEED: fast-check seed (default fixed, so CI is reproducible); `npm run fuzz` draws and prints a random one.
 * - FUZZ_RUNS: generated cases per property (small default so the CI run stays short).
 * - FUZZ_REPORT=1: print every problem found and keep going instead of stopping at the first (for triage).
 */
function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw new Error(`${name} must be an integer, got ${JSON.stringify(raw)}`);
  return n;
}

export const FUZZ_SEED = intEnv('FUZZ_SEED', 20261122);
export const FUZZ_RUNS = intEnv('FUZZ_RUNS', 100);
export const FUZZ_REPORT = process.env.FUZZ_REPORT === '1';

/** Per request: an answer must start within this many milliseconds (a hang fails the case). */
export const REQUEST_TIMEOUT_MS = intEnv('FUZZ_REQUEST_TIMEOUT_MS', 15_000);

/** A property's jest timeout, scaled with the number of runs (each run is a few requests). */
export function fuzzTimeout(runsFactor = 1): number {
  return 120_000 + Math.ceil(FUZZ_RUNS * runsFactor) * 2_000;
}

/**
 * fast-check parameters of every property: the fixed or given seed, FUZZ_RUNS × `runsFactor` runs, and no shrinking
 * (each case runs against a live, stateful service; the reported seed, path and counterexample replay it).
 */
export function fuzzParams<T>(runsFactor = 1): Parameters<T> {
  return { seed: FUZZ_SEED, numRuns: Math.max(1, Math.ceil(FUZZ_RUNS * runsFactor)), endOnFailure: true };
}

/** Collects the problems of one case; throws them all at once (or only logs them with FUZZ_REPORT=1). */
export function settle(problems: string[], describe: () => string): void {
  if (problems.length === 0) return;
  const text = `${problems.join('\n')}\n  request: ${describe()}`;
  if (FUZZ_REPORT) {
    console.error(`FUZZ PROBLEM\n${text}`);
    return;
  }
  throw new Error(text);
}

/** Outcome counts of a suite (printed with FUZZ_REPORT=1, to see how deep the generated cases reach). */
export class OutcomeStats {
  private readonly counts = new Map<string, number>();

  add(outcome: string): void {
    this.counts.set(outcome, (this.counts.get(outcome) ?? 0) + 1);
  }

  print(title: string): void {
    if (!FUZZ_REPORT) return;
    const rows = [...this.counts.entries()].sort((x, y) => y[1] - x[1]).map(([k, n]) => `${String(n).padStart(6)}  ${k}`);
    console.error(`FUZZ OUTCOMES ${title}\n${rows.join('\n')}`);
  }
}
