import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import Module from 'node:module';
import { resolve } from 'node:path';

declare global {
  var __svcEmbeddedStop: (() => Promise<void>) | undefined;
  var __svcPrepared: boolean | undefined;
  var __svcTemplateDb: string | undefined;
}

/**
 * Jest loads global setup as CommonJS, where the ESM-style `./x.js` specifiers of the sources do not resolve to
 * `./x.ts`; map them before loading anything of ours.
 */
function mapJsToTs(): void {
  const mod = Module as unknown as { _resolveFilename: (req: string, ...rest: unknown[]) => string };
  const original = mod._resolveFilename;
  mod._resolveFilename = function (request: string, ...rest: unknown[]): string {
    try {
      return original.call(this, request, ...rest);
    } catch (err) {
      if (request.startsWith('.') && request.endsWith('.js')) return original.call(this, request.slice(0, -3) + '.ts', ...rest);
      throw err;
    }
  };
}

/**
 * DATABASE_URL set (CI): use that server; the template and per-file databases are named after its database.
 * Unset (a developer's `npm test`): an embedded PostgreSQL under .test-data/.
 */
export default async function globalSetup(): Promise<void> {
  if (globalThis.__svcPrepared) return;
  globalThis.__svcPrepared = true;
  mapJsToTs();
  const { MIGRATIONS } = await import('../../migrations/index.js');
  const { ENTITIES } = await import('../../src/entities.js');
  const { createDataSource, runMigrations } = await import('../../src/shared/database/data-source.js');
  const { startEmbedded } = await import('../../src/shared/database/embedded-postgres.js');
  const { adminQuery, withDatabase } = await import('./test-database.js');
  let admin = process.env.DATABASE_URL;
  if (!admin) {
    const dir = resolve('.test-data');
    mkdirSync(dir, { recursive: true });
    const embedded = await startEmbedded(dir);
    globalThis.__svcEmbeddedStop = embedded.stop;
    admin = embedded.url;
  }
  // A run id in every name: two runs against one server (two checkouts, CI beside a developer) never collide.
  const base = `${new URL(admin).pathname.slice(1) || 'postgres'}_${randomBytes(3).toString('hex')}`;
  const template = `${base}_tpl`;
  await adminQuery(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`, admin);
  await adminQuery(`CREATE DATABASE "${template}"`, admin);
  const ds = createDataSource({ url: withDatabase(admin, template), entities: ENTITIES, migrations: MIGRATIONS });
  await ds.initialize();
  await runMigrations(ds);
  await ds.destroy();
  process.env.SVC_TEST_ADMIN_URL = admin;
  process.env.SVC_TEST_TEMPLATE_DB = template;
  globalThis.__svcTemplateDb = template;
}
