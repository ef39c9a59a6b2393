import pg from 'pg';

/** The PostgreSQL server benchmarks use: BENCH_DATABASE_URL, DATABASE_URL, or the local one. */
export function benchServerUrl(): string {
  return process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
}

/** Runs `fn` with the URL of a new, empty database on that server, dropped afterwards. */
export async function withThrowawayDatabase<T>(name: string, fn: (url: string) => Promise<T>): Promise<T> {
  const server = benchServerUrl();
  const database = `payments_bench_${name}_${process.pid}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${database}`);
  const url = new URL(server);
  url.pathname = `/${database}`;
  try {
    return await fn(url.toString());
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => {});
    await admin.end();
  }
}
