import type { FeeBreakdown } from '../../domain/fees.ts';
import { MAX_CENTS } from '../../domain/money.ts';
import type { AuthenticatedPartner } from '../../domain/partner.ts';
import { Rule } from '../../domain/rules.ts';
import type { Clock } from '../../platform/clock.ts';
import { DatabaseUnavailableError, NotChargedError, NotFoundError, OutcomeUnknownError, RecordUnknownError, ValidationError, VaultError, surelyNotApplied } from '../../platform/errors.ts';
import type { Ids } from '../../platform/ids.ts';
import type { Logger } from '../../platform/logging.ts';
import type { PendingWrites } from '../../platform/pending-writes.ts';
import { type ProcessorAdapter, ProcessorNotReachedError, type SaleResult } from '../../processors/processor.ts';
import type { ProcessorRegistry } from '../../processors/registry.ts';
import type { FeeService, ResolvedFeeQuote } from '../fees/fee-service.ts';
import type { ReferenceService } from '../partners/reference-service.ts';
import type { TokenService } from '../vault/token-service.ts';
import { refusedDuplicate } from './duplicate-tran-id.ts';
import { recordApprovalWithToken } from './approval-token.ts';
import { type Instrument, bad, saleRequest, sentInstrument, tokenInstrument } from './instrument.ts';
import { type PaymentReferences, paymentDraft, tokenColumns } from './payment-draft.ts';
import type { AchPaymentInput, CardPaymentInput, PaymentInputCommon } from './payment-input.ts';
import type { PaymentChanges, PaymentDraft, PaymentRecord } from './payment-record.ts';
import type { LivePayment, PaymentRepository } from './payment-repository.ts';
import { type Validated, type ValidatedMethod, validateAchPayment, validateCardPayment } from './payment-validation.ts';
import { HELD_WHILE_UNRECORDED, type SaleAnswer, UNKNOWN_OUTCOME_MESSAGE, answerChanges, notSentChanges } from './sale-outcome.ts';

export { UNKNOWN_OUTCOME_MESSAGE };

/** A payment recorded as Pending, ready for the processor; or the record of a refused duplicate. */
type Recorded =
  | { draft: PaymentDraft; paymentId: number; quote: ResolvedFeeQuote; instrument: Instrument; refs: PaymentReferences }
  | { duplicate: PaymentRecord };

/** The processor deadline assumed when none is set (PROCESSOR_TIMEOUT's default). */
const DEFAULT_PROCESSOR_DEADLINE_MS = 20_000;

/** Logged when an approval could not be written: the charge stands and is recorded once the database takes it. */
const APPROVAL_WRITE_FAILED =
  'payment approved, but the database failed while its approval was written: the charge stands; the approval is written again until the database takes it (if this process stops first, resolve it with payments pending resolve)';

/** What a caller is told when the processor was asked and even the held answer could not be made. */
const OUTCOME_UNKNOWN = (guid: string) =>
  `Payment ${guid} was sent to the processor, but its outcome could not be recorded or read back: do not pay again; it is being confirmed.`;

/**
 * Card, ACH and wallet payments: validation, references, fees, the duplicate check, the
 * processor and the record, for every surface (API, pay page, recurring billing).
 *
 * A payment is written before the processor is asked (Pending, with all its lines, in one
 * statement) and completed after (result, codes, token, in one transaction). The pending row is
 * also the duplicate check (duplicate-tran-id.ts).
 *
 * Once the processor has been asked, a call never fails with "try again": the answer is the
 * payment as recorded, or, while its outcome cannot be recorded, held (PaymentResult 2, do not
 * pay again), the write being made again until the database takes it (PendingWrites). Before the
 * processor is asked it fails with the error of what failed; a Pending row that may have been
 * written is then a RecordUnknownError, and is recorded as not processed once the database
 * takes it.
 */
export class PaymentService {
  readonly #repository: PaymentRepository;
  readonly #clock: Clock;
  readonly #ids: Ids;
  readonly #log: Logger;
  readonly #fees: FeeService;
  readonly #adapters: ProcessorRegistry;
  readonly #tokens: TokenService;
  readonly #references: ReferenceService;
  readonly #pendingWrites: PendingWrites;

  constructor(deps: {
    repository: PaymentRepository;
    clock: Clock;
    ids: Ids;
    log: Logger;
    fees: FeeService;
    adapters: ProcessorRegistry;
    tokens: TokenService;
    references: ReferenceService;
    pendingWrites: PendingWrites;
  }) {
    this.#repository = deps.repository;
    this.#clock = deps.clock;
    this.#ids = deps.ids;
    this.#log = deps.log;
    this.#fees = deps.fees;
    this.#adapters = deps.adapters;
    this.#tokens = deps.tokens;
    this.#references = deps.references;
    this.#pendingWrites = deps.pendingWrites;
  }

  /**
   * Every rule of the card request, without processing: for callers that report all problems at
   * once. Hand the result to payCard with the same input, so the rules run once.
   */
  validateCard(input: CardPaymentInput): Validated {
    return validateCardPayment(input, this.#clock.now());
  }

  validateAch(input: AchPaymentInput): Validated {
    return validateAchPayment(input);
  }

  /** `validated`: validateCard's result for this very input, if the caller has it. */
  async payCard(partner: AuthenticatedPartner, input: CardPaymentInput, validated = this.validateCard(input)): Promise<PaymentRecord> {
    if (validated.violations.length > 0 || !validated.method) throw new ValidationError(validated.violations);
    return this.#pay(partner, input, validated.method, 'card');
  }

  async payAch(partner: AuthenticatedPartner, input: AchPaymentInput, validated = this.validateAch(input)): Promise<PaymentRecord> {
    if (validated.violations.length > 0 || !validated.method) throw new ValidationError(validated.violations);
    return this.#pay(partner, input, validated.method, 'ach');
  }

  /** A payment of the partner by PaymentGuid. */
  async get(partnerId: string, paymentGuid: string): Promise<PaymentRecord> {
    const record = await this.#repository.get(partnerId, paymentGuid);
    if (!record) throw new NotFoundError('No such payment.');
    return record;
  }

  async #pay(partner: AuthenticatedPartner, input: PaymentInputCommon, method: ValidatedMethod, requested: 'card' | 'ach'): Promise<PaymentRecord> {
    let recorded: Recorded;
    try {
      recorded = await this.#record(partner, input, method, requested);
    } catch (err) {
      // Before the processor: an error of the vocabulary as it is (a Pending row that may exist
      // is a RecordUnknownError), anything else as NotChargedError.
      throw chargedNothing(err) || err instanceof RecordUnknownError ? err : new NotChargedError(err);
    }
    if ('duplicate' in recorded) return recorded.duplicate;
    const { draft, paymentId, quote, instrument, refs } = recorded;

    const adapter = this.#adapters.forProcessor(refs.processor);
    let sale: SaleAnswer;
    try {
      sale = await adapter.sale(saleRequest(draft, instrument, input));
    } catch (err) {
      // The adapter's message is not logged: a bank library may quote the card number in it.
      sale = err instanceof ProcessorNotReachedError ? 'not-reached' : 'unknown';
      const what = sale === 'unknown' ? 'processor call failed: outcome unknown, the payment is held' : 'processor call failed';
      this.#log.error({ errorName: (err as Error)?.name, paymentGuid: draft.id }, what);
    }
    try {
      return await this.#complete(partner, draft, paymentId, quote.lines, instrument, input, sale, adapter);
    } catch (err) {
      if (err instanceof RecordUnknownError || err instanceof OutcomeUnknownError) throw err;
      // The processor was asked: whatever failed, the caller must not pay again.
      this.#log.error({ err, paymentGuid: draft.id }, 'payment outcome could not be recorded or read back');
      throw new OutcomeUnknownError(draft.id, OUTCOME_UNKNOWN(draft.id), err);
    }
  }

  /**
   * Everything before the processor is asked: references, the instrument (a stored token is
   * opened), fees, and the Pending row with its lines (or the refused duplicate's record).
   */
  async #record(partner: AuthenticatedPartner, input: PaymentInputCommon, method: ValidatedMethod, requested: 'card' | 'ach'): Promise<Recorded> {
    if (input.lines.length === 0) throw bad(Rule.Required, 'lines', 'must have at least one line');
    const refs = await this.#referencesOf(partner, input);
    const instrument = method.kind === 'token' ? await this.#tokenInstrument(partner, method, requested) : sentInstrument(method);
    const paymentMethodTypeId = instrument.paymentMethodTypeId;
    if (!refs.processor.paymentMethodTypes.includes(paymentMethodTypeId)) {
      const what = instrument.kind === 'card' ? instrument.cardType : instrument.kind === 'bank' ? 'ACH' : `wallet (${paymentMethodTypeId})`;
      const field = input.processorGuid ? 'processorGuid' : instrument.kind === 'card' ? 'cardNum' : instrument.kind === 'bank' ? 'checkAccountNumber' : 'paymentMethodTypeId';
      throw bad(Rule.PaymentMethodNotAccepted, field, `cannot be used: the processor does not accept ${what} payments`);
    }
    const quote = await this.#quote(partner, input, paymentMethodTypeId);
    const totalCents = quote.totalPaymentCents + (input.shippingFeeCents ?? 0) + (input.surchargeCents ?? 0);
    if (totalCents <= 0) throw bad(Rule.OutOfRange, 'lines', 'must add up to an amount greater than 0');
    // Each line is within the largest amount; their sum (with ShippingFee and Surcharge) must be too.
    if (totalCents > MAX_CENTS) throw bad(Rule.OutOfRange, 'lines', 'must add up to at most 9999999999.99 (with ShippingFee and Surcharge)');

    const draft = paymentDraft(this.#ids.uuid(), this.#clock.now(), partner, input, instrument, refs, totalCents, quote.lines);
    let inserted: Awaited<ReturnType<PaymentRepository['insert']>>;
    try {
      inserted = await this.#repository.insert(draft, quote.lines, input.lines);
    } catch (err) {
      if (surelyNotApplied(err)) throw err;
      // The Pending row may have been written, and it will never be sent to the processor.
      this.#pendingWrites.keep(draft.id, 'payment never sent to the processor', () => this.#repository.complete(draft.id, notSentChanges(this.#clock.now())));
      throw new RecordUnknownError(draft.id, err);
    }
    if ('refused' in inserted) return { duplicate: await this.#recordDuplicate(draft, quote.lines, input.lines, inserted.live) };
    const { paymentId } = inserted;
    return { draft, paymentId, quote, instrument, refs };
  }

  /** The processor, integration source, organization and charity of the request: named ones must be the partner's. */
  async #referencesOf(partner: AuthenticatedPartner, input: PaymentInputCommon): Promise<PaymentReferences> {
    if (partner.kind === 'for-profit' && !input.processorGuid?.trim()) {
      throw bad(Rule.ProcessorRequired, 'processorGuid', 'is required for a for-profit partner');
    }
    const found = await this.#references.resolve(partner.id, {
      processorId: input.processorGuid,
      mkey: input.mKey,
      integrationSourceId: input.integrationSource,
      organizationId: input.organizationGuid,
      charityId: input.charityId,
    });
    const unknown = (field: string, what: string) => bad(Rule.UnknownReference, field, `is not one of the partner's ${what}`);
    if (!found.processor) {
      if (input.processorGuid?.trim()) throw unknown('processorGuid', 'processors');
      if (input.mKey?.trim()) throw unknown('mKey', 'processors');
      throw bad(Rule.ProcessorRequired, 'processorGuid', 'is required: the partner has no default processor');
    }
    if (found.named.integrationSource && !found.integrationSource) throw unknown('integrationSource', 'integration sources');
    if (found.named.organization && !found.organizationId) throw unknown('organizationGuid', 'organizations');
    if (found.named.charity && !found.charityId) throw bad(Rule.UnknownReference, 'charityId', 'is not a charity of the directory');
    return {
      processor: found.processor,
      integrationSourceId: found.integrationSource?.id ?? null,
      duplicateCheck: found.integrationSource?.duplicateCheck ?? false,
      organizationId: found.organizationId,
      charityId: found.charityId,
    };
  }

  /** A stored token of the partner, looked up and opened. */
  async #tokenInstrument(partner: AuthenticatedPartner, method: Extract<ValidatedMethod, { kind: 'token' }>, requested: 'card' | 'ach'): Promise<Instrument> {
    const token = await this.#tokens.find(partner.id, method.ref);
    if (!token) throw bad(Rule.UnknownReference, 'tokenRef', "is not one of the partner's active tokens");
    return tokenInstrument(token, () => this.#tokens.reveal(token), method, requested, this.#clock.now());
  }

  async #quote(partner: AuthenticatedPartner, input: PaymentInputCommon, paymentMethodTypeId: number): Promise<ResolvedFeeQuote> {
    try {
      return await this.#fees.quote(partner, { lines: input.lines, paymentMethodTypeId });
    } catch (err) {
      // A payment is a POST that is either taken (201) or refused (400): a line whose group has
      // no schedule in the contract cannot be taken.
      if (err instanceof NotFoundError) throw new ValidationError([{ code: Rule.NoFeeSchedule, field: 'lines', message: err.message }]);
      throw err;
    }
  }

  /** A refused duplicate is recorded too (duplicate-tran-id.ts): the attempt has a PaymentGuid. */
  async #recordDuplicate(draft: PaymentDraft, lines: FeeBreakdown[], inputs: PaymentInputCommon['lines'], live: LivePayment | undefined): Promise<PaymentRecord> {
    const refused = { ...draft, ...refusedDuplicate(draft, live, this.#clock.now(), this.#adapters.timeoutMs ?? DEFAULT_PROCESSOR_DEADLINE_MS) } as PaymentDraft;
    const written = await this.#repository.insert(refused, lines, inputs);
    // A Failed attempt is outside the unique indexes: it is always written.
    if (!('paymentId' in written)) throw new Error('a refused attempt was refused again');
    return { payment: this.#repository.writtenRow(refused, written.paymentId, {}), lines };
  }

  /**
   * Writes the processor's answer, and on approval stores the token asked for, in one
   * transaction. While the database cannot take the answer, the payment is answered held and the
   * answer is written again until it can.
   */
  async #complete(
    partner: AuthenticatedPartner,
    draft: PaymentDraft,
    paymentId: number,
    lines: FeeBreakdown[],
    instrument: Instrument,
    input: PaymentInputCommon,
    answer: SaleAnswer,
    adapter: ProcessorAdapter,
  ): Promise<PaymentRecord> {
    const sale = typeof answer === 'string' ? undefined : answer;
    const approved = sale?.approved === true;
    const update = answerChanges(answer, this.#clock.now());
    const existing = instrument.kind !== 'wallet' ? instrument.token : undefined;
    if (existing) Object.assign(update, tokenColumns(existing));
    let tokenRefusedBy: string | undefined;
    if (approved && input.tokenize === true && instrument.kind !== 'wallet' && !existing) {
      const together = await recordApprovalWithToken(this.#repository, this.#tokens, partner, draft.id, update, instrument, input);
      if (together.outcome === 'written') return { payment: this.#repository.writtenRow(draft, paymentId, together.changes), lines };
      if (together.outcome === 'not-pending') return this.#resolvedMeanwhile(partner, draft, sale, adapter, instrument);
      if (together.outcome === 'unclear') {
        // The commit may have happened: the answer and token may be recorded. The answer alone is
        // written again until the database takes it (a no-op if the commit happened).
        return this.#heldWhileUnrecorded(draft, paymentId, lines, update, approved, together.error);
      }
      tokenRefusedBy = together.errorName;
    }
    let completed: boolean;
    try {
      // The processor's answer is written on its own (with the token, above, when one was asked
      // for and could be stored): nothing after the sale may turn an approved charge into an error.
      completed = await this.#repository.complete(draft.id, update);
    } catch (err) {
      if (answer === 'not-reached') {
        // Nothing was charged: the caller may try again; the failure is recorded once the database takes it.
        this.#pendingWrites.keep(draft.id, 'payment not processed', () => this.#repository.complete(draft.id, update));
        throw new RecordUnknownError(draft.id, err);
      }
      return this.#heldWhileUnrecorded(draft, paymentId, lines, update, approved, err);
    }
    if (!completed) return this.#resolvedMeanwhile(partner, draft, sale, adapter, instrument);
    if (tokenRefusedBy) this.#log.warn({ errorName: tokenRefusedBy, paymentGuid: draft.id }, 'approved payment kept without the token it asked for');
    return { payment: this.#repository.writtenRow(draft, paymentId, update), lines };
  }

  /**
   * The processor acted but its answer could not be written: it is kept to be written again until
   * the database takes it (PendingWrites), and the payment is answered held, as for a processor
   * that did not answer: never "try again".
   */
  #heldWhileUnrecorded(draft: PaymentDraft, paymentId: number, lines: FeeBreakdown[], update: PaymentChanges, approved: boolean, err: unknown): PaymentRecord {
    this.#log.error({ errorName: (err as Error)?.name, paymentGuid: draft.id, transactionId: update.transactionId ?? null }, approved ? APPROVAL_WRITE_FAILED : 'the processor answered, but the answer could not be written: it is written again until the database takes it');
    this.#pendingWrites.keep(draft.id, approved ? 'payment approval' : 'payment outcome', () => this.#repository.complete(draft.id, update));
    return { payment: this.#repository.writtenRow(draft, paymentId, HELD_WHILE_UNRECORDED), lines };
  }

  /**
   * The processor answered after an operator had already recorded this payment's outcome
   * (`payments pending resolve`). The record stands and is what the caller gets. A charge the
   * record says did not happen is taken back; a record of a charge the processor declined is
   * logged for the operator to look at again.
   */
  async #resolvedMeanwhile(partner: AuthenticatedPartner, draft: PaymentDraft, sale: SaleResult | undefined, adapter: ProcessorAdapter, instrument: Instrument): Promise<PaymentRecord> {
    const recorded = await this.get(partner.id, draft.id);
    const charged = sale?.approved === true;
    if (charged && !recorded.payment.successful) {
      await this.#reverse(adapter, draft, sale, instrument);
    } else if (!charged && recorded.payment.successful) {
      this.#log.error({ paymentGuid: draft.id }, 'payment recorded as approved by an operator, but the processor answered without a charge: check it again');
    }
    return recorded;
  }

  /** Voids an approved sale that the recorded outcome says did not happen. */
  async #reverse(adapter: ProcessorAdapter, draft: PaymentDraft, sale: SaleResult, instrument: Instrument): Promise<void> {
    try {
      await adapter.void({ reference: `${draft.id}:reversal`, originalTransactionId: sale.transactionId, amountCents: draft.totalAmountCents, kind: instrument.kind === 'bank' ? 'ach' : 'card' });
      this.#log.error({ paymentGuid: draft.id, transactionId: sale.transactionId }, 'payment approved after its outcome was recorded as not charged; the sale was voided at the processor');
    } catch (err) {
      this.#log.error({ errorName: (err as Error)?.name, paymentGuid: draft.id, transactionId: sale.transactionId }, 'payment approved after its outcome was recorded as not charged, and the sale could not be voided: reconcile it with the processor');
    }
  }

}

/**
 * Whether an error of the payment calls says that nothing was charged or recorded: they throw
 * only these before the processor is asked (besides RecordUnknownError, a Pending row that may
 * exist), and only OutcomeUnknownError or RecordUnknownError after it.
 */
function chargedNothing(err: unknown): boolean {
  return (
    err instanceof ValidationError ||
    err instanceof NotFoundError ||
    err instanceof VaultError ||
    err instanceof NotChargedError ||
    (err instanceof DatabaseUnavailableError && !(err instanceof RecordUnknownError))
  );
}

/** Whether a payment call failed before it charged anything, with nothing of it recorded. */
export function failedBeforeCharging(err: unknown): boolean {
  return chargedNothing(err);
}
