import type { DataSource } from 'typeorm';
import { str, uuidOf, type CliCommand } from './cli-command.js';

/** The grants service with its agent service, loaded when a grant command runs (see identity.command.ts). */
async function grantsService(ds: DataSource) {
  const [{ OAuthGrants }, { AgentService }] = await Promise.all([import('../modules/oauth/oauth-grants.js'), import('../modules/identity/agent.service.js')]);
  const agents = new AgentService(ds);
  return { agents, grants: new OAuthGrants(ds, agents) };
}

/** The operator's view of OAuth grants (platform.md §2.5): list an agent's, revoke one (its tokens stop at once). */
export const OAUTH_COMMANDS: CliCommand[] = [
  {
    path: ['agent', 'grants'],
    positionals: ['agentUuid'],
    synopsis: '',
    options: {},
    run: async ({ dataSource }, v) => {
      const { agents, grants } = await grantsService(dataSource);
      const agentUuid = uuidOf(v, 'agentUuid', 'Agent');
      await agents.operatorScopeOfAgent(agentUuid);
      return { grants: await grants.listOf(agentUuid) };
    },
  },
  {
    path: ['agent', 'revoke-grant'],
    positionals: ['grantId'],
    synopsis: '',
    options: {},
    run: async ({ dataSource }, v) => (await grantsService(dataSource)).grants.revokeById(str(v, 'grantId')),
  },
];
