import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthGuard } from './shared/auth/auth.guard.js';
import { CoreModule, type CoreOptions } from './shared/core.module.js';
import { ThrottlingModule } from './shared/throttling/throttling.module.js';
import { AssignmentsModule } from './modules/assignments/index.js';
import { CollaborationModule } from './modules/collaboration/index.js';
import { HealthModule } from './modules/health/index.js';
import { IdentityModule } from './modules/identity/index.js';
import { IdeasModule } from './modules/ideas/index.js';
import { ProjectsModule } from './modules/projects/index.js';
import { DocumentsModule } from './modules/documents/index.js';
import { ProposalsModule } from './modules/proposals/index.js';
import { NotificationsModule } from './modules/notifications/index.js';
import { OAuthModule, REGISTRATION_THROTTLER } from './modules/oauth/index.js';
import { RealtimeModule } from './modules/realtime/index.js';
import { SessionsModule } from './modules/sessions/index.js';
import { TasksModule } from './modules/tasks/index.js';
import { mcpThrottlers, ToolsModule } from './modules/tools/index.js';

@Module({})
export class AppModule {
  static forRoot(core: CoreOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(core),
        // `@nestjs/throttler`: every named limit of the app, each in the store it names (shared or per instance).
        ThrottlingModule.forRoot([REGISTRATION_THROTTLER, ...mcpThrottlers(core.config.mcpRateLimitPerMinute)]),
        // The tool endpoint first: Nest registers controllers in the order it scans modules, so /api/mcp — the hot
        // path of every agent — is the first route Express tries, not the ~120th after every REST route's pattern.
        ToolsModule,
        IdentityModule,
        HealthModule,
        CollaborationModule,
        ProjectsModule,
        IdeasModule,
        TasksModule,
        SessionsModule,
        ProposalsModule,
        DocumentsModule,
        NotificationsModule,
        RealtimeModule,
        AssignmentsModule,
        OAuthModule,
      ],
      // The guard resolves credentials through the identity module's CredentialResolver.
      providers: [{ provide: APP_GUARD, useClass: AuthGuard }],
    };
  }
}
