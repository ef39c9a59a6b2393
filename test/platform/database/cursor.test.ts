import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/platform/database/database.ts';
import { testDatabaseUrl } from '../../helpers/database-url.ts';
import { freshStore } from '../../helpers/store.ts';

/** Server-side cursors (PostgreSQL only; PGlite has none and reads by keyset pages). */
describe.runIf(testDatabaseUrl())('Store.openCursor', () => {
  let store: Store;
  beforeAll(async () => {
    store = await freshStore();
  });
  afterAll(() => store.close());

  it('reads a result in batches, then gives its connection back', async () => {
    const cursor = await store.openCursor!<{ n: number }>('SELECT n FROM generate_series(1, 2500) AS n ORDER BY n', []);
    const sizes: number[] = [];
    for (;;) {
      const rows = await cursor.read(1000);
      if (rows.length === 0) break;
      sizes.push(rows.length);
    }
    await cursor.close();
    expect(sizes).toEqual([1000, 1000, 500]);
  });

  it('cancels a statement still running when closed, without waiting for it', async () => {
    const cursor = await store.openCursor!('SELECT pg_sleep(60) AS slept', []);
    const read = cursor.read(10);
    read.catch(() => {});
    const running = () => store.sql.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'SELECT pg_sleep(60)%'");
    await expect.poll(async () => (await running())[0]!.n, { timeout: 5_000 }).toBe(1);
    const started = Date.now();
    await cursor.close();
    expect(Date.now() - started).toBeLessThan(2_500);
    await expect(read).rejects.toThrow();
    await expect.poll(async () => (await running())[0]!.n, { timeout: 5_000 }).toBe(0);
  });

  it('closes twice without harm, and reads nothing once closed', async () => {
    const cursor = await store.openCursor!<{ n: number }>('SELECT 1 AS n', []);
    await cursor.close();
    await cursor.close();
    expect(await cursor.read(5)).toEqual([]);
  });
});
