import { LRUCache } from 'lru-cache';
import type { Clock } from '../../platform/clock.ts';
import { NotFoundError } from '../../platform/errors.ts';
import { type NameCondition, planNameSearch, searchBeginningFirst } from './name-plan.ts';
import { CharityNameStatistics, type NameStatistics } from './name-statistics.ts';
import type { CharitySearchRepository } from './search-repository.ts';
import {
  type CharitySearchCriteria,
  type CharitySearchPage,
  MAX_NAME_MATCHES,
  MAX_PREFIX_WORDS,
  MIN_FUZZY_LENGTH,
  MIN_PREFIX_LENGTH,
  type RankedRow,
  filtered,
  nameWords,
  prefixEnd,
  rankByName,
} from './search-rules.ts';

export type { CharitySearchCriteria, CharitySearchPage, CharitySummary, SortKey } from './search-rules.ts';

/** What the search reads: the repository's methods (a test may give a fake). */
export type CharitySearchReads = Pick<CharitySearchRepository, keyof CharitySearchRepository>;

/**
 * What query words stand for (the known words they begin, or resemble) is kept this long per
 * process: a name search then usually costs one round trip instead of two. A word that an import
 * adds to the directory is found by prefix once this has passed (the directory changes monthly).
 */
export const VOCABULARY_TTL_MS = 60_000;
const VOCABULARY_CACHE_WORDS = 20_000;

/** What each query word stands for: known words it begins, or known words it resembles. */
interface WordMatches {
  word: string;
  prefixed: string[];
  /** More known words begin with it than MAX_PREFIX_WORDS: it matches only itself. */
  broad: boolean;
  similar: string[];
}

/** Whether the query word matches the words it begins (or else only whole words). */
function matchesAsPrefix(m: WordMatches): boolean {
  return !m.broad && [...m.word].length >= MIN_PREFIX_LENGTH && m.prefixed.length > 0;
}

/**
 * GET /api/CharitySearch. A Name is resolved against the vocabulary of name words first: each
 * query word stands for the known words it is a prefix of, or, when it begins none (a typo), for
 * the known words most similar to it by trigrams. The directory is then searched on whole words
 * through the GIN index of name words, which stays fast on the national directory where raw
 * prefix or similarity scans would not. Details and figures: docs/decisions.md, "Charity directory".
 */
export class CharityService {
  readonly #repository: CharitySearchReads;
  readonly #statistics: CharityNameStatistics;
  /** Query word -> the known words it begins (up to MAX_PREFIX_WORDS + 1), as last looked up. */
  readonly #prefixed: LRUCache<string, string[]>;
  /** Query word -> the known words most similar to it, as last looked up. */
  readonly #similar: LRUCache<string, string[]>;
  readonly #plan: typeof planNameSearch;
  readonly #beginningFirst: typeof searchBeginningFirst;

  /** `plan` and `beginningFirst` are for tests (every plan must find the same charities). */
  constructor(deps: { repository: CharitySearchReads; clock: Clock; plan?: typeof planNameSearch; beginningFirst?: typeof searchBeginningFirst }) {
    const { repository, clock } = deps;
    this.#repository = repository;
    this.#statistics = new CharityNameStatistics(() => repository.nameStatistics());
    this.#plan = deps.plan ?? planNameSearch;
    this.#beginningFirst = deps.beginningFirst ?? searchBeginningFirst;
    // ttlResolution 0: the time is read from the clock on every look-up (the cache would keep it a millisecond).
    const cache = { max: VOCABULARY_CACHE_WORDS, ttl: VOCABULARY_TTL_MS, ttlResolution: 0, perf: { now: () => clock.now().getTime() } };
    this.#prefixed = new LRUCache<string, string[]>(cache);
    this.#similar = new LRUCache<string, string[]>(cache);
  }

  /** One page of the charities matching the criteria; NotFoundError when none does. */
  async search(criteria: CharitySearchCriteria): Promise<CharitySearchPage> {
    const page = criteria.name ? await this.#searchByName(criteria, nameWords(criteria.name)) : await this.#searchByFilter(criteria);
    if (page.total === 0) throw new NotFoundError('No charity matches the search.');
    return page;
  }

  async #searchByName(criteria: CharitySearchCriteria, words: string[]): Promise<CharitySearchPage> {
    const matches = await this.#matchWords(words);
    // Words that begin no known word are probably misspelt: look for similar ones.
    const unknown = matches.map((m) => m.prefixed.length === 0 && !m.broad);
    if (unknown.some(Boolean)) await this.#addSimilar(matches, unknown);
    let page = await this.#runName(criteria, matches);
    if (page.total === 0 && !unknown.every(Boolean)) {
      // Every word is a known prefix yet nothing has them all: one of them may be a typo that
      // happens to be a word too ("amercan" in one registry name). Widen every word once.
      const rest = unknown.map((u) => !u);
      await this.#addSimilar(matches, rest);
      if (matches.some((m, i) => rest[i] && m.similar.length > 0)) page = await this.#runName(criteria, matches);
    }
    return page;
  }

  /**
   * What each word stands for: the known words it begins (3 letters or more), or itself when known
   * (shorter words: the range [word, word + U+0001) holds only the word). Words not looked up in
   * the last VOCABULARY_TTL_MS are looked up in one round trip.
   */
  async #matchWords(words: string[]): Promise<WordMatches[]> {
    const known = await throughCache(this.#prefixed, words, (missing) =>
      this.#repository.wordsInRanges(
        missing,
        missing.map((w) => ([...w].length >= MIN_PREFIX_LENGTH ? prefixEnd(w) : `${w}\u0001`)),
      ),
    );
    return words.map((word) => {
      const prefixed = known.get(word) ?? [];
      const broad = prefixed.length > MAX_PREFIX_WORDS;
      return { word, prefixed: broad ? [] : prefixed, broad, similar: [] };
    });
  }

  async #addSimilar(matches: WordMatches[], which: boolean[]): Promise<void> {
    const words = matches.filter((m, i) => which[i] && [...m.word].length >= MIN_FUZZY_LENGTH).map((m) => m.word);
    const known = await throughCache(this.#similar, words, (missing) => this.#repository.similarWords(missing));
    for (const [i, m] of matches.entries()) {
      const similar = which[i] ? known.get(m.word) : undefined;
      if (similar) m.similar = similar.filter((w) => !m.prefixed.includes(w));
    }
  }

  /** What each query word stands for (the name must have one of them); null if one stands for nothing. */
  #conditions(matches: WordMatches[]): NameCondition[] | null {
    const conditions: NameCondition[] = [];
    for (const m of matches) {
      const words = m.broad ? [m.word, ...m.similar] : [...m.prefixed, ...m.similar];
      if (words.length === 0) return null;
      // The same condition as LIKE patterns on ' ' || search_name || ' ', for checking rows one by
      // one: a word beginning with the query word, or one of the words exactly.
      const prefix = matchesAsPrefix(m);
      const exact = prefix ? m.similar : words;
      conditions.push({ words, patterns: [...(prefix ? [`% ${m.word}%`] : []), ...exact.map((w) => `% ${w} %`)] });
    }
    return conditions;
  }

  /**
   * A Name search ranks its matches, which means reading each of them: it reads at most
   * MAX_NAME_MATCHES + 1, so that one common word ("church": 90,000 charities nationally) costs
   * what a precise name costs. Beyond that, TotalResultCount says MAX_NAME_MATCHES.
   */
  async #runName(criteria: CharitySearchCriteria, matches: WordMatches[]): Promise<CharitySearchPage> {
    const conditions = this.#conditions(matches);
    if (conditions === null) return emptyPage(criteria);
    const statistics = await this.#statistics.get();
    // A City, State or EIN narrows the search through its own index; a range of names would be
    // read past the rows those criteria refuse.
    const beginning =
      !filtered(criteria) && this.#beginningFirst(conditions, statistics) ? await this.#namesBeginningWith(criteria, conditions, matchesAsPrefix(matches.at(-1)!)) : null;
    const found = beginning ?? (await this.#repository.nameCandidates(criteria, conditions, this.#indexed(criteria, conditions, statistics)));
    const total = Math.min(found.length, MAX_NAME_MATCHES);
    const offsetRows = (criteria.pageIndex - 1) * criteria.pageSize;
    // A name search's pages end with its MAX_NAME_MATCHES best matches.
    const end = Math.min(offsetRows + criteria.pageSize, MAX_NAME_MATCHES);
    const ranked = criteria.sort ? found : rankByName(found, criteria.name!);
    // Ranking or sorting needs little of each match: the candidates are read with that alone, and
    // only the page's rows (10 of up to 201) whole (on the benchmark's directory, reading them
    // whole took a sixth of a name query's time).
    const page = ranked.slice(offsetRows, Math.max(offsetRows, end));
    return {
      total,
      totalPages: Math.ceil(total / criteria.pageSize),
      pageIndex: criteria.pageIndex,
      pageSize: criteria.pageSize,
      results: await this.#repository.summaries(page.map((r) => r.id)),
    };
  }

  /** Which conditions the name-word index answers (none: the directory is read in storage order). */
  #indexed(criteria: CharitySearchCriteria, conditions: NameCondition[], statistics: NameStatistics): Set<number> {
    const plan = this.#plan(conditions, statistics);
    if (!plan.scan) return plan.indexed;
    if (criteria.registry === 'IRS') return new Set();
    // The statistics are the whole directory's, 95 % US names: words common there can be rare in
    // the Canadian registry, which reading in storage order could then read through.
    return new Set(conditions.keys());
  }

  /**
   * The first MAX_NAME_MATCHES + 1 charities, in name order, whose name begins with the query as
   * typed and has every condition (a name beginning "national associ" can still fail one: a word
   * of two letters, or a prefix of too many words, must be a whole word); null when the first
   * BEGINNING_ROWS such names hold fewer. The whole-name match, if any, sorts first, so it is
   * always among them. For a search on the name alone. `lastIsPrefix`: the query's last word
   * matches the words it begins; when it must be a whole word ("phi b", or a prefix of too many
   * words), only names continuing with a space are read.
   */
  async #namesBeginningWith(criteria: CharitySearchCriteria, conditions: NameCondition[], lastIsPrefix: boolean): Promise<RankedRow[] | null> {
    const rows = await this.#repository.namesBeginningWith(criteria, conditions, lastIsPrefix);
    return rows.length > MAX_NAME_MATCHES ? rows : null;
  }

  /** Searches without a Name: an EIN, a State or a City. */
  async #searchByFilter(criteria: CharitySearchCriteria): Promise<CharitySearchPage> {
    const { total, results } = await this.#repository.page(criteria, (criteria.pageIndex - 1) * criteria.pageSize);
    return { total, totalPages: Math.ceil(total / criteria.pageSize), pageIndex: criteria.pageIndex, pageSize: criteria.pageSize, results };
  }
}

/**
 * Each word's entry, read from `cache` once (an entry could expire between a check and a later
 * read, while the others are looked up); the missing ones are looked up together and kept.
 */
async function throughCache(
  cache: LRUCache<string, string[]>,
  words: string[],
  lookUp: (missing: string[]) => Promise<[string, string[]][]>,
): Promise<Map<string, string[]>> {
  const known = new Map(words.map((w) => [w, cache.get(w)] as const));
  const missing = [...known].filter(([, entry]) => entry === undefined).map(([w]) => w);
  if (missing.length > 0) {
    for (const [word, entry] of await lookUp(missing)) {
      known.set(word, entry);
      cache.set(word, entry);
    }
  }
  return new Map([...known].filter((e): e is [string, string[]] => e[1] !== undefined));
}

function emptyPage(criteria: CharitySearchCriteria): CharitySearchPage {
  return { total: 0, totalPages: 0, pageIndex: criteria.pageIndex, pageSize: criteria.pageSize, results: [] };
}
