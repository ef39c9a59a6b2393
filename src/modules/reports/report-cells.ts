import { formatCents } from '../../domain/money.ts';
import { REPORT_FIELDS, type ReportField, type ReportRow, shownValue } from './report-fields.ts';

/**
 * A report row as the cells of an exported file, one per field of REPORT_FIELDS, in order. Text
 * that a spreadsheet would read as a formula is neutralised here, for CSV and Excel alike.
 */

/**
 * OWASP's CSV injection defence: a cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage
 * return is read as a formula by spreadsheets (`=HYPERLINK(...)` in a payer's name); a leading
 * apostrophe makes it text, and shows as nothing in Excel and LibreOffice.
 */
export function neutralise(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** The header row: the fields' names. */
export const HEADER: readonly string[] = REPORT_FIELDS.map((f) => f.name);

/**
 * A CSV record: amounts as exact decimals (108.44), instants in ISO 8601 UTC, days yyyy-MM-dd,
 * numbers as digits, text neutralised; a missing value is undefined (an empty field).
 */
export function csvRecord(row: ReportRow): (string | undefined)[] {
  return REPORT_FIELDS.map((field) => csvCell(field, row));
}

function csvCell(field: ReportField, row: ReportRow): string | undefined {
  const value = shownValue(field, row);
  if (value === null || value === undefined) return undefined;
  if (field.type === 'amount' && !field.showsName) return formatCents(value as number);
  if (value instanceof Date) return value.toISOString();
  return typeof value === 'string' ? neutralise(value) : String(value);
}

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
    if (value instanceof Date || typeof value === 'number') return value;
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
