/**
 * The catalogue of BrokenRule ErrorCode values (documented in docs/errors.md). Ranges:
 * 1000-1099 request shape, 1100-1199 authentication, 2000-2099 fees, 3000-3099 payments,
 * 4000-4099 refunds and voids, 5000-5099 recurring billing, 6000-6099 pay links,
 * 7000-7099 charity search.
 */
export const ErrorCode = {
  /** The body is not valid JSON, or not a JSON object. */
  InvalidRequest: 1000,
  Required: 1001,
  MaxLength: 1002,
  InvalidFormat: 1003,
  InvalidType: 1004,
  OutOfRange: 1005,
  /** Not one of the allowed values. */
  InvalidValue: 1006,
  /** Unknown ClientId or wrong ClientSecret: one code for both, so accounts cannot be enumerated. */
  AuthenticationFailed: 1100,
  /** Fees: the TransactionSourceGroupId is not allowed for the partner's kind (12 is for-profit only). */
  FeeGroupNotAllowed: 2000,
  /** Fees: TokenGuid sent together with PaymentMethodTypeId or CreditCardTypeId. */
  FeeTokenWithPaymentMethodType: 2001,
  /** Fees: PaymentMethodTypeId and CreditCardTypeId both sent, with different values. */
  FeePaymentMethodTypeConflict: 2002,
  /** Fees: the calculation cannot give a usable amount (beyond the largest amount handled). */
  FeeCalculationFailed: 2003,
  /** Payments: the card number fails Luhn, or its brand is not accepted. */
  CardNumberInvalid: 3000,
  /** Payments: the card has expired. */
  CardExpired: 3001,
  /** Payments: the routing (transit, BSB) number is invalid for the account's country. */
  RoutingNumberInvalid: 3002,
  /** Payments: a for-profit partner must name its processor (ProcessorGuid). */
  ProcessorRequired: 3003,
  /** Payments: a processor, charity, organization, integration source or token that is not the partner's. */
  UnknownReference: 3004,
  /** Payments: the processor does not accept this payment method (card brand, ACH, wallet). */
  PaymentMethodNotAccepted: 3005,
  /** Payments: the partner's contract has no fee schedule for a line's TransactionSourceGroupId. */
  NoFeeSchedule: 3006,
  /** Payments: the account number is invalid for the account's country. */
  AccountNumberInvalid: 3007,
  /** Refunds and voids: neither PaymentGuid nor PaymentExternalId was given. */
  PaymentReferenceRequired: 4000,
  /** Refunds and voids: ProcessorGuid names one of the partner's processors, but not the payment's. */
  ProcessorNotOfPayment: 4001,
  /** Recurring billing: BillingFrequency is not one of the spec's frequencies (on a profile). */
  RecurringFrequencyUnknown: 5000,
  /** Recurring billing: EndDate is not after StartDate. */
  RecurringEndDateNotAfterStart: 5001,
  /** Recurring billing: NextBillDate is not after StartDate. */
  RecurringNextBillDateNotAfterStart: 5002,
  /** Recurring billing: NextBillDate is in the past. */
  RecurringNextBillDateInPast: 5003,
  /** Recurring billing: NextBillDate is after EndDate (or the schedule leaves no bill date before EndDate). */
  RecurringNextBillDateAfterEnd: 5004,
  /** Recurring billing: the profile is cancelled; it cannot be updated or cancelled again. */
  RecurringProfileCancelled: 5005,
  /** Recurring billing: PreFeeAmount is larger than Amount. */
  RecurringPreFeeAboveAmount: 5006,
  /** Pay links: the body's ApiKey is not the partner's pay-link key. */
  PayLinkApiKeyInvalid: 6000,
  /** Pay links: a link with a recurring line has exactly one line. */
  PayLinkRecurringLineNotAlone: 6001,
  /** Pay links: WorkflowType 3 and 4 need ExternalConstituentId (the customer whose cards they keep). */
  PayLinkConstituentRequired: 6002,
  /** Pay links: WorkflowType 3 and 4 take no PaymentLines; a payment link (1) needs at least one. */
  PayLinkLinesNotAllowed: 6003,
  /** Pay links: TokenGuid and ExternalCardToken both name a stored card, or ExternalCheckToken another bank account than TokenGuid; send one. */
  PayLinkTokenConflict: 6004,
  /** Pay links: the token is not of the kind the field names (a bank account as ExternalCardToken ...). */
  PayLinkTokenKindMismatch: 6005,
  /** Pay links: the TranId is already a payment's (duplicate checking on): the link could never be paid. */
  PayLinkTranIdUsed: 6006,
  /** Charity search: none of Name, EIN, City or State was given. */
  CharitySearchCriterionRequired: 7000,
  /** Charity search: Name has no letter or digit to search for. */
  CharityNameUnsearchable: 7001,
  /** Charity search: EIN is neither a US EIN nor a Canadian business number. */
  CharityEinInvalid: 7002,
  /** Charity search: EIN is in the other country's form (a BN with CharitySource 1, or a dashed EIN with 2). */
  CharityEinOfOtherSource: 7003,
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

/** One broken rule, in the service's own terms; the edge writes it as a BrokenRule. */
export interface RuleViolation {
  code: number;
  /** The wire name of the field, with a path for nested ones (`Transactions[0].Amount`). */
  field?: string;
  message: string;
}

/** One violation per field (per code for those without a field): the first one given wins. */
export function firstPerField(violations: readonly RuleViolation[]): RuleViolation[] {
  const seen = new Set<string>();
  return violations.filter((v) => {
    const key = v.field ?? `#${v.code}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
