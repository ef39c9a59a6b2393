import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ResponseCode } from '../../../src/domain/payment-status.ts';
import { type AuthorizeNetCredentials, AuthorizeNetProcessor } from '../../../src/processors/authorizenet/adapter.ts';
import { DUPLICATE_WINDOW_SECONDS, invoiceNumberOf } from '../../../src/processors/authorizenet/messages.ts';
import { resolveHeldOutcome } from '../../../src/processors/held-outcome.ts';
import {
  type ProcessorAdapter,
  ProcessorNotReachedError,
  ProcessorOutcomePendingError,
  ProcessorTimeoutError,
  type SaleRequest,
} from '../../../src/processors/processor.ts';
import { ProcessorRegistry } from '../../../src/processors/registry.ts';
import { FakeAuthorizeNet } from './fake-authorizenet.ts';
import { freePort } from '../../helpers/process.ts';

/**
 * The Authorize.Net adapter against a local fake of its JSON API (fake-authorizenet.ts, which
 * names the sources of every request and answer shape: Authorize.Net's API reference, its
 * official SDK's schema mapping and samples, and the stymiee/authnetjson library's sample
 * answers). The fake refuses any request the real API would refuse for its shape; every test ends
 * by asserting it refused none.
 */

const PROCESSOR = '6f1d2c3b-4a59-4e8f-9a1b-2c3d4e5f6a7b';
const WRONG_KEY_PROCESSOR = '7a2e3d4c-5b6a-4f9e-8b2c-3d4e5f6a7b8c';
const LOGIN = 'fakeLogin01';
const KEY = '0123456789abcdef';

let fake: FakeAuthorizeNet;
let adapter: ProcessorAdapter;
let wrongKey: ProcessorAdapter;
let unreachable: ProcessorAdapter;

const accounts = {
  async credentials(processorId: string): Promise<AuthorizeNetCredentials> {
    if (processorId === PROCESSOR) return { apiLoginId: LOGIN, transactionKey: KEY, environment: 'sandbox' };
    if (processorId === WRONG_KEY_PROCESSOR) return { apiLoginId: LOGIN, transactionKey: 'fedcba9876543210', environment: 'sandbox' };
    throw new Error('no such processor');
  },
};

beforeAll(async () => {
  fake = await FakeAuthorizeNet.start([{ name: LOGIN, transactionKey: KEY }]);
  const registry = new ProcessorRegistry([new AuthorizeNetProcessor({ accounts, sandboxUrl: fake.url })], { timeoutMs: 1_500 });
  adapter = registry.forProcessor({ id: PROCESSOR, adapter: 'authorizenet' });
  wrongKey = registry.forProcessor({ id: WRONG_KEY_PROCESSOR, adapter: 'authorizenet' });
  // A host name that does not resolve: nothing is sent.
  unreachable = new ProcessorRegistry([new AuthorizeNetProcessor({ accounts, sandboxUrl: 'http://no-such-host.invalid/xml/v1/request.api' })], { timeoutMs: 1_500 }).forProcessor({
    id: PROCESSOR,
    adapter: 'authorizenet',
  });
});
afterAll(() => fake.close());
afterEach(() => {
  // The adapter never sent a request the real API would refuse for its shape.
  expect(fake.violations).toEqual([]);
});

function cardSale(overrides: Partial<SaleRequest> & { cvv?: string; number?: string } = {}): SaleRequest {
  const { cvv, number, ...rest } = overrides;
  return {
    reference: randomUUID(),
    amountCents: 2500,
    currency: 'USD',
    card: { number: number ?? '4111111111111111', expMonth: '12', expYear: '30', cvv: cvv ?? '900', paymentMethodTypeId: 3 },
    billing: { name: 'Ada Lovelace', street: '1 Main St', zip: '98004' },
    ...rest,
  };
}

function achSale(overrides: Partial<SaleRequest> = {}): SaleRequest {
  return {
    reference: randomUUID(),
    amountCents: 1234,
    currency: 'USD',
    bank: { routingNumber: '121042882', accountNumber: '123456789012', accountType: 1, checkType: 1, country: 'US' },
    billing: { name: 'Grace Hopper' },
    ...overrides,
  };
}

const lastRequest = (api: string) => fake.requestsOf(api).at(-1) as Record<string, any>;

describe('a card sale (createTransactionRequest, authCaptureTransaction)', () => {
  it('approved: the answer in the service terms, the request in the API shape with our reference and the duplicate window', async () => {
    const request = cardSale();
    const result = await adapter.sale(request);
    expect(result).toMatchObject({
      approved: true,
      responseCode: ResponseCode.Approved,
      message: 'Approved',
      processorMessage: 'This transaction has been approved. (reason 1)',
      avsStreetStatus: 'Match',
      avsZipStatus: 'Match',
      avsResponse: 'Y',
      cvvResponse: 'M',
      isSurchargeEligible: null,
    });
    expect(result.transactionId).toMatch(/^\d+$/);
    expect(result.authCode).toMatch(/^A\d{5}$/);
    const sent = lastRequest('createTransactionRequest');
    expect(Object.keys(sent)).toEqual(['merchantAuthentication', 'refId', 'transactionRequest']);
    expect(sent.merchantAuthentication).toEqual({ name: LOGIN, transactionKey: KEY });
    expect(sent.refId).toBe(invoiceNumberOf(request.reference));
    expect(sent.transactionRequest).toEqual({
      transactionType: 'authCaptureTransaction',
      amount: '25.00',
      currencyCode: 'USD',
      payment: { creditCard: { cardNumber: '4111111111111111', expirationDate: '2030-12', cardCode: '900' } },
      order: { invoiceNumber: request.reference.replace(/-/g, '').slice(0, 20), description: `PaymentGuid ${request.reference}` },
      billTo: { firstName: 'Ada', lastName: 'Lovelace', address: '1 Main St', zip: '98004' },
      transactionSettings: { setting: [{ settingName: 'duplicateWindow', settingValue: String(DUPLICATE_WINDOW_SECONDS) }] },
    });
    expect(DUPLICATE_WINDOW_SECONDS).toBe(28_800);
  });

  it('declined (the testing guide\'s zip 46282): ResponseCode 12 with the transaction Authorize.Net recorded', async () => {
    const result = await adapter.sale(cardSale({ billing: { name: 'Ada Lovelace', street: '1 Main St', zip: '46282' } }));
    expect(result).toMatchObject({ approved: false, responseCode: '12', message: 'Declined', authCode: null, processorMessage: 'This transaction has been declined. (reason 2)' });
    expect(result.transactionId).toMatch(/^\d+$/);
  });

  it('gives AVS letters in the simulator\'s terms (testing guide zips) and a CVV mismatch as N', async () => {
    const cases: [string, string, object][] = [
      ['46201', '900', { avsResponse: 'A', avsStreetStatus: 'Match', avsZipStatus: 'No Match', cvvResponse: 'M' }],
      ['46217', '900', { avsResponse: 'Z', avsStreetStatus: 'No Match', avsZipStatus: 'Match', cvvResponse: 'M' }],
      ['46211', '900', { avsResponse: 'Z', avsStreetStatus: 'No Match', avsZipStatus: 'Match' }],
      ['46214', '900', { avsResponse: 'Y', avsStreetStatus: 'Match', avsZipStatus: 'Match' }],
      ['46209', '901', { avsResponse: 'U', avsStreetStatus: null, avsZipStatus: null, cvvResponse: 'N' }],
      ['46203', '904', { avsResponse: 'U', cvvResponse: 'P' }],
      ['98004', '902', { avsResponse: 'Y', cvvResponse: 'P' }],
    ];
    for (const [zip, cvv, expected] of cases) {
      const result = await adapter.sale(cardSale({ cvv, billing: { name: 'Ada Lovelace', street: '1 Main St', zip } }));
      expect(result, `zip ${zip} cvv ${cvv}`).toMatchObject({ approved: true, ...expected });
    }
    // No street and no zip sent: Authorize.Net says B (not provided).
    const none = await adapter.sale(cardSale({ billing: { name: 'Ada Lovelace' } }));
    expect(none).toMatchObject({ avsResponse: 'U', avsStreetStatus: 'Not Provided', avsZipStatus: 'Not Provided' });
    expect(lastRequest('createTransactionRequest').transactionRequest.billTo).toEqual({ firstName: 'Ada', lastName: 'Lovelace' });
  });

  it('AVS and CVV refusals of the merchant\'s filters are declines with what failed', async () => {
    fake.script({ kind: 'answer', responseCode: '2', reason: '27', text: 'The transaction has been declined because of an AVS mismatch. The address provided does not match billing address of cardholder.', avs: 'N' });
    const avs = await adapter.sale(cardSale());
    expect(avs).toMatchObject({ approved: false, responseCode: '12', message: expect.stringMatching(/AVS/), avsResponse: 'N', avsStreetStatus: 'No Match', avsZipStatus: 'No Match' });
    fake.script({ kind: 'answer', responseCode: '2', reason: '65', text: 'This transaction has been declined.', cvv: 'N' });
    const cvv = await adapter.sale(cardSale());
    expect(cvv).toMatchObject({ approved: false, responseCode: '12', message: 'Declined: incorrect CVV', cvvResponse: 'N' });
    fake.script({ kind: 'answer', responseCode: '2', reason: '3', text: 'This transaction has been declined.' });
    expect(await adapter.sale(cardSale())).toMatchObject({ approved: false, responseCode: ResponseCode.Referral });
  });

  it('errors about the card are the gateway\'s codes (24 expiry), and make no transaction (no transaction id)', async () => {
    fake.script({ kind: 'answer', responseCode: '3', reason: '8', text: 'The credit card has expired.' });
    const expired = await adapter.sale(cardSale());
    expect(expired).toMatchObject({ approved: false, responseCode: ResponseCode.InvalidExpirationDate, transactionId: '' });
    fake.script({ kind: 'answer', responseCode: '3', reason: '19', text: 'An error occurred during processing. Please try again in 5 minutes.' });
    expect(await adapter.sale(cardSale())).toMatchObject({ approved: false, responseCode: ResponseCode.GeneralError, transactionId: '' });
  });

  it('held for review (4): a pending outcome, not an approval; the look-up says pending until the merchant decides', async () => {
    fake.script({ kind: 'answer', responseCode: '4', reason: '253', text: 'Your order has been received. Thank you for your business!' });
    const request = cardSale();
    const held = await adapter.sale(request).catch((e: unknown) => e);
    expect(held).toBeInstanceOf(ProcessorOutcomePendingError);
    const transId = (held as ProcessorOutcomePendingError).transactionId!;
    expect(transId).toMatch(/^\d+$/);
    const sentAt = fake.now();
    expect(await adapter.lookup({ kind: 'sale', reference: request.reference, sentAt, amountCents: 2500 })).toMatchObject({ found: true, outcome: 'pending', status: 'FDSPendingReview' });
    fake.review(transId, 'approve');
    expect(await adapter.lookup({ kind: 'sale', reference: request.reference, sentAt, amountCents: 2500 })).toMatchObject({ found: true, outcome: 'approved', transactionId: transId, amountCents: 2500 });
  });

  it('a duplicate (the same reference sent again within the window) is never charged twice: unknown, and the look-up finds the first', async () => {
    const request = cardSale();
    const first = await adapter.sale(request);
    const again = await adapter.sale(request).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(Error);
    expect(again).not.toBeInstanceOf(ProcessorNotReachedError);
    expect((again as Error).message).toMatch(/duplicate/);
    expect([...fake.transactions.values()].filter((t) => t.invoiceNumber === invoiceNumberOf(request.reference))).toHaveLength(1);
    const found = await adapter.lookup({ kind: 'sale', reference: request.reference, sentAt: fake.now(), amountCents: 2500 });
    expect(found).toMatchObject({ found: true, outcome: 'approved', transactionId: first.transactionId, authCode: first.authCode });
  });

  it('invalid credentials (E00007): nothing processed, said so; the credentials check says it too', async () => {
    const result = await wrongKey.sale(cardSale());
    expect(result).toMatchObject({ approved: false, responseCode: ResponseCode.GeneralError, message: expect.stringMatching(/credentials/), processorMessage: expect.stringMatching(/^E00007/), transactionId: '' });
    expect(await wrongKey.checkCredentials!({ processorId: WRONG_KEY_PROCESSOR })).toEqual({ ok: false, message: expect.stringMatching(/refused the credentials: E00007 User authentication failed/) });
    expect(await adapter.checkCredentials!({ processorId: PROCESSOR })).toEqual({ ok: true, message: 'Authorize.Net (sandbox) accepted the credentials' });
    expect(Object.keys(lastRequest('authenticateTestRequest'))).toEqual(['merchantAuthentication']);
  });

  it('refuses before sending what Authorize.Net would refuse, with its answer', async () => {
    const before = fake.requests.length;
    expect(await adapter.sale(cardSale({ number: '4111111111111111111' }))).toMatchObject({ approved: false, responseCode: '12', transactionId: '' });
    expect(await adapter.sale(achSale({ bank: { routingNumber: '121042882', accountNumber: '123456789012', accountType: 1, checkType: 1, country: 'CA' } }))).toMatchObject({ approved: false, message: expect.stringMatching(/US bank accounts only/) });
    expect(fake.requests.length).toBe(before);
    await expect(adapter.sale({ ...cardSale(), card: undefined, wallet: { paymentMethodTypeId: 8, data: 'x' } })).rejects.toThrow(ProcessorNotReachedError);
  });

  it('sends nothing without a processor, or with one that has no credentials', async () => {
    const bare = new AuthorizeNetProcessor({ accounts, sandboxUrl: fake.url });
    await expect(bare.sale(cardSale())).rejects.toThrow(ProcessorNotReachedError);
    await expect(bare.sale({ ...cardSale(), processorId: '00000000-0000-4000-8000-000000000000' })).rejects.toThrow(/no usable Authorize.Net credentials/);
  });
});

describe('an eCheck sale (bankAccount)', () => {
  it('approved, as WEB from a personal account and CCD from a business one; a return comes in the settlement report', async () => {
    const personal = achSale();
    const result = await adapter.sale(personal);
    expect(result).toMatchObject({ approved: true, responseCode: '0', avsResponse: null, cvvResponse: null, avsStreetStatus: null });
    expect(lastRequest('createTransactionRequest').transactionRequest.payment).toEqual({
      bankAccount: { accountType: 'checking', routingNumber: '121042882', accountNumber: '123456789012', nameOnAccount: 'Grace Hopper', echeckType: 'WEB' },
    });
    const business = await adapter.sale(achSale({ bank: { routingNumber: '121042882', accountNumber: '99887766', accountType: 1, checkType: 2, country: 'US' }, billing: { name: 'A Very Long Business Name Incorporated' } }));
    expect(business.approved).toBe(true);
    expect(lastRequest('createTransactionRequest').transactionRequest.payment.bankAccount).toMatchObject({ accountType: 'businessChecking', echeckType: 'CCD', nameOnAccount: 'A Very Long Business N' });

    const from = fake.now();
    fake.settleBatch(new Date(from.getTime() + 1000));
    fake.returnItem(result.transactionId, 'R01');
    const report = await adapter.settlementReport!({ from, to: new Date(from.getTime() + 60_000) });
    expect(report.transactions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ transactionId: result.transactionId, kind: 'sale', state: 'returned', returnCode: 'R01', amountCents: 1234, referenceHint: invoiceNumberOf(personal.reference) }),
        expect.objectContaining({ transactionId: business.transactionId, kind: 'sale', state: 'settled', amountCents: 1234 }),
      ]),
    );
  });

  it('invalid routing or account numbers are the gateway\'s 22 and 23', async () => {
    fake.script({ kind: 'answer', responseCode: '3', reason: '9', text: 'The ABA code is invalid' });
    expect(await adapter.sale(achSale())).toMatchObject({ approved: false, responseCode: ResponseCode.InvalidAbaNumber });
    fake.script({ kind: 'answer', responseCode: '3', reason: '10', text: 'The account number is invalid' });
    expect(await adapter.sale(achSale())).toMatchObject({ approved: false, responseCode: ResponseCode.InvalidAccountNumber });
  });
});

describe('voids and refunds', () => {
  it('voids an unsettled sale (refTransId only); a second void is "already voided", which is what was asked', async () => {
    const sale = await adapter.sale(cardSale());
    const reference = randomUUID();
    const voided = await adapter.void({ reference, originalTransactionId: sale.transactionId, amountCents: 2500, kind: 'card' });
    expect(voided).toEqual({ approved: true, responseCode: '0', message: 'Void approved', processorMessage: 'This transaction has been approved. (reason 1)', transactionId: sale.transactionId });
    expect(lastRequest('createTransactionRequest')).toEqual({
      merchantAuthentication: { name: LOGIN, transactionKey: KEY },
      refId: invoiceNumberOf(reference),
      transactionRequest: { transactionType: 'voidTransaction', refTransId: sale.transactionId },
    });
    expect(await adapter.void({ reference: randomUUID(), originalTransactionId: sale.transactionId, amountCents: 2500, kind: 'card' })).toMatchObject({ approved: true });
    expect(await adapter.lookup({ kind: 'void', reference, sentAt: fake.now(), amountCents: 2500, originalTransactionId: sale.transactionId })).toMatchObject({ found: true, outcome: 'approved', voided: true });
  });

  it('refuses the void of a settled sale, with what to do instead', async () => {
    const sale = await adapter.sale(cardSale());
    fake.settleBatch();
    const refused = await adapter.void({ reference: randomUUID(), originalTransactionId: sale.transactionId, amountCents: 2500, kind: 'card' });
    expect(refused).toMatchObject({ approved: false, responseCode: '12', message: expect.stringMatching(/refund it instead/), transactionId: '' });
    expect(await adapter.lookup({ kind: 'void', reference: randomUUID(), sentAt: fake.now(), amountCents: 2500, originalTransactionId: sale.transactionId })).toMatchObject({ found: false });
  });

  it('refuses the refund of an unsettled sale (54); refunds a settled one with the card\'s last 4 digits and a masked expiry', async () => {
    const sale = await adapter.sale(cardSale({ number: '5424000000000015' }));
    const early = await adapter.refund({ reference: randomUUID(), originalTransactionId: sale.transactionId, amountCents: 2500, kind: 'card' });
    expect(early).toMatchObject({ approved: false, responseCode: '12', message: expect.stringMatching(/not settled at the processor yet/), processorMessage: expect.stringMatching(/\(reason 54\)$/) });
    fake.settleBatch();
    const reference = randomUUID();
    const refund = await adapter.refund({ reference, originalTransactionId: sale.transactionId, amountCents: 2500, kind: 'card' });
    expect(refund).toMatchObject({ approved: true, message: 'Refund approved' });
    expect(refund.transactionId).not.toBe(sale.transactionId);
    expect(lastRequest('createTransactionRequest').transactionRequest).toEqual({
      transactionType: 'refundTransaction',
      amount: '25.00',
      payment: { creditCard: { cardNumber: '0015', expirationDate: 'XXXX' } },
      refTransId: sale.transactionId,
      order: { invoiceNumber: invoiceNumberOf(reference), description: `Refund ${reference}` },
      transactionSettings: { setting: [{ settingName: 'duplicateWindow', settingValue: '28800' }] },
    });
    expect(await adapter.lookup({ kind: 'refund', reference, sentAt: fake.now(), amountCents: 2500 })).toMatchObject({ found: true, outcome: 'approved', transactionId: refund.transactionId });
  });

  it('refunds an eCheck with the whole account, and sends nothing without it', async () => {
    const bank = { routingNumber: '121042882', accountNumber: '555566667777', accountType: 2, checkType: 1, country: 'US' };
    const sale = await adapter.sale(achSale({ bank }));
    fake.settleBatch();
    const before = fake.requests.length;
    await expect(adapter.refund({ reference: randomUUID(), originalTransactionId: sale.transactionId, amountCents: 1234, kind: 'ach' })).rejects.toThrow(ProcessorNotReachedError);
    expect(fake.requests.length).toBe(before);
    const refund = await adapter.refund({ reference: randomUUID(), originalTransactionId: sale.transactionId, amountCents: 1234, kind: 'ach', account: { ...bank, nameOnAccount: 'Grace Hopper' } });
    expect(refund).toMatchObject({ approved: true });
    expect(lastRequest('createTransactionRequest').transactionRequest.payment).toEqual({
      bankAccount: { accountType: 'savings', routingNumber: '121042882', accountNumber: '555566667777', nameOnAccount: 'Grace Hopper', echeckType: 'WEB' },
    });
  });
});

describe('look-ups (getUnsettledTransactionList, getSettledBatchList, getTransactionList, getTransactionDetails)', () => {
  it('find an approved sale by our reference, unsettled and then settled, with the exact amount', async () => {
    const request = cardSale({ amountCents: 101888 });
    const sale = await adapter.sale(request);
    const sentAt = fake.now();
    expect(await adapter.lookup({ kind: 'sale', reference: request.reference, sentAt, amountCents: 101888 })).toEqual({
      found: true,
      outcome: 'approved',
      transactionId: sale.transactionId,
      authCode: sale.authCode,
      amountCents: 101888,
      voided: false,
      settledAt: null,
      status: 'capturedPendingSettlement',
    });
    const at = new Date(Math.floor(fake.now().getTime() / 1000) * 1000);
    fake.settleBatch(at);
    const settled = await adapter.lookup({ kind: 'sale', reference: request.reference, sentAt, amountCents: 101888 });
    expect(settled).toMatchObject({ found: true, outcome: 'approved', status: 'settledSuccessfully', amountCents: 101888 });
    expect((settled as { settledAt: Date }).settledAt.getTime()).toBe(at.getTime());
    expect(lastRequest('getSettledBatchListRequest')).toEqual({
      merchantAuthentication: { name: LOGIN, transactionKey: KEY },
      includeStatistics: false,
      firstSettlementDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      lastSettlementDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    });
  });

  it('find a declined sale as declined, and say "not found" for a reference Authorize.Net never saw', async () => {
    const request = cardSale({ billing: { name: 'Ada', zip: '46282' } });
    await adapter.sale(request);
    expect(await adapter.lookup({ kind: 'sale', reference: request.reference, sentAt: fake.now(), amountCents: 2500 })).toMatchObject({ found: true, outcome: 'declined', status: 'declined' });
    const never = await adapter.lookup({ kind: 'sale', reference: randomUUID(), sentAt: fake.now(), amountCents: 2500 });
    expect(never).toMatchObject({ found: false, detail: expect.stringMatching(/no sale with invoice number/) });
  });

  it('read "No records found" (I00004) as an empty list', async () => {
    const lonely = await FakeAuthorizeNet.start([{ name: LOGIN, transactionKey: KEY }]);
    try {
      const empty = new AuthorizeNetProcessor({ accounts, sandboxUrl: lonely.url });
      expect(await empty.lookup({ kind: 'sale', reference: randomUUID(), sentAt: new Date(), amountCents: 1, processorId: PROCESSOR })).toMatchObject({ found: false });
      lonely.requests.length = 0;
      expect(await empty.settlementReport({ from: new Date(Date.now() - 40 * 86_400_000), to: new Date(), processorId: PROCESSOR })).toEqual({ transactions: [] });
      // 40 days: asked as two ranges of at most 31 days (the API refuses longer ones).
      expect(lonely.requestsOf('getSettledBatchListRequest')).toHaveLength(2);
      expect(lonely.violations).toEqual([]);
    } finally {
      await lonely.close();
    }
  });
});

describe('the settlement report (settled batch lists)', () => {
  it('lists the sales and refunds Authorize.Net settled in a period, in exact cents, with their batch', async () => {
    // Whole seconds: the batch list gives settlement times to the second.
    const from = new Date(Math.ceil(fake.now().getTime() / 1000) * 1000 + 60_000);
    const a = await adapter.sale(cardSale({ amountCents: 1999 }));
    const b = await adapter.sale(cardSale({ amountCents: 5 }));
    const settledAt = new Date(from.getTime() + 1_000);
    const [batch] = fake.settleBatch(settledAt);
    const refund = await adapter.refund({ reference: randomUUID(), originalTransactionId: a.transactionId, amountCents: 1999, kind: 'card' });
    const later = new Date(from.getTime() + 2_000);
    fake.settleBatch(later);
    const report = await adapter.settlementReport!({ from, to: new Date(from.getTime() + 60_000) });
    expect(report.transactions).toEqual([
      { transactionId: a.transactionId, batchId: batch!.batchId, settledAt, kind: 'sale', state: 'settled', amountCents: 1999, referenceHint: expect.any(String) },
      { transactionId: b.transactionId, batchId: batch!.batchId, settledAt, kind: 'sale', state: 'settled', amountCents: 5, referenceHint: expect.any(String) },
      { transactionId: refund.transactionId, batchId: expect.any(String), settledAt: later, kind: 'refund', state: 'settled', amountCents: 1999, referenceHint: expect.any(String) },
    ]);
  });

  it('settle() asks nothing of Authorize.Net: it settles in its own daily batch', async () => {
    const before = fake.requests.length;
    const result = await adapter.settle({ batchId: 'settle-x', processorId: PROCESSOR, cutoffAt: new Date(), transactionIds: ['1'], totals: [{ currency: 'USD', count: 1, amountCents: 100 }] });
    expect(result).toMatchObject({ accepted: true, message: expect.stringMatching(/own daily batch/) });
    expect(fake.requests.length).toBe(before);
    expect(adapter.capabilities.settlesItself).toBe(true);
  });
});

describe('failures: nothing reached, a timeout, a broken answer', () => {
  it('a connection refused is ProcessorNotReachedError (nothing happened)', async () => {
    const port = await freePort();
    const refused = new AuthorizeNetProcessor({ accounts, sandboxUrl: `http://127.0.0.1:${port}/xml/v1/request.api` });
    await expect(refused.sale({ ...cardSale(), processorId: PROCESSOR })).rejects.toThrow(ProcessorNotReachedError);
    await expect(unreachable.sale(cardSale())).rejects.toThrow(ProcessorNotReachedError);
  });

  it('a timeout aborts the request (the fake sees the connection closed); the look-up then resolves the held sale', async () => {
    fake.script({ kind: 'hang' });
    const request = cardSale();
    const abandonedBefore = fake.abandoned;
    const started = Date.now();
    await expect(adapter.sale(request)).rejects.toThrow(ProcessorTimeoutError);
    expect(Date.now() - started).toBeLessThan(5_000);
    await expect.poll(() => fake.abandoned).toBe(abandonedBefore + 1);
    // Nothing was made: found nowhere; after Authorize.Net's window, not processed.
    const sentAt = fake.now();
    expect(await resolveHeldOutcome(adapter, { kind: 'payment', reference: request.reference, sentAt, amountCents: 2500 }, new Date(sentAt.getTime() + 60_000))).toMatchObject({ action: 'wait' });
    expect(await resolveHeldOutcome(adapter, { kind: 'payment', reference: request.reference, sentAt, amountCents: 2500 }, new Date(sentAt.getTime() + 31 * 60_000))).toEqual({
      action: 'record',
      outcome: { kind: 'not-processed' },
      detail: expect.stringMatching(/^not found 31 minutes after it was sent/),
    });
  });

  it('a broken answer (HTTP 502, not JSON, cut off, no result) leaves the outcome unknown, never "not reached"', async () => {
    const scripts = [
      { kind: 'http', status: 502, body: '<html>Bad gateway</html>' },
      { kind: 'raw', body: '\uFEFF{"transactionResponse": ' },
      { kind: 'cut' },
      { kind: 'raw', body: '\uFEFF{"hello":"world"}' },
      { kind: 'raw', body: '\uFEFF{"messages":{"resultCode":"Ok","message":[{"code":"I00001","text":"Successful."}]}}' },
    ] as const;
    for (const script of scripts) {
      fake.script(script);
      const failure = await adapter.sale(cardSale()).catch((e: unknown) => e);
      expect(failure, script.kind).toBeInstanceOf(Error);
      expect(failure, script.kind).not.toBeInstanceOf(ProcessorNotReachedError);
    }
  });

  it('an approval whose answer was lost is unknown, and the look-up records it as approved', async () => {
    const request = cardSale();
    fake.script({ kind: 'lose' });
    const lost = await adapter.sale(request).catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(Error);
    expect(lost).not.toBeInstanceOf(ProcessorNotReachedError);
    const made = [...fake.transactions.values()].find((t) => t.invoiceNumber === invoiceNumberOf(request.reference))!;
    expect(made.status).toBe('capturedPendingSettlement');
    const decision = await resolveHeldOutcome(adapter, { kind: 'payment', reference: request.reference, sentAt: fake.now(), amountCents: 2500 }, fake.now());
    expect(decision).toEqual({ action: 'record', outcome: { kind: 'approved', transactionId: made.transId, authCode: made.authCode }, detail: expect.stringMatching(/capturedPendingSettlement/) });
  });
});
