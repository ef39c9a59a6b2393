import type { Clock } from '../../platform/clock.ts';
import {
  type BillingFrequency,
  type BillingSchedule,
  type CalendarDate,
  firstBillDateOnOrAfter,
  parseCalendarDate,
  toYmd,
  utcDate,
} from '../../domain/billing-dates.ts';
import { profileDateRangeViolations, profileDateViolations, statusAfterUpdate } from '../../domain/billing-profile.ts';
import { zipProblem } from '../../domain/address.ts';
import { checkExpiry } from '../../domain/cards.ts';
import { Rule, type RuleName, type RuleViolation } from '../../domain/rules.ts';
import { PAYMENT_NO_FEE_GROUP } from '../../domain/fee-schedule.ts';
import type { FeeLineInput } from '../../domain/fees.ts';
import { type Cents, MAX_CENTS } from '../../domain/money.ts';
import type { AuthenticatedPartner } from '../../domain/partner.ts';
import { GUID, type Ids } from '../../platform/ids.ts';
import type { Db, DbOrTx } from '../../platform/database/database.ts';
import { charities, integrationSources, organizations, recurringProfiles } from '../../platform/database/schema/index.ts';
import { NotFoundError, ValidationError } from '../../platform/errors.ts';
import type { FeeService } from '../fees/fee-service.ts';
import type { ProcessorService } from '../partners/processor-service.ts';
import type { StoredToken, TokenService } from '../vault/token-service.ts';
import { and, eq } from '../../platform/database/drizzle.ts';

export type RecurringProfileRow = typeof recurringProfiles.$inferSelect;

/**
 * The terms of a profile, in domain values (cents, calendar dates, a parsed frequency): what
 * POST /api/recurringProfile carries once read, and what a pay page passes after a first payment.
 */
export interface RecurringProfileTerms {
  /** Amount per bill date; with `payFee`, see `preFeeAmountCents`. */
  amountCents: Cents;
  startDate: CalendarDate;
  endDate?: CalendarDate;
  /** The first bill date; default: the next bill date of the schedule from `startDate` (not in the past). */
  nextBillDate?: CalendarDate;
  frequency: BillingFrequency;
  /**
   * With `payFee`: the amount before fees, which each charge grosses up by the fee rules (default
   * `amountCents`). Never above `amountCents`.
   */
  preFeeAmountCents?: Cents;
  payFee?: boolean;
  /** 1-12; default 12 for a for-profit partner, 1 (Donation) for a non-profit one. */
  transactionSourceGroupId?: number;
  /** Percentage text (already in the form the fee rules read: "2.5"). */
  commissionRateOverride?: string;
  cardProcessingFeeOverride?: string;
  surchargeCents?: Cents;
  externalEventId?: string;
  externalEventGuid?: string;
  externalEventName?: string;
}

/** Who pays, for the charges' records (optional; taken from the token when absent). */
export interface RecurringPayer {
  email?: string;
  firstName?: string;
  lastName?: string;
  street?: string;
  city?: string;
  state?: string;
  zip?: string;
  country?: string;
  currency?: string;
  externalConstituentId?: string;
}

export interface CreateRecurringProfileInput extends RecurringProfileTerms {
  /** A TokenGuid, or the token's CcInfoKey / CheckInfoKey, of the partner. */
  tokenRef: string;
  /** One of the partner's integration sources (default: none, the partner's default at charge time is not used). */
  integrationSourceId?: string;
  /** One of the partner's processors; default: the partner's default processor now. */
  processorId?: string;
  organizationId?: string;
  charityId?: string;
  payer?: RecurringPayer;
  /** The payment that started the profile (a pay link's first charge): its LastPaymentGuid until the first billing. */
  firstPaymentId?: string;
}

export interface UpdateRecurringProfileInput extends Partial<RecurringProfileTerms> {
  /** RecurringProfileGuid */
  profileId: string;
  integrationSourceId?: string;
  /** false: take the partner's current fee rates now (default true: keep the rates the profile has). */
  useOriginalFees?: boolean;
}

/**
 * The token's zip, for the charges' AVS, when the payment rules accept it: a token made through
 * the gateway may carry any text there, and a charge must never fail for a field the payer
 * cannot correct.
 */
function tokenZip(token: StoredToken, country: string | null): string | null {
  const zip = token.zip?.trim();
  return zip && zipProblem(zip, country ?? undefined) === undefined ? zip : null;
}


const bad = (code: RuleName, field: string, message: string): RuleViolation => ({ code, field, message: `'${field}' ${message}.` });

/** The format and the range (PROFILE_DATE_MIN to PROFILE_DATE_MAX) of each date sent, by wire field. */
function checkDates(input: { startDate?: CalendarDate; endDate?: CalendarDate; nextBillDate?: CalendarDate }, violations: RuleViolation[]) {
  const inRange: Record<string, CalendarDate> = {};
  for (const [field, value] of [['StartDate', input.startDate], ['EndDate', input.endDate], ['NextBillDate', input.nextBillDate]] as const) {
    if (value === undefined) continue;
    if (!parseCalendarDate(value).ok) violations.push(bad(Rule.InvalidFormat, field, 'must be a date in the form yyyy-MM-dd'));
    else inRange[field] = value;
  }
  violations.push(...profileDateRangeViolations(inRange));
}

/**
 * Date arithmetic that would leave the calendar (RangeError: a year past 9999) is the client's
 * date out of range, not a server error. The range checks keep profiles far from that edge; this
 * is the backstop.
 */
function withinCalendar<T>(field: string, compute: () => T): T {
  try {
    return compute();
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    throw new ValidationError([bad(Rule.OutOfRange, field, 'is out of range: its schedule would leave the calendar')]);
  }
}

/**
 * Recurring profiles: create, update, cancel (issue 6). The schedule arithmetic is in
 * domain/billing-dates.ts, the state rules in domain/billing-profile.ts, the charging in
 * services/billing.ts.
 *
 * Fees: a profile takes the fee rates of the partner's contract when it is created (the
 * commission rate and, for a card, the card fee rate of its group) and keeps them for every
 * charge, as CommissionRateOverride / CardProcessingFeeOverride of the charge's line, unless the
 * partner's own overrides say otherwise. `useOriginalFees: false` on update, or a new
 * TransactionSourceGroupId, takes the contract's rates of that moment instead.
 */
export class RecurringProfileService {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #ids: Ids;
  readonly #tokens: TokenService;
  readonly #processors: ProcessorService;
  readonly #fees: FeeService;

  constructor(deps: { db: Db; clock: Clock; ids: Ids; tokens: TokenService; processors: ProcessorService; fees: FeeService }) {
    this.#db = deps.db;
    this.#clock = deps.clock;
    this.#ids = deps.ids;
    this.#tokens = deps.tokens;
    this.#processors = deps.processors;
    this.#fees = deps.fees;
  }

  /** Today's date for billing: the clock's date in UTC. */
  today(): CalendarDate {
    return utcDate(this.#clock.now());
  }

  /** A profile of the partner by RecurringProfileGuid; another partner's is not found. */
  async get(partnerId: string, profileId: string, db: DbOrTx = this.#db): Promise<RecurringProfileRow> {
    const row = GUID.test(profileId.trim()) ? await this.#find(partnerId, profileId.trim().toLowerCase(), db, false) : undefined;
    if (!row) throw new NotFoundError('No data found: no recurring profile of the partner has this RecurringProfileGuid.');
    return row;
  }

  /**
   * A new active profile. Refused (ValidationError, every broken rule at once where possible)
   * when a date rule, the token, the processor, the integration source or the fee terms do not
   * hold. Stable signature: the pay page calls it after a first payment.
   */
  async create(partner: AuthenticatedPartner, input: CreateRecurringProfileInput): Promise<RecurringProfileRow> {
    const today = this.today();
    const violations: RuleViolation[] = [];
    this.#checkTerms(input, violations);
    checkDates(input, violations);
    if (violations.length > 0) throw new ValidationError(violations);

    const anchorDate = input.nextBillDate ?? input.startDate;
    const schedule: BillingSchedule = { frequency: input.frequency, anchorDay: toYmd(anchorDate).day };
    const nextBillDate = input.nextBillDate ?? withinCalendar('StartDate', () => firstBillDateOnOrAfter(input.startDate, schedule, today));
    const dates = { startDate: input.startDate, endDate: input.endDate ?? null, nextBillDate };
    violations.push(...profileDateViolations(dates, today, { nextBillDateGiven: input.nextBillDate !== undefined, requireBillDate: true }));

    const db = this.#db;
    const token = await this.#token(partner, input.tokenRef, violations, db);
    const processor = await this.#processor(partner, input.processorId, violations, db);
    if (token && processor && !processor.paymentMethodTypes.includes(token.paymentMethodTypeId)) {
      violations.push(bad(Rule.PaymentMethodNotAccepted, 'TokenGuid', `cannot be charged: the processor does not accept ${token.kind === 'card' ? (token.cardType ?? 'this card') : 'ACH'} payments`));
    }
    await this.#checkReferences(partner.id, input, violations, db);
    if (violations.length > 0 || !token || !processor) throw new ValidationError(violations);

    const groupId = input.transactionSourceGroupId ?? (partner.kind === 'for-profit' ? PAYMENT_NO_FEE_GROUP : 1);
    const fees = await this.#takeFees(partner, token, { ...input, transactionSourceGroupId: groupId }, db);
    const now = this.#clock.now();
    const payer = input.payer ?? {};
    const text = (v: string | undefined | null) => (v === undefined || v === null || v.trim() === '' ? null : v.trim());
    const [row] = await db
      .insert(recurringProfiles)
      .values({
        id: this.#ids.uuid(),
        partnerId: partner.id,
        tokenId: token.id,
        processorId: processor.id,
        integrationSourceId: text(input.integrationSourceId)?.toLowerCase() ?? null,
        organizationId: text(input.organizationId)?.toLowerCase() ?? null,
        charityId: text(input.charityId)?.toLowerCase() ?? null,
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
        externalEventGuid: text(input.externalEventGuid)?.toLowerCase() ?? null,
        externalEventName: text(input.externalEventName),
        email: text(payer.email),
        firstName: text(payer.firstName) ?? token.firstName,
        lastName: text(payer.lastName) ?? token.lastName,
        street: text(payer.street) ?? token.street,
        city: text(payer.city),
        state: text(payer.state)?.toUpperCase() ?? null,
        zip: text(payer.zip) ?? tokenZip(token, text(payer.country) ?? (token.kind === 'bank' ? token.bankCountry : null)),
        country: text(payer.country)?.toUpperCase() ?? (token.kind === 'bank' ? token.bankCountry : null),
        currency: text(payer.currency)?.toUpperCase() ?? null,
        externalConstituentId: text(payer.externalConstituentId) ?? token.externalConstituentId,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    return row!;
  }

  /**
   * Changes the terms of a profile. A cancelled profile is refused; a new NextBillDate starts the
   * schedule again from it (and resumes a suspended profile); an EndDate before the next bill
   * date completes the profile. The row is locked while it changes, so an update and a
   * cancellation of one profile never interleave.
   */
  async update(partner: AuthenticatedPartner, input: UpdateRecurringProfileInput): Promise<RecurringProfileRow> {
    const violations: RuleViolation[] = [];
    this.#checkTerms(input, violations);
    checkDates(input, violations);
    return this.#db.transaction(async (tx) => {
      const current = await this.#locked(partner.id, input.profileId, tx);
      if (current.status === 'cancelled') {
        throw new ValidationError([bad(Rule.RecurringProfileCancelled, 'RecurringProfileGuid', 'names a cancelled profile, which cannot be updated')]);
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
            ? bad(Rule.RecurringPreFeeAboveAmount, 'PreFeeAmount', "must not be more than the profile's Amount")
            : bad(Rule.RecurringPreFeeAboveAmount, 'Amount', "must not be less than the profile's PreFeeAmount"),
        );
      }
      const status = statusAfterUpdate(current.status, { nextBillDate, endDate: dates.endDate, nextBillDateGiven });
      if (status === 'active' && current.status !== 'active' && !nextBillDateGiven && nextBillDate < today) {
        // Resuming on a bill date that has passed would bill every date since at once.
        violations.push(bad(Rule.RecurringNextBillDateInPast, 'NextBillDate', `is required to resume the profile: its next bill date ${nextBillDate} has passed`));
      }
      if (input.integrationSourceId !== undefined) await this.#checkReferences(partner.id, { integrationSourceId: input.integrationSourceId }, violations, tx);
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
        if (!token) throw new ValidationError([bad(Rule.UnknownReference, 'TokenGuid', "of the profile is no longer one of the partner's active tokens")]);
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
      const [row] = await tx
        .update(recurringProfiles)
        .set({
          status,
          billingFrequency: input.frequency,
          // A new bill date, or a new frequency, anchors on the next bill date's day: a Weekly
          // profile turned Monthly must not keep its first date's day (nine days to the next charge).
          anchorDay: nextBillDateGiven || (input.frequency !== undefined && input.frequency !== current.billingFrequency) ? withinCalendar('NextBillDate', () => toYmd(nextBillDate).day) : undefined,
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
        })
        .where(eq(recurringProfiles.id, current.id))
        .returning();
      return row!;
    });
  }

  /** DELETE: the profile is cancelled for good; it and its payments stay for history. */
  async cancel(partner: AuthenticatedPartner, profileId: string): Promise<RecurringProfileRow> {
    return this.#db.transaction(async (tx) => {
      const current = await this.#locked(partner.id, profileId, tx);
      if (current.status === 'cancelled') {
        throw new ValidationError([bad(Rule.RecurringProfileCancelled, 'RecurringProfileGuid', 'names a profile that is already cancelled')]);
      }
      const now = this.#clock.now();
      const [row] = await tx
        .update(recurringProfiles)
        .set({ status: 'cancelled', cancelledAt: now, updatedAt: now })
        .where(eq(recurringProfiles.id, current.id))
        .returning();
      return row!;
    });
  }

  async #find(partnerId: string, id: string, db: DbOrTx, lock: boolean): Promise<RecurringProfileRow | undefined> {
    const query = db
      .select()
      .from(recurringProfiles)
      .where(and(eq(recurringProfiles.id, id), eq(recurringProfiles.partnerId, partnerId)));
    const [row] = lock ? await query.for('update') : await query;
    return row;
  }

  async #locked(partnerId: string, profileId: string, tx: DbOrTx): Promise<RecurringProfileRow> {
    const id = profileId.trim().toLowerCase();
    const row = GUID.test(id) ? await this.#find(partnerId, id, tx, true) : undefined;
    if (!row) throw new NotFoundError('No data found: no recurring profile of the partner has this RecurringProfileGuid.');
    return row;
  }

  /** The amount rules of the terms given (create: all; update: those sent). */
  #checkTerms(terms: Partial<RecurringProfileTerms>, violations: RuleViolation[]) {
    const positive = (field: string, cents: Cents | undefined) => {
      if (cents === undefined) return;
      if (!Number.isInteger(cents) || cents <= 0) violations.push(bad(Rule.OutOfRange, field, 'must be greater than 0'));
      else if (cents > MAX_CENTS) violations.push(bad(Rule.OutOfRange, field, 'must be at most 9999999999.99'));
    };
    positive('Amount', terms.amountCents);
    positive('PreFeeAmount', terms.preFeeAmountCents);
    if (terms.surchargeCents !== undefined && (!Number.isInteger(terms.surchargeCents) || terms.surchargeCents < 0)) {
      violations.push(bad(Rule.OutOfRange, 'Surcharge', 'must not be negative'));
    }
    if (terms.amountCents !== undefined && terms.preFeeAmountCents !== undefined && terms.preFeeAmountCents > terms.amountCents) {
      violations.push(bad(Rule.RecurringPreFeeAboveAmount, 'PreFeeAmount', 'must not be more than Amount'));
    }
    if (terms.externalEventGuid !== undefined && terms.externalEventGuid.trim() !== '' && !GUID.test(terms.externalEventGuid.trim())) {
      violations.push(bad(Rule.InvalidFormat, 'ExternalEventGuid', 'must be a GUID'));
    }
  }

  async #token(partner: AuthenticatedPartner, ref: string, violations: RuleViolation[], db: DbOrTx): Promise<StoredToken | undefined> {
    const token = ref.trim() === '' ? undefined : await this.#tokens.find(partner.id, ref, db);
    if (!token) {
      violations.push(bad(Rule.UnknownReference, 'TokenGuid', "is not one of the partner's active tokens (a TokenGuid, CcInfoKey or CheckInfoKey)"));
      return undefined;
    }
    if (token.kind === 'card' && checkExpiry(token.expMonth, token.expYear, this.#clock.now()).length > 0) {
      violations.push(bad(Rule.CardExpired, 'TokenGuid', 'is a card that has expired'));
    }
    return token;
  }

  async #processor(partner: AuthenticatedPartner, processorId: string | undefined, violations: RuleViolation[], db: DbOrTx) {
    try {
      return await this.#processors.resolve(partner, { processorId: processorId?.trim() || undefined }, db);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      violations.push(
        processorId?.trim()
          ? bad(Rule.UnknownReference, 'ProcessorGuid', "is not one of the partner's processors")
          : bad(Rule.ProcessorRequired, 'ProcessorGuid', 'is required: the partner has no default processor to charge the profile with'),
      );
      return undefined;
    }
  }

  /** The integration source, organization and charity named must be the partner's (the charity: in the directory). */
  async #checkReferences(partnerId: string, refs: { integrationSourceId?: string; organizationId?: string; charityId?: string }, violations: RuleViolation[], db: DbOrTx) {
    const given = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim().toLowerCase());
    const source = given(refs.integrationSourceId);
    if (source !== undefined) {
      const [row] = GUID.test(source)
        ? await db.select({ id: integrationSources.id }).from(integrationSources).where(and(eq(integrationSources.id, source), eq(integrationSources.partnerId, partnerId)))
        : [];
      if (!row) violations.push(bad(Rule.UnknownReference, 'IntegrationSource', "is not one of the partner's integration sources"));
    }
    const org = given(refs.organizationId);
    if (org !== undefined) {
      const [row] = GUID.test(org)
        ? await db.select({ id: organizations.id }).from(organizations).where(and(eq(organizations.id, org), eq(organizations.partnerId, partnerId)))
        : [];
      if (!row) violations.push(bad(Rule.UnknownReference, 'OrganizationGuid', "is not one of the partner's organizations"));
    }
    const charity = given(refs.charityId);
    if (charity !== undefined) {
      const [row] = GUID.test(charity) ? await db.select({ id: charities.id }).from(charities).where(eq(charities.id, charity)) : [];
      if (!row) violations.push(bad(Rule.UnknownReference, 'CharityId', 'is not a charity of the directory'));
    }
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
    db: DbOrTx,
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
      const quote = await this.#fees.quote(partner, { lines: [line], tokenRef: token.id, lineField: (_i, field) => field }, db);
      const b = quote.lines[0]!;
      return { commissionRate: b.totalCommissionRate, cardRate: token.kind === 'card' ? b.cardFeeRate : null };
    } catch (err) {
      if (err instanceof NotFoundError) {
        throw new ValidationError([
          bad(Rule.NoFeeSchedule, 'TransactionSourceGroupId', `cannot be used: the partner's contract has no fee schedule for group ${line.transactionSourceGroupId}`),
        ]);
      }
      throw err;
    }
  }
}
