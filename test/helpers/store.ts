import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { openPglite, openPostgres, type Store } from '../../src/platform/database/database.ts';
import { testDatabaseUrl, withDatabase } from './database-url.ts';

/**
 * A fresh, migrated database for one test file: PGlite loaded from the run's template dump, or
 * a PostgreSQL database copied from the run's template database (dropped again on close).
 */
export async function freshStore(): Promise<Store> {
  const url = testDatabaseUrl();
  if (!url) {
    const dump = readFileSync(inject('pgliteTemplate'));
    return openPglite({ loadDataDir: new Blob([dump]) });
  }
  const db = await freshDatabase(url);
  const store = openPostgres(db.url, 20);
  const close = store.close.bind(store);
  return Object.assign(store, {
    close: async () => {
      await close();
      await db.drop();
    },
  });
}

/**
 * PostgreSQL runs only: a new database copied from the run's template, for tests that start the
 * service or the CLI as a process. `drop` removes it.
 */
export async function freshDatabase(url: string): Promise<{ url: string; drop(): Promise<void> }> {
  const template = inject('pgTemplate');
  const name = `${template.replace('payments_tmpl_', 'payments_t_')}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    // CREATE DATABASE ... TEMPLATE needs the template to have no other session: retry briefly.
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
        break;
      } catch (err) {
        if (attempt >= 50 || !/being accessed by other users/.test((err as Error).message)) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } finally {
    await admin.end();
  }
  return {
    url: withDatabase(url, name),
    async drop() {
      const dropper = new pg.Client({ connectionString: url });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await dropper.end();
    },
  };
}

/**
 * For tests that run the service or the CLI as processes, on this run's kind of store: a
 * temporary DATA_DIR, plus a fresh PostgreSQL database (DATABASE_URL) on PostgreSQL runs.
 * `cleanup` drops both.
 */
export async function processStore(prefix: string): Promise<{ env: Record<string, string>; dataDir: string; cleanup(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), `payments-${prefix}-`));
  const url = testDatabaseUrl();
  const db = url ? await freshDatabase(url) : undefined;
  return {
    env: db ? { DATA_DIR: dataDir, DATABASE_URL: db.url } : { DATA_DIR: dataDir },
    dataDir,
    async cleanup() {
      await db?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
