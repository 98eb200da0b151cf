import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import { MIGRATIONS } from '../migrations/index.js';
import type { AppConfig } from './config/config.js';
import { ENTITIES } from './entities.js';
import { createDataSource, runMigrations } from './shared/database/data-source.js';
import { startEmbedded, type EmbeddedDatabase } from './shared/database/embedded-postgres.js';

/*
 * The service's database, opened on its own: the service's bootstrap uses it, and so do the CLI and the benchmarks,
 * which need no HTTP application (importing bootstrap.ts would load every module, controller and the MCP SDK).
 */

export interface Database {
  dataSource: DataSource;
  embedded: EmbeddedDatabase | null;
  close(): Promise<void>;
}

/** DATABASE_URL when set, else the embedded server of DATA_DIR; then migrations under the advisory lock. */
export async function openDatabase(
  config: AppConfig,
  logger: Logger,
  opts: { migrate?: boolean; poolSize?: number; statementTimeoutMs?: number } = {},
): Promise<Database> {
  let embedded: EmbeddedDatabase | null = null;
  let url = config.databaseUrl;
  if (!url) {
    logger.info({ dataDir: config.dataDir }, 'starting embedded PostgreSQL');
    embedded = await startEmbedded(config.dataDir, (msg) => logger.debug({ component: 'embedded-postgres' }, msg));
    url = embedded.url;
  }
  const dataSource = createDataSource({
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    poolSize: opts.poolSize,
    statementTimeoutMs: opts.statementTimeoutMs ?? config.dbStatementTimeoutMs,
  });
  try {
    // Migrations run on a connection of their own, without the statement timeouts: waiting for another instance's
    // migration lock, or a long migration, is expected there.
    if (opts.migrate !== false) await migrate(url, logger);
    await dataSource.initialize();
    // A dropped connection raises 'error' on the idle client; without a handler it would crash the process.
    (dataSource.driver as unknown as { master?: { on(e: string, l: (err: Error) => void): void } }).master?.on('error', (err) =>
      logger.warn({ err: err.message }, 'database connection error'),
    );
  } catch (err) {
    if (dataSource.isInitialized) await dataSource.destroy().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    throw err;
  }
  return {
    dataSource,
    embedded,
    close: async () => {
      if (dataSource.isInitialized) await dataSource.destroy().catch((err: Error) => logger.warn({ err: err.message }, 'closing the pool failed'));
      await embedded?.stop();
    },
  };
}

async function migrate(url: string, logger: Logger): Promise<void> {
  const dataSource = createDataSource({ url, entities: ENTITIES, migrations: MIGRATIONS, poolSize: 2, applicationName: 'svc-migrations' });
  await dataSource.initialize();
  try {
    const applied = await runMigrations(dataSource);
    if (applied.length) logger.info({ migrations: applied }, 'migrations applied');
  } finally {
    await dataSource.destroy().catch(() => undefined);
  }
}
