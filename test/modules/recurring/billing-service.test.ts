import { describe, expect, it } from 'vitest';
import { PaymentResult, ResponseCode } from '../../../src/domain/payment-status.ts';
import { ManualClock } from '../../../src/platform/clock.ts';
import { ValidationError, VaultError } from '../../../src/platform/errors.ts';
import { cryptoIds } from '../../../src/platform/ids.ts';
import { createLogger } from '../../../src/platform/logging.ts';
import type { PaymentRecord } from '../../../src/modules/payments/payment-record.ts';
import type { BillDatePayment, BillingRepository, ClaimedProfile, ProfileMove } from '../../../src/modules/recurring/billing-repository.ts';
import { BillingService, DEFAULT_LEASE_MS } from '../../../src/modules/recurring/billing-service.ts';
import type { RecurringProfile } from '../../../src/modules/recurring/profile.ts';

/**
 * The billing run's decisions on a fake repository and a fake payment service (no database):
 * what a charge's outcome does to the profile, and what happens to a bill date whose earlier
 * attempt is found (approved, declined, still pending). The statements themselves, leases and
 * concurrency are in worker.test.ts and workers-concurrent.test.ts.
 */

const partner = { id: 'partner-1', name: 'Partner', kind: 'non-profit' as const };

function profile(overrides: Partial<RecurringProfile> = {}): RecurringProfile {
  const at = new Date('2026-11-21T12:00:00Z');
  return {
    id: '00000000-0000-4000-8000-000000000001',
    profileId: 1,
    partnerId: partner.id,
    tokenId: '00000000-0000-4000-8000-0000000000aa',
    processorId: '00000000-0000-4000-8000-0000000000bb',
    integrationSourceId: null,
    organizationId: null,
    charityId: null,
    status: 'active',
    billingFrequency: 'Monthly',
    anchorDay: 21,
    startDate: '2026-11-21',
    endDate: null,
    nextBillDate: '2026-12-21',
    nextAttemptOn: '2026-12-21',
    failedAttempts: 0,
    amountCents: 2500,
    preFeeAmountCents: null,
    payFee: false,
    transactionSourceGroupId: 1,
    commissionRateOverride: null,
    cardProcessingFeeOverride: null,
    surchargeCents: null,
    feeCommissionRate: '5',
    feeCardRate: '2.9',
    feesTakenAt: at,
    externalEventId: null,
    externalEventGuid: null,
    externalEventName: null,
    payer: { firstName: 'Ada', lastName: 'Lovelace' },
    currency: null,
    lastPaymentId: null,
    lastAttemptAt: null,
    lastFailure: null,
    createdAt: at,
    updatedAt: at,
    suspendedAt: null,
    completedAt: null,
    cancelledAt: null,
    ...overrides,
  };
}

class FakeRepository implements Pick<BillingRepository, keyof BillingRepository> {
  readonly batches: ClaimedProfile[][];
  readonly payments = new Map<string, BillDatePayment[]>();
  readonly moves: ProfileMove[] = [];
  readonly deferred: { profileId: string; nextAttemptOn: string; failure: string }[] = [];
  readonly failures: { profileId: string; failure: string }[] = [];
  readonly released: string[] = [];

  constructor(...batches: ClaimedProfile[][]) {
    this.batches = batches;
  }
  paid(p: RecurringProfile, ...rows: BillDatePayment[]) {
    this.payments.set(`${p.id}|${p.nextBillDate}`, rows);
  }
  async claim() {
    return this.batches.shift() ?? [];
  }
  async billDatePayments(profileId: string, billDate: string) {
    return this.payments.get(`${profileId}|${billDate}`) ?? [];
  }
  async noteFailure(profileId: string, _workerId: string, failure: string) {
    this.failures.push({ profileId, failure });
  }
  async defer(profileId: string, _workerId: string, nextAttemptOn: string, failure: string) {
    this.deferred.push({ profileId, nextAttemptOn, failure });
  }
  async applyMoves(moves: readonly ProfileMove[]) {
    this.moves.push(...moves);
    return moves.map((m) => ({ id: m.profile.id, status: m.change.status }));
  }
  async releaseLeases(ids: readonly string[]) {
    this.released.push(...ids);
  }
  async countByStatus() {
    return [];
  }
}

const claimed = (p: RecurringProfile, abandonedClaimAt: Date | null = null): ClaimedProfile => ({ profile: p, partner, tokenKind: 'card', abandonedClaimAt });

/** A payment as the payment service answers it: only the fields the billing run reads. */
const answer = (payment: { id: string; successful: boolean; responseCode: string; paymentResult: number; message?: string; createdAt?: Date }) =>
  ({ payment: { message: null, createdAt: new Date('2026-12-21T06:00:00Z'), ...payment }, lines: [] }) as unknown as PaymentRecord;

function billing(repository: FakeRepository, pay: () => Promise<PaymentRecord>) {
  const clock = new ManualClock('2026-12-21T06:00:00Z');
  const logs: string[] = [];
  const log = createLogger('info', { write: (line: string) => void logs.push(line) });
  const calls: unknown[] = [];
  const payments = {
    payCard: async (...args: unknown[]) => (calls.push(args), pay()),
    payAch: async (...args: unknown[]) => (calls.push(args), pay()),
  };
  const service = new BillingService({ repository, clock, ids: cryptoIds, log, payments, retryDays: [1, 3, 7] });
  return { service, clock, logs, calls };
}

const never = async (): Promise<PaymentRecord> => {
  throw new Error('charged');
};

describe('a charge and where it takes the profile', () => {
  it('approved: the profile moves to the next anchored bill date', async () => {
    const p = profile();
    const repo = new FakeRepository([claimed(p)]);
    const { service, calls } = billing(repo, async () => answer({ id: 'pay-1', successful: true, responseCode: ResponseCode.Approved, paymentResult: PaymentResult.Successful }));
    expect(await service.run()).toMatchObject({ claimed: 1, charged: 1, approved: 1, declined: 0 });
    expect(calls).toEqual([[partner, expect.objectContaining({ tokenRef: p.tokenId, recurring: { profileId: p.id, billDate: '2026-12-21' }, firstName: 'Ada' })]]);
    expect(repo.moves).toEqual([
      { profile: p, change: { status: 'active', nextBillDate: '2027-01-21', nextAttemptOn: '2027-01-21', failedAttempts: 0 }, attempt: { paymentId: 'pay-1' } },
    ]);
  });

  it('refused by the payment service before the processor (an expired card): a failed attempt, retried the next retry day', async () => {
    const p = profile();
    const repo = new FakeRepository([claimed(p)]);
    const { service } = billing(repo, async () => {
      throw new ValidationError([{ code: 'CardExpired', field: 'tokenRef', message: 'The card has expired.' }]);
    });
    expect(await service.run()).toMatchObject({ charged: 1, declined: 1 });
    expect(repo.moves[0]).toMatchObject({ change: { status: 'active', nextBillDate: '2026-12-21', nextAttemptOn: '2026-12-22', failedAttempts: 1 }, attempt: { failure: 'The card has expired.' } });
  });

  it('past its EndDate: completed without a charge', async () => {
    const p = profile({ endDate: '2026-12-20' });
    const repo = new FakeRepository([claimed(p)]);
    const { service, calls } = billing(repo, never);
    expect(await service.run()).toMatchObject({ charged: 0, completed: 1 });
    expect(calls).toEqual([]);
    expect(repo.moves[0]!.change).toMatchObject({ status: 'completed' });
  });

  it('a stored card the vault cannot read: an error, no move, LastFailure says why (the lease stays)', async () => {
    const p = profile();
    const repo = new FakeRepository([claimed(p)]);
    const { service, logs } = billing(repo, async () => {
      throw new VaultError('vault key "k2" is not configured');
    });
    expect(await service.run()).toMatchObject({ errors: 1, declined: 0 });
    expect(repo.moves).toEqual([]);
    expect(repo.failures).toEqual([{ profileId: p.id, failure: expect.stringContaining('could not be read for bill date 2026-12-21') }]);
    expect(logs.join('')).toContain('"vaultError":"vault key \\"k2\\" is not configured"');
  });
});

describe('the duplicate refusal: a second charge of a bill date', () => {
  const duplicate = async () => answer({ id: 'pay-2', successful: false, responseCode: ResponseCode.NotProcessed, paymentResult: PaymentResult.Failed });

  it('the bill date was charged by another worker: the profile moves on from that payment', async () => {
    const p = profile();
    const repo = new FakeRepository([claimed(p)]);
    repo.paid(p, { id: 'pay-1', paymentResult: PaymentResult.Successful, responseCode: ResponseCode.Approved, message: null, createdAt: new Date('2026-12-21T05:59:00Z') });
    const { service } = billing(repo, duplicate);
    expect(await service.run()).toMatchObject({ charged: 1, approved: 0, reconciled: 1 });
    expect(repo.moves).toEqual([expect.objectContaining({ attempt: { paymentId: 'pay-1' }, change: expect.objectContaining({ nextBillDate: '2027-01-21' }) })]);
  });

  it("the other worker's charge is still pending: left for later, nothing written", async () => {
    const p = profile();
    const repo = new FakeRepository([claimed(p)]);
    repo.paid(p, { id: 'pay-1', paymentResult: PaymentResult.Pending, responseCode: ResponseCode.NotProcessed, message: null, createdAt: new Date('2026-12-21T05:59:00Z') });
    const { service } = billing(repo, duplicate);
    expect(await service.run()).toMatchObject({ charged: 1, deferred: 1 });
    expect(repo.moves).toEqual([]);
    expect(repo.deferred).toEqual([]);
  });
});

describe('held outcomes: a bill date whose charge may or may not have happened', () => {
  it('the processor did not answer (Processing): neither an approval nor a decline, and never charged again by this run', async () => {
    const p = profile();
    const repo = new FakeRepository([claimed(p)]);
    const { service } = billing(repo, async () => answer({ id: 'pay-1', successful: false, responseCode: ResponseCode.NotProcessed, paymentResult: PaymentResult.Processing }));
    expect(await service.run()).toMatchObject({ charged: 1, approved: 0, declined: 0, deferred: 1 });
    // Younger than a lease: the lease stays and lapses; the next run looks at the payment again.
    expect(repo.moves).toEqual([]);
    expect(repo.deferred).toEqual([]);
  });

  it('an abandoned lease whose payment has been pending longer than a lease: not charged, tried again tomorrow, logged for an operator', async () => {
    const p = profile();
    const repo = new FakeRepository([claimed(p, new Date('2026-12-21T04:00:00Z'))]);
    repo.paid(p, { id: 'pay-1', paymentResult: PaymentResult.Processing, responseCode: ResponseCode.NotProcessed, message: null, createdAt: new Date('2026-12-21T04:00:01Z') });
    const { service, calls, logs, clock } = billing(repo, never);
    expect(clock.now().getTime() - new Date('2026-12-21T04:00:01Z').getTime()).toBeGreaterThan(DEFAULT_LEASE_MS);
    expect(await service.run()).toMatchObject({ charged: 0, deferred: 1 });
    expect(calls).toEqual([]);
    expect(repo.deferred).toEqual([{ profileId: p.id, nextAttemptOn: '2026-12-22', failure: 'Payment pay-1 for bill date 2026-12-21 is still pending; its outcome is unknown.' }]);
    expect(logs.join('')).toContain('recurring charge outcome unknown');
  });

  it('an abandoned lease whose charge was approved: moved on without charging again', async () => {
    const p = profile();
    const repo = new FakeRepository([claimed(p, new Date('2026-12-21T05:00:00Z'))]);
    repo.paid(p, { id: 'pay-1', paymentResult: PaymentResult.Successful, responseCode: ResponseCode.Approved, message: null, createdAt: new Date('2026-12-21T05:00:01Z') });
    const { service, calls } = billing(repo, never);
    expect(await service.run()).toMatchObject({ charged: 0, reconciled: 1 });
    expect(calls).toEqual([]);
    expect(repo.moves).toEqual([expect.objectContaining({ attempt: { paymentId: 'pay-1' }, change: expect.objectContaining({ nextBillDate: '2027-01-21' }) })]);
  });

  it('an abandoned lease whose charge was declined since the claim: that decline is the attempt; older declines and duplicate refusals are not', async () => {
    const p = profile({ failedAttempts: 1, nextAttemptOn: '2026-12-22' });
    const claimedAt = new Date('2026-12-21T05:00:00Z');
    const repo = new FakeRepository([claimed(p, claimedAt)]);
    repo.paid(
      p,
      { id: 'old', paymentResult: PaymentResult.Failed, responseCode: ResponseCode.Declined, message: 'Declined', createdAt: new Date('2026-12-20T05:00:00Z') },
      { id: 'dup', paymentResult: PaymentResult.Failed, responseCode: ResponseCode.NotProcessed, message: 'duplicate', createdAt: new Date('2026-12-21T05:00:02Z') },
      { id: 'new', paymentResult: PaymentResult.Failed, responseCode: ResponseCode.InsufficientFunds, message: 'Insufficient funds', createdAt: new Date('2026-12-21T05:00:01Z') },
    );
    const { service, calls } = billing(repo, never);
    expect(await service.run()).toMatchObject({ charged: 0, reconciled: 1 });
    expect(calls).toEqual([]);
    expect(repo.moves).toEqual([
      expect.objectContaining({ attempt: { paymentId: 'new', failure: 'Insufficient funds' }, change: expect.objectContaining({ failedAttempts: 2, nextAttemptOn: '2026-12-24' }) }),
    ]);
  });
});
