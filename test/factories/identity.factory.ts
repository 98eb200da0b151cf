import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { AgentService, IdentityAdminService } from '../../src/modules/identity/index.js';
import { AgentRepository } from '../../src/modules/identity/agent.repository.js';
import { UserRepository } from '../../src/modules/identity/user.repository.js';
import type { AgentRecord } from '../../src/modules/identity/index.js';
import { reactionsEmitter } from '../utils/on-event.js';

export interface SeededUser {
  companyUuid: string;
  uuid: string;
  email: string;
  name: string;
  password: string;
}

const unique = (): string => randomBytes(4).toString('hex');

/** Inserts through the real services. */
export class IdentityFactory {
  private readonly admin: IdentityAdminService;
  private readonly agents: AgentService;

  constructor(db: DataSource) {
    this.admin = new IdentityAdminService(new UserRepository(db.manager));
    this.agents = new AgentService(db, new AgentRepository(db.manager), reactionsEmitter());
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
