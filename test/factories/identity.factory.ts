import { AgentService, IdentityAdminService } from '../../src/modules/identity/index.js';
import type { AgentRecord } from '../../src/modules/identity/index.js';
import { unique as shared } from '../utils/world.js';

export interface SeededUser {
  companyUuid: string;
  uuid: string;
  email: string;
  name: string;
  password: string;
}

const unique = (): string => shared(4);

/** Resolves a provider of a compiled context (`World.seeding`). */
export type Resolve = <T>(token: abstract new (...args: never[]) => T) => T;

/** Inserts through the real services, resolved from a world's compiled context (`world.ids`). */
export class IdentityFactory {
  constructor(private readonly resolve: Resolve) {}

  private get admin(): IdentityAdminService {
    return this.resolve(IdentityAdminService);
  }

  private get agents(): AgentService {
    return this.resolve(AgentService);
  }

  async company(name = `Company ${unique()}`): Promise<{ uuid: string; name: string }> {
    return this.admin.createCompany(name);
  }

  async user(companyUuid: string, overrides: Partial<{ email: string; name: string; password: string }> = {}): Promise<SeededUser> {
    const password = overrides.password ?? `pw-${unique()}-${unique()}`;
    const u = await this.admin.createUser({
      companyUuid,
      email: overrides.email ?? `user-${unique()}@example.test`,
      name: overrides.name ?? `User ${unique()}`,
      password,
    });
    return { ...u, password };
  }

  async agent(
    companyUuid: string,
    ownerUuid: string,
    opts: { preset?: string; permissions?: string[]; name?: string } = {},
  ): Promise<{ agent: AgentRecord; key: string; keyUuid: string }> {
    const m = { companyUuid, userUuid: null };
    const agent = await this.agents.create(m, ownerUuid, { name: opts.name ?? `Agent ${unique()}`, preset: opts.preset, permissions: opts.permissions });
    const { key, apiKey } = await this.agents.createKey(m, agent.uuid, { name: 'test' });
    return { agent, key, keyUuid: apiKey.uuid };
  }
}
