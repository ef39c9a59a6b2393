import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/platform/clock.ts';
import { NO_STATISTICS } from '../../../src/modules/charities/name-statistics.ts';
import { MAX_NAME_MATCHES, MAX_PREFIX_WORDS, type RankedRow } from '../../../src/modules/charities/search-rules.ts';
import { type CharitySearchCriteria, type CharitySearchReads, CharityService, VOCABULARY_TTL_MS } from '../../../src/modules/charities/search-service.ts';

/**
 * The name search's rules, against a directory in memory: what each query word stands for, when
 * the vocabulary is asked again, and how matches are ranked and paged. The SQL itself is tested on
 * the stores (search-plans.test.ts, http/api/charity-search.test.ts).
 */
function directory(names: string[], similar: Record<string, string[]> = {}) {
  const rows: RankedRow[] = names.map((searchName, i) => ({ id: `id-${i}`, searchName, registryNumber: String(100_000_000 + i) }));
  const vocabulary = [...new Set(names.flatMap((n) => n.split(' ')))].sort();
  const calls: string[] = [];
  const repository: CharitySearchReads = {
    wordsInRanges: async (words, uppers) => {
      calls.push(`words ${words.join(',')}`);
      return words.map((w, i) => [w, vocabulary.filter((v) => v >= w && v < uppers[i]!).slice(0, MAX_PREFIX_WORDS + 1)]);
    },
    similarWords: async (words) => {
      calls.push(`similar ${words.join(',')}`);
      return words.map((w) => [w, similar[w] ?? []]);
    },
    nameStatistics: async () => NO_STATISTICS,
    namesBeginningWith: async () => [],
    nameCandidates: async (_criteria, conditions) => {
      calls.push('candidates');
      return rows.filter((r) => conditions.every((c) => c.words.some((w) => r.searchName.split(' ').includes(w)))).slice(0, MAX_NAME_MATCHES + 1);
    },
    summaries: async (ids) =>
      ids.map((id) => {
        const row = rows.find((r) => r.id === id)!;
        return { id, name: row.searchName.toUpperCase(), ein: row.registryNumber, address1: null, address2: null, city: null, state: null, zip: null, country: null, eligible: true, parentOrgName: null, nteeCode: null };
      }),
    page: async () => ({ total: 0, results: [] }),
  };
  return { repository, calls };
}

const byName = (name: string, page: Partial<CharitySearchCriteria> = {}): CharitySearchCriteria => ({
  registry: 'IRS',
  name,
  taxId: null,
  cityKey: null,
  state: null,
  pageIndex: 1,
  pageSize: 10,
  sort: null,
  ...page,
});

describe('a name search', () => {
  it('matches a word of 3 letters or more as the beginning of known words, a shorter one as a whole word', async () => {
    const { repository } = directory(['red cross', 'redwood society', 'st albans', 'stone church']);
    const service = new CharityService({ repository, clock: new ManualClock() });
    expect((await service.search(byName('red'))).results.map((r) => r.name)).toEqual(['RED CROSS', 'REDWOOD SOCIETY']);
    expect((await service.search(byName('st'))).results.map((r) => r.name)).toEqual(['ST ALBANS']);
  });

  it('looks a word that begins no known word up among similar ones (a typo)', async () => {
    const { repository, calls } = directory(['american red cross', 'red cross society'], { amercan: ['american'] });
    const service = new CharityService({ repository, clock: new ManualClock() });
    const page = await service.search(byName('amercan red cross'));
    expect(page.results.map((r) => r.name)).toEqual(['AMERICAN RED CROSS']);
    expect(calls).toEqual(['words amercan,red,cross', 'similar amercan', 'candidates']);
  });

  it('widens every word once when each is known yet no name has them all (a typo that is a word too)', async () => {
    const { repository, calls } = directory(['american red cross', 'amercan legion'], { amercan: ['american'], cross: [] });
    const service = new CharityService({ repository, clock: new ManualClock() });
    expect((await service.search(byName('amercan red cross'))).results.map((r) => r.name)).toEqual(['AMERICAN RED CROSS']);
    // "red" is too short for similar words to mean anything.
    expect(calls).toEqual(['words amercan,red,cross', 'candidates', 'similar amercan,cross', 'candidates']);
  });

  it('asks the vocabulary again for a word only once VOCABULARY_TTL_MS has passed', async () => {
    const { repository, calls } = directory(['red cross']);
    const clock = new ManualClock();
    const service = new CharityService({ repository, clock });
    await service.search(byName('red cross'));
    clock.advance(VOCABULARY_TTL_MS - 1);
    await service.search(byName('red cross'));
    expect(calls.filter((c) => c.startsWith('words'))).toEqual(['words red,cross']);
    clock.advance(2);
    await service.search(byName('cross red'));
    expect(calls.filter((c) => c.startsWith('words'))).toEqual(['words red,cross', 'words cross,red']);
  });

  it('ranks the whole name first, then by similarity, and pages through at most MAX_NAME_MATCHES', async () => {
    const names = ['church of the red cross', 'red cross', 'red cross chapter', ...Array.from({ length: 250 }, (_, i) => `red cross ${i}`)];
    const { repository } = directory(names);
    const service = new CharityService({ repository, clock: new ManualClock() });
    const first = await service.search(byName('red cross'));
    expect(first.total).toBe(MAX_NAME_MATCHES);
    expect(first.totalPages).toBe(MAX_NAME_MATCHES / 10);
    expect(first.results[0]!.name).toBe('RED CROSS');
    // 201 read: the least similar of them is ranked out.
    const last = await service.search(byName('red cross', { pageIndex: 20 }));
    expect(last.results).toHaveLength(10);
    expect(last.results.at(-1)!.name).toBe('RED CROSS CHAPTER');
    expect(await service.search(byName('red cross', { pageIndex: 21 }))).toMatchObject({ total: MAX_NAME_MATCHES, results: [] });
  });

  it('finds nothing: NotFoundError', async () => {
    const { repository } = directory(['red cross']);
    const service = new CharityService({ repository, clock: new ManualClock() });
    await expect(service.search(byName('blue'))).rejects.toMatchObject({ name: 'NotFoundError' });
  });
});
