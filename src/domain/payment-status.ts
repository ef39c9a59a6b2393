/**
 * Result enumerations as the original service defines them (the spec does not show them; see
 * docs/decisions.md "Payments").
 */
export const PaymentResult = {
  Pending: 1,
  Processing: 2,
  Successful: 3,
  Failed: 4,
  Refunded: 5,
  Cancelled: 6,
} as const;
export type PaymentResultValue = (typeof PaymentResult)[keyof typeof PaymentResult];

/** There is no 3. */
export const ProcessStatus = {
  NotProcessed: 1,
  Authorized: 2,
  Settled: 4,
  Rejected: 5,
  RefundRequired: 6,
  AwaitingRefund: 7,
  Refunded: 8,
  Cancelled: 9,
  Chargeback: 10,
  RefundRejected: 11,
} as const;
export type ProcessStatusValue = (typeof ProcessStatus)[keyof typeof ProcessStatus];

/** The original gateway's result codes, used as ResponseCode. */
export const ResponseCode = {
  Approved: '0',
  NotProcessed: '-100',
  Declined: '12',
  Referral: '13',
  InsufficientFunds: '50',
  InvalidExpirationDate: '24',
  InvalidAbaNumber: '22',
  InvalidAccountNumber: '23',
  GeneralError: '99',
} as const;
export type ResponseCodeValue = (typeof ResponseCode)[keyof typeof ResponseCode];

/** PaymentMethodTypeId values of the spec. */
export const PaymentMethodType = {
  NONE: 0,
  AMEX: 1,
  MASTERCARD: 2,
  VISA: 3,
  DISCOVER: 4,
  DINERSCLUB: 5,
  JCB: 6,
  ACH: 7,
  WALLET_A: 8,
  WALLET_B: 9,
  GATEWAY_X: 10,
} as const;

export const PAYMENT_METHOD_TYPE_NAMES: Readonly<Record<number, string>> = Object.fromEntries(
  Object.entries(PaymentMethodType).map(([name, id]) => [id, name]),
);
