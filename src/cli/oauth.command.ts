import { AgentService } from '../modules/identity/index.js';
import { OAuthGrants } from '../modules/oauth/index.js';
import { str, uuidOf, type CliCommand } from './cli-command.js';

/** The operator's view of OAuth grants (platform.md §2.5): list an agent's, revoke one (its tokens stop at once). */
export const OAUTH_COMMANDS: CliCommand[] = [
  {
    path: ['agent', 'grants'],
    positionals: ['agentUuid'],
    synopsis: '',
    options: {},
    run: async ({ dataSource }, v) => {
      const agents = new AgentService(dataSource);
      const agentUuid = uuidOf(v, 'agentUuid', 'Agent');
      await agents.operatorScopeOfAgent(agentUuid);
      return { grants: await new OAuthGrants(dataSource, agents).listOf(agentUuid) };
    },
  },
  {
    path: ['agent', 'revoke-grant'],
    positionals: ['grantId'],
    synopsis: '',
    options: {},
    run: async ({ dataSource }, v) => new OAuthGrants(dataSource, new AgentService(dataSource)).revokeById(str(v, 'grantId')),
  },
];
