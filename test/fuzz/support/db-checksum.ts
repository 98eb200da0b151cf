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

/** One md5 per table over its rows as JSON (minus volatile columns), in a deterministic order. */
export class DbChecksum {
  private sql: string | null = null;

  constructor(private readonly db: DataSource) {}

  private async statement(): Promise<string> {
    if (this.sql) return this.sql;
    const tables = (await this.db.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
    )) as Array<{ table_name: string }>;
    if (tables.length < 5) throw new Error(`only ${tables.length} tables found`);
    const parts = tables.map(({ table_name: t }) => {
      const drop = (VOLATILE_COLUMNS[t] ?? []).map((c) => ` - '${c}'`).join('');
      return `SELECT '${t}' AS t, count(*)::int AS n, md5(coalesce(string_agg(r, E'\\n' ORDER BY r), '')) AS h FROM (SELECT (to_jsonb(x)${drop})::text AS r FROM "${t}" x) s`;
    });
    this.sql = parts.join('\nUNION ALL\n');
    return this.sql;
  }

  /** table → `<rows>:<md5>` */
  async take(): Promise<Record<string, string>> {
    const rows = (await this.db.query(await this.statement())) as Array<{ t: string; n: number; h: string }>;
    return Object.fromEntries(rows.map((r) => [r.t, `${r.n}:${r.h}`]));
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
