import { describe, expect, it } from 'vitest';
import { SORT_COLUMNS, SORT_KEY_OF_COLUMN, parseCharitySearch } from '../../../src/http/api/charity-search-query.ts';
import { asWire } from '../../helpers/wire-violations.ts';

describe('parseCharitySearch', () => {
  const violations = (input: Parameters<typeof parseCharitySearch>[0]) => {
    const r = parseCharitySearch(input);
    return 'violations' in r ? asWire(r.violations).map((v) => [v.code, v.field ?? null]) : [];
  };

  it('needs at least one criterion', () => {
    expect(violations({})).toEqual([[7000, null]]);
    expect(violations({ Name: '  ', CharitySource: 2 })).toEqual([[7000, null]]);
  });

  it('refuses names without letters or digits, bad EINs and EINs of the other country', () => {
    expect(violations({ Name: '***' })).toEqual([[7001, 'Name']]);
    expect(violations({ EIN: '12-34' })).toEqual([[7002, 'EIN']]);
    expect(violations({ EIN: '136747276RR0001' })).toEqual([[7003, 'EIN']]);
    expect(violations({ EIN: '53-0196605', CharitySource: 2 })).toEqual([[7003, 'EIN']]);
    expect(violations({ EIN: '530196605', CharitySource: 2 })).toEqual([]);
  });

  it('checks CharitySource, State, paging and SortColumn', () => {
    expect(violations({ Name: 'x', CharitySource: 3 })).toEqual([[1006, 'CharitySource']]);
    expect(violations({ State: 'DCX' })).toEqual([[1003, 'State']]);
    expect(violations({ State: 'dc', PageIndex: 0, PageSize: 101 })).toEqual([[1005, 'PageIndex'], [1005, 'PageSize']]);
    expect(violations({ State: 'DC', SortColumn: 'Revenue' })).toEqual([[1006, 'SortColumn']]);
  });

  it('ranks a Name search by relevance unless a sort is asked for', () => {
    const sortOf = (input: Parameters<typeof parseCharitySearch>[0]) => {
      const r = parseCharitySearch(input);
      // The criteria name result fields in the service's words: said here in the API's.
      const sort = 'criteria' in r ? r.criteria.sort : 'invalid';
      return sort && sort !== 'invalid' ? { ...sort, column: SORT_COLUMNS.find((c) => SORT_KEY_OF_COLUMN[c] === sort.column) } : sort;
    };
    expect(sortOf({ Name: 'red cross' })).toBeNull();
    expect(sortOf({ Name: 'red cross', SortColumn: 'city' })).toEqual({ column: 'City', desc: false });
    expect(sortOf({ Name: 'red cross', SortDesc: true })).toEqual({ column: 'NpoName', desc: true });
    expect(sortOf({ State: 'DC' })).toEqual({ column: 'NpoName', desc: false });
  });
});
