/** What a name search needs to know to choose how to find its matches (name-plan.ts). */
export interface NameStatistics {
  /** Charities in the directory (all registries), as ANALYZE last counted them. */
  rows: number;
  /** Common name word -> share of charities whose name has it (0 to 1). */
  commonWords: ReadonlyMap<string, number>;
  /** Every word not in commonWords is rarer than this share. */
  rareBelow: number;
}

export const NO_STATISTICS: NameStatistics = { rows: 0, commonWords: new Map(), rareBelow: 0 };

/**
 * The importer runs ANALYZE after each import, and the statistics it keeps for the name-word index
 * are what the planner itself uses; a process keeps a copy of them for REFRESH_MS, so a search
 * costs no extra round trip.
 */
const REFRESH_MS = 5 * 60_000;

/** The name-word statistics, read through `load` (the search repository) at most every REFRESH_MS. */
export class CharityNameStatistics {
  readonly #load: () => Promise<NameStatistics>;
  #current: NameStatistics = NO_STATISTICS;
  #loadedAt = -Infinity;
  #loading: Promise<void> | null = null;

  constructor(load: () => Promise<NameStatistics>) {
    this.#load = load;
  }

  async get(): Promise<NameStatistics> {
    if (performance.now() - this.#loadedAt > REFRESH_MS) {
      this.#loading ??= this.#refresh().finally(() => (this.#loading = null));
      // The first load is waited for; later ones refresh behind the searches that use the old copy.
      if (this.#loadedAt === -Infinity) await this.#loading;
    }
    return this.#current;
  }

  /** Never fails: without statistics a search still finds the same charities, only more slowly. */
  async #refresh(): Promise<void> {
    try {
      this.#current = await this.#load();
    } catch {
      // Keep the previous copy; the search's own query will report a broken store.
    } finally {
      this.#loadedAt = performance.now();
    }
  }
}
