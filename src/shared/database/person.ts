import type { EntityManager } from 'typeorm';
import type { ActorType } from '../auth/actor.js';

/** docs/domain.md §1 "Person rendering": `{type, uuid, name}`; a user's name falls back to the email. */
export interface Person {
  type: ActorType;
  uuid: string;
  name: string;
}

export interface PersonRows {
  users: Array<{ uuid: string; name: string; email: string }>;
  agents: Array<{ uuid: string; name: string }>;
}

export type PersonRef = { type: ActorType | null; uuid: string | null } | null | undefined;

/** Loads the names of many people in two queries; archived agents keep resolving. */
export class PersonResolver {
  private readonly users = new Map<string, string>();
  private readonly agents = new Map<string, string>();

  static async load(em: EntityManager, refs: Iterable<PersonRef>): Promise<PersonResolver> {
    const users = new Set<string>();
    const agents = new Set<string>();
    for (const ref of refs) {
      if (!ref?.uuid || !ref.type) continue;
      (ref.type === 'user' ? users : agents).add(ref.uuid);
    }
    const userRows: PersonRows['users'] = users.size
      ? await em.query(`SELECT uuid, name, email FROM app_user WHERE uuid = ANY($1::uuid[])`, [[...users]])
      : [];
    const agentRows: PersonRows['agents'] = agents.size ? await em.query(`SELECT uuid, name FROM agent WHERE uuid = ANY($1::uuid[])`, [[...agents]]) : [];
    return PersonResolver.fromRows(userRows, agentRows);
  }

  /** From already loaded rows (e.g. aggregated into a larger query): users' and agents' `uuid` and names. */
  static fromRows(users: PersonRows['users'], agents: PersonRows['agents']): PersonResolver {
    const r = new PersonResolver();
    for (const row of users) r.users.set(row.uuid, row.name || row.email);
    for (const row of agents) r.agents.set(row.uuid, row.name);
    return r;
  }

  person(ref: PersonRef): Person | null {
    if (!ref?.uuid || !ref.type) return null;
    const name = (ref.type === 'user' ? this.users : this.agents).get(ref.uuid) ?? '(unknown)';
    return { type: ref.type, uuid: ref.uuid, name };
  }
}
