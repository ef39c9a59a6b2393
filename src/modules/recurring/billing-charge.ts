import type { CalendarDate } from '../../domain/billing-dates.ts';
import type { FeeLineInput } from '../../domain/fees.ts';
import type { PaymentInputCommon } from '../payments/payment-input.ts';
import type { RecurringProfile } from './profile.ts';

/**
 * The payment a profile's bill date is charged as: one transaction line built from the profile's
 * fee terms, the stored token, and the profile and bill date it is for. It goes through the same
 * PaymentService as POST /api/payment (validation, fees, simulator, records).
 *
 * Amounts (docs/decisions.md, "Recurring billing"): without PayFee the line is Amount and the
 * fees come out of it; with PayFee the line is PreFeeAmount (Amount when there is none) and the
 * fee rules gross it up, so the payer covers the fees and the partner nets the pre-fee amount.
 * Fee rates: the partner's overrides, else the rates the profile took (UseOriginalFees).
 */
export function billingChargeLine(profile: RecurringProfile): FeeLineInput {
  return {
    transactionSourceGroupId: profile.transactionSourceGroupId,
    amountCents: profile.payFee ? (profile.preFeeAmountCents ?? profile.amountCents) : profile.amountCents,
    payFee: profile.payFee,
    commissionRateOverride: profile.commissionRateOverride ?? profile.feeCommissionRate ?? undefined,
    cardProcessingFeeOverride: profile.cardProcessingFeeOverride ?? profile.feeCardRate ?? undefined,
    tipCents: 0,
    taxCents: 0,
  };
}

export function billingChargeInput(profile: RecurringProfile, billDate: CalendarDate): PaymentInputCommon {
  const v = (x: string | null) => x ?? undefined;
  return {
    processorGuid: profile.processorId,
    organizationGuid: v(profile.organizationId),
    charityId: v(profile.charityId),
    integrationSource: v(profile.integrationSourceId),
    lines: [billingChargeLine(profile)],
    surchargeCents: profile.surchargeCents ?? undefined,
    ...profile.payer,
    currency: v(profile.currency),
    externalEventId: v(profile.externalEventId),
    externalEventGuid: v(profile.externalEventGuid),
    externalEventName: v(profile.externalEventName),
    tokenRef: profile.tokenId,
    recurring: { profileId: profile.id, billDate },
  };
}
