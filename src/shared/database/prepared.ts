import type { Pool, PoolClient, QueryResultRow } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';

/** A statement with a process-wide unique name: PostgreSQL parses and plans it once per pooled connection. */
export interface PreparedStatement {
  name: string;
  text: string;
}

/**
 * Runs `statement` and returns its rows, exactly as `em.query` would (pg's row parsing either way), as a named
 * prepared statement — skipping TypeORM's query runner and the server's parse/plan: outside a transaction (the data
 * source's own manager) straight on the pg pool, inside one on the transaction's own connection (a mutation's lock,
 * its writes and the record it answers with). For hot statements (the per-request key lookup, the task record, a
 * task's lock and edit). Statements list their columns (no `*`), so a later migration adding columns does not
 * invalidate them; a pooler in transaction mode must support protocol-level prepared statements (PgBouncer ≥ 1.21
 * with max_prepared_statements). Errors are pg's own, not wrapped in TypeORM's QueryFailedError.
 */
export async function preparedQuery<T extends QueryResultRow>(em: EntityManager, statement: PreparedStatement, values: unknown[]): Promise<T[]> {
  if (em.queryRunner) {
    const runner = em.queryRunner as typeof em.queryRunner & { databaseConnection?: PoolClient };
    // A runner not connected yet (or released) takes TypeORM's path, which connects it or refuses.
    if (runner.isReleased || !runner.databaseConnection) return em.query(statement.text, values);
    const result = await runner.databaseConnection.query<T>({ name: statement.name, text: statement.text, values });
    return result.rows;
  }
  const pool = (em.connection as DataSource & { driver: { master?: Pool } }).driver.master;
  if (!pool) return em.query(statement.text, values);
  const result = await pool.query<T>({ name: statement.name, text: statement.text, values });
  return result.rows;
}
