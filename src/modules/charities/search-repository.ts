import type { QueryOptions, SqlClient } from '../../platform/database/database.ts';
import type { NameCondition } from './name-plan.ts';
import { NO_STATISTICS, type NameStatistics } from './name-statistics.ts';
import {
  BEGINNING_ROWS,
  type CharitySearchCriteria,
  type CharitySummary,
  MAX_NAME_MATCHES,
  MAX_PREFIX_WORDS,
  MAX_SIMILAR_WORDS,
  type RankedRow,
  type SortKey,
  filtered,
  prefixEnd,
} from './search-rules.ts';

/**
 * EIN lookups and the word lookups of a name search are prepared (fixed texts, or a few shapes):
 * planning cost more than running them. A name search's main query is prepared too when its shape
 * comes from a small set (`preparedShape`): its text then varies only with how many words the
 * query has and which of them the index answers.
 */
const PREPARED = { prepare: true } as const;

/** Sort keys: case- and accent-insensitive, byte order ("C"), so every store sorts alike. */
const SORT_KEYS: Record<SortKey, string> = {
  id: 'c.id',
  name: 'c.search_name',
  ein: 'c.ein COLLATE "C"',
  address1: 'lower(c.address1) COLLATE "C"',
  address2: 'lower(c.address2) COLLATE "C"',
  city: 'c.city_key',
  state: 'c.state COLLATE "C"',
  zip: 'c.zip COLLATE "C"',
  country: 'c.country COLLATE "C"',
  eligible: 'c.eligible',
  parentOrgName: 'lower(g.central_name) COLLATE "C"',
  nteeCode: 'c.ntee_code COLLATE "C"',
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

/** The known words in each range [word, upper), up to MAX_PREFIX_WORDS + 1 of them. */
const WORDS_IN_RANGES_SQL = `SELECT q.i, ARRAY(SELECT w.word FROM charity_words w WHERE w.word >= q.word AND w.word < q.upper
                           ORDER BY w.word LIMIT ${MAX_PREFIX_WORDS + 1}) AS prefixed
         FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS q(word, upper, i)`;

/** The known words most similar to each word, by trigrams (pg_trgm's `%` uses its index). */
const SIMILAR_WORDS_SQL = `SELECT q.word, ARRAY(SELECT w.word FROM charity_words w WHERE w.word % q.word
                              ORDER BY similarity(w.word, q.word) DESC, w.word LIMIT ${MAX_SIMILAR_WORDS}) AS similar
         FROM unnest($1::text[]) AS q(word)`;

/**
 * The statistics ANALYZE keeps for the name-word index (pg_stats' most common elements: the figures
 * the planner itself uses) and the directory's row count. The most common elements' frequencies
 * are followed by their minimum, maximum and null share.
 */
const STATS_SQL = `SELECT s.most_common_elems::text::text[] AS words, s.most_common_elem_freqs AS freqs,
    (SELECT greatest(t.reltuples, 0) FROM pg_class t WHERE t.oid = 'charity_names'::regclass) AS rows
  FROM (SELECT 1) AS one
  LEFT JOIN pg_stats s ON s.schemaname = current_schema() AND s.tablename = 'charity_names_words'`;

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

interface CandidateRow {
  id: string;
  search_name: string;
  registry_number: string;
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

/**
 * Every statement of the charity search. What it sends, and in which order, is what the search
 * was measured with (docs/decisions.md, "Charity directory"): the texts, which of them are
 * prepared, and the columns each reads.
 */
export class CharitySearchRepository {
  readonly #sql: SqlClient;

  constructor(sql: SqlClient) {
    this.#sql = sql;
  }

  /** The known words in [words[i], uppers[i]) for each i (up to MAX_PREFIX_WORDS + 1, in order), by word. */
  async wordsInRanges(words: string[], uppers: string[]): Promise<[string, string[]][]> {
    const rows = await this.#sql.query<{ i: number | string; prefixed: string[] }>(WORDS_IN_RANGES_SQL, [words, uppers], PREPARED);
    return rows.map((r) => [words[Number(r.i) - 1]!, r.prefixed]);
  }

  /** The known words most similar to each word (up to MAX_SIMILAR_WORDS, most similar first), by word. */
  async similarWords(words: string[]): Promise<[string, string[]][]> {
    const rows = await this.#sql.query<{ word: string; similar: string[] }>(SIMILAR_WORDS_SQL, [words], PREPARED);
    return rows.map((r) => [r.word, r.similar]);
  }

  async nameStatistics(): Promise<NameStatistics> {
    const [row] = await this.#sql.query<{ words: string[] | null; freqs: number[] | null; rows: number | string | null }>(STATS_SQL, []);
    if (!row) return NO_STATISTICS;
    const words = row.words ?? [];
    const freqs = (row.freqs ?? []).map(Number);
    const commonWords = new Map(words.map((word, i) => [word, freqs[i] ?? 0] as const));
    // pg_stats lists the minimum frequency right after the words' own.
    return { rows: Number(row.rows ?? 0), commonWords, rareBelow: words.length ? (freqs[words.length] ?? 0) : 0 };
  }

  /** The charities of `ids`, in that order; an id no longer in the directory is left out. */
  async summaries(ids: string[]): Promise<CharitySummary[]> {
    if (ids.length === 0) return [];
    const rows = await this.#sql.query<ResultRow>(PAGE_ROWS_SQL, [ids], PREPARED);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.flatMap((id) => {
      const row = byId.get(id);
      return row ? [toSummary(row)] : [];
    });
  }

  /**
   * The first MAX_NAME_MATCHES + 1 charities, in name order, among the first BEGINNING_ROWS whose
   * search name is the query or begins with it (with `lastIsPrefix`, any name beginning with the
   * query's text; without, only the query followed by a space), having every condition. Sorted
   * when the search asks for a sort. Names are read in the order of the btree on (registry,
   * search_name): equal names in the order of their row addresses, the same on every request
   * while the rows are unchanged.
   */
  async namesBeginningWith(criteria: CharitySearchCriteria, conditions: NameCondition[], lastIsPrefix: boolean): Promise<RankedRow[]> {
    const { where, params, param } = filter(criteria, 'n');
    const text = criteria.name!;
    // [text, text + '!') holds text itself and text + ' ' + anything: a normalized name has no
    // character below '!' but the space.
    where.push(`n.search_name >= ${param(text)}`, `n.search_name < ${param(lastIsPrefix ? prefixEnd(text) : `${text}!`)}`);
    const checked = conditions.map(({ patterns }) => `(' ' || c.search_name || ' ') LIKE ANY (${param(patterns)}::text[])`);
    const order = criteria.sort ? ` ORDER BY ${explicitOrder(criteria.sort)}` : '';
    const { columns, join } = candidateColumns(criteria);
    const { row, from } = nameSource(criteria);
    const rows = await this.#sql.query<CandidateRow>(
      `SELECT ${columns}
       FROM (SELECT * FROM (SELECT ${row} FROM ${from} WHERE ${where.join(' AND ')} ORDER BY n.registry, n.search_name LIMIT ${BEGINNING_ROWS}) c
             WHERE ${checked.join(' AND ')} LIMIT ${MAX_NAME_MATCHES + 1}) c
       ${join}${order}`,
      params,
      preparedShape(criteria, conditions),
    );
    return rows.map(toRanked);
  }

  /**
   * The first MAX_NAME_MATCHES + 1 charities found having every condition, sorted when the search
   * asks for a sort. The name-word index answers the `indexed` conditions (none: the directory is
   * read in storage order); the others are checked on each row read.
   */
  async nameCandidates(criteria: CharitySearchCriteria, conditions: NameCondition[], indexed: Set<number>): Promise<RankedRow[]> {
    const { where, params, param } = filter(criteria, 'n');
    const checked: string[] = [];
    for (const [i, { words, patterns }] of conditions.entries()) {
      if (indexed.has(i)) where.push(`string_to_array(n.search_name, ' ') && ${param(words)}::text[]`);
      // Checked on each row read: a LIKE costs a tenth of an array overlap with 64 words.
      else checked.push(`(' ' || c.search_name || ' ') LIKE ANY (${param(patterns)}::text[])`);
    }
    const order = criteria.sort ? ` ORDER BY ${explicitOrder(criteria.sort)}` : '';
    // `found` is planned as if all of it were read (a CTE is), so the planner does not trade the
    // index for a scan in storage order on the strength of the LIMIT and a guess of how common
    // the words are (a guess that sent "bar" to a 110 ms scan); CTEs are read lazily, so the LIMIT
    // still stops reading early.
    const { columns, join } = candidateColumns(criteria);
    const { row, from } = nameSource(criteria);
    const rows = await this.#sql.query<CandidateRow>(
      `WITH found AS MATERIALIZED (SELECT ${row} FROM ${from} WHERE ${where.join(' AND ')})
       SELECT ${columns}
       FROM (SELECT * FROM found c${checked.length ? ` WHERE ${checked.join(' AND ')}` : ''} LIMIT ${MAX_NAME_MATCHES + 1}) c
       ${join}${order}`,
      params,
      preparedShape(criteria, conditions),
    );
    return rows.map(toRanked);
  }

  /** A page of a search without a Name (an EIN, a State or a City), from row `offsetRows`, and how many match. */
  async page(criteria: CharitySearchCriteria, offsetRows: number): Promise<{ total: number; results: CharitySummary[] }> {
    const { where, params, param } = filter(criteria);
    const condition = where.join(' AND ');
    const filterParams = [...params];
    const order = criteria.sort ? explicitOrder(criteria.sort) : 'c.search_name, c.registry_number';
    const page = `ORDER BY ${order} LIMIT ${param(criteria.pageSize)} OFFSET ${param(offsetRows)}`;

    let total: number;
    let rows: ResultRow[];
    if (criteria.taxId) {
      // An EIN finds one charity (a BN root a few): one round trip, counted in the same pass.
      rows = await this.#sql.query<ResultRow>(
        `SELECT ${RESULT_COLUMNS}, count(*) OVER () AS total FROM charities c ${PARENT_JOIN} WHERE ${condition} ${page}`,
        params,
        PREPARED,
      );
      total = rows.length ? Number(rows[0]!.total) : await this.#count(`SELECT 1 FROM charities c WHERE ${condition}`, filterParams);
    } else {
      // State and City searches count on their index and read only the page.
      total = await this.#count(`SELECT 1 FROM charities c WHERE ${condition}`, filterParams);
      rows = total > offsetRows ? await this.#sql.query<ResultRow>(`SELECT ${RESULT_COLUMNS} FROM charities c ${PARENT_JOIN} WHERE ${condition} ${page}`, params) : [];
    }
    return { total, results: rows.map(toSummary) };
  }

  async #count(rows: string, params: unknown[]): Promise<number> {
    const [row] = await this.#sql.query<{ n: number | string }>(`SELECT count(*) AS n FROM (${rows}) AS r`, params);
    return Number(row?.n ?? 0);
  }
}

/**
 * The criteria other than Name, as SQL conditions on `c` (charities) with their parameters; the
 * registry on `registryOf` (`n`, charity_names, in a name query: its indexes lead with it).
 */
function filter(criteria: CharitySearchCriteria, registryOf: 'c' | 'n' = 'c'): { where: string[]; params: unknown[]; param: (value: unknown) => string } {
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

function explicitOrder(sort: NonNullable<CharitySearchCriteria['sort']>): string {
  const direction = sort.desc ? 'DESC' : 'ASC';
  return `${SORT_KEYS[sort.column]} ${direction} NULLS LAST, c.search_name ${direction}, c.registry_number`;
}

/** What a name query reads of each match: what ranking needs, and the central's name when it sorts by it. */
function candidateColumns(criteria: CharitySearchCriteria): { columns: string; join: string } {
  return { columns: 'c.id, c.search_name, c.registry_number', join: criteria.sort?.column === 'parentOrgName' ? PARENT_JOIN : '' };
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

function preparedShape(criteria: CharitySearchCriteria, conditions: NameCondition[]): QueryOptions | undefined {
  return !criteria.sort && !filtered(criteria) && conditions.length <= MAX_PREPARED_CONDITIONS ? PREPARED : undefined;
}

function toRanked(r: CandidateRow): RankedRow {
  return { id: r.id, searchName: r.search_name, registryNumber: r.registry_number };
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
