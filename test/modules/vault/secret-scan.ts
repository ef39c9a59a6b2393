import type { Store } from '../../../src/platform/database/database.ts';

/**
 * Every row of every table in the database, as text (`row::text` covers every column of every
 * type), plus the names of the tables scanned. Used to prove that no plain secret is stored.
 */
export async function dumpAllTables(store: Store): Promise<{ tables: string[]; text: string }> {
  const tables = (
    await store.sql.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
    )
  ).map((r) => r.table_name);
  const parts: string[] = [];
  for (const table of tables) {
    const rows = await store.sql.query<{ row: string }>(`SELECT t::text AS row FROM "${table}" t`);
    for (const r of rows) parts.push(`${table}: ${r.row}`);
  }
  return { tables, text: parts.join('\n') };
}

/**
 * The secrets from `secrets` found in `haystack`, also with the separators people write
 * (4242 4242 ..., 4242-4242-...). Returns what was found, so a failure says which one.
 */
export function findSecrets(haystack: string, secrets: string[]): string[] {
  const found: string[] = [];
  for (const s of secrets) {
    const spaced = s.replace(/(\d{4})(?=\d)/g, '$1 ');
    const dashed = s.replace(/(\d{4})(?=\d)/g, '$1-');
    if ([s, spaced, dashed].some((v) => haystack.includes(v))) found.push(s);
  }
  return found;
}
