import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { splitCsvLine } from '../../src/domain/charities/csv-line.ts';
import { searchText } from '../../src/domain/charities/search-text.ts';
import { TrigramQuery, trigrams } from '../../src/domain/charities/trigram-similarity.ts';
import { openPglite, type Store } from '../../src/platform/database/database.ts';

/** Real names from the shipped IRS sample, normalized as the directory stores them. */
function realNames(): string[] {
  const [header, ...lines] = readFileSync('seed-data/charities/irs-eo-bmf-VT.csv', 'utf8').split(/\r?\n/).filter(Boolean);
  const at = splitCsvLine(header!)!.indexOf('NAME');
  return lines.map((l) => searchText(splitCsvLine(l)?.[at] ?? '')).filter(Boolean);
}

describe('trigram similarity', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openPglite();
    await store.sql.query('CREATE EXTENSION IF NOT EXISTS pg_trgm', []);
  });
  afterAll(async () => store.close());

  it('pads words as pg_trgm does', () => {
    expect([...trigrams('red cross')].sort()).toEqual(['  c', '  r', ' cr', ' re', 'cro', 'oss', 'ros', 'red', 'ss ', 'ed '].sort());
    expect(new TrigramQuery('red cross').similarity('red cross')).toBe(1);
    expect(new TrigramQuery('red cross').similarity('')).toBe(0);
    // A character outside the BMP is one character (one trigram position), as in PostgreSQL.
    expect([...trigrams('a𝔄')].sort()).toEqual(['  a', ' a𝔄', 'a𝔄 '].sort());
    expect(new TrigramQuery('a𝔄').similarity('a𝔄')).toBe(1);
    // ASCII and other characters in one name (their trigrams are packed differently).
    expect([...trigrams('fjørd')].sort()).toEqual(['  f', ' fj', 'fjø', 'jør', 'ørd', 'rd '].sort());
    expect(new TrigramQuery('fjørd').similarity('fjord')).toBe(Math.fround(3 / 9));
    expect(new TrigramQuery('fjørd 𝔄 x').similarity('fjørd 𝔄 x')).toBe(1);
  });

  it("equals pg_trgm's similarity() on real names and typed queries", async () => {
    const names = realNames().slice(0, 400);
    const queries = fc.sample(
      fc.tuple(fc.constantFrom(...names), fc.nat(), fc.nat()).map(([name, cut, drop]) => {
        // What people type: a name, its first letters, or a name with a letter dropped.
        if (drop % 3 === 0) return name.slice(0, 3 + (cut % Math.max(1, name.length - 2)));
        const at = cut % name.length;
        return drop % 3 === 1 ? name : (name.slice(0, at) + name.slice(at + 1)).trim().replace(/ +/g, ' ');
      }),
      { numRuns: 40, seed: 5 },
    );
    queries.push('amercan red cross', 'societe dentraide', 'x', 'vermont');
    for (const query of queries) {
      const rows = await store.sql.query<{ name: string; s: number }>(
        'SELECT n AS name, similarity(n, $1)::float8 AS s FROM unnest($2::text[]) AS n',
        [query, names],
      );
      const ranked = new TrigramQuery(query);
      for (const row of rows) expect(ranked.similarity(row.name), `${query} / ${row.name}`).toBe(row.s);
    }
  });
});
