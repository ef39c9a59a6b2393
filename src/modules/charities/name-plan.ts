import type { NameStatistics } from './name-statistics.ts';

/**
 * Which of a name search's conditions the name-word index answers. The GIN index finds the
 * names having a set of words by reading every index entry of every word asked about: cheap for
 * rare words, costly for common ones ("inc" is in a third of the directory, "of" in a sixth,
 * "foundation" in a tenth). So the index answers the rare conditions, and the common ones are
 * checked on the rows those find, as long as the index then leaves few rows to read: each row
 * read costs about as much as 30 index entries. And when matches are so common that reading the
 * directory in storage order meets MAX_NAME_MATCHES + 1 of them within a few thousand rows
 * ("the", "inc", "foundation"), no index is used at all.
 */

/** One query word: the name must have one of these words (as LIKE patterns: `patterns`). */
export interface NameCondition {
  words: string[];
  patterns: string[];
}

/** A condition at least this common is checked on the rows read, if the index leaves few. */
export const COMMON_SHARE = 0.01;
/** The index answers more conditions, rarest first, while it would leave more rows than this. */
export const MAX_ROWS_TO_CHECK = 2_000;

/**
 * Reading the directory in storage order is chosen when at least this share of it matches (by the
 * estimate below): 201 matches then take at most about 5,000 rows, a few milliseconds.
 */
export const SCAN_SHARE = 0.02;
export type NamePlan =
  /** Read the directory in storage order, checking every condition on each row. */
  | { scan: true }
  /** The index answers the `indexed` conditions; the others are checked on the rows it finds. */
  | { scan: false; indexed: Set<number> };

/**
 * A name search whose words are estimated to match at least this many charities first reads the
 * names that begin with the query as typed (`searchBeginningFirst`).
 */
export const BEGINNING_FIRST_MATCHES = 300;

/**
 * Whether to look first among the names that begin with the query, in name order (a btree range,
 * read lazily): when they hold MAX_NAME_MATCHES + 1 matches, those are the search's, without the
 * name-word index, whose cost grows with how common the words are ("foundation for": 27 ms
 * through the index on the benchmark's national directory, 0.4 ms this way). Worth its extra
 * round trip only when the words are common enough for the index to be slow and for a name
 * beginning to find that many: people type the beginning of a name ("national associ"), and
 * whole names.
 */
export function searchBeginningFirst(conditions: NameCondition[], statistics: NameStatistics): boolean {
  if (statistics.rows === 0) return false;
  const matches = conditions.reduce((product, { words }) => product * share(words, statistics, statistics.rareBelow / 2), statistics.rows);
  return matches >= BEGINNING_FIRST_MATCHES;
}

/** The share of charities whose name has one of `words`; a word not among the common ones counts as `rare`. */
function share(words: string[], statistics: NameStatistics, rare: number): number {
  return Math.min(1, words.reduce((sum, w) => sum + (statistics.commonWords.get(w) ?? rare), 0));
}

export function planNameSearch(conditions: NameCondition[], statistics: NameStatistics): NamePlan {
  const all = new Set(conditions.keys());
  if (statistics.rows === 0) return { scan: false, indexed: all };
  // A word not among the common ones is taken to be half as common as the rarest of those.
  const shares = conditions.map(({ words }) => share(words, statistics, statistics.rareBelow / 2));
  // Reading in storage order is decided on the measured shares of common words alone: a guess
  // about dozens of rare words could otherwise send a search with few matches through the whole
  // directory. Words taken to occur independently (the planner's assumption too): names' words
  // go together more often than that ("of the"), so this errs towards the index.
  if (conditions.reduce((product, { words }) => product * share(words, statistics, 0), 1) >= SCAN_SHARE) return { scan: true };
  const rarestFirst = [...all].sort((a, b) => shares[a]! - shares[b]!);
  const indexed = new Set<number>();
  // Rows the index leaves.
  let rows = statistics.rows;
  for (const i of rarestFirst) {
    if (indexed.size > 0 && shares[i]! >= COMMON_SHARE && rows <= MAX_ROWS_TO_CHECK) break;
    indexed.add(i);
    rows *= shares[i]!;
  }
  return { scan: false, indexed };
}
