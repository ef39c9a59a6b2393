import { type CharitySearchQuery, parseCharitySearch } from '../../src/http/api/charity-search-query.ts';
import { type Clock, systemClock } from '../../src/platform/clock.ts';
import type { SqlClient } from '../../src/platform/database/database.ts';
import { ValidationError } from '../../src/platform/errors.ts';
import type { planNameSearch, searchBeginningFirst } from '../../src/modules/charities/name-plan.ts';
import { CharitySearchRepository } from '../../src/modules/charities/search-repository.ts';
import { type CharitySearchPage, CharityService } from '../../src/modules/charities/search-service.ts';

export interface QueriedCharitySearch {
  search(query: CharitySearchQuery): Promise<CharitySearchPage>;
}

/**
 * `service`, asked with GET /api/CharitySearch's query (read as the route reads it): tests of the
 * search's plans and caches say their searches as a partner types them.
 */
export function queried(service: CharityService): QueriedCharitySearch {
  return {
    search: async (query) => {
      const parsed = parseCharitySearch(query);
      if ('violations' in parsed) throw new ValidationError(parsed.violations);
      return service.search(parsed.criteria);
    },
  };
}

/** A charity search of its own on `sql` (its own caches), asked as `queried` says. */
export function charitySearch(
  sql: SqlClient,
  options: { clock?: Clock; plan?: typeof planNameSearch; beginningFirst?: typeof searchBeginningFirst } = {},
): QueriedCharitySearch {
  return queried(new CharityService({ repository: new CharitySearchRepository(sql), clock: options.clock ?? systemClock, plan: options.plan, beginningFirst: options.beginningFirst }));
}
