import { Module } from '@nestjs/common';
import { CredentialResolver } from '../../shared/auth/auth-context.js';
import { AgentController } from './agent.controller.js';
import { AgentService } from './agent.service.js';
import { AuthController } from './auth.controller.js';
import { AuthService } from './auth.service.js';
import { IdentityAdminService } from './identity-admin.service.js';
import { LoginThrottle } from './login-throttle.js';

@Module({
  controllers: [AuthController, AgentController],
  providers: [AuthService, AgentService, IdentityAdminService, LoginThrottle, { provide: CredentialResolver, useExisting: AuthService }],
  exports: [AuthService, AgentService, IdentityAdminService, CredentialResolver],
})
export class IdentityModule {}
