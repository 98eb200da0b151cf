import { randomUUID } from 'node:crypto';
import type { Actor } from '../../src/shared/auth/actor.js';
import type { TransactionRunner } from '../../src/shared/database/transaction-runner.js';
import { EventBus } from '../../src/shared/event-bus/event-bus.port.js';
import type { RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { DomainFactory } from '../factories/domain.factory.js';
import { IdentityFactory, type SeededUser } from '../factories/identity.factory.js';
import { createHarness, userActor } from './harness.js';
import { HttpClient, type HttpResult } from './http.js';
import { openEventSource, type TestEventSource } from './sse.js';
import { startTestApp, type TestApp } from './test-app.js';

export type ExpectedEvent = Omit<RealtimeEvent, 'companyUuid'>;

/**
 * Change events as a browser sees them: a real EventSource on `/api/events`, read in order. "Nothing else arrived"
 * is proven with a marker published on the app's bus: events of a finished call were published before its
 * response (after commit, synchronously), so the marker must be the very next frame.
 */
export class ChangeStream {
  private taken = 0;

  private constructor(
    private readonly app: TestApp,
    private readonly companyUuid: string,
    private readonly source: TestEventSource,
  ) {}

  static async open(app: TestApp, cookie: string, companyUuid: string): Promise<ChangeStream> {
    const source = openEventSource(`${app.url}/api/events`, cookie);
    await source.opened;
    return new ChangeStream(app, companyUuid, source);
  }

  async next(n: number): Promise<RealtimeEvent[]> {
    const all = await this.source.waitFor(this.taken + n);
    const out = all.slice(this.taken, this.taken + n).map((m) => JSON.parse(m) as RealtimeEvent);
    this.taken += n;
    return out;
  }

  /** Nothing arrived since the last read. */
  async expectQuiet(): Promise<void> {
    const marker: RealtimeEvent = { companyUuid: this.companyUuid, projectUuid: randomUUID(), entityType: 'task', entityUuid: randomUUID(), action: 'updated' };
    this.app.get(EventBus).publish('change', marker);
    expect(await this.next(1)).toEqual([marker]);
  }

  /** Exactly these events of the caller's company, in publication order, and nothing after them. */
  async expectExactly(events: ExpectedEvent[]): Promise<void> {
    expect(await this.next(events.length)).toEqual(events.map((e) => ({ companyUuid: this.companyUuid, ...e })));
    await this.expectQuiet();
  }

  close(): void {
    this.source.close();
  }
}

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
  app: TestApp;
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
  const app = await startTestApp();
  const identity = new IdentityFactory(app.db.dataSource);
  const tenant = async (companyUuid: string): Promise<Tenant> => {
    const user = await identity.user(companyUuid);
    const http = new HttpClient(app.url);
    await http.login(user.email, user.password);
    return { companyUuid, user, actor: userActor(user), http };
  };
  const a = await tenant((await identity.company()).uuid);
  const b = await tenant((await identity.company()).uuid);
  const runner = createHarness(app.db.dataSource).runner;
  return {
    app,
    a,
    b,
    anon: new HttpClient(app.url),
    identity,
    seed: new DomainFactory(app.db.dataSource, runner),
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
