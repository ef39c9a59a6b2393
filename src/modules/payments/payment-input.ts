import type { FeeLineInput } from '../../domain/fees.ts';
import type { Cents } from '../../domain/money.ts';

/**
 * What a payment request says, as every surface hands it to the payment service: text fields as
 * sent (the service validates them, so the API, the pay page and the billing worker share one
 * set of rules), transaction lines and amounts already read into cents by the caller.
 * Violations name fields by their surface A wire names (`CardNum`, `Zip`, ...).
 */
export interface PaymentInputCommon {
  processorGuid?: string;
  mKey?: string;
  charityId?: string;
  organizationGuid?: string;
  integrationSource?: string;
  lines: FeeLineInput[];
  shippingFeeCents?: Cents;
  surchargeCents?: Cents;
  taxableBenefitCents?: Cents;
  email?: string;
  firstName?: string;
  lastName?: string;
  street?: string;
  city?: string;
  state?: string;
  zip?: string;
  country?: string;
  currency?: string;
  ipAddress?: string;
  externalConstituentId?: string;
  externalCustomerId?: string;
  billingDescriptor?: string;
  externalEventId?: string;
  externalEventGuid?: string;
  externalEventName?: string;
  tranId?: string;
  epfSessionId?: string;
  gwShieldAdditional?: Record<string, string>;
  tokenize?: boolean;
  /**
   * Pay with a stored token instead of card or account data (pay page, recurring billing):
   * a TokenGuid or a gateway key (CcInfoKey / CheckInfoKey) of the partner.
   */
  tokenRef?: string;
  /** Recurring billing: the profile and bill date this charge is for. */
  recurring?: { profileId: string; billDate: string };
  /** The pay link whose page takes this payment. */
  payLinkId?: string;
}

export interface CardPaymentInput extends PaymentInputCommon {
  cardNum?: string;
  /** Ignored: the brand is detected from the number. */
  cardType?: string;
  expMonth?: string;
  expYear?: string;
  cvNum?: string;
  nameOnCard?: string;
  /** `8` or `9`: a wallet transaction paid with ExternalPaymentData instead of card data. */
  paymentMethodTypeId?: string;
  externalPaymentData?: string;
}

export interface AchPaymentInput extends PaymentInputCommon {
  checkRoutingNumber?: string;
  checkAccountNumber?: string;
  checkNumber?: string;
  checkAccountTypeId?: string;
  checkTypeId?: string;
  nameOnCheck?: string;
  /** If sent, `7`. */
  paymentMethodTypeId?: string;
}
