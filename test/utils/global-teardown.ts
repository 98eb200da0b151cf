import pg from 'pg';

/** Runs after every test of the run (jest calls each project's teardown then); the first call does the work. */
export default async function globalTeardown(): Promise<void> {
  const template = globalThis.__svcTemplateDb;
  globalThis.__svcTemplateDb = undefined;
  const admin = process.env.SVC_TEST_ADMIN_URL;
  if (template && admin) {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`).finally(() => client.end());
  }
  const stop = globalThis.__svcEmbeddedStop;
  globalThis.__svcEmbeddedStop = undefined;
  if (stop) await stop();
}
