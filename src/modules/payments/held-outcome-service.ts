import type { Clock } from '../../platform/clock.ts';
import { PaymentResult, ProcessStatus, ResponseCode } from '../../domain/payment-status.ts';
import type { HeldOutcomeRepository } from './held-outcome-repository.ts';
import { ConflictError, NotFoundError, OperatorInputError } from '../../platform/errors.ts';
import { BY_OPERATOR, type ProcessorOutcome, UNKNOWN_AFTER_MINUTES, checkOutcome, tooYoung } from './processor-outcome.ts';
import { payLinkRef } from '../paylinks/paylink-service.ts';
import type { RefundVoidService } from '../adjustments/refund-void-service.ts';
import { GUID } from '../../platform/ids.ts';

/**
 * Payments, refunds and voids whose outcome we do not know: written before the processor was
 * asked, and never completed because the process died (or the database was unreachable) before
 * the answer was recorded. The processor may or may not have acted. An operator looks them up in
 * the processor's records (the reference there is our PaymentGuid, or the refund's or void's id)
 * and records what it says. Until then a payment stays Pending (recurring billing does not charge
 * its bill date again), and a payment with a refund or void in flight takes no other one and is
 * not settled.
 */
export interface PendingPayment {
  paymentGuid: string;
  partnerId: string;
  partnerName: string;
  processorName: string;
  adapter: string;
  method: string;
  amountCents: number;
  currency: string | null;
  tranId: string | null;
  recurringProfileId: string | null;
  billDate: string | null;
  /** The pay link it was made on, by its log fingerprint (the id is the page's only key). */
  payLinkRef: string | null;
  createdAt: Date;
}

/** A refund or void still claiming its payment. */
export interface PendingAdjustment {
  adjustmentId: string;
  kind: 'refund' | 'void';
  paymentGuid: string;
  /** The payment's id at the processor, which the refund or void refers to. */
  originalTransactionId: string | null;
  partnerId: string;
  partnerName: string;
  amountCents: number;
  currency: string | null;
  requestedAt: Date;
}

export type PayLinkAfterResolution = 'completed' | 'open' | 'not active' | 'charged on an inactive link';

export interface Resolution {
  /** What was resolved: the payment itself, or a refund or void of it. */
  what: 'payment' | 'refund' | 'void';
  paymentGuid: string;
  /** The payment's state afterwards. */
  paymentResult: number;
  processStatus: number;
  /**
   * A payment made on a pay link's page: this resolution completed the link (a charge), left it
   * open for another payment (nothing charged), or found it no longer active (cancelled meanwhile)
   * and left it so: with a charge, one the page would have voided (the operator's to void or
   * refund). A recurring schedule the link asked for is not started: the card was never stored.
   */
  payLink?: PayLinkAfterResolution;
}

/** Later than any payment's start, and a timestamp PostgreSQL can read. */
const FOREVER = new Date('9999-12-31T23:59:59Z');

export class PendingPaymentService {
  readonly #repository: HeldOutcomeRepository;
  readonly #clock: Clock;
  readonly #refundsVoids: RefundVoidService;

  constructor(deps: { repository: HeldOutcomeRepository; clock: Clock; refundsVoids: RefundVoidService }) {
    this.#repository = deps.repository;
    this.#clock = deps.clock;
    this.#refundsVoids = deps.refundsVoids;
  }

  /** Pending for at least `olderThanMinutes` (younger ones may still be waiting for their answer). */
  async list(olderThanMinutes: number): Promise<{ payments: PendingPayment[]; adjustments: PendingAdjustment[] }> {
    const before = new Date(this.#clock.now().getTime() - olderThanMinutes * 60_000).toISOString();
    const rows = await this.#repository.pendingPayments(before);
    const claims = await this.#repository.pendingAdjustments(before);
    const adjustments = claims.map((r) => ({
      adjustmentId: r.id,
      kind: r.kind,
      paymentGuid: r.payment_id,
      originalTransactionId: r.transaction_id,
      partnerId: r.partner_id,
      partnerName: r.partner_name,
      amountCents: Number(r.amount_cents),
      currency: r.currency,
      requestedAt: new Date(r.requested_at),
    }));
    const pending = rows.map((r) => ({
      paymentGuid: r.id,
      partnerId: r.partner_id,
      partnerName: r.partner_name,
      processorName: r.processor_name,
      adapter: r.adapter,
      method: r.method,
      amountCents: Number(r.total_amount_cents),
      currency: r.currency,
      tranId: r.tran_id,
      recurringProfileId: r.recurring_profile_id,
      billDate: r.bill_date,
      payLinkRef: r.pay_link_id ? payLinkRef(r.pay_link_id) : null,
      createdAt: new Date(r.created_at),
    }));
    return { payments: pending, adjustments };
  }

  /**
   * Records the processor's answer for a pending payment (by its PaymentGuid), or for a refund or
   * void in flight (by its id), as the request would have had it.
   */
  async resolve(id: string, outcome: ProcessorOutcome, options: { force?: boolean } = {}): Promise<Resolution> {
    if (!GUID.test(id)) throw new OperatorInputError(`"${id}" is not a PaymentGuid nor the id of a refund or void`);
    checkOutcome(outcome);
    // Younger ones may still be waiting for their answer, unless the operator knows better.
    // --force: any age. The far end of time PostgreSQL reads as a timestamp (the largest JS date,
    // year 275760, is out of its range: every forced payment resolution failed).
    const startedBefore = options.force ? FOREVER : new Date(this.#clock.now().getTime() - UNKNOWN_AFTER_MINUTES * 60_000);
    if (await this.#repository.isPayment(id)) return { what: 'payment', paymentGuid: id, ...(await this.#resolvePayment(id, outcome, startedBefore)) };
    if (outcome.kind === 'voided') throw new OperatorInputError('--voided is for a payment, not for a refund or void');
    const done = await this.#refundsVoids.resolveClaim(id, outcome, startedBefore).catch((err: unknown) => {
      throw err instanceof NotFoundError ? new NotFoundError(`No payment, refund or void ${id}.`) : err;
    });
    return { what: done.kind, paymentGuid: done.paymentGuid, paymentResult: done.paymentResult, processStatus: done.processStatus };
  }

  async #resolvePayment(
    paymentGuid: string,
    outcome: ProcessorOutcome,
    startedBefore: Date,
  ): Promise<{ paymentResult: number; processStatus: number; payLink?: PayLinkAfterResolution }> {
    const answer = completion(outcome);
    let updated: { successful: boolean; pay_link_completed: boolean; pay_link_status_before: string | null }[];
    try {
      updated = await this.#repository.resolve(paymentGuid, answer, this.#clock.now().toISOString(), startedBefore.toISOString());
    } catch (err) {
      if (err instanceof ConflictError) throw new OperatorInputError(err.message);
      throw err;
    }
    if (updated.length === 0) {
      const result = await this.#repository.paymentResult(paymentGuid);
      if (result === PaymentResult.Pending || result === PaymentResult.Processing) throw tooYoung('payment', paymentGuid);
      throw new OperatorInputError(`payment ${paymentGuid} is not pending (PaymentResult ${result}): its outcome is already recorded`);
    }
    const [done] = updated;
    // The statement's own reads see the link as it was before it (status_before).
    let payLink: PayLinkAfterResolution | undefined;
    if (done!.pay_link_status_before === null) payLink = undefined;
    else if (done!.pay_link_completed) payLink = 'completed';
    else if (done!.pay_link_status_before !== 'active') payLink = done!.successful ? 'charged on an inactive link' : 'not active';
    else payLink = 'open';
    return { paymentResult: answer.paymentResult, processStatus: answer.processStatus, ...(payLink ? { payLink } : {}) };
  }
}

function completion(outcome: ProcessorOutcome) {
  switch (outcome.kind) {
    case 'approved':
      return {
        transactionId: outcome.transactionId,
        authCode: outcome.authCode ?? null,
        responseCode: ResponseCode.Approved,
        message: 'Approved',
        processorMessage: `Approved (${BY_OPERATOR})`,
        successful: true,
        paymentResult: PaymentResult.Successful,
        processStatus: ProcessStatus.Authorized,
      };
    case 'declined':
      return {
        transactionId: null,
        authCode: null,
        responseCode: ResponseCode.Declined,
        message: 'Declined',
        processorMessage: `Declined (${BY_OPERATOR})`,
        successful: false,
        paymentResult: PaymentResult.Failed,
        processStatus: ProcessStatus.Rejected,
      };
    case 'voided':
      return {
        transactionId: outcome.transactionId ?? null,
        authCode: null,
        responseCode: ResponseCode.Approved,
        message: 'Approved, then voided: the approval could not be recorded at the time, so the sale was taken back.',
        processorMessage: `Voided (${BY_OPERATOR})`,
        successful: false,
        paymentResult: PaymentResult.Cancelled,
        processStatus: ProcessStatus.Cancelled,
      };
    case 'not-processed':
      return {
        transactionId: null,
        authCode: null,
        responseCode: ResponseCode.GeneralError,
        message: 'Processing error: the processor has no record of this payment. The payment was not processed.',
        processorMessage: `No such sale (${BY_OPERATOR})`,
        successful: false,
        paymentResult: PaymentResult.Failed,
        processStatus: ProcessStatus.NotProcessed,
      };
  }
}
