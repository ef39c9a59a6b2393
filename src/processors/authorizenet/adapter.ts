import { ResponseCode } from '../../domain/payment-status.ts';
import {
  type CallOptions,
  type FollowUpRequest,
  type FollowUpResult,
  type LookupRequest,
  type LookupResult,
  type ProcessorAdapter,
  type ProcessorCapabilities,
  ProcessorNotReachedError,
  ProcessorOutcomePendingError,
  type SaleRequest,
  type SaleResult,
  type SettleRequest,
  type SettleResult,
  type SettledTransaction,
  type SettlementReport,
  type SettlementReportRequest,
} from '../processor.ts';
import { DUPLICATE, SYSTEM_VOID_FAILED, avsOf, cvvOf, declineReason, errorReason, followUpRefusal, outcomeOfStatus } from './answers.ts';
import { type ApiResponse, ENDPOINTS, type Environment, type MerchantAuthentication, firstMessage, postApi } from './client.ts';
import {
  type BatchDetails,
  type CreateTransactionResponse,
  type RefundPayment,
  type SettledBatchListResponse,
  type TransactionDetails,
  type TransactionDetailsResponse,
  type TransactionListResponse,
  type TransactionResponse,
  type TransactionSummary,
  centsOf,
  descriptionOf,
  echeckOf,
  invoiceNumberOf,
  listOf,
  refundBody,
  saleBody,
  utcText,
  voidBody,
} from './messages.ts';

/** One processor's (merchant account's) credentials, opened from the vault. Never logged or printed. */
export interface AuthorizeNetCredentials {
  apiLoginId: string;
  transactionKey: string;
  environment: Environment;
}

/** Where the adapter gets a processor's credentials (the processor-accounts module, from the vault). */
export interface AuthorizeNetAccounts {
  credentials(processorId: string): Promise<AuthorizeNetCredentials>;
}

export const AUTHORIZE_NET_CAPABILITIES: ProcessorCapabilities = {
  // Cards (AMEX, Mastercard, Visa, Discover, Diners Club, JCB) and eCheck.Net; no wallets here.
  paymentMethodTypes: [1, 2, 3, 4, 5, 6, 7],
  // eCheck.Net debits US bank accounts only.
  achCountries: ['US'],
  voidNeedsOriginalAmount: false,
  partialRefunds: true,
  // An eCheck refund carries the whole account (a card refund only the last 4 digits).
  achRefundNeedsAccount: true,
  // Every authCaptureTransaction is captured in Authorize.Net's own daily batch.
  settlesItself: true,
  // Its transaction lists show a transaction at once; half an hour covers a request still in
  // flight at its deadline and a slow reporting service.
  notFoundIsFinalAfterMs: 30 * 60_000,
};

/** How far before our request the processor's records are searched (clocks differ). */
const SEARCH_MARGIN_MS = 60 * 60_000;
/** The reporting API's longest settlement date range. */
const BATCH_RANGE_MS = 31 * 24 * 60 * 60_000;
/** Transactions per page of a list (the API's largest). */
const PAGE = 1000;

/** The answer said nothing we can read: whether Authorize.Net acted is unknown (held). */
export class AuthorizeNetOutcomeUnknownError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuthorizeNetOutcomeUnknownError';
  }
}

/** The messages of a transaction's answer ("description") or its errors ("errorText"), as one list. */
function transactionMessages(tr: TransactionResponse): { code: string; text: string }[] {
  const errors = listOf<{ errorCode?: string; errorText?: string }>(tr.errors, 'error').map((e) => ({ code: String(e.errorCode ?? ''), text: String(e.errorText ?? '') }));
  const messages = listOf<{ code?: string; description?: string }>(tr.messages, 'message').map((m) => ({ code: String(m.code ?? ''), text: String(m.description ?? '') }));
  return [...errors, ...messages];
}

/** The processor's words: its text and reason code (never the card: Authorize.Net's texts hold none). */
const processorText = (m: { code: string; text: string } | undefined, fallback: string) => (m ? `${m.text} (reason ${m.code})` : fallback);

/** A transaction id the answer gives, or '' (an error answer's "0": no transaction was made). */
const transactionIdOf = (tr: TransactionResponse) => (tr.transId && tr.transId !== '0' ? tr.transId : '');

/**
 * The Authorize.Net adapter (issue 30): cards and eCheck.Net over its JSON API, voids, refunds,
 * look-ups and its settlement report. Each call uses the credentials of the processor it is for
 * (SaleRequest.processorId ...); without one, nothing is sent.
 */
export class AuthorizeNetProcessor implements ProcessorAdapter {
  readonly name = 'authorizenet';
  readonly capabilities = AUTHORIZE_NET_CAPABILITIES;
  readonly #accounts: AuthorizeNetAccounts;
  readonly #endpoints: Record<Environment, string>;

  /** `sandboxUrl`: where sandbox requests go (tests point it at a local fake of the API). */
  constructor(options: { accounts: AuthorizeNetAccounts; sandboxUrl?: string }) {
    this.#accounts = options.accounts;
    this.#endpoints = { sandbox: options.sandboxUrl ?? ENDPOINTS.sandbox, production: ENDPOINTS.production };
  }

  async sale(request: SaleRequest, options?: CallOptions): Promise<SaleResult> {
    const account = await this.#account(request.processorId);
    if (request.wallet) throw new ProcessorNotReachedError('the Authorize.Net adapter takes no wallet payments');
    const refused = localRefusal(request);
    if (refused) return refused;
    const answer = await this.#post<CreateTransactionResponse>(account, 'createTransactionRequest', saleBody({ ...request, auth: account.auth }), options);
    return saleAnswer(answer, {
      card: !!request.card,
      street: !!request.billing.street?.trim(),
      zip: !!request.billing.zip?.trim(),
    });
  }

  async void(request: FollowUpRequest, options?: CallOptions): Promise<FollowUpResult> {
    const account = await this.#account(request.processorId);
    const answer = await this.#post<CreateTransactionResponse>(account, 'createTransactionRequest', voidBody(account.auth, request.reference, request.originalTransactionId), options);
    return followUpAnswer('void', answer, request.originalTransactionId);
  }

  async refund(request: FollowUpRequest, options?: CallOptions): Promise<FollowUpResult> {
    const account = await this.#account(request.processorId);
    const payment = await this.#refundPayment(account, request, options);
    const answer = await this.#post<CreateTransactionResponse>(account, 'createTransactionRequest', refundBody(account.auth, request.reference, request.amountCents, payment, request.originalTransactionId), options);
    return followUpAnswer('refund', answer, request.originalTransactionId);
  }

  /**
   * Authorize.Net captures every sale in its own daily batch: there is nothing to ask it. The
   * settlement job reads its settlement report instead (capabilities.settlesItself); asked
   * anyway, this says what happens.
   */
  async settle(request: SettleRequest, options?: CallOptions): Promise<SettleResult> {
    options?.signal?.throwIfAborted();
    const count = request.totals.reduce((n, t) => n + t.count, 0);
    return { accepted: true, reference: `authorizenet-daily-batch:${request.batchId}`, message: `${count} sale(s) are captured in Authorize.Net's own daily batch` };
  }

  /**
   * A sale or refund by our reference: Authorize.Net finds transactions by its own id only, so its
   * lists are searched for our invoice number (unsettled ones first, then the batches settled
   * since we asked), and each candidate's details are checked for the whole reference. A void is
   * the state of the payment's transaction.
   */
  async lookup(request: LookupRequest, options?: CallOptions): Promise<LookupResult> {
    const account = await this.#account(request.processorId);
    if (request.kind === 'void') return this.#lookupVoid(account, request, options);
    const invoice = invoiceNumberOf(request.reference);
    const since = new Date(request.sentAt.getTime() - SEARCH_MARGIN_MS);
    const candidates: string[] = [];
    for await (const t of this.#unsettled(account, options)) {
      if (t.invoiceNumber === invoice) candidates.push(t.transId);
      if (t.submitTimeUTC && new Date(t.submitTimeUTC) < since) break;
    }
    if (candidates.length === 0) {
      // To a little past our now too: Authorize.Net's clock may be ahead of ours.
      for (const batch of await this.#settledBatches(account, since, new Date(Date.now() + SEARCH_MARGIN_MS), options)) {
        for await (const t of this.#batchTransactions(account, batch.batchId, options)) if (t.invoiceNumber === invoice) candidates.push(t.transId);
      }
    }
    const matching: TransactionDetails[] = [];
    for (const id of candidates) {
      const details = await this.#details(account, id, options);
      if (details?.order?.description === descriptionOf(request.kind, request.reference)) matching.push(details);
    }
    if (matching.length === 0) return { found: false, detail: `Authorize.Net has no ${request.kind} with invoice number ${invoice} for ${request.reference}` };
    if (matching.length > 1) {
      return { found: true, outcome: 'unclear', transactionId: null, authCode: null, amountCents: null, voided: false, settledAt: null, status: `${matching.length} transactions carry this reference: ${matching.map((d) => d.transId).join(', ')}` };
    }
    return resultOf(matching[0]!);
  }

  async #lookupVoid(account: Account, request: LookupRequest, options: CallOptions | undefined): Promise<LookupResult> {
    if (!request.originalTransactionId) return { found: false, detail: 'a void look-up needs the payment\'s transaction id' };
    const details = await this.#details(account, request.originalTransactionId, options);
    if (!details) return { found: false, detail: `Authorize.Net has no transaction ${request.originalTransactionId}` };
    if (details.transactionStatus === 'voided') return { ...resultOf(details), outcome: 'approved' };
    if (details.transactionStatus === 'couldNotVoid') return { ...resultOf(details), outcome: 'declined' };
    return { found: false, detail: `transaction ${details.transId} is ${details.transactionStatus}, not voided` };
  }

  /** The transactions Authorize.Net settled in batches settled between two moments (sales, refunds, returns). */
  async settlementReport(request: SettlementReportRequest, options?: CallOptions): Promise<SettlementReport> {
    const account = await this.#account(request.processorId);
    const transactions: SettledTransaction[] = [];
    for (const batch of await this.#settledBatches(account, request.from, request.to, options)) {
      const settledAt = batch.settlementTimeUTC ? new Date(batch.settlementTimeUTC) : request.to;
      if (settledAt < request.from || settledAt >= request.to) continue;
      for await (const t of this.#batchTransactions(account, batch.batchId, options)) {
        const state = settledState(t.transactionStatus);
        if (!state) continue;
        const amountCents = centsOf(t.settleAmount);
        if (amountCents === undefined) throw new AuthorizeNetOutcomeUnknownError(`transaction ${t.transId} has no readable amount`);
        const entry: SettledTransaction = { transactionId: t.transId, batchId: batch.batchId, settledAt, kind: state.kind, state: state.state, amountCents, referenceHint: t.invoiceNumber ?? null };
        if (state.state === 'returned') {
          const returned = listOf<{ code?: string }>((await this.#details(account, t.transId, options))?.returnedItems, 'returnedItem');
          if (returned[0]?.code) entry.returnCode = String(returned[0].code);
        }
        transactions.push(entry);
      }
    }
    return { transactions };
  }

  /** authenticateTestRequest: whether Authorize.Net takes the processor's credentials. */
  async checkCredentials(request: { processorId: string }, options?: CallOptions): Promise<{ ok: boolean; message: string }> {
    const account = await this.#account(request.processorId);
    const answer = await postApi<ApiResponse>(account.url, 'authenticateTestRequest', { merchantAuthentication: account.auth }, options?.signal);
    if (answer.messages.resultCode === 'Ok') return { ok: true, message: `Authorize.Net (${account.environment}) accepted the credentials` };
    return { ok: false, message: `Authorize.Net (${account.environment}) refused the credentials: ${firstMessage(answer)}` };
  }

  /** A card refund carries the card's last 4 digits, from the payment's transaction; an eCheck refund the whole account. */
  async #refundPayment(account: Account, request: FollowUpRequest, options: CallOptions | undefined): Promise<RefundPayment> {
    if (request.kind === 'ach') {
      const a = request.account;
      if (!a) throw new ProcessorNotReachedError('an eCheck refund needs the bank account of the payment (FollowUpRequest.account): nothing was sent');
      const echeck = echeckOf(a);
      return { bankAccount: { accountType: echeck.accountType, routingNumber: a.routingNumber, accountNumber: a.accountNumber, nameOnAccount: a.nameOnAccount.trim().slice(0, 22), echeckType: echeck.echeckType } };
    }
    const details = await this.#details(account, request.originalTransactionId, options);
    const last4 = /(\d{4})$/.exec(details?.payment?.creditCard?.cardNumber ?? '')?.[1];
    if (!last4) throw new ProcessorNotReachedError(`Authorize.Net has no card transaction ${request.originalTransactionId} to refund: nothing was sent`);
    return { creditCard: { cardNumber: last4, expirationDate: 'XXXX' } };
  }

  async #account(processorId: string | undefined): Promise<Account> {
    if (!processorId) throw new ProcessorNotReachedError('no processor named for Authorize.Net (the request carries no processorId): nothing was sent');
    let credentials: AuthorizeNetCredentials;
    try {
      credentials = await this.#accounts.credentials(processorId);
    } catch (err) {
      throw new ProcessorNotReachedError(`processor ${processorId} has no usable Authorize.Net credentials (${(err as Error)?.message ?? 'unknown'}): nothing was sent`);
    }
    return {
      url: this.#endpoints[credentials.environment],
      environment: credentials.environment,
      auth: { name: credentials.apiLoginId, transactionKey: credentials.transactionKey },
    };
  }

  #post<T extends ApiResponse>(account: Account, name: string, body: object, options: CallOptions | undefined): Promise<T> {
    return postApi<T>(account.url, name, body, options?.signal);
  }

  /** getTransactionDetailsRequest; undefined when Authorize.Net has no such transaction. */
  async #details(account: Account, transId: string, options: CallOptions | undefined): Promise<TransactionDetails | undefined> {
    const answer = await this.#post<TransactionDetailsResponse>(account, 'getTransactionDetailsRequest', { merchantAuthentication: account.auth, transId }, options);
    if (answer.messages.resultCode === 'Error') {
      // E00040: the record cannot be found.
      if (answer.messages.message.some((m) => m.code === 'E00040')) return undefined;
      throw new AuthorizeNetOutcomeUnknownError(`getTransactionDetails was refused: ${firstMessage(answer)}`);
    }
    if (!answer.transaction?.transId || typeof answer.transaction.transactionStatus !== 'string') throw new AuthorizeNetOutcomeUnknownError('getTransactionDetails answered without a transaction');
    return answer.transaction;
  }

  /** Unsettled transactions, newest first, page by page. */
  async *#unsettled(account: Account, options: CallOptions | undefined): AsyncGenerator<TransactionSummary> {
    for (let page = 1; ; page++) {
      const answer = await this.#post<TransactionListResponse>(
        account,
        'getUnsettledTransactionListRequest',
        { merchantAuthentication: account.auth, sorting: { orderBy: 'submitTimeUTC', orderDescending: true }, paging: { limit: PAGE, offset: page } },
        options,
      );
      const list = readList(answer, 'getUnsettledTransactionList');
      yield* list;
      if (list.length < PAGE) return;
    }
  }

  async *#batchTransactions(account: Account, batchId: string, options: CallOptions | undefined): AsyncGenerator<TransactionSummary> {
    for (let page = 1; ; page++) {
      const answer = await this.#post<TransactionListResponse>(
        account,
        'getTransactionListRequest',
        { merchantAuthentication: account.auth, batchId, sorting: { orderBy: 'submitTimeUTC', orderDescending: false }, paging: { limit: PAGE, offset: page } },
        options,
      );
      const list = readList(answer, 'getTransactionList');
      yield* list;
      if (list.length < PAGE) return;
    }
  }

  /** Batches settled between two moments, asked 31 days at a time (the API's longest range). */
  async #settledBatches(account: Account, from: Date, to: Date, options: CallOptions | undefined): Promise<BatchDetails[]> {
    const batches: BatchDetails[] = [];
    for (let start = from.getTime(); start < to.getTime(); start += BATCH_RANGE_MS) {
      const end = new Date(Math.min(start + BATCH_RANGE_MS, to.getTime()));
      const answer = await this.#post<SettledBatchListResponse>(
        account,
        'getSettledBatchListRequest',
        { merchantAuthentication: account.auth, includeStatistics: false, firstSettlementDate: utcText(new Date(start)), lastSettlementDate: utcText(end) },
        options,
      );
      if (answer.messages.resultCode === 'Error') throw new AuthorizeNetOutcomeUnknownError(`getSettledBatchList was refused: ${firstMessage(answer)}`);
      for (const b of listOf<BatchDetails>(answer.batchList, 'batch')) {
        if (typeof b.batchId !== 'string') throw new AuthorizeNetOutcomeUnknownError('getSettledBatchList answered a batch without an id');
        batches.push(b);
      }
    }
    return batches;
  }
}

interface Account {
  url: string;
  environment: Environment;
  auth: MerchantAuthentication;
}

/** A transaction list's entries; "No records found" (I00004) is an empty list. */
function readList(answer: TransactionListResponse, what: string): TransactionSummary[] {
  if (answer.messages.resultCode === 'Error') throw new AuthorizeNetOutcomeUnknownError(`${what} was refused: ${firstMessage(answer)}`);
  const list = listOf<TransactionSummary>(answer.transactions, 'transaction');
  for (const t of list) {
    if (typeof t.transId !== 'string' || typeof t.transactionStatus !== 'string') throw new AuthorizeNetOutcomeUnknownError(`${what} answered a transaction without an id or a status`);
  }
  return list;
}

/** What a settled batch's transaction is for the settlement report; undefined: not settled (declined, voided ...). */
function settledState(status: string): Pick<SettledTransaction, 'kind' | 'state'> | undefined {
  switch (status) {
    case 'settledSuccessfully':
      return { kind: 'sale', state: 'settled' };
    case 'refundSettledSuccessfully':
      return { kind: 'refund', state: 'settled' };
    case 'returnedItem':
      return { kind: 'sale', state: 'returned' };
    case 'settlementError':
      return { kind: 'sale', state: 'failed' };
    default:
      return undefined;
  }
}

function resultOf(d: TransactionDetails): Extract<LookupResult, { found: true }> {
  const read = outcomeOfStatus(d.transactionStatus);
  const settledAt = read.settled && d.batch?.settlementTimeUTC ? new Date(d.batch.settlementTimeUTC) : null;
  return {
    found: true,
    outcome: read.outcome,
    transactionId: d.transId,
    authCode: d.authCode || null,
    amountCents: centsOf(d.authAmount ?? d.settleAmount) ?? null,
    voided: read.voided,
    settledAt,
    status: d.transactionStatus,
  };
}

/**
 * Refusals Authorize.Net would answer, decided here before anything is sent (its own validation,
 * its own reason codes), so that the partner reads the same answer either way.
 */
function localRefusal(request: SaleRequest): SaleResult | undefined {
  const refuse = (reason: { code: string; message: string }, processorMessage: string): SaleResult => ({
    approved: false,
    responseCode: reason.code,
    message: reason.message,
    processorMessage,
    authCode: null,
    transactionId: '',
    avsStreetStatus: null,
    avsZipStatus: null,
    avsResponse: null,
    cvvResponse: null,
    isSurchargeEligible: null,
  });
  if (request.card && !/^\d{13,16}$/.test(request.card.number)) return refuse(errorReason('6'), 'Authorize.Net takes card numbers of 13 to 16 digits (not sent)');
  if (request.bank) {
    if (request.bank.country !== 'US') return refuse({ code: ResponseCode.Declined, message: 'Declined: the processor debits US bank accounts only' }, 'eCheck.Net takes US bank accounts only (not sent)');
    if (!/^\d{9}$/.test(request.bank.routingNumber)) return refuse(errorReason('9'), 'Authorize.Net takes routing numbers of 9 digits (not sent)');
    if (!/^\d{1,17}$/.test(request.bank.accountNumber)) return refuse(errorReason('10'), 'Authorize.Net takes account numbers of up to 17 digits (not sent)');
  }
  return undefined;
}

/**
 * A createTransactionResponse to a sale as the service's answer; a held-for-review answer (4), a
 * duplicate (the first one's outcome stands) or an answer that does not say throws: the outcome
 * is unknown until a look-up says.
 */
export function saleAnswer(answer: CreateTransactionResponse, sent: { card: boolean; street: boolean; zip: boolean }): SaleResult {
  const tr = answer.transactionResponse;
  if (!tr || typeof tr.responseCode !== 'string') return refusedRequest(answer);
  const [first] = transactionMessages(tr);
  const reason = first?.code ?? '';
  if (SYSTEM_VOID_FAILED.has(reason)) throw new AuthorizeNetOutcomeUnknownError(`Authorize.Net could not take back a failed transaction (reason ${reason}): the card may be charged`);
  const base = {
    processorMessage: processorText(first, `response code ${tr.responseCode}`),
    transactionId: transactionIdOf(tr),
    isSurchargeEligible: null,
    ...(sent.card ? { ...avsOf(tr.avsResultCode, sent), cvvResponse: cvvOf(tr.cvvResultCode) } : { avsStreetStatus: null, avsZipStatus: null, avsResponse: null, cvvResponse: null }),
  };
  switch (tr.responseCode) {
    case '1':
      if (!base.transactionId) throw new AuthorizeNetOutcomeUnknownError('Authorize.Net approved without a transaction id');
      return { ...base, approved: true, responseCode: ResponseCode.Approved, message: 'Approved', authCode: tr.authCode || null };
    case '2': {
      const r = declineReason(reason);
      return { ...base, approved: false, responseCode: r.code, message: r.message, authCode: null };
    }
    case '3': {
      if (reason === DUPLICATE) throw new AuthorizeNetOutcomeUnknownError('Authorize.Net took this reference before (a duplicate): the first outcome stands');
      const r = errorReason(reason);
      return { ...base, approved: false, responseCode: r.code, message: r.message, authCode: null };
    }
    case '4':
      throw new ProcessorOutcomePendingError('Authorize.Net holds the transaction for review: approved or declined when the merchant reviews it', base.transactionId || null);
    default:
      throw new AuthorizeNetOutcomeUnknownError(`Authorize.Net answered response code ${tr.responseCode}`);
  }
}

/**
 * An answer without a transaction: the API refused the request itself (credentials, a malformed
 * field), so nothing was made; but "an error occurred, try again" (E00001) may come after it was.
 */
function refusedRequest(answer: CreateTransactionResponse): SaleResult {
  const codes = answer.messages.message.map((m) => m.code);
  if (answer.messages.resultCode === 'Ok' || codes.length === 0 || codes.includes('E00001')) {
    throw new AuthorizeNetOutcomeUnknownError(`Authorize.Net answered without a transaction (${firstMessage(answer)})`);
  }
  const credentials = codes.some((c) => c === 'E00007' || c === 'E00008' || c === 'E00124');
  return {
    approved: false,
    responseCode: ResponseCode.GeneralError,
    message: credentials
      ? "Processing error: the processor refused the merchant account's credentials. The payment was not processed."
      : 'Processing error: the processor refused the request. The payment was not processed.',
    processorMessage: firstMessage(answer),
    authCode: null,
    transactionId: '',
    avsStreetStatus: null,
    avsZipStatus: null,
    avsResponse: null,
    cvvResponse: null,
    isSurchargeEligible: null,
  };
}

function followUpAnswer(kind: 'void' | 'refund', answer: CreateTransactionResponse, originalTransactionId: string): FollowUpResult {
  const tr = answer.transactionResponse;
  if (!tr || typeof tr.responseCode !== 'string') {
    const refused = refusedRequest(answer);
    return { approved: false, responseCode: refused.responseCode, message: refused.message.replace('payment', kind), processorMessage: refused.processorMessage, transactionId: '' };
  }
  const [first] = transactionMessages(tr);
  const reason = first?.code ?? '';
  const processorMessage = processorText(first, `response code ${tr.responseCode}`);
  if (tr.responseCode === '1') {
    // A void keeps the payment's transaction id (Authorize.Net answers with it).
    const transactionId = transactionIdOf(tr) || (kind === 'void' ? originalTransactionId : '');
    if (!transactionId) throw new AuthorizeNetOutcomeUnknownError(`Authorize.Net approved the ${kind} without a transaction id`);
    return { approved: true, responseCode: ResponseCode.Approved, message: kind === 'void' ? 'Void approved' : 'Refund approved', processorMessage, transactionId };
  }
  // Already voided: what was asked is so.
  if (kind === 'void' && reason === '310') return { approved: true, responseCode: ResponseCode.Approved, message: 'Void approved', processorMessage, transactionId: originalTransactionId };
  if (tr.responseCode === '3' && reason === DUPLICATE) throw new AuthorizeNetOutcomeUnknownError(`Authorize.Net took this ${kind} before (a duplicate): the first outcome stands`);
  if (tr.responseCode === '4') throw new ProcessorOutcomePendingError(`Authorize.Net holds the ${kind} for review`, transactionIdOf(tr) || null);
  if (tr.responseCode !== '2' && tr.responseCode !== '3') throw new AuthorizeNetOutcomeUnknownError(`Authorize.Net answered response code ${tr.responseCode}`);
  const r = followUpRefusal(kind, reason);
  return { approved: false, responseCode: r.code, message: r.message, processorMessage, transactionId: transactionIdOf(tr) };
}
