/** The rows of a raw `db.execute`, whichever driver ran it (node-postgres and PGlite answer an object with `rows`). */
export function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}
