import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import { insertSyntheticPayments } from '../../helpers/report-data.ts';
import { type ReportCriteria, type ReportRequestInput, readCriteria } from '../../../src/modules/reports/report-criteria.ts';
import { type ReportScope, ReportRepository, centsText, countStatement, exportStatement, keptCountKey, pageStatement, settledCountStatement } from '../../../src/modules/reports/report-repository.ts';

/**
 * The report's SQL against a volume of payments: which index each filter and sort uses (EXPLAIN),
 * and that an export's batches (keyset pages on PGlite, a cursor on PostgreSQL) give exactly the
 * rows of the one ordered query, in its order, whatever the sort.
 */

let ctx: TestContext;
let nonProfit: ReportScope;
let secondSource: string;
let secondOrganization: string;
const COUNT = 12_000;

beforeAll(async () => {
  ctx = await createTestContext();
  const partner = ctx.nonProfit;
  secondSource = await ctx.services.partners.createIntegrationSource(partner.ClientId, { name: 'Second source', duplicateCheck: false });
  secondOrganization = await ctx.services.partners.createOrganization(partner.ClientId, { name: 'Second organization' });
  await insertSyntheticPayments(ctx.store.sql, {
    partnerId: partner.ClientId,
    processorId: partner.processorId,
    integrationSourceIds: [partner.integrationSourceId, secondSource],
    organizationIds: [partner.organizationId!, secondOrganization, null],
    count: COUNT,
    from: new Date('2025-01-01T00:00:00Z'),
    to: new Date('2026-11-01T00:00:00Z'),
    prefix: 'np',
  });
  // Another partner's payments in the same tables: never in the nonProfit partner's reports.
  await insertSyntheticPayments(ctx.store.sql, {
    partnerId: ctx.forProfit.ClientId,
    processorId: ctx.forProfit.processorId,
    integrationSourceIds: [ctx.forProfit.integrationSourceId],
    organizationIds: [null],
    count: 3000,
    from: new Date('2025-01-01T00:00:00Z'),
    to: new Date('2026-11-01T00:00:00Z'),
    prefix: 'fp',
  });
  await ctx.store.sql.exec('VACUUM ANALYZE');
  nonProfit = { kind: 'sources', partnerId: partner.ClientId };
}, 300_000);
afterAll(() => ctx.close());

function criteria(input: ReportRequestInput): ReportCriteria {
  const read = readCriteria(input);
  if (!read.criteria) throw new Error(JSON.stringify(read.violations));
  return read.criteria;
}

async function plan(statement: { text: string; params: unknown[] }): Promise<string> {
  const rows = await ctx.store.sql.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${statement.text}`, statement.params);
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

const filter = (Name: string, Operation: number, ...Values: string[]) => ({ filters: [{ name: Name, operation: Operation, values: Values }] });

describe('plans (EXPLAIN) at volume', () => {
  // Each filter's count and each sort's page read an index, never the whole payments table.
  const countCases: [string, string, () => ReportScope, ReportRequestInput][] = [
    ['PaymentDate After', 'payments_partner_created', () => nonProfit, filter('PaymentDate', 7, '2026-10-01')],
    ['PaymentDate Between', 'payments_partner_created', () => nonProfit, filter('PaymentDate', 11, '2026-03-01', '2026-03-31')],
    ['ProcessStatus', 'payments_report_status', () => nonProfit, filter('ProcessStatus', 0, 'Refunded')],
    ['PaymentResult', 'payments_report_result', () => nonProfit, filter('PaymentResult', 12, '5', '6')],
    ['one integration source', 'payments_report_source', () => ({ ...nonProfit, kind: 'sources', integrationSourceIds: [secondSource] }), filter('PaymentDate', 7, '2026-10-01')],
    ['IntegrationSourceGuid filter', 'payments_report_source', () => nonProfit, filter('IntegrationSourceGuid', 0, 'SOURCE')],
    ['an organization', 'payments_report_organization', () => ({ kind: 'organization', partnerId: nonProfit.partnerId, organizationId: secondOrganization }), filter('PaymentDate', 16, '2026-10-01')],
    ['TranId', 'payments_report_tran_id', () => nonProfit, filter('TranId', 0, 'np-1234')],
    ['ExternalConstituentId', 'payments_report_constituent', () => nonProfit, filter('ExternalConstituentId', 0, 'c-17')],
    ['PaymentExternalId', 'payments_transaction_id', () => nonProfit, filter('PaymentExternalId', 0, 'tx-np-77')],
    ['PaymentId', 'payments_payment_id_key', () => nonProfit, filter('PaymentId', 0, '77')],
    ['PaymentGuid', 'payments_pkey', () => nonProfit, filter('PaymentGuid', 0, '00000000-0000-4000-8000-000000000001')],
    ['SettlementDate', 'payments_report_settled', () => nonProfit, filter('SettlementDate', 0, '2026-06-01')],
    ['PayLinkId', 'payments_report_pay_link', () => nonProfit, filter('PayLinkId', 0, 'abc')],
    ['RecurringProfileGuid', 'payments_recurring_profile', () => nonProfit, filter('RecurringProfileGuid', 0, '00000000-0000-4000-8000-000000000001')],
    ['RecurringProfileId (the profile, then its payments)', 'payments_recurring_profile', () => nonProfit, filter('RecurringProfileId', 0, '5')],
    ['SettlementBatch (the batch, then its payments)', 'payments_settlement_batch', () => nonProfit, filter('SettlementBatch', 0, '1')],
    // A few hundred refunds and voids here: PostgreSQL reads them whole, as it should (the
    // benchmark's plans, at a million payments, use the index).
    ['RefundedDate', 'payment_adjustments', () => nonProfit, filter('RefundedDate', 0, '2026-06-03')],
    ['TotalAmount', 'payments_report_amount', () => nonProfit, filter('TotalAmount', 11, '10.00', '10.50')],
  ];

  it.each(countCases)('counting by %s reads %s', async (_name, index, scope, input) => {
    const source = { ...input, filters: input.filters?.map((f) => ({ ...f, values: f.values?.map((v) => (v === 'SOURCE' ? secondSource : v)) })) };
    const text = await plan(countStatement(scope(), criteria(source)));
    expect(text, text).toContain(index);
    expect(text, text).not.toMatch(/Seq Scan on payments/);
  });

  const pageCases: [string, string, ReportRequestInput][] = [
    ['PaymentDate descending (the default)', 'payments_partner_created', {}],
    ['PaymentDate descending after a date', 'payments_partner_created', { ...filter('PaymentDate', 7, '2026-01-01'), sortColumns: [{ name: 'PaymentDate', descending: true }] }],
    ['PaymentDate ascending', 'payments_partner_created', { sortColumns: [{ name: 'PaymentDate' }] }],
    ['TotalAmount descending', 'payments_report_amount', { sortColumns: [{ name: 'TotalAmount', descending: true }] }],
    ['TotalAmount ascending', 'payments_report_amount', { sortColumns: [{ name: 'TotalAmount' }] }],
  ];

  it.each(pageCases)('a page sorted by %s reads %s, a page at a time', async (_name, index, input) => {
    const text = await plan(pageStatement(nonProfit, criteria(input), { pageIndex: 3, pageSize: 100 }));
    expect(text, text).toContain(index);
    expect(text, text).not.toMatch(/Seq Scan on payments/);
  });

  it('prints the plan of the benchmark page (a date filter, newest first, 100 rows)', async () => {
    const text = await plan(pageStatement(nonProfit, criteria({ ...filter('PaymentDate', 7, '2026-10-01'), sortColumns: [{ name: 'PaymentDate', descending: true }] }), { pageIndex: 1, pageSize: 100 }));
    expect(text).toMatch(/Limit/);
    expect(text).toMatch(/Index Scan Backward using payments_partner_created/);
    // PaymentDate then PaymentId is the index's order: the rows are not sorted again.
    expect(text, text).not.toMatch(/Sort/);
  });
});

describe('CSV amounts', () => {
  it('are the cents as a decimal with two places, exactly, whatever the sign or size', async () => {
    const cents = ['0', '1', '9', '10', '99', '100', '2500', '-1', '-50', '-99', '-100', '-12345', '9007199254740993', '-9223372036854775808'];
    const expected = cents.map((c) => {
      const n = BigInt(c);
      const abs = n < 0n ? -n : n;
      return `${n < 0n ? '-' : ''}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
    });
    const rows = await ctx.store.sql.query<{ cell: string | null }>(`SELECT ${centsText('v')} AS cell FROM unnest($1::bigint[]) WITH ORDINALITY AS t(v, n) ORDER BY n`, [cents]);
    expect(rows.map((r) => r.cell)).toEqual(expected);
    const [missing] = await ctx.store.sql.query<{ cell: string | null }>(`SELECT ${centsText('NULL::bigint')} AS cell`);
    expect(missing!.cell).toBeNull();
  });
});

describe('names of other rows', () => {
  it('are the same in a page (a subquery, skipped for a payment that names no row) as in an export (joined)', async () => {
    const c = criteria({});
    const page = pageStatement(nonProfit, c, { pageIndex: 1, pageSize: 1000 });
    const names = ['settlementBatch', 'integrationSourceName', 'organizationName', 'charityName', 'recurringProfileId'] as const;
    type Named = Record<(typeof names)[number] | 'paymentId', unknown>;
    const paged = await ctx.store.sql.query<Named>(page.text, page.params);
    const all = exportStatement(nonProfit, c);
    const exported = new Map((await ctx.store.sql.query<Named>(all.text, all.params)).map((r) => [r.paymentId, r]));
    expect(paged).toHaveLength(1000);
    for (const row of paged) for (const name of names) expect(row[name], name).toEqual(exported.get(row.paymentId)![name]);
    // Both branches of the guard: payments with a batch and an organization, and without.
    for (const name of ['settlementBatch', 'organizationName'] as const) {
      expect(paged.some((r) => r[name] === null)).toBe(true);
      expect(paged.some((r) => r[name] !== null)).toBe(true);
    }
  });
});

describe('export batches', () => {
  const sorts: [string, ReportRequestInput][] = [
    ['the default sort', {}],
    ['TranId (nullable) ascending, then TotalAmount descending', { sortColumns: [{ name: 'TranId', order: 1 }, { name: 'TotalAmount', descending: true, order: 2 }] }],
    ['FirstName (nullable) descending, then PaymentDate', { sortColumns: [{ name: 'FirstName', descending: true, order: 0 }, { name: 'PaymentDate', order: 1 }] }],
    ['SettlementDate (mostly null) descending', { sortColumns: [{ name: 'SettlementDate', descending: true }] }],
    ['NetAmount (computed) ascending, then PaymentId descending, then TranId', { sortColumns: [{ name: 'NetAmount', order: 0 }, { name: 'PaymentId', descending: true, order: 1 }, { name: 'TranId', order: 2 }] }],
    ['RefundedAmount (a join) descending', { sortColumns: [{ name: 'RefundedAmount', descending: true }] }],
  ];
  const scope = (): ReportScope => ({ kind: 'organization', partnerId: nonProfit.partnerId, organizationId: secondOrganization });
  const narrow = filter('PaymentDate', 11, '2026-01-01', '2026-04-30');

  async function readAll(repository: ReportRepository, c: ReportCriteria, batchRows: number): Promise<number[]> {
    const batches = await repository.batches(scope(), c, batchRows);
    const ids: number[] = [];
    for (;;) {
      const rows = await batches.next();
      if (rows.length === 0) break;
      expect(rows.length).toBeLessThanOrEqual(batchRows);
      ids.push(...rows.map((r) => r.paymentId));
    }
    await batches.close();
    return ids;
  }

  it.each(sorts)('keyset batches give the rows of the ordered query, in order: %s', async (_name, input) => {
    const c = criteria({ ...narrow, ...input });
    const statement = exportStatement(scope(), c);
    const expected = (await ctx.store.sql.query<{ paymentId: number }>(statement.text, statement.params)).map((r) => r.paymentId);
    expect(expected.length).toBeGreaterThan(300);
    const keyset = new ReportRepository({ sql: ctx.store.sql });
    expect(await readAll(keyset, c, 37)).toEqual(expected);
  });

  it.runIf(isPostgres())('a cursor gives them too (PostgreSQL)', async () => {
    for (const [, input] of sorts) {
      const c = criteria({ ...narrow, ...input });
      const statement = exportStatement(scope(), c);
      const expected = (await ctx.store.sql.query<{ paymentId: number }>(statement.text, statement.params)).map((r) => r.paymentId);
      const cursor = new ReportRepository({ sql: ctx.store.sql, openCursor: ctx.store.openCursor!.bind(ctx.store) });
      expect(await readAll(cursor, c, 37)).toEqual(expected);
    }
  });

  it('reads only the partner’s payments', async () => {
    const c = criteria({});
    const repository = new ReportRepository({ sql: ctx.store.sql, openCursor: ctx.store.openCursor?.bind(ctx.store) });
    const batches = await repository.batches(nonProfit, c, 5000);
    let count = 0;
    for (;;) {
      const rows = await batches.next();
      if (rows.length === 0) break;
      count += rows.length;
      expect(rows.every((r) => r.tranId === null || r.tranId.startsWith('np-'))).toBe(true);
    }
    await batches.close();
    expect(count).toBe(COUNT);
  });
});

// Last: these add payments (the other partner's).
describe('the total of a page', () => {
  const forProfit = () => ({ kind: 'sources', partnerId: ctx.forProfit.ClientId }) as ReportScope;
  const exact = async (c: ReportCriteria) => {
    const statement = countStatement(forProfit(), c);
    return (await ctx.store.sql.query<{ total: number }>(statement.text, statement.params))[0]!.total;
  };
  const add = (count: number, from: string, to: string, prefix: string) =>
    insertSyntheticPayments(ctx.store.sql, {
      partnerId: ctx.forProfit.ClientId,
      processorId: ctx.forProfit.processorId,
      integrationSourceIds: [ctx.forProfit.integrationSourceId],
      organizationIds: [null],
      count,
      from: new Date(from),
      to: new Date(to),
      prefix,
    });

  it('is kept under a digest of its statement, not the statement: a report of 1,000 filter values keeps 43 characters', async () => {
    const values = Array.from({ length: 100 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    const key = (last: string) =>
      keptCountKey(settledCountStatement(forProfit(), criteria({ filters: Array.from({ length: 10 }, () => ({ name: 'PaymentGuid', operation: 13, values: [...values.slice(1), last] })) })));
    const one = key(values[0]!);
    expect(one).toHaveLength(43);
    expect(key(values[0]!)).toBe(one);
    expect(key('00000000-0000-4000-8000-999999999999')).not.toBe(one);
  });

  it('is exact as payments are added, a kept count or not: old times (written late), recent ones, and fields that change', async () => {
    const repository = new ReportRepository({ sql: ctx.store.sql });
    const paging = { pageIndex: 1, pageSize: 10 };
    const byDate = criteria({ filters: [{ name: 'PaymentDate', operation: 7, values: ['2026-01-01'] }] });
    const everything = criteria({});
    const settled = criteria({ filters: [{ name: 'ProcessStatus', operation: 0, values: ['Settled'] }] });
    const totals = async () => Promise.all([byDate, everything, settled].map(async (c) => (await repository.page(forProfit(), c, paging)).total));
    const expected = async () => Promise.all([byDate, everything, settled].map(exact));
    expect(await totals()).toEqual(await expected());
    // Kept: the same again.
    expect(await totals()).toEqual(await expected());
    // Payments of months ago, written now: the kept count misses them, so it is counted again.
    await add(7, '2026-03-01T00:00:00Z', '2026-03-02T00:00:00Z', 'late1');
    expect(await totals()).toEqual(await expected());
    // Payments of the last minutes: counted live.
    const now = Date.now();
    await add(5, new Date(now - 60_000).toISOString(), new Date(now).toISOString(), 'recent1');
    expect(await totals()).toEqual(await expected());
    await add(3, '2026-04-01T00:00:00Z', '2026-04-02T00:00:00Z', 'late2');
    await add(2, new Date(now - 30_000).toISOString(), new Date(now).toISOString(), 'recent2');
    const [byDateTotal] = await totals();
    expect(await totals()).toEqual(await expected());
    expect(byDateTotal).toBe(await exact(byDate));
    // A field that changes: counted each time.
    await ctx.store.sql.query('UPDATE payments SET process_status = 4 WHERE partner_id = $1 AND process_status <> 4 AND payment_id IN (SELECT payment_id FROM payments WHERE partner_id = $1 AND process_status <> 4 LIMIT 11)', [ctx.forProfit.ClientId]);
    expect(await totals()).toEqual(await expected());
  });
});

function isPostgres(): boolean {
  return Boolean(process.env.DATABASE_URL?.trim());
}
