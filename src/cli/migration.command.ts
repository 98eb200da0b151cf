import type { DataSource } from 'typeorm';
import { revertLastMigration, runMigrations } from '../shared/database/data-source.js';
import type { CliCommand } from './cli-command.js';

async function latestMigration(ds: DataSource): Promise<string | null> {
  const exists: Array<{ present: boolean }> = await ds.query(`SELECT to_regclass('migrations') IS NOT NULL AS present`);
  if (!exists[0]?.present) return null;
  const rows: Array<{ name: string }> = await ds.query(`SELECT name FROM migrations ORDER BY timestamp DESC, id DESC LIMIT 1`);
  return rows[0]?.name ?? null;
}

/** `npm run migration:run` / `migration:revert`: the same advisory-locked runner as start-up. */
export const MIGRATION_COMMANDS: CliCommand[] = [
  {
    path: ['migration', 'run'],
    synopsis: '',
    options: {},
    migrate: false,
    run: async ({ dataSource }) => ({ applied: await runMigrations(dataSource) }),
  },
  {
    path: ['migration', 'revert'],
    synopsis: '',
    options: {},
    migrate: false,
    run: async ({ dataSource }) => {
      const latest = await latestMigration(dataSource);
      if (latest) await revertLastMigration(dataSource);
      return { reverted: latest };
    },
  },
];
