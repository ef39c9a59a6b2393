import type { BillingFrequency, CalendarDate } from '../../domain/billing-dates.ts';
import type { ProfileStatus } from '../../domain/billing-profile.ts';
import type { Holder } from '../../domain/holder.ts';
import type { Cents } from '../../domain/money.ts';

/**
 * A recurring profile as the module keeps it: its references, its terms, where it stands in its
 * billing, the fee rates it took, and who pays. Money in cents, dates as calendar dates.
 */
export interface RecurringProfile {
  /** RecurringProfileGuid */
  id: string;
  /** RecurringProfileId: the profile's number, increasing. */
  profileId: number;
  partnerId: string;
  tokenId: string;
  processorId: string;
  integrationSourceId: string | null;
  organizationId: string | null;
  charityId: string | null;
  status: ProfileStatus;
  billingFrequency: BillingFrequency;
  /** 1-31: the day month steps keep. */
  anchorDay: number;
  startDate: CalendarDate;
  endDate: CalendarDate | null;
  /** The bill date charged next. */
  nextBillDate: CalendarDate;
  /** When the next charge is tried: the bill date, or a retry day after a failure. */
  nextAttemptOn: CalendarDate;
  /** Failed charges of `nextBillDate` so far. */
  failedAttempts: number;
  amountCents: Cents;
  preFeeAmountCents: Cents | null;
  payFee: boolean;
  transactionSourceGroupId: number;
  commissionRateOverride: string | null;
  cardProcessingFeeOverride: string | null;
  surchargeCents: Cents | null;
  /** The rates the profile took from the partner's contract (kept for every charge unless retaken). */
  feeCommissionRate: string | null;
  feeCardRate: string | null;
  feesTakenAt: Date;
  externalEventId: string | null;
  externalEventGuid: string | null;
  externalEventName: string | null;
  /** Who pays, for the charges' records. */
  payer: Holder;
  currency: string | null;
  /** The payment of the last charge tried (for a profile a pay link started: the link's payment, until the first charge). */
  lastPaymentId: string | null;
  lastAttemptAt: Date | null;
  /** Why the last charge failed, while `nextBillDate` is unpaid. */
  lastFailure: string | null;
  createdAt: Date;
  updatedAt: Date;
  suspendedAt: Date | null;
  completedAt: Date | null;
  cancelledAt: Date | null;
}

/** A profile to store: everything but its number and what billing writes later. */
export type NewRecurringProfile = Omit<RecurringProfile, 'profileId' | 'lastAttemptAt' | 'lastFailure' | 'suspendedAt' | 'completedAt' | 'cancelledAt'>;

/** What a partner's update or cancellation changes; an absent (undefined) field stays as it is. */
export type RecurringProfileChanges = Partial<
  Pick<
    RecurringProfile,
    | 'status'
    | 'billingFrequency'
    | 'anchorDay'
    | 'startDate'
    | 'endDate'
    | 'nextBillDate'
    | 'nextAttemptOn'
    | 'failedAttempts'
    | 'amountCents'
    | 'preFeeAmountCents'
    | 'payFee'
    | 'transactionSourceGroupId'
    | 'commissionRateOverride'
    | 'cardProcessingFeeOverride'
    | 'surchargeCents'
    | 'feeCommissionRate'
    | 'feeCardRate'
    | 'feesTakenAt'
    | 'integrationSourceId'
    | 'externalEventId'
    | 'externalEventGuid'
    | 'externalEventName'
    | 'completedAt'
    | 'cancelledAt'
    | 'updatedAt'
  >
>;

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

/** Who pays, for the charges' records, and the currency. Optional: the name, street, zip and constituent id are taken from the token when absent. */
export interface RecurringPayer extends Holder {
  currency?: string;
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
