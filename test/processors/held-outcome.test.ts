import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProcessorOutcome } from '../../src/modules/payments/processor-outcome.ts';
import { type HeldItem, type HeldOutcome, resolveHeldOutcome } from '../../src/processors/held-outcome.ts';
import type { CallOptions, FollowUpRequest, ProcessorAdapter, SaleRequest } from '../../src/processors/processor.ts';
import { type TestContext, createTestContext, withSimulator } from '../helpers/context.ts';
import { adjust, card, makePayment, paymentRow, settleNow } from '../http/api/refund-void-fixtures.ts';

/**
 * The held-outcome resolution by look-up, as the background job will run it (the lead wires the
 * job; docs/processors.md, "Wiring"): a payment, refund or void whose answer was lost is listed by
 * `pendingPayments.list`, `resolveHeldOutcome` asks the processor, and `pendingPayments.resolve`
 * records what it says, as an operator would. Here the simulator acts and then the answer is lost.
 */

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
  ctx.clock.set('2026-11-29T10:00:00.000Z');
});
afterAll(() => ctx.close());

// The function's outcome is the one `payments pending resolve` records: the types are the same.
const asRecorded = (outcome: HeldOutcome): ProcessorOutcome => outcome;

const simulatorOf = (processorId: string): ProcessorAdapter => ctx.services.processorAdapters.forProcessor({ id: processorId, adapter: 'simulator' });
const lost = new Error('the answer was lost on the way');

/** The simulator acts (and records it), and the answer never reaches the service. */
async function withLostAnswers<T>(fn: () => Promise<T>): Promise<T> {
  const adapter = ctx.services.processorAdapters.get('simulator');
  const { sale, refund, void: voidIt } = adapter;
  return withSimulator(
    ctx.services,
    {
      sale: async (request: SaleRequest, options?: CallOptions) => {
        await sale.call(adapter, request, options);
        throw lost;
      },
      refund: async (request: FollowUpRequest, options?: CallOptions) => {
        await refund.call(adapter, request, options);
        throw lost;
      },
      void: async (request: FollowUpRequest, options?: CallOptions) => {
        await voidIt.call(adapter, request, options);
        throw lost;
      },
    },
    fn,
  );
}

/** What the job would do for a held item: ask, and record when the processor says. */
async function resolveOne(item: HeldItem, processorId: string) {
  const decision = await resolveHeldOutcome(simulatorOf(processorId), item, ctx.clock.now());
  if (decision.action !== 'record') return { decision };
  return { decision, recorded: await ctx.services.pendingPayments.resolve(item.reference, asRecorded(decision.outcome)) };
}

describe('a held payment resolved by the look-up', () => {
  it('approved at the processor: recorded as approved, with its transaction id and auth code', async () => {
    const body = card({ TranId: 'held-approved' });
    const res = await withLostAnswers(() => ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload: body }));
    expect(res.json()).toMatchObject({ Successful: false, PaymentResult: 2 });
    const guid = res.json().PaymentGuid as string;
    ctx.clock.advance(16 * 60_000);
    const [held] = (await ctx.services.pendingPayments.list(15)).payments.filter((p) => p.paymentGuid === guid);
    expect(held).toBeDefined();
    const { decision, recorded } = await resolveOne({ kind: 'payment', reference: guid, sentAt: held!.createdAt, amountCents: held!.amountCents }, ctx.nonProfit.processorId);
    // What the simulator recorded (its look-up wrote it first).
    const [ledger] = await ctx.store.sql.query<{ transaction_id: string; auth_code: string }>('SELECT transaction_id, auth_code FROM simulator_ledger WHERE reference = $1', [guid]);
    expect(decision).toMatchObject({ action: 'record', outcome: { kind: 'approved', transactionId: ledger!.transaction_id, authCode: ledger!.auth_code } });
    expect(recorded).toEqual({ what: 'payment', paymentGuid: guid, paymentResult: 3, processStatus: 2 });
    expect(await paymentRow(ctx, guid)).toMatchObject({ payment_result: 3, process_status: 2, transaction_id: ledger!.transaction_id });
  });

  it('declined at the processor: recorded as declined', async () => {
    const res = await withLostAnswers(() => ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload: card({ TranId: 'held-declined', CardNum: '4000000000000002' }) }));
    const guid = res.json().PaymentGuid as string;
    ctx.clock.advance(16 * 60_000);
    const held = (await ctx.services.pendingPayments.list(15)).payments.find((p) => p.paymentGuid === guid)!;
    const { recorded } = await resolveOne({ kind: 'payment', reference: guid, sentAt: held.createdAt, amountCents: held.amountCents }, ctx.nonProfit.processorId);
    expect(recorded).toMatchObject({ paymentResult: 4, processStatus: 5 });
  });

  it('never reached the processor: not processed once the processor\'s window has passed, left alone before', async () => {
    const stuck = ctx.services.processorAdapters.get('simulator');
    // The call is lost before the simulator acts: nothing recorded.
    const res = await withSimulator(ctx.services, { sale: async () => Promise.reject(lost) }, () => ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload: card({ TranId: 'held-nothing' }) }));
    const guid = res.json().PaymentGuid as string;
    const sentAt = ctx.clock.now();
    const item: HeldItem = { kind: 'payment', reference: guid, sentAt, amountCents: 10_000 };
    expect(await resolveHeldOutcome(simulatorOf(ctx.nonProfit.processorId), item, new Date(sentAt.getTime() + stuck.capabilities.notFoundIsFinalAfterMs - 1))).toMatchObject({ action: 'wait' });
    ctx.clock.advance(16 * 60_000);
    const { decision, recorded } = await resolveOne(item, ctx.nonProfit.processorId);
    expect(decision).toMatchObject({ action: 'record', outcome: { kind: 'not-processed' } });
    expect(recorded).toMatchObject({ paymentResult: 4, processStatus: 1 });
  });

  it('an amount that differs from the processor\'s is an operator\'s to check', async () => {
    const res = await withLostAnswers(() => ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload: card({ TranId: 'held-amount' }) }));
    const guid = res.json().PaymentGuid as string;
    const decision = await resolveHeldOutcome(simulatorOf(ctx.nonProfit.processorId), { kind: 'payment', reference: guid, sentAt: new Date(0), amountCents: 1 }, ctx.clock.now());
    expect(decision).toMatchObject({ action: 'operator', detail: expect.stringMatching(/not 1: check it/) });
  });
});

describe('a held refund or void resolved by the look-up', () => {
  it('a void approved at the processor is recorded: the payment is cancelled', async () => {
    const paid = await makePayment(ctx);
    const res = await withLostAnswers(() => adjust(ctx, 'void', { PaymentGuid: paid.PaymentGuid, Reason: 'held void' }));
    expect(res.json()).toMatchObject({ Successful: false });
    const claim = (await paymentRow(ctx, paid.PaymentGuid)).pending_adjustment_id!;
    expect(claim).toMatch(/^[0-9a-f-]{36}$/);
    ctx.clock.advance(16 * 60_000);
    const held = (await ctx.services.pendingPayments.list(15)).adjustments.find((a) => a.adjustmentId === claim)!;
    const { decision, recorded } = await resolveOne(
      { kind: 'void', reference: claim, sentAt: held.requestedAt, amountCents: held.amountCents, originalTransactionId: held.originalTransactionId },
      ctx.nonProfit.processorId,
    );
    expect(decision).toMatchObject({ action: 'record', outcome: { kind: 'approved' } });
    expect(recorded).toMatchObject({ what: 'void', paymentResult: 6, processStatus: 9 });
  });

  it('a refund approved at the processor is recorded: the payment is refunded', async () => {
    const paid = await makePayment(ctx);
    await settleNow(ctx);
    await withLostAnswers(() => adjust(ctx, 'refund', { PaymentGuid: paid.PaymentGuid, Reason: 'held refund' }));
    const claim = (await paymentRow(ctx, paid.PaymentGuid)).pending_adjustment_id!;
    ctx.clock.advance(16 * 60_000);
    const held = (await ctx.services.pendingPayments.list(15)).adjustments.find((a) => a.adjustmentId === claim)!;
    const { recorded } = await resolveOne({ kind: 'refund', reference: claim, sentAt: held.requestedAt, amountCents: held.amountCents, originalTransactionId: held.originalTransactionId }, ctx.nonProfit.processorId);
    expect(recorded).toMatchObject({ what: 'refund', paymentResult: 5 });
  });
});
