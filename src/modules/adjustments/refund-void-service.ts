import type { FeeBreakdown } from '../../domain/fees.ts';
import { formatCents, parseAmount } from '../../domain/money.ts';
import type { AuthenticatedPartner } from '../../domain/partner.ts';
import { ResponseCode } from '../../domain/payment-status.ts';
import { type AdjustmentKind, type PaymentState, decide, feeTreatment, rail, stateAfter } from '../../domain/refund-void-rules.ts';
import { Rule, type RuleViolation } from '../../domain/rules.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Tx } from '../../platform/database/database.ts';
import { NotFoundError, OperatorInputError, RecordUnknownError, ValidationError, surelyNotApplied } from '../../platform/errors.ts';
import type { Ids } from '../../platform/ids.ts';
import type { Logger } from '../../platform/logging.ts';
import type { PendingWrites } from '../../platform/pending-writes.ts';
import { type FollowUpRequest, type FollowUpResult, ProcessorNotReachedError } from '../../processors/processor.ts';
import type { ProcessorRegistry } from '../../processors/registry.ts';
import type { ProcessorService } from '../partners/processor-service.ts';
import type { TokenService } from '../vault/token-service.ts';
import type { Payment } from '../payments/payment-record.ts';
import { BY_OPERATOR, type ProcessorOutcome, tooYoung } from '../payments/processor-outcome.ts';
import type { Adjustment, AdjustmentRepository } from './adjustment-repository.ts';
import { type AdjustmentInput, type AdjustmentOutcome, type AdjustmentRequestMeta, adjustmentViolations, blank } from './adjustment-request.ts';

export { EXTERNAL_ID_MAX_LENGTH, REASON_MAX_LENGTH, type AdjustmentInput, type AdjustmentOutcome, type AdjustmentRequestMeta } from './adjustment-request.ts';

export type { Adjustment };

type HeldClaim = { refused: false; payment: Payment; adjustmentId: string; rail: 'card' | 'ach'; adapter: string; lines: FeeBreakdown[] };
type Claim = { refused: true; outcome: AdjustmentOutcome } | HeldClaim;

/**
 * Voids and refunds. A request goes in three steps so that two requests for one payment
 * cannot both go through, in one process or many, without holding a database transaction open
 * while the processor answers:
 *
 * 1. claim: in one transaction, lock the payment row (`SELECT ... FOR UPDATE`), decide by the
 *    rules (domain/refund-void-rules.ts), and record the request: refused, or pending with the
 *    payment's `pending_adjustment_id` set. A second request waits for the lock and then sees the
 *    claim (or the finished void/refund) and is refused. A unique index allows one pending or
 *    approved refund/void per payment, as a second guard.
 * 2. ask the processor, outside any transaction.
 * 3. complete: record the answer and, when approved, the payment's new state; release the claim.
 */
export class RefundVoidService {
  readonly #repository: AdjustmentRepository;
  readonly #clock: Clock;
  readonly #ids: Ids;
  readonly #log: Logger;
  readonly #processors: ProcessorService;
  readonly #adapters: ProcessorRegistry;
  readonly #pendingWrites: PendingWrites;
  readonly #tokens: Pick<TokenService, 'find' | 'reveal'>;

  constructor(deps: {
    repository: AdjustmentRepository;
    clock: Clock;
    ids: Ids;
    log: Logger;
    processors: ProcessorService;
    adapters: ProcessorRegistry;
    pendingWrites: PendingWrites;
    tokens: Pick<TokenService, 'find' | 'reveal'>;
  }) {
    this.#tokens = deps.tokens;
    this.#repository = deps.repository;
    this.#clock = deps.clock;
    this.#ids = deps.ids;
    this.#log = deps.log;
    this.#processors = deps.processors;
    this.#adapters = deps.adapters;
    this.#pendingWrites = deps.pendingWrites;
  }

  /** Every rule of the request that needs no database, at once (one violation per field). */
  validate(partner: AuthenticatedPartner, input: AdjustmentInput): RuleViolation[] {
    return adjustmentViolations(partner, input);
  }

  voidPayment(partner: AuthenticatedPartner, input: AdjustmentInput, meta: AdjustmentRequestMeta): Promise<AdjustmentOutcome> {
    return this.#adjust('void', partner, input, meta);
  }

  refund(partner: AuthenticatedPartner, input: AdjustmentInput, meta: AdjustmentRequestMeta): Promise<AdjustmentOutcome> {
    return this.#adjust('refund', partner, input, meta);
  }

  /** The refunds and voids recorded against a payment of the partner, oldest first. */
  history(partnerId: string, paymentGuid: string): Promise<Adjustment[]> {
    return this.#repository.history(partnerId, paymentGuid.toLowerCase());
  }

  /**
   * A refund or void left claimed by a stop between the processor call and the record: records
   * what the processor's records say, as the request would have (an operator's reconciliation,
   * `payments pending resolve`). Only a claim still held is completed.
   */
  async resolveClaim(
    adjustmentId: string,
    outcome: Exclude<ProcessorOutcome, { kind: 'voided' }>,
    requestedBefore: Date,
  ): Promise<AdjustmentOutcome & { kind: AdjustmentKind }> {
    // One transaction, rows locked from the check to the record: two resolutions cannot both complete it.
    return this.#repository.transaction(async (tx) => {
      // The payment's row first, then the refund's or void's: the order the completion takes them in.
      const found = await this.#repository.find(tx, adjustmentId);
      if (!found) throw new NotFoundError(`No refund or void ${adjustmentId}.`);
      const payment = await this.#repository.lockPaymentById(tx, found.paymentId);
      const adjustment = (await this.#repository.lock(tx, adjustmentId))!;
      if (adjustment.status !== 'pending' || payment?.pendingAdjustmentId !== adjustmentId) {
        throw new OperatorInputError(`${adjustment.kind} ${adjustmentId} is not pending (${adjustment.status}): its outcome is already recorded`);
      }
      if (adjustment.requestedAt > requestedBefore) throw tooYoung(adjustment.kind, adjustmentId);
      const kind = adjustment.kind as AdjustmentKind;
      const claim = await this.#heldClaim(tx, payment, adjustmentId);
      if (outcome.kind === 'not-processed') {
        const message = `Processing error: the processor has no record of this ${kind}. It was not processed and nothing was changed; try again.`;
        return { kind, ...(await this.#complete(kind, claim, undefined, { unansweredMessage: message, tx })) };
      }
      const answer: FollowUpResult =
        outcome.kind === 'approved'
          ? { approved: true, responseCode: ResponseCode.Approved, message: kind === 'void' ? 'Void approved' : 'Refund approved', processorMessage: `Approved (${BY_OPERATOR})`, transactionId: outcome.transactionId }
          : { approved: false, responseCode: ResponseCode.Declined, message: 'Declined', processorMessage: `Declined (${BY_OPERATOR})`, transactionId: '' };
      return { kind, ...(await this.#complete(kind, claim, answer, { tx })) };
    });
  }

  async #adjust(kind: AdjustmentKind, partner: AuthenticatedPartner, input: AdjustmentInput, meta: AdjustmentRequestMeta): Promise<AdjustmentOutcome> {
    const violations = this.validate(partner, input);
    if (violations.length > 0) throw new ValidationError(violations);
    const processorId = await this.#namedProcessor(partner, input.processorGuid);
    // Made here, not in the claim's transaction: a claim whose commit is lost must still be released.
    const adjustmentId = this.#ids.uuid();
    let claim: Claim;
    try {
      claim = await this.#claim(kind, partner, input, meta, processorId, adjustmentId);
    } catch (err) {
      if (surelyNotApplied(err)) throw err;
      // The claim may have been committed, and the processor is not asked: it is released once the database takes it.
      this.#pendingWrites.keep(adjustmentId, `${kind} never sent to the processor`, () => this.#releaseUnsent(adjustmentId));
      throw new RecordUnknownError(adjustmentId, err);
    }
    if (claim.refused) return claim.outcome;

    const { payment, rail } = claim;
    let answer: FollowUpResult | undefined;
    try {
      const adapter = this.#adapters.forProcessor({ id: payment.processorId, adapter: claim.adapter });
      const request = {
        reference: adjustmentId,
        originalTransactionId: payment.transactionId ?? '',
        amountCents: payment.totalAmountCents,
        kind: rail,
        ...(kind === 'refund' && rail === 'ach' && adapter.capabilities.achRefundNeedsAccount ? { account: await this.#accountOf(payment) } : {}),
      };
      answer = kind === 'void' ? await adapter.void(request) : await adapter.refund(request);
    } catch (err) {
      if (!(err instanceof ProcessorNotReachedError)) {
        this.#log.error({ errorName: (err as Error)?.name, paymentGuid: payment.id, adjustmentId, kind }, 'processor call failed: outcome unknown, held');
        return this.#heldForOperator(kind, claim).catch(() => held(claim, HELD_UNANSWERED(kind)));
      }
      this.#log.error({ errorName: (err as Error)?.name, paymentGuid: payment.id, adjustmentId, kind }, 'processor call failed');
    }
    try {
      return await this.#complete(kind, claim, answer);
    } catch (err) {
      this.#pendingWrites.keep(adjustmentId, `${kind} outcome`, () => this.#complete(kind, claim, answer));
      // Not reached: nothing happened at the processor; the caller may try again once the claim is released.
      if (answer === undefined) throw new RecordUnknownError(adjustmentId, err);
      this.#log.error({ errorName: (err as Error)?.name, paymentGuid: payment.id, adjustmentId, kind, approved: answer.approved }, `the processor answered the ${kind}, but its outcome could not be written: it is written again until the database takes it`);
      return held(claim, HELD_UNRECORDED(kind));
    }
  }

  /**
   * The processor may have acted: the claim stays (every other refund or void of the payment is
   * refused as in progress) until its outcome is confirmed (`payments pending resolve`). If it
   * already has been, that record is the answer.
   */
  async #heldForOperator(kind: AdjustmentKind, claim: HeldClaim): Promise<AdjustmentOutcome> {
    return this.#repository.transaction(async (tx) => {
      const held = await this.#repository.paymentClaimedBy(tx, claim.payment.id, claim.adjustmentId);
      if (!held) return this.#recordedMeanwhile(tx, kind, claim, undefined);
      return outcomeOf(held, claim.adjustmentId, {
        successful: false,
        message: HELD_UNANSWERED(kind),
        processorMessage: null,
        transactionId: null,
        responseCode: ResponseCode.GeneralError,
      });
    });
  }

  /** A claim whose commit was lost before its processor was asked: released as not processed, if it was committed. */
  async #releaseUnsent(adjustmentId: string): Promise<void> {
    await this.#repository.transaction(async (tx) => {
      const found = await this.#repository.find(tx, adjustmentId);
      if (!found || found.status !== 'pending') return;
      const payment = await this.#repository.lockPaymentById(tx, found.paymentId);
      if (payment?.pendingAdjustmentId !== adjustmentId) return;
      const kind = found.kind as AdjustmentKind;
      const claim = await this.#heldClaim(tx, payment, adjustmentId);
      const message = `Processing error: the ${kind} could not be recorded, so it was not sent to the processor. It was not processed and nothing was changed; try again.`;
      await this.#complete(kind, claim, undefined, { unansweredMessage: message, tx });
    });
  }

  /**
   * The bank account an ACH refund goes back to, for a processor that needs it: from the
   * payment's stored token, when it has one (without it the adapter sends nothing).
   */
  async #accountOf(payment: Payment): Promise<FollowUpRequest['account']> {
    const token = payment.tokenId ? await this.#tokens.find(payment.partnerId, payment.tokenId) : undefined;
    if (!token || token.kind !== 'bank') return undefined;
    return {
      routingNumber: token.routingNumber ?? '',
      accountNumber: await this.#tokens.reveal(token),
      accountType: token.accountType ?? 1,
      checkType: token.checkType ?? 1,
      country: token.bankCountry ?? 'US',
      nameOnAccount: token.nameOnAccount ?? payment.nameOnAccount ?? '',
    };
  }

  /** The processor the request names, which must be the partner's (400 otherwise). */
  async #namedProcessor(partner: AuthenticatedPartner, processorGuid: string | undefined): Promise<string | undefined> {
    if (blank(processorGuid)) return undefined;
    try {
      return (await this.#processors.resolve(partner, { processorId: processorGuid!.trim() })).id;
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      throw new ValidationError([{ code: Rule.UnknownReference, field: 'processorGuid', message: "{processorGuid} is not one of the partner's processors." }]);
    }
  }

  async #claim(kind: AdjustmentKind, partner: AuthenticatedPartner, input: AdjustmentInput, meta: AdjustmentRequestMeta, processorId: string | undefined, adjustmentId: string): Promise<Claim> {
    return this.#repository.transaction(async (tx) => {
      const payment = await this.#repository.lockPayment(tx, partner.id, {
        paymentGuid: blank(input.paymentGuid) ? undefined : input.paymentGuid!.trim().toLowerCase(),
        transactionId: blank(input.paymentExternalId) ? undefined : input.paymentExternalId!.trim(),
      });
      // Another partner's payment is answered exactly like a payment that does not exist.
      if (!payment) {
        const both = !blank(input.paymentGuid) && !blank(input.paymentExternalId);
        if (both) throw new NotFoundError('No payment has both this PaymentGuid and this PaymentExternalId.');
        // A partner may read PaymentExternalId as its own reference (its TranId).
        throw new NotFoundError(blank(input.paymentGuid) ? "No such payment: PaymentExternalId is the payment's TransactionId, from the payment response." : 'No such payment.');
      }
      if (processorId && payment.processorId !== processorId) {
        throw new ValidationError([{ code: Rule.ProcessorNotOfPayment, field: 'processorGuid', message: "{processorGuid} is not the processor of this payment." }]);
      }
      if (input.amount !== undefined && parseAmount(input.amount) !== payment.totalAmountCents) {
        const whole = formatCents(payment.totalAmountCents);
        throw new ValidationError([
          { code: Rule.InvalidValue, field: 'amount', message: `{amount} must be the payment's whole amount, ${whole}, or be left out: a ${kind} is for the whole payment (there are no partial refunds).` },
        ]);
      }

      const state: PaymentState = {
        paymentResult: payment.paymentResult,
        processStatus: payment.processStatus,
        method: payment.method,
        adjustmentInFlight: payment.pendingAdjustmentId !== null,
        settling: payment.settlementBatchId !== null,
      };
      const decision = decide(kind, state);
      const now = this.#clock.now();
      const record = {
        id: adjustmentId,
        paymentId: payment.id,
        partnerId: partner.id,
        kind,
        reason: input.reason!.trim(),
        source: meta.source,
        requestId: meta.requestId ?? null,
        requestedAt: now,
        amountCents: payment.totalAmountCents,
        currency: payment.currency,
        paymentResultBefore: payment.paymentResult,
        processStatusBefore: payment.processStatus,
      };
      if (!decision.allowed) {
        await this.#repository.insert(tx, {
          ...record,
          status: 'refused',
          processedAt: now,
          responseCode: ResponseCode.NotProcessed,
          message: decision.message,
          paymentResultAfter: payment.paymentResult,
          processStatusAfter: payment.processStatus,
        });
        return { refused: true, outcome: outcomeOf(payment, adjustmentId, { successful: false, message: decision.message, processorMessage: null, transactionId: null, responseCode: ResponseCode.NotProcessed }) };
      }
      await this.#repository.insert(tx, { ...record, status: 'pending' });
      await this.#repository.claimPayment(tx, payment.id, adjustmentId);
      return this.#heldClaim(tx, payment, adjustmentId);
    });
  }

  /** What completing a claim needs beyond the payment: its processor's adapter and its lines' fees. */
  async #heldClaim(tx: Tx, payment: Payment, adjustmentId: string): Promise<HeldClaim> {
    const { adapter, lines } = await this.#repository.claimDetails(tx, payment);
    return { refused: false, payment, adjustmentId, rail: rail(payment), adapter, lines };
  }

  /** Records the processor's answer; on approval moves the payment; always releases the claim. */
  async #complete(
    kind: AdjustmentKind,
    claim: HeldClaim,
    answer: FollowUpResult | undefined,
    options: { unansweredMessage?: string; tx?: Tx } = {},
  ): Promise<AdjustmentOutcome> {
    const { payment, adjustmentId, rail } = claim;
    const now = this.#clock.now();
    const approved = answer?.approved === true;
    const unansweredMessage = options.unansweredMessage ?? `Processing error: the processor could not be reached. The ${kind} was not processed and nothing was changed; try again.`;
    // Inside the caller's transaction when there is one (a savepoint), else a transaction of its own.
    const run = <T>(fn: (tx: Tx) => Promise<T>) => (options.tx ? options.tx.transaction(fn) : this.#repository.transaction(fn));
    return run(async (tx) => {
      if (approved) {
        const after = stateAfter(kind, rail);
        const moved = await this.#repository.moveAndRelease(tx, payment.id, adjustmentId, after);
        if (!moved) return this.#recordedMeanwhile(tx, kind, claim, answer);
        await this.#repository.complete(tx, adjustmentId, {
          status: 'approved',
          processedAt: now,
          transactionId: answer.transactionId,
          responseCode: answer.responseCode,
          message: answer.message,
          processorMessage: answer.processorMessage,
          paymentResultAfter: after.paymentResult,
          processStatusAfter: after.processStatus,
          feeTreatment: { ...feeTreatment(kind, payment.totalAmountCents, claim.lines) },
          completedAt: after.completesNow ? now : null,
        });
        return outcomeOf(moved, adjustmentId, {
          successful: true,
          message: answer.message,
          processorMessage: answer.processorMessage,
          transactionId: answer.transactionId,
          responseCode: answer.responseCode,
        });
      }
      const released = await this.#repository.release(tx, payment.id, adjustmentId);
      if (!released) return this.#recordedMeanwhile(tx, kind, claim, answer);
      const unreachable = answer === undefined;
      const message = unreachable ? unansweredMessage : answer.message;
      const responseCode = unreachable ? ResponseCode.GeneralError : answer.responseCode;
      await this.#repository.complete(tx, adjustmentId, {
        status: unreachable ? 'failed' : 'declined',
        processedAt: now,
        transactionId: answer?.transactionId || null,
        responseCode,
        message,
        processorMessage: answer?.processorMessage ?? null,
        paymentResultAfter: payment.paymentResult,
        processStatusAfter: payment.processStatus,
      });
      return outcomeOf(released, adjustmentId, {
        successful: false,
        message,
        processorMessage: answer?.processorMessage ?? null,
        transactionId: answer?.transactionId || null,
        responseCode,
      });
    });
  }

  /**
   * The processor answered after an operator had already recorded this refund's or void's outcome
   * (`payments pending resolve`): the record stands and is what the caller gets. When the two
   * disagree about whether it went through, the error log says so for the operator.
   */
  async #recordedMeanwhile(tx: Tx, kind: AdjustmentKind, claim: HeldClaim, answer: FollowUpResult | undefined): Promise<AdjustmentOutcome> {
    const recorded = (await this.#repository.find(tx, claim.adjustmentId))!;
    const payment = (await this.#repository.payment(tx, claim.payment.id))!;
    const wentThrough = recorded.status === 'approved';
    if (wentThrough !== (answer?.approved === true)) {
      this.#log.error(
        { paymentGuid: claim.payment.id, adjustmentId: claim.adjustmentId, kind, recorded: recorded.status, processorApproved: answer?.approved === true },
        'the processor answered after an operator recorded this refund or void, and the two disagree: reconcile it with the processor',
      );
    }
    return outcomeOf(payment, claim.adjustmentId, {
      successful: wentThrough,
      message: recorded.message ?? '',
      processorMessage: recorded.processorMessage,
      transactionId: recorded.transactionId,
      responseCode: recorded.responseCode ?? ResponseCode.GeneralError,
    });
  }
}

const HELD_UNANSWERED = (kind: AdjustmentKind) =>
  `Processing error: the processor's answer was not received, so whether the ${kind} went through is not known. Do not send it again: it is held until it is confirmed.`;
const HELD_UNRECORDED = (kind: AdjustmentKind) =>
  `Processing error: the processor's answer could not be recorded yet, so the ${kind}'s outcome is being confirmed. Do not send it again: it is held until it is confirmed.`;

/** A request whose outcome is not known or not yet recorded, answered from what is known of its payment. */
function held(claim: HeldClaim, message: string): AdjustmentOutcome {
  return outcomeOf(claim.payment, claim.adjustmentId, { successful: false, message, processorMessage: null, transactionId: null, responseCode: ResponseCode.GeneralError });
}

function outcomeOf(
  payment: Payment,
  adjustmentId: string,
  o: Pick<AdjustmentOutcome, 'successful' | 'message' | 'processorMessage' | 'transactionId' | 'responseCode'>,
): AdjustmentOutcome {
  return {
    ...o,
    originalTransactionId: payment.transactionId,
    paymentGuid: payment.id,
    paymentId: payment.paymentId,
    paymentResult: payment.paymentResult,
    processStatus: payment.processStatus,
    adjustmentId,
  };
}
