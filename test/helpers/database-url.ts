/** The PostgreSQL server the suite runs against, when DATABASE_URL is set; PGlite otherwise. */
export function testDatabaseUrl(): string | undefined {
  return process.env.DATABASE_URL?.trim() || undefined;
}

/** The same server, another database. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
