import { DataSource, type MixedList, type EntitySchema, type MigrationInterface } from 'typeorm';
import { SnakeNamingStrategy } from './snake-naming.strategy.js';

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
type EntityList = MixedList<Function | string | EntitySchema>;
type MigrationList = (new () => MigrationInterface)[];

export interface DataSourceParams {
  url: string;
  entities: EntityList;
  migrations: MigrationList;
  poolSize?: number;
  applicationName?: string;
  /**
   * Bounds every wait on the database: the server cancels a statement after it (`statement_timeout`), the client
   * gives up on an answer a second later (`query_timeout`: the server itself may not answer — frozen, partitioned),
   * and taking a connection from the pool waits at most as long. Unset (migrations): only the connect timeout.
   */
  statementTimeoutMs?: number;
}

/** Slack of the client-side query timeout over the server-side statement timeout. */
const CLIENT_TIMEOUT_SLACK_MS = 1000;

export function createDataSource(params: DataSourceParams): DataSource {
  return new DataSource({
    type: 'postgres',
    url: params.url,
    entities: params.entities,
    migrations: params.migrations,
    migrationsTableName: 'migrations',
    synchronize: false,
    migrationsRun: false,
    namingStrategy: new SnakeNamingStrategy(),
    logging: false,
    extra: {
      max: params.poolSize ?? 20,
      connectionTimeoutMillis: params.statementTimeoutMs ?? 5000,
      application_name: params.applicationName ?? 'svc',
      // A dropped server must not leave requests hanging for minutes.
      keepAlive: true,
      ...(params.statementTimeoutMs
        ? {
            statement_timeout: params.statementTimeoutMs,
            query_timeout: params.statementTimeoutMs + CLIENT_TIMEOUT_SLACK_MS,
            // A transaction whose client went away (or stalled) does not hold its locks for long.
            idle_in_transaction_session_timeout: Math.max(10_000, params.statementTimeoutMs * 2),
          }
        : {}),
    },
  });
}

/** Arbitrary constant: all instances share it, so only one runs migrations at a time. */
const MIGRATION_LOCK_KEY = 724_310_117;

/** Runs pending migrations under a session advisory lock; returns the names applied. */
export async function runMigrations(dataSource: DataSource): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await runner.release();
  }
}

export async function revertLastMigration(dataSource: DataSource): Promise<void> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await dataSource.undoLastMigration({ transaction: 'each' });
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await runner.release();
  }
}
