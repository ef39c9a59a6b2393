import Fastify from 'fastify';
import fastJsonStringify from 'fast-json-stringify';
import { describe, expect, it } from 'vitest';
import { reportPageJson, reportRoutes, reportRowToWire } from '../../../src/http/api/reports.ts';
import { BrokenRule, ProblemDetails } from '../../../src/http/api/wire.ts';
import type { Services } from '../../../src/composition.ts';
import { REPORT_FIELDS, type ReportRow } from '../../../src/modules/reports/report-fields.ts';

/**
 * A page's JSON is written by JSON.stringify, not by the response schema's serializer: the bytes
 * must be the ones that serializer (fast-json-stringify, compiled from the same schema) writes.
 */

async function rowSerializer(): Promise<(value: unknown) => string> {
  const app = Fastify();
  app.addSchema(BrokenRule);
  app.addSchema(ProblemDetails);
  reportRoutes(app, {} as Services);
  await app.ready();
  const schema = app.getSchema('TransactionReportRow') as object;
  await app.close();
  return fastJsonStringify(schema);
}

const full: ReportRow = {
  paymentId: 1234,
  paymentGuid: '6f1c2b1e-8a7d-4c2e-9d41-0c6d2f9b1a7e',
  paymentDate: '2026-10-30T12:34:56.789Z',
  processedDate: '2026-10-30T12:34:57.001Z',
  tranId: 'T "quoted" \\ back',
  paymentExternalId: 'tx\n\u0001\u2028é😀',
  authCode: '=HYPERLINK("x")',
  paymentMethod: 'card',
  paymentMethodTypeId: 3,
  cardType: 'Visa',
  cardLastFour: '1234',
  checkAccountLastFour: null,
  currency: 'USD',
  amountCents: 10844,
  tipCents: 1,
  taxCents: 10,
  shippingFeeCents: 0,
  surchargeCents: 99_999_999_999,
  totalAmountCents: 10855,
  totalFeesCents: 867,
  totalCommissionCents: 542,
  partnerCommissionCents: 433,
  platformCommissionCents: 109,
  netAmountCents: -5,
  processStatus: 4,
  paymentResult: 3,
  responseCode: '0',
  responseMessage: '',
  settlementDate: '2026-10-31T00:00:00.000Z',
  settlementBatch: 7,
  refundedAmountCents: 100,
  refundedDate: '2026-11-01T00:00:00.000Z',
  voidedAmountCents: null,
  voidedDate: null,
  processorGuid: '6f1c2b1e-8a7d-4c2e-9d41-0c6d2f9b1a7f',
  integrationSourceGuid: '6f1c2b1e-8a7d-4c2e-9d41-0c6d2f9b1a70',
  integrationSourceName: 'Main',
  organizationGuid: null,
  organizationName: null,
  charityId: null,
  charityName: null,
  recurringProfileGuid: null,
  recurringProfileId: 12,
  billDate: '2026-10-30',
  payLinkId: null,
  firstName: 'Ann',
  lastName: "O'Neil",
  email: 'ann@example.org',
  externalConstituentId: null,
};

/** Every value missing, those of fields never null too (the serializer writes "" or 0 for them). */
const empty = Object.fromEntries(REPORT_FIELDS.map((f) => [f.key, null])) as unknown as ReportRow;

describe('the JSON of a report page', () => {
  it('is, row by row, what the response schema’s serializer writes', async () => {
    const serialize = await rowSerializer();
    for (const row of [full, empty, { ...full, processStatus: 99, paymentMethodTypeId: 42 }]) {
      const wire = reportRowToWire(row);
      // What the serializer was given: the values, a missing one null whatever the field.
      const given = Object.fromEntries(REPORT_FIELDS.map((f) => [f.name, row[f.key] === null ? null : wire[f.name]]));
      expect(JSON.stringify(wire)).toBe(serialize(given));
    }
  });

  it('holds the rows and the paging, in the schema’s order', () => {
    const json = reportPageJson({ rows: [full, empty], totalCount: 2, pageIndex: 1, pageSize: 50, totalPages: 1 });
    expect(Object.keys(JSON.parse(json))).toEqual(['Transactions', 'TotalCount', 'PageIndex', 'PageSize', 'TotalPages']);
    expect(json).toBe(`{"Transactions":[${JSON.stringify(reportRowToWire(full))},${JSON.stringify(reportRowToWire(empty))}],"TotalCount":2,"PageIndex":1,"PageSize":50,"TotalPages":1}`);
  });
});
