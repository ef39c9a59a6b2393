import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SaleResult } from '../../../src/processors/processor.ts';
import { NotFoundError } from '../../../src/platform/errors.ts';
import { OperatorInputError } from '../../../src/platform/errors.ts';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import type { LightMyRequestResponse } from 'fastify';
import type { FollowUpResult } from '../../../src/processors/processor.ts';
import { adjust, adjustmentsOf, card, makePayment, paymentRow, settleNow } from '../../http/api/refund-void-fixtures.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
  ctx.clock.set('2026-11-22T10:00:00.000Z');
});
afterAll(() => ctx.close());

/** A processor call held open: `answer` lets it return (or fail) later, `response` is the request's. */
interface Held {
  id: string;
  answer(result: SaleResult | FollowUpResult | Error): void;
  response: Promise<LightMyRequestResponse>;
}

/**
 * Holds the next call of the simulator's `call` open while `send` makes a request: as far as the
 * database knows, the process stopped while the processor was being asked.
 */
async function holdProcessor<K extends 'sale' | 'void' | 'refund'>(call: K, send: () => Promise<LightMyRequestResponse>): Promise<Omit<Held, 'id'>> {
  const adapter = ctx.services.processorAdapters.get('simulator');
  const original = adapter[call];
  let asked!: () => void;
  const processorAsked = new Promise<void>((r) => (asked = r));
  let answer!: Held['answer'];
  (adapter as unknown as Record<K, () => Promise<unknown>>)[call] = () => {
    asked();
    return new Promise((resolve, reject) => (answer = (result) => (result instanceof Error ? reject(result) : resolve(result))));
  };
  let response: Promise<LightMyRequestResponse>;
  try {
    response = send();
    await processorAsked;
  } finally {
    adapter[call] = original;
  }
  return { answer, response };
}

/** A payment left Pending: written before the processor was asked, never completed. */
async function strandedPayment(body = card()): Promise<Held> {
  const held = await holdProcessor('sale', () => ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload: body }));
  const [row] = await ctx.store.sql.query<{ id: string }>('SELECT id FROM payments WHERE tran_id = $1', [body.TranId]);
  return { id: row!.id, ...held };
}

/** Long enough for an unanswered call to count as unknown (UNKNOWN_AFTER_MINUTES). */
const later = () => ctx.clock.advance(16 * 60_000);

const stored = (guid: string) => ctx.services.payments.get(ctx.nonProfit.ClientId, guid);

describe('payments left pending by a stop between the processor call and the record', () => {
  it('are listed once older than the threshold, and take the approval an operator finds in the processor records', async () => {
    const { id: guid } = await strandedPayment(card({ TranId: 'stranded-approved' }));
    expect((await stored(guid)).payment).toMatchObject({ paymentResult: 1, processStatus: 1, transactionId: null });
    // Younger than 15 minutes: it may still be waiting for its answer.
    expect((await ctx.services.pendingPayments.list(15)).payments.map((p) => p.paymentGuid)).not.toContain(guid);
    await expect(ctx.services.pendingPayments.resolve(guid, { kind: 'declined' })).rejects.toThrow(/less than 15 minutes .* --force/);

    later();
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
    const { id: declined } = await strandedPayment(card({ TranId: 'stranded-declined' }));
    const { id: unknown } = await strandedPayment(card({ TranId: 'stranded-unknown' }));
    later();
    await ctx.services.pendingPayments.resolve(declined, { kind: 'declined' });
    await ctx.services.pendingPayments.resolve(unknown, { kind: 'not-processed' });
    expect((await stored(declined)).payment).toMatchObject({ paymentResult: 4, processStatus: 5, successful: false, responseCode: '12', transactionId: null });
    expect((await stored(unknown)).payment).toMatchObject({ paymentResult: 4, processStatus: 1, successful: false, responseCode: '99' });
    expect((await stored(unknown)).payment.message).toMatch(/not processed/);
  });

  it('refuses a malformed PaymentGuid, an unknown payment, a malformed transaction id and one another payment has', async () => {
    const { id: guid } = await strandedPayment(card({ TranId: 'stranded-refusals' }));
    later();
    await expect(ctx.services.pendingPayments.resolve('not-a-guid', { kind: 'declined' })).rejects.toThrow(OperatorInputError);
    await expect(ctx.services.pendingPayments.resolve('00000000-0000-4000-8000-000000000000', { kind: 'declined' })).rejects.toThrow(NotFoundError);
    await expect(ctx.services.pendingPayments.resolve(guid, { kind: 'approved', transactionId: 'two words' })).rejects.toThrow(/transaction id/);
    await expect(ctx.services.pendingPayments.resolve(guid, { kind: 'approved', transactionId: 'BANK-20261122-0001' })).rejects.toThrow(/another payment already has/);
    expect((await stored(guid)).payment).toMatchObject({ paymentResult: 1, transactionId: null });
  });
});

/** A refund or void left in flight: claimed before the processor was asked, never completed. */
async function strandedAdjustment(kind: 'void' | 'refund', paymentGuid: string): Promise<Held> {
  const held = await holdProcessor(kind, () => adjust(ctx, kind, { PaymentGuid: paymentGuid, Reason: 'Donor asked' }));
  const [claim] = (await adjustmentsOf(ctx, paymentGuid)).filter((a) => a.status === 'pending');
  return { id: claim!.id, ...held };
}

describe('refunds and voids left in flight by a stop between the processor call and the record', () => {
  it("are listed with their payment, and take the processor's approval: the void goes through", async () => {
    const paid = await makePayment(ctx);
    const { id: claim } = await strandedAdjustment('void', paid.PaymentGuid);
    expect((await paymentRow(ctx, paid.PaymentGuid)).pending_adjustment_id).toBe(claim);
    await expect(ctx.services.pendingPayments.resolve(claim, { kind: 'declined' })).rejects.toThrow(/less than 15 minutes/);
    later();
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
    const { id: claim } = await strandedAdjustment('refund', paid.PaymentGuid);
    later();
    // While the claim is held, another refund is refused.
    expect((await adjust(ctx, 'refund', { PaymentGuid: paid.PaymentGuid, Reason: 'Again' })).json()).toMatchObject({ Successful: false });

    expect(await ctx.services.pendingPayments.resolve(claim, { kind: 'not-processed' })).toMatchObject({ what: 'refund', paymentResult: 3, processStatus: 4 });
    expect(await paymentRow(ctx, paid.PaymentGuid)).toMatchObject({ payment_result: 3, process_status: 4, pending_adjustment_id: null });
    expect((await adjustmentsOf(ctx, paid.PaymentGuid)).find((a) => a.id === claim)).toMatchObject({ status: 'failed', transaction_id: null, response_code: '99' });

    expect((await adjust(ctx, 'refund', { PaymentGuid: paid.PaymentGuid, Reason: 'Again' })).json()).toMatchObject({ Successful: true, PaymentResult: 5 });
  });

  it('two resolutions at once: exactly one is recorded', async () => {
    const paid = await makePayment(ctx);
    const { id: claim } = await strandedAdjustment('void', paid.PaymentGuid);
    later();
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
    const { id: claim } = await strandedAdjustment('void', paid.PaymentGuid);
    // An operator who knows better need not wait.
    expect(await ctx.services.pendingPayments.resolve(claim, { kind: 'declined' }, { force: true })).toMatchObject({ what: 'void', paymentResult: 3, processStatus: 2 });
    expect((await adjustmentsOf(ctx, paid.PaymentGuid)).find((a) => a.id === claim)).toMatchObject({ status: 'declined', transaction_id: null, response_code: '12' });
    await expect(ctx.services.pendingPayments.resolve('00000000-0000-4000-8000-000000000001', { kind: 'declined' })).rejects.toThrow(/No payment, refund or void/);
  });
});

describe('a processor answer that arrives after an operator recorded the outcome', () => {
  it("leaves a payment's record as the operator wrote it, and takes back a charge the record says did not happen", async () => {
    const held = await strandedPayment(card({ TranId: 'late-approval' }));
    later();
    await ctx.services.pendingPayments.resolve(held.id, { kind: 'not-processed' });
    const adapter = ctx.services.processorAdapters.get('simulator');
    const voids: string[] = [];
    const voidSale = adapter.void;
    adapter.void = async (request) => {
      voids.push(request.originalTransactionId);
      return voidSale.call(adapter, request);
    };
    try {
      held.answer(await ctx.services.processorAdapters.get('simulator').sale({ reference: held.id, amountCents: 10000, currency: 'USD', card: { number: '4242424242424242', expMonth: '12', expYear: '30', paymentMethodTypeId: 3 }, billing: { name: 'Ada' } }));
      const res = await held.response;
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ PaymentGuid: held.id, Successful: false, PaymentResult: 4, ProcessStatus: 1, ResponseCode: '99' });
      expect(voids).toHaveLength(1);
    } finally {
      adapter.void = voidSale;
    }
    expect((await stored(held.id)).payment).toMatchObject({ paymentResult: 4, processStatus: 1, transactionId: null });
  });

  it("keeps an operator's approval when the late answer is a failure, and logs the disagreement", async () => {
    const held = await strandedPayment(card({ TranId: 'late-failure' }));
    later();
    await ctx.services.pendingPayments.resolve(held.id, { kind: 'approved', transactionId: 'BANK-LATE-0001' });
    held.answer(new Error('connection reset'));
    const res = await held.response;
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ Successful: true, PaymentResult: 3, ProcessStatus: 2, TransactionId: 'BANK-LATE-0001' });
    expect((await stored(held.id)).payment).toMatchObject({ paymentResult: 3, transactionId: 'BANK-LATE-0001' });
    expect(ctx.logs.join('')).toContain('recorded as approved by an operator, but the processor answered without a charge');
  });

  it('keeps the record of a refund or void, answers the late request from it (no 500), and logs a disagreement', async () => {
    const approvedFirst = await makePayment(ctx);
    const v1 = await strandedAdjustment('void', approvedFirst.PaymentGuid);
    later();
    await ctx.services.pendingPayments.resolve(v1.id, { kind: 'approved', transactionId: 'BANK-VOID-LATE' });
    v1.answer(new Error('timeout'));
    const r1 = await v1.response;
    expect(r1.statusCode).toBe(200);
    expect(r1.json()).toMatchObject({ Successful: true, PaymentResult: 6, ProcessStatus: 9, TransactionId: 'BANK-VOID-LATE' });
    expect((await adjustmentsOf(ctx, approvedFirst.PaymentGuid)).find((a) => a.id === v1.id)).toMatchObject({ status: 'approved', transaction_id: 'BANK-VOID-LATE' });

    const notDoneFirst = await makePayment(ctx);
    const v2 = await strandedAdjustment('void', notDoneFirst.PaymentGuid);
    later();
    await ctx.services.pendingPayments.resolve(v2.id, { kind: 'not-processed' });
    v2.answer({ approved: true, responseCode: '0', message: 'Void approved', processorMessage: 'Reversal accepted', transactionId: 'SIM-LATE-VOID' });
    const r2 = await v2.response;
    expect(r2.statusCode).toBe(200);
    expect(r2.json()).toMatchObject({ Successful: false, PaymentResult: 3, ProcessStatus: 2, ResponseCode: '99' });
    expect((await adjustmentsOf(ctx, notDoneFirst.PaymentGuid)).find((a) => a.id === v2.id)).toMatchObject({ status: 'failed', transaction_id: null });
    expect(ctx.logs.join('')).toContain('the processor answered after an operator recorded this refund or void, and the two disagree');
  });
});

describe('a payment approved and then voided at the processor', () => {
  it('is recorded as Cancelled / Cancelled with the sale\'s transaction id', async () => {
    const { id } = await strandedPayment(card({ TranId: 'approved-then-voided' }));
    later();
    expect(await ctx.services.pendingPayments.resolve(id, { kind: 'voided', transactionId: 'BANK-SALE-0009' })).toMatchObject({ paymentResult: 6, processStatus: 9 });
    expect((await stored(id)).payment).toMatchObject({ paymentResult: 6, processStatus: 9, successful: false, transactionId: 'BANK-SALE-0009' });
    const paid = await makePayment(ctx);
    const { id: claim } = await strandedAdjustment('void', paid.PaymentGuid);
    await expect(ctx.services.pendingPayments.resolve(claim, { kind: 'voided' }, { force: true })).rejects.toThrow(/for a payment/);
  });
});
