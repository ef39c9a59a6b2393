import { LRUCache } from 'lru-cache';
import { type Clock, systemClock } from '../../platform/clock.ts';
import {
  type CharitySearchCriteria,
  type CharitySearchInput,
  type SortColumn,
  parseCharitySearch,
} from '../../domain/charities/search-criteria.ts';
import { TrigramQuery } from '../../domain/charities/trigram-similarity.ts';
import type { QueryOptions, SqlClient, Store } from '../../platform/database/database.ts';
import { type NameCondition, planNameSearch, searchBeginningFirst } from './name-plan.ts';
import { CharityNameStatistics, type NameStatistics } from './name-statistics.ts';
import { NotFoundError, ValidationError } from '../../platform/errors.ts';

/** One search result, in the service's own terms. */
export interface CharitySummary {
  id: string;
  name: string;
  ein: string;
  address1: string | null;
  address2: string | null;
  city: string | null;
  state: string | null;
  zip: string | null;
  country: string | null;
  eligible: boolean;
  parentOrgName: string | null;
  nteeCode: string | null;
}

export interface CharitySearchPage {
  total: number;
  totalPages: number;
  pageIndex: number;
  pageSize: number;
  results: CharitySummary[];
}

/**
 * Query words shorter than this match whole words only ("st", "of", "a"): as prefixes they
 * would stand for thousands of words and most of the directory.
 */
const MIN_PREFIX_LENGTH = 3;
/** A longer prefix that still begins more known words than this also matches only itself. */
const MAX_PREFIX_WORDS = 64;
/** Misspelt words are replaced by at most this many of the most similar known words. */
const MAX_SIMILAR_WORDS = 8;
/**
 * A Name search ranks at most this many matches (the first found) and reports at most this many:
 * more than a person pages through before refining the search, and it keeps a common word or
 * a short prefix ("church", "nati") as cheap as a precise name.
 */
export const MAX_NAME_MATCHES = 200;
/**
 * Names read, at most, when a name search looks first among the names beginning with the query:
 * if these hold fewer than MAX_NAME_MATCHES + 1 matches, the search goes on through the name-word
 * index, having spent little.
 */
const BEGINNING_ROWS = 1_000;
/**
 * EIN lookups and the word lookups of a name search are prepared (fixed texts, or a few shapes):
 * planning cost more than running them. A name search's main query is prepared too when its shape
 * comes from a small set (`preparedShape`): its text then varies only with how many words the
 * query has and which of them the index answers.
 */
const PREPARED = { prepare: true } as const;
/**
 * What query words stand for (the known words they begin, or resemble) is kept this long per
 * process: a name search then usually costs one round trip instead of two. A word that an import
 * adds to the directory is found by prefix once this has passed (the directory changes monthly).
 */
export const VOCABULARY_TTL_MS = 60_000;
const VOCABULARY_CACHE_WORDS = 20_000;
/** Trigram similarity is meaningless on very short words: they are matched as prefixes only. */
const MIN_FUZZY_LENGTH = 4;

/** Sort keys: case- and accent-insensitive, byte order ("C"), so every store sorts alike. */
const SORT_KEYS: Record<SortColumn, string> = {
  CharityId: 'c.id',
  NpoName: 'c.search_name',
  EIN: 'c.ein COLLATE "C"',
  Address1: 'lower(c.address1) COLLATE "C"',
  Address2: 'lower(c.address2) COLLATE "C"',
  City: 'c.city_key',
  State: 'c.state COLLATE "C"',
  Zip: 'c.zip COLLATE "C"',
  Country: 'c.country COLLATE "C"',
  NpoEligibilityFlag: 'c.eligible',
  ParentOrgName: 'lower(g.central_name) COLLATE "C"',
  NTEEcode: 'c.ntee_code COLLATE "C"',
};

const OWN_COLUMNS = 'c.id, c.name, c.ein, c.address1, c.address2, c.city, c.state, c.zip, c.country, c.eligible, c.ntee_code';
const RESULT_COLUMNS = `${OWN_COLUMNS}, g.central_name AS parent_org_name`;
const PARENT_JOIN = `LEFT JOIN charity_groups g ON c.group_role = 'member' AND g.group_exemption = c.group_exemption`;
/**
 * A name search's page of rows by id. The central's name is looked up row by row (a few index
 * probes for 10 rows, where the join hashed every group first).
 */
const PAGE_ROWS_SQL = `SELECT ${OWN_COLUMNS},
  (SELECT g.central_name FROM charity_groups g WHERE c.group_role = 'member' AND g.group_exemption = c.group_exemption) AS parent_org_name
  FROM charities c WHERE c.id = ANY($1::uuid[])`;

interface ResultRow {
  id: string;
  name: string;
  ein: string;
  address1: string | null;
  address2: string | null;
  city: string | null;
  state: string | null;
  zip: string | null;
  country: string | null;
  eligible: boolean;
  ntee_code: string | null;
  parent_org_name: string | null;
  total?: number | string;
}

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

/** The first string after every string that begins with `prefix` (in code point order). */
function prefixEnd(prefix: string): string {
  const chars = [...prefix];
  const last = chars.pop()!;
  return chars.join('') + String.fromCodePoint(last.codePointAt(0)! + 1);
}

/**
 * GET /api/CharitySearch. A Name is resolved against the vocabulary of name words first: each
 * query word stands for the known words it is a prefix of, or, when it begins none (a typo), for
 * the known words most similar to it by trigrams. The directory is then searched on whole words
 * through the GIN index of name words, which stays fast on the national directory where raw
 * prefix or similarity scans would not. Details and figures: docs/decisions.md, "Charity directory".
 */
export class CharityService {
  readonly #sql: SqlClient;
  readonly #statistics: CharityNameStatistics;
  /** Query word -> the known words it begins (up to MAX_PREFIX_WORDS + 1), as last looked up. */
  readonly #prefixed: LRUCache<string, string[]>;
  /** Query word -> the known words most similar to it, as last looked up. */
  readonly #similar: LRUCache<string, string[]>;
  readonly #plan: typeof planNameSearch;
  readonly #beginningFirst: typeof searchBeginningFirst;

  /** `plan` and `beginningFirst` are for tests (every plan must find the same charities). */
  constructor(store: Store, options: { clock?: Clock; plan?: typeof planNameSearch; beginningFirst?: typeof searchBeginningFirst } = {}) {
    this.#sql = store.sql;
    this.#statistics = new CharityNameStatistics(store.sql);
    this.#plan = options.plan ?? planNameSearch;
    this.#beginningFirst = options.beginningFirst ?? searchBeginningFirst;
    const clock = options.clock ?? systemClock;
    // ttlResolution 0: the time is read from the clock on every look-up (the cache would keep it a millisecond).
    const cache = { max: VOCABULARY_CACHE_WORDS, ttl: VOCABULARY_TTL_MS, ttlResolution: 0, perf: { now: () => clock.now().getTime() } };
    this.#prefixed = new LRUCache<string, string[]>(cache);
    this.#similar = new LRUCache<string, string[]>(cache);
  }

  async search(input: CharitySearchInput): Promise<CharitySearchPage> {
    const parsed = parseCharitySearch(input);
    if ('violations' in parsed) throw new ValidationError(parsed.violations);
    const criteria = parsed.criteria;
    const page = criteria.name ? await this.#searchByName(criteria, criteria.name) : await this.#run(criteria);
    if (page.total === 0) throw new NotFoundError('No charity matches the search.');
    return page;
  }

  async #searchByName(criteria: CharitySearchCriteria, name: { text: string; words: string[] }): Promise<CharitySearchPage> {
    const matches = await this.#matchWords(name.words);
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
    const known = await throughCache(this.#prefixed, words, async (missing) => {
      const upper = missing.map((w) => ([...w].length >= MIN_PREFIX_LENGTH ? prefixEnd(w) : `${w}\u0001`));
      const rows = await this.#sql.query<{ i: number | string; prefixed: string[] }>(
        `SELECT q.i, ARRAY(SELECT w.word FROM charity_words w WHERE w.word >= q.word AND w.word < q.upper
                           ORDER BY w.word LIMIT ${MAX_PREFIX_WORDS + 1}) AS prefixed
         FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS q(word, upper, i)`,
        [missing, upper],
        PREPARED,
      );
      return rows.map((r) => [missing[Number(r.i) - 1]!, r.prefixed]);
    });
    return words.map((word) => {
      const prefixed = known.get(word) ?? [];
      const broad = prefixed.length > MAX_PREFIX_WORDS;
      return { word, prefixed: broad ? [] : prefixed, broad, similar: [] };
    });
  }

  async #addSimilar(matches: WordMatches[], which: boolean[]): Promise<void> {
    const words = matches.filter((m, i) => which[i] && [...m.word].length >= MIN_FUZZY_LENGTH).map((m) => m.word);
    const known = await throughCache(this.#similar, words, async (missing) => {
      const rows = await this.#sql.query<{ word: string; similar: string[] }>(
        `SELECT q.word, ARRAY(SELECT w.word FROM charity_words w WHERE w.word % q.word
                              ORDER BY similarity(w.word, q.word) DESC, w.word LIMIT ${MAX_SIMILAR_WORDS}) AS similar
         FROM unnest($1::text[]) AS q(word)`,
        [missing],
        PREPARED,
      );
      return rows.map((r) => [r.word, r.similar]);
    });
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
   * The criteria other than Name, as SQL conditions on `c` (charities) with their parameters; the
   * registry on `registryOf` (`n`, charity_names, in a name query: its indexes lead with it).
   */
  #filter(criteria: CharitySearchCriteria, registryOf: 'c' | 'n' = 'c'): { where: string[]; params: unknown[]; param: (value: unknown) => string } {
    const params: unknown[] = [criteria.registry];
    const where = [`${registryOf}.registry = $1`];
    const param = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    if (criteria.taxId) {
      where.push(`c.tax_id_root = ${param(criteria.taxId.root)}`);
      if (criteria.taxId.registryNumber) where.push(`c.registry_number = ${param(criteria.taxId.registryNumber)}`);
    }
    if (criteria.state) where.push(`c.state = ${param(criteria.state)}`);
    if (criteria.cityKey) where.push(`c.city_key = ${param(criteria.cityKey)}`);
    return { where, params, param };
  }

  #explicitOrder(sort: NonNullable<CharitySearchCriteria['sort']>): string {
    const direction = sort.desc ? 'DESC' : 'ASC';
    return `${SORT_KEYS[sort.column]} ${direction} NULLS LAST, c.search_name ${direction}, c.registry_number`;
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
    const found = beginning ?? (await this.#nameCandidates(criteria, conditions, this.#indexed(criteria, conditions, statistics)));
    const total = Math.min(found.length, MAX_NAME_MATCHES);
    const offsetRows = (criteria.pageIndex - 1) * criteria.pageSize;
    // A name search's pages end with its MAX_NAME_MATCHES best matches.
    const end = Math.min(offsetRows + criteria.pageSize, MAX_NAME_MATCHES);
    const ranked = criteria.sort ? found : rankByName(found, criteria.name!.text);
    const page = ranked.slice(offsetRows, Math.max(offsetRows, end));
    return {
      total,
      totalPages: Math.ceil(total / criteria.pageSize),
      pageIndex: criteria.pageIndex,
      pageSize: criteria.pageSize,
      results: (await this.#pageRows(page)).map(toSummary),
    };
  }

  /**
   * The whole rows of a page of matches, in its order. Ranking or sorting needs little of each
   * match: the candidates are read with that alone, and only the page's rows (10 of up to 201)
   * whole (on the benchmark's directory, reading them whole took a sixth of a name query's time).
   */
  async #pageRows(page: RankedRow[]): Promise<ResultRow[]> {
    if (page.length === 0) return [];
    const rows = await this.#sql.query<ResultRow>(PAGE_ROWS_SQL, [page.map((r) => r.id)], PREPARED);
    const byId = new Map(rows.map((r) => [r.id, r]));
    // A row an import removed in between is left out (imports replace rows, and never remove them but in a first load).
    return page.flatMap((r) => byId.get(r.id) ?? []);
  }

  /** What a name query reads of each match: what ranking needs, and the central's name when it sorts by it. */
  #candidateColumns(criteria: CharitySearchCriteria): { columns: string; join: string } {
    return { columns: 'c.id, c.search_name, c.registry_number', join: criteria.sort?.column === 'ParentOrgName' ? PARENT_JOIN : '' };
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
   * BEGINNING_ROWS such names hold fewer. Sorted when the search asks for a sort. Names are read
   * in the order of the btree on (registry, search_name): equal names in the order of their row
   * addresses, the same on every request while the rows are unchanged. The whole-name match, if
   * any, sorts first, so it is always among them. For a search on the name alone.
   * `lastIsPrefix`: the query's last word matches the words it begins; when it must be a whole
   * word ("phi b", or a prefix of too many words), only names continuing with a space are read.
   */
  async #namesBeginningWith(criteria: CharitySearchCriteria, conditions: NameCondition[], lastIsPrefix: boolean): Promise<RankedRow[] | null> {
    const { where, params, param } = this.#filter(criteria, 'n');
    const text = criteria.name!.text;
    // [text, text + '!') holds text itself and text + ' ' + anything: a normalized name has no
    // character below '!' but the space.
    where.push(`n.search_name >= ${param(text)}`, `n.search_name < ${param(lastIsPrefix ? prefixEnd(text) : `${text}!`)}`);
    const checked = conditions.map(({ patterns }) => `(' ' || c.search_name || ' ') LIKE ANY (${param(patterns)}::text[])`);
    const order = criteria.sort ? ` ORDER BY ${this.#explicitOrder(criteria.sort)}` : '';
    const { columns, join } = this.#candidateColumns(criteria);
    const { row, from } = nameSource(criteria);
    const rows = await this.#sql.query<RankedRow>(
      `SELECT ${columns}
       FROM (SELECT * FROM (SELECT ${row} FROM ${from} WHERE ${where.join(' AND ')} ORDER BY n.registry, n.search_name LIMIT ${BEGINNING_ROWS}) c
             WHERE ${checked.join(' AND ')} LIMIT ${MAX_NAME_MATCHES + 1}) c
       ${join}${order}`,
      params,
      preparedShape(criteria, conditions),
    );
    return rows.length > MAX_NAME_MATCHES ? rows : null;
  }

  /**
   * The first MAX_NAME_MATCHES + 1 charities found having every condition, sorted when the search
   * asks for a sort (ranking by name is the caller's). The index answers the `indexed` conditions
   * (none: the directory is read in storage order); the others are checked on each row read.
   */
  async #nameCandidates(
    criteria: CharitySearchCriteria,
    conditions: NameCondition[],
    indexed: Set<number>,
  ): Promise<RankedRow[]> {
    const { where, params, param } = this.#filter(criteria, 'n');
    const checked: string[] = [];
    for (const [i, { words, patterns }] of conditions.entries()) {
      if (indexed.has(i)) where.push(`string_to_array(n.search_name, ' ') && ${param(words)}::text[]`);
      // Checked on each row read: a LIKE costs a tenth of an array overlap with 64 words.
      else checked.push(`(' ' || c.search_name || ' ') LIKE ANY (${param(patterns)}::text[])`);
    }
    const order = criteria.sort ? ` ORDER BY ${this.#explicitOrder(criteria.sort)}` : '';
    // `found` is planned as if all of it were read (a CTE is), so the planner does not trade the
    // index for a scan in storage order on the strength of the LIMIT and a guess of how common
    // the words are (a guess that sent "bar" to a 110 ms scan); CTEs are read lazily, so the LIMIT
    // still stops reading early.
    const { columns, join } = this.#candidateColumns(criteria);
    const { row, from } = nameSource(criteria);
    return this.#sql.query<RankedRow>(
      `WITH found AS MATERIALIZED (SELECT ${row} FROM ${from} WHERE ${where.join(' AND ')})
       SELECT ${columns}
       FROM (SELECT * FROM found c${checked.length ? ` WHERE ${checked.join(' AND ')}` : ''} LIMIT ${MAX_NAME_MATCHES + 1}) c
       ${join}${order}`,
      params,
      preparedShape(criteria, conditions),
    );
  }

  /** Searches without a Name: an EIN, a State or a City. */
  async #run(criteria: CharitySearchCriteria): Promise<CharitySearchPage> {
    const { where, params, param } = this.#filter(criteria);
    const filter = where.join(' AND ');
    const filterParams = [...params];
    const order = criteria.sort ? this.#explicitOrder(criteria.sort) : 'c.search_name, c.registry_number';
    const offsetRows = (criteria.pageIndex - 1) * criteria.pageSize;
    const page = `ORDER BY ${order} LIMIT ${param(criteria.pageSize)} OFFSET ${param(offsetRows)}`;

    let total: number;
    let rows: ResultRow[];
    if (criteria.taxId) {
      // An EIN finds one charity (a BN root a few): one round trip, counted in the same pass.
      rows = await this.#sql.query<ResultRow>(
        `SELECT ${RESULT_COLUMNS}, count(*) OVER () AS total FROM charities c ${PARENT_JOIN} WHERE ${filter} ${page}`,
        params,
        PREPARED,
      );
      total = rows.length ? Number(rows[0]!.total) : await this.#count(`SELECT 1 FROM charities c WHERE ${filter}`, filterParams);
    } else {
      // State and City searches count on their index and read only the page.
      total = await this.#count(`SELECT 1 FROM charities c WHERE ${filter}`, filterParams);
      rows = total > offsetRows ? await this.#sql.query<ResultRow>(`SELECT ${RESULT_COLUMNS} FROM charities c ${PARENT_JOIN} WHERE ${filter} ${page}`, params) : [];
    }
    return {
      total,
      totalPages: Math.ceil(total / criteria.pageSize),
      pageIndex: criteria.pageIndex,
      pageSize: criteria.pageSize,
      results: rows.map(toSummary),
    };
  }

  async #count(rows: string, params: unknown[]): Promise<number> {
    const [row] = await this.#sql.query<{ n: number | string }>(`SELECT count(*) AS n FROM (${rows}) AS r`, params);
    return Number(row?.n ?? 0);
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

/** Whether the search has a City, State or EIN besides its Name (they narrow through charities' own indexes). */
function filtered(criteria: CharitySearchCriteria): boolean {
  return Boolean(criteria.cityKey || criteria.state || criteria.taxId);
}

/**
 * Where a name query finds its candidates: charity_names (`n`), the narrow table the name indexes
 * are on, joined to charities (`c`) only when a filter or a sort needs more than the name. `row`:
 * what it keeps of each (the whole charity when it sorts: the order may use any column).
 */
function nameSource(criteria: CharitySearchCriteria): { row: string; from: string } {
  return {
    row: criteria.sort ? 'c.*' : 'n.id, n.search_name, n.registry_number',
    from: criteria.sort || filtered(criteria) ? 'charity_names n JOIN charities c ON c.id = n.id' : 'charity_names n',
  };
}

/**
 * A name query is prepared, once per connection and shape, when its text is one of a bounded set:
 * a Name alone, unsorted, of at most this many words (at most 2^6 index choices each). Its
 * planning was a seventh of a name search's time in the database (0.14 ms of 0.9 ms on the
 * benchmark's directory); the plan PostgreSQL then keeps is the same as the ones it made for
 * each query (the name-word index, or the directory in storage order when no condition uses it).
 * Longer, sorted or filtered searches stay unprepared rather than fill every connection with
 * statements used once.
 */
const MAX_PREPARED_CONDITIONS = 6;

function preparedShape(criteria: CharitySearchCriteria, conditions: NameCondition[]): QueryOptions | undefined {
  return !criteria.sort && !filtered(criteria) && conditions.length <= MAX_PREPARED_CONDITIONS ? PREPARED : undefined;
}

/** A match as ranked: its id and name. */
interface RankedRow {
  id: string;
  search_name: string;
  registry_number: string;
}

function emptyPage(criteria: CharitySearchCriteria): CharitySearchPage {
  return { total: 0, totalPages: 0, pageIndex: criteria.pageIndex, pageSize: criteria.pageSize, results: [] };
}

/**
 * Best matches first: the whole name, then by trigram similarity of the whole name to the query
 * (as pg_trgm computes it), then by name and registry number. Names compare in code point order,
 * as the directory's "C" collation sorts them.
 */
function rankByName(rows: RankedRow[], query: string): RankedRow[] {
  const trigrams = new TrigramQuery(query);
  const keyed = rows.map((row) => ({ row, exact: row.search_name === query, similarity: trigrams.similarity(row.search_name) }));
  keyed.sort(
    (a, b) =>
      Number(b.exact) - Number(a.exact) ||
      b.similarity - a.similarity ||
      codePointOrder(a.row.search_name, b.row.search_name) ||
      codePointOrder(a.row.registry_number, b.row.registry_number),
  );
  return keyed.map((k) => k.row);
}

function codePointOrder(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate starts a character above U+FFFF: after every character of the BMP.
    const xHigh = x >= 0xd800 && x <= 0xdfff;
    const yHigh = y >= 0xd800 && y <= 0xdfff;
    return xHigh === yHigh ? x - y : xHigh ? 1 : -1;
  }
  return a.length - b.length;
}

function toSummary(r: ResultRow): CharitySummary {
  return {
    id: r.id,
    name: r.name,
    ein: r.ein,
    address1: r.address1,
    address2: r.address2,
    city: r.city,
    state: r.state,
    zip: r.zip,
    country: r.country,
    eligible: r.eligible,
    parentOrgName: r.parent_org_name,
    nteeCode: r.ntee_code,
  };
}
