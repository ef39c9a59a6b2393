import type { FeeBreakdown, FeeLineInput } from '../../domain/fees.ts';
import type { AuthenticatedPartner } from '../../domain/partner.ts';
import { PaymentResult, ProcessStatus, ResponseCode } from '../../domain/payment-status.ts';
import type { StoredToken } from '../vault/token-service.ts';
import { duplicateChecked } from './duplicate-tran-id.ts';
import type { Instrument } from './instrument.ts';
import type { PaymentInputCommon } from './payment-input.ts';
import type { LineTotals, PaymentChanges, PaymentDraft } from './payment-record.ts';

/** The partner's references a payment is made under. */
export interface PaymentReferences {
  processor: { id: string; adapter: string; paymentMethodTypes: number[] };
  integrationSourceId: string | null;
  duplicateCheck: boolean;
  organizationId: string | null;
  charityId: string | null;
}

/** The currency of a billing country when the request names none. */
const DEFAULT_CURRENCY: Record<string, string> = { CA: 'CAD', AU: 'AUD' };

const text = (v: string | undefined) => (v === undefined || v.trim() === '' ? null : v.trim());

/** The totals of the lines (the request's amounts, tips and taxes; the quote's fees and commissions). */
export function lineTotals(quoted: readonly FeeBreakdown[], inputs: readonly FeeLineInput[]): LineTotals {
  const totals: LineTotals = { linesAmountCents: 0, linesTipCents: 0, linesTaxCents: 0, linesFeesCents: 0, linesCommissionCents: 0, linesPartnerCommissionCents: 0, linesPlatformCommissionCents: 0 };
  quoted.forEach((fees, i) => {
    const input = inputs[i]!;
    totals.linesAmountCents += input.amountCents;
    totals.linesTipCents += input.tipCents;
    totals.linesTaxCents += input.taxCents;
    totals.linesFeesCents += fees.totalFeesCents;
    totals.linesCommissionCents += fees.totalCommissionAmountCents;
    totals.linesPartnerCommissionCents += fees.partnerCommissionAmountCents;
    totals.linesPlatformCommissionCents += fees.platformCommissionAmountCents;
  });
  return totals;
}

/** The attempt as first written: Pending, not processed, with everything the request says of it. */
export function paymentDraft(
  id: string,
  now: Date,
  partner: AuthenticatedPartner,
  input: PaymentInputCommon,
  instrument: Instrument,
  refs: PaymentReferences,
  totalCents: number,
  quoted: readonly FeeBreakdown[],
): PaymentDraft {
  const country = text(input.country)?.toUpperCase() ?? (instrument.kind === 'bank' ? instrument.country : null);
  const tranId = text(input.tranId);
  const token = instrument.kind !== 'wallet' ? instrument.token : undefined;
  return {
    id,
    partnerId: partner.id,
    processorId: refs.processor.id,
    organizationId: refs.organizationId,
    charityId: refs.charityId,
    integrationSourceId: refs.integrationSourceId,
    duplicateChecked: duplicateChecked(refs.duplicateCheck, tranId),
    method: instrument.kind === 'bank' ? 'ach' : instrument.kind,
    paymentMethodTypeId: instrument.paymentMethodTypeId,
    tranId,
    responseCode: ResponseCode.NotProcessed,
    successful: false,
    paymentResult: PaymentResult.Pending,
    processStatus: ProcessStatus.NotProcessed,
    totalAmountCents: totalCents,
    ...lineTotals(quoted, input.lines),
    surchargeCents: input.surchargeCents ?? null,
    shippingFeeCents: input.shippingFeeCents ?? null,
    taxableBenefitCents: input.taxableBenefitCents ?? null,
    currency: text(input.currency)?.toUpperCase() ?? DEFAULT_CURRENCY[country ?? ''] ?? 'USD',
    firstName: text(input.firstName),
    lastName: text(input.lastName),
    email: text(input.email),
    zip: text(input.zip),
    street: text(input.street),
    city: text(input.city),
    state: text(input.state)?.toUpperCase() ?? null,
    country,
    ipAddress: text(input.ipAddress),
    nameOnAccount: instrument.name || null,
    cardLast4: instrument.kind === 'card' ? instrument.last4 : null,
    cardType: instrument.kind === 'card' ? instrument.cardType : null,
    expMonth: instrument.kind === 'card' ? instrument.expMonth : null,
    expYear: instrument.kind === 'card' ? instrument.expYear : null,
    checkAccountLast4: instrument.kind === 'bank' ? instrument.last4 : null,
    checkRoutingNumber: instrument.kind === 'bank' ? instrument.routingNumber : null,
    checkNumber: instrument.kind === 'bank' ? (instrument.checkNumber ?? null) : null,
    checkAccountTypeId: instrument.kind === 'bank' ? instrument.accountType : null,
    checkTypeId: instrument.kind === 'bank' ? instrument.checkType : null,
    tokenId: token ? token.id : null,
    // A stored payment method belongs to its constituent: a payment with it is theirs unless the request says otherwise.
    externalConstituentId: text(input.externalConstituentId) ?? token?.externalConstituentId ?? null,
    externalCustomerId: text(input.externalCustomerId),
    billingDescriptor: text(input.billingDescriptor),
    externalEventId: text(input.externalEventId),
    externalEventGuid: text(input.externalEventGuid)?.toLowerCase() ?? null,
    externalEventName: text(input.externalEventName),
    epfSessionId: text(input.epfSessionId),
    mkey: text(input.mKey),
    gwShield: input.gwShieldAdditional && Object.keys(input.gwShieldAdditional).length > 0 ? input.gwShieldAdditional : null,
    recurringProfileId: input.recurring?.profileId ?? null,
    billDate: input.recurring?.billDate ?? null,
    payLinkId: input.payLinkId ?? null,
    createdAt: now,
  };
}

/** The payment's fields that point at its stored token. */
export function tokenColumns(token: StoredToken): PaymentChanges {
  return {
    tokenId: token.id,
    externalCardToken: token.kind === 'card' ? token.gatewayKey : null,
    externalCheckToken: token.kind === 'bank' ? token.gatewayKey : null,
    externalCustomerId: token.customerKey,
  };
}
