import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/platform/clock.ts';
import { splitCsvLine } from '../../../src/domain/charities/csv-line.ts';
import { VOCABULARY_TTL_MS } from '../../../src/modules/charities/search-service.ts';
import { CharitySearchRepository } from '../../../src/modules/charities/search-repository.ts';
import type { CharitySearchQuery } from '../../../src/http/api/charity-search-query.ts';
import { sampleFiles } from '../../../src/modules/charities/import-samples.ts';
import type { NamePlan } from '../../../src/modules/charities/name-plan.ts';
import { CharityNameStatistics } from '../../../src/modules/charities/name-statistics.ts';
import { charitySearch } from '../../helpers/charity-search.ts';
import { type TestContext, createTestContext } from '../../helpers/context.ts';

/**
 * A name search chooses which of its conditions the index answers and which it checks row by
 * row (LIKE patterns), or reads the directory in storage order: a choice of speed only. Every plan
 * must find the same charities.
 */
let ctx: TestContext;

/** What partners' users type, from the shipped names: whole names, prefixes, short words, typos. */
function queries(): string[] {
  const names: string[] = [];
  for (const file of sampleFiles().filter((f) => f.endsWith('.csv'))) {
    const [header, ...lines] = readFileSync(file, 'latin1').split(/\r?\n/).filter(Boolean);
    const at = splitCsvLine(header!)!.indexOf('NAME');
    lines.forEach((line, i) => i % 499 === 0 && names.push(splitCsvLine(line)?.[at] ?? ''));
  }
  const typed = names.flatMap((name) => {
    const words = name.toLowerCase().split(/\s+/).filter(Boolean);
    const longest = [...words].sort((a, b) => b.length - a.length)[0] ?? '';
    return [
      name,
      words.slice(0, 2).join(' ').slice(0, -2),
      longest.slice(0, 3),
      name.replace(longest, longest.slice(0, 2) + longest.slice(3)),
    ];
  });
  // More than 200 names begin with "aarp" and with "phi beta kappa society" in the shipped files.
  const common = ['st', 'of the', 'inc', 'amer', 'foundation for', 'amercan red cross', 'a b c', 'vermont', 'aarp', 'beta sigma', 'phi beta kappa society', 'phi be', 'phi b'];
  return [...typed, ...common].filter((q) => /[a-z0-9]/i.test(q));
}

const BEGINNING_FIRST = 'the names beginning with the query first';
const plans: Record<string, (conditions: { words: string[] }[]) => NamePlan> = {
  'every condition through the index': (conditions) => ({ scan: false, indexed: new Set(conditions.keys()) }),
  'the directory in storage order': () => ({ scan: true }),
  'the first condition through the index, the others checked': () => ({ scan: false, indexed: new Set([0]) }),
  'the last condition through the index, the others checked': (conditions) => ({ scan: false, indexed: new Set([conditions.length - 1]) }),
};

beforeAll(async () => {
  ctx = await createTestContext();
  await ctx.services.charityImport.importFiles(sampleFiles());
}, 120_000);
afterAll(async () => ctx?.close());

describe('name search plans', () => {
  it('all find the same charities', async () => {
    const reference = charitySearch(ctx.store.sql, { plan: plans['every condition through the index']! });
    const others = [
      ...Object.entries(plans).map(([name, plan]) => [name, charitySearch(ctx.store.sql, { plan })] as const),
      [BEGINNING_FIRST, charitySearch(ctx.store.sql, { beginningFirst: () => true })] as const,
    ];
    let compared = 0;
    for (const Name of queries()) {
      const expected = await reference.search({ Name, PageSize: 100 }).catch((e: Error) => e.name);
      for (const [plan, service] of others) {
        const actual = await service.search({ Name, PageSize: 100 }).catch((e: Error) => e.name);
        if (typeof expected !== 'string' && typeof actual !== 'string' && expected.total >= 200) {
          // 201 or more matches: each plan ranks the first 201 it finds, not necessarily the same ones.
          expect(actual.total, `${plan}: ${Name}`).toBe(200);
          // ... but only charities that match: each found again by the reference with its EIN
          // (every one from the route under test here, the first 5 from the others).
          const checked = plan === BEGINNING_FIRST ? actual.results : actual.results.slice(0, 5);
          for (const found of checked) {
            const again = await reference.search({ Name, EIN: found.ein });
            expect(again.results.map((r) => r.id), `${plan}: ${Name}`).toContain(found.id);
          }
        } else {
          expect(actual, `${plan}: ${Name}`).toEqual(expected);
        }
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(400);
  }, 180_000);

  it('lists the whole-name match first when it looks among the names beginning with the query', async () => {
    const service = charitySearch(ctx.store.sql, { beginningFirst: () => true });
    const page = await service.search({ Name: 'Phi Beta Kappa Society', PageSize: 100 });
    expect(page.total).toBe(200);
    expect(page.results[0]!.name).toBe('PHI BETA KAPPA SOCIETY');
    // All 201 came from the names beginning with the query (more than 200 do).
    expect(page.results.every((r) => r.name.startsWith('PHI BETA KAPPA SOCIETY'))).toBe(true);
    // Sorted on request, as any name search.
    const sorted = await service.search({ Name: 'phi beta kappa society', SortColumn: 'EIN', PageSize: 100 });
    const eins = sorted.results.map((r) => r.ein);
    expect(eins).toEqual([...eins].sort());
    expect(sorted.results.every((r) => r.name.startsWith('PHI BETA KAPPA SOCIETY'))).toBe(true);
  });

  it('looks beyond the names beginning with the query when fewer than 201 of them match', async () => {
    // No shipped name begins with "beta sigma"; "PHI BETA SIGMA ..." names have both words.
    const beginningFirst = charitySearch(ctx.store.sql, { beginningFirst: () => true });
    const indexOnly = charitySearch(ctx.store.sql, { beginningFirst: () => false });
    const page = await beginningFirst.search({ Name: 'beta sigma', PageSize: 100 });
    expect(page).toEqual(await indexOnly.search({ Name: 'beta sigma', PageSize: 100 }));
    expect(page.total).toBeGreaterThan(0);
    // With a State (City, EIN), that criterion's index narrows the search instead.
    const inDc = { Name: 'phi beta kappa society', State: 'DC', PageSize: 100 };
    expect(await beginningFirst.search(inDc)).toEqual(await indexOnly.search(inDc));
    // "phi b": more than 200 names begin with it, but "b" must be a whole word.
    expect(await beginningFirst.search({ Name: 'phi b', PageSize: 100 }).catch((e: Error) => e.name)).toEqual(
      await indexOnly.search({ Name: 'phi b', PageSize: 100 }).catch((e: Error) => e.name),
    );
  });

  it('reads the name index statistics ANALYZE keeps (after an import) on this store', async () => {
    const statistics = await new CharityNameStatistics(() => new CharitySearchRepository(ctx.store.sql).nameStatistics()).get();
    expect(statistics.rows).toBeGreaterThan(1000);
    // "inc" is in a good share of the shipped names.
    expect(statistics.commonWords.get('inc')).toBeGreaterThan(0.05);
    expect(statistics.rareBelow).toBeGreaterThan(0);
  });
});

describe('the vocabulary each process keeps', () => {
  it('finds a word an import adds once VOCABULARY_TTL_MS has passed since it was last looked up', async () => {
    const clock = new ManualClock();
    const service = charitySearch(ctx.store.sql, { clock });
    await expect(service.search({ Name: 'zyxwvut', CharitySource: 2 })).rejects.toMatchObject({ name: 'NotFoundError' });

    // A CRA export (test fixture, not registry data) with a charity named by that new word.
    const dir = mkdtempSync(join(tmpdir(), 'charity-vocabulary-'));
    try {
      const header = ['BN/Registration number:', 'Charity name:', 'Charity status:', 'Effective date of status:', 'Sanction:', 'Designation:', 'Category:', 'Address:', 'City:', 'Province, territory, outside of Canada:', 'Country:', 'Postal code/Zip code:'].join('\t');
      const row = ['899999996RR0001', 'ZYXWVUT TEST SOCIETY', 'Registered', '2001-01-01', '', '0001', '0010', '1 MAIN ST', 'OTTAWA', 'ON', 'CA', 'K1A0B1'].join('\t');
      const file = join(dir, 'cra_vocabulary.txt');
      writeFileSync(file, `${header}\t\r\n${row}\r\n`);
      const report = await ctx.services.charityImport.importFiles([file]);
      expect(report.totals).toMatchObject({ read: 1, inserted: 1 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    // Its words were looked up a moment ago: this process still takes them for unknown.
    clock.advance(VOCABULARY_TTL_MS - 1_000);
    await expect(service.search({ Name: 'zyxwvut', CharitySource: 2 })).rejects.toMatchObject({ name: 'NotFoundError' });
    clock.advance(1_001);
    const page = await service.search({ Name: 'zyxwv', CharitySource: 2 });
    expect(page.results.map((r) => r.name)).toEqual(['ZYXWVUT TEST SOCIETY']);
    expect((await service.search({ Name: 'zyxwvut', CharitySource: 2 })).total).toBe(1);
  });

  it('keeps what it read for a search even when the entry expires while the search waits for the database', async () => {
    const clock = new ManualClock();
    let tick = false;
    // Time passes while the missing words are looked up.
    const sql = new Proxy(ctx.store.sql, {
      get(target, key, receiver) {
        if (key !== 'query') return Reflect.get(target, key, receiver);
        return async (text: string, params: unknown[], options?: unknown) => {
          if (tick && text.includes('charity_words')) clock.advance(2);
          return target.query(text, params as never, options as never);
        };
      },
    });
    const service = charitySearch(sql, { clock });
    const before = await service.search({ Name: 'st albans' });
    clock.advance(VOCABULARY_TTL_MS - 1);
    tick = true;
    // "st" is still kept when the search begins and expires while "alb" is looked up.
    const page = await service.search({ Name: 'st alban' });
    expect(page.total).toBe(before.total);
  });

  it('prepares a name query only when its shape is one of a bounded set', async () => {
    // Prepared statements stay on every connection: a name alone of up to 6 words, unsorted, has
    // few shapes; longer, sorted or filtered searches are planned each time.
    const prepared: boolean[] = [];
    const sql = new Proxy(ctx.store.sql, {
      get(target, key, receiver) {
        if (key !== 'query') return Reflect.get(target, key, receiver);
        return async (text: string, params: unknown[], options?: { prepare?: boolean }) => {
          // The queries that find the matches (not the page's rows, always prepared).
          if (/WITH found|LIKE ANY/.test(text)) prepared.push(options?.prepare === true);
          return target.query(text, params as never, options as never);
        };
      },
    });
    const service = charitySearch(sql);
    const cases: [CharitySearchQuery, boolean][] = [
      [{ Name: 'vermont' }, true],
      [{ Name: 'phi beta kappa society' }, true],
      [{ Name: 'the vermont association of the united states inc' }, false],
      [{ Name: 'vermont', SortColumn: 'City' }, false],
      [{ Name: 'vermont', State: 'VT' }, false],
    ];
    for (const [input, expected] of cases) {
      prepared.length = 0;
      // Whether anything matches does not matter here.
      await service.search(input).catch((error: Error) => expect(error.name).toBe('NotFoundError'));
      expect(prepared.length, JSON.stringify(input)).toBeGreaterThan(0);
      expect(prepared.every((p) => p === expected), JSON.stringify(input)).toBe(true);
    }
  });
});
