import type { CharityRecord } from '../../domain/charities/charity.ts';

/**
 * A charity as a row of the charities table: the columns an import writes, their SQL types, and
 * where each value comes from. The import repository's statements and the parsing threads' COPY
 * text both write these columns, in this order (a parsing thread loads no database driver).
 */
export const CHARITY_COLUMNS: [string, string, (r: CharityRecord) => string | boolean | null][] = [
  ['id', 'uuid', (r) => r.id],
  ['registry', 'text', (r) => r.registry],
  ['registry_number', 'text', (r) => r.registryNumber],
  ['tax_id_root', 'text', (r) => r.taxIdRoot],
  ['name', 'text', (r) => r.name],
  ['search_name', 'text', (r) => r.searchName],
  ['ein', 'text', (r) => r.ein],
  ['address1', 'text', (r) => r.address1],
  ['address2', 'text', (r) => r.address2],
  ['city', 'text', (r) => r.city],
  ['city_key', 'text', (r) => r.cityKey],
  ['state', 'text', (r) => r.state],
  ['zip', 'text', (r) => r.zip],
  ['country', 'text', (r) => r.country],
  ['ntee_code', 'text', (r) => r.nteeCode],
  ['eligible', 'boolean', (r) => r.eligible],
  ['group_exemption', 'text', (r) => r.groupExemption],
  ['group_role', 'text', (r) => r.groupRole],
];

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
