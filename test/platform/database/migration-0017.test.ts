import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleFiles } from '../../../src/modules/charities/import-samples.ts';
import { queried } from '../../helpers/charity-search.ts';
import { createTestContext, type TestContext } from '../../helpers/context.ts';

/** 0017 moves what name searches read to charity_names, on a directory that already holds charities. */
const MIGRATION_0017 = readFileSync(join(import.meta.dirname, '../../../src/platform/database/migrations/0017_charity_names.sql'), 'utf8');
/** The directory as 0016 left it: the name indexes on charities, no charity_names. */
const BEFORE_0017 = `
DROP TABLE charity_names;
CREATE INDEX charities_name_words ON charities USING gin (string_to_array(search_name, ' '));
CREATE INDEX charities_name_beginning ON charities (registry, search_name);`;

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
  await ctx.services.charityImport.importFiles(sampleFiles().filter((f) => /irs-eo-bmf-DC|cra-/.test(f)));
}, 120_000);
afterAll(() => ctx?.close());

describe('migration 0017 on a directory made before it', () => {
  it('gives every charity its entry in charity_names, moves the name indexes, and name searches find the same charities', async () => {
    const search = async () => (await queried(ctx.services.charities).search({ Name: 'amercan red cross' })).results.map((r) => r.id);
    const before = await search();
    expect(before.length).toBeGreaterThan(0);
    await ctx.store.sql.exec(BEFORE_0017);
    await ctx.store.sql.exec(MIGRATION_0017);
    const [counts] = await ctx.store.sql.query<{ charities: number | string; names: number | string; same: number | string }>(
      `SELECT (SELECT count(*) FROM charities) AS charities, (SELECT count(*) FROM charity_names) AS names,
              (SELECT count(*) FROM charities c JOIN charity_names n ON n.id = c.id AND n.registry = c.registry
                 AND n.registry_number = c.registry_number AND n.search_name = c.search_name) AS same`,
    );
    expect(Number(counts!.charities)).toBeGreaterThan(1_000);
    expect(Number(counts!.names)).toBe(Number(counts!.charities));
    expect(Number(counts!.same)).toBe(Number(counts!.charities));
    const indexes = (await ctx.store.sql.query<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE tablename IN ('charities', 'charity_names') ORDER BY 1`)).map((r) => r.indexname);
    expect(indexes).toEqual([
      'charities_city', 'charities_group_central', 'charities_pkey', 'charities_state', 'charities_tax_id',
      'charity_names_beginning', 'charity_names_pkey', 'charity_names_words',
    ]);
    expect(await search()).toEqual(before);
  });

  it('has the table vacuumed by the next import, even one that changes nothing (name ranges then read from the index alone)', async () => {
    const report = await ctx.services.charityImport.importFiles(sampleFiles().filter((f) => /irs-eo-bmf-DC|cra-/.test(f)));
    expect(report.totals).toMatchObject({ inserted: 0, updated: 0 });
    const [names] = await ctx.store.sql.query<{ pages: number; visible: number }>(`SELECT relpages AS pages, relallvisible AS visible FROM pg_class WHERE relname = 'charity_names'`);
    expect(names!.pages).toBeGreaterThan(0);
    expect(names!.visible).toBe(names!.pages);
  });
});
