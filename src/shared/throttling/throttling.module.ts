import { Module, type DynamicModule } from '@nestjs/common';
import { ThrottlerModule, type ThrottlerOptions } from '@nestjs/throttler';
import type { Request } from 'express';
import { clientAddress, limitKey } from '../http/client-address.js';
import { InstanceThrottlerStorage } from './instance-throttler.storage.js';
import { PgThrottlerStorage } from './pg-throttler.storage.js';
import { ThrottlerStorageRouter } from './throttler-storage.router.js';

/** A named `@nestjs/throttler` throttler and where it counts. */
export interface AppThrottler extends ThrottlerOptions {
  name: string;
  /** `shared`: all instances together, in PostgreSQL (a sliding window); `instance`: this process's memory (a token bucket). */
  store: 'shared' | 'instance';
}

@Module({ providers: [PgThrottlerStorage, InstanceThrottlerStorage], exports: [PgThrottlerStorage, InstanceThrottlerStorage] })
class ThrottlerStoresModule {}

/**
 * `@nestjs/throttler` for the whole app: the throttlers the modules declare, each counted in the store it names, by
 * default per client address (TRUST_PROXY) unless the throttler brings its own tracker. A route opts in with a
 * `ThrottlerGuard` that applies its own throttler only (the OAuth registration guard, the tool endpoint's rate-limit
 * guard); nothing is limited app-wide.
 */
@Module({})
export class ThrottlingModule {
  static forRoot(throttlers: readonly AppThrottler[]): DynamicModule {
    return {
      module: ThrottlingModule,
      imports: [
        ThrottlerStoresModule,
        ThrottlerModule.forRootAsync({
          imports: [ThrottlerStoresModule],
          inject: [PgThrottlerStorage, InstanceThrottlerStorage],
          useFactory: (shared: PgThrottlerStorage, local: InstanceThrottlerStorage) => ({
            throttlers: throttlers.map(({ store: _store, ...options }) => options),
            storage: new ThrottlerStorageRouter(new Map(throttlers.map((t) => [t.name, t.store === 'shared' ? shared : local])), local),
            getTracker: (req: Record<string, unknown>) => limitKey(clientAddress(req as unknown as Request)),
          }),
        }),
      ],
    };
  }
}
