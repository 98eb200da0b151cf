import { ValidationError } from '../shared/errors/app-error.js';
import { list, optionalStr, str, uuidOf, type CliCommand } from './cli-command.js';
import { identityServices } from './cli-services.js';

/** Companies, users, agents and keys exist for the operator only through these (docs/platform.md §10). */
export const IDENTITY_COMMANDS: CliCommand[] = [
  {
    path: ['company', 'create'],
    synopsis: '--name <n>',
    options: { name: { type: 'string' } },
    required: ['name'],
    run: async ({ dataSource }, v) => ({ company: await (await identityServices(dataSource)).admin.createCompany(str(v, 'name')) }),
  },
  {
    path: ['user', 'create'],
    synopsis: '--company <uuid> --email <e> --name <n> --password <p>',
    options: { company: { type: 'string' }, email: { type: 'string' }, name: { type: 'string' }, password: { type: 'string' } },
    required: ['company', 'email', 'name', 'password'],
    run: async ({ dataSource }, v) => ({
      user: await (await identityServices(dataSource)).admin.createUser({
        companyUuid: uuidOf(v, 'company', 'Company'),
        email: str(v, 'email'),
        name: str(v, 'name'),
        password: str(v, 'password'),
      }),
    }),
  },
  {
    path: ['agent', 'create'],
    synopsis: '--company <uuid> --owner <userUuid> --name <n> --preset <p> [--permission x:y ...]',
    options: {
      company: { type: 'string' },
      owner: { type: 'string' },
      name: { type: 'string' },
      preset: { type: 'string' },
      permission: { type: 'string', multiple: true },
    },
    required: ['company', 'owner', 'name', 'preset'],
    run: async ({ dataSource }, v) => {
      const agents = (await identityServices(dataSource)).agents;
      const scope = { companyUuid: uuidOf(v, 'company', 'Company'), userUuid: null };
      // The owner must be a user of that company: the service answers "User not found" otherwise.
      const ownerUuid = uuidOf(v, 'owner', 'User');
      const agent = await agents.create(scope, ownerUuid, { name: str(v, 'name'), preset: str(v, 'preset'), permissions: list(v, 'permission') ?? [] });
      const { key, apiKey } = await agents.createKey(scope, agent.uuid, {});
      return { agent, apiKey, key };
    },
  },
  {
    path: ['agent', 'key', 'create'],
    synopsis: '--agent <uuid> [--name <n>] [--expires <iso>]',
    options: { agent: { type: 'string' }, name: { type: 'string' }, expires: { type: 'string' } },
    required: ['agent'],
    run: async ({ dataSource }, v) => {
      const agents = (await identityServices(dataSource)).agents;
      const agentUuid = uuidOf(v, 'agent', 'Agent');
      const expires = optionalStr(v, 'expires');
      const expiresAt = expires === undefined ? null : parseIso(expires);
      return agents.createKey(await agents.operatorScopeOfAgent(agentUuid), agentUuid, { name: optionalStr(v, 'name') ?? null, expiresAt });
    },
  },
  {
    path: ['agent', 'key', 'revoke'],
    synopsis: '--key <keyUuid>',
    options: { key: { type: 'string' } },
    required: ['key'],
    run: async ({ dataSource }, v) => {
      const agents = (await identityServices(dataSource)).agents;
      const keyUuid = uuidOf(v, 'key', 'API key');
      return { apiKey: await agents.revokeKey(await agents.operatorScopeOfKey(keyUuid), null, keyUuid) };
    },
  },
  {
    path: ['agent', 'permissions'],
    synopsis: '--agent <uuid> [--preset <p>] [--permission x:y ... | --permission none]',
    options: { agent: { type: 'string' }, preset: { type: 'string' }, permission: { type: 'string', multiple: true } },
    required: ['agent'],
    run: async ({ dataSource }, v) => {
      const agents = (await identityServices(dataSource)).agents;
      const agentUuid = uuidOf(v, 'agent', 'Agent');
      const scope = await agents.operatorScopeOfAgent(agentUuid);
      const preset = optionalStr(v, 'preset');
      const given = list(v, 'permission');
      // `none` alone clears the custom bits; mixed with others it is just an invalid permission.
      const permissions = given && given.length === 1 && given[0] === 'none' ? [] : given;
      if (preset === undefined && permissions === undefined) return { agent: await agents.get(scope, agentUuid) };
      return { agent: await agents.update(scope, agentUuid, { preset, permissions }) };
    },
  },
];

function parseIso(value: string): Date {
  const d = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(d.getTime())) {
    throw new ValidationError(`Invalid --expires: ${value} (expected an ISO 8601 timestamp)`, [{ field: 'expires', message: 'must be an ISO 8601 timestamp' }]);
  }
  return d;
}
