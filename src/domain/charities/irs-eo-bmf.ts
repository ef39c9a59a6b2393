import { type CharityRecord, charityId, formatUsEin } from './charity.ts';
import { FREELY_ASSOCIATED_STATES, US_TERRITORIES, countryCode } from './countries.ts';
import { splitCsvLine } from './csv-line.ts';
import { type ParsedRow, type RowFormat, present, quote, unstorable } from './row-format.ts';
import { searchText } from './search-text.ts';

/**
 * The IRS Exempt Organizations Business Master File extract (eo_XX.csv, eo1-eo4.csv): 28
 * comma-separated columns, a field quoted only when it holds a comma, EINs with leading zeros.
 * Mapping: docs/decisions.md, "Charity directory".
 */
const REQUIRED = ['EIN', 'NAME', 'ICO', 'STREET', 'CITY', 'STATE', 'ZIP', 'GROUP', 'AFFILIATION', 'DEDUCTIBILITY', 'NTEE_CD'] as const;
type Column = (typeof REQUIRED)[number];

/** Deductibility codes under which contributions are deductible (1 yes, 4 yes by treaty). */
const DEDUCTIBLE = new Set(['1', '4']);
/** Affiliation codes of a central organization holding a group exemption (6, or 8 for a church). */
const CENTRAL = new Set(['6', '8']);

export function irsFormat(header: string): RowFormat | null {
  const names = header.split(',').map((h) => h.trim().toUpperCase());
  if (names[0] !== 'EIN' || !REQUIRED.every((c) => names.includes(c))) return null;
  const at = Object.fromEntries(REQUIRED.map((c) => [c, names.indexOf(c)])) as Record<Column, number>;
  const width = names.length;
  return { label: `IRS EO BMF (${width} columns)`, parseRow: (line) => parseIrsRow(line, at, width) };
}

function parseIrsRow(line: string, at: Record<Column, number>, width: number): ParsedRow {
  const fields = splitCsvLine(line);
  if (!fields) return { ok: false, reason: 'unbalanced double quotes' };
  if (fields.length !== width) return { ok: false, reason: `${fields.length} fields instead of ${width}` };
  const get = (c: Column) => present(fields[at[c]]);
  const ein = fields[at.EIN]!.trim();
  if (!/^\d{9}$/.test(ein)) return { ok: false, reason: `EIN ${quote(ein)} is not 9 digits` };
  const name = get('NAME');
  if (!name) return { ok: false, reason: 'NAME is empty' };

  const state = get('STATE')?.toUpperCase() ?? null;
  const rawCity = get('CITY');
  let city = rawCity;
  let zip = get('ZIP');
  let country: string | null = null;
  let finalState = state;
  if (state) {
    country = FREELY_ASSOCIATED_STATES.has(state) ? state : 'US';
    if (zip) zip = zip.replace(/-0000$/, '');
  } else {
    // A foreign row: the IRS writes the country in CITY and the foreign city, province and
    // postal code in STREET; ZIP is 00000-0000.
    city = null;
    zip = zip && !/^0{5}(-0{4})?$/.test(zip) ? zip : null;
    const code = rawCity ? countryCode(rawCity) : null;
    if (code && US_TERRITORIES.has(code)) {
      country = 'US';
      finalState = code;
    } else {
      country = code;
    }
  }

  const group = get('GROUP');
  const groupExemption = group && !/^0+$/.test(group) ? group : null;
  const record: CharityRecord = {
    id: charityId('IRS', ein),
    registry: 'IRS',
    registryNumber: ein,
    taxIdRoot: ein,
    name,
    searchName: searchText(name),
    ein: formatUsEin(ein),
    address1: get('STREET'),
    address2: get('ICO'),
    city,
    cityKey: city ? searchText(city) || null : null,
    state: finalState,
    zip,
    country,
    nteeCode: get('NTEE_CD')?.toUpperCase() ?? null,
    eligible: DEDUCTIBLE.has(get('DEDUCTIBILITY') ?? ''),
    groupExemption,
    groupRole: groupExemption ? (CENTRAL.has(get('AFFILIATION') ?? '') ? 'central' : 'member') : null,
  };
  const unfit = unstorable(record);
  return unfit ? { ok: false, reason: unfit } : { ok: true, record };
}
