import { describe, expect, it } from 'vitest';
import type { FeeBreakdown } from '../../src/domain/fees.ts';
import { PaymentResult as R, ProcessStatus as S } from '../../src/domain/payment-status.ts';
import { type PaymentState, decideRefund, decideVoid, feeTreatment, stateAfter } from '../../src/domain/refund-void-rules.ts';

const state = (paymentResult: number, processStatus: number, extra: Partial<PaymentState> = {}): PaymentState => ({
  paymentResult,
  processStatus,
  method: 'card',
  adjustmentInFlight: false,
  ...extra,
});

/** [state, void decision, refund decision]: true allowed, or a pattern the refusal message matches. */
const TABLE: [string, PaymentState, true | RegExp, true | RegExp][] = [
  ['authorized', state(R.Successful, S.Authorized), true, /not settled yet.*void it instead/],
  ['settled', state(R.Successful, S.Settled), /already settled.*refund it instead/, true],
  ['declined', state(R.Failed, S.Rejected), /not approved/, /not approved/],
  ['not processed (duplicate or unreachable processor)', state(R.Failed, S.NotProcessed), /not approved/, /not approved/],
  ['pending', state(R.Pending, S.NotProcessed), /still being processed/, /still being processed/],
  ['processing (held: outcome unknown)', state(R.Processing, S.NotProcessed), /outcome is not known yet.*cannot be voided now/, /outcome is not known yet.*cannot be refunded now/],
  ['voided', state(R.Cancelled, S.Cancelled), /already been voided/, /already been voided/],
  ['cancelled by its process status only', state(R.Successful, S.Cancelled), /already been voided/, /already been voided/],
  ['refunded (card)', state(R.Refunded, S.Refunded), /already been refunded/, /already been refunded/],
  ['awaiting an ACH refund', state(R.Refunded, S.AwaitingRefund, { method: 'ach' }), /already been refunded/, /already been refunded/],
  ['charged back', state(R.Successful, S.Chargeback), /charged back/, /charged back/],
  ['authorized, with a void in flight', state(R.Successful, S.Authorized, { adjustmentInFlight: true }), /in progress/, /in progress/],
  ['settled, with a refund in flight', state(R.Successful, S.Settled, { adjustmentInFlight: true }), /in progress/, /in progress/],
  ['authorized, in a batch being closed', state(R.Successful, S.Authorized, { settling: true }), /being settled.*cannot be voided meanwhile.*refund it if it settled, or void it if it did not/, /being settled.*cannot be refunded meanwhile/],
  ['settled (in its batch)', state(R.Successful, S.Settled, { settling: true }), /already settled.*refund it instead/, true],
];

describe('which payments a void and a refund apply to', () => {
  it.each(TABLE)('%s', (_name, s, voidExpected, refundExpected) => {
    for (const [decision, expected] of [
      [decideVoid(s), voidExpected],
      [decideRefund(s), refundExpected],
    ] as const) {
      if (expected === true) expect(decision.allowed).toBe(true);
      else {
        expect(decision.allowed).toBe(false);
        expect(decision.allowed ? '' : decision.message).toMatch(expected);
      }
    }
  });

  it('refunds ACH on the ACH rail and cards and wallets on the card rail', () => {
    expect(decideRefund(state(R.Successful, S.Settled, { method: 'ach' }))).toEqual({ allowed: true, rail: 'ach' });
    expect(decideRefund(state(R.Successful, S.Settled, { method: 'wallet' }))).toEqual({ allowed: true, rail: 'card' });
  });

  it('moves the payment as card networks do', () => {
    expect(stateAfter('void', 'card')).toEqual({ paymentResult: 6, processStatus: 9, completesNow: true });
    expect(stateAfter('void', 'ach')).toEqual({ paymentResult: 6, processStatus: 9, completesNow: true });
    expect(stateAfter('refund', 'card')).toEqual({ paymentResult: 5, processStatus: 8, completesNow: true });
    expect(stateAfter('refund', 'ach')).toEqual({ paymentResult: 5, processStatus: 7, completesNow: false });
  });
});

describe('fee treatment (docs/fees.md)', () => {
  const line = (o: Partial<FeeBreakdown>): FeeBreakdown => ({
    transactionSourceGroupId: 1, paymentAmountCents: 0, cardFeeRate: '2.9', cardFeeAmountCents: 0, cardTypeFeeAmountCents: 0,
    totalCommissionRate: '5', totalCommissionAmountCents: 0, partnerCommissionRate: '4', partnerCommissionAmountCents: 0,
    platformCommissionRate: '1', platformCommissionAmountCents: 0, totalFeesCents: 0, maxOverridePartnerCommissionRate: '0',
    minOverridePartnerCommissionRate: '0', perTransFeeCents: 0, tipCents: 0, cardFeeOnFeeAmountCents: 0, taxCents: 0,
    achFeeRate: '0', achFeeAmountCents: 0, externalLineId: undefined, ...o,
  });
  // 100.00 + 5.00 tip: card fee 3.05, per transaction 0.30, commissions 4.20 + 1.05; a second line with a card-type fee.
  const lines = [
    line({ paymentAmountCents: 10500, cardFeeAmountCents: 305, perTransFeeCents: 30, partnerCommissionAmountCents: 420, platformCommissionAmountCents: 105, tipCents: 500 }),
    line({ paymentAmountCents: 2000, cardFeeAmountCents: 58, cardTypeFeeAmountCents: 15, cardFeeOnFeeAmountCents: 2, partnerCommissionAmountCents: 80, platformCommissionAmountCents: 20 }),
  ];
  const total = 12500 + 495; // plus shipping

  it('a refund returns everything charged; processing fees are retained, commissions and tips reversed', () => {
    const t = feeTreatment('refund', total, lines);
    expect(t).toEqual({
      amountCents: total,
      payerCreditCents: total,
      authorizationReleasedCents: 0,
      processingFeesCents: 305 + 30 + 58 + 15 + 2,
      processingFeesRetainedCents: 410,
      processingFeesReversedCents: 0,
      partnerCommissionReversedCents: 500,
      platformCommissionReversedCents: 125,
      tipReversedCents: 500,
      organizationDebitCents: total - 500 - 125 - 500,
    });
    // Who pays the payer back adds up to what the payer gets.
    expect(t.organizationDebitCents + t.partnerCommissionReversedCents + t.platformCommissionReversedCents + t.tipReversedCents).toBe(t.payerCreditCents);
  });

  it('counts the ACH fee among the processing fees', () => {
    const ach = [line({ paymentAmountCents: 10_000, cardFeeRate: '0', achFeeRate: '0.8', achFeeAmountCents: 80, perTransFeeCents: 30, partnerCommissionAmountCents: 400, platformCommissionAmountCents: 100 })];
    expect(feeTreatment('refund', 10_000, ach)).toMatchObject({ processingFeesCents: 110, processingFeesRetainedCents: 110, organizationDebitCents: 9_500 });
    expect(feeTreatment('void', 10_000, ach)).toMatchObject({ processingFeesCents: 110, processingFeesReversedCents: 110 });
  });

  it('a void moves no money: the hold is released and no fee is collected', () => {
    expect(feeTreatment('void', total, lines)).toMatchObject({
      payerCreditCents: 0,
      authorizationReleasedCents: total,
      processingFeesRetainedCents: 0,
      processingFeesReversedCents: 410,
      organizationDebitCents: 0,
    });
  });
});
