import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestContext, type TestPartner, createTestContext } from '../../helpers/context.ts';
import { expectDocumented } from '../../helpers/openapi.ts';
import { INJECTIONS, type ReportFixture, seedReportPayments } from './report-fixtures.ts';

/** POST /api/sourceTransactionsReport and /api/organizationTransactionsReport: the JSON pages. */

let ctx: TestContext;
let fx: ReportFixture;
beforeAll(async () => {
  ctx = await createTestContext();
  fx = await seedReportPayments(ctx);
}, 120_000);
afterAll(() => ctx.close());

type Row = Record<string, unknown> & { PaymentId: number; PaymentGuid: string };
interface Details {
  Transactions: Row[];
  TotalCount: number;
  PageIndex: number;
  PageSize: number;
  TotalPages: number;
}

const SOURCE_PATH = '/api/sourceTransactionsReport';
const ORG_PATH = '/api/organizationTransactionsReport';

function report(body: unknown, options: { query?: string; partner?: TestPartner; path?: string } = {}) {
  const path = options.path ?? SOURCE_PATH;
  return ctx.as(options.partner ?? ctx.nonProfit, { method: 'POST', url: `${path}${options.query ? `?${options.query}` : ''}`, payload: body as object });
}

async function rows(body: unknown, options: { query?: string; path?: string } = {}): Promise<Details> {
  const res = await report(body, options);
  expect(res.statusCode, res.body).toBe(200);
  await expectDocumented(ctx.app, 'POST', options.path ?? SOURCE_PATH, res);
  return res.json<Details>();
}

/** The fixture letters of a page's rows, in order. */
const letters = (details: Details) => details.Transactions.map((r) => Object.entries(fx.paid).find(([, p]) => p.PaymentGuid === r.PaymentGuid)?.[0] ?? `other:${r.PaymentId}`);

const filtered = async (...filters: { Name: string; Operation: number; Values?: string[] }[]) => letters(await rows({ Filters: filters }));

describe('POST /api/sourceTransactionsReport', () => {
  it("lists every payment of the partner's sources, newest first, with the total", async () => {
    const details = await rows({ Filters: [] });
    expect(letters(details)).toEqual(['g', 'f', 'e', 'd', 'c', 'b', 'a']);
    expect(details).toMatchObject({ TotalCount: 7, PageIndex: 1, PageSize: 50, TotalPages: 1 });
  });

  it('gives each row what a partner reconciles', async () => {
    const details = await rows({ Filters: [{ Name: 'TranId', Operation: 0, Values: ['r-6'] }] });
    const f = details.Transactions[0]!;
    expect(f).toMatchObject({
      PaymentId: fx.paid.f.PaymentId,
      PaymentGuid: fx.paid.f.PaymentGuid,
      PaymentDate: '2026-02-04T12:00:00.000Z',
      TranId: 'r-6',
      PaymentExternalId: fx.paid.f.TransactionId,
      PaymentMethod: 'Card',
      PaymentMethodTypeId: 3,
      PaymentMethodType: 'VISA',
      CardType: 'Visa',
      CardLastFour: '4242',
      CheckAccountLastFour: null,
      Currency: 'USD',
      Amount: 30,
      TotalAmount: 30,
      ProcessStatus: 8,
      ProcessStatusName: 'Refunded',
      PaymentResult: 5,
      PaymentResultName: 'Refunded',
      ResponseCode: '0',
      ResponseMessage: 'Approved',
      SettlementDate: '2026-02-05T03:00:00.001Z',
      RefundedAmount: 30,
      RefundedDate: '2026-02-06T09:30:00.000Z',
      VoidedAmount: null,
      VoidedDate: null,
      ProcessorGuid: ctx.nonProfit.processorId,
      IntegrationSourceGuid: fx.sources.first,
      IntegrationSourceName: 'Test Charity Partner website',
      OrganizationGuid: fx.organizations.first,
      EmailAddress: 'ada@example.org',
      RecurringProfileGuid: null,
      PayLinkId: null,
    });
    expect(f.SettlementBatch).toEqual(expect.any(Number));
    // Fees are the lines' breakdowns added up; NetAmount is what is left of TotalAmount.
    expect(f.TotalFees).toBeGreaterThan(0);
    expect(f.TotalCommission).toBe(Number(((f.PartnerCommission as number) + (f.PlatformCommission as number)).toFixed(2)));
    expect(f.NetAmount).toBe(Number((30 - (f.TotalFees as number)).toFixed(2)));
  });

  it('shows a payment the payer paid the fees of: Amount as asked, TotalAmount grossed up', async () => {
    const [b] = (await rows({ Filters: [{ Name: 'IntegrationSourceGuid', Operation: 0, Values: [fx.sources.second] }] })).Transactions;
    expect(b).toMatchObject({ Amount: 250, TotalAmount: fx.paid.b.TotalAmount, CardType: 'Mastercard', CardLastFour: '4444', IntegrationSourceName: 'Second, "quoted" source' });
    expect(b!.TotalAmount as number).toBeGreaterThan(250);
    expect(b!.NetAmount).toBe(Number(((b!.TotalAmount as number) - (b!.TotalFees as number)).toFixed(2)));
  });

  it('never shows more of a card or account number than its last 4 digits', async () => {
    const res = await report({ Filters: [] });
    expect(res.body).not.toContain('4242424242424242');
    expect(res.body).not.toContain('000123456789');
    const c = res.json<Details>().Transactions.find((r) => r.PaymentGuid === fx.paid.c.PaymentGuid)!;
    expect(c).toMatchObject({ PaymentMethod: 'ACH', PaymentMethodType: 'ACH', CheckAccountLastFour: '6789', CardLastFour: null, CardType: null });
  });

  it('shows a voided payment with its void', async () => {
    const [e] = (await rows({ Filters: [{ Name: 'VoidedDate', Operation: 15 }] })).Transactions;
    expect(e).toMatchObject({ PaymentGuid: fx.paid.e.PaymentGuid, VoidedAmount: 20, VoidedDate: '2026-02-03T13:00:00.000Z', ProcessStatusName: 'Cancelled', PaymentResultName: 'Cancelled', SettlementDate: null });
  });
});

describe('filters', () => {
  it.each([
    ['7 After a day: from the next midnight (UTC) on', { Name: 'PaymentDate', Operation: 7, Values: ['2026-01-31'] }, ['g', 'f', 'e', 'd', 'c']],
    ['5 GreaterThan a day, as After', { Name: 'PaymentDate', Operation: 5, Values: ['2026-02-01'] }, ['g', 'f', 'e']],
    ['16 OnOrAfter', { Name: 'PaymentDate', Operation: 16, Values: ['2026-02-01'] }, ['g', 'f', 'e', 'd', 'c']],
    ['8 Before: up to that midnight', { Name: 'PaymentDate', Operation: 8, Values: ['2026-01-15'] }, ['a']],
    ['17 OnOrBefore: the whole day', { Name: 'PaymentDate', Operation: 17, Values: ['2026-01-15'] }, ['b', 'a']],
    ['0 Equals a day: its last second too', { Name: 'PaymentDate', Operation: 0, Values: ['2026-01-15'] }, ['b']],
    ['1 NotEquals a day', { Name: 'PaymentDate', Operation: 1, Values: ['2026-02-01'] }, ['g', 'f', 'e', 'b', 'a']],
    ['11 Between two days, both in', { Name: 'paymentdate', Operation: 11, Values: ['2026-01-10', '2026-01-15'] }, ['b', 'a']],
    ['the settlement day', { Name: 'SettlementDate', Operation: 0, Values: ['2026-02-05'] }, ['g', 'f', 'c', 'b', 'a']],
    ['14 IsNull', { Name: 'SettlementDate', Operation: 14 }, ['e', 'd']],
    ['15 IsNotNull', { Name: 'RefundedDate', Operation: 15 }, ['f']],
    ['an amount: 5 GreaterThan', { Name: 'TotalAmount', Operation: 5, Values: ['75'] }, ['b', 'a']],
    ['an amount: 9 GreaterThanOrEqual', { Name: 'TotalAmount', Operation: 9, Values: ['75.00'] }, ['d', 'b', 'a']],
    ['an amount: 6 LessThan', { Name: 'Amount', Operation: 6, Values: ['30'] }, ['e']],
    ['an amount: 10 LessThanOrEqual', { Name: 'Amount', Operation: 10, Values: ['30'] }, ['f', 'e']],
    ['an amount: 11 Between, in cents', { Name: 'TotalAmount', Operation: 11, Values: ['30.00', '50'] }, ['g', 'f', 'c']],
    ['an amount: 0 Equals', { Name: 'RefundedAmount', Operation: 0, Values: ['30'] }, ['f']],
    ['an amount: 12 In', { Name: 'Amount', Operation: 12, Values: ['20', '40', '99'] }, ['g', 'e']],
    ['a whole number: 12 In', { Name: 'PaymentId', Operation: 12, Values: ['PA', 'PC'] }, ['c', 'a']],
    ['a whole number: 13 NotIn', { Name: 'PaymentId', Operation: 13, Values: ['PA', 'PC'] }, ['g', 'f', 'e', 'd', 'b']],
    ['an enum by name', { Name: 'ProcessStatus', Operation: 0, Values: ['settled'] }, ['g', 'c', 'b', 'a']],
    ['an enum by number', { Name: 'PaymentResult', Operation: 12, Values: ['5', '6'] }, ['f', 'e']],
    ['an enum: 1 NotEquals', { Name: 'PaymentResultName', Operation: 1, Values: ['Successful'] }, ['f', 'e', 'd']],
    ['the method', { Name: 'PaymentMethod', Operation: 0, Values: ['ACH'] }, ['c']],
    ['text: 0 Equals is exact', { Name: 'TranId', Operation: 0, Values: ['r-1'] }, ['a']],
    ['text: 0 Equals is exact (letter case)', { Name: 'TranId', Operation: 0, Values: ['R-1'] }, []],
    ['text: 2 Contains ignores letter case', { Name: 'LastName', Operation: 2, Values: ['LOVE'] }, ['a']],
    ['text: 3 StartsWith', { Name: 'TranId', Operation: 3, Values: ['r-'] }, ['g', 'f', 'e', 'd', 'c', 'a']],
    ['text: 4 EndsWith', { Name: 'EmailAddress', Operation: 4, Values: ['@EXAMPLE.org'] }, ['g', 'f', 'e', 'd', 'c', 'b', 'a']],
    ['text: wildcards are literal', { Name: 'TranId', Operation: 2, Values: ['%'] }, []],
    ['text: 12 In', { Name: 'TranId', Operation: 12, Values: ['r-3', 'r-7'] }, ['g', 'c']],
    ['text: 1 NotEquals keeps payments without a value', { Name: 'ExternalConstituentId', Operation: 1, Values: ['donor-1'] }, ['g', 'f', 'e', 'd', 'c', 'b']],
    ['a GUID', { Name: 'OrganizationGuid', Operation: 0, Values: ['ORG2'] }, ['c']],
    ['a GUID in upper case', { Name: 'IntegrationSourceGuid', Operation: 0, Values: ['SOURCE2'] }, ['b']],
    ['a day field', { Name: 'BillDate', Operation: 14 }, ['g', 'f', 'e', 'd', 'c', 'b', 'a']],
    ['a value made to look like SQL is only a value', { Name: 'TranId', Operation: 0, Values: ["r-1' OR '1'='1"] }, []],
    // The calendar's last day: its end is the first midnight of year 10000.
    ['the last day: 0 Equals', { Name: 'PaymentDate', Operation: 0, Values: ['9999-12-31'] }, []],
    ['the last day: 17 OnOrBefore', { Name: 'PaymentDate', Operation: 17, Values: ['9999-12-31'] }, ['g', 'f', 'e', 'd', 'c', 'b', 'a']],
    ['the last day: 11 Between, of a day field', { Name: 'BillDate', Operation: 11, Values: ['2026-01-01', '9999-12-31'] }, []],
    ['the first century: 7 After', { Name: 'PaymentDate', Operation: 7, Values: ['0099-12-31'] }, ['g', 'f', 'e', 'd', 'c', 'b', 'a']],
    ['the first century: 8 Before, of a day field', { Name: 'BillDate', Operation: 8, Values: ['0001-01-01'] }, []],
  ])('%s', async (_name, filter, expected) => {
    const values = (filter as { Values?: string[] }).Values?.map(
      (v: string) => ({ PA: String(fx.paid.a.PaymentId), PC: String(fx.paid.c.PaymentId), ORG2: fx.organizations.second, SOURCE2: fx.sources.second.toUpperCase() } as Record<string, string>)[v] ?? v,
    );
    expect(await filtered({ ...filter, ...(values ? { Values: values } : {}) })).toEqual(expected);
  });

  it('keeps the payments that pass every filter', async () => {
    expect(
      await filtered(
        { Name: 'PaymentDate', Operation: 7, Values: ['2026-01-31'] },
        { Name: 'PaymentMethod', Operation: 0, Values: ['Card'] },
        { Name: 'PaymentResult', Operation: 0, Values: ['Successful'] },
      ),
    ).toEqual(['g']);
  });

  it('binds names and values case-insensitively, as every surface A body', async () => {
    const res = await report({ filters: [{ name: 'tranid', operation: 0, values: ['r-1'] }], pagesize: 10 });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<Details>()).toMatchObject({ TotalCount: 1, PageSize: 10 });
  });
});

describe('sorting', () => {
  it('sorts by several columns in their Order', async () => {
    const details = await rows({
      Filters: [],
      SortColumns: [
        { Name: 'TotalAmount', Descending: true, Order: 2 },
        { Name: 'PaymentMethod', Order: 1 },
      ],
    });
    // ACH before Card (the names' order), each by TotalAmount, highest first.
    expect(letters(details)).toEqual(['c', 'b', 'a', 'd', 'g', 'f', 'e']);
  });

  it('sorts payments without a value last ascending, first descending', async () => {
    expect(letters(await rows({ Filters: [], SortColumns: [{ Name: 'SettlementDate' }, { Name: 'PaymentDate', Order: 1 }].map((s, i) => ({ ...s, Order: i })) }))).toEqual([
      'a',
      'b',
      'c',
      'f',
      'g',
      'd',
      'e',
    ]);
    expect(letters(await rows({ Filters: [], SortColumns: [{ Name: 'RefundedDate', Descending: true, Order: 0 }, { Name: 'PaymentId', Order: 1 }] }))).toEqual([
      'a',
      'b',
      'c',
      'd',
      'e',
      'g',
      'f',
    ]);
  });

  it('breaks ties by PaymentId in the direction of the first column', async () => {
    expect(letters(await rows({ Filters: [], SortColumns: [{ Name: 'Currency' }] }))).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    expect(letters(await rows({ Filters: [], SortColumns: [{ Name: 'Currency', Descending: true }] }))).toEqual(['g', 'f', 'e', 'd', 'c', 'b', 'a']);
  });
});

describe('paging', () => {
  it('pages through every payment once', async () => {
    const seen: string[] = [];
    for (let page = 1; page <= 4; page++) {
      const details = await rows({ Filters: [], PageSize: 2, PageIndex: page });
      expect(details).toMatchObject({ TotalCount: 7, PageIndex: page, PageSize: 2, TotalPages: 4 });
      seen.push(...letters(details));
    }
    expect(seen).toEqual(['g', 'f', 'e', 'd', 'c', 'b', 'a']);
  });

  it('takes PageIndex 0 as the first page', async () => {
    const details = await rows({ Filters: [], PageSize: 3, PageIndex: 0 });
    expect(details).toMatchObject({ PageIndex: 1, TotalCount: 7 });
    expect(letters(details)).toEqual(['g', 'f', 'e']);
  });

  it('answers a page past the end with no rows and the total', async () => {
    const details = await rows({ Filters: [], PageSize: 5, PageIndex: 3 });
    expect(details).toMatchObject({ Transactions: [], TotalCount: 7, PageIndex: 3, TotalPages: 2 });
  });

  it('answers the last, short page with the total', async () => {
    expect(await rows({ Filters: [], PageSize: 5, PageIndex: 2 })).toMatchObject({ TotalCount: 7, TotalPages: 2 });
  });

  it('takes up to 1,000 rows a page', async () => {
    expect(await rows({ Filters: [], PageSize: 1000 })).toMatchObject({ TotalCount: 7, PageSize: 1000 });
  });

  it.each([
    [1001, 'PageSize', "'PageSize' must be <= 1000."],
    [0, 'PageSize', "'PageSize' must be >= 1."],
  ])('refuses PageSize %s', async (size, _field, message) => {
    const res = await report({ Filters: [], PageSize: size });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual([expect.objectContaining({ ErrorCode: 1005, Message: message })]);
    await expectDocumented(ctx.app, 'POST', SOURCE_PATH, res);
  });

  it('refuses a negative PageIndex', async () => {
    const res = await report({ Filters: [], PageIndex: -1 });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual([expect.objectContaining({ ErrorCode: 1005 })]);
  });
});

describe('which payments', () => {
  it("names one of the partner's integration sources, or several", async () => {
    expect(letters(await rows({ Filters: [] }, { query: `integrationSource=${fx.sources.second}` }))).toEqual(['b']);
    expect(letters(await rows({ Filters: [] }, { query: `IntegrationSource=${fx.sources.first}&IntegrationSource=${fx.sources.second}` }))).toHaveLength(7);
  });

  it("answers another partner's source as one that does not exist: 404", async () => {
    const other = await report({ Filters: [] }, { query: `IntegrationSource=${ctx.forProfit.integrationSourceId}` });
    const none = await report({ Filters: [] }, { query: `IntegrationSource=${crypto.randomUUID()}` });
    for (const res of [other, none]) {
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      await expectDocumented(ctx.app, 'POST', SOURCE_PATH, res);
    }
    const { traceId: _a, ...otherBody } = other.json();
    const { traceId: _b, ...noneBody } = none.json();
    expect(otherBody).toEqual(noneBody);
    // One of several not the partner's: the whole request is not found.
    const mixed = await report({ Filters: [] }, { query: `IntegrationSource=${fx.sources.first}&IntegrationSource=${ctx.forProfit.integrationSourceId}` });
    expect(mixed.statusCode).toBe(404);
  });

  it('refuses an IntegrationSource that is not a GUID (400)', async () => {
    const res = await report({ Filters: [] }, { query: 'IntegrationSource=nope' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual([expect.objectContaining({ ErrorCode: 1003 })]);
  });

  it("never shows another partner's payments, whatever the filters", async () => {
    const mine = await rows({ Filters: [{ Name: 'TranId', Operation: 0, Values: ['r-1'] }] });
    expect(letters(mine)).toEqual(['a']);
    const byId = await rows({ Filters: [{ Name: 'PaymentGuid', Operation: 12, Values: fx.others.map((p) => p.PaymentGuid) }] });
    expect(byId.TotalCount).toBe(0);
    const theirs = (await report({ Filters: [] }, { partner: ctx.forProfit })).json<Details>();
    expect(theirs.Transactions.map((r) => r.PaymentGuid).sort()).toEqual(fx.others.map((p) => p.PaymentGuid).sort());
  });
});

describe('POST /api/organizationTransactionsReport', () => {
  it("lists one organization's payments", async () => {
    const details = await rows({ Filters: [] }, { path: ORG_PATH, query: `organizationGuid=${fx.organizations.second}` });
    expect(letters(details)).toEqual(['c']);
    expect(details.Transactions[0]).toMatchObject({ OrganizationName: 'Second organization' });
    const first = await rows({ Filters: [{ Name: 'PaymentDate', Operation: 8, Values: ['2026-02-01'] }] }, { path: ORG_PATH, query: `OrganizationGuid=${fx.organizations.first}` });
    expect(letters(first)).toEqual(['b', 'a']);
  });

  it("answers another partner's organization, or none, with the same 404", async () => {
    const [otherOrg] = await ctx.services.partners.listOrganizations(ctx.forProfit.ClientId);
    const otherId = otherOrg?.id ?? (await ctx.services.partners.createOrganization(ctx.forProfit.ClientId, { name: 'Theirs' }));
    const other = await report({ Filters: [] }, { path: ORG_PATH, query: `organizationGuid=${otherId}` });
    const none = await report({ Filters: [] }, { path: ORG_PATH, query: `organizationGuid=${crypto.randomUUID()}` });
    for (const res of [other, none]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ status: 404, detail: 'No data found.' });
      await expectDocumented(ctx.app, 'POST', ORG_PATH, res);
    }
  });

  it('needs organizationGuid (400)', async () => {
    const res = await report({ Filters: [] }, { path: ORG_PATH });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual([expect.objectContaining({ ErrorCode: 1001, Message: "'OrganizationGuid' is required." })]);
    await expectDocumented(ctx.app, 'POST', ORG_PATH, res);
  });

  it('checks the request before the organization: a bad filter is 400 even for an unknown one', async () => {
    const res = await report({ Filters: [{ Name: 'Nope', Operation: 0, Values: ['x'] }] }, { path: ORG_PATH, query: `organizationGuid=${crypto.randomUUID()}` });
    expect(res.statusCode).toBe(400);
  });
});

describe('bad requests (400 BrokenRule)', () => {
  it.each([
    ['no Filters', {}, [[1001, "'Filters' is required."]]],
    ['Filters not an array', { Filters: 'PaymentDate' }, [[1004, "'Filters' must be an array."]]],
    ['an unknown field', { Filters: [{ Name: 'CardNum', Operation: 0, Values: ['4242'] }] }, [[8000, "'Filters[0].Name' names no field of the report: 'CardNum'."]]],
    [
      'an operation that does not fit the field',
      { Filters: [{ Name: 'Amount', Operation: 2, Values: ['1'] }] },
      [[8001, "'Filters[0].Operation' 2 (Contains) does not apply to Amount, an amount: it takes 0 Equals, 1 NotEquals, 5 GreaterThan, 6 LessThan, 9 GreaterThanOrEqual, 10 LessThanOrEqual, 11 Between, 12 In, 13 NotIn, 14 IsNull, 15 IsNotNull."]],
    ],
    ['a date not yyyy-MM-dd', { Filters: [{ Name: 'PaymentDate', Operation: 7, Values: ['01/01/2026'] }] }, [[8002, "'Filters[0].Values[0]' must be a date of the calendar in the form yyyy-MM-dd for PaymentDate."]]],
    ['an operation that does not exist', { Filters: [{ Name: 'Amount', Operation: 42, Values: ['1'] }] }, [[1006, "'Filters[0].Operation' is not one of the allowed values."]]],
    ['an operation by name', { Filters: [{ Name: 'PaymentDate', Operation: 'After', Values: ['2026-01-01'] }] }, [[1004, "'Filters[0].Operation' must be a whole number."]]],
    ['a value that is not text', { Filters: [{ Name: 'Amount', Operation: 0, Values: [{ Amount: 5 }] }] }, [[1004, "'Filters[0].Values[0]' must be a string."]]],
    ['a value in an array of its own', { Filters: [{ Name: 'TranId', Operation: 0, Values: [['r-1']] }] }, [[1004, "'Filters[0].Values[0]' must be a string."]]],
    ['a value that is a boolean', { Filters: [{ Name: 'TranId', Operation: 12, Values: ['r-1', true] }] }, [[1004, "'Filters[0].Values[1]' must be a string."]]],
    ['a field name made to look like SQL', { Filters: [{ Name: 'PaymentDate; DROP TABLE payments', Operation: 7, Values: ['2026-01-01'] }] }, [[8000, "'Filters[0].Name' names no field of the report: 'PaymentDate; DROP TABLE payments'."]]],
    ['several sort columns without Order', { Filters: [], SortColumns: [{ Name: 'Amount' }, { Name: 'TranId' }] }, [[1001, "'SortColumns[0].Order' is required when several columns are sorted by."], [1001, "'SortColumns[1].Order' is required when several columns are sorted by."]]],
    ['a sort column that is no field', { Filters: [], SortColumns: [{ Name: 'Nope' }] }, [[8000, "'SortColumns[0].Name' names no field of the report: 'Nope'."]]],
    [
      'more than 1,000 filter values in all',
      { Filters: Array.from({ length: 11 }, () => ({ Name: 'TranId', Operation: 12, Values: Array.from({ length: 100 }, (_, i) => `r-${i}`) })) },
      [[1005, "'Filters' may hold at most 1000 values in all (1100 given)."]],
    ],
  ])('%s', async (_name, body, expected) => {
    const res = await report(body);
    expect(res.statusCode).toBe(400);
    expect(res.json<{ ErrorCode: number; Message: string }[]>().map((b) => [b.ErrorCode, b.Message])).toEqual(expected);
    await expectDocumented(ctx.app, 'POST', SOURCE_PATH, res);
  });

  it('needs an AccessToken (401)', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: SOURCE_PATH, payload: { Filters: [] } });
    expect(res.statusCode).toBe(401);
  });
});

describe('/openapi.json', () => {
  it('documents the operations, the row and the filter operations (7 = After)', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const path of [SOURCE_PATH, ORG_PATH, '/api/exportSourceTransactionsReport', '/api/exportOrganizationTransactionsReport']) {
      expect(doc.paths[path]?.post, path).toBeDefined();
    }
    expect(doc.components.schemas.TransactionReportDetails.properties).toHaveProperty('TotalCount');
    expect(Object.keys(doc.components.schemas.TransactionReportRow.properties)).toContain('ExternalConstituentId');
    const body = doc.paths[SOURCE_PATH].post.requestBody.content['application/json-patch+json'].schema;
    const operation = JSON.stringify(body);
    expect(operation).toContain('7 After');
    const exportOk = doc.paths['/api/exportSourceTransactionsReport'].post.responses['200'];
    expect(Object.keys(exportOk.content)).toEqual(['text/csv', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet']);
  });
});

describe('CSV injection cells in JSON', () => {
  it('are given as they were sent: only files neutralise them', async () => {
    const [b] = (await rows({ Filters: [{ Name: 'PaymentGuid', Operation: 0, Values: [fx.paid.b.PaymentGuid] }] })).Transactions;
    expect(b).toMatchObject({ FirstName: INJECTIONS.formula, LastName: INJECTIONS.plus, ExternalConstituentId: INJECTIONS.at, TranId: INJECTIONS.minus });
  });
});
