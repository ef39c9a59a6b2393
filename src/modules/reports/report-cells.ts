import { formatCents } from '../../domain/money.ts';
import { REPORT_FIELDS, type ReportField, type ReportRow, shownValue } from './report-fields.ts';

/**
 * The cells of the exported files. CSV cells are written by the database (the repository's CSV
 * columns, for PostgreSQL's COPY and for csv-stringify alike); Excel cells here, from the typed
 * rows. Both neutralise text a spreadsheet would run as a formula, by FORMULA_STARTS.
 */

/**
 * OWASP's CSV injection defence: a cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage
 * return is read as a formula by spreadsheets (`=HYPERLINK(...)` in a payer's name), and so are
 * their full-width forms, which Apple Numbers folds into them; a leading apostrophe makes the
 * cell text. Amounts are numbers and not touched (a negative NetAmount is a number, not a formula).
 */
export const FORMULA_STARTS: readonly string[] = ['=', '+', '-', '@', '\t', '\r', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20'];

export function neutralise(text: string): string {
  return text.length > 0 && FORMULA_STARTS.includes(text[0]!) ? `'${text}` : text;
}

/** The header row: the fields' names. */
export const HEADER: readonly string[] = REPORT_FIELDS.map((f) => f.name);

/** What an Excel cell holds: numbers and instants as such (typed cells), text neutralised. */
export type ExcelCell = string | number | Date | null;

/**
 * An Excel row: amounts as numbers (the double nearest the exact decimal, shown with two
 * decimals), instants and days as dates (Excel has no time zone: they are UTC), text neutralised.
 */
export function excelRow(row: ReportRow): ExcelCell[] {
  return REPORT_FIELDS.map((field) => {
    const value = shownValue(field, row);
    if (value === null || value === undefined) return null;
    if (field.type === 'amount') return Number(formatCents(value as number));
    if (field.type === 'date') return new Date(`${value as string}T00:00:00Z`);
    if (field.type === 'datetime') return new Date(value as string);
    if (typeof value === 'number') return value;
    return neutralise(String(value));
  });
}

/** How Excel shows each column's values (an Excel number format), where it is not the default. */
export function excelFormat(field: ReportField): string | undefined {
  if (field.showsName) return undefined;
  if (field.type === 'amount') return '0.00';
  if (field.type === 'datetime') return 'yyyy-mm-dd hh:mm:ss';
  if (field.type === 'date') return 'yyyy-mm-dd';
  return undefined;
}
