import { PaymentResult, ProcessStatus, ResponseCode } from '../../domain/payment-status.ts';
import type { LivePayment } from './payment-repository.ts';
import type { PaymentChanges, PaymentDraft } from './payment-record.ts';

/**
 * The duplicate-TranId rule, the heart of the payment API.
 *
 * With duplicate checking on for its integration source (`integration_sources.duplicate_check`),
 * an attempt that carries a TranId may be processed only while no live payment of that source
 * holds the TranId: one that is not Failed (a declined or unprocessed attempt frees it; an
 * approved, refunded, voided, held or in-flight one keeps it). A recurring charge is held to the
 * same rule by its profile and bill date: each bill date is charged once.
 *
 * The rule is enforced where no race can pass it: the attempt is written as Pending before the
 * processor is asked, and a partial unique index (payments_tran_id_once on integration source and
 * TranId where `duplicate_checked` and not Failed; payments_recurring_bill_once on profile and bill
 * date) lets exactly one of several concurrent attempts in, in one process or many
 * (migration 0004; docs/decisions.md, "Payments"). The refused attempt is recorded too (Failed,
 * NotProcessed, ResponseCode -100) with a message naming the payment that holds the TranId and
 * its state, so a partner retrying after a lost answer learns which payment went through.
 */

/** Whether the rule applies to an attempt: its source checks duplicates and it has a TranId. */
export function duplicateChecked(sourceChecksDuplicates: boolean, tranId: string | null): boolean {
  return sourceChecksDuplicates && tranId !== null;
}

/**
 * How long past the processor deadline a Pending payment can still be in flight (its two writes):
 * older, the request that made it stopped before recording the answer (a crash, a kill).
 */
const PENDING_IN_FLIGHT_MARGIN_MS = 10_000;

/** What the refusal says of a Pending payment past that: its outcome awaits confirmation. */
const STOPPED_STATE = 'its outcome not known: the request that made it stopped before the answer was recorded, and an operator will confirm it; do not pay again';

/** What the refusal says of the payment that holds the TranId or bill date, by PaymentResult. */
const LIVE_STATE: Record<number, string> = {
  [PaymentResult.Pending]: 'being processed',
  [PaymentResult.Processing]: 'held, its outcome not known yet; do not pay again',
  [PaymentResult.Successful]: 'approved',
  [PaymentResult.Refunded]: 'approved, since refunded',
  [PaymentResult.Cancelled]: 'approved, since voided',
};

/**
 * The record of a refused attempt: Failed, not processed, ResponseCode -100, and a message naming
 * the live payment (when it could be read) and its state. `deadlineMs`: the processor's deadline.
 */
export function refusedDuplicate(draft: PaymentDraft, live: LivePayment | undefined, now: Date, deadlineMs: number): PaymentChanges {
  const stopped = live?.paymentResult === PaymentResult.Pending && now.getTime() - live.createdAt.getTime() > deadlineMs + PENDING_IN_FLIGHT_MARGIN_MS;
  const by = live ? ` (payment ${live.id}: ${stopped ? STOPPED_STATE : (LIVE_STATE[live.paymentResult] ?? 'recorded')})` : '';
  return {
    paymentResult: PaymentResult.Failed,
    processStatus: ProcessStatus.NotProcessed,
    responseCode: ResponseCode.NotProcessed,
    successful: false,
    message: draft.recurringProfileId
      ? `Duplicate transaction: bill date ${draft.billDate} of this recurring profile was already charged or is being charged${by}; this request was not processed.`
      : `Duplicate transaction: TranId '${draft.tranId}' was already processed or is being processed for this integration source${by}; this request was not processed.`,
    processorMessage: null,
    processedAt: now,
  };
}
