import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/database.ts';
import { freshStore } from '../helpers/store.ts';

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
