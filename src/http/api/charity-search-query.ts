import type { Registry } from '../../domain/charities/charity.ts';
import { searchText } from '../../domain/charities/search-text.ts';
import { parseTaxId } from '../../domain/charities/tax-id.ts';
import { Rule, type RuleViolation } from '../../domain/rules.ts';
import type { CharitySearchCriteria, SortKey } from '../../modules/charities/search-service.ts';

/**
 * GET /api/CharitySearch's query, read into the search's criteria. Every check here is of the
 * query string the spec defines: its field names, CharitySource's numbers, SortColumn's result
 * field names and the paging limits; the violations are said in the API's words already.
 */

/** The query as the route hands it over (wire names, types already checked by the schema). */
export interface CharitySearchQuery {
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

/** CharitySource: 1 US (IRS), 2 Canada (CRA). */
const REGISTRY_OF_SOURCE: Record<number, Registry> = { 1: 'IRS', 2: 'CRA' };

/** The SearchResults fields a search can be sorted by, and the result field each names. */
export const SORT_KEY_OF_COLUMN = {
  CharityId: 'id',
  NpoName: 'name',
  EIN: 'ein',
  Address1: 'address1',
  Address2: 'address2',
  City: 'city',
  State: 'state',
  Zip: 'zip',
  Country: 'country',
  NpoEligibilityFlag: 'eligible',
  ParentOrgName: 'parentOrgName',
  NTEEcode: 'nteeCode',
} as const satisfies Record<string, SortKey>;
export type SortColumn = keyof typeof SORT_KEY_OF_COLUMN;
export const SORT_COLUMNS = Object.keys(SORT_KEY_OF_COLUMN) as SortColumn[];
const SORT_BY_LOWER = new Map<string, SortColumn>(SORT_COLUMNS.map((c) => [c.toLowerCase(), c]));

export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;

function given(text: string | undefined): string | null {
  const v = text?.trim();
  return v ? v : null;
}

/** Checks the query and turns it into criteria, or into the list of broken rules. */
export function parseCharitySearch(input: CharitySearchQuery): { criteria: CharitySearchCriteria } | { violations: RuleViolation[] } {
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

  let name: string | null = null;
  if (nameText) {
    name = searchText(nameText) || null;
    if (!name) violations.push({ code: Rule.CharityNameUnsearchable, field: 'Name', message: "'Name' must contain at least one letter or digit." });
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
      sort = { column: SORT_KEY_OF_COLUMN[column], desc: input.SortDesc === true };
    }
  } else if (!name || input.SortDesc === true) {
    // No sort asked for: a Name search ranks best matches first; anything else is by name.
    sort = { column: 'name', desc: input.SortDesc === true };
  }

  if (violations.length) return { violations };
  return { criteria: { registry: registry!, name, taxId, cityKey, state, pageIndex, pageSize, sort } };
}
