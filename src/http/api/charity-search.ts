import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Config } from '../../config.ts';
import type { CharitySummary } from '../../modules/charities/search-service.ts';
import type { Services } from '../../composition.ts';
import { type CharitySearchQuery as Query, MAX_PAGE_SIZE, SORT_COLUMNS, parseCharitySearch } from './charity-search-query.ts';
import { ApiValidationError } from './problems.ts';
import { BrokenRules, Guid, Nullable, Text, notFound } from './wire.ts';

const CharitySearchQuery = Type.Object({
  Name: Type.Optional(
    Text(200, { description: 'Partial or full charity name: case- and accent-insensitive, matched by word prefixes, tolerant of typos' }),
  ),
  EIN: Type.Optional(
    Text(30, { description: 'US EIN (12-3456789 or 123456789) or Canadian business number (123456789RR0001, or its first 9 digits)' }),
  ),
  CharitySource: Type.Optional(Type.Integer({ format: 'int32', default: 1, description: '1 US (IRS, the default), 2 Canada (CRA)' })),
  City: Type.Optional(Text(100, { description: 'City of the charity address (whole name, case- and accent-insensitive)' })),
  State: Type.Optional(Text(10, { description: 'Two-letter state or province code' })),
  PageIndex: Type.Optional(Type.Integer({ format: 'int32', minimum: 1, maximum: 2147483647, default: 1, description: 'Page of results, from 1' })),
  PageSize: Type.Optional(Type.Integer({ format: 'int32', minimum: 1, maximum: MAX_PAGE_SIZE, default: 10, description: `Results per page, 1-${MAX_PAGE_SIZE}` })),
  SortColumn: Type.Optional(
    Text(50, {
      description: `One SearchResults field: ${SORT_COLUMNS.join(', ')}. Default NpoName; a Name search without SortColumn lists the best matches first.`,
    }),
  ),
  SortDesc: Type.Optional(Type.Boolean({ default: false, description: 'true orders by descending values' })),
});

const CharitySearchResult = Type.Object(
  {
    CharityId: Guid({ description: 'Stable identifier of the charity (use it as CharityId in payments and fees)' }),
    NpoName: Type.String(),
    EIN: Type.String({ description: 'US EIN as XX-XXXXXXX, or the Canadian business number #########RR####' }),
    Address1: Nullable(Type.String()),
    Address2: Nullable(Type.String({ description: 'IRS "in care of" line' })),
    City: Nullable(Type.String()),
    State: Nullable(Type.String({ description: 'State or province code' })),
    Zip: Nullable(Type.String()),
    Country: Nullable(Type.String({ description: 'ISO 3166 alpha-2 code (US, CA, or the country of a foreign IRS row) when known' })),
    NpoEligibilityFlag: Type.Boolean({ description: 'Donations are deductible and the organization is in good standing' }),
    ParentOrgName: Nullable(Type.String({ description: 'For an IRS subordinate: its central organization, when in the directory' })),
    NTEEcode: Nullable(Type.String()),
  },
  { title: 'CharitySearchResult' },
);

const CharitySearchResponse = Type.Object(
  {
    TotalResultCount: Type.Integer({ format: 'int32' }),
    TotalPages: Type.Integer({ format: 'int32' }),
    PageIndex: Type.Integer({ format: 'int32' }),
    PageSize: Type.Integer({ format: 'int32' }),
    SearchResults: Type.Array(CharitySearchResult),
  },
  { title: 'CharitySearchResponse' },
);

function toWire(c: CharitySummary) {
  return {
    CharityId: c.id,
    NpoName: c.name,
    EIN: c.ein,
    Address1: c.address1,
    Address2: c.address2,
    City: c.city,
    State: c.state,
    Zip: c.zip,
    Country: c.country,
    NpoEligibilityFlag: c.eligible,
    ParentOrgName: c.parentOrgName,
    NTEEcode: c.nteeCode,
  };
}

export function charitySearchRoutes(app: FastifyInstance, services: Services, config: Config) {
  app.get<{ Querystring: Query }>(
    '/CharitySearch',
    {
      config: {
        // The spec exempts this search from the AccessToken; it is limited per client IP instead.
        public: true,
        rateLimit: { max: config.publicRateLimitPerMinute, timeWindow: 60_000 },
      },
      // ASP.NET clients write booleans as True/False.
      preValidation: async (request) => {
        const query = request.query as Record<string, unknown>;
        if (typeof query.SortDesc === 'string') query.SortDesc = query.SortDesc.toLowerCase();
      },
      schema: {
        tags: ['Charities'],
        operationId: 'searchCharities',
        summary: 'Search the US (IRS) and Canadian (CRA) charity directory; no AccessToken needed.',
        querystring: CharitySearchQuery,
        response: {
          200: CharitySearchResponse,
          400: { ...BrokenRules, description: 'No criterion, a bad EIN, paging value or SortColumn.' },
          ...notFound,
        },
      },
    },
    async (request) => {
      const parsed = parseCharitySearch(request.query);
      if ('violations' in parsed) throw new ApiValidationError(parsed.violations);
      const page = await services.charities.search(parsed.criteria);
      return {
        TotalResultCount: page.total,
        TotalPages: page.totalPages,
        PageIndex: page.pageIndex,
        PageSize: page.pageSize,
        SearchResults: page.results.map(toWire),
      };
    },
  );
}
