import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openPglite, openPostgres } from '../../src/platform/database/database.ts';
import { migrate } from '../../src/platform/database/migrate.ts';
import { testDatabaseUrl, withDatabase } from './database-url.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** PGlite: a migrated data directory dump that each test file loads. */
    pgliteTemplate: string;
    /** PostgreSQL: a migrated template database that each test file copies. */
    pgTemplate: string;
  }
}

/**
 * Migrates one database for the whole run; each test file then starts from a copy of it
 * (a fresh PGlite from the dump, or CREATE DATABASE ... TEMPLATE on PostgreSQL).
 */
export default async function setup(project: TestProject) {
  const url = testDatabaseUrl();
  if (url) {
    const template = `payments_tmpl_${process.pid}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${template}`);
    await admin.query(`CREATE DATABASE ${template}`);
    const store = openPostgres(withDatabase(url, template), 2);
    await migrate(store);
    await store.close();
    project.provide('pgTemplate', template);
    project.provide('pgliteTemplate', '');
    return async () => {
      const leftovers = await admin.query<{ datname: string }>(
        `SELECT datname FROM pg_database WHERE datname LIKE 'payments_t_${process.pid}_%' OR datname = $1`,
        [template],
      );
      for (const { datname } of leftovers.rows) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
      await admin.end();
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'payments-test-'));
  const store = await openPglite();
  await migrate(store);
  const dump = await store.dump!();
  const file = join(dir, 'template.tar');
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  await store.close();
  project.provide('pgliteTemplate', file);
  project.provide('pgTemplate', '');
  return () => rmSync(dir, { recursive: true, force: true });
}
