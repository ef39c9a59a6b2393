import type { CharityRecord } from '../../domain/charities/charity.ts';
import { CHARITY_COLUMNS } from './import-writer.ts';

/** COPY's text format: tab-separated, \N for null, backslash escapes. */
function copyValue(value: string | boolean | null): string {
  if (value === null) return '\\N';
  if (typeof value === 'boolean') return value ? 't' : 'f';
  return /[\\\t\n\r]/.test(value)
    ? value.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'))
    : value;
}

/** One record as a line of `COPY charities (<CHARITY_COLUMNS>) FROM STDIN`. */
export function copyLine(record: CharityRecord): string {
  return CHARITY_COLUMNS.map(([, , value]) => copyValue(value(record))).join('\t') + '\n';
}
