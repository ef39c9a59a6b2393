import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/platform/clock.ts';
import { testConfig } from '../../../src/config.ts';
import { cryptoIds } from '../../../src/platform/ids.ts';
import { PaymentResult } from '../../../src/domain/payment-status.ts';
import { ProcessorNotReachedError } from '../../../src/processors/processor.ts';
import { createServices } from '../../../src/composition.ts';
import { type QueryOptions, openPostgres, openStore } from '../../../src/platform/database/database.ts';
import { type TestContext, cardPaymentInput, createTestContext, seedTestPartner, withSimulator } from '../../helpers/context.ts';
import { testDatabaseUrl } from '../../helpers/database-url.ts';
import { expectDocumented } from '../../helpers/openapi.ts';
import { type Body, ach } from './refund-void-fixtures.ts';
import { type RunningService, startService } from '../../helpers/process.ts';
import { processStore } from '../../helpers/store.ts';
import { asWire, rethrowAsWire } from '../../helpers/wire-violations.ts';
import { connectionLostError, unreachableDatabaseError } from '../../helpers/unreachable-database.ts';
import { testLogger } from '../../helpers/logger.ts';
import { VaultError } from '../../../src/platform/errors.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());


const card = (overrides: Body = {}): Body => ({
  CardNum: '4242 4242 4242 4242',
  ExpMonth: '12',
  ExpYear: '30',
  CVNum: '123',
  NameOnCard: 'Ada Lovelace',
  Email: 'ada@example.org',
  IpAddress: '203.0.113.9',
  Zip: '12345',
  Street: '1 Main St',
  FirstName: 'Ada',
  LastName: 'Lovelace',
  Transactions: [{ TransactionSourceGroupId: '1', Amount: '100.00' }],
  ...overrides,
});

const pay = (body: Body, partner = ctx.nonProfit) => ctx.as(partner, { method: 'POST', url: '/api/payment', payload: body });
const payAch = (body: Body, partner = ctx.nonProfit) => ctx.as(partner, { method: 'POST', url: '/api/paymentAch', payload: body });
const paymentCount = async () => Number((await ctx.store.sql.query<{ n: string }>('SELECT count(*) AS n FROM payments'))[0]!.n);
let tranSeq = 0;
const newTranId = () => `order-${Date.now()}-${++tranSeq}`;

describe('POST /api/payment', () => {
  it('charges an approved card: 201 with every field of the payment response', async () => {
    const res = await pay(card({ TranId: newTranId(), City: 'Albany', State: 'ny', Country: 'US', BillingDescriptor: 'DEMO*DONATION' }));
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({
      Successful: true,
      Message: 'Approved',
      ResponseCode: '0',
      PaymentResult: 3,
      ProcessStatus: 2,
      TotalAmount: 100,
      TotalSurcharge: null,
      AVSStreetStatus: 'Match',
      AVSZipStatus: 'Match',
      AVSResponse: 'Y',
      CVVResponse: 'M',
      CardNum: '4242',
      CardType: 'Visa',
      ExpMonth: '12',
      ExpYear: '30',
      Currency: 'USD',
      PaymentMethodTypeId: 3,
      FirstName: 'Ada',
      LastName: 'Lovelace',
      EmailAddress: 'ada@example.org',
      PostalCode: '12345',
      AddressLine1: '1 Main St',
      City: 'Albany',
      ProvinceCode: 'NY',
      CountryCode: 'US',
      CheckAccountNum: null,
      TokenGuid: null,
      ExternalCardToken: null,
      ProcessorGuid: ctx.nonProfit.processorId,
      OrganizationGuid: ctx.nonProfit.organizationId,
      PaymentDate: ctx.clock.now().toISOString(),
    });
    expect(body.AuthCode).toMatch(/^[0-9A-F]{6}$/);
    expect(body.TransactionId).toMatch(/^SIM\d{15}$/);
    expect(body.PaymentGuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number.isInteger(body.PaymentId)).toBe(true);
    expect(body.TransactionFees).toHaveLength(1);
    await expectDocumented(ctx.app, 'POST', '/api/payment', res);
  });

  it('sets CardType from the number whatever the client sent', async () => {
    const res = await pay(card({ CardNum: '378282246310005', CVNum: '1234', CardType: 'Visa' }));
    expect(res.json()).toMatchObject({ CardType: 'American Express', PaymentMethodTypeId: 1, CardNum: '0005' });
    // JCB is not among the spec's CardType values: Undefined, with PaymentMethodTypeId 6.
    const jcb = await pay(card({ CardNum: '3530111333300000', CardType: 'JCB' }));
    expect(jcb.statusCode, jcb.body).toBe(201);
    expect(jcb.json()).toMatchObject({ Successful: true, CardType: 'Undefined', PaymentMethodTypeId: 6, CardNum: '0000' });
  });

  it('charges the same fees as GET /api/fee quotes for the same input', async () => {
    const lines = [{ TransactionSourceGroupId: '1', Amount: '100.00', PayFee: true, Tip: '5.00', Tax: '2.50', CommissionRateOverride: '3' }];
    const res = await pay(card({ Transactions: lines }));
    const quote = await ctx.as(ctx.nonProfit, {
      method: 'GET',
      url: '/api/fee?Amount=100.00&TransactionSourceGroupId=1&PayFee=true&Tip=5.00&Tax=2.50&CommissionRateOverride=3&PaymentMethodTypeId=3',
    });
    expect(quote.statusCode).toBe(200);
    expect(res.json().TransactionFees[0]).toEqual(quote.json());
    expect(res.json().TotalAmount).toBe(quote.json().PaymentAmount);
  });

  it('adds ShippingFee and Surcharge to the total and only reports TaxableBenefit', async () => {
    const res = await pay(card({ ShippingFee: '4.95', Surcharge: '3.00', TaxableBenefit: '25.00' }));
    expect(res.json()).toMatchObject({ TotalAmount: 107.95, TotalSurcharge: 3 });
    const row = await ctx.store.sql.query<{ taxable_benefit_cents: number }>('SELECT taxable_benefit_cents FROM payments WHERE id = $1', [res.json().PaymentGuid]);
    expect(Number(row[0]!.taxable_benefit_cents)).toBe(2500);
  });

  it('sums several lines, with the flat fees once', async () => {
    const res = await pay(card({ Transactions: [{ TransactionSourceGroupId: '1', Amount: '10.00' }, { TransactionSourceGroupId: '4', Amount: '20.00', ExternalLineId: 'ticket-1' }] }));
    const fees = res.json().TransactionFees;
    expect(fees.map((f: { PerTransFee: number }) => f.PerTransFee)).toEqual([0.3, 0]);
    expect(res.json().TotalAmount).toBe(30);
  });

  it('charges a payment whose fees exceed its amount: there is no minimum charge', async () => {
    const res = await pay(card({ Transactions: [{ TransactionSourceGroupId: '1', Amount: '0.01' }] }));
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ Successful: true, TotalAmount: 0.01 });
    expect(res.json().TransactionFees[0]).toMatchObject({ PaymentAmount: 0.01, PerTransFee: 0.3 });
  });

  it('defaults the currency from the country', async () => {
    expect((await pay(card({ Country: 'CA', Zip: 'K1A 0B1', State: 'ON' }))).json().Currency).toBe('CAD');
    expect((await pay(card({ Country: 'AU', Zip: '2000', State: 'NSW' }))).json().Currency).toBe('AUD');
    expect((await pay(card({ Currency: 'cad' }))).json().Currency).toBe('CAD');
    // ISO 4217 minor unit 2, though ICU shows them without decimals: accepted (a review found them refused).
    for (const currency of ['HUF', 'COP', 'IDR', 'PKR']) expect((await pay(card({ Currency: currency }))).statusCode, currency).toBe(201);
  });

  it.each([
    ['4000000000000002', '12', 'Declined'],
    ['4000000000009995', '50', 'Insufficient funds'],
    ['4000000000000069', '24', 'Invalid expiration date'],
    ['4000000000000127', '12', 'Declined: incorrect CVV'],
    ['4000000000000119', '99', 'Processing error'],
    ['4000000000000101', '12', 'Declined: CVV check failed'],
  ])('records a declined attempt for %s (201, Successful false, code %s)', async (number, code, message) => {
    const res = await pay(card({ CardNum: number }));
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ Successful: false, ResponseCode: code, Message: message, PaymentResult: 4, ProcessStatus: 5, AuthCode: null });
    await expectDocumented(ctx.app, 'POST', '/api/payment', res);
  });

  it('reports AVS and CVV results of the simulator', async () => {
    expect((await pay(card({ CardNum: '4000000000000010' }))).json()).toMatchObject({ Successful: true, AVSResponse: 'N' });
    expect((await pay(card({ CardNum: '4000000000000036' }))).json()).toMatchObject({ Successful: true, AVSResponse: 'A' });
    expect((await pay(card({ CardNum: '4000000000000101', CVNum: undefined }))).json()).toMatchObject({ Successful: true, CVVResponse: 'P' });
  });

  it('takes a wallet transaction without card data', async () => {
    const res = await pay(card({ CardNum: undefined, ExpMonth: undefined, ExpYear: undefined, CVNum: undefined, PaymentMethodTypeId: '8', ExternalPaymentData: 'opaque-wallet-blob' }));
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ Successful: true, PaymentMethodTypeId: 8, CardNum: null, CardType: 'Undefined', CVVResponse: null });
  });

  it('takes a wallet B transaction (PaymentMethodTypeId 9)', async () => {
    const res = await pay(card({ CardNum: undefined, ExpMonth: undefined, ExpYear: undefined, CVNum: undefined, PaymentMethodTypeId: '9', ExternalPaymentData: 'opaque-wallet-blob' }));
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ Successful: true, PaymentMethodTypeId: 9, CardNum: null, CardType: 'Undefined' });
  });

  it('tokenizes an approved card and returns the gateway keys', async () => {
    const res = await pay(card({ Tokenize: true, ExternalConstituentId: 'donor-42' }));
    const body = res.json();
    expect(body.TokenGuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.ExternalCardToken).toMatch(/^\d+$/);
    expect(body.ExternalCustomerId).toMatch(/^\d+$/);
    expect(body.ExternalConstituentId).toBe('donor-42');
    const token = await ctx.services.tokens.find(ctx.nonProfit.ClientId, body.ExternalCardToken);
    expect(token).toMatchObject({ id: body.TokenGuid, kind: 'card', last4: '4242', paymentMethodTypeId: 3, externalConstituentId: 'donor-42' });
    expect(await ctx.services.tokens.find(ctx.forProfit.ClientId, body.TokenGuid)).toBeUndefined();
  });

  it('does not tokenize a declined card', async () => {
    const res = await pay(card({ CardNum: '4000000000000002', Tokenize: true }));
    expect(res.json()).toMatchObject({ Successful: false, TokenGuid: null, ExternalCardToken: null });
  });

  it('answers 201 with a general error when the processor cannot be reached, and records it', async () => {
    const unreachable = async (): Promise<never> => {
      throw new ProcessorNotReachedError('connection refused by the bank 4242424242424242');
    };
    await withSimulator(ctx.services, { sale: unreachable }, async () => {
      const res = await pay(card());
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ Successful: false, ResponseCode: '99', PaymentResult: 4, ProcessStatus: 1 });
      expect(ctx.logs.join('')).not.toContain('4242424242424242');
    });
  });

  it('holds a payment whose processor call failed otherwise (a timeout: it may have charged) as Processing, its TranId taken', async () => {
    const timedOut = async (): Promise<never> => {
      throw new Error('read timeout talking to the bank 4242424242424242');
    };
    const TranId = `unknown-${Date.now()}`;
    await withSimulator(ctx.services, { sale: timedOut }, async () => {
      const res = await pay(card({ TranId }));
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ Successful: false, ResponseCode: '99', PaymentResult: 2, ProcessStatus: 1 });
      expect(res.json().Message).toMatch(/not known\. Do not pay again/);
      expect(ctx.logs.join('')).not.toContain('4242424242424242');
    });
    // Sent again (the processor answers now), it is refused as a duplicate: no second charge.
    const again = await pay(card({ TranId }));
    expect(again.json()).toMatchObject({ Successful: false, ResponseCode: '-100', ProcessStatus: 1 });
    // An operator sees it among the payments whose outcome is unknown.
    const pending = await ctx.store.sql.query<{ id: string }>('SELECT id FROM payments WHERE tran_id = $1 AND payment_result = 2', [TranId]);
    expect(pending).toHaveLength(1);
    // The retry is told which payment holds the TranId and that its outcome is not known yet.
    expect(again.json().Message).toContain(`(payment ${pending[0]!.id}: held, its outcome not known yet; do not pay again)`);
  });

  it('keeps only the spec\'s GwShieldAdditional fields (unknown ones are ignored, not stored)', async () => {
    const res = await pay(card({ GwShieldAdditional: { productItem: 'Gala ticket', SessionId: 'abc', ClientFullName: 'Ada', Extra: { deep: [1, 2] } } }));
    expect(res.statusCode).toBe(201);
    const [row] = await ctx.store.sql.query<{ gw_shield: unknown }>('SELECT gw_shield FROM payments WHERE id = $1', [res.json().PaymentGuid]);
    expect(row!.gw_shield).toEqual({ ProductItem: 'Gala ticket', SessionId: 'abc' });
    const none = await pay(card({ GwShieldAdditional: { Extra: 'x' } }));
    const [empty] = await ctx.store.sql.query<{ gw_shield: unknown }>('SELECT gw_shield FROM payments WHERE id = $1', [none.json().PaymentGuid]);
    expect(empty!.gw_shield).toBeNull();
  });
});

/** Holds storing a payment's card until `release`: `storing` resolves once a payment is storing it. */
function holdCardTokenizing() {
  const tokens = ctx.services.tokens;
  const storeCard = tokens.storeCard;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let reached!: () => void;
  const storing = new Promise<void>((resolve) => (reached = resolve));
  tokens.storeCard = async (...args) => {
    reached();
    await gate;
    return storeCard.apply(tokens, args);
  };
  return { storing, release, restore: () => (tokens.storeCard = storeCard) };
}

describe('after the processor approved', () => {
  it('keeps an approved payment when storing its token fails (the vault cannot seal it here)', async () => {
    // The card is checked once, before the sale; storing it can still fail (the vault's key missing).
    const tokens = ctx.services.tokens;
    const storeCard = tokens.storeCard;
    tokens.storeCard = async () => {
      throw new VaultError('the vault key file is missing');
    };
    try {
      const res = await pay(card({ Tokenize: true }));
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ Successful: true, PaymentResult: 3, TokenGuid: null, ExternalCardToken: null });
      expect(res.json().TransactionId).toMatch(/^SIM/);
      expect(ctx.logs.join('')).toContain('approved payment kept without the token it asked for');
    } finally {
      tokens.storeCard = storeCard;
    }
  });

  it.skipIf(!testDatabaseUrl())('records an approval with Tokenize together with its token, never before it', async () => {
    // Another connection looks while the token is being stored: a process stopped there must not
    // leave an approval without its token (one stopped between two transactions did: a chaos audit).
    const { storing, release, restore } = holdCardTokenizing();
    try {
      const tranId = newTranId();
      const answer = pay(card({ TranId: tranId, Tokenize: true }));
      await storing;
      const state = async () =>
        (await ctx.store.sql.query<{ payment_result: number; token_id: string | null }>('SELECT payment_result, token_id FROM payments WHERE tran_id = $1', [tranId]))[0];
      expect(await state()).toEqual({ payment_result: PaymentResult.Pending, token_id: null });
      release();
      const res = await answer;
      expect(res.json()).toMatchObject({ Successful: true, PaymentResult: PaymentResult.Successful });
      expect(res.json().TokenGuid).toMatch(/^[0-9a-f-]{36}$/);
      expect(await state()).toEqual({ payment_result: PaymentResult.Successful, token_id: res.json().TokenGuid });
    } finally {
      restore();
    }
  });

  it.skipIf(!testDatabaseUrl())('stores no token for an approval an operator resolved meanwhile', async () => {
    const { storing, release, restore } = holdCardTokenizing();
    const tokenCount = async () => Number((await ctx.store.sql.query<{ n: string }>('SELECT count(*) AS n FROM payment_tokens'))[0]!.n);
    try {
      const tranId = newTranId();
      const answer = pay(card({ TranId: tranId, Tokenize: true }));
      await storing;
      const before = await tokenCount();
      const [{ id }] = (await ctx.store.sql.query<{ id: string }>('SELECT id FROM payments WHERE tran_id = $1', [tranId])) as [{ id: string }];
      await ctx.services.pendingPayments.resolve(id, { kind: 'declined' }, { force: true });
      release();
      const res = await answer;
      // The operator's record stands; the card is not kept for a payment that did not happen.
      expect(res.json()).toMatchObject({ PaymentGuid: id, Successful: false, TokenGuid: null });
      expect(await tokenCount()).toBe(before);
    } finally {
      restore();
    }
  });

  it('never voids an approval whose answer and token may have been committed', async () => {
    // The commit of the answer-and-token transaction fails after it happened (the connection
    // dropped), and the database is unreachable for the next write (a review's reproduction).
    const db = ctx.store.db;
    const transaction = db.transaction;
    const query = ctx.store.sql.query;
    const adapter = ctx.services.processorAdapters.get('simulator');
    const sale = adapter.sale;
    const voidSale = adapter.void;
    const voided: unknown[] = [];
    let armed = false;
    db.transaction = (async (...args: Parameters<typeof transaction>) => {
      const result = await transaction.apply(db, args);
      if (armed) throw connectionLostError();
      return result;
    }) as typeof transaction;
    ctx.store.sql.query = (async (text: string, params?: unknown[], options?: QueryOptions) => {
      if (armed && text.startsWith('UPDATE payments SET')) throw unreachableDatabaseError();
      return query.call(ctx.store.sql, text, params, options);
    }) as typeof query;
    adapter.sale = async (request) => {
      const answer = await sale.call(adapter, request);
      armed = true;
      return answer;
    };
    adapter.void = async (request) => {
      voided.push(request);
      return voidSale.call(adapter, request);
    };
    const tranId = newTranId();
    try {
      const res = await pay(card({ TranId: tranId, Tokenize: true }));
      // Held, never "try again": the processor charged.
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ Successful: false, PaymentResult: PaymentResult.Processing });
    } finally {
      armed = false;
      Object.assign(db, { transaction });
      Object.assign(ctx.store.sql, { query });
      Object.assign(adapter, { sale, void: voidSale });
    }
    const [row] = await ctx.store.sql.query<{ payment_result: number; token_id: string | null }>('SELECT payment_result, token_id FROM payments WHERE tran_id = $1', [tranId]);
    expect(row!.payment_result).toBe(PaymentResult.Successful);
    expect(row!.token_id).not.toBeNull();
    expect(voided).toEqual([]);
    expect(ctx.logs.join('')).toContain('the charge stands');
  });

  it('holds a payment whose approval the database refuses, and keeps the charge', async () => {
    const first = (await pay(card())).json();
    const adapter = ctx.services.processorAdapters.get('simulator');
    const sale = adapter.sale.bind(adapter);
    const voidSale = adapter.void.bind(adapter);
    const voided: string[] = [];
    // The processor answers with a transaction id that is already taken: recording it fails.
    adapter.sale = async (request) => ({ ...(await sale(request)), transactionId: first.TransactionId });
    adapter.void = async (request) => {
      voided.push(request.originalTransactionId);
      return voidSale(request);
    };
    try {
      const res = await pay(card());
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ Successful: false, PaymentResult: PaymentResult.Processing });
      expect(voided).toEqual([]);
      expect(ctx.logs.join('')).toContain('the charge stands');
    } finally {
      adapter.sale = sale;
      adapter.void = voidSale;
    }
  });

  it('keeps the charge when the connection fails while the approval is written (it may have committed)', async () => {
    // An outage audit: the write committed, the connection died before the answer, and the sale
    // was voided: a record of a charge that had been taken back.
    const adapter = ctx.services.processorAdapters.get('simulator');
    const voidSale = adapter.void.bind(adapter);
    const voided: string[] = [];
    adapter.void = async (request) => {
      voided.push(request.originalTransactionId);
      return voidSale(request);
    };
    const query = ctx.store.sql.query;
    ctx.store.sql.query = async <T,>(text: string, params?: unknown[], options?: QueryOptions) => {
      const rows = await query<T>(text, params, options);
      // The write happens; its answer is lost with the connection.
      if (text.startsWith('UPDATE payments SET') && text.includes('transaction_id')) throw connectionLostError();
      return rows;
    };
    try {
      const tranId = newTranId();
      const res = await pay(card({ TranId: tranId }));
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ Successful: false, PaymentResult: PaymentResult.Processing, Message: expect.stringContaining('Do not pay again') });
      expect(voided).toEqual([]);
      const [row] = await query<{ payment_result: number; transaction_id: string }>('SELECT payment_result, transaction_id FROM payments WHERE tran_id = $1', [tranId]);
      expect(row).toMatchObject({ payment_result: 3, transaction_id: expect.stringMatching(/^SIM/) });
      expect(ctx.logs.join('')).toContain('the charge stands');
      expect(ctx.logs.join('')).toContain(row!.transaction_id);
    } finally {
      ctx.store.sql.query = query;
      adapter.void = voidSale;
    }
  });
});

describe('POST /api/paymentAch', () => {
  it('debits an approved account', async () => {
    const res = await payAch(ach({ CheckNumber: '1001' }));
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      Successful: true,
      PaymentMethodTypeId: 7,
      CheckAccountNum: '6789',
      CardNum: null,
      CardType: null,
      AVSResponse: null,
      CVVResponse: null,
      ProvinceCode: 'NY',
      CountryCode: 'US',
      TotalAmount: 50,
    });
    const fees = res.json().TransactionFees[0];
    expect(fees).toMatchObject({ CardFeeRate: 0, CardFeeAmount: 0, AchFeeRate: 0.8, AchFeeAmount: 0.4 });
    await expectDocumented(ctx.app, 'POST', '/api/paymentAch', res);
  });

  it.each([
    ['000111111116', '23'],
    ['000111111113', '12'],
    ['000222222227', '50'],
    ['000333333335', '12'],
  ])('records a returned account %s (code %s)', async (account, code) => {
    const res = await payAch(ach({ CheckAccountNumber: account }));
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ Successful: false, ResponseCode: code, PaymentResult: 4, ProcessStatus: 5 });
  });

  it('ignores fields the ACH request does not have (Surcharge, GwShieldAdditional)', async () => {
    const res = await payAch(ach({ Surcharge: '3.00', GwShieldAdditional: { ProductItem: 'x' } }));
    expect(res.json()).toMatchObject({ Successful: true, TotalAmount: 50, TotalSurcharge: null });
  });

  it('takes Canadian and Australian accounts', async () => {
    expect((await payAch(ach({ Country: 'CA', CheckRoutingNumber: '000112345', CheckAccountNumber: '1234567', State: 'ON', Zip: 'M5V 2T6' }))).json()).toMatchObject({ Successful: true, Currency: 'CAD' });
    expect((await payAch(ach({ Country: 'AU', CheckRoutingNumber: '062000', CheckAccountNumber: '123', State: 'NSW', Zip: '2000' }))).json()).toMatchObject({ Successful: true, Currency: 'AUD' });
  });

  it('tokenizes the account on request', async () => {
    const res = await payAch(ach({ Tokenize: true }));
    expect(res.json().ExternalCheckToken).toMatch(/^\d+$/);
    expect(res.json().ExternalCardToken).toBeNull();
    const token = await ctx.services.tokens.find(ctx.nonProfit.ClientId, res.json().TokenGuid);
    expect(token).toMatchObject({ kind: 'bank', last4: '6789', routingNumber: '110000000' });
  });
});

describe('validation: 400 with one BrokenRule per broken field, and nothing recorded', () => {
  const cases: [string, Body, string, RegExp][] = [
    ['CardNum not Luhn', card({ CardNum: '4242424242424241' }), 'CardNum', /not a valid card number/],
    ['CardNum letters', card({ CardNum: '4242-4242-abcd-4242' }), 'CardNum', /only digits/],
    ['CardNum over 30 chars', card({ CardNum: '4'.repeat(31) }), 'CardNum', /at most 30 characters/],
    ['CardNum missing', card({ CardNum: undefined }), 'CardNum', /is required/],
    ['ExpMonth 13', card({ ExpMonth: '13' }), 'ExpMonth', /01 to 12/],
    ['ExpYear four digits', card({ ExpYear: '2030' }), 'ExpYear', /at most 2 characters/],
    ['expired card', card({ ExpMonth: '10', ExpYear: '26' }), 'ExpYear', /expired/],
    ['CVNum of 2 digits', card({ CVNum: '12' }), 'CVNum', /3 digits/],
    ['CVNum of 4 digits on a Visa', card({ CVNum: '1234' }), 'CVNum', /3 digits/],
    ['CVNum of 3 digits on an Amex', card({ CardNum: '378282246310005', CVNum: '123' }), 'CVNum', /4 digits/],
    ['NameOnCard missing', card({ NameOnCard: undefined }), 'NameOnCard', /required/],
    ['NameOnCard of 26', card({ NameOnCard: 'x'.repeat(26) }), 'NameOnCard', /at most 25/],
    ['Zip not US', card({ Zip: '1234', Country: 'US' }), 'Zip', /US postal code/],
    ['Zip not CA', card({ Zip: '12345', Country: 'CA' }), 'Zip', /CA postal code/],
    ['Zip of no form', card({ Zip: 'ABCDE' }), 'Zip', /US .* Canadian .* Australian/],
    ['State of 3 letters in the US', card({ State: 'NYC' }), 'State', /2-letter US state/],
    ['Email missing', card({ Email: undefined }), 'Email', /required/],
    ['Email invalid', card({ Email: 'ada@' }), 'Email', /valid email/],
    ['Email over 100', card({ Email: `${'a'.repeat(95)}@b.com` }), 'Email', /at most 100/],
    ['IpAddress missing', card({ IpAddress: undefined }), 'IpAddress', /required/],
    ['IpAddress invalid', card({ IpAddress: '300.1.1.1' }), 'IpAddress', /IPv4 or IPv6/],
    ['Country of 3 letters', card({ Country: 'USA' }), 'Country', /at most 2/],
    ['Currency invalid', card({ Currency: 'U$D' }), 'Currency', /3-letter currency/],
    // Amounts are cents: a currency of 0 or 3 decimals, or no currency at all, would be charged otherwise than recorded.
    ['Currency of 0 decimals', card({ Currency: 'JPY' }), 'Currency', /two decimal places/],
    ['Currency of 3 decimals', card({ Currency: 'KWD' }), 'Currency', /two decimal places/],
    ['Currency not ISO 4217', card({ Currency: 'XYZ' }), 'Currency', /two decimal places/],
    ['Currency without a minor unit', card({ Currency: 'XDR' }), 'Currency', /two decimal places/],
    ['ShippingFee not an amount', card({ ShippingFee: 'abc' }), 'ShippingFee', /amount such as/],
    ['ShippingFee over 7 chars', card({ ShippingFee: '12345.00' }), 'ShippingFee', /at most 7/],
    ['Surcharge with 3 decimals', card({ Surcharge: '1.234' }), 'Surcharge', /at most 2 decimals/],
    ['TaxableBenefit negative', card({ TaxableBenefit: '-5' }), 'TaxableBenefit', /negative/],
    ['TranId over 100', card({ TranId: 't'.repeat(101) }), 'TranId', /at most 100/],
    ['BillingDescriptor over 22', card({ BillingDescriptor: 'd'.repeat(23) }), 'BillingDescriptor', /at most 22/],
    ['ExternalEventId over 10', card({ ExternalEventId: 'e'.repeat(11) }), 'ExternalEventId', /at most 10/],
    ['ExternalConstituentId over 200', card({ ExternalConstituentId: 'c'.repeat(201) }), 'ExternalConstituentId', /at most 200/],
    ['ExternalPaymentData over 5000', card({ PaymentMethodTypeId: '9', ExternalPaymentData: 'w'.repeat(5001) }), 'ExternalPaymentData', /at most 5000/],
    ['ProcessorGuid malformed', card({ ProcessorGuid: 'abc' }), 'ProcessorGuid', /GUID/],
    ['CharityId malformed', card({ CharityId: '123' }), 'CharityId', /GUID/],
    ['Transactions missing', card({ Transactions: undefined }), 'Transactions', /required/],
    ['Transactions empty', card({ Transactions: [] }), 'Transactions', /at least 1/],
    ['line group unknown', card({ Transactions: [{ TransactionSourceGroupId: '13', Amount: '1' }] }), 'Transactions[0].TransactionSourceGroupId', /1 to 12/],
    ['line amount zero', card({ Transactions: [{ TransactionSourceGroupId: '1', Amount: '0' }] }), 'Transactions[0].Amount', /greater than 0/],
    ['lines adding up to more than the largest amount', card({ Transactions: [{ TransactionSourceGroupId: '1', Amount: '9999999999.99' }, { TransactionSourceGroupId: '1', Amount: '0.01' }] }), 'Transactions', /at most 9999999999.99/],
    ['ShippingFee taking the total past the largest amount', card({ ShippingFee: '1', Transactions: [{ TransactionSourceGroupId: '1', Amount: '9999999999.99' }] }), 'Transactions', /at most 9999999999.99/],
    ['line amount text', card({ Transactions: [{ TransactionSourceGroupId: '1', Amount: '1e5' }] }), 'Transactions[0].Amount', /amount such as/],
    ['line group 12 for a non-profit', card({ Transactions: [{ TransactionSourceGroupId: '12', Amount: '10' }] }), 'Transactions[0].TransactionSourceGroupId', /must not be 12/],
    ['PaymentMethodTypeId a brand', card({ PaymentMethodTypeId: '3' }), 'PaymentMethodTypeId', /8 \(wallet A\) or 9/],
    ['wallet without data', card({ CardNum: undefined, PaymentMethodTypeId: '8' }), 'ExternalPaymentData', /required/],
    ['Tokenize with a wallet', card({ PaymentMethodTypeId: '8', ExternalPaymentData: 'x', Tokenize: true }), 'Tokenize', /wallet/],
  ];

  it.each(cases)('%s', async (_name, body, field, message) => {
    const before = await paymentCount();
    const res = await pay(body);
    expect(res.statusCode).toBe(400);
    const rules = res.json() as { ErrorCode: number; Message: string }[];
    const rule = rules.find((r) => r.Message.startsWith(`'${field}'`));
    expect(rule, JSON.stringify(rules)).toBeDefined();
    expect(rule!.Message).toMatch(message);
    expect(rules.filter((r) => r.Message.startsWith(`'${field}'`))).toHaveLength(1);
    expect(await paymentCount()).toBe(before);
    await expectDocumented(ctx.app, 'POST', '/api/payment', res);
  });

  const achCases: [string, Body, string, RegExp][] = [
    ['routing checksum', ach({ CheckRoutingNumber: '110000001' }), 'CheckRoutingNumber', /checksum/],
    ['routing range', ach({ CheckRoutingNumber: '990000001' }), 'CheckRoutingNumber', /ABA range/],
    ['routing of 8 digits', ach({ CheckRoutingNumber: '11000000' }), 'CheckRoutingNumber', /9 digits/],
    ['CA transit without leading 0', ach({ Country: 'CA', State: 'ON', CheckRoutingNumber: '100112345', CheckAccountNumber: '1234567' }), 'CheckRoutingNumber', /0, the 3-digit institution/],
    ['AU BSB of 5 digits', ach({ Country: 'AU', State: 'NSW', CheckRoutingNumber: '06200', CheckAccountNumber: '1234' }), 'CheckRoutingNumber', /6-digit BSB/],
    ['US account of 7 digits', ach({ CheckAccountNumber: '1234567' }), 'CheckAccountNumber', /8 to 12 digits/],
    ['CA account of 13 digits', ach({ Country: 'CA', State: 'ON', CheckRoutingNumber: '000112345', CheckAccountNumber: '1234567890123' }), 'CheckAccountNumber', /7 to 12 digits/],
    ['AU account of 10 digits', ach({ Country: 'AU', State: 'NSW', CheckRoutingNumber: '062000', CheckAccountNumber: '1234567890' }), 'CheckAccountNumber', /3 to 9 digits/],
    ['account over 20 chars', ach({ CheckAccountNumber: '1'.repeat(21) }), 'CheckAccountNumber', /at most 20/],
    ['account type 3', ach({ CheckAccountTypeId: '3' }), 'CheckAccountTypeId', /1 \(Checking\) or 2 \(Savings\)/],
    ['check type 4', ach({ CheckTypeId: '4' }), 'CheckTypeId', /Personal/],
    ['NameOnCheck missing', ach({ NameOnCheck: undefined }), 'NameOnCheck', /required/],
    ['State missing', ach({ State: undefined }), 'State', /required/],
    ['PaymentMethodTypeId not 7', ach({ PaymentMethodTypeId: '3' }), 'PaymentMethodTypeId', /7 \(ACH\)/],
    ['country without ACH', ach({ Country: 'FR', Zip: undefined }), 'Country', /US, CA or AU/],
    ['CheckNumber not digits', ach({ CheckNumber: 'A12' }), 'CheckNumber', /digits/],
  ];

  it.each(achCases)('ACH: %s', async (_name, body, field, message) => {
    const before = await paymentCount();
    const res = await payAch(body);
    expect(res.statusCode).toBe(400);
    const rules = res.json() as { Message: string }[];
    const rule = rules.find((r) => r.Message.startsWith(`'${field}'`));
    expect(rule, JSON.stringify(rules)).toBeDefined();
    expect(rule!.Message).toMatch(message);
    expect(await paymentCount()).toBe(before);
    await expectDocumented(ctx.app, 'POST', '/api/paymentAch', res);
  });

  it('reports a CardNum over 30 characters once, as too long (not also as a bad number)', async () => {
    const res = await pay(card({ CardNum: '4'.repeat(31) }));
    expect(res.statusCode).toBe(400);
    expect((res.json() as { Message: string }[]).filter((r) => r.Message.startsWith("'CardNum'"))).toEqual([
      expect.objectContaining({ ErrorCode: 1002, Message: "'CardNum' must be at most 30 characters." }),
    ]);
  });

  it('refuses a valid number of a brand that is not accepted (UnionPay) with ErrorCode 3000', async () => {
    const before = await paymentCount();
    const res = await pay(card({ CardNum: '6200000000000005' }));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual([
      expect.objectContaining({ ErrorCode: 3000, Message: "'CardNum' is not a card we accept (American Express, Mastercard, Visa, Discover, Diners Club or JCB)." }),
    ]);
    expect(await paymentCount()).toBe(before);
  });

  it('checks the CVNum sent with a stored card (token payments: pay links, recurring billing)', () => {
    // POST /api/payment takes no token; the surfaces that charge a stored card validate it so.
    const input = { lines: [], email: 'ada@example.org', ipAddress: '203.0.113.9', tokenRef: 'some-token' };
    expect(asWire(ctx.services.payments.validateCard({ ...input, cvNum: '12a' }).violations)).toEqual([
      expect.objectContaining({ code: 1003, field: 'CVNum', message: "'CVNum' must contain only digits." }),
    ]);
    expect(asWire(ctx.services.payments.validateCard({ ...input, cvNum: '12' }).violations)).toEqual([expect.objectContaining({ field: 'CVNum' })]);
    const ok = ctx.services.payments.validateCard({ ...input, cvNum: '1234' });
    expect(ok).toEqual({ violations: [], method: { kind: 'token', ref: 'some-token', cvv: '1234', name: undefined } });
  });

  it("checks a stored card's CVNum against its brand, and a stored account's NameOnCheck length", async () => {
    const partner = { id: ctx.nonProfit.ClientId, name: ctx.nonProfit.name, kind: ctx.nonProfit.kind };
    const visa = await ctx.services.tokens.tokenizeCard(partner.id, { cardNumber: '4242424242424242', expMonth: '12', expYear: '35', source: 'api' });
    const amex = await ctx.services.tokens.tokenizeCard(partner.id, { cardNumber: '378282246310005', expMonth: '12', expYear: '35', source: 'api' });
    const paid = (tokenRef: string, cvNum: string) =>
      ctx.services.payments.payCard(partner, { ...cardPaymentInput(1_000), cardNum: undefined, expMonth: undefined, expYear: undefined, tokenRef, cvNum });
    const before = await paymentCount();
    await expect(paid(visa.id, '1234').catch(rethrowAsWire)).rejects.toMatchObject({ violations: [expect.objectContaining({ code: 1003, field: 'CVNum' })] });
    await expect(paid(amex.id, '123').catch(rethrowAsWire)).rejects.toMatchObject({ violations: [expect.objectContaining({ code: 1003, field: 'CVNum' })] });
    expect(await paymentCount()).toBe(before);
    expect((await paid(visa.id, '123')).payment.successful).toBe(true);
    expect((await paid(amex.id, '1234')).payment.successful).toBe(true);

    const account = await ctx.services.tokens.tokenizeBankAccount(partner.id, { routingNumber: '021000021', accountNumber: '123456789', accountType: 1, source: 'api' });
    const long = ctx.services.payments.validateAch({ lines: [], email: 'ada@example.org', ipAddress: '203.0.113.9', state: 'NY', tokenRef: account.id, nameOnCheck: 'A'.repeat(300) });
    expect(asWire(long.violations)).toEqual([expect.objectContaining({ code: 1002, field: 'NameOnCheck' })]);
  });

  it('reports every broken field at once', async () => {
    const res = await pay({ CardNum: '1234', ExpMonth: '00', Email: 'x', Transactions: [{ TransactionSourceGroupId: '1', Amount: '-1' }] });
    const fields = (res.json() as { Message: string }[]).map((r) => /^'([^']+)'/.exec(r.Message)?.[1]).sort();
    expect(fields).toEqual(['CardNum', 'Email', 'ExpMonth', 'ExpYear', 'IpAddress', 'NameOnCard', 'Transactions[0].Amount'].sort());
  });

  it('binds property names case-insensitively', async () => {
    const res = await pay({ cardnum: '4242424242424242', expmonth: '12', expyear: '30', nameoncard: 'A', email: 'a@b.co', ipaddress: '::1', transactions: [{ transactionsourcegroupid: '1', amount: '5' }] });
    expect(res.statusCode).toBe(201);
  });
});

describe('partners and their references', () => {
  const merchantLines = [{ TransactionSourceGroupId: '12', Amount: '20.00' }];

  it('requires ProcessorGuid from a for-profit partner and group 12', async () => {
    const without = await pay(card({ Transactions: merchantLines }), ctx.forProfit);
    expect(without.statusCode).toBe(400);
    expect(without.json()[0].Message).toMatch(/'ProcessorGuid' is required for a for-profit partner/);
    const ok = await pay(card({ Transactions: merchantLines, ProcessorGuid: ctx.forProfit.processorId }), ctx.forProfit);
    expect(ok.statusCode).toBe(201);
    expect(ok.json().TransactionFees[0]).toMatchObject({ TotalCommissionAmount: 0, CardFeeAmount: 0.58 });
    // The contract's OrganizationGuid is not nullable: a typed client reads it into a Guid.
    expect(ok.json().OrganizationGuid).toBe('00000000-0000-0000-0000-000000000000');
    const wrongGroup = await pay(card({ ProcessorGuid: ctx.forProfit.processorId }), ctx.forProfit);
    expect(wrongGroup.statusCode).toBe(400);
    expect(wrongGroup.json()[0].Message).toMatch(/must be 12/);
  });

  it("refuses another partner's processor, integration source and organization with a 400", async () => {
    const cases: [Body, string][] = [
      [{ ProcessorGuid: ctx.forProfit.processorId }, 'ProcessorGuid'],
      [{ IntegrationSource: ctx.forProfit.integrationSourceId }, 'IntegrationSource'],
      [{ OrganizationGuid: '0b7e7f9e-3a55-4c0a-9a8e-6f1f1d2c3b4a' }, 'OrganizationGuid'],
      [{ CharityId: '0b7e7f9e-3a55-4c0a-9a8e-6f1f1d2c3b4a' }, 'CharityId'],
      [{ MKey: 'demo-merchant-simulator' }, 'MKey'],
    ];
    for (const [overrides, field] of cases) {
      const before = await paymentCount();
      const res = await pay(card(overrides));
      expect(res.statusCode, field).toBe(400);
      expect(res.json()[0]).toMatchObject({ ErrorCode: 3004 });
      expect(res.json()[0].Message).toMatch(new RegExp(`^'${field}'`));
      expect(await paymentCount()).toBe(before);
    }
  });

  it("refuses a processor that does not accept the card's brand", async () => {
    const visaOnly = await ctx.services.partners.createProcessor(ctx.nonProfit.ClientId, { name: 'Visa only', paymentMethodTypes: [3], isDefault: false });
    const res = await pay(card({ CardNum: '5555555555554444', ProcessorGuid: visaOnly }));
    expect(res.statusCode).toBe(400);
    expect(res.json()[0]).toMatchObject({ ErrorCode: 3005 });
    expect((await pay(card({ ProcessorGuid: visaOnly }))).statusCode).toBe(201);
  });

  it('refuses a line whose group has no schedule in the contract', async () => {
    const res = await pay(card({ Transactions: [{ TransactionSourceGroupId: '11', Amount: '10' }] }));
    expect(res.statusCode).toBe(400);
    expect(res.json()[0]).toMatchObject({ ErrorCode: 3006 });
  });
});

describe('duplicate checking', () => {
  it('does not process a TranId of an earlier successful payment of the same integration source', async () => {
    const tranId = newTranId();
    const first = await pay(card({ TranId: tranId }));
    expect(first.json().Successful).toBe(true);
    const again = await pay(card({ TranId: tranId }));
    expect(again.statusCode).toBe(201);
    expect(again.json()).toMatchObject({ Successful: false, ProcessStatus: 1, ResponseCode: '-100', PaymentResult: 4, TransactionId: null });
    expect(again.json().Message).toMatch(/Duplicate transaction/);
    expect(again.json().PaymentGuid).not.toBe(first.json().PaymentGuid);
    // It names the payment that holds the TranId, and its state: a retry after a lost answer learns which one went through.
    expect(again.json().Message).toContain(`(payment ${first.json().PaymentGuid}: approved)`);
    // The default integration source applied when none was named: naming it is the same.
    const named = await pay(card({ TranId: tranId, IntegrationSource: ctx.nonProfit.integrationSourceId }));
    expect(named.json().ResponseCode).toBe('-100');
  });

  it("reads the integration source's setting again once the cache time has passed, or the clock was stepped back", async () => {
    const source = await ctx.services.partners.createIntegrationSource(ctx.nonProfit.ClientId, { name: 'Stepped', duplicateCheck: true, isDefault: false });
    const tranId = newTranId();
    expect((await pay(card({ TranId: tranId, IntegrationSource: source }))).json().Successful).toBe(true);
    await ctx.store.sql.query('UPDATE integration_sources SET duplicate_check = false WHERE id = $1', [source]);
    // Cached: still checked.
    expect((await pay(card({ TranId: tranId, IntegrationSource: source }))).json().ResponseCode).toBe('-100');
    ctx.clock.advance(-3_600_000);
    try {
      expect((await pay(card({ TranId: tranId, IntegrationSource: source }))).json().Successful).toBe(true);
    } finally {
      ctx.clock.advance(3_600_000);
    }
  });

  it('says of a Pending payment past the processor deadline that its request stopped, not that it is being processed (a chaos audit)', async () => {
    const tranId = newTranId();
    const first = (await pay(card({ TranId: tranId }))).json();
    // As a process killed between the processor's answer and its record leaves it.
    await ctx.store.sql.query('UPDATE payments SET payment_result = 1, process_status = 1, successful = false WHERE id = $1', [first.PaymentGuid]);
    expect((await pay(card({ TranId: tranId }))).json().Message).toContain(`(payment ${first.PaymentGuid}: being processed)`);
    ctx.clock.advance(31_000); // PROCESSOR_TIMEOUT (20 s) and the margin of its writes (10 s)
    const later = (await pay(card({ TranId: tranId }))).json();
    expect(later).toMatchObject({ Successful: false, ResponseCode: '-100' });
    expect(later.Message).toContain(`(payment ${first.PaymentGuid}: its outcome not known: the request that made it stopped before the answer was recorded, and an operator will confirm it; do not pay again)`);
  });

  it('lets a declined TranId be tried again', async () => {
    const tranId = newTranId();
    expect((await pay(card({ TranId: tranId, CardNum: '4000000000000002' }))).json().Successful).toBe(false);
    expect((await pay(card({ TranId: tranId }))).json().Successful).toBe(true);
    expect((await pay(card({ TranId: tranId }))).json().ResponseCode).toBe('-100');
  });

  it('checks per integration source, and not where checking is off', async () => {
    const tranId = newTranId();
    const other = await ctx.services.partners.createIntegrationSource(ctx.nonProfit.ClientId, { name: 'Kiosk', duplicateCheck: true, isDefault: false });
    const off = await ctx.services.partners.createIntegrationSource(ctx.nonProfit.ClientId, { name: 'Import', duplicateCheck: false, isDefault: false });
    expect((await pay(card({ TranId: tranId }))).json().Successful).toBe(true);
    expect((await pay(card({ TranId: tranId, IntegrationSource: other }))).json().Successful).toBe(true);
    expect((await pay(card({ TranId: tranId, IntegrationSource: off }))).json().Successful).toBe(true);
    expect((await pay(card({ TranId: tranId, IntegrationSource: off }))).json().Successful).toBe(true);
    // ACH shares the check with cards.
    expect((await payAch(ach({ TranId: tranId }))).json().ResponseCode).toBe('-100');
  });

  it('processes exactly one of many simultaneous requests with one new TranId', async () => {
    const tranId = newTranId();
    const results = await Promise.all(Array.from({ length: 12 }, () => pay(card({ TranId: tranId }))));
    const bodies = results.map((r) => r.json());
    expect(results.every((r) => r.statusCode === 201)).toBe(true);
    expect(bodies.filter((b) => b.Successful)).toHaveLength(1);
    expect(bodies.filter((b) => b.ResponseCode === '-100')).toHaveLength(11);
    const rows = await ctx.store.sql.query<{ n: string }>("SELECT count(*) AS n FROM payments WHERE tran_id = $1 AND transaction_id IS NOT NULL", [tranId]);
    expect(Number(rows[0]!.n)).toBe(1);
  });
});

describe('duplicate checking across server processes', () => {
  it.skipIf(!testDatabaseUrl())(
    'processes exactly one payment when two server processes on one PostgreSQL database race on one new TranId',
    { timeout: 120_000 },
    async () => {
      const { env, cleanup } = await processStore('two-servers');
      const servers: RunningService[] = [];
      try {
        // The partner, written into the shared database before the servers start.
        const store = await openStore({ dataDir: env.DATA_DIR!, databaseUrl: env.DATABASE_URL, databasePoolSize: 2 });
        const partner = await seedTestPartner(createServices({ log: testLogger(), store, clock: new ManualClock(), ids: cryptoIds, config: testConfig() }), 'Two servers', 'non-profit');
        await store.close();
        servers.push(...(await Promise.all([1, 2].map(() => startService({ ...env, DEMO: 'off', BILLING_WORKER: 'off' })))));
        const post = (server: RunningService, path: string, body: unknown, headers: Record<string, string> = {}) =>
          fetch(`http://127.0.0.1:${server.port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
        const tokens = await Promise.all(
          servers.map(async (server) => ((await (await post(server, '/api/ClientSession', { ClientId: partner.ClientId, ClientSecret: partner.ClientSecret })).json()) as { Token: string }).Token),
        );
        const tranId = newTranId();
        const responses = await Promise.all(
          Array.from({ length: 16 }, (_, i) => post(servers[i % 2]!, '/api/payment', card({ TranId: tranId }), { AccessToken: tokens[i % 2]! })),
        );
        expect(responses.map((r) => r.status)).toEqual(Array(16).fill(201));
        const bodies = (await Promise.all(responses.map((r) => r.json()))) as { Successful: boolean; ResponseCode: string }[];
        expect(bodies.filter((b) => b.Successful)).toHaveLength(1);
        expect(bodies.filter((b) => b.ResponseCode === '-100')).toHaveLength(15);
        const check = openPostgres(env.DATABASE_URL!, 1);
        try {
          const rows = await check.sql.query<{ n: string }>('SELECT count(*) AS n FROM payments WHERE tran_id = $1 AND transaction_id IS NOT NULL', [tranId]);
          expect(Number(rows[0]!.n)).toBe(1);
        } finally {
          await check.close();
        }
      } finally {
        for (const server of servers) await server.stop();
        await cleanup();
      }
    },
  );
});

describe('secrets', () => {
  it('never writes a card or account number to a log line or a database column', async () => {
    const pan = '6011000990139424';
    const account = '987654321012';
    const cvv = '9731';
    await pay(card({ CardNum: pan, CVNum: '973', Tokenize: true }));
    await pay(card({ CardNum: '371449635398431', CVNum: cvv, Tokenize: true }));
    await payAch(ach({ CheckAccountNumber: account, Tokenize: true }));
    await pay(card({ CardNum: pan, Email: 'broken' }));
    const tables = await ctx.store.sql.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
    );
    let dump = '';
    for (const { table_name } of tables) {
      const rows = await ctx.store.sql.query<{ r: string }>(`SELECT t::text AS r FROM "${table_name}" t`);
      dump += rows.map((r) => r.r).join('\n');
    }
    expect(dump).toContain('9424');
    for (const secret of [pan, account, '371449635398431']) {
      expect(dump).not.toContain(secret);
      expect(ctx.logs.join('')).not.toContain(secret);
    }
    expect(ctx.logs.join('')).not.toContain(`"${cvv}"`);
    expect(dump).not.toMatch(new RegExp(`[,(]${cvv}[,)]`));
  });
});
