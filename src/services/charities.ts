import {
  type CharitySearchCriteria,
  type CharitySearchInput,
  type SortColumn,
  parseCharitySearch,
} from '../domain/charities/search-criteria.ts';
import type { SqlClient, Store } from '../store/database.ts';
import { NotFoundError, ValidationError } from './errors.ts';

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
 * EIN lookups are prepared (their query comes in a few shapes: criteria and sort): planning cost
 * more than running one. Name searches are not: preparing them made no difference.
 */
const PREPARED = { prepare: true } as const;
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

const RESULT_COLUMNS = `c.id, c.name, c.ein, c.address1, c.address2, c.city, c.state, c.zip, c.country, c.eligible,
  c.ntee_code, g.central_name AS parent_org_name`;
const PARENT_JOIN = `LEFT JOIN charity_groups g ON c.group_role = 'member' AND g.group_exemption = c.group_exemption`;

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

  constructor(store: Store) {
    this.#sql = store.sql;
  }

  async search(input: CharitySearchInput): Promise<CharitySearchPage> {
    const parsed = parseCharitySearch(input);
    if ('violations' in parsed) throw new ValidationError(parsed.violations);
    const criteria = parsed.criteria;
    const page = criteria.name ? await this.#searchByName(criteria, criteria.name) : await this.#run(criteria, null);
    if (page.total === 0) throw new NotFoundError('No charity matches the search.');
    return page;
  }

  async #searchByName(criteria: CharitySearchCriteria, name: { text: string; words: string[] }): Promise<CharitySearchPage> {
    const matches = await this.#matchWords(name.words);
    // Words that begin no known word are probably misspelt: look for similar ones.
    const unknown = matches.map((m) => m.prefixed.length === 0 && !m.broad);
    if (unknown.some(Boolean)) await this.#addSimilar(matches, unknown);
    let page = await this.#run(criteria, matches);
    if (page.total === 0 && !unknown.every(Boolean)) {
      // Every word is a known prefix yet nothing has them all: one of them may be a typo that
      // happens to be a word too ("amercan" in one registry name). Widen every word once.
      const rest = unknown.map((u) => !u);
      await this.#addSimilar(matches, rest);
      if (matches.some((m, i) => rest[i] && m.similar.length > 0)) page = await this.#run(criteria, matches);
    }
    return page;
  }

  /**
   * What each word stands for, in one round trip: the known words it begins (3 letters or more),
   * or itself when known (shorter words: the range [word, word + U+0001) holds only the word).
   */
  async #matchWords(words: string[]): Promise<WordMatches[]> {
    const upper = words.map((w) => ([...w].length >= MIN_PREFIX_LENGTH ? prefixEnd(w) : `${w}\u0001`));
    const rows = await this.#sql.query<{ i: number | string; prefixed: string[] }>(
      `SELECT q.i, ARRAY(SELECT w.word FROM charity_words w WHERE w.word >= q.word AND w.word < q.upper
                         ORDER BY w.word LIMIT ${MAX_PREFIX_WORDS + 1}) AS prefixed
       FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS q(word, upper, i)`,
      [words, upper],
    );
    const byIndex = new Map(rows.map((r) => [Number(r.i) - 1, r.prefixed]));
    return words.map((word, i) => {
      const prefixed = byIndex.get(i) ?? [];
      const broad = prefixed.length > MAX_PREFIX_WORDS;
      return { word, prefixed: broad ? [] : prefixed, broad, similar: [] };
    });
  }

  async #addSimilar(matches: WordMatches[], which: boolean[]): Promise<void> {
    const words = matches.filter((m, i) => which[i] && [...m.word].length >= MIN_FUZZY_LENGTH).map((m) => m.word);
    if (words.length === 0) return;
    const rows = await this.#sql.query<{ word: string; similar: string[] }>(
      `SELECT q.word, ARRAY(SELECT w.word FROM charity_words w WHERE w.word % q.word
                            ORDER BY similarity(w.word, q.word) DESC, w.word LIMIT ${MAX_SIMILAR_WORDS}) AS similar
       FROM unnest($1::text[]) AS q(word)`,
      [words],
    );
    const byWord = new Map(rows.map((r) => [r.word, r.similar]));
    for (const m of matches) {
      const similar = byWord.get(m.word);
      if (similar) m.similar = similar.filter((w) => !m.prefixed.includes(w));
    }
  }

  /**
   * One condition per query word: the name has one of the words it stands for. null when a word
   * stands for nothing at all (no match is possible).
   */
  #nameConditions(matches: WordMatches[], param: (value: unknown) => string): string[] | null {
    const conditions: string[] = [];
    for (const m of matches) {
      const words = m.broad ? [m.word, ...m.similar] : [...m.prefixed, ...m.similar];
      if (words.length === 0) return null;
      conditions.push(`string_to_array(c.search_name, ' ') && ${param(words)}::text[]`);
    }
    return conditions;
  }

  async #run(criteria: CharitySearchCriteria, matches: WordMatches[] | null): Promise<CharitySearchPage> {
    const empty = { total: 0, totalPages: 0, pageIndex: criteria.pageIndex, pageSize: criteria.pageSize, results: [] };
    const params: unknown[] = [criteria.registry];
    const where = ['c.registry = $1'];
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
    if (matches) {
      const conditions = this.#nameConditions(matches, param);
      if (conditions === null) return empty;
      where.push(...conditions);
    }
    const filter = where.join(' AND ');
    const filterParams = [...params];

    let order: string;
    if (criteria.sort) {
      const direction = criteria.sort.desc ? 'DESC' : 'ASC';
      order = `${SORT_KEYS[criteria.sort.column]} ${direction} NULLS LAST, c.search_name ${direction}, c.registry_number`;
    } else {
      // Best matches first: the whole name, then trigram similarity of the whole name to the query.
      const text = param(criteria.name!.text);
      order = `(c.search_name = ${text}) DESC, similarity(c.search_name, ${text}) DESC, c.search_name, c.registry_number`;
    }
    const offsetRows = (criteria.pageIndex - 1) * criteria.pageSize;
    // A name search's pages end with its MAX_NAME_MATCHES best matches.
    const pageRows = matches ? Math.max(0, Math.min(criteria.pageSize, MAX_NAME_MATCHES - offsetRows)) : criteria.pageSize;
    const page = `ORDER BY ${order} LIMIT ${param(pageRows)} OFFSET ${param(offsetRows)}`;

    let total: number;
    let rows: ResultRow[];
    if (matches) {
      // A name search ranks its matches, which means reading each of them: it reads at most
      // MAX_NAME_MATCHES + 1, so that one common word ("church": 90,000 charities nationally)
      // costs what a precise name costs. Beyond that, TotalResultCount says MAX_NAME_MATCHES.
      const candidates = `SELECT c.* FROM charities c WHERE ${filter} LIMIT ${MAX_NAME_MATCHES + 1}`;
      rows = await this.#sql.query<ResultRow>(
        `WITH m AS MATERIALIZED (${candidates})
         SELECT ${RESULT_COLUMNS}, (SELECT count(*) FROM m) AS total FROM m c ${PARENT_JOIN} ${page}`,
        params,
      );
      const found = rows.length ? Number(rows[0]!.total) : await this.#count(`SELECT 1 FROM charities c WHERE ${filter} LIMIT ${MAX_NAME_MATCHES + 1}`, filterParams);
      total = Math.min(found, MAX_NAME_MATCHES);
    } else if (criteria.taxId) {
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
