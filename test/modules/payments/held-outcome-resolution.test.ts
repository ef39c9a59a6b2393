import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PaymentResult } from '../../../src/domain/payment-status.ts';
import { ProcessorTimeoutError } from '../../../src/processors/processor.ts';
import { cardPaymentInput, createTestContext, type TestContext, withSimulator } from '../../helpers/context.ts';

/**
 * Held outcomes resolve from the processor's records, in the background: the simulator's ledger
 * says what it did, across processes and restarts.
 */
let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const partner = () => ({ id: ctx.nonProfit.ClientId, name: ctx.nonProfit.name, kind: ctx.nonProfit.kind });
const stored = async (guid: string) => (await ctx.services.payments.get(ctx.nonProfit.ClientId, guid)).payment;

/** Runs the resolution until `done` holds (the simulator's ledger is written in the background), at most 5 s. */
async function resolveUntil(done: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 50; i++) {
    await ctx.services.heldOutcomeResolution.run();
    if (await done()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('the resolution of held outcomes', () => {
  it('records an approval the processor made while its answer was lost, once the request can no longer be in flight', async () => {
    const adapter = ctx.services.processorAdapters.get('simulator');
    const sale = adapter.sale.bind(adapter);
    // The simulator charges; the answer is lost on the way back.
    const held = await withSimulator(ctx.services, { sale: async (request, options) => (await sale(request, options), Promise.reject(new ProcessorTimeoutError('the processor did not answer in time'))) }, () =>
      ctx.services.payments.payCard(partner(), cardPaymentInput(2_500)),
    );
    expect(held.payment.paymentResult).toBe(PaymentResult.Processing);
    // Still within the processor's deadline: it may be in flight, and nothing is asked.
    expect((await ctx.services.heldOutcomeResolution.run()).recorded).toBe(0);
    ctx.clock.advance(ctx.services.config.processorTimeoutMs + 10_001);
    await resolveUntil(async () => (await stored(held.payment.id)).paymentResult !== PaymentResult.Processing);
    const resolved = await stored(held.payment.id);
    expect(resolved).toMatchObject({ paymentResult: PaymentResult.Successful, successful: true, transactionId: expect.stringMatching(/^SIM/) });
  });

  it('records as not processed a payment the processor never saw, once its window has passed', async () => {
    // The processor is not asked: the attempt was written, and its request stopped there.
    const held = await withSimulator(ctx.services, { sale: () => Promise.reject(new ProcessorTimeoutError('the processor did not answer in time')) }, () => ctx.services.payments.payCard(partner(), cardPaymentInput(1_500)));
    ctx.clock.advance(ctx.services.config.processorTimeoutMs + 10_001);
    // Not found yet within the simulator's window (a minute): it waits.
    await ctx.services.heldOutcomeResolution.run();
    expect((await stored(held.payment.id)).paymentResult).toBe(PaymentResult.Processing);
    ctx.clock.advance(60_001);
    await resolveUntil(async () => (await stored(held.payment.id)).paymentResult !== PaymentResult.Processing);
    expect(await stored(held.payment.id)).toMatchObject({ paymentResult: PaymentResult.Failed, successful: false });
  });
});
