import type { Store } from '../../src/platform/database/database.ts';

/** What the driver throws when PostgreSQL cannot be reached. */
export function unreachableDatabaseError(): Error {
  return Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
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
