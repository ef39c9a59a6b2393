import { type BillingFrequency, nextBillDate, toYmd, utcDate } from '../../domain/billing-dates.ts';
import type { PaymentRecord } from '../payments/payment-record.ts';
import type { CreateRecurringProfileInput } from '../recurring/profile-service.ts';
import type { PayLink } from './paylink.ts';
import { type PayLinkLine, RECURRING_FREQUENCIES } from './paylink-rules.ts';

/**
 * The profile of a recurring line, after the first payment (which stored the payment method as
 * `tokenId`): it bills that payment method from the next bill date after today (today's charge
 * was the link's payment), at the line's amount (grossed up at each charge when the payer covers
 * the fees).
 */
export function recurringProfileOf(link: PayLink, line: PayLinkLine, record: PaymentRecord, tokenId: string): CreateRecurringProfileInput {
  const p = record.payment;
  const frequency = RECURRING_FREQUENCIES[line.recurring] as BillingFrequency;
  const startDate = utcDate(p.createdAt);
  const charged = record.lines[0]?.paymentAmountCents ?? line.amountCents;
  return {
    tokenRef: tokenId,
    amountCents: line.payFee ? charged : line.amountCents,
    preFeeAmountCents: line.payFee ? line.amountCents : undefined,
    payFee: line.payFee,
    transactionSourceGroupId: line.type,
    frequency,
    startDate,
    nextBillDate: nextBillDate(startDate, { frequency, anchorDay: toYmd(startDate).day }),
    integrationSourceId: p.integrationSourceId ?? undefined,
    processorId: p.processorId,
    organizationId: p.organizationId ?? undefined,
    charityId: p.charityId ?? undefined,
    externalEventId: link.settings.externalEventId ?? undefined,
    externalEventName: link.settings.externalEventName ?? undefined,
    payer: {
      email: p.email ?? undefined,
      firstName: p.firstName ?? undefined,
      lastName: p.lastName ?? undefined,
      street: p.street ?? undefined,
      city: p.city ?? undefined,
      state: p.state ?? undefined,
      zip: p.zip ?? undefined,
      country: p.country ?? undefined,
      currency: p.currency ?? undefined,
      externalConstituentId: p.externalConstituentId ?? undefined,
    },
    firstPaymentId: p.id,
  };
}
