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

/**
 * One md5 per table over its rows as JSON (minus volatile columns), in a deterministic order.
 *
 * Hashing every row costs tens of milliseconds on a grown fuzz database, and most cases write nothing; so each table
 * also gets a cheap fingerprint — its row count and the newest `xmin` among its rows — and its md5 is recomputed only
 * when that changed. The fingerprint moves with every write that could change the md5: an INSERT or UPDATE leaves a
 * row version stamped with the writing transaction's id, which is newer than every id already in the table (ids are
 * handed out in order and the earlier writers have committed), and a DELETE alone lowers the count.
 */
export class DbChecksum {
  private sql: { fingerprints: string; hashes: Map<string, string> } | null = null;
  private readonly last = new Map<string, { fingerprint: string; sum: string }>();
  /** How many table hashes were computed (the rest reused); for the suites' outcome report. */
  recomputed = 0;

  constructor(private readonly db: DataSource) {}

  private async statements(): Promise<{ fingerprints: string; hashes: Map<string, string> }> {
    if (this.sql) return this.sql;
    const tables = (await this.db.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
    )) as Array<{ table_name: string }>;
    if (tables.length < 5) throw new Error(`only ${tables.length} tables found`);
    const fingerprints = tables
      .map(({ table_name: t }) => `SELECT '${t}' AS t, count(*)::text || '/' || coalesce(max(x.xmin::text::bigint), 0)::text AS f FROM "${t}" x`)
      .join('\nUNION ALL\n');
    const hashes = new Map(
      tables.map(({ table_name: t }) => {
        const drop = (VOLATILE_COLUMNS[t] ?? []).map((c) => ` - '${c}'`).join('');
        return [t, `SELECT count(*)::int AS n, md5(coalesce(string_agg(r, E'\\n' ORDER BY r), '')) AS h FROM (SELECT (to_jsonb(x)${drop})::text AS r FROM "${t}" x) s`];
      }),
    );
    this.sql = { fingerprints, hashes };
    return this.sql;
  }

  /** table → `<rows>:<md5>` */
  async take(): Promise<Record<string, string>> {
    const sql = await this.statements();
    const fingerprints = (await this.db.query(sql.fingerprints)) as Array<{ t: string; f: string }>;
    const out: Record<string, string> = {};
    for (const { t, f } of fingerprints) {
      const known = this.last.get(t);
      if (known?.fingerprint === f) {
        out[t] = known.sum;
        continue;
      }
      const [{ n, h }] = (await this.db.query(sql.hashes.get(t)!)) as Array<{ n: number; h: string }>;
      this.recomputed++;
      // The fingerprint read before the hash: a write racing the hash moves it, and the next call hashes again.
      this.last.set(t, { fingerprint: f, sum: `${n}:${h}` });
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
