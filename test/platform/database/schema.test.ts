import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as schema from '../../../src/platform/database/schema/index.ts';
import type { Store } from '../../../src/platform/database/database.ts';
import { migrate } from '../../../src/platform/database/migrate.ts';
import { freshStore } from '../../helpers/store.ts';
import { getTableConfig, is, PgTable } from '../../../src/platform/database/drizzle.ts';

let store: Store;
beforeAll(async () => {
  store = await freshStore();
});
afterAll(() => store.close());

describe('migrations and the Drizzle schema', () => {
  it('describe the same tables and columns', async () => {
    const tables = Object.values(schema).filter((t) => is(t, PgTable)) as InstanceType<typeof PgTable>[];
    expect(tables.length).toBeGreaterThan(5);
    for (const table of tables) {
      const config = getTableConfig(table);
      const rows = await store.sql.query<{ column_name: string; is_nullable: string }>(
        `SELECT column_name, is_nullable FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1`,
        [config.name],
      );
      const actual = new Map(rows.map((r) => [r.column_name, r.is_nullable === 'YES']));
      for (const column of config.columns) {
        expect(actual.has(column.name), `${config.name}.${column.name} exists`).toBe(true);
        expect(actual.get(column.name), `${config.name}.${column.name} nullability`).toBe(!column.notNull);
      }
    }
  });

  it('are applied once: a second run applies nothing', async () => {
    expect(await migrate(store)).toEqual([]);
  });
});
