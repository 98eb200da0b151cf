import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { Client } from '@modelcontextprotocol/client';
import type { DynamicModule, LoggerService, Type } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { Test, type TestingModule } from '@nestjs/testing';
import { pino, type Logger as PinoLogger } from 'pino';
import type { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../migrations/index.js';
import { ENTITIES } from '../../src/entities.js';
import { createDataSource } from '../../src/shared/database/data-source.js';
import { loadConfig, type AppConfig } from '../../src/config/config.js';
import type { RunningService } from '../../src/bootstrap.js';
import type { Clock } from '../../src/shared/clock.js';
import { CoreModule } from '../../src/shared/core.module.js';
import { Lifecycle } from '../../src/shared/lifecycle.js';
import { USER_PERMISSIONS, type Actor } from '../../src/shared/auth/actor.js';
import { effectivePermissions, type Permission, type Preset } from '../../src/shared/auth/permissions.js';
import { TransactionRunner } from '../../src/shared/database/transaction-runner.js';
import { EventBus } from '../../src/shared/event-bus/event-bus.port.js';
import { MUTATION_EVENTS, type MutationCommitted, type RealtimeEvent } from '../../src/shared/event-bus/events.js';
import type { MentionSource } from '../../src/shared/events/domain-events.js';
import { createLogger, PinoNestLogger } from '../../src/shared/logging/logger.js';
import { MetricsService } from '../../src/shared/metrics/metrics.service.js';
import { StreamLog } from '../../src/shared/stream-log/stream-log.js';
import { CollaborationModule } from '../../src/modules/collaboration/index.js';
import { DocumentsModule } from '../../src/modules/documents/index.js';
import { IdeasModule } from '../../src/modules/ideas/index.js';
import { IdentityModule, PasswordHasher, type AgentRecord } from '../../src/modules/identity/index.js';
import { ProjectsModule, ProjectService } from '../../src/modules/projects/index.js';
import { ProposalsModule } from '../../src/modules/proposals/index.js';
import { SessionsModule } from '../../src/modules/sessions/index.js';
import { TasksModule } from '../../src/modules/tasks/index.js';
import { DomainFactory, type IdeaState } from '../factories/domain.factory.js';
import { IdentityFactory, type SeededUser } from '../factories/identity.factory.js';
import { TaskFactory } from '../factories/task.factory.js';
import type { GroupRecord } from '../../src/modules/projects/index.js';
import type { IdeaRecord } from '../../src/modules/ideas/index.js';
import type { NewTaskInput, TaskStatus, TaskSummary } from '../../src/modules/tasks/index.js';
import { HttpClient } from './http.js';
import type { ToolResult } from './mcp-client.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

/**
 * The one test-world builder (README "Testing").
 *
 * - `World.database(opts)`: a fresh database (cloned from the migrated template) and a `TestingModule` compiled by
 *   Nest's DI from the kernel and the modules under test (`DOMAIN_MODULES` unless `opts.modules`) — for integration
 *   tests of services: `world.get(TaskService)`.
 * - `World.start(opts)`: the whole service on a random port against its own fresh database — for e2e and fuzz
 *   tests, reached over REST (`login`, `http`) and MCP (`agent`, `mcp`, `call`, `ok`); `world.get` reaches the app's
 *   providers. Its seeders go through a compiled context of their own, so seeding never shows on the app's streams.
 *
 * Both seed through the DI-built services (`company`, `user`, `agent`, `project`, and the domain factories built on
 * `world.get`), and `close()` releases everything the world opened (clients, contexts, the app, the database).
 */
export interface WorldOptions {
  /** Environment of the app's configuration, e.g. `{ SSE_HEARTBEAT_MS: '200' }`. */
  env?: Record<string, string>;
  /** Another started world whose database this app shares (a second instance); closing this one keeps the database. */
  sharing?: World;
  /** The clock of the app (`World.start`) or of the compiled context (`World.database`); the system clock otherwise. */
  clock?: Clock;
  /** `World.database` only: the modules under test, compiled with the kernel (default `DOMAIN_MODULES`). */
  modules?: readonly WorldModule[];
  /** `World.database` only: the compiled context's logger, Nest's own lines included (silent otherwise). */
  logger?: PinoLogger;
  /**
   * `World.database` only: the context's mutations take stream positions as the app's do (tests of notifications and
   * streams). By default they take none, so seeding never reaches the streams of a service on the same database.
   */
  logStreams?: boolean;
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

/** A short random hex suffix (`bytes` random bytes) for names and emails that must not collide within a database. */
export const unique = (bytes = 3): string => randomBytes(bytes).toString('hex');

export class World {
  /** Every log line the app wrote, parsed (started worlds). */
  readonly logs: Array<Record<string, unknown>> = [];
  readonly ids: IdentityFactory;
  readonly h: Harness;
  private readonly clients: Client[] = [];
  private running: RunningService | null = null;
  private appConfig: AppConfig | null = null;
  private domainFactory?: DomainFactory;
  private taskFactory?: TaskFactory;

  private constructor(
    readonly db: TestDatabase,
    /** The compiled context: the services under test (`World.database`) or the seeders' (`World.start`). */
    readonly context: TestingModule,
    private readonly ownsDb = true,
  ) {
    this.h = harnessOf(db.dataSource, context);
    this.ids = new IdentityFactory((token) => this.seeding(token));
  }

  /** A fresh database and a compiled context of the modules under test; no app. */
  static async database(opts: Pick<WorldOptions, 'modules' | 'clock' | 'env' | 'logger' | 'logStreams'> = {}): Promise<World> {
    const db = await createTestDatabase();
    return new World(db, await compiled(db, { ...opts, modules: opts.modules ?? DOMAIN_MODULES }));
  }

  /**
   * A compiled context of the modules under test on a database the test opened itself (another server, a service
   * process's database); `close()` closes the context and leaves the database open.
   */
  static async over(dataSource: DataSource, opts: Pick<WorldOptions, 'modules' | 'clock' | 'env'> = {}): Promise<World> {
    const db: TestDatabase = { name: '', url: '', dataSource, drop: async () => undefined, dropLater: async () => undefined };
    return new World(db, await compileContext(dataSource, { modules: opts.modules ?? DOMAIN_MODULES, clock: opts.clock, env: opts.env }), false);
  }

  /** The whole service on a random port against its own fresh database. */
  static async start(opts: WorldOptions = {}): Promise<World> {
    const db = opts.sharing ? opts.sharing.db : await createTestDatabase();
    const w = new World(db, opts.sharing ? await compileContext(db.dataSource, { modules: DOMAIN_MODULES }) : await compiled(db, { modules: DOMAIN_MODULES }), !opts.sharing);
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
    // Loaded here, not at the top: a file of `World.database()` tests never pays for the whole app's modules.
    const { startService } = await import('../../src/bootstrap.js');
    w.running = await startService(config, logger, { database: { dataSource, embedded: null, close: async () => void (await dataSource.destroy()) }, clock: opts.clock });
    w.appConfig = config;
    return w;
  }

  get ds(): DataSource {
    return this.db.dataSource;
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

  /** A provider: the started app's, or in a database world the compiled context's. */
  get<T>(token: abstract new (...args: never[]) => T): T {
    if (this.running) return this.running.app.get(token as never, { strict: false }) as T;
    return this.context.get(token as never, { strict: false }) as T;
  }

  /** A provider of the seeders' context (the compiled context of either kind of world). */
  seeding<T>(token: abstract new (...args: never[]) => T): T {
    return this.context.get(token as never, { strict: false }) as T;
  }

  /** The value of one series of the started app's `/metrics` (`name` or `name{labels}` exactly as exposed), 0 when absent. */
  async metric(series: string): Promise<number> {
    const line = (await (await fetch(`${this.url}/metrics`)).text()).split('\n').find((l) => l.startsWith(`${series} `));
    return line ? Number(line.slice(series.length + 1)) : 0;
  }

  /** Records every change event the world's bus (the app's, or the compiled context's) publishes; returns the (live) list. */
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
  async agent(companyUuid: string, ownerUuid: string, opts: { preset?: string; permissions?: string[]; name?: string; headers?: Record<string, string> } = {}): Promise<WorldAgent> {
    const { agent, key } = await this.ids.agent(companyUuid, ownerUuid, { preset: opts.preset, permissions: opts.permissions, name: opts.name ?? `Agent ${unique()}` });
    const client = this.running ? await this.mcp(key, opts.headers) : (undefined as unknown as Client);
    return { uuid: agent.uuid, name: agent.name, key, record: agent, actor: agentActor(agent, companyUuid), client };
  }

  /** A project created through the projects service of the seeders' context. */
  async project(actor: Actor, opts: { name?: string; description?: string; groupUuid?: string } = {}): Promise<string> {
    return (await this.seeding(ProjectService).create(actor, { name: opts.name ?? `Project ${unique()}`, ...opts })).uuid;
  }

  /** Seeders of projects, groups and ideas in any state (test/factories/domain.factory.ts), on the seeders' context. */
  get domain(): DomainFactory {
    this.domainFactory ??= new DomainFactory(this);
    return this.domainFactory;
  }

  /** Seeders of tasks in any status and of sessions (test/factories/task.factory.ts), on the seeders' context. */
  get tasks(): TaskFactory {
    this.taskFactory ??= new TaskFactory(this);
    return this.taskFactory;
  }

  /** A project group. */
  group(actor: Actor, opts: { name?: string; description?: string } = {}): Promise<GroupRecord> {
    return this.domain.group(actor, opts);
  }

  /** An idea driven into `state` (default open) through the ideas services. */
  idea(actor: Actor, projectUuid: string, opts: Parameters<DomainFactory['idea']>[2] & { state?: IdeaState } = {}): Promise<IdeaRecord> {
    return this.domain.idea(actor, projectUuid, opts);
  }

  /** An open task with two required acceptance criteria and one optional one, through the tasks service. */
  task(actor: Actor, projectUuid: string, overrides: Partial<NewTaskInput> = {}): Promise<TaskSummary> {
    return this.tasks.task(actor, projectUuid, overrides);
  }

  /** A task created by `creator` and moved to `status` along the legal path, `assignee` doing the assignee's steps. */
  taskIn(status: TaskStatus, creator: Actor, projectUuid: string, assignee: Actor, overrides: Partial<NewTaskInput> = {}): Promise<string> {
    return this.tasks.taskIn(status, { admin: creator, projectUuid }, assignee, overrides);
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
    const { mcpClient } = await import('./mcp-client.js');
    const client = await mcpClient(this.url, key, headers);
    this.clients.push(client);
    return client;
  }

  async call<T = any>(who: { client: Client } | Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult<T>> {
    const { callTool } = await import('./mcp-client.js');
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
    await this.context.close();
    if (this.ownsDb) await this.db.dropLater();
  }
}

// --- the harness and actors ------------------------------------------------------------------------------------

/**
 * The kernel pieces of a world's compiled context (`World.database()`'s, or a started world's seeding context): its
 * transaction runner, its event emitter (every `@OnEvent` of the compiled modules bound by Nest) and its bus. `events`
 * records every change event published after commit.
 */
export interface Harness {
  db: DataSource;
  emitter: EventEmitter2;
  bus: EventBus;
  runner: TransactionRunner;
  events: RealtimeEvent[];
  /** Clears recorded events and returns what was recorded. */
  takeEvents(): RealtimeEvent[];
  /** Calls `listener` with what every committed mutation recorded (activities, texts, new mentions). */
  onCommitted(listener: (m: MutationCommitted) => void): void;
}

/**
 * A world context's mutations take no stream positions: seeding stays invisible to the streams of a service on the
 * same database, as the tests written around it expect (a logged position would reach those streams by repair).
 */
class UnloggedStreamLog extends StreamLog {
  override async append(_em: unknown, _stream: unknown, entries: readonly unknown[]): Promise<string[]> {
    return entries.map(() => 'seed-0');
  }
}

/**
 * The users a world seeds get scrypt's lowest cost the service accepts (N = 1024, not 16384): seeding and logging in
 * hundreds of users would otherwise cost about a minute of CPU per run. Verification reads the parameters stored with
 * each hash, so logins run the service's own code; the service's parameters are checked where it writes hashes itself
 * (src/modules/identity/domain/credentials.spec.ts, the CLI's `user create` in test/system/cli.test.ts).
 */
class SeedingPasswordHasher extends PasswordHasher {
  protected override readonly params = { N: 1024, r: 8, p: 1, keylen: 64 };
}

/** A Nest module class (or dynamic module) a world compiles. */
export type WorldModule = Type<unknown> | DynamicModule;

/**
 * The domain modules a world compiles by default: identity, collaboration, projects, ideas, tasks, sessions, proposals
 * and documents — everything seeding needs, and none of the after-commit reactions (notifications, realtime) that
 * would write behind a test's back. A test of another module passes it in `modules`.
 */
export const DOMAIN_MODULES: readonly WorldModule[] = [IdentityModule, CollaborationModule, ProjectsModule, IdeasModule, TasksModule, SessionsModule, ProposalsModule, DocumentsModule];

const silentNest: LoggerService = { log: () => undefined, error: () => undefined, warn: () => undefined };

/**
 * Compiles a `TestingModule` of the kernel (`CoreModule`, on `ds`) and `modules` from Nest's DI, as the app wires
 * them, and initialises it (`@OnEvent` handlers bound, lifecycle hooks run).
 */
async function compileContext(
  ds: DataSource,
  opts: { modules: readonly WorldModule[]; clock?: Clock; env?: Record<string, string>; logger?: PinoLogger; logStreams?: boolean },
): Promise<TestingModule> {
  const config = loadConfig({ ...opts.env });
  const logger = opts.logger ?? pino({ level: 'silent' });
  const core = CoreModule.forRoot({ config, dataSource: ds, logger, metrics: new MetricsService(), lifecycle: new Lifecycle(), clock: opts.clock });
  // Nest's own log lines (an `@OnEvent` handler's failure, say) go to the given logger, as the app's do.
  const builder = Test.createTestingModule({ imports: [core, ...opts.modules] }).setLogger(opts.logger ? new PinoNestLogger(opts.logger) : silentNest);
  if (!opts.logStreams) builder.overrideProvider(StreamLog).useClass(UnloggedStreamLog);
  builder.overrideProvider(PasswordHasher).useClass(SeedingPasswordHasher);
  const moduleRef = await builder.compile();
  await moduleRef.init();
  return moduleRef;
}

/** The context on a fresh test database, which is dropped if the context fails to compile (a bad module list, say). */
async function compiled(db: TestDatabase, opts: Parameters<typeof compileContext>[1]): Promise<TestingModule> {
  try {
    return await compileContext(db.dataSource, opts);
  } catch (err) {
    await db.drop().catch(() => undefined);
    throw err;
  }
}

function harnessOf(ds: DataSource, ctx: TestingModule): Harness {
  const emitter = ctx.get(EventEmitter2, { strict: false });
  const bus = ctx.get(EventBus, { strict: false });
  const events: RealtimeEvent[] = [];
  bus.subscribe('change', (e) => events.push(e));
  return {
    db: ds,
    emitter,
    bus,
    runner: ctx.get(TransactionRunner, { strict: false }),
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
