import type { CharityRecord } from './charity.ts';

/** One data line read: the charity, or why the line was rejected. */
export type ParsedRow = { ok: true; record: CharityRecord } | { ok: false; reason: string };

/** A registry file format, known from its header line. */
export interface RowFormat {
  /** What the operator sees: "IRS EO BMF", "CRA charities listing (14 columns)". */
  label: string;
  parseRow(line: string): ParsedRow;
}

/** A field's text with surrounding spaces removed; empty means absent. */
export function present(value: string | undefined): string | null {
  const v = value?.trim();
  return v ? v : null;
}

/** Quoted in rejection reasons: never more than 40 characters of a bad value. */
export function quote(value: string): string {
  const v = value.length > 40 ? `${value.slice(0, 40)}...` : value;
  return JSON.stringify(v);
}

/**
 * Longest text value a row may store, in UTF-8 bytes. PostgreSQL refuses an index entry over
 * 2,704 bytes (name words, search name, city, state are indexed), and would fail the whole batch.
 */
export const MAX_VALUE_BYTES = 1000;
const TEXT_VALUES = ['registryNumber', 'name', 'searchName', 'ein', 'address1', 'address2', 'city', 'cityKey', 'state', 'zip', 'country', 'nteeCode', 'groupExemption'] as const;

/**
 * Why a parsed record cannot be stored, or null: PostgreSQL text cannot hold NUL, and an
 * over-long value cannot be indexed. Rejecting the row keeps one bad row from failing the import.
 */
export function unstorable(record: CharityRecord): string | null {
  for (const key of TEXT_VALUES) {
    const value = record[key];
    if (value === null) continue;
    if (value.includes('\0')) return `NUL character in ${key}`;
    if (value.length * 3 > MAX_VALUE_BYTES && Buffer.byteLength(value) > MAX_VALUE_BYTES) return `${key} longer than ${MAX_VALUE_BYTES} bytes`;
  }
  return null;
}
