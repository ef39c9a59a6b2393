import { type CharityRecord, charityId } from './charity.ts';
import { type ParsedRow, type RowFormat, present, quote, unstorable } from './row-format.ts';
import { searchText } from './search-text.ts';

/**
 * The CRA "List of charities" export: tab-separated, one header line whose labels end in ":"
 * (some with stray spaces, and a trailing tab), 12 columns in older exports and 14 in newer ones
 * (which add "Type of qualified donee" and "Charity type"). Columns are found by their label, so
 * their order does not matter. Mapping: docs/decisions.md, "Charity directory".
 */
type Field = 'bn' | 'name' | 'status' | 'sanction' | 'address' | 'city' | 'province' | 'country' | 'postal';

const LABELS: [RegExp, Field][] = [
  [/^(bn\/)?registration number$|^bn$|^business number$/, 'bn'],
  [/^(charity|organization|legal) name$/, 'name'],
  [/^(charity )?status$/, 'status'],
  [/^sanctions?$/, 'sanction'],
  [/^address$/, 'address'],
  [/^city$/, 'city'],
  [/^province/, 'province'],
  [/^country$/, 'country'],
  [/^postal code/, 'postal'],
];
const REQUIRED: Field[] = ['bn', 'name', 'status'];

const PROVINCES = new Set(['AB', 'BC', 'MB', 'NB', 'NL', 'NS', 'NT', 'NU', 'ON', 'PE', 'QC', 'SK', 'YT']);

/** "Charity status: " -> "charity status" */
function label(text: string): string {
  return text.trim().replace(/\s*:$/, '').replace(/\s+/g, ' ').toLowerCase();
}

export function craFormat(header: string): RowFormat | null {
  if (!header.includes('\t')) return null;
  const labels = header.split('\t').map(label);
  while (labels.length && labels[labels.length - 1] === '') labels.pop();
  const at: Partial<Record<Field, number>> = {};
  labels.forEach((l, i) => {
    const field = LABELS.find(([pattern]) => pattern.test(l))?.[1];
    if (field && at[field] === undefined) at[field] = i;
  });
  if (!REQUIRED.every((f) => at[f] !== undefined)) return null;
  const width = labels.length;
  return { label: `CRA charities listing (${width} columns)`, parseRow: (line) => parseCraRow(line, at, width) };
}

function parseCraRow(line: string, at: Partial<Record<Field, number>>, width: number): ParsedRow {
  const fields = line.split('\t');
  // A trailing tab (as on the header line) is not a field.
  while (fields.length > width && fields[fields.length - 1]!.trim() === '') fields.pop();
  if (fields.length !== width) return { ok: false, reason: `${fields.length} fields instead of ${width}` };
  const get = (f: Field) => (at[f] === undefined ? null : present(fields[at[f]!]));

  const bn = (get('bn') ?? '').replace(/\s+/g, '').toUpperCase();
  if (!/^\d{9}RR\d{4}$/.test(bn)) return { ok: false, reason: `BN ${quote(get('bn') ?? '')} is not of the form #########RR####` };
  const name = get('name');
  if (!name) return { ok: false, reason: 'Charity name is empty' };

  const status = (get('status') ?? '').toLowerCase();
  // A suspension of receipting privileges means gifts made during it get no receipt.
  const suspended = /suspen/i.test(get('sanction') ?? '');
  const province = get('province')?.toUpperCase() ?? null;
  const state = province && /^[A-Z]{2}$/.test(province) ? province : null;
  const countryText = get('country')?.toUpperCase() ?? null;
  const country = countryText && /^[A-Z]{2}$/.test(countryText) ? countryText : state && PROVINCES.has(state) ? 'CA' : null;
  const city = get('city');

  const record: CharityRecord = {
    id: charityId('CRA', bn),
    registry: 'CRA',
    registryNumber: bn,
    taxIdRoot: bn.slice(0, 9),
    name,
    searchName: searchText(name),
    ein: bn,
    address1: get('address'),
    address2: null,
    city,
    cityKey: city ? searchText(city) || null : null,
    state,
    zip: postalCode(get('postal'), country),
    country,
    nteeCode: null,
    eligible: status === 'registered' && !suspended,
    groupExemption: null,
    groupRole: null,
  };
  const unfit = unstorable(record);
  return unfit ? { ok: false, reason: unfit } : { ok: true, record };
}

/** The CRA export writes Canadian postal codes without their space: M6G1A5 -> M6G 1A5. */
function postalCode(value: string | null, country: string | null): string | null {
  if (!value) return null;
  const compact = value.replace(/\s+/g, '').toUpperCase();
  if (country === 'CA' && /^[A-Z]\d[A-Z]\d[A-Z]\d$/.test(compact)) return `${compact.slice(0, 3)} ${compact.slice(3)}`;
  return value.toUpperCase();
}
