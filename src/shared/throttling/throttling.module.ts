import { Module, type DynamicModule } from '@nestjs/common';
import { ThrottlerModule, ThrottlerStorageService, type ThrottlerOptions } from '@nestjs/throttler';
import type { Request } from 'express';
import { clientAddress, limitKey } from '../http/client-address.js';
import { PgThrottlerStorage } from './pg-throttler.storage.js';
import { ThrottlerStorageRouter } from './throttler-storage.router.js';

/** A named `@nestjs/throttler` throttler and where it counts. */
export interface AppThrottler extends ThrottlerOptions {
  name: string;
  /** `shared`: all instances together, in PostgreSQL; `instance`: this process's memory. */
  store: 'shared' | 'instance';
}

@Module({ providers: [PgThrottlerStorage, ThrottlerStorageService], exports: [PgThrottlerStorage, ThrottlerStorageService] })
class ThrottlerStoresModule {}

/**
 * `@nestjs/throttler` for the whole app: the throttlers the modules declare, each counted in the store it names, by
 * default per client address (TRUST_PROXY). A route opts in with a `ThrottlerGuard` (see the OAuth registration
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
          inject: [PgThrottlerStorage, ThrottlerStorageService],
          useFactory: (shared: PgThrottlerStorage, local: ThrottlerStorageService) => ({
            throttlers: throttlers.map(({ store: _store, ...options }) => options),
            storage: new ThrottlerStorageRouter(new Map(throttlers.filter((t) => t.store === 'shared').map((t) => [t.name, shared])), local),
            getTracker: (req: Record<string, unknown>) => limitKey(clientAddress(req as unknown as Request)),
          }),
        }),
      ],
    };
  }
}
