import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SaleResult } from '../../src/processors/processor.ts';
import { NotFoundError } from '../../src/services/errors.ts';
import { OperatorInputError } from '../../src/services/partners.ts';
import { type TestContext, createTestContext } from '../helpers/context.ts';
import type { FollowUpResult } from '../../src/processors/processor.ts';
import { adjust, adjustmentsOf, card, makePayment, paymentRow, settleNow } from '../api/refund-void-fixtures.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
  ctx.clock.set('2026-11-22T10:00:00.000Z');
});
afterAll(() => ctx.close());

/**
 * A payment whose process stopped while the processor was being asked: its sale call never
 * returns, so the payment stays as it was written before the call (Pending). Returns its guid.
 */
async function strandedPayment(body = card()): Promise<string> {
  const adapter = ctx.services.processorAdapters.get('simulator');
  const sale = adapter.sale;
  let asked!: () => void;
  const processorAsked = new Promise<void>((r) => (asked = r));
  adapter.sale = () => {
    asked();
    return new Promise<SaleResult>(() => {});
  };
  try {
    void ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload: body });
    await processorAsked;
  } finally {
    adapter.sale = sale;
  }
  const [row] = await ctx.store.sql.query<{ id: string }>('SELECT id FROM payments WHERE tran_id = $1', [body.TranId]);
  return row!.id;
}

const stored = (guid: string) => ctx.services.payments.get(ctx.nonProfit.ClientId, guid);

describe('payments left pending by a stop between the processor call and the record', () => {
  it('are listed once older than the threshold, and take the approval an operator finds in the processor records', async () => {
    const guid = await strandedPayment(card({ TranId: 'stranded-approved' }));
    expect((await stored(guid)).payment).toMatchObject({ paymentResult: 1, processStatus: 1, transactionId: null });
    // Younger than 15 minutes: it may still be waiting for its answer.
    expect((await ctx.services.pendingPayments.list(15)).payments.map((p) => p.paymentGuid)).not.toContain(guid);

    ctx.clock.advance(16 * 60_000);
    const listed = (await ctx.services.pendingPayments.list(15)).payments.find((p) => p.paymentGuid === guid);
    expect(listed).toMatchObject({ partnerId: ctx.nonProfit.ClientId, method: 'card', adapter: 'simulator', tranId: 'stranded-approved', recurringProfileId: null });
    expect(listed!.amountCents).toBeGreaterThan(0);

    expect(await ctx.services.pendingPayments.resolve(guid, { kind: 'approved', transactionId: 'BANK-20261122-0001', authCode: 'A1B2C3' })).toEqual({ what: 'payment', paymentGuid: guid, paymentResult: 3, processStatus: 2 });
    expect((await stored(guid)).payment).toMatchObject({
      paymentResult: 3,
      processStatus: 2,
      successful: true,
      responseCode: '0',
      transactionId: 'BANK-20261122-0001',
      authCode: 'A1B2C3',
      processedAt: ctx.clock.now(),
    });
    expect((await ctx.services.pendingPayments.list(0)).payments.map((p) => p.paymentGuid)).not.toContain(guid);
    // Once recorded, the outcome is not rewritten by a second resolution.
    await expect(ctx.services.pendingPayments.resolve(guid, { kind: 'declined' })).rejects.toThrow(/not pending/);
    expect((await stored(guid)).payment).toMatchObject({ paymentResult: 3, transactionId: 'BANK-20261122-0001' });
  });

  it('take a decline (Failed, Rejected) or "no such sale" (Failed, NotProcessed: nothing charged)', async () => {
    const declined = await strandedPayment(card({ TranId: 'stranded-declined' }));
    const unknown = await strandedPayment(card({ TranId: 'stranded-unknown' }));
    await ctx.services.pendingPayments.resolve(declined, { kind: 'declined' });
    await ctx.services.pendingPayments.resolve(unknown, { kind: 'not-processed' });
    expect((await stored(declined)).payment).toMatchObject({ paymentResult: 4, processStatus: 5, successful: false, responseCode: '12', transactionId: null });
    expect((await stored(unknown)).payment).toMatchObject({ paymentResult: 4, processStatus: 1, successful: false, responseCode: '99' });
    expect((await stored(unknown)).payment.message).toMatch(/not processed/);
  });

  it('refuses a malformed PaymentGuid, an unknown payment, a malformed transaction id and one another payment has', async () => {
    const guid = await strandedPayment(card({ TranId: 'stranded-refusals' }));
    await expect(ctx.services.pendingPayments.resolve('not-a-guid', { kind: 'declined' })).rejects.toThrow(OperatorInputError);
    await expect(ctx.services.pendingPayments.resolve('00000000-0000-4000-8000-000000000000', { kind: 'declined' })).rejects.toThrow(NotFoundError);
    await expect(ctx.services.pendingPayments.resolve(guid, { kind: 'approved', transactionId: 'two words' })).rejects.toThrow(/transaction id/);
    await expect(ctx.services.pendingPayments.resolve(guid, { kind: 'approved', transactionId: 'BANK-20261122-0001' })).rejects.toThrow(/another payment already has/);
    expect((await stored(guid)).payment).toMatchObject({ paymentResult: 1, transactionId: null });
  });
});

/** A refund or void whose process stopped while the processor was being asked. Returns its id. */
async function strandedAdjustment(kind: 'void' | 'refund', paymentGuid: string): Promise<string> {
  const adapter = ctx.services.processorAdapters.get('simulator');
  const call = adapter[kind];
  let asked!: () => void;
  const processorAsked = new Promise<void>((r) => (asked = r));
  adapter[kind] = () => {
    asked();
    return new Promise<FollowUpResult>(() => {});
  };
  try {
    void adjust(ctx, kind, { PaymentGuid: paymentGuid, Reason: 'Donor asked' });
    await processorAsked;
  } finally {
    adapter[kind] = call;
  }
  const [claim] = (await adjustmentsOf(ctx, paymentGuid)).filter((a) => a.status === 'pending');
  return claim!.id;
}

describe('refunds and voids left in flight by a stop between the processor call and the record', () => {
  it("are listed with their payment, and take the processor's approval: the void goes through", async () => {
    const paid = await makePayment(ctx);
    const claim = await strandedAdjustment('void', paid.PaymentGuid);
    expect((await paymentRow(ctx, paid.PaymentGuid)).pending_adjustment_id).toBe(claim);
    ctx.clock.advance(16 * 60_000);
    const { adjustments } = await ctx.services.pendingPayments.list(15);
    expect(adjustments.find((a) => a.adjustmentId === claim)).toMatchObject({ kind: 'void', paymentGuid: paid.PaymentGuid, originalTransactionId: paid.TransactionId, partnerId: ctx.nonProfit.ClientId });

    expect(await ctx.services.pendingPayments.resolve(claim, { kind: 'approved', transactionId: 'BANK-VOID-0001' })).toEqual({
      what: 'void',
      paymentGuid: paid.PaymentGuid,
      paymentResult: 6,
      processStatus: 9,
    });
    expect(await paymentRow(ctx, paid.PaymentGuid)).toMatchObject({ payment_result: 6, process_status: 9, pending_adjustment_id: null });
    expect((await adjustmentsOf(ctx, paid.PaymentGuid)).find((a) => a.id === claim)).toMatchObject({ status: 'approved', transaction_id: 'BANK-VOID-0001', response_code: '0' });
    expect((await ctx.services.pendingPayments.list(0)).adjustments.map((a) => a.adjustmentId)).not.toContain(claim);
    await expect(ctx.services.pendingPayments.resolve(claim, { kind: 'declined' })).rejects.toThrow(/not pending/);
  });

  it('"no such refund" releases the payment unchanged, and the refund can be asked again', async () => {
    const paid = await makePayment(ctx);
    await settleNow(ctx);
    const claim = await strandedAdjustment('refund', paid.PaymentGuid);
    // While the claim is held, another refund is refused.
    expect((await adjust(ctx, 'refund', { PaymentGuid: paid.PaymentGuid, Reason: 'Again' })).json()).toMatchObject({ Successful: false });

    expect(await ctx.services.pendingPayments.resolve(claim, { kind: 'not-processed' })).toMatchObject({ what: 'refund', paymentResult: 3, processStatus: 4 });
    expect(await paymentRow(ctx, paid.PaymentGuid)).toMatchObject({ payment_result: 3, process_status: 4, pending_adjustment_id: null });
    expect((await adjustmentsOf(ctx, paid.PaymentGuid)).find((a) => a.id === claim)).toMatchObject({ status: 'failed', transaction_id: null, response_code: '99' });

    expect((await adjust(ctx, 'refund', { PaymentGuid: paid.PaymentGuid, Reason: 'Again' })).json()).toMatchObject({ Successful: true, PaymentResult: 5 });
  });

  it('two resolutions at once: exactly one is recorded', async () => {
    const paid = await makePayment(ctx);
    const claim = await strandedAdjustment('void', paid.PaymentGuid);
    const results = await Promise.allSettled([
      ctx.services.pendingPayments.resolve(claim, { kind: 'approved', transactionId: 'BANK-VOID-RACE' }),
      ctx.services.pendingPayments.resolve(claim, { kind: 'declined' }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: expect.objectContaining({ message: expect.stringMatching(/not pending/) }) });
    const [record] = (await adjustmentsOf(ctx, paid.PaymentGuid)).filter((a) => a.id === claim);
    const won = (results.find((r) => r.status === 'fulfilled') as PromiseFulfilledResult<{ paymentResult: number }>).value;
    // The payment and the record agree with the resolution that won.
    expect((await paymentRow(ctx, paid.PaymentGuid)).payment_result).toBe(won.paymentResult);
    expect(record!.status).toBe(won.paymentResult === 6 ? 'approved' : 'declined');
  });

  it('a declined void leaves the payment as it was', async () => {
    const paid = await makePayment(ctx);
    const claim = await strandedAdjustment('void', paid.PaymentGuid);
    expect(await ctx.services.pendingPayments.resolve(claim, { kind: 'declined' })).toMatchObject({ what: 'void', paymentResult: 3, processStatus: 2 });
    expect((await adjustmentsOf(ctx, paid.PaymentGuid)).find((a) => a.id === claim)).toMatchObject({ status: 'declined', transaction_id: null, response_code: '12' });
    await expect(ctx.services.pendingPayments.resolve('00000000-0000-4000-8000-000000000001', { kind: 'declined' })).rejects.toThrow(/No payment, refund or void/);
  });
});
