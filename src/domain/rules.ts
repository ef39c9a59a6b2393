/**
 * The catalogue of the service's rules: a violation names the rule it breaks. Each edge says it in
 * its own words (surface A: the BrokenRule ErrorCode of src/http/api/rules.ts).
 */
export const Rule = {
  /** The body is not valid JSON, or not a JSON object. */
  InvalidRequest: 'InvalidRequest',
  Required: 'Required',
  MaxLength: 'MaxLength',
  InvalidFormat: 'InvalidFormat',
  InvalidType: 'InvalidType',
  OutOfRange: 'OutOfRange',
  /** Not one of the allowed values. */
  InvalidValue: 'InvalidValue',
  /** Unknown ClientId or wrong ClientSecret: one code for both, so accounts cannot be enumerated. */
  AuthenticationFailed: 'AuthenticationFailed',
  /** Fees: the TransactionSourceGroupId is not allowed for the partner's kind (12 is for-profit only). */
  FeeGroupNotAllowed: 'FeeGroupNotAllowed',
  /** Fees: TokenGuid sent together with PaymentMethodTypeId or CreditCardTypeId. */
  FeeTokenWithPaymentMethodType: 'FeeTokenWithPaymentMethodType',
  /** Fees: PaymentMethodTypeId and CreditCardTypeId both sent, with different values. */
  FeePaymentMethodTypeConflict: 'FeePaymentMethodTypeConflict',
  /** Fees: the calculation cannot give a usable amount (beyond the largest amount handled). */
  FeeCalculationFailed: 'FeeCalculationFailed',
  /** Payments: the card number fails Luhn, or its brand is not accepted. */
  CardNumberInvalid: 'CardNumberInvalid',
  /** Payments: the card has expired. */
  CardExpired: 'CardExpired',
  /** Payments: the routing (transit, BSB) number is invalid for the account's country. */
  RoutingNumberInvalid: 'RoutingNumberInvalid',
  /** Payments: a for-profit partner must name its processor (ProcessorGuid). */
  ProcessorRequired: 'ProcessorRequired',
  /** Payments: a processor, charity, organization, integration source or token that is not the partner's. */
  UnknownReference: 'UnknownReference',
  /** Payments: the processor does not accept this payment method (card brand, ACH, wallet). */
  PaymentMethodNotAccepted: 'PaymentMethodNotAccepted',
  /** Payments: the partner's contract has no fee schedule for a line's TransactionSourceGroupId. */
  NoFeeSchedule: 'NoFeeSchedule',
  /** Payments: the account number is invalid for the account's country. */
  AccountNumberInvalid: 'AccountNumberInvalid',
  /** Refunds and voids: neither PaymentGuid nor PaymentExternalId was given. */
  PaymentReferenceRequired: 'PaymentReferenceRequired',
  /** Refunds and voids: ProcessorGuid names one of the partner's processors, but not the payment's. */
  ProcessorNotOfPayment: 'ProcessorNotOfPayment',
  /** Recurring billing: BillingFrequency is not one of the spec's frequencies (on a profile). */
  RecurringFrequencyUnknown: 'RecurringFrequencyUnknown',
  /** Recurring billing: EndDate is not after StartDate. */
  RecurringEndDateNotAfterStart: 'RecurringEndDateNotAfterStart',
  /** Recurring billing: NextBillDate is not after StartDate. */
  RecurringNextBillDateNotAfterStart: 'RecurringNextBillDateNotAfterStart',
  /** Recurring billing: NextBillDate is in the past. */
  RecurringNextBillDateInPast: 'RecurringNextBillDateInPast',
  /** Recurring billing: NextBillDate is after EndDate (or the schedule leaves no bill date before EndDate). */
  RecurringNextBillDateAfterEnd: 'RecurringNextBillDateAfterEnd',
  /** Recurring billing: the profile is cancelled; it cannot be updated or cancelled again. */
  RecurringProfileCancelled: 'RecurringProfileCancelled',
  /** Recurring billing: PreFeeAmount is larger than Amount. */
  RecurringPreFeeAboveAmount: 'RecurringPreFeeAboveAmount',
  /** Pay links: the body's ApiKey is not the partner's pay-link key. */
  PayLinkApiKeyInvalid: 'PayLinkApiKeyInvalid',
  /** Pay links: a link with a recurring line has exactly one line. */
  PayLinkRecurringLineNotAlone: 'PayLinkRecurringLineNotAlone',
  /** Pay links: WorkflowType 3 and 4 need ExternalConstituentId (the customer whose cards they keep). */
  PayLinkConstituentRequired: 'PayLinkConstituentRequired',
  /** Pay links: WorkflowType 3 and 4 take no PaymentLines; a payment link (1) needs at least one. */
  PayLinkLinesNotAllowed: 'PayLinkLinesNotAllowed',
  /** Pay links: TokenGuid and ExternalCardToken both name a stored card, or ExternalCheckToken another bank account than TokenGuid; send one. */
  PayLinkTokenConflict: 'PayLinkTokenConflict',
  /** Pay links: the token is not of the kind the field names (a bank account as ExternalCardToken ...). */
  PayLinkTokenKindMismatch: 'PayLinkTokenKindMismatch',
  /** Pay links: the TranId is already a payment's (duplicate checking on): the link could never be paid. */
  PayLinkTranIdUsed: 'PayLinkTranIdUsed',
  /** Charity search: none of Name, EIN, City or State was given. */
  CharitySearchCriterionRequired: 'CharitySearchCriterionRequired',
  /** Charity search: Name has no letter or digit to search for. */
  CharityNameUnsearchable: 'CharityNameUnsearchable',
  /** Charity search: EIN is neither a US EIN nor a Canadian business number. */
  CharityEinInvalid: 'CharityEinInvalid',
  /** Charity search: EIN is in the other country's form (a BN with CharitySource 1, or a dashed EIN with 2). */
  CharityEinOfOtherSource: 'CharityEinOfOtherSource',
  /** Idempotency keys: the Idempotency-Key header is not 1 to 255 printable ASCII characters (or their quoted string), or is sent twice. */
  IdempotencyKeyInvalid: 'IdempotencyKeyInvalid',
  // Transaction reports (src/modules/reports).
  /** Reports: a filter or sort column names no field of the report row. */
  ReportFieldUnknown: 'ReportFieldUnknown',
  /** Reports: the filter's operation does not apply to its field's type (Contains on an amount). */
  ReportOperationNotForField: 'ReportOperationNotForField',
  /** Reports: a filter value is not one of its field (a date not yyyy-MM-dd), or there are too few or too many values for the operation. */
  ReportFilterValueInvalid: 'ReportFilterValueInvalid',
  /** Reports: a column sorted by twice, or two sort columns with the same Order. */
  ReportSortInvalid: 'ReportSortInvalid',
  // Notifications (src/modules/notifications).
  /** Notifications: NotificationProtocolTypeId 2 (e-mail) is not supported; 1 (web) is. */
  NotificationProtocolNotSupported: 'NotificationProtocolNotSupported',
  /** Notifications: the URL is not one notifications may be sent to (scheme, length, credentials, or a private address). */
  NotificationUrlNotAllowed: 'NotificationUrlNotAllowed',
} as const;

export type RuleName = keyof typeof Rule;

/** One broken rule, in the service's own terms; the edge writes it as a BrokenRule. */
export interface RuleViolation {
  code: RuleName;
  /** The field, with a path for nested ones. */
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
