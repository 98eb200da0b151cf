import pg from 'pg';

async function dropDatabase(admin: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).finally(() => client.end());
}

/** Runs after every test of the run (jest calls each project's teardown then); the first call does the work. */
export default async function globalTeardown(): Promise<void> {
  const template = globalThis.__svcTemplateDb;
  globalThis.__svcTemplateDb = undefined;
  const admin = process.env.SVC_TEST_ADMIN_URL;
  if (template && admin) {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    try {
      await client.query(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`);
      // The run's per-file databases whose background drop (TestDatabase.dropLater) had not finished when the workers
      // ended, a few at a time (their checkpoints coalesce).
      const base = template.replace(/_tpl$/, '');
      const left = (await client.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE starts_with(datname, $1)`, [`${base}_t_`])).rows.map((r) => r.datname);
      for (let i = 0; i < left.length; i += 4) {
        await Promise.all(left.slice(i, i + 4).map((name) => dropDatabase(admin, name)));
      }
    } finally {
      await client.end();
    }
  }
  const stop = globalThis.__svcEmbeddedStop;
  globalThis.__svcEmbeddedStop = undefined;
  if (stop) await stop();
}
