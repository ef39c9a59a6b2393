import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { charityId } from '../../../src/domain/charities/charity.ts';
import type { ImportReport } from '../../../src/modules/charities/import-service.ts';
import { SAMPLE_DIR, sampleFiles } from '../../../src/modules/charities/import-samples.ts';
import { CharityImportService } from '../../../src/modules/charities/import-service.ts';
import { CharityImportRepository, CopySink } from '../../../src/modules/charities/import-repository.ts';
import { OperatorInputError } from '../../../src/platform/errors.ts';
import { openPostgres } from '../../../src/platform/database/database.ts';
import { testDatabaseUrl } from '../../helpers/database-url.ts';
import { freshDatabase } from '../../helpers/store.ts';
import { charitySearch, queried } from '../../helpers/charity-search.ts';
import { type TestContext, createTestContext } from '../../helpers/context.ts';

let ctx: TestContext;
let first: ImportReport;
let dir: string;

const sample = (name: string) => join(SAMPLE_DIR, name);
/** Data rows of a file, counted independently of the importer: non-empty lines after the header. */
const dataRows = (path: string) => readFileSync(path, 'latin1').split(/\r?\n/).slice(1).filter((l) => l.trim() !== '').length;

interface Row {
  id: string;
  registry: string;
  registry_number: string;
  ein: string;
  name: string;
  address1: string | null;
  address2: string | null;
  city: string | null;
  state: string | null;
  zip: string | null;
  country: string | null;
  eligible: boolean;
}
const byNumber = async (registryNumber: string) =>
  (await ctx.store.sql.query<Row>('SELECT * FROM charities WHERE registry_number = $1', [registryNumber]))[0];

beforeAll(async () => {
  ctx = await createTestContext();
  dir = mkdtempSync(join(tmpdir(), 'charity-import-'));
  // Every shipped file, once for the whole test file (the slow part on PGlite).
  first = await ctx.services.charityImport.importFiles(sampleFiles());
});
afterAll(async () => {
  await ctx.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('importing the shipped samples', () => {
  it('reads and inserts every row of every file, rejecting none', async () => {
    expect(first.files.map((f) => f.file)).toEqual(sampleFiles().map((f) => basename(f)));
    for (const [i, file] of sampleFiles().entries()) {
      const report = first.files[i]!;
      const rows = dataRows(file);
      expect(rows).toBeGreaterThan(0);
      expect(report, report.file).toMatchObject({ read: rows, inserted: rows, updated: 0, unchanged: 0, rejected: 0, rejections: [] });
    }
    // DC 14,121 + VT 6,535 + eo4 4,921 IRS rows (SOURCES.md) and 8 CRA rows.
    expect(first.totals).toMatchObject({ read: 25_585, inserted: 25_585, rejected: 0 });
    const [{ n }] = (await ctx.store.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM charities')) as [{ n: number }];
    expect(n).toBe(25_585);
  });

  it('leaves every charity in charity_names, vacuumed (its pages all-visible: name ranges read from the index alone)', async () => {
    const [names] = await ctx.store.sql.query<{ n: number; pages: number; visible: number }>(
      `SELECT (SELECT count(*)::int FROM charity_names) AS n, relpages AS pages, relallvisible AS visible FROM pg_class WHERE relname = 'charity_names'`,
    );
    expect(names!.n).toBe(25_585);
    expect(names!.pages).toBeGreaterThan(0);
    expect(names!.visible).toBe(names!.pages);
  });

  it('names each file format', () => {
    expect(first.files.find((f) => f.file.startsWith('irs-'))!.format).toBe('IRS EO BMF (28 columns)');
    expect(first.files.find((f) => f.file.startsWith('cra-'))!.format).toBe('CRA charities listing (12 columns)');
  });

  it('keeps the leading zeros of EINs', async () => {
    expect(await byNumber('010123106')).toMatchObject({ ein: '01-0123106', name: 'MORNING STAR BAPTIST CHURCH', state: 'DC', country: 'US' });
  });

  it('reads quoted fields that hold commas (foreign rows of eo4)', async () => {
    expect(await byNumber('200443614')).toMatchObject({ address1: 'VANCOUVER,BC,V6A 4G2', address2: '% CHAPTER ADMINISTRATOR', city: null, country: 'CA' });
    expect(await byNumber('205238137')).toMatchObject({ address1: 'MBABANE,ESWATINI,H100', country: 'ZA' });
  });

  it('reads the CRA listing in UTF-8, accents included', async () => {
    expect(await byNumber('139415707RR0001')).toMatchObject({
      registry: 'CRA',
      name: "(CAFGRAF) GROUPE D'ENTRAIDE EN SANTÉ MENTALE DE LAVAL",
      city: 'LAVAL',
      state: 'QC',
      zip: 'H7N 2H5',
      country: 'CA',
      eligible: true,
    });
    expect(await byNumber('865910137RR0001')).toMatchObject({ eligible: false });
  });

  it('records the central organization of each group exemption found in the directory', async () => {
    const groups = await ctx.store.sql.query<{ group_exemption: string; central_name: string }>(
      `SELECT group_exemption, central_name FROM charity_groups WHERE group_exemption IN ('0928', '0064') ORDER BY 1`,
    );
    expect(groups).toEqual([
      { group_exemption: '0064', central_name: 'INTERNATIONAL BROTHERHOOD OF ELECTRICAL WORKERS' },
      { group_exemption: '0928', central_name: 'UNITED STATES CATHOLIC CONFERENCE' },
    ]);
  });
});

describe('re-importing', () => {
  it('keeps every CharityId and writes nothing for unchanged rows', async () => {
    const before = await ctx.store.sql.query<{ id: string; registry_number: string }>(
      `SELECT id, registry_number FROM charities WHERE registry = 'IRS' AND state = 'DC' ORDER BY registry_number`,
    );
    const again = await ctx.services.charityImport.importFiles([sample('irs-eo-bmf-DC.csv')]);
    expect(again.totals).toMatchObject({ read: 14_121, inserted: 0, updated: 0, unchanged: 14_121, rejected: 0 });
    const after = await ctx.store.sql.query<{ id: string; registry_number: string }>(
      `SELECT id, registry_number FROM charities WHERE registry = 'IRS' AND state = 'DC' ORDER BY registry_number`,
    );
    expect(after).toEqual(before);
    expect(after.find((r) => r.registry_number === '530196605')!.id).toBe(charityId('IRS', '530196605'));
  });

  it('updates a changed row in place, under the same CharityId', async () => {
    const lines = readFileSync(sample('irs-eo-bmf-VT.csv'), 'utf8').split('\r\n');
    const index = lines.findIndex((l) => l.startsWith('030036586,'));
    expect(index).toBeGreaterThan(0);
    const original = lines[index]!;
    const [ein, name] = original.split(',');
    lines[index] = original.replace(`${ein},${name},`, `${ein},${name} RENAMED,`);
    const file = join(dir, 'eo_vt_changed.csv');
    writeFileSync(file, lines.join('\r\n'));
    const id = (await byNumber(ein!))!.id;
    const report = await ctx.services.charityImport.importFiles([file]);
    expect(report.totals).toMatchObject({ read: 6_535, inserted: 0, updated: 1, unchanged: 6_534 });
    expect(await byNumber(ein!)).toMatchObject({ id, name: `${name} RENAMED` });
    // Name searches read charity_names, which the same statement keeps.
    const renamed = { Name: `${name} renamed` };
    expect((await queried(ctx.services.charities).search(renamed)).results.map((r) => r.id)).toEqual([id]);
    const back = await ctx.services.charityImport.importFiles([sample('irs-eo-bmf-VT.csv')]);
    expect(back.totals).toMatchObject({ updated: 1, unchanged: 6_534 });
    await expect(queried(ctx.services.charities).search(renamed)).rejects.toMatchObject({ name: 'NotFoundError' });
    expect((await queried(ctx.services.charities).search({ Name: name! })).results.map((r) => r.id)).toContain(id);
  });
});

describe('bad input', () => {
  it('rejects a corrupted row with its line number and reason, and imports the rest', async () => {
    const lines = readFileSync(sample('irs-eo-bmf-VT.csv'), 'utf8').split('\r\n');
    lines[99] = lines[99]!.replace(/^\d{9}/, '12345'); // line 100: a short EIN
    lines[199] = '"BROKEN ROW,WITHOUT,A CLOSING QUOTE'; // line 200
    lines[299] = lines[299]!.split(',').slice(0, 20).join(','); // line 300: truncated
    const file = join(dir, 'eo_vt_corrupted.csv');
    writeFileSync(file, lines.join('\r\n'));
    const report = await ctx.services.charityImport.importFiles([file]);
    expect(report.files[0]).toMatchObject({
      read: 6_535,
      rejected: 3,
      unchanged: 6_532,
      rejections: [
        { line: 100, reason: 'EIN "12345" is not 9 digits' },
        { line: 200, reason: 'unbalanced double quotes' },
        { line: 300, reason: '20 fields instead of 28' },
      ],
    });
  });

  it('reads a newer 14-column CRA export in Latin-1, with LF or CRLF endings and columns in another order', async () => {
    const header = [
      'Charity name:', 'BN/Registration number: ', 'Charity status:', 'Effective date of status:', 'Sanction:', 'Designation:', 'Category:',
      'Type of qualified donee:', 'Charity type: ', 'Address:', 'City:', 'Province, territory, outside of Canada:', 'Country:', 'Postal code/Zip code:',
    ].join('\t') + '\t';
    const rows = [
      ['ÉCOLE DE CHARITÉ DU QUÉBEC', '899999998RR0001', 'Registered', '2001-01-01', '', '0001', '0010', 'Registered charity', 'Charitable organization', '12 RUE PRINCIPALE', 'MONTRÉAL', 'QC', 'CA', 'H2X1Y4'],
      ['BAD BN SOCIETY', '89999999RR0001', 'Registered', '2001-01-01', '', '0001', '0010', 'Registered charity', 'Charitable organization', '1 MAIN ST', 'OTTAWA', 'ON', 'CA', 'K1A0B1'],
      ['ANNULLED FRIENDS', '899999997RR0001', 'Annulled', '2001-01-01', '', '0001', '0010', 'Registered charity', 'Charitable organization', '2 MAIN ST', 'OTTAWA', 'ON', 'CA', 'K1A0B1'],
    ].map((r) => r.join('\t'));
    const latin1 = join(dir, 'cra_new_latin1.txt');
    writeFileSync(latin1, Buffer.from([header, ...rows].join('\r\n') + '\r\n', 'latin1'));
    const report = await ctx.services.charityImport.importFiles([latin1]);
    expect(report.files[0]).toMatchObject({
      format: 'CRA charities listing (14 columns)',
      read: 3,
      inserted: 2,
      rejected: 1,
      rejections: [{ line: 3, reason: 'BN "89999999RR0001" is not of the form #########RR####' }],
    });
    expect(await byNumber('899999998RR0001')).toMatchObject({ name: 'ÉCOLE DE CHARITÉ DU QUÉBEC', city: 'MONTRÉAL', zip: 'H2X 1Y4', eligible: true });
    expect(await byNumber('899999997RR0001')).toMatchObject({ eligible: false });

    const utf8 = join(dir, 'cra_new_utf8.txt');
    writeFileSync(utf8, [header, ...rows].join('\n'));
    // The same rows in UTF-8 with LF endings are the same charities, unchanged.
    const again = await ctx.services.charityImport.importFiles([utf8]);
    expect(again.files[0]).toMatchObject({ read: 3, inserted: 0, updated: 0, unchanged: 2, rejected: 1 });
  });

  it('lets the later of two rows for one charity win', async () => {
    const header = readFileSync(sample('irs-eo-bmf-VT.csv'), 'utf8').split('\r\n')[0];
    const row = (name: string) => `990000001,${name},,1 MAIN ST,BURLINGTON,VT,05401,0000,03,3,1000,200001,1,15,0,1,01,,0,0,02,0,12,,,,,`;
    const file = join(dir, 'eo_dup.csv');
    writeFileSync(file, [header, row('FIRST NAME'), row('SECOND NAME'), ''].join('\r\n'));
    const report = await ctx.services.charityImport.importFiles([file]);
    expect(report.totals).toMatchObject({ read: 2, inserted: 1, updated: 1 });
    expect(await byNumber('990000001')).toMatchObject({ name: 'SECOND NAME' });
  });

  it('refuses a file of unknown format before writing anything', async () => {
    const file = join(dir, 'members.csv');
    writeFileSync(file, 'id,name\n1,x\n');
    const count = async () => (await ctx.store.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM charities'))[0]!.n;
    const before = await count();
    await expect(ctx.services.charityImport.importFiles([sample('cra-charities-listing-sample.txt'), file])).rejects.toThrow(OperatorInputError);
    await expect(ctx.services.charityImport.importFiles([join(dir, 'missing.csv')])).rejects.toThrow(/cannot read .*missing\.csv: ENOENT/);
    expect(await count()).toBe(before);
  });
});

describe('demo samples', () => {
  it('are loaded once per database: the second call imports nothing', async () => {
    // No marker yet in this database: the first call imports (every row is already there).
    const firstCall = await ctx.services.charityImport.importSamplesOnce();
    expect(firstCall?.totals).toMatchObject({ read: 25_585, inserted: 0 });
    expect(await ctx.services.charityImport.importSamplesOnce()).toBeUndefined();
  });
});

describe.skipIf(!testDatabaseUrl())('the first load on PostgreSQL', () => {
  const load = async (files: string[]) => {
    const db = await freshDatabase(testDatabaseUrl()!);
    const store = openPostgres(db.url, 2);
    const copy = vi.spyOn(CopySink, 'open');
    try {
      const report = await new CharityImportService({ repository: new CharityImportRepository(store, db.url) }).importFiles(files);
      const indexes = (await store.sql.query<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE tablename IN ('charities', 'charity_names', 'charity_words') ORDER BY 1`)).map((r) => r.indexname);
      const redCross = await charitySearch(store.sql).search({ Name: 'amercan red cross' }).catch(() => undefined);
      return { report, indexes, copies: copy.mock.calls.length, redCross };
    } finally {
      copy.mockRestore();
      await store.close();
      await db.drop();
    }
  };
  const ALL_INDEXES = ['charities_city', 'charities_group_central', 'charities_pkey', 'charities_state', 'charities_tax_id', 'charity_names_beginning', 'charity_names_pkey', 'charity_names_words', 'charity_words_pkey', 'charity_words_trigrams'];

  it('streams the rows in by COPY and builds every index at the end', async () => {
    const { report, indexes, copies, redCross } = await load([sample('irs-eo-bmf-DC.csv'), sample('irs-eo-bmf-VT.csv')]);
    expect(copies).toBe(1);
    expect(report.totals).toMatchObject({ read: 20_656, inserted: 20_656, updated: 0, rejected: 0 });
    expect(indexes).toEqual(ALL_INDEXES);
    expect(redCross?.results[0]?.id).toBe(charityId('IRS', '530196605'));
  });

  it('keeps file order and line numbers of rejected rows across the parsing threads', async () => {
    // DC is 2.6 MB: three 1 MiB batches, parsed on two threads.
    const lines = readFileSync(sample('irs-eo-bmf-DC.csv'), 'utf8').split('\r\n');
    for (const n of [100, 7_000, 14_000]) lines[n - 1] = lines[n - 1]!.split(',').slice(0, 20).join(',');
    const file = join(dir, 'eo_dc_corrupted.csv');
    writeFileSync(file, lines.join('\r\n'));
    const { report, copies } = await load([file]);
    expect(copies).toBe(1);
    expect(report.totals).toMatchObject({ read: 14_121, inserted: 14_118, rejected: 3 });
    expect(report.files[0]!.rejections).toEqual([100, 7_000, 14_000].map((line) => ({ line, reason: '20 fields instead of 28' })));
  });

  it('starts over with upserts when a charity appears twice across the files', async () => {
    const dc = readFileSync(sample('irs-eo-bmf-DC.csv'), 'utf8').split('\r\n');
    const again = join(dir, 'eo_dc_red_cross_again.csv');
    writeFileSync(again, [dc[0], dc.find((l) => l.startsWith('530196605,'))!.replace('AMERICAN NATIONAL RED CROSS', 'AMERICAN RED CROSS'), ''].join('\r\n'));
    const { report, indexes, copies } = await load([sample('irs-eo-bmf-DC.csv'), again]);
    expect(copies).toBe(1);
    expect(report.totals).toMatchObject({ read: 14_122, inserted: 14_121, updated: 1, rejected: 0 });
    expect(indexes).toEqual(ALL_INDEXES);
  });
});
