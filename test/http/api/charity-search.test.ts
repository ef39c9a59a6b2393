import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { charityId } from '../../../src/domain/charities/charity.ts';
import { searchText } from '../../../src/domain/charities/search-text.ts';
import { SAMPLE_DIR } from '../../../src/modules/charities/import-samples.ts';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import { expectDocumented } from '../../helpers/openapi.ts';

let ctx: TestContext;

interface Result {
  CharityId: string;
  NpoName: string;
  EIN: string;
  Address1: string | null;
  Address2: string | null;
  City: string | null;
  State: string | null;
  Zip: string | null;
  Country: string | null;
  NpoEligibilityFlag: boolean;
  ParentOrgName: string | null;
  NTEEcode: string | null;
}
interface Page {
  TotalResultCount: number;
  TotalPages: number;
  PageIndex: number;
  PageSize: number;
  SearchResults: Result[];
}

const RED_CROSS = charityId('IRS', '530196605');

beforeAll(async () => {
  ctx = await createTestContext();
  // DC (the Red Cross, central organizations), VT (their subordinates), eo4 (foreign rows) and the
  // CRA sample: imported once for the whole file.
  await ctx.services.charityImport.importFiles(
    ['irs-eo-bmf-DC.csv', 'irs-eo-bmf-VT.csv', 'irs-eo-bmf-eo4-territories-intl.csv', 'cra-charities-listing-sample.txt'].map((f) => join(SAMPLE_DIR, f)),
  );
});
afterAll(() => ctx.close());

/** GET /api/CharitySearch without any AccessToken, checked against /openapi.json. */
async function search(query: Record<string, string | number | boolean>) {
  const res = await ctx.app.inject({ method: 'GET', url: '/api/CharitySearch', query: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])) });
  await expectDocumented(ctx.app, 'GET', '/api/CharitySearch', res);
  return res;
}
async function page(query: Record<string, string | number | boolean>): Promise<Page> {
  const res = await search(query);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Page;
}
const count = async (where: string, params: unknown[] = []) =>
  (await ctx.store.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM charities WHERE ${where}`, params))[0]!.n;

describe('GET /api/CharitySearch by Name', () => {
  it('needs no AccessToken and answers every documented field, nulls written out', async () => {
    const body = await page({ Name: 'American National Red Cross' });
    expect(body).toMatchObject({ TotalResultCount: 1, TotalPages: 1, PageIndex: 1, PageSize: 10 });
    expect(body.SearchResults).toEqual([
      {
        CharityId: RED_CROSS,
        NpoName: 'AMERICAN NATIONAL RED CROSS',
        EIN: '53-0196605',
        Address1: '431 18TH ST NW',
        Address2: null,
        City: 'WASHINGTON',
        State: 'DC',
        Zip: '20006-5310',
        Country: 'US',
        NpoEligibilityFlag: true,
        ParentOrgName: null,
        NTEEcode: 'P210',
      },
    ]);
  });

  it('answers the same fields for a charity whether the search found few or many, and as an EIN lookup does', async () => {
    // A name search ranks its candidates by name, then reads the page's rows by id; an EIN lookup
    // reads its row directly. Subordinates (with a ParentOrgName) and others.
    const rows = await ctx.store.sql.query<{ name: string; ein: string; id: string }>(
      // Names held by one charity only, counted once: a count per row is quadratic on PostgreSQL.
      `WITH single AS (SELECT search_name FROM charities GROUP BY search_name HAVING count(*) = 1)
       (SELECT c.name, c.ein, c.id FROM charities c JOIN charity_groups g ON g.group_exemption = c.group_exemption
        WHERE c.group_role = 'member' AND c.search_name IN (SELECT search_name FROM single)
        ORDER BY c.registry_number LIMIT 3)
       UNION ALL
       (SELECT c.name, c.ein, c.id FROM charities c
        WHERE c.registry = 'IRS' AND c.address2 IS NOT NULL AND c.search_name IN (SELECT search_name FROM single)
        ORDER BY c.registry_number LIMIT 3)`,
    );
    expect(rows.length).toBe(6);
    let subordinates = 0;
    let readAfterRanking = 0;
    for (const { name, ein, id } of rows) {
      const [byEin] = (await page({ EIN: ein })).SearchResults;
      if (byEin!.ParentOrgName) subordinates++;
      const few = await page({ Name: name });
      expect(few.TotalResultCount, name).toBeLessThanOrEqual(10);
      expect(few.SearchResults.find((r) => r.CharityId === id), name).toEqual(byEin);
      // Its first word finds many, ranked before the page is read.
      const many = await page({ Name: name.split(' ')[0]!, PageSize: 100 });
      const found = many.SearchResults.find((r) => r.CharityId === id);
      if (many.TotalResultCount > 10 && found) {
        expect(found, name).toEqual(byEin);
        readAfterRanking++;
      }
    }
    expect(subordinates).toBeGreaterThan(0);
    expect(readAfterRanking).toBeGreaterThan(0);
  });

  it('tolerates typos: "Amercan Red Cross" finds the American National Red Cross first', async () => {
    const body = await page({ Name: 'Amercan Red Cross' });
    expect(body.SearchResults[0]!.CharityId).toBe(RED_CROSS);
    expect((await page({ Name: 'Amerikan Natinal Red Cros' })).SearchResults[0]!.CharityId).toBe(RED_CROSS);
  });

  it('matches word prefixes, in any case, and ranks the closest names first', async () => {
    const prefixes = await page({ Name: 'amer nat red cro' });
    expect(prefixes.SearchResults.map((r) => r.CharityId)).toEqual([RED_CROSS]);
    const partial = await page({ Name: 'RED CROSS' });
    expect(partial.TotalResultCount).toBe(await count(`registry = 'IRS' AND search_name ~ '(^| )red( |$)' AND search_name ~ '(^| )cross'`));
    expect(partial.SearchResults.slice(0, 2).map((r) => r.NpoName)).toEqual(['AMERICAN NATIONAL RED CROSS', 'ASSOCIATION OF AMERICAN RED CROSS RETIREES']);
    // A whole-name match comes before longer names that contain it.
    const exact = await page({ Name: 'american legion' });
    expect(exact.TotalResultCount).toBeGreaterThan(10);
    expect(exact.SearchResults.every((r) => r.NpoName === 'AMERICAN LEGION')).toBe(true);
  });

  it('matches words of one or two letters whole, longer ones as prefixes', async () => {
    const st = await page({ Name: 'st', State: 'VT', PageSize: 100 });
    expect(st.SearchResults.length).toBeGreaterThan(0);
    for (const r of st.SearchResults) expect(searchText(r.NpoName).split(' '), r.NpoName).toContain('st');
    const sta = await page({ Name: 'sta', State: 'VT', PageSize: 100 });
    expect(sta.SearchResults.some((r) => searchText(r.NpoName).split(' ').some((w) => w.startsWith('sta') && w !== 'sta'))).toBe(true);
  });

  it('ranks and reports at most 200 matches of a broad Name', async () => {
    // "inc" is a prefix: inc, incorporated, ...
    const all = await count(`registry = 'IRS' AND search_name ~ '(^| )inc'`);
    expect(all).toBeGreaterThan(1000);
    const broad = await page({ Name: 'inc', PageSize: 100 });
    expect(broad).toMatchObject({ TotalResultCount: 200, TotalPages: 2 });
    // Past the last of those pages: empty. A narrower search counts exactly again.
    expect((await page({ Name: 'inc', PageIndex: 3, PageSize: 100 })).SearchResults).toEqual([]);
    const narrow = await page({ Name: 'inc', City: 'Montpelier' });
    expect(narrow.TotalResultCount).toBe(await count(`registry = 'IRS' AND city_key = 'montpelier' AND search_name ~ '(^| )inc'`));
  });

  it('is accent- and punctuation-insensitive (Canadian names)', async () => {
    for (const name of ['santé mentale', 'SANTE MENTALE', "groupe d'entraide", 'Groupe dentraide en sante']) {
      const body = await page({ Name: name, CharitySource: 2 });
      expect(body.SearchResults.map((r) => r.EIN), name).toEqual(['139415707RR0001']);
    }
  });

  it('searches only the registry of CharitySource (US by default)', async () => {
    expect((await search({ Name: 'santé mentale' })).statusCode).toBe(404);
    expect((await page({ Name: 'accessible community counselling', CharitySource: 2 })).SearchResults[0]!.Country).toBe('CA');
  });

  it('answers 404 problem details when nothing matches', async () => {
    const res = await search({ Name: 'Zzyzx Qwertyuiop' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json()).toMatchObject({ status: 404, title: 'Not Found', detail: 'No charity matches the search.' });
  });
});

describe('GET /api/CharitySearch by EIN', () => {
  it('finds a US EIN with or without the dash', async () => {
    for (const ein of ['53-0196605', '530196605', ' 530196605 ']) {
      const body = await page({ EIN: ein });
      expect(body.TotalResultCount, ein).toBe(1);
      expect(body.SearchResults[0]!.CharityId).toBe(RED_CROSS);
    }
  });

  it('finds a Canadian BN with or without its RR suffix', async () => {
    for (const ein of ['136747276RR0001', '136747276rr0001', '136747276']) {
      const body = await page({ EIN: ein, CharitySource: 2 });
      expect(body.SearchResults.map((r) => r.EIN), ein).toEqual(['136747276RR0001']);
    }
    expect((await search({ EIN: '136747276RR0002', CharitySource: 2 })).statusCode).toBe(404);
  });

  it('combines with the other criteria', async () => {
    expect((await page({ EIN: '53-0196605', Name: 'red cross', State: 'DC', City: 'Washington' })).TotalResultCount).toBe(1);
    expect((await search({ EIN: '53-0196605', State: 'VT' })).statusCode).toBe(404);
  });

  it('reports foreign IRS rows with their country', async () => {
    const body = await page({ EIN: '200443614' });
    expect(body.SearchResults[0]).toMatchObject({ Address1: 'VANCOUVER,BC,V6A 4G2', City: null, State: null, Zip: null, Country: 'CA', NpoEligibilityFlag: false });
  });

  it.each([
    [{ EIN: '53-019660' }, 7002],
    [{ EIN: 'ABCDEFGHI' }, 7002],
    [{ EIN: '136747276RR0001' }, 7003],
    [{ EIN: '53-0196605', CharitySource: 2 }, 7003],
  ])('refuses %o with ErrorCode %i', async (query, code) => {
    const res = await search(query);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual([expect.objectContaining({ ErrorCode: code, LoggerMessage: `EIN: rule ${code}` })]);
  });
});

describe('GET /api/CharitySearch by City and State', () => {
  it('finds every charity of a state, by name, ten to a page', async () => {
    const vt = await count(`registry = 'IRS' AND state = 'VT'`);
    const body = await page({ State: 'vt' });
    expect(body).toMatchObject({ TotalResultCount: vt, TotalPages: Math.ceil(vt / 10), PageIndex: 1, PageSize: 10 });
    const keys = body.SearchResults.map((r) => searchText(r.NpoName));
    expect(keys).toEqual([...keys].sort());
  });

  it('matches a whole city name regardless of case and accents', async () => {
    const washington = await count(`registry = 'IRS' AND state = 'DC' AND city = 'WASHINGTON'`);
    expect((await page({ City: 'washington', State: 'DC' })).TotalResultCount).toBe(washington);
    // Without a State, every Washington of the directory (there is one in Vermont too).
    const anywhere = await count(`registry = 'IRS' AND city = 'WASHINGTON'`);
    expect(anywhere).toBeGreaterThan(washington);
    expect((await page({ City: 'Wáshington' })).TotalResultCount).toBe(anywhere);
    expect((await search({ City: 'washing' })).statusCode).toBe(404);
    expect((await page({ City: 'laval', CharitySource: 2 })).SearchResults[0]!.EIN).toBe('139415707RR0001');
  });

  it('finds US territories by their state code', async () => {
    const pr = await count(`registry = 'IRS' AND state = 'PR'`);
    expect(pr).toBeGreaterThan(2500);
    expect((await page({ State: 'PR', PageSize: 1 })).TotalResultCount).toBe(pr);
  });

  it('names the central organization of a subordinate as ParentOrgName', async () => {
    const body = await page({ Name: 'catholic', State: 'VT', SortColumn: 'ParentOrgName', PageSize: 100 });
    const parents = body.SearchResults.map((r) => r.ParentOrgName);
    expect(parents).toContain('UNITED STATES CATHOLIC CONFERENCE');
    // Sorted by ParentOrgName: the names first, in order; organizations without a parent last.
    const named = parents.filter((p) => p !== null);
    expect(parents.slice(0, named.length)).toEqual(named);
    expect(named).toEqual([...named].sort());
  });
});

describe('paging', () => {
  it('walks a result set to its last, partly filled page', async () => {
    const total = (await page({ State: 'VT', PageSize: 100 })).TotalResultCount;
    const lastIndex = Math.ceil(total / 100);
    const last = await page({ State: 'VT', PageSize: 100, PageIndex: lastIndex });
    expect(last).toMatchObject({ PageIndex: lastIndex, PageSize: 100, TotalPages: lastIndex });
    expect(last.SearchResults).toHaveLength(total - (lastIndex - 1) * 100);
    const beyond = await page({ State: 'VT', PageSize: 100, PageIndex: lastIndex + 1 });
    expect(beyond).toMatchObject({ TotalResultCount: total, SearchResults: [] });
  });

  it('never repeats or skips a charity between pages', async () => {
    const all = await page({ Name: 'american', PageSize: 100 });
    const collected: string[] = [];
    for (let i = 1; i <= all.TotalPages * 4 && i <= 40; i++) {
      collected.push(...(await page({ Name: 'american', PageSize: 25, PageIndex: i })).SearchResults.map((r) => r.CharityId));
    }
    expect(new Set(collected).size).toBe(collected.length);
    expect(collected.slice(0, 100)).toEqual(all.SearchResults.map((r) => r.CharityId));
  });

  it.each([
    [{ State: 'VT', PageIndex: 0 }, 1005, 'PageIndex'],
    [{ State: 'VT', PageSize: 0 }, 1005, 'PageSize'],
    [{ State: 'VT', PageSize: 101 }, 1005, 'PageSize'],
    [{ State: 'VT', PageIndex: 'two' }, 1004, 'PageIndex'],
    [{ State: 'VT', CharitySource: 3 }, 1006, 'CharitySource'],
    [{ State: 'VT', SortColumn: 'Revenue' }, 1006, 'SortColumn'],
    [{ State: 'Vermont' }, 1003, 'State'],
    [{ Name: '%%%' }, 7001, 'Name'],
  ])('refuses %o with ErrorCode %i', async (query, code, field) => {
    const res = await search(query);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual([expect.objectContaining({ ErrorCode: code, LoggerMessage: `${field}: rule ${code}` })]);
  });

  it('needs at least one criterion', async () => {
    const queries: Record<string, string | number>[] = [{}, { CharitySource: 2 }, { Name: '', PageSize: 5 }];
    for (const query of queries) {
      const res = await search(query);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual([{ ErrorCode: 7000, Message: 'At least one of Name, EIN, City or State is required.', LoggerMessage: 'rule 7000' }]);
    }
  });
});

describe('sorting', () => {
  const sorted = (values: (string | null)[], desc = false) => {
    const present = values.filter((v): v is string => v !== null).sort();
    if (desc) present.reverse();
    return [...present, ...values.filter((v) => v === null)];
  };

  it.each(['Zip', 'City', 'EIN', 'Address1', 'NTEEcode', 'Country', 'CharityId'])('sorts by %s, ascending and descending', async (column) => {
    for (const desc of [false, true]) {
      const body = await page({ Name: 'american', SortColumn: column, SortDesc: desc, PageSize: 100 });
      const values = body.SearchResults.map((r) => {
        const v = r[column as keyof Result] as string | null;
        return v === null ? null : column === 'City' || column === 'Address1' ? searchText(v) : v;
      });
      expect(values, `${column} ${desc ? 'desc' : 'asc'}`).toEqual(sorted(values, desc));
    }
  });

  it('sorts by NpoEligibilityFlag and reads SortColumn and SortDesc as ASP.NET does', async () => {
    const up = await page({ State: 'DC', SortColumn: 'npoeligibilityflag', PageSize: 5 });
    expect(up.SearchResults.every((r) => !r.NpoEligibilityFlag)).toBe(true);
    const down = await page({ State: 'DC', SortColumn: 'NpoEligibilityFlag', SortDesc: 'True', PageSize: 5 });
    expect(down.SearchResults.every((r) => r.NpoEligibilityFlag)).toBe(true);
  });

  it('orders by NpoName descending when asked, even for a Name search', async () => {
    const body = await page({ Name: 'red cross', SortDesc: true });
    const keys = body.SearchResults.map((r) => searchText(r.NpoName));
    expect(keys).toEqual([...keys].sort().reverse());
  });

  it('binds parameter names case-insensitively', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/charitysearch?name=american%20national%20red%20cross&pagesize=5&sortcolumn=npoName' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ PageSize: 5, SearchResults: [{ CharityId: RED_CROSS }] });
  });
});

describe('rate limit', () => {
  it('limits each client IP to PUBLIC_RATE_LIMIT searches a minute, with 429 problem details', async () => {
    const limited = await createTestContext({ config: { publicRateLimitPerMinute: 3 } });
    try {
      const call = (ip: string) => limited.app.inject({ method: 'GET', url: '/api/CharitySearch?Name=x', remoteAddress: ip });
      for (let i = 0; i < 3; i++) expect((await call('10.0.0.1')).statusCode).toBe(404);
      const over = await call('10.0.0.1');
      expect(over.statusCode).toBe(429);
      expect(over.json()).toMatchObject({ status: 429, title: 'Too Many Requests' });
      await expectDocumented(limited.app, 'GET', '/api/CharitySearch', over);
      expect((await call('10.0.0.2')).statusCode).toBe(404);
    } finally {
      await limited.close();
    }
  });
});
