import { Module } from '@nestjs/common';
import { CredentialResolver } from '../../shared/auth/auth-context.js';
import { repositoryProvider } from '../../shared/database/repository.js';
import { AgentController } from './agent.controller.js';
import { AgentRepository } from './agent.repository.js';
import { AgentService } from './agent.service.js';
import { AuthController } from './auth.controller.js';
import { AuthService } from './auth.service.js';
import { IdentityAdminService } from './identity-admin.service.js';
import { PasswordHasher } from './password-hasher.js';
import { LoginThrottleRepository } from './login-throttle.repository.js';
import { LoginThrottle } from './login-throttle.js';
import { UserSessionPruner } from './user-session.pruner.js';
import { UserSessionRepository } from './user-session.repository.js';
import { UserRepository } from './user.repository.js';

@Module({
  controllers: [AuthController, AgentController],
  providers: [
    repositoryProvider(UserRepository),
    repositoryProvider(UserSessionRepository),
    repositoryProvider(AgentRepository),
    repositoryProvider(LoginThrottleRepository),
    AuthService,
    AgentService,
    IdentityAdminService,
    PasswordHasher,
    LoginThrottle,
    UserSessionPruner,
    { provide: CredentialResolver, useExisting: AuthService },
  ],
  exports: [AuthService, AgentService, IdentityAdminService, CredentialResolver],
})
export class IdentityModule {}
