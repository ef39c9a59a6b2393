import type { Store } from '../../src/platform/database/database.ts';
import { translateDatabaseError } from '../../src/platform/database/errors.ts';

/**
 * A driver's error as the database layer reports it to the services (a fault injected where the
 * store's methods are replaced is the store's report).
 */
export function asReported(driverError: unknown): Error {
  return translateDatabaseError(driverError) as Error;
}

/** What the database layer reports when PostgreSQL cannot be reached. */
export function unreachableDatabaseError(): Error {
  return asReported(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
}

/** What it reports when the connection ended in the middle of a statement (which may have taken effect). */
export function connectionLostError(): Error {
  return asReported(new Error('Connection terminated unexpectedly'));
}

/** Runs `fn` while every raw SQL query of `store` fails as if the database were unreachable. */
export async function withUnreachableSql<T>(store: Store, fn: () => Promise<T>): Promise<T> {
  const query = store.sql.query;
  store.sql.query = async () => {
    throw unreachableDatabaseError();
  };
  try {
    return await fn();
  } finally {
    store.sql.query = query;
  }
}
