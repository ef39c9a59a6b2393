import type { Clock } from '../../platform/clock.ts';
import { type RuleViolation, firstPerField } from '../../domain/rules.ts';
import { PaymentResult } from '../../domain/payment-status.ts';
import { ACH_PAYMENT_METHOD_TYPE } from '../../domain/fees.ts';
import { holderOf } from '../../domain/holder.ts';
import { ValidationError, NotFoundError } from '../../platform/errors.ts';
import type { Logger } from '../../platform/logging.ts';
import type { FeeService, ResolvedFeeQuote } from '../fees/fee-service.ts';
import type { AchPaymentInput, CardPaymentInput, PaymentInputCommon } from '../payments/payment-input.ts';
import type { PaymentRecord } from '../payments/payment-record.ts';
import type { Validated } from '../payments/payment-validation.ts';
import { failedBeforeCharging, type PaymentService } from '../payments/payment-service.ts';
import type { RecurringProfileService } from '../recurring/profile-service.ts';
import type { RefundVoidService } from '../adjustments/refund-void-service.ts';
import type { StoredToken, TokenService } from '../vault/token-service.ts';
import { type PayLink, type PayLinkLease, feeLineOf, payLinkRef } from './paylink.ts';
import type { PayLinkService } from './paylink-service.ts';
import type { PayLinkResultService } from './result-service.ts';
import { WORKFLOW_MANAGE_CARDS, WORKFLOW_PAYMENT, WORKFLOW_TOKENIZE } from './paylink-rules.ts';
import { type CheckoutOutcome, type CheckoutSubmission, type SavedInstruments, checkSaveCardForm, phoneViolations } from './checkout-rules.ts';
import { recurringProfileOf } from './recurring-line.ts';

export type { BankForm, CardForm, CheckoutOutcome, CheckoutSubmission, PayerForm, SavedInstruments } from './checkout-rules.ts';

/** The part of recurring billing a pay link uses: creating the profile of a recurring line. */
export type RecurringProfileCreator = Pick<RecurringProfileService, 'create'>;

/** The part of the payment lifecycle a pay link uses: voiding a payment its submission could not record. */
export type PaymentVoider = Pick<RefundVoidService, 'voidPayment'>;

/** What the checkout uses of other services (narrowed, so a test can pass its own). */
export interface CheckoutDeps {
  clock: Clock;
  links: Pick<PayLinkService, 'hold' | 'release' | 'complete' | 'completeWithItsPayment' | 'find' | 'paymentIdOf' | 'setRecurringProfile'>;
  results: Pick<PayLinkResultService, 'issue'>;
  payments: Pick<PaymentService, 'validateCard' | 'validateAch' | 'payCard' | 'payAch'>;
  tokens: Pick<TokenService, 'find' | 'tokenizeCard' | 'delete' | 'listByConstituent'>;
  fees: Pick<FeeService, 'quote'>;
  log: Logger;
  voids: PaymentVoider;
  recurring?: RecurringProfileCreator;
}

/** Attempts at recording a link's success before giving up (the payment stands; the lease is kept). */
const COMPLETE_ATTEMPTS = 3;
const COMPLETE_RETRY_MS = 200;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The hosted page's use cases: pay a link (card or ACH, through the same payment service and
 * rules as the API), store a card (WorkflowType 3 and 4), list and delete the customer's cards
 * (WorkflowType 4), and the fee quotes the page shows.
 */
export class PayLinkCheckoutService {
  readonly #clock: Clock;
  readonly #links: CheckoutDeps['links'];
  readonly #results: CheckoutDeps['results'];
  readonly #payments: CheckoutDeps['payments'];
  readonly #tokens: CheckoutDeps['tokens'];
  readonly #fees: CheckoutDeps['fees'];
  readonly #recurring: RecurringProfileCreator | undefined;
  readonly #log: Logger;
  readonly #voids: PaymentVoider;

  constructor(deps: CheckoutDeps) {
    this.#log = deps.log;
    this.#voids = deps.voids;
    this.#clock = deps.clock;
    this.#links = deps.links;
    this.#results = deps.results;
    this.#payments = deps.payments;
    this.#tokens = deps.tokens;
    this.#fees = deps.fees;
    this.#recurring = deps.recurring;
  }

  /** The fees the payer sees: one quote for a card (brand not yet known) and one for ACH. */
  async quotes(link: PayLink): Promise<{ card: ResolvedFeeQuote; ach: ResolvedFeeQuote }> {
    const lines = link.lines.map(feeLineOf);
    const [card, ach] = await Promise.all([
      this.#fees.quote(link.partner, { lines }),
      this.#fees.quote(link.partner, { lines, paymentMethodTypeId: ACH_PAYMENT_METHOD_TYPE }),
    ]);
    return { card, ach };
  }

  /** The link's saved card and bank account, when they are still active. */
  async savedInstruments(link: PayLink): Promise<SavedInstruments> {
    const { savedCardTokenId, savedBankTokenId } = link.settings;
    const [card, bank] = await Promise.all([
      savedCardTokenId ? this.#tokens.find(link.partner.id, savedCardTokenId) : undefined,
      savedBankTokenId ? this.#tokens.find(link.partner.id, savedBankTokenId) : undefined,
    ]);
    return { card, bank };
  }

  /** Pays a WorkflowType 1 link: validates, holds the link, pays, then completes it or lets the payer retry. */
  async pay(link: PayLink, submission: CheckoutSubmission): Promise<CheckoutOutcome> {
    if (link.workflowType !== WORKFLOW_PAYMENT) throw new Error('pay() is for payment links');
    if (link.status !== 'active') return { kind: 'unavailable', status: link.status };
    const saved = await this.savedInstruments(link);
    const recurringLine = link.lines.find((l) => l.recurring !== 0);
    const common = this.#common(link, submission, recurringLine !== undefined);
    let card: CardPaymentInput | undefined;
    let ach: AchPaymentInput | undefined;
    let validated: Validated;
    if (submission.method === 'card') {
      const f = submission.card;
      const useSaved = f.useSaved !== false && saved.card !== undefined;
      card = useSaved
        ? { ...common, tokenRef: saved.card!.id, cvNum: f.cvNum, nameOnCard: f.nameOnCard }
        : { ...common, nameOnCard: f.nameOnCard, cardNum: f.cardNum, expMonth: f.expMonth, expYear: f.expYear, cvNum: f.cvNum };
      validated = this.#payments.validateCard(card);
    } else {
      const f = submission.bank;
      const useSaved = f.useSaved !== false && saved.bank !== undefined;
      ach = useSaved
        ? { ...common, tokenRef: saved.bank!.id, nameOnCheck: f.nameOnCheck }
        : {
            ...common,
            nameOnCheck: f.nameOnCheck,
            checkRoutingNumber: f.checkRoutingNumber,
            checkAccountNumber: f.checkAccountNumber,
            checkAccountTypeId: f.checkAccountTypeId,
            checkTypeId: f.checkTypeId,
          };
      validated = this.#payments.validateAch(ach);
    }
    const violations = [...validated.violations, ...phoneViolations(submission.payer)];
    if (violations.length > 0) return { kind: 'invalid', violations: firstPerField(violations) };

    const lease = await this.#links.hold(link.id);
    if (!lease) return this.#notHeld(link);
    // The lease is given back only when nothing was charged (a decline, a refused form). After a
    // success, or an error that leaves the outcome unknown, it is kept until it expires, so the
    // link takes no second payment meanwhile.
    let release = false;
    try {
      let record: PaymentRecord;
      try {
        record = card ? await this.#payments.payCard(link.partner, card, validated) : await this.#payments.payAch(link.partner, ach!, validated);
      } catch (err) {
        if (err instanceof ValidationError) {
          release = true;
          return { kind: 'invalid', violations: err.violations as RuleViolation[] };
        }
        // Failed before the payment was recorded (a saved card this server cannot open, the
        // database down): nothing was charged, so the link is given back rather than refused as
        // "being processed" until its lease ends.
        release = failedBeforeCharging(err);
        throw err;
      }
      // Outcome unknown: the lease is kept, and once it lapses the held payment keeps the link closed.
      if (record.payment.paymentResult === PaymentResult.Processing) return { kind: 'unknown', record };
      if (!record.payment.successful) {
        release = true;
        return { kind: 'declined', record };
      }
      if (!(await this.#completeAfterSuccess(link, lease, record.payment.id))) return { kind: 'lost', record, voided: await this.#voidLost(link, record) };
      if (recurringLine) await this.#startRecurring(link, recurringLine, record);
      const responseToken = await this.#results.issue({ id: link.id, partnerId: link.partner.id }, { paymentId: record.payment.id });
      return { kind: 'paid', record, responseToken };
    } finally {
      if (release) await this.#links.release(lease);
    }
  }

  /**
   * Why a link could not be held: no longer active, another submission holds it, or a payment
   * through it succeeded without completing it (then it is completed now, with that payment).
   */
  async #notHeld(link: PayLink): Promise<CheckoutOutcome> {
    if (await this.#links.completeWithItsPayment(link.id)) {
      this.#log.warn({ payLinkRef: payLinkRef(link.id) }, 'pay link completed with the successful payment its submission could not record');
      return { kind: 'unavailable', status: 'completed' };
    }
    const now = await this.#links.find(link.id);
    return now && now.status !== 'active' ? { kind: 'unavailable', status: now.status } : { kind: 'busy' };
  }

  /**
   * Completes the link with its successful payment: true when done (or already done with it),
   * false when the lease was lost. A failing write is tried again a few times; if it keeps failing
   * the error is thrown and the lease is kept (the caller does not release it); the successful
   * payment then keeps the link from another (PayLinkService.hold).
   */
  async #completeAfterSuccess(link: PayLink, lease: PayLinkLease, paymentId: string): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        if (await this.#links.complete(lease, { paymentId })) return true;
        // An operator may have completed it with this very payment meanwhile (`payments pending
        // resolve`, when this answer came late): that is not a lost link.
        return (await this.#links.paymentIdOf(link.id)) === paymentId;
      } catch (err) {
        if (attempt >= COMPLETE_ATTEMPTS) {
          this.#log.error(
            { payLinkRef: payLinkRef(link.id), paymentGuid: paymentId, errorName: (err as Error)?.name },
            'pay link paid but not completed: the payment stands; the link stays held until its lease expires',
          );
          throw err;
        }
        await sleep(COMPLETE_RETRY_MS * attempt);
      }
    }
  }

  /**
   * Voids a successful payment whose submission lost the link, through the refund/void service
   * (the payment's history records the void). True when the processor voided it.
   */
  async #voidLost(link: PayLink, record: PaymentRecord): Promise<boolean> {
    const p = record.payment;
    const log = { payLinkRef: payLinkRef(link.id), paymentGuid: p.id };
    try {
      const outcome = await this.#voids.voidPayment(
        link.partner,
        {
          paymentGuid: p.id,
          processorGuid: p.processorId,
          reason: 'Automatic void: the pay link was completed or cancelled while this payment was being processed.',
        },
        { source: 'operator' },
      );
      if (outcome.successful) {
        this.#log.warn({ ...log, adjustmentId: outcome.adjustmentId }, 'pay link payment made after the link was lost: voided');
        return true;
      }
      this.#log.error({ ...log, adjustmentId: outcome.adjustmentId, responseCode: outcome.responseCode }, 'pay link payment made after the link was lost: void refused; the payment stands');
    } catch (err) {
      this.#log.error({ ...log, errorName: (err as Error)?.name }, 'pay link payment made after the link was lost: void failed; the payment stands');
    }
    return false;
  }

  /**
   * Stores a card for the link's customer (WorkflowType 3 once, then the link is completed;
   * WorkflowType 4 any number of times). Nothing is charged, so no CVV is asked.
   */
  async saveCard(link: PayLink, submission: CheckoutSubmission): Promise<CheckoutOutcome> {
    if (link.workflowType !== WORKFLOW_TOKENIZE && link.workflowType !== WORKFLOW_MANAGE_CARDS) throw new Error('saveCard() is for WorkflowType 3 and 4');
    if (link.status !== 'active') return { kind: 'unavailable', status: link.status };
    const { payer } = submission;
    const form = checkSaveCardForm(payer, submission.card, this.#clock.now());
    if (!form.ok) return { kind: 'invalid', violations: firstPerField(form.violations) };

    const once = link.workflowType === WORKFLOW_TOKENIZE;
    const lease = once ? await this.#links.hold(link.id) : undefined;
    if (once && !lease) return this.#notHeld(link);
    let completed = false;
    try {
      const holder = holderOf({ firstName: payer.firstName, lastName: payer.lastName, street: payer.street, zip: payer.zip });
      const token = await this.#tokens.tokenizeCard(link.partner.id, {
        cardNumber: form.card.number,
        expMonth: form.card.expMonth,
        expYear: form.card.expYear,
        ...holder,
        externalConstituentId: link.settings.externalConstituentId ?? undefined,
        customerKey: link.settings.externalCustomerId ?? undefined,
        source: 'paypage',
      });
      if (lease) {
        completed = await this.#completeWithCard(link, lease, token.id);
        if (!completed) {
          // Another submission stored the link's card meanwhile: this one is not the link's.
          await this.#deleteUnrecordedCard(link, token.id, 'pay link card stored after the link was lost, and not deleted');
          return this.#notHeld(link);
        }
      }
      const responseToken = await this.#results.issue({ id: link.id, partnerId: link.partner.id }, { tokenId: token.id });
      return { kind: 'saved', token, responseToken };
    } finally {
      if (lease && !completed) await this.#links.release(lease);
    }
  }

  /**
   * Completes a "save card" link with the card just stored. If recording that fails, the link is
   * read again: completed with this card, the completion did commit; otherwise the card is
   * deleted (best effort) before the error goes on, so a retry does not leave a second card the
   * partner never hears of.
   */
  async #completeWithCard(link: PayLink, lease: PayLinkLease, tokenId: string): Promise<boolean> {
    try {
      return await this.#links.complete(lease, { tokenId });
    } catch (err) {
      const now = await this.#links.find(link.id).catch(() => undefined);
      if (now?.status === 'completed' && now.tokenId === tokenId) return true;
      if (now) await this.#deleteUnrecordedCard(link, tokenId, 'pay link card stored but not recorded on the link, and not deleted');
      throw err;
    }
  }

  /** Deletes a card stored for a link that did not record it (best effort; logged when it fails). */
  async #deleteUnrecordedCard(link: PayLink, tokenId: string, failure: string): Promise<void> {
    await this.#tokens.delete(link.partner.id, tokenId).catch((err: unknown) => {
      this.#log.error({ payLinkRef: payLinkRef(link.id), errorName: (err as Error)?.name }, failure);
    });
  }

  /** WorkflowType 4: the customer's active cards, newest first. */
  async cards(link: PayLink): Promise<StoredToken[]> {
    const constituent = link.settings.externalConstituentId;
    if (!constituent) return [];
    return (await this.#tokens.listByConstituent(link.partner.id, constituent)).filter((t) => t.kind === 'card');
  }

  /** WorkflowType 4: deletes one of the customer's cards. Any other token is not found. */
  async deleteCard(link: PayLink, tokenId: string): Promise<void> {
    if (link.workflowType !== WORKFLOW_MANAGE_CARDS || link.status !== 'active') throw new NotFoundError('No such card.');
    const card = (await this.cards(link)).find((t) => t.id === tokenId.trim().toLowerCase());
    if (!card) throw new NotFoundError('No such card.');
    await this.#tokens.delete(link.partner.id, card.id);
  }

  /**
   * A fresh responseToken for a completed link's outcome: the receipt's Continue button, for a
   * payer whose first redirect did not reach the partner.
   */
  async reissue(link: PayLink): Promise<string | undefined> {
    if (link.status !== 'completed' || (!link.paymentId && !link.tokenId)) return undefined;
    return this.#results.issue({ id: link.id, partnerId: link.partner.id }, { paymentId: link.paymentId ?? undefined, tokenId: link.tokenId ?? undefined });
  }

  #common(link: PayLink, s: CheckoutSubmission, recurring: boolean): PaymentInputCommon {
    const p = s.payer;
    const phone = p.phone?.trim();
    return {
      processorGuid: link.processorId ?? undefined,
      integrationSource: link.integrationSourceId ?? undefined,
      lines: link.lines.map(feeLineOf),
      email: p.email,
      firstName: p.firstName,
      lastName: p.lastName,
      street: p.street,
      city: p.city,
      state: p.state,
      zip: p.zip,
      country: p.country,
      currency: link.settings.currency,
      ipAddress: link.settings.ipAddress ?? s.clientIp,
      externalConstituentId: link.settings.externalConstituentId ?? undefined,
      externalCustomerId: link.settings.externalCustomerId ?? undefined,
      externalEventId: link.settings.externalEventId ?? undefined,
      externalEventName: link.settings.externalEventName ?? undefined,
      tranId: link.tranId ?? (link.settings.showTransactionId ? s.tranId : undefined),
      // The phone has no payment field; fraud screening is where the original sends it.
      gwShieldAdditional: phone ? { BillToPhoneNumber: phone } : undefined,
      // A recurring line bills the stored payment method later.
      tokenize: link.settings.tokenizeCard || recurring,
      // While this payment may have charged, the link takes no other (PayLinkService.hold).
      payLinkId: link.id,
    };
  }

  /** Starts the profile of a recurring line after the link's first payment (recurring-line.ts). */
  async #startRecurring(link: PayLink, line: PayLink['lines'][number], record: PaymentRecord): Promise<void> {
    const p = record.payment;
    if (!this.#recurring || !p.tokenId) {
      this.#log.error({ payLinkRef: payLinkRef(link.id), paymentGuid: p.id }, 'pay link recurring line: no recurring billing service or no token; no profile created');
      return;
    }
    try {
      const profile = await this.#recurring.create(link.partner, recurringProfileOf(link, line, record, p.tokenId));
      await this.#links.setRecurringProfile(link.id, profile.id);
    } catch (err) {
      // The payment stands; the link shows no RecurringProfile and the partner can create one
      // with POST /api/recurringProfile from the payment's TokenGuid. The violations name fields only.
      const violations = err instanceof ValidationError ? err.violations.map((v) => `${v.field}: rule ${v.code}`) : undefined;
      this.#log.error({ payLinkRef: payLinkRef(link.id), paymentGuid: p.id, errorName: (err as Error)?.name, violations }, 'pay link recurring profile not created');
    }
  }
}
