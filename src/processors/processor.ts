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
  /**
   * Which of our processors (merchant accounts) the sale is for: several can use one adapter, each
   * with its own credentials. `ProcessorRegistry.forProcessor` fills it in; an adapter with
   * credentials per processor (Authorize.Net) sends nothing without it.
   */
  processorId?: string;
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
  /** Which of our processors (merchant accounts) made the payment (see SaleRequest.processorId). */
  processorId?: string;
  originalTransactionId: string;
  amountCents: Cents;
  kind: 'card' | 'ach';
  /**
   * The bank account the payment was taken from, for a processor that needs it to refund an ACH
   * payment (`capabilities.achRefundNeedsAccount`): the payment's stored token holds it.
   */
  account?: BankAccountDetails & { nameOnAccount: string };
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

/** A call's options: its deadline (`PROCESSOR_TIMEOUT`, set by the registry) and the caller's, as one signal. */
export interface CallOptions {
  /** Aborted when the call's answer is no longer awaited: the adapter stops its request. */
  signal?: AbortSignal;
}

/**
 * A look-up of something we sent: a sale (by our PaymentGuid), a refund or a void (by our id of
 * it), whose answer we never recorded (a timeout, a stop between asking and recording).
 */
export interface LookupRequest {
  kind: 'sale' | 'refund' | 'void';
  /** Our reference, as the request carried it (SaleRequest.reference, FollowUpRequest.reference). */
  reference: string;
  processorId?: string;
  /** When we asked: the processor's records are searched from shortly before it. */
  sentAt: Date;
  /** A refund's or void's: the payment's transaction at the processor. */
  originalTransactionId?: string;
  amountCents: Cents;
}

/** What the processor's records say of a request we sent. */
export type LookupResult =
  | {
      found: false;
      /** In the processor's words, for the operator's log. */
      detail: string;
    }
  | {
      found: true;
      /**
       * approved: it went through (a void: the payment is voided); declined: it was refused or
       * failed at the processor, nothing moved; pending: the processor has not decided yet (held
       * for review); unclear: a state no rule here reads (an operator looks).
       */
      outcome: 'approved' | 'declined' | 'pending' | 'unclear';
      transactionId: string | null;
      authCode: string | null;
      /** What the processor records as the amount (cents), when it says. */
      amountCents: Cents | null;
      /** A sale approved and then voided at the processor. */
      voided: boolean;
      /** Settled by the processor (and when). */
      settledAt: Date | null;
      /** The processor's own name for the state, for the operator's log. */
      status: string;
    };

/** The processor's own report of what it settled (capabilities.settlesItself). */
export interface SettlementReportRequest {
  processorId?: string;
  /** Settlement times from (inclusive) ... */
  from: Date;
  /** ... to (exclusive). */
  to: Date;
}

export interface SettledTransaction {
  transactionId: string;
  /** The processor's batch. */
  batchId: string;
  settledAt: Date;
  kind: 'sale' | 'refund';
  /**
   * settled: the money moved; returned: an ACH debit settled and then came back (R01 ...), with
   * the return's code; failed: the processor could not settle it.
   */
  state: 'settled' | 'returned' | 'failed';
  amountCents: Cents;
  /** Our reference, as far as the processor's report carries it (Authorize.Net: the invoice number). */
  referenceHint: string | null;
  returnCode?: string;
}

export interface SettlementReport {
  transactions: SettledTransaction[];
}

/** What an adapter can do, declared: `GET /api/processorPaymentMethodTypes` and the rules read it. */
export interface ProcessorCapabilities {
  /** PaymentMethodTypeIds it can charge (1-6 card brands, 7 ACH, 8-9 wallets, 10 gateway). */
  paymentMethodTypes: readonly number[];
  /** Countries of the bank accounts it debits (ACH). */
  achCountries: readonly string[];
  /** A void must carry the original amount. */
  voidNeedsOriginalAmount: boolean;
  /** It refunds part of a payment. */
  partialRefunds: boolean;
  /** An ACH refund needs the bank account (FollowUpRequest.account). */
  achRefundNeedsAccount: boolean;
  /**
   * It settles by itself (daily batches of its own): `settle` only confirms what it settled, and
   * `settlementReport` says which transactions it settled.
   */
  settlesItself: boolean;
  /**
   * After this long since a request was sent, a look-up that does not find it means it never
   * happened (its records may lag behind until then).
   */
  notFoundIsFinalAfterMs: number;
}

/** The adapter cannot look transactions up (it keeps no record of them): an operator does. */
export class LookupUnsupportedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LookupUnsupportedError';
  }
}

/** The processor took the request but has not decided (held for review): the outcome is unknown until a look-up says. */
export class ProcessorOutcomePendingError extends Error {
  /** The processor's id of the transaction it holds. */
  readonly transactionId: string | null;
  constructor(message: string, transactionId: string | null) {
    super(message);
    this.name = 'ProcessorOutcomePendingError';
    this.transactionId = transactionId;
  }
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

/**
 * Every call takes the options' signal: when it aborts (the deadline passed), the adapter stops its
 * request and the call fails; its outcome is then unknown, as for any failure after sending.
 */
export interface ProcessorAdapter {
  readonly name: string;
  readonly capabilities: ProcessorCapabilities;
  sale(request: SaleRequest, options?: CallOptions): Promise<SaleResult>;
  void(request: FollowUpRequest, options?: CallOptions): Promise<FollowUpResult>;
  refund(request: FollowUpRequest, options?: CallOptions): Promise<FollowUpResult>;
  /**
   * Closes the batch: the processor captures these sales. Refused: nothing settles this time. A
   * processor that settles by itself accepts only when it has settled every one of them.
   */
  settle(request: SettleRequest, options?: CallOptions): Promise<SettleResult>;
  /** What the processor's records say of a request we sent (see LookupResult). */
  lookup(request: LookupRequest, options?: CallOptions): Promise<LookupResult>;
  /** What it settled by itself between two moments (capabilities.settlesItself). */
  settlementReport?(request: SettlementReportRequest, options?: CallOptions): Promise<SettlementReport>;
  /** Checks a processor's credentials (`payments processors test`): the processor's words when refused. */
  checkCredentials?(request: { processorId: string }, options?: CallOptions): Promise<{ ok: boolean; message: string }>;
}
