/** Small numeric helpers shared by the benchmarks. */

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export const round = (x: number, d = 2): number => Math.round(x * 10 ** d) / 10 ** d;

/** Nearest-rank percentile (`p` in 0–100) of a non-empty list; NaN for an empty one. */
export function pct(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

/** process.hrtime (CLOCK_MONOTONIC: comparable across processes on one machine) in microseconds. */
export const nowUs = (): number => Number(process.hrtime.bigint() / 1000n);

/** Least-squares line through (x, y): slope and intercept; slope NaN with fewer than two distinct x. */
export function linearFit(xs: readonly number[], ys: readonly number[]): { slope: number; intercept: number } {
  const n = xs.length;
  if (n < 2) return { slope: NaN, intercept: NaN };
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) ** 2;
  }
  if (sxx === 0) return { slope: NaN, intercept: NaN };
  const slope = sxy / sxx;
  return { slope, intercept: my - slope * mx };
}

export const mean = (xs: readonly number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);

/**
 * A latency histogram for many millions of samples (µs): exact 10 µs buckets below 1 ms, then buckets 1 % wide.
 * Percentiles are the bucket's upper bound (within 1 %). Mergeable, and serializable as a sparse object for IPC.
 */
export class Histogram {
  private readonly counts = new Map<number, number>();
  count = 0;
  max = 0;

  private static bucket(us: number): number {
    return us < 1000 ? Math.floor(us / 10) : 100 + Math.floor(Math.log(us / 1000) / Math.log(1.01));
  }

  private static upper(b: number): number {
    return b < 100 ? (b + 1) * 10 : 1000 * 1.01 ** (b - 99);
  }

  record(us: number): void {
    const v = Math.max(0, us);
    const b = Histogram.bucket(v);
    this.counts.set(b, (this.counts.get(b) ?? 0) + 1);
    this.count++;
    if (v > this.max) this.max = v;
  }

  /** Percentile in µs (NaN when empty); never above the largest sample. */
  percentile(p: number): number {
    if (this.count === 0) return NaN;
    const rank = Math.max(1, Math.ceil((p / 100) * this.count));
    let seen = 0;
    for (const b of [...this.counts.keys()].sort((x, y) => x - y)) {
      seen += this.counts.get(b)!;
      if (seen >= rank) return Math.min(Histogram.upper(b), this.max);
    }
    return this.max;
  }

  toJSON(): { counts: Record<string, number>; count: number; max: number } {
    return { counts: Object.fromEntries(this.counts), count: this.count, max: this.max };
  }

  static fromJSON(j: { counts: Record<string, number>; count: number; max: number }): Histogram {
    const h = new Histogram();
    for (const [b, c] of Object.entries(j.counts)) h.counts.set(Number(b), c);
    h.count = j.count;
    h.max = j.max;
    return h;
  }
}
