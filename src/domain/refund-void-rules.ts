import type { FeeBreakdown } from './fees.ts';
import type { Cents } from './money.ts';
import { PaymentResult, ProcessStatus } from './payment-status.ts';

/**
 * Which payments a void or a refund applies to, decided as card networks do (docs/decisions.md,
 * "Refunds, voids and settlement"): a void cancels an authorization that has not settled, a
 * refund returns the funds of a settled payment. Pure rules, no I/O.
 */

export type AdjustmentKind = 'void' | 'refund';

/** The state of a payment that the rules look at. */
export interface PaymentState {
  paymentResult: number;
  processStatus: number;
  method: 'card' | 'ach' | 'wallet';
  /** A refund or void of the payment is between its claim and the processor's answer. */
  adjustmentInFlight: boolean;
  /** The payment is in a settlement batch being closed: the processor is capturing it. */
  settling?: boolean;
}

export type Decision =
  | { allowed: true; rail: 'card' | 'ach' }
  | { allowed: false; message: string };

const refuse = (message: string): Decision => ({ allowed: false, message });

/** What refuses both kinds alike: nothing to act on, or already acted on. */
function refusalOfEither(p: PaymentState, kind: AdjustmentKind): Decision | undefined {
  const verb = kind === 'void' ? 'voided' : 'refunded';
  if (p.paymentResult === PaymentResult.Failed) {
    return refuse(`The payment was not approved (declined or not processed): nothing was charged, so it cannot be ${verb}.`);
  }
  if (p.paymentResult === PaymentResult.Pending) {
    return refuse(`The payment is still being processed and cannot be ${verb} yet; try again shortly.`);
  }
  if (p.paymentResult === PaymentResult.Processing) {
    // Held: the processor's answer was not received. Trying again changes nothing until an
    // operator records it (a slow-processor audit: "try again shortly" invited polling).
    return refuse(`The payment's outcome is not known yet (the processor's answer was not received; it is held until it is confirmed with the processor), so it cannot be ${verb} now. Do not pay again.`);
  }
  if (p.adjustmentInFlight) return refuse('A refund or void of this payment is already in progress; nothing was changed.');
  if (p.paymentResult === PaymentResult.Cancelled || p.processStatus === ProcessStatus.Cancelled) {
    return refuse('The payment has already been voided; nothing was changed.');
  }
  if (
    p.paymentResult === PaymentResult.Refunded ||
    p.processStatus === ProcessStatus.AwaitingRefund ||
    p.processStatus === ProcessStatus.Refunded
  ) {
    return refuse('The payment has already been refunded; nothing was changed.');
  }
  if (p.processStatus === ProcessStatus.Chargeback) {
    return refuse(`The payment was charged back by the payer's bank and cannot be ${verb}.`);
  }
  return undefined;
}

/** The rail a refund or void of a payment goes by. */
export const rail = (p: Pick<PaymentState, 'method'>): 'card' | 'ach' => (p.method === 'ach' ? 'ach' : 'card');

/** A void applies to an approved payment that has not settled (ProcessStatus 2, Authorized). */
export function decideVoid(p: PaymentState): Decision {
  const refused = refusalOfEither(p, 'void');
  if (refused) return refused;
  if (p.processStatus === ProcessStatus.Settled) {
    return refuse('The payment has already settled and can no longer be voided; refund it instead.');
  }
  if (p.settling && p.processStatus === ProcessStatus.Authorized) {
    return refuse('The payment is being settled (its batch is being closed with the processor) and cannot be voided meanwhile; once the batch is closed, refund it if it settled, or void it if it did not.');
  }
  if (p.paymentResult === PaymentResult.Successful && p.processStatus === ProcessStatus.Authorized) return { allowed: true, rail: rail(p) };
  return refuse('The payment cannot be voided in its current state.');
}

/** A refund applies to a settled payment (ProcessStatus 4), for its full amount. */
export function decideRefund(p: PaymentState): Decision {
  const refused = refusalOfEither(p, 'refund');
  if (refused) return refused;
  if (p.settling && p.processStatus === ProcessStatus.Authorized) {
    return refuse('The payment is being settled (its batch is being closed with the processor) and cannot be refunded meanwhile; once the batch is closed, refund it if it settled, or void it if it did not.');
  }
  if (p.processStatus === ProcessStatus.Authorized) {
    return refuse('The payment has not settled yet, so there is nothing to refund; void it instead.');
  }
  if (p.paymentResult === PaymentResult.Successful && p.processStatus === ProcessStatus.Settled) return { allowed: true, rail: rail(p) };
  return refuse('The payment cannot be refunded in its current state.');
}

export function decide(kind: AdjustmentKind, p: PaymentState): Decision {
  return kind === 'void' ? decideVoid(p) : decideRefund(p);
}

/**
 * The payment's state once the processor accepted the void or refund: a void cancels it (6/9);
 * a card refund completes at once (5/8); an ACH refund is accepted (5) and waits for the next
 * settlement run to move the money (7, then 8).
 */
export function stateAfter(kind: AdjustmentKind, railOf: 'card' | 'ach'): { paymentResult: number; processStatus: number; completesNow: boolean } {
  if (kind === 'void') return { paymentResult: PaymentResult.Cancelled, processStatus: ProcessStatus.Cancelled, completesNow: true };
  if (railOf === 'ach') return { paymentResult: PaymentResult.Refunded, processStatus: ProcessStatus.AwaitingRefund, completesNow: false };
  return { paymentResult: PaymentResult.Refunded, processStatus: ProcessStatus.Refunded, completesNow: true };
}

/** What happens to each part of a payment's money when it is voided or refunded (docs/fees.md). */
export interface FeeTreatment {
  /** The payment's total charged (lines, shipping fee, surcharge). */
  amountCents: Cents;
  /** Returned to the payer's card or account (refund: everything charged; void: nothing moved). */
  payerCreditCents: Cents;
  /** The authorization hold released without any money moving (void only). */
  authorizationReleasedCents: Cents;
  /** Card fee, card-type fee, per-transaction fee, card fee on fee and ACH fee of the lines. */
  processingFeesCents: Cents;
  /** Processing fees that stay with the gateway (refund: all; the card and ACH networks keep them). */
  processingFeesRetainedCents: Cents;
  /** Processing fees never collected or given back (void: all). */
  processingFeesReversedCents: Cents;
  partnerCommissionReversedCents: Cents;
  platformCommissionReversedCents: Cents;
  /** Tips went to the partner; they go back to the payer with the rest. */
  tipReversedCents: Cents;
  /** What the organization gives back: its net plus the retained processing fees (refund), 0 (void). */
  organizationDebitCents: Cents;
}

/** Fee treatment of a void or refund of a payment whose total is `amountCents` with these lines. */
export function feeTreatment(kind: AdjustmentKind, amountCents: Cents, lines: readonly FeeBreakdown[]): FeeTreatment {
  let processing = 0;
  let partnerCommission = 0;
  let platformCommission = 0;
  let tips = 0;
  for (const l of lines) {
    processing += l.cardFeeAmountCents + l.cardTypeFeeAmountCents + l.perTransFeeCents + l.cardFeeOnFeeAmountCents + l.achFeeAmountCents;
    partnerCommission += l.partnerCommissionAmountCents;
    platformCommission += l.platformCommissionAmountCents;
    tips += l.tipCents;
  }
  const refund = kind === 'refund';
  return {
    amountCents,
    payerCreditCents: refund ? amountCents : 0,
    authorizationReleasedCents: refund ? 0 : amountCents,
    processingFeesCents: processing,
    processingFeesRetainedCents: refund ? processing : 0,
    processingFeesReversedCents: refund ? 0 : processing,
    partnerCommissionReversedCents: partnerCommission,
    platformCommissionReversedCents: platformCommission,
    tipReversedCents: tips,
    organizationDebitCents: refund ? amountCents - partnerCommission - platformCommission - tips : 0,
  };
}
