import type { DataSource } from 'typeorm';

/*
 * The services the commands call, each loaded from its own file when a command runs: a module's index.ts also loads
 * its controllers, DTOs and the OpenAPI decorators, which a one-shot command does not need (about half of a
 * command's start-up).
 */

export async function identityServices(ds: DataSource) {
  const [{ IdentityAdminService }, { PasswordHasher }, { UserRepository }, { AgentService }, { AgentRepository }, { EventEmitter2 }] = await Promise.all([
    import('../modules/identity/identity-admin.service.js'),
    import('../modules/identity/password-hasher.js'),
    import('../modules/identity/user.repository.js'),
    import('../modules/identity/agent.service.js'),
    import('../modules/identity/agent.repository.js'),
    import('@nestjs/event-emitter'),
  ]);
  // No command archives an agent, the one agent mutation that dispatches an in-transaction event: nothing listens.
  return { admin: new IdentityAdminService(new UserRepository(ds.manager), new PasswordHasher()), agents: new AgentService(ds, new AgentRepository(ds.manager), new EventEmitter2()) };
}

export async function grantServices(ds: DataSource) {
  const [{ agents }, { OAuthGrants }, { OAuthGrantRepository }] = await Promise.all([
    identityServices(ds),
    import('../modules/oauth/oauth-grants.js'),
    import('../modules/oauth/oauth-grant.repository.js'),
  ]);
  return { agents, grants: new OAuthGrants(ds, new OAuthGrantRepository(ds.manager), agents) };
}
