import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { replaceFileAtomically } from './atomic-file.ts';
import { makePrivateDir } from './private-dir.ts';

/** Where a server records which database it uses, in its data directory. */
export const DATABASE_FILE = 'database.json';

/**
 * The database a configuration names, as a data directory records it: the embedded one, or a
 * PostgreSQL server's host, port and database (never its user or password).
 */
export function databaseOf(databaseUrl: string | undefined): string {
  if (!databaseUrl) return 'embedded PGlite';
  try {
    const url = new URL(databaseUrl);
    return `PostgreSQL ${url.hostname || 'localhost'}:${url.port || '5432'}/${decodeURIComponent(url.pathname.slice(1)) || '(default database)'}`;
  } catch {
    return 'PostgreSQL (DATABASE_URL)';
  }
}

/** Records in the data directory which database the server there uses. */
export function recordDatabase(dataDir: string, databaseUrl: string | undefined): void {
  makePrivateDir(dataDir);
  const database = databaseOf(databaseUrl);
  if (recordedDatabase(dataDir) === database) return;
  replaceFileAtomically(join(dataDir, DATABASE_FILE), `${JSON.stringify({ database }, null, 2)}\n`, 0o600);
}

/** The database a server recorded in this data directory, if one did. */
export function recordedDatabase(dataDir: string): string | undefined {
  const path = join(dataDir, DATABASE_FILE);
  if (!existsSync(path)) return undefined;
  try {
    const { database } = JSON.parse(readFileSync(path, 'utf8')) as { database?: unknown };
    return typeof database === 'string' ? database : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Why a command must not run with this configuration on this data directory: the server there
 * uses another database (an operator's command without DATABASE_URL on a PostgreSQL server's
 * directory would read, and write, a new empty embedded one). Undefined when they agree or no
 * server recorded one.
 */
export function otherDatabase(dataDir: string, databaseUrl: string | undefined): string | undefined {
  const recorded = recordedDatabase(dataDir);
  const mine = databaseOf(databaseUrl);
  if (recorded === undefined || recorded === mine) return undefined;
  const hint = databaseUrl ? 'set DATABASE_URL to the server\'s database (or unset it for the embedded one)' : 'set DATABASE_URL to the server\'s database';
  return `the server of ${dataDir} uses ${recorded}, and this command would use ${mine}: ${hint}`;
}
