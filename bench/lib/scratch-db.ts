/**
 * A scratch database for one benchmark run: a fresh database on DATABASE_URL's server (dropped afterwards), or an
 * embedded PostgreSQL in a temporary directory when DATABASE_URL is unset. Migrations are applied by openDatabase.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Logger } from 'pino';
import { loadConfig } from '../../src/config/config.js';
import { openDatabase } from '../../src/database.js';
import { removeEmbeddedData } from '../../src/shared/database/embedded-postgres.js';

export type OpenedDatabase = Awaited<ReturnType<typeof openDatabase>>;

export interface ScratchDatabase {
  db: OpenedDatabase;
  /** Connection URL of the scratch database, for the service under test. */
  url: string;
  cleanup: () => Promise<void>;
}

/**
 * The bench's own connection (fills, VACUUM, EXPLAIN) is not a service request: it gets a 10-minute statement
 * timeout instead of the service's 5 s default, which a 100,000-row fill batch can exceed on a small machine.
 */
const SETUP_ENV = { DB_STATEMENT_TIMEOUT_MS: '600000' };

export async function scratchDatabase(logger: Logger, label: string): Promise<ScratchDatabase> {
  if (process.env.DATABASE_URL) {
    const admin = process.env.DATABASE_URL;
    const name = `svc_bench_${label}_${randomBytes(4).toString('hex')}`;
    const run = async (sql: string) => {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(sql).finally(() => c.end());
    };
    await run(`CREATE DATABASE "${name}"`);
    const u = new URL(admin);
    u.pathname = `/${name}`;
    const db = await openDatabase(loadConfig({ ...SETUP_ENV, DATABASE_URL: u.toString() }), logger);
    return {
      db,
      url: u.toString(),
      cleanup: async () => {
        await db.close();
        await run(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), `svc-bench-${label}-`));
  const db = await openDatabase(loadConfig({ ...SETUP_ENV, DATA_DIR: dir }), logger);
  return {
    db,
    url: db.embedded!.url,
    cleanup: async () => {
      await db.close();
      await removeEmbeddedData(dir);
    },
  };
}
