import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local fake of Authorize.Net's JSON API (one endpoint, `POST /xml/v1/request.api`), for the
 * adapter's contract tests. It checks every request as strictly as the real API: the request's
 * name, the elements of each object in the API schema's order (the JSON API is validated against
 * its XML schema, and an element out of order is refused), types, enumerations and lengths. A
 * request it refuses is answered E00003 as Authorize.Net answers one, and is kept in `violations`
 * for the tests to assert none happened.
 *
 * Sources of the shapes (requests and answers):
 * - Authorize.Net API reference, https://developer.authorize.net/api/reference/ (payment
 *   transactions: charge a credit card, debit a bank account, refund, void; transaction reporting:
 *   getSettledBatchList, getTransactionList, getUnsettledTransactionList, getTransactionDetails;
 *   authenticateTestRequest), and its response code table
 *   https://developer.authorize.net/api/reference/responseCodes.html.
 * - The element order of each object: the API schema (AnetApiSchema.xsd) as the official Node.js
 *   SDK maps it, github.com/AuthorizeNet/sdk-node, mappings/Schema.js (transactionRequestType,
 *   creditCardType, bankAccountType, orderType, nameAndAddressType, paging ...), and its
 *   endpoints, lib/constants.js.
 * - Answers: the sample answers of the stymiee/authnetjson client library's tests,
 *   github.com/stymiee/authnetjson, tests/Authnetjson/AuthnetJsonAimTest.php (approval,
 *   duplicate 11 with transId "0", refund, void, void of an unknown transaction 16, E00027) and
 *   tests/Authnetjson/AuthnetJsonReportingTest.php (unsettled list, transaction list, settled batch
 *   list, "No records found" I00004, transaction details with batch, order and masked payment);
 *   the official samples, github.com/AuthorizeNet/sample-code-node (PaymentTransactions/
 *   charge-credit-card.js, debit-bank-account.js, refund-transaction.js, void-transaction.js,
 *   TransactionReporting/*.js).
 * - The sandbox's test triggers (zip 46282 declines; zips 46201 ... 46217 give AVS letters; card
 *   codes 900 ... 904 give CVV letters): Authorize.Net's testing guide,
 *   https://developer.authorize.net/hello_world/testing_guide.html.
 * - Its answers begin with a UTF-8 byte order mark, as Authorize.Net's do (a known trait of its
 *   JSON API that every client strips).
 */

export interface FakeAccount {
  name: string;
  transactionKey: string;
}

export interface FakeTransaction {
  transId: string;
  type: 'authCaptureTransaction' | 'refundTransaction';
  status: string;
  responseCode: string;
  responseReasonCode: string;
  authCode: string;
  amount: string;
  invoiceNumber?: string;
  description?: string;
  submitTime: Date;
  card?: { last4: string; type: string };
  bank?: { routingNumber: string; accountNumber: string; accountType: string; nameOnAccount: string; echeckType: string };
  refTransId?: string;
  batchId?: string;
  returnCode?: string;
  firstName?: string;
  lastName?: string;
}

export interface FakeBatch {
  batchId: string;
  settlementTime: Date;
  paymentMethod: 'creditCard' | 'eCheck';
}

/** What a test asks the fake to do with the next createTransactionRequest, instead of its rules. */
export type Script =
  | { kind: 'answer'; responseCode: '1' | '2' | '3' | '4'; reason: string; text: string; avs?: string; cvv?: string; keepTransaction?: boolean }
  | { kind: 'hang' }
  | { kind: 'http'; status: number; body: string }
  | { kind: 'cut' }
  /** Processed by the rules, and the connection then closed without an answer (an answer lost on the way). */
  | { kind: 'lose' }
  | { kind: 'raw'; body: string };

/** A request refused for its shape: which API, and why. */
export interface Violation {
  api: string;
  problem: string;
}

const APIS = [
  'createTransactionRequest',
  'getTransactionDetailsRequest',
  'getUnsettledTransactionListRequest',
  'getSettledBatchListRequest',
  'getTransactionListRequest',
  'authenticateTestRequest',
] as const;

const TRANSACTION_REQUEST_ORDER = [
  'transactionType', 'amount', 'currencyCode', 'payment', 'profile', 'solution', 'callId', 'terminalNumber', 'authCode', 'refTransId',
  'splitTenderId', 'order', 'lineItems', 'tax', 'duty', 'shipping', 'taxExempt', 'poNumber', 'customer', 'billTo', 'shipTo', 'customerIP',
  'cardholderAuthentication', 'retail', 'employeeId', 'transactionSettings', 'userFields', 'surcharge', 'merchantDescriptor', 'subMerchant',
  'tip', 'processingOptions', 'subsequentAuthInformation', 'otherTax', 'shipFrom', 'authorizationIndicatorType',
];
const SETTING_NAMES = ['emailCustomer', 'merchantEmail', 'allowPartialAuth', 'headerEmailReceipt', 'footerEmailReceipt', 'recurringBilling', 'duplicateWindow', 'testRequest'];
const TRANSACTION_STATUSES_UNSETTLED = new Set(['authorizedPendingCapture', 'capturedPendingSettlement', 'refundPendingSettlement', 'FDSPendingReview', 'FDSAuthorizedPendingReview', 'voided', 'declined']);

/** Testing guide: the zip codes that make the sandbox answer an AVS letter, and 46282 a decline. */
const AVS_BY_ZIP: Record<string, string> = { '46201': 'A', '46203': 'E', '46204': 'R', '46205': 'G', '46207': 'S', '46209': 'U', '46211': 'W', '46214': 'X', '46217': 'Z' };
const DECLINE_ZIP = '46282';
/** Testing guide: the card codes that make the sandbox answer a CVV letter. */
const CVV_BY_CODE: Record<string, string> = { '900': 'M', '901': 'N', '902': 'S', '903': 'U', '904': 'P' };

class Refusal extends Error {}

function brandOf(number: string): string {
  if (/^4/.test(number)) return 'Visa';
  if (/^(5[1-5]|2[2-7])/.test(number)) return 'MasterCard';
  if (/^3[47]/.test(number)) return 'AmericanExpress';
  if (/^(6011|65|64[4-9])/.test(number)) return 'Discover';
  if (/^3(0[0-5]|[68])/.test(number)) return 'DinersClub';
  if (/^35/.test(number)) return 'JCB';
  return 'Visa';
}

const ok = (extra: object = {}, refId?: string) => ({ ...(refId !== undefined ? { refId } : {}), ...extra, messages: { resultCode: 'Ok', message: [{ code: 'I00001', text: 'Successful.' }] } });
const error = (code: string, text: string, refId?: string, extra: object = {}) => ({ ...(refId !== undefined ? { refId } : {}), ...extra, messages: { resultCode: 'Error', message: [{ code, text }] } });

export class FakeAuthorizeNet {
  readonly accounts: FakeAccount[];
  /** Every request it received, as sent (after the BOM-free JSON parse). */
  readonly requests: { api: string; body: Record<string, unknown> }[] = [];
  readonly violations: Violation[] = [];
  readonly transactions = new Map<string, FakeTransaction>();
  readonly batches: FakeBatch[] = [];
  /** Connections the client closed before an answer (a deadline that aborted the request). */
  abandoned = 0;
  now: () => Date = () => new Date();
  #scripts: Script[] = [];
  #server: Server;
  #nextId = 60_000_000_001;
  #nextBatch = 7_000_001;

  private constructor(accounts: FakeAccount[]) {
    this.accounts = accounts;
    this.#server = createServer((req, res) => void this.#handle(req, res));
  }

  static async start(accounts: FakeAccount[]): Promise<FakeAuthorizeNet> {
    const fake = new FakeAuthorizeNet(accounts);
    await new Promise<void>((resolve) => fake.#server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/xml/v1/request.api`;
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  /** The next createTransactionRequest is answered so (one script per request, in order). */
  script(...scripts: Script[]): void {
    this.#scripts.push(...scripts);
  }

  requestsOf(api: string): Record<string, unknown>[] {
    return this.requests.filter((r) => r.api === api).map((r) => r.body);
  }

  /** The daily batch: every captured sale and refund (and the declines) settles now, one batch per payment method. */
  settleBatch(at: Date = this.now()): FakeBatch[] {
    const made: FakeBatch[] = [];
    for (const method of ['creditCard', 'eCheck'] as const) {
      const due = [...this.transactions.values()].filter(
        (t) => !t.batchId && (method === 'eCheck') === !!t.bank && ['capturedPendingSettlement', 'refundPendingSettlement', 'declined'].includes(t.status),
      );
      if (due.length === 0) continue;
      const batch = { batchId: String(this.#nextBatch++), settlementTime: at, paymentMethod: method };
      for (const t of due) {
        t.batchId = batch.batchId;
        if (t.status === 'capturedPendingSettlement') t.status = 'settledSuccessfully';
        if (t.status === 'refundPendingSettlement') t.status = 'refundSettledSuccessfully';
      }
      this.batches.push(batch);
      made.push(batch);
    }
    return made;
  }

  /** An eCheck debit that settled comes back (R01 insufficient funds ...). */
  returnItem(transId: string, code: string): void {
    const t = this.transactions.get(transId)!;
    t.status = 'returnedItem';
    t.returnCode = code;
  }

  /** The merchant reviews a held transaction. */
  review(transId: string, decision: 'approve' | 'decline'): void {
    const t = this.transactions.get(transId)!;
    t.status = decision === 'approve' ? 'capturedPendingSettlement' : 'declined';
    if (decision === 'decline') t.responseCode = '2';
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let answered = false;
    res.on('close', () => {
      if (!answered) this.abandoned++;
    });
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const send = (status: number, body: string) => {
      answered = true;
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(body);
    };
    // The answer as Authorize.Net writes it: a byte order mark, then JSON.
    const answer = (body: object) => send(200, '\uFEFF' + JSON.stringify(body));
    if (req.method !== 'POST' || req.url !== '/xml/v1/request.api') return send(404, 'not found');
    if (!/^application\/json/.test(req.headers['content-type'] ?? '')) {
      this.violations.push({ api: '?', problem: `content-type ${req.headers['content-type']}` });
      return answer(error('E00002', 'The content-type specified is not supported.'));
    }
    let parsed: Record<string, Record<string, unknown>>;
    try {
      parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      this.violations.push({ api: '?', problem: 'not JSON' });
      return answer(error('E00003', 'An error occurred while parsing the XML request.'));
    }
    const names = Object.keys(parsed);
    const api = names[0] ?? '';
    if (names.length !== 1 || !(APIS as readonly string[]).includes(api)) {
      this.violations.push({ api, problem: `root ${names.join(',')}` });
      return answer(error('E00004', 'The name of the requested API method is invalid.'));
    }
    const body = parsed[api]!;
    this.requests.push({ api, body });
    try {
      const auth = this.#checkAuth(api, body);
      if (!auth) return answer(error('E00007', 'User authentication failed due to invalid authentication values.', body.refId as string | undefined));
      if (api === 'createTransactionRequest') {
        const script = this.#scripts.shift();
        if (script?.kind === 'hang') return; // never answers: the client's deadline ends it
        if (script?.kind === 'http') return send(script.status, script.body);
        if (script?.kind === 'raw') return send(200, script.body);
        if (script?.kind === 'lose') {
          this.#createTransaction(body, undefined);
          answered = true;
          res.destroy();
          return;
        }
        if (script?.kind === 'cut') {
          answered = true;
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('\uFEFF{"transactionResponse":{"responseCode":"1","authCode":"');
          res.destroy();
          return;
        }
        return answer(this.#createTransaction(body, script));
      }
      if (api === 'authenticateTestRequest') {
        this.#keys(api, body, ['merchantAuthentication', 'clientId', 'refId'], []);
        return answer(ok({}, body.refId as string | undefined));
      }
      if (api === 'getTransactionDetailsRequest') return answer(this.#details(body));
      if (api === 'getUnsettledTransactionListRequest') return answer(this.#unsettled(body));
      if (api === 'getSettledBatchListRequest') return answer(this.#batchList(body));
      return answer(this.#transactionList(body));
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      this.violations.push({ api, problem: err.message });
      return answer(error('E00003', err.message, body.refId as string | undefined));
    }
  }

  /** The object's keys are known, in the schema's order, and the required ones are there. */
  #keys(where: string, obj: unknown, order: string[], required: string[]): Record<string, unknown> {
    if (!obj || typeof obj !== 'object' || Array.isArray(obj)) throw new Refusal(`The element '${where}' must be an object.`);
    const keys = Object.keys(obj);
    let last = -1;
    for (const k of keys) {
      const at = order.indexOf(k);
      if (at === -1) throw new Refusal(`The element '${where}' has invalid child element '${k}'.`);
      if (at < last) throw new Refusal(`The element '${where}' has invalid child element '${k}' (out of order).`);
      last = at;
    }
    for (const r of required) if (!(r in obj)) throw new Refusal(`The element '${where}' has incomplete content. List of possible elements expected: '${r}'.`);
    return obj as Record<string, unknown>;
  }

  #string(where: string, value: unknown, pattern: RegExp, what: string): string {
    if (typeof value !== 'string' || !pattern.test(value)) throw new Refusal(`The '${where}' element is invalid - ${what}.`);
    return value;
  }

  #max(where: string, value: unknown, max: number): string {
    if (typeof value !== 'string') throw new Refusal(`The '${where}' element is invalid - a string is expected.`);
    if (value.length > max) throw new Refusal(`The '${where}' element is invalid - The actual length is greater than the MaxLength value (${max}).`);
    return value;
  }

  #checkAuth(api: string, body: Record<string, unknown>): FakeAccount | undefined {
    // Every request: merchantAuthentication first, then (clientId,) refId, then the API's own elements.
    if (Object.keys(body)[0] !== 'merchantAuthentication') throw new Refusal(`The element '${api}' must begin with 'merchantAuthentication'.`);
    const auth = this.#keys('merchantAuthentication', body.merchantAuthentication, ['name', 'transactionKey', 'sessionToken', 'password', 'impersonationAuthentication', 'fingerPrint', 'clientKey', 'accessToken', 'mobileDeviceId'], ['name', 'transactionKey']);
    const name = this.#max('name', auth.name, 25);
    const key = this.#max('transactionKey', auth.transactionKey, 16);
    if (body.refId !== undefined) this.#max('refId', body.refId, 20);
    return this.accounts.find((a) => a.name === name && a.transactionKey === key);
  }

  #createTransaction(body: Record<string, unknown>, script: Script | undefined): object {
    this.#keys('createTransactionRequest', body, ['merchantAuthentication', 'clientId', 'refId', 'transactionRequest'], ['transactionRequest']);
    const refId = body.refId as string | undefined;
    const tr = this.#keys('transactionRequest', body.transactionRequest, TRANSACTION_REQUEST_ORDER, ['transactionType']);
    const type = this.#string('transactionType', tr.transactionType, /^(authCaptureTransaction|authOnlyTransaction|refundTransaction|voidTransaction|priorAuthCaptureTransaction|captureOnlyTransaction)$/, 'not a transaction type');
    if (tr.amount !== undefined) this.#string('amount', tr.amount, /^\d{1,15}(\.\d{1,4})?$/, 'not a decimal amount');
    if (tr.currencyCode !== undefined) this.#string('currencyCode', tr.currencyCode, /^[A-Z]{3}$/, 'not a currency code');
    if (tr.refTransId !== undefined) this.#string('refTransId', tr.refTransId, /^\d{1,20}$/, 'not a transaction id');
    let order: Record<string, unknown> | undefined;
    if (tr.order !== undefined) {
      order = this.#keys('order', tr.order, ['invoiceNumber', 'description', 'discountAmount', 'taxIsAfterDiscount'], []);
      if (order.invoiceNumber !== undefined) this.#max('invoiceNumber', order.invoiceNumber, 20);
      if (order.description !== undefined) this.#max('description', order.description, 255);
    }
    let billTo: Record<string, unknown> | undefined;
    if (tr.billTo !== undefined) {
      billTo = this.#keys('billTo', tr.billTo, ['firstName', 'lastName', 'company', 'address', 'city', 'state', 'zip', 'country', 'phoneNumber', 'faxNumber', 'email'], []);
      for (const [k, max] of [['firstName', 50], ['lastName', 50], ['company', 50], ['address', 60], ['city', 40], ['state', 40], ['zip', 20], ['country', 60]] as const) {
        if (billTo[k] !== undefined) this.#max(k, billTo[k], max);
      }
    }
    let duplicateWindow = 120;
    if (tr.transactionSettings !== undefined) {
      const settings = this.#keys('transactionSettings', tr.transactionSettings, ['setting'], ['setting']);
      if (!Array.isArray(settings.setting)) throw new Refusal("The element 'setting' must be a list.");
      for (const s of settings.setting) {
        const setting = this.#keys('setting', s, ['settingName', 'settingValue'], ['settingName', 'settingValue']);
        const name = this.#string('settingName', setting.settingName, new RegExp(`^(${SETTING_NAMES.join('|')})$`), 'not a setting name');
        const value = this.#max('settingValue', setting.settingValue, 1000);
        if (name === 'duplicateWindow') {
          if (!/^\d{1,5}$/.test(value) || Number(value) > 28_800) throw new Refusal('duplicateWindow must be 0 to 28800 seconds.');
          duplicateWindow = Number(value);
        }
      }
    }
    if (type === 'voidTransaction') {
      if (tr.refTransId === undefined) throw new Refusal("The element 'transactionRequest' has incomplete content: 'refTransId'.");
      return this.#void(refId, tr.refTransId as string, script);
    }
    if (tr.amount === undefined) throw new Refusal("The element 'transactionRequest' has incomplete content: 'amount'.");
    const payment = this.#keys('payment', tr.payment, ['creditCard', 'bankAccount', 'trackData', 'encryptedTrackData', 'payPal', 'opaqueData', 'emv', 'dataSource'], []);
    if (Object.keys(payment).length !== 1) throw new Refusal("The element 'payment' must hold one payment.");
    const refund = type === 'refundTransaction';
    let card: { number: string; code?: string } | undefined;
    let bank: FakeTransaction['bank'];
    if (payment.creditCard !== undefined) {
      const cc = this.#keys('creditCard', payment.creditCard, ['cardNumber', 'expirationDate', 'cardCode', 'isPaymentToken', 'cryptogram'], ['cardNumber', 'expirationDate']);
      const number = refund
        ? this.#string('cardNumber', cc.cardNumber, /^(\d{4}|X{4}\d{4}|\d{13,16})$/, 'a refund takes the last 4 digits')
        : this.#string('cardNumber', cc.cardNumber, /^\d{13,16}$/, 'not a card number of 13 to 16 digits');
      this.#string('expirationDate', cc.expirationDate, refund ? /^(XXXX|\d{4}-\d{2}|\d{4})$/ : /^(\d{4}-(0[1-9]|1[0-2])|(0[1-9]|1[0-2])\d{2})$/, 'not an expiration date');
      if (cc.cardCode !== undefined) {
        if (refund) throw new Refusal("The element 'creditCard' has invalid child element 'cardCode'.");
        this.#string('cardCode', cc.cardCode, /^\d{3,4}$/, 'not a card code');
      }
      card = { number, code: cc.cardCode as string | undefined };
    } else if (payment.bankAccount !== undefined) {
      const b = this.#keys('bankAccount', payment.bankAccount, ['accountType', 'routingNumber', 'accountNumber', 'nameOnAccount', 'echeckType', 'bankName', 'checkNumber'], ['routingNumber', 'accountNumber', 'nameOnAccount']);
      const accountType = b.accountType === undefined ? 'checking' : this.#string('accountType', b.accountType, /^(checking|savings|businessChecking)$/, 'not an account type');
      const echeckType = b.echeckType === undefined ? 'WEB' : this.#string('echeckType', b.echeckType, /^(PPD|WEB|CCD|TEL|ARC|BOC)$/, 'not an eCheck type');
      if (echeckType === 'WEB' && accountType === 'businessChecking') throw new Refusal('WEB entries debit personal accounts (checking or savings) only.');
      if (echeckType === 'CCD' && accountType !== 'businessChecking') throw new Refusal('CCD entries debit business checking accounts only.');
      bank = {
        routingNumber: this.#string('routingNumber', b.routingNumber, /^\d{9}$/, 'a routing number has 9 digits'),
        accountNumber: this.#string('accountNumber', b.accountNumber, /^\d{1,17}$/, 'an account number has up to 17 digits'),
        nameOnAccount: this.#max('nameOnAccount', b.nameOnAccount, 22),
        accountType,
        echeckType,
      };
    } else {
      throw new Refusal('The fake takes cards and bank accounts only.');
    }
    if (refund) return this.#refund(refId, tr, order, card, bank, script);
    if (type !== 'authCaptureTransaction') throw new Refusal(`The fake takes authCaptureTransaction sales only, not ${type}.`);
    return this.#sale(refId, tr.amount as string, order, billTo, card, bank, duplicateWindow, script);
  }

  #newId(): string {
    return String(this.#nextId++);
  }

  /**
   * A createTransactionResponse's transactionResponse. Shape: authnetjson AuthnetJsonAimTest.php
   * (testCreateTransactionRequestAuthCaptureSuccess: approval with `messages`; ...AuthOnlyError:
   * an error with `errors`, transId "0"); API reference, "Charge a Credit Card" response.
   */
  #transactionResponse(t: { responseCode: string; authCode?: string; avs?: string; cvv?: string; transId: string; refTransId?: string; account: string; accountType: string }, reason: string, text: string) {
    const approvedOrHeld = t.responseCode === '1' || t.responseCode === '4';
    return {
      responseCode: t.responseCode,
      authCode: t.authCode ?? '',
      avsResultCode: t.avs ?? 'P',
      cvvResultCode: t.cvv ?? '',
      cavvResultCode: '',
      transId: t.transId,
      refTransID: t.refTransId ?? '',
      transHash: '',
      testRequest: '0',
      accountNumber: t.account,
      accountType: t.accountType,
      ...(approvedOrHeld ? { messages: [{ code: reason, description: text }] } : { errors: [{ errorCode: reason, errorText: text }] }),
      transHashSha2: '',
    };
  }

  /**
   * authCaptureTransaction. The duplicate's answer (reason 11, transId "0", the original's auth code
   * when it was approved and a duplicateWindow was sent): authnetjson testCreateTransactionRequestAuthOnlyError
   * and the response code reference's note on duplicateWindow.
   */
  #sale(
    refId: string | undefined,
    amount: string,
    order: Record<string, unknown> | undefined,
    billTo: Record<string, unknown> | undefined,
    card: { number: string; code?: string } | undefined,
    bank: FakeTransaction['bank'],
    duplicateWindow: number,
    script: Script | undefined,
  ): object {
    const last4 = card ? card.number.slice(-4) : bank!.accountNumber.slice(-4);
    const accountType = card ? brandOf(card.number) : 'eCheck';
    const account = `XXXX${last4}`;
    const now = this.now();
    // A duplicate: same amount, same card or account, same invoice number, within the window.
    const duplicate = [...this.transactions.values()].find(
      (t) =>
        t.type === 'authCaptureTransaction' &&
        t.amount === amount &&
        t.invoiceNumber === order?.invoiceNumber &&
        (card ? t.card?.last4 === last4 : t.bank?.accountNumber === bank!.accountNumber) &&
        now.getTime() - t.submitTime.getTime() < duplicateWindow * 1000,
    );
    if (duplicate) {
      return error('E00027', 'The transaction was unsuccessful.', refId, {
        transactionResponse: this.#transactionResponse({ responseCode: '3', transId: '0', authCode: duplicate.responseCode === '1' ? duplicate.authCode : '', account, accountType }, '11', 'A duplicate transaction has been submitted.'),
      });
    }
    let responseCode: string;
    let reason: string;
    let text: string;
    let avs = card ? (AVS_BY_ZIP[(billTo?.zip as string) ?? ''] ?? (billTo?.address || billTo?.zip ? 'Y' : 'B')) : 'P';
    let cvv = card ? (card.code ? (CVV_BY_CODE[card.code] ?? 'M') : '') : '';
    if (script?.kind === 'answer') {
      ({ responseCode, reason, text } = script);
      avs = script.avs ?? avs;
      cvv = script.cvv ?? cvv;
    } else if (billTo?.zip === DECLINE_ZIP) {
      [responseCode, reason, text] = ['2', '2', 'This transaction has been declined.'];
    } else {
      [responseCode, reason, text] = ['1', '1', 'This transaction has been approved.'];
    }
    // Errors make no transaction ("0"); approvals, declines and held ones do.
    const makesTransaction = responseCode !== '3' || (script?.kind === 'answer' && script.keepTransaction);
    const transId = makesTransaction ? this.#newId() : '0';
    const authCode = responseCode === '1' || responseCode === '4' ? `A${transId.slice(-5)}` : '';
    if (makesTransaction) {
      this.transactions.set(transId, {
        transId,
        type: 'authCaptureTransaction',
        status: responseCode === '1' ? 'capturedPendingSettlement' : responseCode === '4' ? 'FDSPendingReview' : responseCode === '2' ? 'declined' : 'generalError',
        responseCode,
        responseReasonCode: reason,
        authCode,
        amount,
        invoiceNumber: order?.invoiceNumber as string | undefined,
        description: order?.description as string | undefined,
        submitTime: now,
        ...(card ? { card: { last4, type: accountType } } : { bank }),
        firstName: billTo?.firstName as string | undefined,
        lastName: billTo?.lastName as string | undefined,
      });
    }
    const transactionResponse = this.#transactionResponse({ responseCode, authCode, avs, cvv, transId, account, accountType }, reason, text);
    return responseCode === '1' || responseCode === '4' ? ok({ transactionResponse }, refId) : error('E00027', 'The transaction was unsuccessful.', refId, { transactionResponse });
  }

  /** voidTransaction. Shapes: authnetjson testCreateTransactionRequestVoid and ...VoidError (reason 16). */
  #void(refId: string | undefined, refTransId: string, script: Script | undefined): object {
    const original = this.transactions.get(refTransId);
    const fail = (reason: string, text: string) =>
      error('E00027', 'The transaction was unsuccessful.', refId, {
        transactionResponse: this.#transactionResponse({ responseCode: '3', transId: '0', refTransId, account: '', accountType: original?.card?.type ?? '' }, reason, text),
      });
    if (script?.kind === 'answer') return fail(script.reason, script.text);
    // A settled transaction is no longer voidable: "cannot be found" among the unsettled ones.
    if (!original || original.batchId) return fail('16', 'The transaction cannot be found.');
    if (original.status === 'voided') return fail('310', 'This transaction has already been voided.');
    original.status = 'voided';
    return ok(
      {
        transactionResponse: this.#transactionResponse(
          { responseCode: '1', authCode: original.authCode, transId: original.transId, refTransId, account: `XXXX${original.card?.last4 ?? original.bank?.accountNumber.slice(-4)}`, accountType: original.card?.type ?? 'eCheck' },
          '1',
          'This transaction has been approved.',
        ),
      },
      refId,
    );
  }

  /**
   * refundTransaction (linked: refTransId, the card's last 4 digits and XXXX, or the bank account).
   * Shapes: authnetjson testCreateTransactionRequestRefund; reason 54 and 55 from the response code
   * reference; sample-code-node PaymentTransactions/refund-transaction.js, credit-bank-account.js.
   */
  #refund(
    refId: string | undefined,
    tr: Record<string, unknown>,
    order: Record<string, unknown> | undefined,
    card: { number: string } | undefined,
    bank: FakeTransaction['bank'],
    script: Script | undefined,
  ): object {
    if (tr.refTransId === undefined) throw new Refusal("A refund takes 'refTransId' (the fake takes linked refunds only).");
    const original = this.transactions.get(tr.refTransId as string);
    const account = card ? `XXXX${card.number.slice(-4)}` : `XXXX${bank!.accountNumber.slice(-4)}`;
    const fail = (reason: string, text: string) =>
      error('E00027', 'The transaction was unsuccessful.', refId, {
        transactionResponse: this.#transactionResponse({ responseCode: '3', transId: '0', refTransId: tr.refTransId as string, account, accountType: original?.card?.type ?? 'eCheck' }, reason, text),
      });
    if (script?.kind === 'answer') return fail(script.reason, script.text);
    // Refunds are of settled transactions, to the same card or account.
    const sameInstrument = card ? original?.card?.last4 === card.number.slice(-4) : original?.bank?.accountNumber === bank!.accountNumber && original?.bank?.routingNumber === bank!.routingNumber;
    if (!original || original.status !== 'settledSuccessfully' || !sameInstrument) {
      return fail('54', 'The referenced transaction does not meet the criteria for issuing a credit.');
    }
    const refunded = [...this.transactions.values()].filter((t) => t.type === 'refundTransaction' && t.refTransId === original.transId).reduce((n, t) => n + Number(t.amount), 0);
    if (refunded + Number(tr.amount) > Number(original.amount) + 1e-9) return fail('55', 'The sum of credits against the referenced transaction would exceed original debit amount.');
    const transId = this.#newId();
    this.transactions.set(transId, {
      transId,
      type: 'refundTransaction',
      status: 'refundPendingSettlement',
      responseCode: '1',
      responseReasonCode: '1',
      authCode: '',
      amount: tr.amount as string,
      invoiceNumber: order?.invoiceNumber as string | undefined,
      description: order?.description as string | undefined,
      submitTime: this.now(),
      refTransId: original.transId,
      ...(original.card ? { card: original.card } : { bank: original.bank }),
    });
    return ok({ transactionResponse: this.#transactionResponse({ responseCode: '1', transId, account, accountType: original.card?.type ?? 'eCheck' }, '1', 'This transaction has been approved.') }, refId);
  }

  /**
   * getTransactionDetailsRequest. Shape: authnetjson AuthnetJsonReportingTest.php
   * (testGetTransactionDetailsRequestSuccess: batch, order, masked payment, numbers as JSON numbers);
   * returnedItems from the API reference's transactionDetails. An unknown id: E00040.
   */
  #details(body: Record<string, unknown>): object {
    this.#keys('getTransactionDetailsRequest', body, ['merchantAuthentication', 'clientId', 'refId', 'transId'], ['transId']);
    const id = this.#string('transId', body.transId, /^\d{1,20}$/, 'not a transaction id');
    const t = this.transactions.get(id);
    if (!t) return error('E00040', 'The record cannot be found.');
    const batch = t.batchId ? this.batches.find((b) => b.batchId === t.batchId) : undefined;
    return ok({
      transaction: {
        transId: t.transId,
        ...(t.refTransId ? { refTransId: t.refTransId } : {}),
        submitTimeUTC: t.submitTime.toISOString(),
        submitTimeLocal: t.submitTime.toISOString().replace('Z', ''),
        transactionType: t.type,
        transactionStatus: t.status,
        responseCode: new RawNumber(t.responseCode),
        responseReasonCode: new RawNumber(t.responseReasonCode),
        responseReasonDescription: t.responseCode === '1' ? 'Approval' : 'Declined',
        authCode: t.authCode,
        AVSResponse: 'Y',
        ...(batch
          ? { batch: { batchId: batch.batchId, settlementTimeUTC: batch.settlementTime.toISOString(), settlementTimeUTCSpecified: true, settlementState: 'settledSuccessfully' } }
          : {}),
        order: { ...(t.invoiceNumber ? { invoiceNumber: t.invoiceNumber } : {}), ...(t.description ? { description: t.description } : {}) },
        requestedAmountSpecified: false,
        authAmount: new RawNumber(t.amount),
        settleAmount: new RawNumber(t.amount),
        payment: t.card
          ? { creditCard: { cardNumber: `XXXX${t.card.last4}`, expirationDate: 'XXXX', cardType: t.card.type } }
          : { bankAccount: { routingNumber: `XXXX${t.bank!.routingNumber.slice(-4)}`, accountNumber: `XXXX${t.bank!.accountNumber.slice(-4)}`, nameOnAccount: t.bank!.nameOnAccount, echeckType: t.bank!.echeckType } },
        ...(t.returnCode ? { returnedItems: [{ id: `R${t.transId}`, dateUTC: this.now().toISOString(), dateLocal: this.now().toISOString(), code: t.returnCode, description: 'Insufficient funds' }] } : {}),
        recurringBilling: false,
        product: 'Card Not Present',
        marketType: 'eCommerce',
      },
    });
  }

  #paging(where: string, body: Record<string, unknown>): { limit: number; page: number; descending: boolean } {
    let descending = false;
    if (body.sorting !== undefined) {
      const s = this.#keys('sorting', body.sorting, ['orderBy', 'orderDescending'], ['orderBy', 'orderDescending']);
      this.#string('orderBy', s.orderBy, /^(id|submitTimeUTC)$/, 'not a sort key');
      if (typeof s.orderDescending !== 'boolean') throw new Refusal("The 'orderDescending' element is invalid - a boolean is expected.");
      descending = s.orderDescending;
    }
    if (body.paging === undefined) return { limit: 1000, page: 1, descending };
    const p = this.#keys('paging', body.paging, ['limit', 'offset'], ['limit', 'offset']);
    if (typeof p.limit !== 'number' || !Number.isInteger(p.limit) || p.limit < 1 || p.limit > 1000) throw new Refusal(`${where}: paging.limit is 1 to 1000.`);
    if (typeof p.offset !== 'number' || !Number.isInteger(p.offset) || p.offset < 1 || p.offset > 100_000) throw new Refusal(`${where}: paging.offset is 1 to 100000.`);
    return { limit: p.limit, page: p.offset, descending };
  }

  /**
   * A transaction list. Shape: authnetjson testGetUnsettledTransactionListRequestSuccess and
   * testGetTransactionListRequestSuccess; an empty page is "No records found" (I00004).
   */
  #summaries(list: FakeTransaction[], paging: { limit: number; page: number; descending: boolean }): object {
    const sorted = [...list].sort((a, b) => (a.submitTime.getTime() - b.submitTime.getTime() || Number(a.transId) - Number(b.transId)) * (paging.descending ? -1 : 1));
    const page = sorted.slice((paging.page - 1) * paging.limit, paging.page * paging.limit);
    if (page.length === 0) return { messages: { resultCode: 'Ok', message: [{ code: 'I00004', text: 'No records found.' }] }, totalNumInResultSet: new RawNumber('0') };
    return ok({
      transactions: page.map((t) => ({
        transId: t.transId,
        submitTimeUTC: t.submitTime.toISOString().replace(/\.\d{3}Z$/, 'Z'),
        submitTimeLocal: t.submitTime.toISOString().replace(/\.\d{3}Z$/, ''),
        transactionStatus: t.status,
        ...(t.invoiceNumber ? { invoiceNumber: t.invoiceNumber } : {}),
        ...(t.firstName ? { firstName: t.firstName } : {}),
        ...(t.lastName ? { lastName: t.lastName } : {}),
        accountType: t.card?.type ?? 'eCheck',
        accountNumber: `XXXX${t.card?.last4 ?? t.bank?.accountNumber.slice(-4)}`,
        settleAmount: new RawNumber(t.amount),
        marketType: 'eCommerce',
        product: 'Card Not Present',
        hasReturnedItemsSpecified: !!t.returnCode,
        ...(t.returnCode ? { hasReturnedItems: true } : {}),
      })),
      totalNumInResultSet: new RawNumber(String(sorted.length)),
    });
  }

  #unsettled(body: Record<string, unknown>): object {
    this.#keys('getUnsettledTransactionListRequest', body, ['merchantAuthentication', 'clientId', 'refId', 'status', 'sorting', 'paging'], []);
    if (body.status !== undefined) this.#string('status', body.status, /^(any|pendingApproval)$/, 'not a status');
    const paging = this.#paging('getUnsettledTransactionList', body);
    return this.#summaries([...this.transactions.values()].filter((t) => !t.batchId && TRANSACTION_STATUSES_UNSETTLED.has(t.status)), paging);
  }

  /**
   * getSettledBatchListRequest. Shape: authnetjson testGetSettledBatchListRequestSuccess and
   * ...NoRecords (I00004); the 31-day limit of the API reference.
   */
  #batchList(body: Record<string, unknown>): object {
    this.#keys('getSettledBatchListRequest', body, ['merchantAuthentication', 'clientId', 'refId', 'includeStatistics', 'firstSettlementDate', 'lastSettlementDate'], []);
    if (body.includeStatistics !== undefined && typeof body.includeStatistics !== 'boolean') throw new Refusal("The 'includeStatistics' element is invalid - a boolean is expected.");
    const date = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z?$/;
    const first = new Date(this.#string('firstSettlementDate', body.firstSettlementDate, date, 'not a dateTime'));
    const last = new Date(this.#string('lastSettlementDate', body.lastSettlementDate, date, 'not a dateTime'));
    if (last.getTime() - first.getTime() > 31 * 24 * 3600_000) {
      return error('E00059', 'The date range cannot exceed 31 days.');
    }
    const batches = this.batches.filter((b) => b.settlementTime >= first && b.settlementTime <= last);
    if (batches.length === 0) return { messages: { resultCode: 'Ok', message: [{ code: 'I00004', text: 'No records found.' }] } };
    return ok({
      batchList: batches.map((b) => ({
        batchId: b.batchId,
        settlementTimeUTC: b.settlementTime.toISOString().replace(/\.\d{3}Z$/, 'Z'),
        settlementTimeUTCSpecified: true,
        settlementTimeLocal: b.settlementTime.toISOString().replace(/\.\d{3}Z$/, ''),
        settlementTimeLocalSpecified: true,
        settlementState: 'settledSuccessfully',
        paymentMethod: b.paymentMethod,
        marketType: 'eCommerce',
        product: 'Card Not Present',
      })),
    });
  }

  #transactionList(body: Record<string, unknown>): object {
    this.#keys('getTransactionListRequest', body, ['merchantAuthentication', 'clientId', 'refId', 'batchId', 'sorting', 'paging'], ['batchId']);
    const batchId = this.#string('batchId', body.batchId, /^\d{1,20}$/, 'not a batch id');
    const paging = this.#paging('getTransactionList', body);
    return this.#summaries([...this.transactions.values()].filter((t) => t.batchId === batchId), paging);
  }
}

/**
 * A number written as its decimal text (5.00 stays 5.00, 1018.88 stays 1018.88), as Authorize.Net
 * writes amounts: JSON.stringify would write 5.
 */
export class RawNumber {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toJSON(): unknown {
    return (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON(this.text);
  }
}
