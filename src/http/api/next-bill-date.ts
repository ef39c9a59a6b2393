import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { BILLING_FREQUENCIES, nextBillDate, parseBillingFrequency } from '../../domain/billing-dates.ts';
import { Rule } from '../../domain/rules.ts';
import { NotFoundError } from '../../platform/errors.ts';
import { readBillDate } from './recurring-profiles.ts';
import { notFound } from './wire.ts';
import { ApiValidationError } from './problems.ts';

/** GET /api/nextBillDate: the schedule arithmetic of recurring billing, on its own. */

const FREQUENCIES_TEXT = BILLING_FREQUENCIES.join(', ');

const NextBillDateQuery = Type.Object(
  {
    Date: Type.String({ description: 'The date to count from, yyyy-MM-dd; its day of the month is the anchor of month steps.', examples: ['2026-11-21'] }),
    BillingFrequency: Type.String({ description: `One of ${FREQUENCIES_TEXT} (any letter case).`, examples: ['Monthly'] }),
  },
  { title: 'NextBillDateQuery' },
);

const NextBillDateResponse = Type.Object(
  {
    NextBillDate: Type.String({
      pattern: '^\\d{4}-\\d{2}-\\d{2}T00:00:00$',
      description: 'The first billing date after Date, at midnight (no time zone: a calendar date).',
      examples: ['2026-12-21T00:00:00'],
    }),
  },
  { title: 'NextBillDateResponse' },
);

export function nextBillDateRoutes(app: FastifyInstance) {
  app.get<{ Querystring: Static<typeof NextBillDateQuery> }>(
    '/nextBillDate',
    {
      schema: {
        tags: ['Recurring billing'],
        operationId: 'getNextBillDate',
        summary: 'The next bill date after a date for a billing frequency.',
        description:
          'Daily +1 day, Weekly +7, Bi-Weekly +14; Monthly +1 month, Bi-Monthly +2, Quarterly +3, Semi-Annually +6, Annually +12, ' +
          "on Date's day of the month, clamped to the last day of shorter months (Jan 31 -> Feb 28 -> Mar 31). Semi-Monthly: two days " +
          "15 apart, a and a + 15, one of them the Date's day: a = day up to the 15th, day - 15 from the 16th (the 31st: the 16th and the month's last day). 400 for a malformed or impossible Date; 404 for an unknown BillingFrequency.",
        querystring: NextBillDateQuery,
        response: { 200: NextBillDateResponse, ...notFound },
      },
    },
    async (request) => {
      const date = readBillDate(request.query.Date, 'Date');
      if (typeof date !== 'string') throw new ApiValidationError([{ code: date.code, field: date.field, message: date.message }]);
      // Empty is missing (1001), as for Date; 404 is for a frequency that does not exist.
      if (request.query.BillingFrequency.trim() === '') throw new ApiValidationError([{ code: Rule.Required, field: 'BillingFrequency', message: "'BillingFrequency' is required." }]);
      const frequency = parseBillingFrequency(request.query.BillingFrequency);
      if (!frequency) {
        throw new NotFoundError(`No data found: '${request.query.BillingFrequency.trim()}' is not a BillingFrequency (${FREQUENCIES_TEXT}).`);
      }
      let next: string;
      try {
        next = nextBillDate(date, { frequency, anchorDay: Number(date.slice(8, 10)) });
      } catch (err) {
        if (!(err instanceof RangeError)) throw err;
        throw new ApiValidationError([{ code: Rule.OutOfRange, field: 'Date', message: "'Date' is too late: the next bill date would be after 9999-12-31." }]);
      }
      return { NextBillDate: `${next}T00:00:00` };
    },
  );
}
