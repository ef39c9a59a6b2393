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
