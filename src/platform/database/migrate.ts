import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
/** Any fixed number: two processes starting at once on one PostgreSQL database take turns. */
const MIGRATION_LOCK = 727_001;

export function migrationFiles(): { name: string; sql: string }[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f))
    .sort()
    .map((name) => ({ name, sql: readFileSync(join(MIGRATIONS_DIR, name), 'utf8') }));
}

/**
 * Applies every migration file not yet recorded, each in its own transaction, in name order.
 * Files are tracked by name, so a migration merged with a lower number than one already applied
 * is still applied. See docs/decisions.md ("Migrations").
 */
/** What migrating needs of a store: statements run one after another under an advisory lock. */
interface MigratableStore {
  withAdvisoryLock<T>(lockId: number, fn: (sql: { exec(sql: string): Promise<void>; query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]> }) => Promise<T>): Promise<T>;
}

export async function migrate(store: MigratableStore): Promise<string[]> {
  return store.withAdvisoryLock(MIGRATION_LOCK, async (sql) => {
    const applied: string[] = [];
    await sql.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set((await sql.query<{ name: string }>('SELECT name FROM schema_migrations')).map((r) => r.name));
    for (const file of migrationFiles()) {
      if (done.has(file.name)) continue;
      try {
        await sql.exec(`BEGIN;\n${file.sql}\n;\nINSERT INTO schema_migrations (name) VALUES ('${file.name}');\nCOMMIT;`);
      } catch (err) {
        await sql.exec('ROLLBACK').catch(() => {});
        throw new Error(`migration ${file.name} failed: ${(err as Error).message}`);
      }
      applied.push(file.name);
    }
    return applied;
  });
}
