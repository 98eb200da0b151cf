import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthGuard } from './shared/auth/auth.guard.js';
import { CoreModule, type CoreOptions } from './shared/core.module.js';
import { CollaborationModule } from './modules/collaboration/index.js';
import { HealthModule } from './modules/health/index.js';
import { IdentityModule } from './modules/identity/index.js';
import { NotificationsModule } from './modules/notifications/index.js';
import { RealtimeModule } from './modules/realtime/index.js';
import { ToolsModule } from './modules/tools/index.js';

@Module({})
export class AppModule {
  static forRoot(core: CoreOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(core),
        IdentityModule,
        HealthModule,
        CollaborationModule,
        NotificationsModule,
        RealtimeModule,
        ToolsModule,
      ],
      // The guard resolves credentials through the identity module's CredentialResolver.
      providers: [{ provide: APP_GUARD, useClass: AuthGuard }],
    };
  }
}
