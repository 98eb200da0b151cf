import { str, uuidOf, type CliCommand } from './cli-command.js';
import { grantServices } from './cli-services.js';

/** The operator's view of OAuth grants (docs/platform.md §2.5): list an agent's, revoke one (its tokens stop at once). */
export const OAUTH_COMMANDS: CliCommand[] = [
  {
    path: ['agent', 'grants'],
    positionals: ['agentUuid'],
    synopsis: '',
    options: {},
    run: async ({ dataSource }, v) => {
      const { agents, grants } = await grantServices(dataSource);
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
    run: async ({ dataSource }, v) => (await grantServices(dataSource)).grants.revokeById(str(v, 'grantId')),
  },
];
