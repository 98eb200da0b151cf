import type { ThrottlerStorage } from '@nestjs/throttler';

/**
 * The one storage `@nestjs/throttler` takes, choosing a store per throttler name: a limit that must hold across
 * instances goes to the shared PostgreSQL store, any other to the in-process store (per-instance limits, e.g. a
 * per-key request rate, where a database round trip per request would cost more than the limit is worth).
 */
export class ThrottlerStorageRouter implements ThrottlerStorage {
  constructor(
    private readonly byName: ReadonlyMap<string, ThrottlerStorage>,
    private readonly fallback: ThrottlerStorage,
  ) {}

  increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string): ReturnType<ThrottlerStorage['increment']> {
    return (this.byName.get(throttlerName) ?? this.fallback).increment(key, ttl, limit, blockDuration, throttlerName);
  }
}
