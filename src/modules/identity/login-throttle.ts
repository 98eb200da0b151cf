/** Per-email failed-login counter (platform.md §2.1): 10 failures in 15 minutes lock the email until the window frees. */
export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly limit = 10,
    private readonly windowMs = 15 * 60 * 1000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds until another attempt is allowed, or 0 when allowed now. */
  retryAfter(email: string): number {
    const recent = this.recent(email);
    if (recent.length < this.limit) return 0;
    return Math.max(1, Math.ceil((recent[recent.length - this.limit] + this.windowMs - this.now()) / 1000));
  }

  fail(email: string): void {
    const recent = this.recent(email);
    recent.push(this.now());
    this.failures.set(email, recent);
    if (this.failures.size > 100_000) this.sweep();
  }

  succeed(email: string): void {
    this.failures.delete(email);
  }

  private recent(email: string): number[] {
    const cutoff = this.now() - this.windowMs;
    return (this.failures.get(email) ?? []).filter((t) => t > cutoff);
  }

  private sweep(): void {
    for (const email of [...this.failures.keys()]) {
      if (this.recent(email).length === 0) this.failures.delete(email);
    }
  }
}
