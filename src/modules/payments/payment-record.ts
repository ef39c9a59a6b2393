import type { FeeBreakdown } from '../../domain/fees.ts';

/** A payment attempt as the services know it: every stored field, money in cents. */
export interface Payment {
  /** PaymentGuid */
  id: string;
  /** PaymentId: the int id, given by the database when the attempt is first written. */
  paymentId: number;
  partnerId: string;
  processorId: string;
  organizationId: string | null;
  charityId: string | null;
  integrationSourceId: string | null;
  /** Whether the duplicate-TranId rule applies to this attempt (duplicate-tran-id.ts). */
  duplicateChecked: boolean;
  method: 'card' | 'ach' | 'wallet';
  paymentMethodTypeId: number | null;
  tranId: string | null;
  transactionId: string | null;
  authCode: string | null;
  responseCode: string;
  message: string | null;
  processorMessage: string | null;
  successful: boolean;
  paymentResult: number;
  processStatus: number;
  totalAmountCents: number;
  /** The totals of its lines (amounts, tips, taxes, fees, commissions), written with them. */
  linesAmountCents: number;
  linesTipCents: number;
  linesTaxCents: number;
  linesFeesCents: number;
  linesCommissionCents: number;
  linesPartnerCommissionCents: number;
  linesPlatformCommissionCents: number;
  surchargeCents: number | null;
  shippingFeeCents: number | null;
  taxableBenefitCents: number | null;
  currency: string | null;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  zip: string | null;
  street: string | null;
  city: string | null;
  state: string | null;
  country: string | null;
  ipAddress: string | null;
  nameOnAccount: string | null;
  cardLast4: string | null;
  cardType: string | null;
  expMonth: string | null;
  expYear: string | null;
  checkAccountLast4: string | null;
  checkRoutingNumber: string | null;
  checkNumber: string | null;
  checkAccountTypeId: number | null;
  checkTypeId: number | null;
  avsStreetStatus: string | null;
  avsZipStatus: string | null;
  avsResponse: string | null;
  cvvResponse: string | null;
  isSurchargeEligible: boolean | null;
  tokenId: string | null;
  externalCardToken: string | null;
  externalCheckToken: string | null;
  externalCustomerId: string | null;
  externalConstituentId: string | null;
  billingDescriptor: string | null;
  externalEventId: string | null;
  externalEventGuid: string | null;
  externalEventName: string | null;
  epfSessionId: string | null;
  mkey: string | null;
  gwShield: Record<string, string> | null;
  createdAt: Date;
  processedAt: Date | null;
  settlementBatchId: string | null;
  settledAt: Date | null;
  /** The refund or void in flight, which holds the payment until it completes. */
  pendingAdjustmentId: string | null;
  recurringProfileId: string | null;
  /** yyyy-MM-dd */
  billDate: string | null;
  payLinkId: string | null;
}

/** Kept for the modules that name a payment so. */
export type PaymentRow = Payment;

/** What is written of a new attempt: the fields it has (the rest are null), without the int id the database gives. */
export type PaymentDraft = Pick<Payment, 'id' | 'partnerId' | 'processorId' | 'duplicateChecked' | 'method' | 'responseCode' | 'successful' | 'paymentResult' | 'processStatus' | 'totalAmountCents' | 'createdAt'> &
  LineTotals &
  Partial<Omit<Payment, 'paymentId'>>;

/** The totals of a payment's lines, kept on its row. */
export type LineTotals = Pick<
  Payment,
  'linesAmountCents' | 'linesTipCents' | 'linesTaxCents' | 'linesFeesCents' | 'linesCommissionCents' | 'linesPartnerCommissionCents' | 'linesPlatformCommissionCents'
>;

/** Fields written on an attempt after it was first written (the processor's answer, a token). */
export type PaymentChanges = Partial<Omit<Payment, 'id' | 'paymentId'>>;

/** A payment as the services hand it to the surfaces: its fields and the fee breakdown of each line. */
export interface PaymentRecord {
  payment: Payment;
  lines: FeeBreakdown[];
}
