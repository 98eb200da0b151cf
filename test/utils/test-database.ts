import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../migrations/index.js';
import { ENTITIES } from '../../src/entities.js';
import { createDataSource } from '../../src/shared/database/data-source.js';

/**
 * Test databases: migrations run once into a template database (global setup); each test file then gets its own
 * database with CREATE DATABASE … TEMPLATE — isolation without truncation.
 */
export function adminUrl(): string {
  const url = process.env.SVC_TEST_ADMIN_URL;
  if (!url) throw new Error('SVC_TEST_ADMIN_URL is not set: run tests through jest (global setup prepares the server)');
  return url;
}

export function templateName(): string {
  return process.env.SVC_TEST_TEMPLATE_DB!;
}

export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function adminQuery(sql: string, url = adminUrl()): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  name: string;
  url: string;
  dataSource: DataSource;
  drop(): Promise<void>;
  /**
   * Closes the pool and drops the database in the background: DROP DATABASE waits for a checkpoint (seconds on a busy
   * machine), which the next test file need not wait for. The global teardown drops whatever is left of the run.
   */
  dropLater(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `${templateName().replace(/_tpl$/, '')}_t_${randomBytes(5).toString('hex')}`;
  for (let attempt = 0; ; attempt++) {
    try {
      await adminQuery(`CREATE DATABASE "${name}" TEMPLATE "${templateName()}"`);
      break;
    } catch (err) {
      // Concurrent copies of one template can collide; retry briefly.
      if (attempt >= 20 || !/being accessed by other users/.test(String(err))) throw err;
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
    }
  }
  const url = withDatabase(adminUrl(), name);
  const dataSource = createDataSource({ url, entities: ENTITIES, migrations: MIGRATIONS, poolSize: 10 });
  await dataSource.initialize();
  return {
    name,
    url,
    dataSource,
    drop: async () => {
      if (dataSource.isInitialized) await dataSource.destroy();
      await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
    dropLater: async () => {
      if (dataSource.isInitialized) await dataSource.destroy();
      void adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
    },
  };
}
