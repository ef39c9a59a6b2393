import type { Cents } from '../domain/money.ts';

/**
 * The boundary to the processing bank. Every processor (the built-in simulator, or a real
 * acquirer's adapter) implements this; services never talk to a bank any other way.
 */
export interface CardDetails {
  number: string;
  expMonth: string;
  expYear: string;
  /** Never stored; passed through to the processor for the CVV check only. */
  cvv?: string;
  paymentMethodTypeId: number;
}

export interface BankAccountDetails {
  routingNumber: string;
  accountNumber: string;
  accountType: number;
  checkType: number;
  country: string;
}

export interface SaleRequest {
  /** Our PaymentGuid: an idempotency reference for the processor. */
  reference: string;
  amountCents: Cents;
  currency: string;
  card?: CardDetails;
  bank?: BankAccountDetails;
  /** A wallet payment (PaymentMethodTypeId 8/9) carries opaque wallet data instead of a card. */
  wallet?: { paymentMethodTypeId: number; data: string };
  billing: { name: string; street?: string; zip?: string };
  descriptor?: string;
}

export interface SaleResult {
  approved: boolean;
  responseCode: string;
  /** The gateway's message. */
  message: string;
  /** What the processing bank said. */
  processorMessage: string;
  authCode: string | null;
  /** The gateway transaction id (PaymentExternalId for refunds and voids). */
  transactionId: string;
  avsStreetStatus: string | null;
  avsZipStatus: string | null;
  avsResponse: string | null;
  cvvResponse: string | null;
  isSurchargeEligible: boolean | null;
}

export interface FollowUpRequest {
  /** Our id of the void or refund record. */
  reference: string;
  originalTransactionId: string;
  amountCents: Cents;
  kind: 'card' | 'ach';
}

export interface FollowUpResult {
  approved: boolean;
  responseCode: string;
  message: string;
  processorMessage: string;
  transactionId: string;
}

/** One processor's share of a settlement batch: the approved sales it is asked to capture. */
export interface SettleRequest {
  /**
   * Our reference of this processor's share of the batch, the same for every run of one
   * settlement moment and different for each processor: the processor's idempotency key.
   */
  batchId: string;
  /** Which of our processors (merchant accounts) the share is for: several can use one adapter. */
  processorId: string;
  cutoffAt: Date;
  transactionIds: string[];
  totals: { currency: string; count: number; amountCents: Cents }[];
}

export interface SettleResult {
  accepted: boolean;
  /** The processor's reference of the closed batch. */
  reference: string;
  message: string;
}

/**
 * What an adapter throws when its request certainly never reached the processor (no connection
 * could be made): nothing happened there, and the attempt is recorded as not processed. Any other
 * exception from `sale`, `void` or `refund` (a timeout, a broken answer) leaves the outcome
 * unknown: the processor may have acted, so the service keeps the payment or the claim open for an
 * operator (`payments pending`) rather than let it be tried again and charged or refunded twice.
 */
export class ProcessorNotReachedError extends Error {
  constructor(message = 'the processor could not be reached') {
    super(message);
    this.name = 'ProcessorNotReachedError';
  }
}

/** The processor did not answer within PROCESSOR_TIMEOUT: it may have acted (the outcome is unknown). */
export class ProcessorTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProcessorTimeoutError';
  }
}

export interface ProcessorAdapter {
  readonly name: string;
  sale(request: SaleRequest): Promise<SaleResult>;
  void(request: FollowUpRequest): Promise<FollowUpResult>;
  refund(request: FollowUpRequest): Promise<FollowUpResult>;
  /** Closes the batch: the processor captures these sales. Refused: nothing settles this time. */
  settle(request: SettleRequest): Promise<SettleResult>;
}
