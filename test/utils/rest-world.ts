import { randomUUID } from 'node:crypto';
import type { Actor } from '../../src/shared/auth/actor.js';
import type { TransactionRunner } from '../../src/shared/database/transaction-runner.js';
import { EventBus } from '../../src/shared/event-bus/event-bus.port.js';
import type { RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { DomainFactory } from '../factories/domain.factory.js';
import type { IdentityFactory, SeededUser } from '../factories/identity.factory.js';
import { userActor, World } from './world.js';
import type { HttpClient, HttpResult } from './http.js';
import { openEventSource, type TestEventSource } from './sse.js';

export type ExpectedEvent = Omit<RealtimeEvent, 'companyUuid'>;

/**
 * Change events as a browser sees them: a real EventSource on `/api/events`, read in order. "Nothing else arrived"
 * is proven with a marker published on the app's bus: events of a finished call were published before its
 * response (after commit, synchronously), so the marker must be the very next frame.
 */
export class ChangeStream {
  private taken = 0;

  private constructor(
    private readonly app: World,
    private readonly companyUuid: string,
    private readonly source: TestEventSource,
  ) {}

  static async open(app: World, cookie: string, companyUuid: string): Promise<ChangeStream> {
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
    seed: new DomainFactory(app.ds, runner),
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
