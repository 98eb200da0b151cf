import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { Client } from '@modelcontextprotocol/client';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { pino } from 'pino';
import type { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../migrations/index.js';
import { ENTITIES } from '../../src/entities.js';
import { createDataSource } from '../../src/shared/database/data-source.js';
import { loadConfig, type AppConfig } from '../../src/config/config.js';
import { startService, type RunningService } from '../../src/bootstrap.js';
import type { Clock } from '../../src/shared/clock.js';
import { USER_PERMISSIONS, type Actor } from '../../src/shared/auth/actor.js';
import { effectivePermissions, type Permission, type Preset } from '../../src/shared/auth/permissions.js';
import { TransactionRunner } from '../../src/shared/database/transaction-runner.js';
import { EventBus } from '../../src/shared/event-bus/event-bus.port.js';
import { EMITTER_DEFAULTS } from '../../src/shared/event-bus/emitter-event-bus.js';
import { MUTATION_EVENTS, type MutationCommitted, type RealtimeEvent } from '../../src/shared/event-bus/events.js';
import type { MentionSource } from '../../src/shared/events/domain-events.js';
import { InProcessEventBus } from '../../src/shared/event-bus/in-process-event-bus.js';
import { createLogger } from '../../src/shared/logging/logger.js';
import { MetricsService } from '../../src/shared/metrics/metrics.service.js';
import { StreamLog } from '../../src/shared/stream-log/stream-log.js';
import { activityService, projectService } from './domain-services.js';
import type { AgentRecord } from '../../src/modules/identity/index.js';
import { IdentityFactory, type SeededUser } from '../factories/identity.factory.js';
import { HttpClient } from './http.js';
import { callTool, mcpClient, type ToolResult } from './mcp-client.js';
import { bindOnEvent } from './on-event.js';
import { SessionReactions } from '../../src/modules/sessions/session.reactions.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';
import { SchedulerRegistry } from '@nestjs/schedule';

/**
 * The one test-world builder.
 *
 * - `World.database()`: a fresh database (cloned from the migrated template) with a hand-built harness — for
 *   service-level integration tests that construct the services they test.
 * - `World.start(opts)`: the whole service on a random port against its own fresh database — for e2e and fuzz
 *   tests, reached over REST (`login`, `http`) and MCP (`agent`, `mcp`, `call`, `ok`).
 *
 * Both seed companies, users, agents (with keys) and projects through the same helpers, and `close()` releases
 * everything the world opened (clients, the app, the database).
 */
export interface WorldOptions {
  /** Environment of the app's configuration (`World.start` only), e.g. `{ SSE_HEARTBEAT_MS: '200' }`. */
  env?: Record<string, string>;
  /** Another started world whose database this app shares (a second instance); closing this one keeps the database. */
  sharing?: World;
  /** The app's clock (`World.start` only), e.g. a `ManualClock` a test moves; the system clock otherwise. */
  clock?: Clock;
}

/** An agent seeded by the world: its record, its raw key, its Actor and, in a started world, an SDK client. */
export interface WorldAgent {
  uuid: string;
  name: string;
  key: string;
  record: AgentRecord;
  actor: Actor;
  client: Client;
}

const unique = (): string => randomBytes(3).toString('hex');

export class World {
  /** Every log line the app wrote, parsed (started worlds). */
  readonly logs: Array<Record<string, unknown>> = [];
  readonly ids: IdentityFactory;
  private readonly clients: Client[] = [];
  private harness?: Harness;
  private running: RunningService | null = null;
  private appConfig: AppConfig | null = null;

  private constructor(
    readonly db: TestDatabase,
    private readonly ownsDb = true,
  ) {
    this.ids = new IdentityFactory(db.dataSource);
  }

  /** A fresh database and a hand-built harness (`h`); no app. */
  static async database(): Promise<World> {
    return new World(await createTestDatabase());
  }

  /** The whole service on a random port against its own fresh database. */
  static async start(opts: WorldOptions = {}): Promise<World> {
    const w = opts.sharing ? new World(opts.sharing.db, false) : new World(await createTestDatabase());
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', DATABASE_URL: w.db.url, ...opts.env });
    const logs = w.logs;
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) logs.push(JSON.parse(line) as Record<string, unknown>);
        cb();
      },
    });
    const logger = createLogger(config.logLevel, sink);
    // The app gets a pool of its own, configured as the service configures its pool (statement timeouts included);
    // the test's own pool (`w.ds`, factories, direct queries) stays apart, as a separate process would be.
    const dataSource = await openAppPool(w.db, config.dbStatementTimeoutMs);
    w.running = await startService(config, logger, { database: { dataSource, embedded: null, close: async () => void (await dataSource.destroy()) }, clock: opts.clock });
    w.appConfig = config;
    return w;
  }

  get ds(): DataSource {
    return this.db.dataSource;
  }

  /**
   * Kernel pieces built by hand on this world's database (created on first use): a real in-process bus on its own
   * EventEmitter2, so seeding through `h.runner` never shows on a started app's streams.
   */
  get h(): Harness {
    this.harness ??= createHarness(this.ds);
    return this.harness;
  }

  get started(): boolean {
    return this.running !== null;
  }

  get service(): RunningService {
    if (!this.running) throw new Error('World.database() has no app: use World.start()');
    return this.running;
  }

  get url(): string {
    return this.service.url;
  }

  get config(): AppConfig {
    if (!this.appConfig) throw new Error('World.database() has no app: use World.start()');
    return this.appConfig;
  }

  /** A provider of the started app. */
  get<T>(token: abstract new (...args: never[]) => T): T {
    return this.service.app.get(token as never, { strict: false }) as T;
  }

  /** Records every change event the started app's bus publishes; returns the (live) list. */
  recordEvents(): RealtimeEvent[] {
    const events: RealtimeEvent[] = [];
    this.get(EventBus).subscribe('change', (e) => events.push(e));
    return events;
  }

  // --- seeding -------------------------------------------------------------------------------------------------

  company(name?: string): Promise<{ uuid: string; name: string }> {
    return this.ids.company(name);
  }

  user(companyUuid: string, opts: Parameters<IdentityFactory['user']>[1] = {}): Promise<SeededUser> {
    return this.ids.user(companyUuid, opts);
  }

  /** An agent with a key; in a started world, also an SDK client on that key (closed with the world). */
  async agent(companyUuid: string, ownerUuid: string, opts: { preset?: string; name?: string; headers?: Record<string, string> } = {}): Promise<WorldAgent> {
    const { agent, key } = await this.ids.agent(companyUuid, ownerUuid, { preset: opts.preset, name: opts.name ?? `Agent ${unique()}` });
    const client = this.running ? await this.mcp(key, opts.headers) : (undefined as unknown as Client);
    return { uuid: agent.uuid, name: agent.name, key, record: agent, actor: agentActor(agent, companyUuid), client };
  }

  /** A project created through the projects service on the harness runner. */
  async project(actor: Actor, opts: { name?: string; description?: string; groupUuid?: string } = {}): Promise<string> {
    return (await projectService(this.ds, this.h.runner).create(actor, { name: opts.name ?? `Project ${unique()}`, ...opts })).uuid;
  }

  // --- access --------------------------------------------------------------------------------------------------

  /** An anonymous REST client of the started app. */
  http(): HttpClient {
    return new HttpClient(this.url);
  }

  /** A REST client logged in as `user`. */
  async login(user: Pick<SeededUser, 'email' | 'password'>): Promise<HttpClient> {
    const http = this.http();
    await http.login(user.email, user.password);
    return http;
  }

  /** An SDK client on `key` (closed with the world). */
  async mcp(key: string, headers: Record<string, string> = {}): Promise<Client> {
    const client = await mcpClient(this.url, key, headers);
    this.clients.push(client);
    return client;
  }

  call<T = any>(who: { client: Client } | Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult<T>> {
    return callTool<T>('client' in who ? who.client : who, name, args);
  }

  /** A successful call's result data (fails the test with the error otherwise). */
  async ok<T = any>(who: { client: Client } | Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
    const res = await this.call<T>(who, name, args);
    if (res.isError) throw new Error(`${name} failed: ${JSON.stringify(res.data)}`);
    return res.data;
  }

  async close(): Promise<void> {
    for (const c of this.clients.splice(0)) await c.close().catch(() => undefined);
    if (this.running) await this.running.stop();
    if (this.ownsDb) await this.db.drop();
  }
}

// --- the harness and actors ------------------------------------------------------------------------------------

/**
 * The kernel pieces a domain service needs, built by hand for integration tests (real PostgreSQL, real
 * in-process bus on a real EventEmitter2, with collaboration's audit writer bound as the app binds it). `events`
 * records every change event published after commit.
 */
export interface Harness {
  db: DataSource;
  emitter: EventEmitter2;
  bus: InProcessEventBus;
  runner: TransactionRunner;
  events: RealtimeEvent[];
  /** Clears recorded events and returns what was recorded. */
  takeEvents(): RealtimeEvent[];
  /** Calls `listener` with what every committed mutation recorded (activities, texts, new mentions). */
  onCommitted(listener: (m: MutationCommitted) => void): void;
}

/** The stream log outside a Nest app (no background pruning). */
export function testStreamLog(db: DataSource): StreamLog {
  return new StreamLog(db, loadConfig({}), pino({ level: 'silent' }), new SchedulerRegistry());
}

/**
 * The harness's mutations (seeding) take no stream positions: they stay invisible to the streams of a service on the
 * same database, as the tests written around them expect (a logged position would reach those streams by repair).
 */
class UnloggedStreamLog extends StreamLog {
  override async append(_em: unknown, _stream: unknown, entries: readonly unknown[]): Promise<string[]> {
    return entries.map(() => 'seed-0');
  }
}

export function createHarness(db: DataSource): Harness {
  const emitter = new EventEmitter2(EMITTER_DEFAULTS);
  const bus = new InProcessEventBus((err) => {
    throw err;
  }, emitter);
  const logger = pino({ level: 'silent' });
  const runner = new TransactionRunner(db, bus, emitter, new MetricsService(), new UnloggedStreamLog(db, loadConfig({}), logger, new SchedulerRegistry()), logger);
  bindOnEvent(emitter, activityService(db), new SessionReactions());
  const events: RealtimeEvent[] = [];
  bus.subscribe('change', (e) => events.push(e));
  return {
    db,
    emitter,
    bus,
    runner,
    events,
    takeEvents: () => events.splice(0, events.length),
    onCommitted: (listener) => {
      emitter.on(MUTATION_EVENTS.committed, listener);
    },
  };
}

export function userActor(user: Pick<SeededUser, 'uuid' | 'companyUuid' | 'name'>): Actor {
  return { type: 'user', uuid: user.uuid, companyUuid: user.companyUuid, name: user.name, ownerUuid: null, permissions: USER_PERMISSIONS };
}

export function agentActor(agent: Pick<AgentRecord, 'uuid' | 'name' | 'preset' | 'permissions' | 'owner'>, companyUuid: string): Actor {
  return {
    type: 'agent',
    uuid: agent.uuid,
    companyUuid,
    name: agent.name,
    ownerUuid: agent.owner.uuid,
    permissions: new Set(effectivePermissions(agent.preset as Preset, agent.permissions as Permission[])),
  };
}

/** The app's pool on a test database, with the service's statement timeouts. */
async function openAppPool(db: TestDatabase, statementTimeoutMs: number): Promise<DataSource> {
  const ds = createDataSource({ url: db.url, entities: ENTITIES, migrations: MIGRATIONS, poolSize: 10, statementTimeoutMs });
  await ds.initialize();
  return ds;
}

/** The texts a committed mutation wrote (its `text.written` events), in order. */
export function textsOf(m: MutationCommitted): MentionSource[] {
  return m.events.flatMap((e) => (e.name === 'text.written' ? [e.payload] : []));
}
