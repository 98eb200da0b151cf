import type { Actor } from '../../src/shared/auth/actor.js';
import type { AgentRecord } from '../../src/modules/identity/index.js';
import type { TransactionRunner } from '../../src/shared/database/transaction-runner.js';
import { DomainFactory } from '../factories/domain.factory.js';
import type { IdentityFactory, SeededUser } from '../factories/identity.factory.js';
import { ProposalFactory } from '../factories/proposal.factory.js';
import { ChangeEvents, compact } from './change-events.js';
import { tableCounts } from './expect-error.js';
import type { HttpClient, HttpResult } from './http.js';
import { userActor, World } from './world.js';

/**
 * The casts of the REST e2e tests, each built on `World.start()`: `createRestWorld` (two companies, a logged-in user
 * each; ideas, projects, collaboration, sessions) and `createRestCast` (alice, carol and bob with agents and
 * projects; proposals, tasks, documents), with the error and change-event expectations they share.
 *
 * @deprecated A cast over the one test world (test/utils/world.ts), kept until the suites that use it are rewritten on the
 * world's own seeders (README "Testing"); write new tests on `World` directly.
 */

export interface Tenant {
  companyUuid: string;
  user: SeededUser;
  actor: Actor;
  http: HttpClient;
}

/**
 * The app with two companies, each with a logged-in user, and a seeding factory whose events go to a separate
 * harness bus (so seeding never shows on the app's streams).
 */
export interface RestWorld {
  app: World;
  a: Tenant;
  b: Tenant;
  anon: HttpClient;
  identity: IdentityFactory;
  seed: DomainFactory;
  /** The seeding runner (its events go to a harness bus, never to the app's streams). */
  runner: TransactionRunner;
  /** Another logged-in user of company A. */
  colleague(): Promise<Tenant>;
}

export async function createRestWorld(): Promise<RestWorld> {
  const app = await World.start();
  const tenant = async (companyUuid: string): Promise<Tenant> => {
    const user = await app.user(companyUuid);
    return { companyUuid, user, actor: userActor(user), http: await app.login(user) };
  };
  const a = await tenant((await app.company()).uuid);
  const b = await tenant((await app.company()).uuid);
  const runner = app.h.runner;
  return {
    app,
    a,
    b,
    anon: app.http(),
    identity: app.ids,
    seed: new DomainFactory(app),
    runner,
    colleague: () => tenant(a.companyUuid),
  };
}

/** The error envelope of a refused call. */
export function expectError(res: HttpResult, status: number, code: string, message?: string | RegExp): void {
  expect({ status: res.status, success: res.body?.success, code: res.body?.error?.code }).toEqual({ status, success: false, code });
  if (message !== undefined) expect(res.body.error.message).toEqual(message instanceof RegExp ? expect.stringMatching(message) : message);
}

/** A 400 VALIDATION_ERROR naming `field` in its details. */
export function expectValidation(res: HttpResult, field: string, message?: string | RegExp): void {
  expectError(res, 400, 'VALIDATION_ERROR', message);
  expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
}

/**
 * The cast of the REST e2e tests: company A with users alice and carol (each owning a developer agent) and two
 * projects; company B with bob and one project. Clients are logged in; `events` reads alice's company stream.
 */
export interface RestCast {
  app: World;
  f: ProposalFactory;
  ids: IdentityFactory;
  companyA: string;
  companyB: string;
  aliceUser: SeededUser;
  carolUser: SeededUser;
  bobUser: SeededUser;
  alice: HttpClient;
  carol: HttpClient;
  bob: HttpClient;
  anon: HttpClient;
  aliceAgent: AgentRecord;
  carolAgent: AgentRecord;
  projectA: string;
  projectA2: string;
  projectB: string;
  events: ChangeEvents;
  close(): Promise<void>;
}

export async function createRestCast(): Promise<RestCast> {
  const app = await World.start();
  const ids = app.ids;
  const f = new ProposalFactory(app.ds);
  const a = await app.company('A');
  const b = await app.company('B');
  const aliceUser = await app.user(a.uuid, { name: 'Alice' });
  const carolUser = await app.user(a.uuid, { name: 'Carol' });
  const bobUser = await app.user(b.uuid, { name: 'Bob' });
  const login = (u: SeededUser) => app.login(u);
  const alice = await login(aliceUser);
  const events = await ChangeEvents.open(app, alice.cookie!, a.uuid);
  return {
    app,
    f,
    ids,
    companyA: a.uuid,
    companyB: b.uuid,
    aliceUser,
    carolUser,
    bobUser,
    alice,
    carol: await login(carolUser),
    bob: await login(bobUser),
    anon: app.http(),
    aliceAgent: (await ids.agent(a.uuid, aliceUser.uuid, { name: 'Alice bot' })).agent,
    carolAgent: (await ids.agent(a.uuid, carolUser.uuid, { name: 'Carol bot' })).agent,
    projectA: (await f.project(a.uuid, 'Project A')).uuid,
    projectA2: (await f.project(a.uuid, 'Project A2')).uuid,
    projectB: (await f.project(b.uuid, 'Project B')).uuid,
    events,
    close: async () => {
      events.close();
      await app.close();
    },
  };
}

/** A 400 VALIDATION_ERROR naming `fields` in its details. */
export function expectInvalid(res: HttpResult, ...fields: string[]): void {
  expectError(res, 400, 'VALIDATION_ERROR');
  expect(res.body.error.details).toEqual(expect.arrayContaining(fields.map((field) => expect.objectContaining({ field }))));
}

/** Runs a mutation and returns its response with the change events it emitted, compacted (`ev` form). */
export async function withEvents(w: RestCast, call: () => Promise<HttpResult>): Promise<{ res: HttpResult; events: string[] }> {
  const { result, events } = await w.events.during(call);
  for (const e of events) expect(e.companyUuid).toBe(w.companyA);
  return { res: result, events: compact(events) };
}

/**
 * A refused call: the error (status, code, message), no change event, no new or changed row in the domain tables,
 * and `read()` (a GET of the record) answering the same before and after.
 */
export async function expectRefused(
  w: RestCast,
  call: () => Promise<HttpResult>,
  status: number,
  code: string,
  message?: string,
  read?: () => Promise<HttpResult>,
): Promise<HttpResult> {
  const before = read ? (await read()).body : undefined;
  const counts = await tableCounts(w.app.db.dataSource, ['proposal', 'task', 'document', 'acceptance_criterion', 'task_dependency', 'comment', 'reference', 'activity']);
  const { res, events } = await withEvents(w, call);
  expectError(res, status, code, message);
  expect(events).toEqual([]);
  expect(await tableCounts(w.app.db.dataSource, Object.keys(counts))).toEqual(counts);
  if (read) expect((await read()).body).toEqual(before);
  return res;
}
