/**
 * Trigram similarity of two normalized names (search-text.ts), as PostgreSQL's pg_trgm computes
 * `similarity(a, b)`: each word is padded with two spaces before and one after, a name's trigrams
 * are the distinct runs of three characters of its padded words, and the similarity is the
 * number of shared trigrams over the number of trigrams in either name.
 *
 * Why here and not in SQL: a name search ranks up to 201 candidates, and pg_trgm rebuilt the
 * query's trigrams for every one of them (1.6 ms of a 2.7 ms query). Here the query's trigrams are
 * built once, and the ranking is the same on every store.
 */

const SPACE = 0x20;
/** Three code points below this pack exactly into one number (3 x 17 bits < 2^53). */
const PACKED = 0x20000;
/**
 * Three ASCII characters (what normalized names are made of, nearly always) pack into a small
 * integer, which V8 keeps unboxed: a Set of them is twice as fast as one of larger numbers. The
 * larger packing starts above every small one.
 */
const ASCII = 0x80;
const LARGE = ASCII * ASCII * ASCII;

type Trigram = number | string;

function trigramOf(a: number, b: number, c: number): Trigram {
  if (a < ASCII && b < ASCII && c < ASCII) return (a * ASCII + b) * ASCII + c;
  return a < PACKED && b < PACKED && c < PACKED ? LARGE + (a * PACKED + b) * PACKED + c : String.fromCodePoint(a, b, c);
}

/** Adds the distinct trigrams of a normalized name (words separated by spaces) to `into`. */
function addTrigrams(name: string, into: Set<Trigram>): Set<Trigram> {
  let a = SPACE;
  let b = SPACE;
  let inWord = false;
  for (let i = 0; i < name.length; i++) {
    const c = name.codePointAt(i)!;
    // Code points, not UTF-16 units: a letter outside the BMP is one character, as in PostgreSQL.
    if (c > 0xffff) i++;
    if (c === SPACE) {
      if (inWord) into.add(trigramOf(a, b, SPACE));
      a = b = SPACE;
      inWord = false;
      continue;
    }
    into.add(trigramOf(a, b, c));
    a = b;
    b = c;
    inWord = true;
  }
  if (inWord) into.add(trigramOf(a, b, SPACE));
  return into;
}

/** The distinct trigrams of a normalized name, as text (for tests and reading). */
export function trigrams(name: string): Set<string> {
  return new Set(
    [...addTrigrams(name, new Set())].map((t) => {
      if (typeof t === 'string') return t;
      if (t < LARGE) return String.fromCodePoint(Math.floor(t / ASCII / ASCII), Math.floor(t / ASCII) % ASCII, t % ASCII);
      const packed = t - LARGE;
      return String.fromCodePoint(Math.floor(packed / PACKED / PACKED), Math.floor(packed / PACKED) % PACKED, packed % PACKED);
    }),
  );
}

/** A query's trigrams, built once, compared with many names. */
export class TrigramQuery {
  readonly #trigrams: Set<Trigram>;
  /** Reused for each name compared (ranking compares hundreds). */
  readonly #scratch = new Set<Trigram>();

  constructor(query: string) {
    this.#trigrams = addTrigrams(query, new Set());
  }

  similarity(name: string): number {
    const other = this.#scratch;
    other.clear();
    addTrigrams(name, other);
    if (this.#trigrams.size === 0 || other.size === 0) return 0;
    let shared = 0;
    for (const t of other) if (this.#trigrams.has(t)) shared++;
    // pg_trgm divides in single precision: fractions equal there must tie here too.
    return Math.fround(shared / (this.#trigrams.size + other.size - shared));
  }
}
