import type { DataSource } from 'typeorm';

/**
 * Columns that legitimately change while a request is only *read* or refused, so they are left out of the checksum:
 * - `user_session.last_seen_at`: written by the session lookup of any cookie request (at most once a minute);
 * - `agent_api_key.last_used_at`: written by the key lookup of any agent request (at most once a minute).
 * Everything else — every other column of every table of the public schema, migrations table included — must be
 * byte-identical before and after a refused request.
 */
export const VOLATILE_COLUMNS: Record<string, string[]> = {
  user_session: ['last_seen_at'],
  agent_api_key: ['last_used_at'],
};

/** The table the write counters live in (created by `DbChecksum.take`, left out of the checksum). */
const COUNTERS = 'fuzz_table_writes';

/**
 * One md5 per table over its rows as JSON (minus volatile columns), in a deterministic order.
 *
 * Hashing every row costs milliseconds per table on a grown fuzz database, and most cases write nothing; so the first
 * snapshot installs a statement-level trigger on every table that counts its write statements (INSERT, UPDATE, DELETE,
 * TRUNCATE) in `fuzz_table_writes`, in the writer's own transaction, and a table's md5 is recomputed only when its
 * count moved. Every write that could change a hash moves the count and commits with it (a rolled-back write rolls
 * back its count too); a statement that matched no row moves it as well, which only costs a recompute.
 */
export class DbChecksum {
  private sql: Map<string, string> | null = null;
  private readonly last = new Map<string, { writes: string; sum: string }>();
  /** How many table hashes were computed (the rest reused); for the suites' outcome report. */
  recomputed = 0;

  constructor(private readonly db: DataSource) {}

  /** The hash statement of every table; on the first call, the counting triggers. */
  private async statements(): Promise<Map<string, string>> {
    if (this.sql) return this.sql;
    const tables = (
      (await this.db.query(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
      )) as Array<{ table_name: string }>
    ).filter((t) => t.table_name !== COUNTERS);
    if (tables.length < 5) throw new Error(`only ${tables.length} tables found`);
    await this.db.query(`CREATE TABLE IF NOT EXISTS ${COUNTERS} (t text PRIMARY KEY, n bigint NOT NULL)`);
    await this.db.query(`CREATE OR REPLACE FUNCTION ${COUNTERS}_count() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO ${COUNTERS} (t, n) VALUES (TG_TABLE_NAME, 1) ON CONFLICT (t) DO UPDATE SET n = ${COUNTERS}.n + 1;
        RETURN NULL;
      END $$`);
    for (const { table_name: t } of tables) {
      await this.db.query(`CREATE OR REPLACE TRIGGER ${COUNTERS}_w AFTER INSERT OR UPDATE OR DELETE ON "${t}" FOR EACH STATEMENT EXECUTE FUNCTION ${COUNTERS}_count()`);
      await this.db.query(`CREATE OR REPLACE TRIGGER ${COUNTERS}_t AFTER TRUNCATE ON "${t}" FOR EACH STATEMENT EXECUTE FUNCTION ${COUNTERS}_count()`);
    }
    this.sql = new Map(
      tables.map(({ table_name: t }) => {
        const drop = (VOLATILE_COLUMNS[t] ?? []).map((c) => ` - '${c}'`).join('');
        return [t, `SELECT count(*)::int AS n, md5(coalesce(string_agg(r, E'\\n' ORDER BY r), '')) AS h FROM (SELECT (to_jsonb(x)${drop})::text AS r FROM "${t}" x) s`];
      }),
    );
    return this.sql;
  }

  /** table → `<rows>:<md5>` */
  async take(): Promise<Record<string, string>> {
    const sql = await this.statements();
    const counts = new Map(((await this.db.query(`SELECT t, n::text AS n FROM ${COUNTERS}`)) as Array<{ t: string; n: string }>).map((r) => [r.t, r.n]));
    const out: Record<string, string> = {};
    for (const [t, statement] of sql) {
      const writes = counts.get(t) ?? '0';
      const known = this.last.get(t);
      if (known?.writes === writes) {
        out[t] = known.sum;
        continue;
      }
      // The count is read before the hash: a write racing the hash moves it again, and the next call hashes again.
      const [{ n, h }] = (await this.db.query(statement)) as Array<{ n: number; h: string }>;
      this.recomputed++;
      this.last.set(t, { writes, sum: `${n}:${h}` });
      out[t] = `${n}:${h}`;
    }
    return out;
  }

  /** The tables whose checksum differs between two snapshots, as problem lines. */
  static diff(before: Record<string, string>, after: Record<string, string>): string[] {
    const out: string[] = [];
    for (const t of new Set([...Object.keys(before), ...Object.keys(after)])) {
      if (before[t] !== after[t]) out.push(`table "${t}" changed (${before[t]} -> ${after[t]})`);
    }
    return out;
  }
}
