import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Store, openPostgres } from '../../../src/platform/database/database.ts';
import { testDatabaseUrl } from '../../helpers/database-url.ts';
import { freshStore } from '../../helpers/store.ts';

/** Settings every connection of the service runs with, on this run's kind of store. */
let store: Store;
beforeAll(async () => {
  store = await freshStore();
});
afterAll(() => store.close());

describe('connection settings', () => {
  it('turn synchronized sequential scans off on every connection (a name search reads the directory from its first page)', async () => {
    // Several at once: each pooled connection, not only the first.
    const rows = await Promise.all(Array.from({ length: 6 }, () => store.sql.query<{ synchronize_seqscans: string }>('SHOW synchronize_seqscans')));
    expect(rows.map((r) => r[0]!.synchronize_seqscans)).toEqual(Array(6).fill('off'));
  });
});

describe('dates and times (a time audit)', () => {
  it('are ISO and UTC on every connection', async () => {
    const rows = await Promise.all(
      Array.from({ length: 6 }, () =>
        store.sql.query<{ datestyle: string; timezone: string; intervalstyle: string; t: string }>(
          "SELECT current_setting('DateStyle') AS datestyle, current_setting('TimeZone') AS timezone, current_setting('IntervalStyle') AS intervalstyle, '2026-11-21T17:00:00Z'::timestamptz::text AS t",
        ),
      ),
    );
    for (const [row] of rows) expect(row).toEqual({ datestyle: 'ISO, MDY', timezone: 'UTC', intervalstyle: 'postgres', t: '2026-11-21 17:00:00+00' });
  });

  it('read a date by raw SQL as yyyy-MM-dd text on both stores (PGlite made it a Date, printed as the day before west of UTC)', async () => {
    const [row] = await store.sql.query<{ d: unknown }>("SELECT '2026-11-22'::date AS d");
    expect(row!.d).toBe('2026-11-22');
  });

  it.skipIf(!testDatabaseUrl())('stay so whatever PGOPTIONS, the database or the role says (PostgreSQL)', async () => {
    const before = process.env.PGOPTIONS;
    process.env.PGOPTIONS = '-c DateStyle=German -c TimeZone=America/New_York -c IntervalStyle=sql_standard';
    const hostile = openPostgres(testDatabaseUrl()!, 2);
    try {
      const [row] = await hostile.sql.query<{ datestyle: string; timezone: string; d: string; t: Date }>(
        "SELECT current_setting('DateStyle') AS datestyle, current_setting('TimeZone') AS timezone, '2026-11-21'::date AS d, '2026-11-21T17:00:00Z'::timestamptz AS t",
      );
      expect(row!.datestyle).toBe('ISO, MDY');
      expect(row!.timezone).toBe('UTC');
      expect(row!.d).toBe('2026-11-21');
      expect(new Date(row!.t).toISOString()).toBe('2026-11-21T17:00:00.000Z');
    } finally {
      await hostile.close();
      if (before === undefined) delete process.env.PGOPTIONS;
      else process.env.PGOPTIONS = before;
    }
  });
});
