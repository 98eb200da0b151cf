import type { Pool, QueryResultRow } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';

/** A statement with a process-wide unique name: PostgreSQL parses and plans it once per pooled connection. */
export interface PreparedStatement {
  name: string;
  text: string;
}

/**
 * Runs `statement` and returns its rows, exactly as `em.query` would (pg's row parsing either way). Outside a
 * transaction (the data source's own manager) it goes straight to the pg pool as a named prepared statement,
 * skipping TypeORM's query runner and the server's parse/plan; inside one it runs on the transaction's connection.
 * For hot reads (the per-request key lookup, the task record). Statements list their columns (no `*`), so a later
 * migration adding columns does not invalidate them; a pooler in transaction mode must support protocol-level
 * prepared statements (PgBouncer ≥ 1.21 with max_prepared_statements).
 */
export async function preparedQuery<T extends QueryResultRow>(em: EntityManager, statement: PreparedStatement, values: unknown[]): Promise<T[]> {
  if (em.queryRunner) return em.query(statement.text, values);
  const pool = (em.connection as DataSource & { driver: { master?: Pool } }).driver.master;
  if (!pool) return em.query(statement.text, values);
  const result = await pool.query<T>({ name: statement.name, text: statement.text, values });
  return result.rows;
}
