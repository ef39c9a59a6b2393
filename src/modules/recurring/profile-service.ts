import type { Clock } from '../../platform/clock.ts';
import { type BillingSchedule, type CalendarDate, firstBillDateOnOrAfter, toYmd, utcDate } from '../../domain/billing-dates.ts';
import { profileDateViolations, statusAfterUpdate } from '../../domain/billing-profile.ts';
import { zipProblem } from '../../domain/address.ts';
import { checkExpiry } from '../../domain/cards.ts';
import { type Holder, storedText } from '../../domain/holder.ts';
import { Rule, type RuleViolation } from '../../domain/rules.ts';
import { PAYMENT_NO_FEE_GROUP } from '../../domain/fee-schedule.ts';
import type { FeeLineInput } from '../../domain/fees.ts';
import type { AuthenticatedPartner } from '../../domain/partner.ts';
import { GUID, type Ids } from '../../platform/ids.ts';
import type { Tx } from '../../platform/database/database.ts';
import { NotFoundError, ValidationError } from '../../platform/errors.ts';
import type { FeeService } from '../fees/fee-service.ts';
import type { ProcessorService } from '../partners/processor-service.ts';
import type { ReferenceService } from '../partners/reference-service.ts';
import type { StoredToken, TokenService } from '../vault/token-service.ts';
import type { RecurringProfileRepository } from './profile-repository.ts';
import { bad, dateFormViolations, termViolations, withinCalendar } from './profile-rules.ts';
import type { CreateRecurringProfileInput, RecurringProfile, RecurringProfileTerms, UpdateRecurringProfileInput } from './profile.ts';

export type { CreateRecurringProfileInput, RecurringPayer, RecurringProfile, RecurringProfileTerms, UpdateRecurringProfileInput } from './profile.ts';

/**
 * The token's zip, for the charges' AVS, when the payment rules accept it: a token made through
 * the gateway may carry any text there, and a charge must never fail for a field the payer
 * cannot correct.
 */
function tokenZip(token: StoredToken, country: string | null): string | null {
  const zip = token.zip?.trim();
  return zip && zipProblem(zip, country ?? undefined) === undefined ? zip : null;
}

/** The payer as stored: the fields sent (trimmed; state and country upper-cased), else the token's name, street, zip and constituent id. */
function payerOf(sent: Holder, token: StoredToken): Holder {
  const payer: Holder = {};
  const put = (field: keyof Holder, value: string | null | undefined) => {
    if (value !== undefined && value !== null) payer[field] = value;
  };
  const country = storedText(sent.country)?.toUpperCase() ?? (token.kind === 'bank' ? token.bankCountry : null);
  put('email', storedText(sent.email));
  put('firstName', storedText(sent.firstName) ?? token.firstName);
  put('lastName', storedText(sent.lastName) ?? token.lastName);
  put('street', storedText(sent.street) ?? token.street);
  put('city', storedText(sent.city));
  put('state', storedText(sent.state)?.toUpperCase());
  put('zip', storedText(sent.zip) ?? tokenZip(token, storedText(sent.country) ?? (token.kind === 'bank' ? token.bankCountry : null)));
  put('country', country);
  put('externalConstituentId', storedText(sent.externalConstituentId) ?? token.externalConstituentId);
  return payer;
}

const NO_PROFILE = 'No data found: no recurring profile of the partner has this RecurringProfileGuid.';

/** A given reference as compared: trimmed and lower-cased; undefined when absent or blank. */
const given = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim().toLowerCase());

/**
 * Recurring profiles: create, update, cancel. The schedule arithmetic is in
 * domain/billing-dates.ts, the state rules in domain/billing-profile.ts, the charging in
 * billing-service.ts.
 *
 * Fees: a profile takes the fee rates of the partner's contract when it is created (the
 * commission rate and, for a card, the card fee rate of its group) and keeps them for every
 * charge, as CommissionRateOverride / CardProcessingFeeOverride of the charge's line, unless the
 * partner's own overrides say otherwise. `useOriginalFees: false` on update, or a new
 * TransactionSourceGroupId, takes the contract's rates of that moment instead.
 */
export class RecurringProfileService {
  readonly #repository: Pick<RecurringProfileRepository, keyof RecurringProfileRepository>;
  readonly #clock: Clock;
  readonly #ids: Ids;
  readonly #tokens: Pick<TokenService, 'find'>;
  readonly #processors: Pick<ProcessorService, 'resolve'>;
  readonly #references: Pick<ReferenceService, 'resolve'>;
  readonly #fees: Pick<FeeService, 'quote'>;

  constructor(deps: {
    repository: Pick<RecurringProfileRepository, keyof RecurringProfileRepository>;
    clock: Clock;
    ids: Ids;
    tokens: Pick<TokenService, 'find'>;
    processors: Pick<ProcessorService, 'resolve'>;
    references: Pick<ReferenceService, 'resolve'>;
    fees: Pick<FeeService, 'quote'>;
  }) {
    this.#repository = deps.repository;
    this.#clock = deps.clock;
    this.#ids = deps.ids;
    this.#tokens = deps.tokens;
    this.#processors = deps.processors;
    this.#references = deps.references;
    this.#fees = deps.fees;
  }

  /** Today's date for billing: the clock's date in UTC. */
  today(): CalendarDate {
    return utcDate(this.#clock.now());
  }

  /** A profile of the partner by RecurringProfileGuid; another partner's is not found. */
  async get(partnerId: string, profileId: string): Promise<RecurringProfile> {
    const id = profileId.trim().toLowerCase();
    const profile = GUID.test(id) ? await this.#repository.find(partnerId, id) : undefined;
    if (!profile) throw new NotFoundError(NO_PROFILE);
    return profile;
  }

  /**
   * A new active profile. Refused (ValidationError, every broken rule at once where possible)
   * when a date rule, the token, the processor, the integration source or the fee terms do not
   * hold. Stable signature: the pay page calls it after a first payment.
   */
  async create(partner: AuthenticatedPartner, input: CreateRecurringProfileInput): Promise<RecurringProfile> {
    const today = this.today();
    const violations: RuleViolation[] = [...termViolations(input), ...dateFormViolations(input)];
    if (violations.length > 0) throw new ValidationError(violations);

    const anchorDate = input.nextBillDate ?? input.startDate;
    const schedule: BillingSchedule = { frequency: input.frequency, anchorDay: toYmd(anchorDate).day };
    const nextBillDate = input.nextBillDate ?? withinCalendar('startDate', () => firstBillDateOnOrAfter(input.startDate, schedule, today));
    const dates = { startDate: input.startDate, endDate: input.endDate ?? null, nextBillDate };
    violations.push(...profileDateViolations(dates, today, { nextBillDateGiven: input.nextBillDate !== undefined, requireBillDate: true }));

    const token = await this.#token(partner, input.tokenRef, violations);
    const processor = await this.#processor(partner, input.processorId, violations);
    if (token && processor && !processor.paymentMethodTypes.includes(token.paymentMethodTypeId)) {
      violations.push(bad(Rule.PaymentMethodNotAccepted, 'tokenRef', `cannot be charged: the processor does not accept ${token.kind === 'card' ? (token.cardType ?? 'this card') : 'ACH'} payments`));
    }
    violations.push(...(await this.#unknownReferences(partner.id, input)));
    if (violations.length > 0 || !token || !processor) throw new ValidationError(violations);

    const groupId = input.transactionSourceGroupId ?? (partner.kind === 'for-profit' ? PAYMENT_NO_FEE_GROUP : 1);
    const fees = await this.#takeFees(partner, token, { ...input, transactionSourceGroupId: groupId });
    const now = this.#clock.now();
    const sent = input.payer ?? {};
    const text = (v: string | undefined) => storedText(v) ?? null;
    return this.#repository.insert({
      id: this.#ids.uuid(),
      partnerId: partner.id,
      tokenId: token.id,
      processorId: processor.id,
      integrationSourceId: given(input.integrationSourceId) ?? null,
      organizationId: given(input.organizationId) ?? null,
      charityId: given(input.charityId) ?? null,
      status: 'active',
      billingFrequency: input.frequency,
      anchorDay: schedule.anchorDay,
      startDate: input.startDate,
      endDate: input.endDate ?? null,
      nextBillDate,
      nextAttemptOn: nextBillDate,
      failedAttempts: 0,
      lastPaymentId: input.firstPaymentId ?? null,
      amountCents: input.amountCents,
      preFeeAmountCents: input.preFeeAmountCents ?? null,
      payFee: input.payFee ?? false,
      transactionSourceGroupId: groupId,
      commissionRateOverride: input.commissionRateOverride ?? null,
      cardProcessingFeeOverride: input.cardProcessingFeeOverride ?? null,
      surchargeCents: input.surchargeCents ?? null,
      feeCommissionRate: fees.commissionRate,
      feeCardRate: fees.cardRate,
      feesTakenAt: now,
      externalEventId: text(input.externalEventId),
      externalEventGuid: given(input.externalEventGuid) ?? null,
      externalEventName: text(input.externalEventName),
      payer: payerOf(sent, token),
      currency: storedText(sent.currency)?.toUpperCase() ?? null,
      createdAt: now,
      updatedAt: now,
    });
  }

  /**
   * Changes the terms of a profile. A cancelled profile is refused; a new NextBillDate starts the
   * schedule again from it (and resumes a suspended profile); an EndDate before the next bill
   * date completes the profile. The row is locked while it changes, so an update and a
   * cancellation of one profile never interleave.
   */
  async update(partner: AuthenticatedPartner, input: UpdateRecurringProfileInput): Promise<RecurringProfile> {
    const violations: RuleViolation[] = [...termViolations(input), ...dateFormViolations(input)];
    const unknownSource = input.integrationSourceId === undefined ? [] : await this.#unknownReferences(partner.id, { integrationSourceId: input.integrationSourceId });
    return this.#repository.transaction(async (tx) => {
      const current = await this.#locked(partner.id, input.profileId, tx);
      if (current.status === 'cancelled') {
        throw new ValidationError([bad(Rule.RecurringProfileCancelled, 'profileId', 'names a cancelled profile, which cannot be updated')]);
      }
      if (violations.length > 0) throw new ValidationError(violations);
      const today = this.today();
      const nextBillDateGiven = input.nextBillDate !== undefined;
      const nextBillDate = input.nextBillDate ?? current.nextBillDate;
      const dates = {
        startDate: input.startDate ?? current.startDate,
        endDate: input.endDate ?? current.endDate,
        nextBillDate,
      };
      violations.push(...profileDateViolations(dates, today, { nextBillDateGiven, requireBillDate: false }));
      const amount = input.amountCents ?? current.amountCents;
      const preFee = input.preFeeAmountCents ?? current.preFeeAmountCents;
      const bothGiven = input.amountCents !== undefined && input.preFeeAmountCents !== undefined; // checked with the terms
      if (preFee !== null && preFee > amount && !bothGiven) {
        violations.push(
          input.preFeeAmountCents !== undefined
            ? bad(Rule.RecurringPreFeeAboveAmount, 'preFeeAmountCents', "must not be more than the profile's Amount")
            : bad(Rule.RecurringPreFeeAboveAmount, 'amountCents', "must not be less than the profile's PreFeeAmount"),
        );
      }
      const status = statusAfterUpdate(current.status, { nextBillDate, endDate: dates.endDate, nextBillDateGiven });
      if (status === 'active' && current.status !== 'active' && !nextBillDateGiven && nextBillDate < today) {
        // Resuming on a bill date that has passed would bill every date since at once.
        violations.push(bad(Rule.RecurringNextBillDateInPast, 'nextBillDate', `is required to resume the profile: its next bill date ${nextBillDate} has passed`));
      }
      violations.push(...unknownSource);
      if (violations.length > 0) throw new ValidationError(violations);

      const groupId = input.transactionSourceGroupId ?? current.transactionSourceGroupId;
      const feeTermsChanged =
        input.transactionSourceGroupId !== undefined ||
        input.commissionRateOverride !== undefined ||
        input.cardProcessingFeeOverride !== undefined ||
        input.payFee !== undefined ||
        input.amountCents !== undefined ||
        input.preFeeAmountCents !== undefined;
      const retakeFees = input.useOriginalFees === false || groupId !== current.transactionSourceGroupId;
      let fees = { commissionRate: current.feeCommissionRate, cardRate: current.feeCardRate };
      if (feeTermsChanged || retakeFees) {
        const token = await this.#tokens.find(partner.id, current.tokenId, tx);
        if (!token) throw new ValidationError([bad(Rule.UnknownReference, 'tokenRef', "of the profile is no longer one of the partner's active tokens")]);
        const quoted = await this.#takeFees(
          partner,
          token,
          {
            amountCents: amount,
            preFeeAmountCents: preFee ?? undefined,
            payFee: input.payFee ?? current.payFee,
            transactionSourceGroupId: groupId,
            commissionRateOverride: input.commissionRateOverride ?? current.commissionRateOverride ?? undefined,
            cardProcessingFeeOverride: input.cardProcessingFeeOverride ?? current.cardProcessingFeeOverride ?? undefined,
          },
          tx,
        );
        if (retakeFees) fees = quoted;
      }

      const now = this.#clock.now();
      const text = (v: string | undefined) => (v === undefined ? undefined : v.trim() === '' ? null : v.trim());
      return this.#repository.update(
        current.id,
        {
          status,
          billingFrequency: input.frequency,
          // A new bill date, or a new frequency, anchors on the next bill date's day: a Weekly
          // profile turned Monthly must not keep its first date's day (nine days to the next charge).
          anchorDay: nextBillDateGiven || (input.frequency !== undefined && input.frequency !== current.billingFrequency) ? withinCalendar('nextBillDate', () => toYmd(nextBillDate).day) : undefined,
          startDate: input.startDate,
          endDate: input.endDate,
          nextBillDate: input.nextBillDate,
          // A new bill date starts afresh: attempts at the old one are forgotten.
          nextAttemptOn: nextBillDateGiven ? nextBillDate : undefined,
          failedAttempts: nextBillDateGiven ? 0 : undefined,
          amountCents: input.amountCents,
          preFeeAmountCents: input.preFeeAmountCents,
          payFee: input.payFee,
          transactionSourceGroupId: input.transactionSourceGroupId,
          commissionRateOverride: input.commissionRateOverride,
          cardProcessingFeeOverride: input.cardProcessingFeeOverride,
          surchargeCents: input.surchargeCents,
          ...(retakeFees ? { feeCommissionRate: fees.commissionRate, feeCardRate: fees.cardRate, feesTakenAt: now } : {}),
          integrationSourceId: text(input.integrationSourceId)?.toLowerCase(),
          externalEventId: text(input.externalEventId),
          externalEventGuid: text(input.externalEventGuid)?.toLowerCase(),
          externalEventName: text(input.externalEventName),
          // Reopened (a later EndDate): no longer completed.
          completedAt: status === 'completed' && current.status !== 'completed' ? now : status !== 'completed' && current.status === 'completed' ? null : undefined,
          updatedAt: now,
        },
        tx,
      );
    });
  }

  /** DELETE: the profile is cancelled for good; it and its payments stay for history. */
  async cancel(partner: AuthenticatedPartner, profileId: string): Promise<RecurringProfile> {
    return this.#repository.transaction(async (tx) => {
      const current = await this.#locked(partner.id, profileId, tx);
      if (current.status === 'cancelled') {
        throw new ValidationError([bad(Rule.RecurringProfileCancelled, 'profileId', 'names a profile that is already cancelled')]);
      }
      const now = this.#clock.now();
      return this.#repository.update(current.id, { status: 'cancelled', cancelledAt: now, updatedAt: now }, tx);
    });
  }

  async #locked(partnerId: string, profileId: string, tx: Tx): Promise<RecurringProfile> {
    const id = profileId.trim().toLowerCase();
    const profile = GUID.test(id) ? await this.#repository.find(partnerId, id, { tx, lock: true }) : undefined;
    if (!profile) throw new NotFoundError(NO_PROFILE);
    return profile;
  }

  async #token(partner: AuthenticatedPartner, ref: string, violations: RuleViolation[]): Promise<StoredToken | undefined> {
    const token = ref.trim() === '' ? undefined : await this.#tokens.find(partner.id, ref);
    if (!token) {
      violations.push(bad(Rule.UnknownReference, 'tokenRef', "is not one of the partner's active tokens (a TokenGuid, CcInfoKey or CheckInfoKey)"));
      return undefined;
    }
    if (token.kind === 'card' && checkExpiry(token.expMonth, token.expYear, this.#clock.now()).length > 0) {
      violations.push(bad(Rule.CardExpired, 'tokenRef', 'is a card that has expired'));
    }
    return token;
  }

  async #processor(partner: AuthenticatedPartner, processorId: string | undefined, violations: RuleViolation[]) {
    try {
      return await this.#processors.resolve(partner, { processorId: processorId?.trim() || undefined });
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      violations.push(
        processorId?.trim()
          ? bad(Rule.UnknownReference, 'processorId', "is not one of the partner's processors")
          : bad(Rule.ProcessorRequired, 'processorId', 'is required: the partner has no default processor to charge the profile with'),
      );
      return undefined;
    }
  }

  /**
   * The integration source, organization and charity named that are not the partner's (the
   * charity: not in the directory), found in one look-up of the partner's references.
   */
  async #unknownReferences(partnerId: string, refs: { integrationSourceId?: string; organizationId?: string; charityId?: string }): Promise<RuleViolation[]> {
    const named = { integrationSourceId: given(refs.integrationSourceId), organizationId: given(refs.organizationId), charityId: given(refs.charityId) };
    const guid = (id: string | undefined) => (id !== undefined && GUID.test(id) ? id : undefined);
    const query = { integrationSourceId: guid(named.integrationSourceId), organizationId: guid(named.organizationId), charityId: guid(named.charityId) };
    const found = Object.values(query).some((id) => id !== undefined) ? await this.#references.resolve(partnerId, query) : undefined;
    const violations: RuleViolation[] = [];
    if (named.integrationSourceId !== undefined && (query.integrationSourceId === undefined || !found?.integrationSource)) {
      violations.push(bad(Rule.UnknownReference, 'integrationSourceId', "is not one of the partner's integration sources"));
    }
    if (named.organizationId !== undefined && (query.organizationId === undefined || !found?.organizationId)) {
      violations.push(bad(Rule.UnknownReference, 'organizationId', "is not one of the partner's organizations"));
    }
    if (named.charityId !== undefined && (query.charityId === undefined || !found?.charityId)) {
      violations.push(bad(Rule.UnknownReference, 'charityId', 'is not a charity of the directory'));
    }
    return violations;
  }

  /**
   * Quotes one charge of the terms with the partner's contract (which checks the group against
   * the partner's kind, that the contract has a schedule for it, and the amounts) and returns the
   * rates the profile keeps: the total commission rate and, for a card, the card fee rate.
   */
  async #takeFees(
    partner: AuthenticatedPartner,
    token: StoredToken,
    terms: Pick<RecurringProfileTerms, 'amountCents' | 'preFeeAmountCents' | 'payFee' | 'transactionSourceGroupId' | 'commissionRateOverride' | 'cardProcessingFeeOverride'>,
    tx?: Tx,
  ): Promise<{ commissionRate: string; cardRate: string | null }> {
    const line: FeeLineInput = {
      transactionSourceGroupId: terms.transactionSourceGroupId!,
      amountCents: terms.payFee ? (terms.preFeeAmountCents ?? terms.amountCents) : terms.amountCents,
      payFee: terms.payFee ?? false,
      commissionRateOverride: terms.commissionRateOverride,
      cardProcessingFeeOverride: terms.cardProcessingFeeOverride,
      tipCents: 0,
      taxCents: 0,
    };
    try {
      const quote = await this.#fees.quote(partner, { lines: [line], tokenRef: token.id, lineField: (_i, field) => field }, tx);
      const b = quote.lines[0]!;
      return { commissionRate: b.totalCommissionRate, cardRate: token.kind === 'card' ? b.cardFeeRate : null };
    } catch (err) {
      if (err instanceof NotFoundError) {
        throw new ValidationError([
          bad(Rule.NoFeeSchedule, 'transactionSourceGroupId', `cannot be used: the partner's contract has no fee schedule for group ${line.transactionSourceGroupId}`),
        ]);
      }
      throw err;
    }
  }
}
