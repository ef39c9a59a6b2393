import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ProcessorTimeoutError } from '../../../src/processors/processor.ts';
import { cardPaymentInput, createTestContext, type TestContext, type TestPartner, withSimulator } from '../../helpers/context.ts';
import { startReceiver, verifySignature, type Receiver } from '../../helpers/receiver.ts';
import { adjust, card, makePayment } from '../../http/api/refund-void-fixtures.ts';
import { CARD, createLink, submit } from '../../http/paypage/paylink-helpers.ts';
import { DECLINED_CARD, cardToken, createProfile } from '../recurring/fixtures.ts';

/**
 * Every kind of change of a payment makes exactly the payload docs/notifications.md describes,
 * delivered to a real receiver on 127.0.0.1 and signed (verified here with node:crypto alone).
 */
let ctx: TestContext;
let receiver: Receiver;
let secret: string;

const DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/;

beforeAll(async () => {
  ctx = await createTestContext({ config: { notificationAllowPrivate: true } });
  receiver = await startReceiver();
  await configure(ctx.nonProfit);
  secret = (await ctx.services.notificationConfigs.rotateSecret(ctx.nonProfit.ClientId)).secret;
});
afterAll(async () => {
  await receiver.close();
  await ctx.close();
});
beforeEach(() => {
  receiver.received.length = 0;
});

async function configure(partner: TestPartner, extra: { accessToken?: string; retries?: number } = {}) {
  return ctx.services.notificationConfigs.save(partner.ClientId, [
    { notificationConfigurationTypeId: '1', notificationProtocolTypeId: '1', notificationUrl: receiver.url, isDeleted: false, ...extra },
  ]);
}

/** Delivers what is due and answers the payloads received, each checked for its signature. */
async function delivered(): Promise<Record<string, unknown>[]> {
  await ctx.services.notificationWorker.deliverDue();
  return receiver.received.map((r) => {
    expect(verifySignature(r.headers['payments-signature'] as string, r.body, secret), 'the signature verifies').toBe(true);
    expect(r.headers['payments-event-id']).toMatch(/^[0-9a-f-]{36}$/);
    // Never a card or account number.
    expect(r.body).not.toMatch(/4242424242424242|4000000000000002|000123456789/);
    return JSON.parse(r.body) as Record<string, unknown>;
  });
}

const FIELDS = [
  'PaymentId', 'PaymentGuid', 'PaymentDate', 'PaymentExternalId', 'OriginalExternalID', 'RecurringProfileId', 'RecurringProfileGuid', 'NextBillDate',
  'RecurringProfileStatus', 'ProcessStatus', 'ProcessStatusValue', 'PaymentResult', 'PaymentResultValue', 'Amount', 'DistributionType',
  'DistributionTypeValue', 'DistributionStatus', 'DistributionId', 'SourceGuid', 'SourceName', 'CharityId', 'OrganizationGuid', 'OrganizationName',
  'TranId', 'PaymentMethod', 'PaymentMethodTypeId', 'CardType', 'CardLastFour', 'AccountLastFour', 'Successful', 'ResponseCode', 'Message',
  'AuthCode', 'TotalFees', 'Currency', 'SettledDate', 'AdjustmentType', 'AdjustmentReason', 'AdjustmentExternalId', 'ExternalCustomerId',
  'ExternalConstituentId',
];

describe('the payload of each change', () => {
  it('an approved API card payment: every field, in order, nulls written, exact amounts, the original date format', async () => {
    const paid = await makePayment(ctx, { body: { TranId: 'INV-1', Transactions: [{ TransactionSourceGroupId: '1', Amount: '100.10' }] } });
    const [body, ...more] = await delivered();
    expect(more).toHaveLength(0);
    expect(Object.keys(body!)).toEqual(FIELDS);
    expect(body).toMatchObject({
      PaymentId: paid.PaymentId,
      PaymentGuid: paid.PaymentGuid,
      PaymentExternalId: paid.TransactionId,
      OriginalExternalID: null,
      RecurringProfileGuid: null,
      NextBillDate: null,
      ProcessStatus: 2,
      ProcessStatusValue: 'Awaiting Authorization',
      PaymentResult: 3,
      PaymentResultValue: 'Successful',
      Amount: 100.1,
      DistributionId: null,
      SourceGuid: ctx.nonProfit.integrationSourceId,
      SourceName: expect.any(String),
      OrganizationGuid: ctx.nonProfit.organizationId,
      OrganizationName: expect.any(String),
      TranId: 'INV-1',
      PaymentMethod: 'Card',
      CardType: 'Visa',
      CardLastFour: '4242',
      AccountLastFour: null,
      Successful: true,
      ResponseCode: '0',
    });
    expect(body!.PaymentDate).toMatch(DATE);
    // The amount is written as the rest of surface A writes it: a JSON number with at most 2 decimals.
    expect(receiver.received[0]!.body).toContain('"Amount":100.1,');
  });

  it('a declined card payment and an ACH payment', async () => {
    const declined = await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload: card({ CardNum: DECLINED_CARD }) });
    expect(declined.json().Successful, declined.body).toBe(false);
    const ach = await makePayment(ctx, { kind: 'ach' });
    const bodies = (await delivered()).sort((a, b) => (a.PaymentId as number) - (b.PaymentId as number));
    expect(bodies).toEqual([
      expect.objectContaining({ PaymentGuid: declined.json().PaymentGuid, PaymentResult: 4, PaymentResultValue: 'Failed', ProcessStatus: 5, ProcessStatusValue: 'Rejected', Successful: false, ResponseCode: '12' }),
      expect.objectContaining({ PaymentGuid: ach.PaymentGuid, PaymentMethod: 'ACH', AccountLastFour: '6789', CardLastFour: null, Amount: 50 }),
    ]);
  });

  it('a void and a refund after settlement, in the order they happened', async () => {
    const toVoid = await makePayment(ctx);
    const voided = await adjust(ctx, 'void', { PaymentGuid: toVoid.PaymentGuid, Reason: 'asked by the payer' });
    expect(voided.statusCode, voided.body).toBe(200);
    const toRefund = await makePayment(ctx);
    ctx.clock.advance(3 * 24 * 3_600_000);
    await ctx.services.settlement.settle();
    const refunded = await adjust(ctx, 'refund', { PaymentGuid: toRefund.PaymentGuid, Reason: 'returned goods' });
    expect(refunded.statusCode, refunded.body).toBe(200);
    const bodies = await delivered();
    const of = (guid: string) => bodies.filter((b) => b.PaymentGuid === guid).map((b) => [b.ProcessStatusValue, b.PaymentResultValue, b.AdjustmentType, b.AdjustmentReason]);
    expect(of(toVoid.PaymentGuid)).toEqual([
      ['Awaiting Authorization', 'Successful', null, null],
      ['Cancelled', 'Cancelled', 'Void', 'asked by the payer'],
    ]);
    expect(of(toRefund.PaymentGuid)).toEqual([
      ['Awaiting Authorization', 'Successful', null, null],
      ['Authorized', 'Successful', null, null],
      ['Refunded', 'Refunded', 'Refund', 'returned goods'],
    ]);
    const settled = bodies.find((b) => b.PaymentGuid === toRefund.PaymentGuid && b.ProcessStatus === 4)!;
    expect(settled.SettledDate).toMatch(DATE);
  });

  it('a held outcome (Processing: the partner learns it is held) and an operator resolving it', async () => {
    const partner = { id: ctx.nonProfit.ClientId, name: ctx.nonProfit.name, kind: ctx.nonProfit.kind };
    const held = await withSimulator(ctx.services, { sale: () => Promise.reject(new ProcessorTimeoutError('no answer')) }, () => ctx.services.payments.payCard(partner, cardPaymentInput(1_500)));
    expect(await delivered()).toEqual([expect.objectContaining({ PaymentGuid: held.payment.id, PaymentResultValue: 'Processing', ProcessStatusValue: 'Not Processed' })]);
    receiver.received.length = 0;
    ctx.clock.advance(ctx.services.config.processorTimeoutMs + 60_000);
    await ctx.services.pendingPayments.resolve(held.payment.id, { kind: 'declined' }, { force: true });
    expect(await delivered()).toEqual([expect.objectContaining({ PaymentGuid: held.payment.id, PaymentResultValue: 'Failed', Amount: 15 })]);
  });

  it('a pay page payment', async () => {
    const { id } = await createLink(ctx);
    const res = await submit(ctx, id, CARD);
    expect(res.statusCode, res.body).toBe(303);
    expect(await delivered()).toEqual([expect.objectContaining({ PaymentResultValue: 'Successful', Amount: 25, CardLastFour: '4242' })]);
  });

  it('a recurring charge carries its profile and the new NextBillDate; a profile suspended after its last retry says so', async () => {
    ctx.clock.set('2026-11-21T06:00:00Z');
    const card = await cardToken(ctx, ctx.nonProfit);
    const created = await createProfile(ctx, { TokenGuid: card.id, Amount: '25.00', StartDate: '2026-11-21', BillingFrequency: 'Monthly' });
    expect(created.statusCode, created.body).toBe(201);
    const profileGuid = created.json().RecurringProfileGuid as string;
    ctx.clock.set('2026-12-21T06:00:00Z');
    await ctx.services.billing.run();
    expect(await delivered()).toEqual([
      expect.objectContaining({ RecurringProfileGuid: profileGuid, RecurringProfileId: expect.any(Number), NextBillDate: '2027-01-21T00:00:00.000', RecurringProfileStatus: 'Active', PaymentResultValue: 'Successful', Amount: 25 }),
    ]);

    receiver.received.length = 0;
    const bad = await cardToken(ctx, ctx.nonProfit, DECLINED_CARD);
    const failing = await createProfile(ctx, { TokenGuid: bad.id, Amount: '10.00', StartDate: '2026-12-21', BillingFrequency: 'Monthly' });
    expect(failing.statusCode, failing.body).toBe(201);
    const failingGuid = failing.json().RecurringProfileGuid as string;
    // The first attempt and each retry day (BILLING_RETRY_DAYS 1,3,7): the last one suspends.
    for (const day of ['2027-01-21', '2027-01-22', '2027-01-24', '2027-01-28']) {
      ctx.clock.set(`${day}T06:00:00Z`);
      await ctx.services.billing.run();
    }
    // Each attempt is a payment of its own: deliveries of different payments may arrive in any order.
    const bodies = (await delivered()).filter((b) => b.RecurringProfileGuid === failingGuid).sort((a, b) => (a.PaymentId as number) - (b.PaymentId as number));
    expect(bodies.map((b) => [b.PaymentResultValue, b.RecurringProfileStatus, b.NextBillDate])).toEqual([
      ['Failed', 'Active', '2027-01-21T00:00:00.000'],
      ['Failed', 'Active', '2027-01-21T00:00:00.000'],
      ['Failed', 'Active', '2027-01-21T00:00:00.000'],
      ['Failed', 'Suspended', null],
    ]);
  });
});

describe('when no notification is made', () => {
  it('a partner without a config gets none, and a rolled-back change makes none', async () => {
    const before = Number((await ctx.store.sql.query<{ n: string }>('SELECT count(*) AS n FROM notifications'))[0]!.n);
    await makePayment(ctx, { partner: ctx.forProfit });
    const paid = await makePayment(ctx);
    await ctx.services.notificationWorker.deliverDue();
    const after = Number((await ctx.store.sql.query<{ n: string }>('SELECT count(*) AS n FROM notifications'))[0]!.n);
    expect(after).toBe(before + 1);
    // A change rolled back: its outbox row goes with it.
    await expect(
      ctx.store.db.transaction(async (tx) => {
        await tx.execute(`UPDATE payments SET payment_result = 6, process_status = 9 WHERE id = '${paid.PaymentGuid}'` as never);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(Number((await ctx.store.sql.query<{ n: string }>('SELECT count(*) AS n FROM notifications'))[0]!.n)).toBe(after);
  });
});
