import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FeeSchedule } from '../../../src/domain/fee-schedule.ts';
import { cryptoIds } from '../../../src/platform/ids.ts';
import { BillingService, DEFAULT_LEASE_MS } from '../../../src/modules/recurring/billing-service.ts';
import { BillingRepository } from '../../../src/modules/recurring/billing-repository.ts';
import { type TestContext, createTestContext, withSimulator } from '../../helpers/context.ts';
import {
  DECLINED_CARD,
  bankToken,
  cardToken,
  createProfile,
  profilePayments,
  profileRow,
  updateProfile,
} from './fixtures.ts';
import { testLogger } from '../../helpers/logger.ts';

/**
 * The billing worker on one store (PGlite or PostgreSQL): runs with a moved clock, catch-up,
 * declines, retries and suspension, completion, fees, crashes between charge and advance.
 * Concurrent workers are in workers-concurrent.test.ts.
 */

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const at = (date: string) => ctx.clock.set(`${date}T06:00:00Z`);
const run = (asOf?: string) => ctx.services.billing.run({ asOf });

/** A fresh profile through the API, created "today" (the clock is put back to 2026-11-21 first). */
async function profile(body: Record<string, unknown>, partner = ctx.nonProfit): Promise<string> {
  at('2026-11-21');
  const res = await createProfile(ctx, { Amount: '25.00', StartDate: '2026-11-21', BillingFrequency: 'Monthly', ...body }, partner);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().RecurringProfileGuid;
}

/** Profiles of this file are billed one test at a time: each test cancels what it made. */
async function cancelAll() {
  await ctx.store.sql.exec("UPDATE recurring_profiles SET status = 'cancelled' WHERE status <> 'cancelled'");
}

describe('a billing run', () => {
  it('charges a due profile once on its bill date and moves it to the next one', async () => {
    const card = await cardToken(ctx, ctx.nonProfit);
    const guid = await profile({ TokenGuid: card.id });

    at('2026-12-20');
    expect(await run()).toMatchObject({ claimed: 0, charged: 0 });

    at('2026-12-21');
    const summary = await run();
    expect(summary).toMatchObject({ asOf: '2026-12-21', claimed: 1, charged: 1, approved: 1, declined: 0, errors: 0 });
    const payments = await profilePayments(ctx, guid);
    expect(payments).toEqual([expect.objectContaining({ bill_date: '2026-12-21', successful: true, payment_result: 3, response_code: '0', total_amount_cents: 2500 })]);
    expect(await profileRow(ctx, guid)).toMatchObject({ status: 'active', next_bill_date: '2027-01-21', next_attempt_on: '2027-01-21', failed_attempts: 0, lease_owner: null });

    // A rerun the same day charges nothing.
    expect(await run()).toMatchObject({ claimed: 0, charged: 0 });
    expect(await profilePayments(ctx, guid)).toHaveLength(1);

    // The payment is an ordinary payment of the partner, with the token and the profile's fees.
    const record = await ctx.services.payments.get(ctx.nonProfit.ClientId, payments[0]!.id);
    expect(record.payment).toMatchObject({ tokenId: card.id, method: 'card', recurringProfileId: guid, billDate: '2026-12-21', ipAddress: null, email: null, firstName: 'Ada' });
    expect(record.lines[0]).toMatchObject({ transactionSourceGroupId: 1, paymentAmountCents: 2500, cardFeeRate: '2.9', totalCommissionRate: '5' });
    await cancelAll();
  });

  it('charges each missed bill date once when runs were missed, oldest first', async () => {
    const card = await cardToken(ctx, ctx.nonProfit);
    const guid = await profile({ TokenGuid: card.id, StartDate: '2026-11-21', BillingFrequency: 'Monthly' });
    at('2027-03-01');
    expect(await run()).toMatchObject({ charged: 3, approved: 3 });
    expect((await profilePayments(ctx, guid)).map((p) => p.bill_date)).toEqual(['2026-12-21', '2027-01-21', '2027-02-21']);
    expect(await profileRow(ctx, guid)).toMatchObject({ next_bill_date: '2027-03-21' });
    await cancelAll();
  });

  it('bills as of a given date (the CLI --as-of), keeping the anchor through short months', async () => {
    const card = await cardToken(ctx, ctx.nonProfit);
    const guid = await profile({ TokenGuid: card.id, StartDate: '2026-11-21', NextBillDate: '2027-01-31' });
    at('2026-11-21');
    expect(await run('2027-03-31')).toMatchObject({ asOf: '2027-03-31', approved: 3 });
    expect((await profilePayments(ctx, guid)).map((p) => p.bill_date)).toEqual(['2027-01-31', '2027-02-28', '2027-03-31']);
    expect(await profileRow(ctx, guid)).toMatchObject({ next_bill_date: '2027-04-30', anchor_day: 31 });
    await cancelAll();
  });

  it('retries a declined charge 1, 3 and 7 days after the bill date, then suspends the profile', async () => {
    const card = await cardToken(ctx, ctx.nonProfit, DECLINED_CARD);
    const guid = await profile({ TokenGuid: card.id });

    at('2026-12-21');
    expect(await run()).toMatchObject({ charged: 1, declined: 1 });
    expect(await profileRow(ctx, guid)).toMatchObject({ status: 'active', next_bill_date: '2026-12-21', next_attempt_on: '2026-12-22', failed_attempts: 1, last_failure: 'Declined' });
    expect(await run()).toMatchObject({ charged: 0 });

    at('2026-12-22');
    expect(await run()).toMatchObject({ declined: 1 });
    expect(await profileRow(ctx, guid)).toMatchObject({ next_attempt_on: '2026-12-24', failed_attempts: 2 });
    at('2026-12-23');
    expect(await run()).toMatchObject({ charged: 0 });
    at('2026-12-24');
    expect(await run()).toMatchObject({ declined: 1 });
    expect(await profileRow(ctx, guid)).toMatchObject({ next_attempt_on: '2026-12-28', failed_attempts: 3 });
    at('2026-12-28');
    expect(await run()).toMatchObject({ declined: 1, suspended: 1 });
    expect(await profileRow(ctx, guid)).toMatchObject({ status: 'suspended', failed_attempts: 4, suspended_at: expect.anything() });

    // Every attempt is a payment record of the profile and the bill date.
    const payments = await profilePayments(ctx, guid);
    expect(payments.map((p) => [p.bill_date, p.successful, p.response_code])).toEqual(Array(4).fill(['2026-12-21', false, '12']));

    // Suspended: not billed, whatever the date.
    at('2027-02-01');
    expect(await run()).toMatchObject({ charged: 0 });

    // A new NextBillDate resumes it.
    const res = await updateProfile(ctx, { RecurringProfileGuid: guid, NextBillDate: '2027-02-21' });
    expect(res.statusCode).toBe(200);
    expect(await profileRow(ctx, guid)).toMatchObject({ status: 'active', next_bill_date: '2027-02-21', failed_attempts: 0 });
    await cancelAll();
  });

  it('a run as of a past day retries a decline tomorrow at the earliest, never again today (a time audit)', async () => {
    const card = await cardToken(ctx, ctx.nonProfit, DECLINED_CARD);
    const guid = await profile({ TokenGuid: card.id, NextBillDate: '2026-11-29' });
    at('2026-11-30');
    expect(await run('2026-11-29')).toMatchObject({ charged: 1, declined: 1 });
    expect(await profileRow(ctx, guid)).toMatchObject({ next_bill_date: '2026-11-29', next_attempt_on: '2026-12-01', failed_attempts: 1 });
    // The worker's own run later the same day does not charge the card again.
    expect(await run()).toMatchObject({ charged: 0 });
    await cancelAll();
  });

  it('forgets the failures of a bill date once a retry succeeds', async () => {
    const card = await cardToken(ctx, ctx.nonProfit);
    const guid = await profile({ TokenGuid: card.id, TransactionSourceGroupId: '4' });
    const schedule = (await ctx.services.partners.getContract(ctx.nonProfit.ClientId)).find((s) => s.groupId === 4)!;

    // The partner's contract loses the group: the charge cannot be made (no payment is recorded).
    await ctx.services.partners.removeSchedule(ctx.nonProfit.ClientId, 4);
    ctx.services.fees.forgetSchedules();
    at('2026-12-21');
    expect(await run()).toMatchObject({ charged: 1, declined: 1 });
    expect(await profileRow(ctx, guid)).toMatchObject({ failed_attempts: 1, next_attempt_on: '2026-12-22', last_failure: expect.stringContaining('no fee schedule') });
    expect(await profilePayments(ctx, guid)).toEqual([]);

    await ctx.services.partners.setSchedule(ctx.nonProfit.ClientId, schedule);
    ctx.services.fees.forgetSchedules();
    at('2026-12-22');
    expect(await run()).toMatchObject({ approved: 1 });
    expect(await profileRow(ctx, guid)).toMatchObject({ status: 'active', failed_attempts: 0, next_bill_date: '2027-01-21', next_attempt_on: '2027-01-21', last_failure: null });
    expect((await profilePayments(ctx, guid)).map((p) => [p.bill_date, p.successful])).toEqual([['2026-12-21', true]]);
    await cancelAll();
  });

  it('completes a profile after its EndDate; a bill date on EndDate is still charged', async () => {
    const card = await cardToken(ctx, ctx.nonProfit);
    const guid = await profile({ TokenGuid: card.id, EndDate: '2027-01-21' });
    at('2027-06-01');
    expect(await run()).toMatchObject({ approved: 2, completed: 1 });
    expect((await profilePayments(ctx, guid)).map((p) => p.bill_date)).toEqual(['2026-12-21', '2027-01-21']);
    expect(await profileRow(ctx, guid)).toMatchObject({ status: 'completed', completed_at: expect.anything() });
    expect(await run()).toMatchObject({ charged: 0 });
    await cancelAll();
  });

  it('does not bill cancelled profiles', async () => {
    const card = await cardToken(ctx, ctx.nonProfit);
    const guid = await profile({ TokenGuid: card.id });
    expect((await ctx.as(ctx.nonProfit, { method: 'DELETE', url: `/api/recurringProfile?RecurringProfileGuid=${guid}` })).statusCode).toBe(200);
    at('2027-01-01');
    expect(await run()).toMatchObject({ charged: 0 });
    expect(await profilePayments(ctx, guid)).toEqual([]);
  });

  it('charges a token whose stored zip the payment rules would refuse (the zip is left out)', async () => {
    const card = await ctx.services.tokens.tokenizeCard(ctx.nonProfit.ClientId, { cardNumber: '4242424242424242', expMonth: '12', expYear: '30', zip: 'N/A', source: 'gateway' });
    const guid = await profile({ TokenGuid: card.id });
    at('2026-12-21');
    expect(await run()).toMatchObject({ approved: 1 });
    const [payment] = await profilePayments(ctx, guid);
    expect((await ctx.services.payments.get(ctx.nonProfit.ClientId, payment!.id)).payment).toMatchObject({ successful: true, zip: null });
    await cancelAll();
  });

  it("does not bill the profiles of a disabled partner", async () => {
    const card = await cardToken(ctx, ctx.nonProfit);
    const guid = await profile({ TokenGuid: card.id });
    await ctx.store.sql.query("UPDATE partners SET status = 'disabled' WHERE id = $1", [ctx.nonProfit.ClientId]);
    try {
      at('2026-12-21');
      expect(await run()).toMatchObject({ claimed: 0, charged: 0 });
    } finally {
      await ctx.store.sql.query("UPDATE partners SET status = 'active' WHERE id = $1", [ctx.nonProfit.ClientId]);
    }
    expect(await run()).toMatchObject({ approved: 1 });
    expect(await profilePayments(ctx, guid)).toHaveLength(1);
    await cancelAll();
  });

  it('charges a bank-account token as an ACH payment, and a for-profit profile with its processor', async () => {
    const bank = await bankToken(ctx, ctx.nonProfit);
    const ach = await profile({ TokenGuid: bank.id });
    const merchantCard = await cardToken(ctx, ctx.forProfit);
    const merchant = await profile({ TokenGuid: merchantCard.id, Amount: '10.00' }, ctx.forProfit);
    at('2026-12-21');
    expect(await run()).toMatchObject({ approved: 2 });
    const [achPayment] = await profilePayments(ctx, ach);
    expect((await ctx.services.payments.get(ctx.nonProfit.ClientId, achPayment!.id)).payment).toMatchObject({ method: 'ach', paymentMethodTypeId: 7, successful: true });
    const [merchantPayment] = await profilePayments(ctx, merchant);
    expect((await ctx.services.payments.get(ctx.forProfit.ClientId, merchantPayment!.id)).payment).toMatchObject({
      processorId: ctx.forProfit.processorId,
      totalAmountCents: 1000,
      successful: true,
    });
    await cancelAll();
  });
});

describe('amounts and fees of a charge', () => {
  it('with PayFee, charges PreFeeAmount grossed up by the fee rules (the payer covers the fees)', async () => {
    const card = await cardToken(ctx, ctx.nonProfit);
    const guid = await profile({ TokenGuid: card.id, Amount: '26.37', PreFeeAmount: '25.00', PayFee: true });
    at('2026-12-21');
    expect(await run()).toMatchObject({ approved: 1 });
    const [payment] = await profilePayments(ctx, guid);
    const quote = await ctx.services.fees.quote(
      { id: ctx.nonProfit.ClientId, name: ctx.nonProfit.name, kind: 'non-profit' },
      { lines: [{ transactionSourceGroupId: 1, amountCents: 2500, payFee: true, tipCents: 0, taxCents: 0 }], tokenRef: card.id },
    );
    expect(payment!.total_amount_cents).toBe(quote.totalPaymentCents);
    expect(payment!.total_amount_cents).toBeGreaterThan(2500);
    await cancelAll();
  });

  it('keeps the fee rates it was made with when the contract changes, until UseOriginalFees is false', async () => {
    const partner = ctx.nonProfit.ClientId;
    const original = (await ctx.services.partners.getContract(partner)).find((s) => s.groupId === 2)!;
    const card = await cardToken(ctx, ctx.nonProfit);
    const guid = await profile({ TokenGuid: card.id, TransactionSourceGroupId: '2', Amount: '100.00' });

    // The organization's fees change: card 3.5 %, maximum commission 4 %.
    const changed: FeeSchedule = { ...original, cardFeeRate: '3.5', maxCommissionRate: '4' };
    await ctx.services.partners.setSchedule(partner, changed);
    ctx.services.fees.forgetSchedules();

    at('2026-12-21');
    expect(await run()).toMatchObject({ approved: 1 });
    const [first] = await profilePayments(ctx, guid);
    const firstLine = (await ctx.services.payments.get(partner, first!.id)).lines[0]!;
    // The original card rate; the original commission (5 %) is clamped to the new maximum (4 %).
    expect(firstLine).toMatchObject({ cardFeeRate: '2.9', cardFeeAmountCents: 290, totalCommissionRate: '4' });

    expect((await updateProfile(ctx, { RecurringProfileGuid: guid, UseOriginalFees: false })).statusCode).toBe(200);
    expect(await profileRow(ctx, guid)).toMatchObject({ fee_card_rate: '3.5', fee_commission_rate: '4' });
    at('2027-01-21');
    expect(await run()).toMatchObject({ approved: 1 });
    const second = (await profilePayments(ctx, guid))[1]!;
    expect((await ctx.services.payments.get(partner, second.id)).lines[0]).toMatchObject({ cardFeeRate: '3.5', cardFeeAmountCents: 350 });

    await ctx.services.partners.setSchedule(partner, original);
    ctx.services.fees.forgetSchedules();
    await cancelAll();
  });
});

describe('exactly once across crashes and reruns', () => {
  /** A worker of its own, with fault hooks. */
  const workerWith = (faults: NonNullable<ConstructorParameters<typeof BillingService>[0]['faults']>) =>
    new BillingService({ log: testLogger(), repository: new BillingRepository(ctx.store), clock: ctx.clock, ids: cryptoIds, payments: ctx.services.payments, retryDays: [1, 3, 7], faults });
  const crashingWorker = (when: 'afterCharge') =>
    workerWith({
      [when]: () => {
        throw new Error('simulated crash');
      },
    });

  it('a worker that stops between the charge and the advance: the rerun advances without charging again', async () => {
    const card = await cardToken(ctx, ctx.nonProfit);
    const guid = await profile({ TokenGuid: card.id });
    at('2026-12-21');
    expect(await crashingWorker('afterCharge').run()).toMatchObject({ charged: 1, approved: 0, errors: 1 });
    expect(await profilePayments(ctx, guid)).toEqual([expect.objectContaining({ bill_date: '2026-12-21', successful: true })]);
    expect(await profileRow(ctx, guid)).toMatchObject({ next_bill_date: '2026-12-21', lease_owner: expect.any(String) });

    // While the lease lives, nobody takes the profile.
    expect(await run()).toMatchObject({ claimed: 0, charged: 0 });

    // After it lapses, the next run finds the payment and moves on.
    ctx.clock.advance(DEFAULT_LEASE_MS + 1000);
    expect(await run()).toMatchObject({ claimed: 1, charged: 0, reconciled: 1 });
    expect(await profilePayments(ctx, guid)).toHaveLength(1);
    expect(await profileRow(ctx, guid)).toMatchObject({ next_bill_date: '2027-01-21', failed_attempts: 0, lease_owner: null });
    expect(await run()).toMatchObject({ charged: 0 });
    await cancelAll();
  });

  it("a partner's update during a charge (end date, frequency) stands; the run moves on from it without charging again", async () => {
    const card = await cardToken(ctx, ctx.nonProfit);
    const ending = await profile({ TokenGuid: card.id, EndDate: '2026-12-21' });
    const monthly = await profile({ TokenGuid: card.id });
    at('2026-12-21');
    const worker = workerWith({
      afterCharge: async (profileId) => {
        if (profileId === ending) expect((await updateProfile(ctx, { RecurringProfileGuid: ending, EndDate: '2027-12-31' })).statusCode).toBe(200);
        if (profileId === monthly) expect((await updateProfile(ctx, { RecurringProfileGuid: monthly, BillingFrequency: 'Annually' })).statusCode).toBe(200);
      },
    });
    // The charge's move was worked out from the old terms: not applied, the update stands. The
    // profiles, due still, are taken again in the same run: the unique index refuses a second
    // charge, and each moves on from its paid bill date by the new terms.
    expect(await worker.run()).toMatchObject({ approved: 2, reconciled: 2 });
    expect(await profileRow(ctx, ending)).toMatchObject({ status: 'active', end_date: '2027-12-31', next_bill_date: '2027-01-21' });
    expect(await profileRow(ctx, monthly)).toMatchObject({ status: 'active', billing_frequency: 'Annually', next_bill_date: '2027-12-21' });
    expect(await run()).toMatchObject({ charged: 0 });
    for (const guid of [ending, monthly]) expect((await profilePayments(ctx, guid)).filter((p) => p.successful)).toHaveLength(1);
    await cancelAll();
  });

  it('a worker that stops after a decline: the rerun counts that attempt instead of trying again the same day', async () => {
    const card = await cardToken(ctx, ctx.nonProfit, DECLINED_CARD);
    const guid = await profile({ TokenGuid: card.id });
    at('2026-12-21');
    await crashingWorker('afterCharge').run();
    ctx.clock.advance(DEFAULT_LEASE_MS + 1000);
    expect(await run()).toMatchObject({ charged: 0, reconciled: 1 });
    expect(await profileRow(ctx, guid)).toMatchObject({ failed_attempts: 1, next_attempt_on: '2026-12-22' });
    expect(await profilePayments(ctx, guid)).toHaveLength(1);
    await cancelAll();
  });

  it('a stored card the vault cannot read: no charge, no failed attempt, LastFailure says why; the next run after the lease tries again', async () => {
    const card = await cardToken(ctx, ctx.nonProfit);
    const guid = await profile({ TokenGuid: card.id });
    // As if the key that sealed it were missing from this process's configuration.
    const [{ sealed }] = (await ctx.store.sql.query<{ sealed: string }>('SELECT secret_ciphertext AS sealed FROM payment_tokens WHERE id = $1', [card.id])) as [{ sealed: string }];
    const parts = sealed.split(':');
    await ctx.store.sql.query('UPDATE payment_tokens SET secret_ciphertext = $2 WHERE id = $1', [card.id, [parts[0], 'missingkey', ...parts.slice(2)].join(':')]);
    at('2026-12-21');
    expect(await run()).toMatchObject({ claimed: 1, approved: 0, declined: 0, errors: 1 });
    expect(await profilePayments(ctx, guid)).toEqual([]);
    const row = await profileRow(ctx, guid);
    expect(row).toMatchObject({ next_bill_date: '2026-12-21', failed_attempts: 0, status: 'active', lease_owner: expect.any(String) });
    expect(row.last_failure).toBe('The stored payment method could not be read for bill date 2026-12-21; the charge was not attempted and will be retried.');

    // The key is back (the sealed number restored) once the lease lapses: charged, LastFailure cleared.
    await ctx.store.sql.query('UPDATE payment_tokens SET secret_ciphertext = $2 WHERE id = $1', [card.id, sealed]);
    ctx.clock.advance(DEFAULT_LEASE_MS + 1000);
    expect(await run()).toMatchObject({ claimed: 1, approved: 1, errors: 0 });
    expect(await profileRow(ctx, guid)).toMatchObject({ next_bill_date: '2027-01-21', last_failure: null, lease_owner: null });
    await cancelAll();
  });

  it('a charge whose outcome is unknown (the processor timed out) is neither counted nor tried again', async () => {
    const card = await cardToken(ctx, ctx.nonProfit);
    const guid = await profile({ TokenGuid: card.id });
    at('2026-12-21');
    const timedOut = async (): Promise<never> => {
      throw new Error('read timeout');
    };
    expect(await withSimulator(ctx.services, { sale: timedOut }, () => run())).toMatchObject({ charged: 1, approved: 0, declined: 0, deferred: 1 });
    expect(await profilePayments(ctx, guid)).toEqual([expect.objectContaining({ bill_date: '2026-12-21', payment_result: 2, successful: false })]);
    expect(await profileRow(ctx, guid)).toMatchObject({ next_bill_date: '2026-12-21', failed_attempts: 0 });
    // After the lease, the next run finds it still held: no second charge, LastFailure says why.
    ctx.clock.advance(DEFAULT_LEASE_MS + 1000);
    expect(await run()).toMatchObject({ charged: 0, deferred: 1 });
    expect(await profilePayments(ctx, guid)).toHaveLength(1);
    expect(await profileRow(ctx, guid)).toMatchObject({ next_bill_date: '2026-12-21', failed_attempts: 0, last_failure: expect.stringContaining('still pending') });
    await cancelAll();
  });

  it('never charges again a bill date whose payment is still pending (outcome unknown): it waits for an operator', async () => {
    const card = await cardToken(ctx, ctx.nonProfit);
    const guid = await profile({ TokenGuid: card.id });
    at('2026-12-21');
    await crashingWorker('afterCharge').run();
    // As if the worker had died after asking the processor and before recording the answer.
    await ctx.store.sql.query('UPDATE payments SET payment_result = 1, successful = false WHERE recurring_profile_id = $1', [guid]);
    ctx.clock.advance(DEFAULT_LEASE_MS + 1000);
    expect(await run()).toMatchObject({ charged: 0, deferred: 1 });
    expect(await profilePayments(ctx, guid)).toHaveLength(1);
    expect(await profileRow(ctx, guid)).toMatchObject({ next_bill_date: '2026-12-21', next_attempt_on: '2026-12-22', lease_owner: null, last_failure: expect.stringContaining('still pending') });
    at('2026-12-22');
    expect(await run()).toMatchObject({ charged: 0, deferred: 1 });
    expect(await profilePayments(ctx, guid)).toHaveLength(1);

    // An operator finds the charge in the processor's records (payments pending resolve): the
    // next run takes the bill date as charged and moves on, still without charging it again.
    const [payment] = await profilePayments(ctx, guid);
    await ctx.services.pendingPayments.resolve(payment!.id, { kind: 'approved', transactionId: `BANK-${payment!.id}` });
    at('2026-12-23');
    expect(await run()).toMatchObject({ charged: 0, reconciled: 1 });
    expect(await profilePayments(ctx, guid)).toEqual([expect.objectContaining({ bill_date: '2026-12-21', successful: true, payment_result: 3 })]);
    expect(await profileRow(ctx, guid)).toMatchObject({ next_bill_date: '2027-01-21', failed_attempts: 0, lease_owner: null });
    await cancelAll();
  });

  it('refuses a second live payment for a profile and bill date in the payment service and in the database', async () => {
    const card = await cardToken(ctx, ctx.nonProfit);
    const guid = await profile({ TokenGuid: card.id });
    at('2026-12-21');
    await run();
    const [paid] = await profilePayments(ctx, guid);
    const partner = { id: ctx.nonProfit.ClientId, name: ctx.nonProfit.name, kind: 'non-profit' as const };
    const again = await ctx.services.payments.payCard(partner, {
      tokenRef: card.id,
      lines: [{ transactionSourceGroupId: 1, amountCents: 2500, payFee: false, tipCents: 0, taxCents: 0 }],
      recurring: { profileId: guid, billDate: '2026-12-21' },
    });
    expect(again.payment).toMatchObject({ successful: false, responseCode: '-100', transactionId: null });
    expect(again.payment.message).toMatch(/bill date 2026-12-21 of this recurring profile was already charged/);
    await expect(
      ctx.store.sql.query('UPDATE payments SET payment_result = 3 WHERE id = $1', [again.payment.id]),
    ).rejects.toThrow(/payments_recurring_bill_once/);
    expect((await profilePayments(ctx, guid)).filter((p) => p.successful)).toEqual([expect.objectContaining({ id: paid!.id })]);
    await cancelAll();
  });
});
