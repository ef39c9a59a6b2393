import type { Registry } from '../../domain/charities/charity.ts';
import { TrigramQuery } from '../../domain/charities/trigram-similarity.ts';

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

/** What a search can be sorted by: a field of its results. */
export type SortKey = keyof CharitySummary;

/** A search, checked: every criterion normalized as the directory stores it. */
export interface CharitySearchCriteria {
  registry: Registry;
  /** The name searched for, normalized (searchText: never empty), when one was given. */
  name: string | null;
  /** The 9 digits of the EIN or BN, and the whole BN when its RR#### suffix was given. */
  taxId: { root: string; registryNumber: string | null } | null;
  /** searchText of the city. */
  cityKey: string | null;
  /** Two-letter state or province code, upper case. */
  state: string | null;
  /** From 1. */
  pageIndex: number;
  pageSize: number;
  /** null: best matches first (a name search without an explicit sort). */
  sort: { column: SortKey; desc: boolean } | null;
}

/** Name words beyond this many add cost and no precision. */
export const MAX_NAME_WORDS = 12;

/** The words a name search looks for: each once, at most MAX_NAME_WORDS. */
export function nameWords(name: string): string[] {
  return [...new Set(name.split(' '))].slice(0, MAX_NAME_WORDS);
}

/**
 * Query words shorter than this match whole words only ("st", "of", "a"): as prefixes they
 * would stand for thousands of words and most of the directory.
 */
export const MIN_PREFIX_LENGTH = 3;
/** A longer prefix that still begins more known words than this also matches only itself. */
export const MAX_PREFIX_WORDS = 64;
/** Misspelt words are replaced by at most this many of the most similar known words. */
export const MAX_SIMILAR_WORDS = 8;
/** Trigram similarity is meaningless on very short words: they are matched as prefixes only. */
export const MIN_FUZZY_LENGTH = 4;
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
export const BEGINNING_ROWS = 1_000;

/** The first string after every string that begins with `prefix` (in code point order). */
export function prefixEnd(prefix: string): string {
  const chars = [...prefix];
  const last = chars.pop()!;
  return chars.join('') + String.fromCodePoint(last.codePointAt(0)! + 1);
}

/** Whether the search has a City, State or EIN besides its Name (they narrow through charities' own indexes). */
export function filtered(criteria: CharitySearchCriteria): boolean {
  return Boolean(criteria.cityKey || criteria.state || criteria.taxId);
}

/** A match as ranked: its id and name. */
export interface RankedRow {
  id: string;
  searchName: string;
  registryNumber: string;
}

/**
 * Best matches first: the whole name, then by trigram similarity of the whole name to the query
 * (as pg_trgm computes it), then by name and registry number. Names compare in code point order,
 * as the directory's "C" collation sorts them.
 */
export function rankByName(rows: RankedRow[], query: string): RankedRow[] {
  const trigrams = new TrigramQuery(query);
  const keyed = rows.map((row) => ({ row, exact: row.searchName === query, similarity: trigrams.similarity(row.searchName) }));
  keyed.sort(
    (a, b) =>
      Number(b.exact) - Number(a.exact) ||
      b.similarity - a.similarity ||
      codePointOrder(a.row.searchName, b.row.searchName) ||
      codePointOrder(a.row.registryNumber, b.row.registryNumber),
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
