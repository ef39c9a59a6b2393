import { Rule, type RuleViolation } from '../rules.ts';
import { REGISTRY_OF_SOURCE, type Registry } from './charity.ts';
import { searchText } from './search-text.ts';

/** GET /api/CharitySearch as the edge hands it over (wire names, types already checked). */
export interface CharitySearchInput {
  Name?: string;
  EIN?: string;
  CharitySource?: number;
  City?: string;
  State?: string;
  PageIndex?: number;
  PageSize?: number;
  SortColumn?: string;
  SortDesc?: boolean;
}

/** The SearchResults fields a search can be sorted by. */
export const SORT_COLUMNS = [
  'CharityId', 'NpoName', 'EIN', 'Address1', 'Address2', 'City', 'State', 'Zip', 'Country',
  'NpoEligibilityFlag', 'ParentOrgName', 'NTEEcode',
] as const;
export type SortColumn = (typeof SORT_COLUMNS)[number];
const SORT_BY_LOWER = new Map<string, SortColumn>(SORT_COLUMNS.map((c) => [c.toLowerCase(), c]));

export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;

export interface CharitySearchCriteria {
  registry: Registry;
  /** The normalized query and its words, when Name was given. */
  name: { text: string; words: string[] } | null;
  /** The 9 digits of the EIN or BN, and the whole BN when its RR#### suffix was given. */
  taxId: { root: string; registryNumber: string | null } | null;
  cityKey: string | null;
  state: string | null;
  pageIndex: number;
  pageSize: number;
  /** null: best matches first (a Name search without an explicit sort). */
  sort: { column: SortColumn; desc: boolean } | null;
}

/** Name words beyond this many add cost and no precision. */
export const MAX_NAME_WORDS = 12;

function given(text: string | undefined): string | null {
  const v = text?.trim();
  return v ? v : null;
}

/** An EIN as a partner may write it: 53-0196605, 530196605, 136747276RR0001, 136747276. */
export function parseTaxId(text: string): { root: string; registryNumber: string | null; only: Registry | null } | null {
  const compact = text.replace(/\s+/g, '').toUpperCase();
  if (/^\d{9}$/.test(compact)) return { root: compact, registryNumber: null, only: null };
  if (/^\d{2}-\d{7}$/.test(compact)) return { root: compact.replace('-', ''), registryNumber: null, only: 'IRS' };
  if (/^\d{9}RR\d{4}$/.test(compact)) return { root: compact.slice(0, 9), registryNumber: compact, only: 'CRA' };
  return null;
}

/** Checks the query and turns it into criteria, or into the list of broken rules. */
export function parseCharitySearch(input: CharitySearchInput): { criteria: CharitySearchCriteria } | { violations: RuleViolation[] } {
  const violations: RuleViolation[] = [];
  const source = input.CharitySource ?? 1;
  const registry = REGISTRY_OF_SOURCE[source];
  if (!registry) violations.push({ code: Rule.InvalidValue, field: 'CharitySource', message: "'CharitySource' must be 1 (US) or 2 (Canada)." });

  const nameText = given(input.Name);
  const einText = given(input.EIN);
  const cityText = given(input.City);
  const stateText = given(input.State);
  if (!nameText && !einText && !cityText && !stateText) {
    violations.push({ code: Rule.CharitySearchCriterionRequired, message: 'At least one of Name, EIN, City or State is required.' });
  }

  let name: CharitySearchCriteria['name'] = null;
  if (nameText) {
    const text = searchText(nameText);
    if (!text) {
      violations.push({ code: Rule.CharityNameUnsearchable, field: 'Name', message: "'Name' must contain at least one letter or digit." });
    } else {
      name = { text, words: [...new Set(text.split(' '))].slice(0, MAX_NAME_WORDS) };
    }
  }

  let taxId: CharitySearchCriteria['taxId'] = null;
  if (einText) {
    const parsed = parseTaxId(einText);
    if (!parsed) {
      violations.push({
        code: Rule.CharityEinInvalid,
        field: 'EIN',
        message: "'EIN' must be a US EIN (12-3456789 or 123456789) or a Canadian business number (123456789 or 123456789RR0001).",
      });
    } else if (registry && parsed.only && parsed.only !== registry) {
      violations.push({
        code: Rule.CharityEinOfOtherSource,
        field: 'EIN',
        message:
          parsed.only === 'CRA'
            ? "'EIN' is a Canadian business number: search it with CharitySource 2."
            : "'EIN' is a US EIN: search it with CharitySource 1.",
      });
    } else {
      taxId = { root: parsed.root, registryNumber: parsed.registryNumber };
    }
  }

  let state: string | null = null;
  if (stateText) {
    if (/^[A-Za-z]{2}$/.test(stateText)) state = stateText.toUpperCase();
    else violations.push({ code: Rule.InvalidFormat, field: 'State', message: "'State' must be a two-letter state or province code." });
  }
  let cityKey: string | null = null;
  if (cityText) {
    cityKey = searchText(cityText);
    if (!cityKey) violations.push({ code: Rule.InvalidFormat, field: 'City', message: "'City' must contain at least one letter or digit." });
  }

  const pageIndex = input.PageIndex ?? 1;
  if (pageIndex < 1) violations.push({ code: Rule.OutOfRange, field: 'PageIndex', message: "'PageIndex' must be 1 or more." });
  const pageSize = input.PageSize ?? DEFAULT_PAGE_SIZE;
  if (pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
    violations.push({ code: Rule.OutOfRange, field: 'PageSize', message: `'PageSize' must be from 1 to ${MAX_PAGE_SIZE}.` });
  }

  let sort: CharitySearchCriteria['sort'] = null;
  const sortText = given(input.SortColumn);
  if (sortText) {
    const column = SORT_BY_LOWER.get(sortText.toLowerCase());
    if (!column) {
      violations.push({ code: Rule.InvalidValue, field: 'SortColumn', message: `'SortColumn' must be one of ${SORT_COLUMNS.join(', ')}.` });
    } else {
      sort = { column, desc: input.SortDesc === true };
    }
  } else if (!name || input.SortDesc === true) {
    // No sort asked for: a Name search ranks best matches first; anything else is by name.
    sort = { column: 'NpoName', desc: input.SortDesc === true };
  }

  if (violations.length) return { violations };
  return { criteria: { registry: registry!, name, taxId, cityKey, state, pageIndex, pageSize, sort } };
}
