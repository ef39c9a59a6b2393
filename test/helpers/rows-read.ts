import type { SqlClient } from '../../src/platform/database/database.ts';

/**
 * Rows of `table` PostgreSQL has read, by scans and index fetches, as its statistics say: a test
 * of a statement's plan counts them before and after it.
 */
export async function rowsRead(sql: SqlClient, table: string): Promise<number> {
  // A backend reports its counts at most once a second, or when told to (the pool hands this
  // statement the connection the last one used: the statement's under test).
  await sql.query('SELECT pg_stat_force_next_flush()');
  const [row] = await sql.query<{ n: string }>('SELECT (coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0))::text AS n FROM pg_stat_user_tables WHERE relname = $1', [table]);
  return Number(row!.n);
}
