import { describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../../src/platform/clock.ts';
import { ValidationError } from '../../../src/platform/errors.ts';
import { PaymentResult } from '../../../src/domain/payment-status.ts';
import { Rule } from '../../../src/domain/rules.ts';
import type { PaymentRecord } from '../../../src/modules/payments/payment-record.ts';
import { type CheckoutDeps, type CheckoutSubmission, PayLinkCheckoutService } from '../../../src/modules/paylinks/checkout-service.ts';
import type { PayLink, PayLinkLease } from '../../../src/modules/paylinks/paylink-service.ts';
import { testLogger } from '../../helpers/logger.ts';

/**
 * The checkout's lease rules against fake services, without a database: the lease is given back
 * only when nothing was charged; after a success or an unknown outcome it is kept, and a success
 * whose link was lost is voided.
 */

const LEASE: PayLinkLease = { id: 'A'.repeat(24), until: new Date('2026-11-21T12:10:00.000Z') };

const LINK = {
  id: LEASE.id,
  url: `https://pay.example/paylink/${LEASE.id}`,
  partner: { id: '11111111-1111-4111-8111-111111111111', name: 'Friends of the Library', kind: 'non-profit' },
  integrationSourceId: null,
  processorId: null,
  workflowType: 1,
  status: 'active',
  redirectUrl: 'https://partner.example/thanks',
  tranId: null,
  lines: [{ amountCents: 2500, type: 1, recurring: 0, payFee: false }],
  settings: { tokenizeCard: false, currency: 'USD', ipAddress: null, showTransactionId: false, savedCardTokenId: null, savedBankTokenId: null },
  paymentId: null,
  tokenId: null,
  recurringProfileId: null,
  createdAt: new Date('2026-11-21T12:00:00.000Z'),
} as unknown as PayLink;

const SUBMISSION: CheckoutSubmission = {
  method: 'card',
  payer: { email: 'ada@example.org' },
  card: { useSaved: false, nameOnCard: 'Ada Lovelace', cardNum: '4242424242424242', expMonth: '12', expYear: '30', cvNum: '123' },
  bank: {},
  clientIp: '198.51.100.7',
};

const record = (paymentResult: number, successful: boolean) =>
  ({ payment: { id: 'pay-1', paymentResult, successful, processorId: 'proc-1', tokenId: null, tranId: null }, lines: [] }) as unknown as PaymentRecord;

function checkout(payCard: CheckoutDeps['payments']['payCard'], overrides: { complete?: boolean } = {}) {
  const links = {
    hold: vi.fn(async () => LEASE),
    release: vi.fn(async () => true),
    complete: vi.fn(async () => overrides.complete ?? true),
    completeWithItsPayment: vi.fn(async () => false),
    find: vi.fn(async () => LINK),
    paymentIdOf: vi.fn(async () => null),
    setRecurringProfile: vi.fn(async () => {}),
  };
  const voids = { voidPayment: vi.fn(async () => ({ successful: true, adjustmentId: 'adj-1' })) } as unknown as CheckoutDeps['voids'];
  const deps: CheckoutDeps = {
    clock: new ManualClock('2026-11-21T12:00:00.000Z'),
    links,
    results: { issue: vi.fn(async () => 'response-token') },
    payments: { validateCard: () => ({ violations: [] }), validateAch: () => ({ violations: [] }), payCard, payAch: vi.fn() },
    tokens: { find: vi.fn(async () => undefined), tokenizeCard: vi.fn(), delete: vi.fn(), listByConstituent: vi.fn() },
    fees: { quote: vi.fn() },
    log: testLogger(),
    voids,
  };
  return { service: new PayLinkCheckoutService(deps), links, voids };
}

describe('a payment through a link, and its lease', () => {
  it('is given back after a decline: nothing was charged', async () => {
    const { service, links } = checkout(vi.fn(async () => record(PaymentResult.Failed, false)));
    expect((await service.pay(LINK, SUBMISSION)).kind).toBe('declined');
    expect(links.release).toHaveBeenCalledWith(LEASE);
  });

  it('is given back when the payment service refuses the request', async () => {
    const refused = new ValidationError([{ code: Rule.CardExpired, field: 'expYear', message: '{expYear} is in the past: the card has expired.' }]);
    const { service, links } = checkout(vi.fn(async () => Promise.reject(refused)));
    expect(await service.pay(LINK, SUBMISSION)).toEqual({ kind: 'invalid', violations: refused.violations });
    expect(links.release).toHaveBeenCalledWith(LEASE);
  });

  it('is kept when the outcome is unknown (held as Processing): the link takes no other payment', async () => {
    const { service, links } = checkout(vi.fn(async () => record(PaymentResult.Processing, false)));
    expect((await service.pay(LINK, SUBMISSION)).kind).toBe('unknown');
    expect(links.release).not.toHaveBeenCalled();
  });

  it('is kept when the payment fails in a way that may have charged', async () => {
    const { service, links } = checkout(vi.fn(async () => Promise.reject(new Error('lost the answer'))));
    await expect(service.pay(LINK, SUBMISSION)).rejects.toThrow('lost the answer');
    expect(links.release).not.toHaveBeenCalled();
  });

  it('completes the link after a success, and voids the payment when the lease was lost meanwhile', async () => {
    const paid = checkout(vi.fn(async () => record(PaymentResult.Successful, true)));
    expect(await paid.service.pay(LINK, SUBMISSION)).toMatchObject({ kind: 'paid', responseToken: 'response-token' });
    expect(paid.links.complete).toHaveBeenCalledWith(LEASE, { paymentId: 'pay-1' });
    expect(paid.links.release).not.toHaveBeenCalled();

    const lost = checkout(vi.fn(async () => record(PaymentResult.Successful, true)), { complete: false });
    expect(await lost.service.pay(LINK, SUBMISSION)).toMatchObject({ kind: 'lost', voided: true });
    expect(lost.voids.voidPayment).toHaveBeenCalledTimes(1);
    expect(lost.links.release).not.toHaveBeenCalled();
  });

  it('is not taken for a form the rules refuse: the payer corrects it first', async () => {
    const payCard = vi.fn();
    const { service, links } = checkout(payCard);
    const outcome = await service.pay(LINK, { ...SUBMISSION, payer: { ...SUBMISSION.payer, phone: '12' } });
    expect(outcome).toEqual({ kind: 'invalid', violations: [{ code: Rule.InvalidFormat, field: 'phone', message: '{phone} must be a North American or Australian phone number.' }] });
    expect(links.hold).not.toHaveBeenCalled();
    expect(payCard).not.toHaveBeenCalled();
  });
});
