import type { SqlClient } from '../../platform/database/database.ts';

/** What a name search needs to know to choose how to find its matches (charity-name-plan.ts). */
export interface NameStatistics {
  /** Charities in the directory (all registries), as ANALYZE last counted them. */
  rows: number;
  /** Common name word -> share of charities whose name has it (0 to 1). */
  commonWords: ReadonlyMap<string, number>;
  /** Every word not in commonWords is rarer than this share. */
  rareBelow: number;
}

/**
 * The statistics ANALYZE keeps for the name-word index (pg_stats' most common elements: the figures
 * the planner itself uses) and the directory's row count. The importer runs ANALYZE after each
 * import; this keeps a copy for REFRESH_MS, so a search costs no extra round trip.
 */
const REFRESH_MS = 5 * 60_000;

/** The most common elements' frequencies are followed by their minimum, maximum and null share. */
const STATS_SQL = `SELECT s.most_common_elems::text::text[] AS words, s.most_common_elem_freqs AS freqs,
    (SELECT greatest(t.reltuples, 0) FROM pg_class t WHERE t.oid = 'charity_names'::regclass) AS rows
  FROM (SELECT 1) AS one
  LEFT JOIN pg_stats s ON s.schemaname = current_schema() AND s.tablename = 'charity_names_words'`;

export const NO_STATISTICS: NameStatistics = { rows: 0, commonWords: new Map(), rareBelow: 0 };

export class CharityNameStatistics {
  readonly #sql: SqlClient;
  #current: NameStatistics = NO_STATISTICS;
  #loadedAt = -Infinity;
  #loading: Promise<void> | null = null;

  constructor(sql: SqlClient) {
    this.#sql = sql;
  }

  async get(): Promise<NameStatistics> {
    if (performance.now() - this.#loadedAt > REFRESH_MS) {
      this.#loading ??= this.#load().finally(() => (this.#loading = null));
      // The first load is waited for; later ones refresh behind the searches that use the old copy.
      if (this.#loadedAt === -Infinity) await this.#loading;
    }
    return this.#current;
  }

  /** Never fails: without statistics a search still finds the same charities, only more slowly. */
  async #load(): Promise<void> {
    try {
      const [row] = await this.#sql.query<{ words: string[] | null; freqs: number[] | null; rows: number | string | null }>(STATS_SQL, []);
      const words = row?.words ?? [];
      const freqs = (row?.freqs ?? []).map(Number);
      const commonWords = new Map(words.map((word, i) => [word, freqs[i] ?? 0] as const));
      // pg_stats lists the minimum frequency right after the words' own.
      this.#current = { rows: Number(row?.rows ?? 0), commonWords, rareBelow: words.length ? (freqs[words.length] ?? 0) : 0 };
    } catch {
      // Keep the previous copy; the search's own query will report a broken store.
    } finally {
      this.#loadedAt = performance.now();
    }
  }
}
