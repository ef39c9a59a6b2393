import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError, NotFoundError } from '../../../src/platform/errors.ts';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import { asWire, withQuotedFields } from '../../helpers/wire-violations.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const card = (over: Record<string, unknown> = {}) => ({
  cardNumber: '4242 4242 4242 4242',
  expMonth: '12',
  expYear: '30',
  firstName: 'Ada',
  lastName: 'Lovelace',
  street: '1 Analytical Way',
  zip: '12345',
  source: 'api' as const,
  ...over,
});
const bank = (over: Record<string, unknown> = {}) => ({
  routingNumber: '021000021',
  accountNumber: '000123456789',
  accountType: 1 as const,
  source: 'api' as const,
  ...over,
});

describe('TokenService.tokenizeCard', () => {
  it('stores a card and returns its token without the number', async () => {
    const t = await ctx.services.tokens.tokenizeCard(ctx.nonProfit.ClientId, card());
    expect(t).toMatchObject({
      kind: 'card',
      partnerId: ctx.nonProfit.ClientId,
      last4: '4242',
      paymentMethodTypeId: 3,
      cardType: 'Visa',
      expMonth: '12',
      expYear: '30',
      firstName: 'Ada',
      lastName: 'Lovelace',
      routingNumber: null,
      source: 'api',
      status: 'active',
      customerId: null,
    });
    expect(t.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(t.gatewayKey).toMatch(/^\d+$/);
    expect(t.customerKey).toMatch(/^\d+$/);
    expect(JSON.stringify(t)).not.toContain('4242424242424242');
    expect(t.createdAt.toISOString()).toBe(ctx.clock.now().toISOString());
  });

  it.each([
    ['378282246310005', 1, 'American Express'],
    ['5555555555554444', 2, 'Mastercard'],
    ['6011111111111117', 4, 'Discover'],
    ['3056930009020004', 5, 'Diners Club'],
    ['3530111333300000', 6, 'JCB'],
  ])('records the brand of %s', async (n, id, name) => {
    const t = await ctx.services.tokens.tokenizeCard(ctx.nonProfit.ClientId, card({ cardNumber: n }));
    expect([t.paymentMethodTypeId, t.cardType]).toEqual([id, name]);
  });

  it('gives each token its own gateway key, and reveals the number to the processor', async () => {
    const a = await ctx.services.tokens.tokenizeCard(ctx.nonProfit.ClientId, card());
    const b = await ctx.services.tokens.tokenizeCard(ctx.nonProfit.ClientId, card({ cardNumber: '5555555555554444' }));
    expect(Number(b.gatewayKey)).toBeGreaterThan(Number(a.gatewayKey));
    expect(await ctx.services.tokens.reveal(a)).toBe('4242424242424242');
    expect(await ctx.services.tokens.reveal(b)).toBe('5555555555554444');
  });

  it('refuses a bad number, an expired card and over-long fields with violations that name the input', async () => {
    const attempt = (over: Record<string, unknown>) => ctx.services.tokens.tokenizeCard(ctx.nonProfit.ClientId, card(over)).catch((e) => e);
    const luhn = await attempt({ cardNumber: '4242424242424241' });
    expect(luhn).toBeInstanceOf(ValidationError);
    expect(asWire(withQuotedFields(luhn.violations))).toEqual([{ code: 1003, field: 'cardNumber', message: "'cardNumber' is not a valid card number." }]);
    const expired = await attempt({ expMonth: '10', expYear: '26' });
    expect(asWire(withQuotedFields(expired.violations))).toEqual([{ code: 1003, field: 'expYear', message: "'expYear' is in the past: the card has expired." }]);
    const long = await attempt({ firstName: 'x'.repeat(51) });
    expect(asWire(withQuotedFields(long.violations))).toEqual([{ code: 1002, field: 'firstName', message: "'firstName' must be at most 50 characters." }]);
    expect(JSON.stringify([luhn.message, expired.message])).not.toContain('4242424242424241');
  });

  it('gives tokens of the same constituent the same customer key, or the key it is given', async () => {
    const a = await ctx.services.tokens.tokenizeCard(ctx.nonProfit.ClientId, card({ externalConstituentId: 'donor-77' }));
    const b = await ctx.services.tokens.tokenizeCard(ctx.nonProfit.ClientId, card({ externalConstituentId: 'donor-77', cardNumber: '5555555555554444' }));
    const c = await ctx.services.tokens.tokenizeCard(ctx.nonProfit.ClientId, card({ externalConstituentId: 'donor-78' }));
    const d = await ctx.services.tokens.tokenizeCard(ctx.nonProfit.ClientId, card({ customerKey: 'CUST-1' }));
    expect(b.customerKey).toBe(a.customerKey);
    expect(c.customerKey).not.toBe(a.customerKey);
    expect(d.customerKey).toBe('CUST-1');
    const list = await ctx.services.tokens.listByConstituent(ctx.nonProfit.ClientId, 'donor-77');
    expect(list.map((t) => t.id).sort()).toEqual([a.id, b.id].sort());
    expect(await ctx.services.tokens.listByConstituent(ctx.forProfit.ClientId, 'donor-77')).toEqual([]);
  });

  it('gives one customer key to cards of a new constituent stored at the same moment', async () => {
    const stored = await Promise.all(
      Array.from({ length: 8 }, () => ctx.services.tokens.tokenizeCard(ctx.nonProfit.ClientId, card({ externalConstituentId: 'donor-at-once' }))),
    );
    expect(new Set(stored.map((t) => t.customerKey)).size).toBe(1);
  });
});

describe('TokenService.tokenizeBankAccount', () => {
  it('stores a US account by default, with routing number and types', async () => {
    const t = await ctx.services.tokens.tokenizeBankAccount(ctx.forProfit.ClientId, bank({ checkType: 2, nameOnAccount: 'Ada Lovelace' }));
    expect(t).toMatchObject({
      kind: 'bank',
      last4: '6789',
      paymentMethodTypeId: 7,
      cardType: null,
      routingNumber: '021000021',
      accountType: 1,
      checkType: 2,
      bankCountry: 'US',
      nameOnAccount: 'Ada Lovelace',
      expMonth: null,
    });
    expect(await ctx.services.tokens.reveal(t)).toBe('000123456789');
  });

  it('checks routing and account numbers by country', async () => {
    const ca = await ctx.services.tokens.tokenizeBankAccount(ctx.forProfit.ClientId, bank({ country: 'CA', routingNumber: '000112345', accountNumber: '1234567' }));
    expect(ca.bankCountry).toBe('CA');
    const au = await ctx.services.tokens.tokenizeBankAccount(ctx.forProfit.ClientId, bank({ country: 'au', routingNumber: '062-000', accountNumber: '123' }));
    expect([au.bankCountry, au.routingNumber, au.last4]).toEqual(['AU', '062000', '123']);
    const bad = await ctx.services.tokens
      .tokenizeBankAccount(ctx.forProfit.ClientId, bank({ routingNumber: '021000022', accountNumber: '1234' }))
      .catch((e) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    expect(bad.violations.map((v: { field: string }) => v.field)).toEqual(['routingNumber', 'accountNumber']);
    const gb = await ctx.services.tokens.tokenizeBankAccount(ctx.forProfit.ClientId, bank({ country: 'GB' })).catch((e) => e);
    expect(gb.violations[0].field).toBe('country');
    const type = await ctx.services.tokens.tokenizeBankAccount(ctx.forProfit.ClientId, bank({ accountType: 3 })).catch((e) => e);
    expect(type.violations[0].field).toBe('accountType');
  });
});

describe('finding tokens', () => {
  it('finds by TokenGuid and by gateway key, for its own partner only', async () => {
    const t = await ctx.services.tokens.tokenizeCard(ctx.nonProfit.ClientId, card());
    const { tokens } = ctx.services;
    expect((await tokens.find(ctx.nonProfit.ClientId, t.id))?.id).toBe(t.id);
    expect((await tokens.find(ctx.nonProfit.ClientId, t.id.toUpperCase()))?.id).toBe(t.id);
    expect((await tokens.find(ctx.nonProfit.ClientId, t.gatewayKey))?.id).toBe(t.id);
    expect((await tokens.find(ctx.nonProfit.ClientId, Number(t.gatewayKey)))?.id).toBe(t.id);
    expect(await tokens.find(ctx.forProfit.ClientId, t.id)).toBeUndefined();
    expect(await tokens.find(ctx.forProfit.ClientId, t.gatewayKey)).toBeUndefined();
    expect(await tokens.find(ctx.nonProfit.ClientId, 'not-a-token')).toBeUndefined();
    expect(await tokens.find(ctx.nonProfit.ClientId, '99999999999')).toBeUndefined();
    await expect(tokens.get(ctx.forProfit.ClientId, t.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(tokens.reveal({ id: t.id, partnerId: ctx.forProfit.ClientId })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('deletes a token for good: not found afterwards, its ciphertext erased', async () => {
    const t = await ctx.services.tokens.tokenizeCard(ctx.nonProfit.ClientId, card({ externalConstituentId: 'donor-del' }));
    await expect(ctx.services.tokens.delete(ctx.forProfit.ClientId, t.id)).rejects.toBeInstanceOf(NotFoundError);
    await ctx.services.tokens.delete(ctx.nonProfit.ClientId, t.id);
    expect(await ctx.services.tokens.find(ctx.nonProfit.ClientId, t.id)).toBeUndefined();
    expect(await ctx.services.tokens.listByConstituent(ctx.nonProfit.ClientId, 'donor-del')).toEqual([]);
    await expect(ctx.services.tokens.reveal(t)).rejects.toBeInstanceOf(NotFoundError);
    const [row] = await ctx.store.sql.query<{ secret_ciphertext: string; status: string }>(
      'SELECT secret_ciphertext, status FROM payment_tokens WHERE id = $1',
      [t.id],
    );
    expect(row).toEqual({ secret_ciphertext: '', status: 'deleted' });
  });
});

describe('tokenizing inside a caller transaction', () => {
  it('commits with the caller, and leaves nothing when the caller rolls back', async () => {
    const { db } = ctx.store;
    let kept = '';
    await db.transaction(async (tx) => {
      kept = (await ctx.services.tokens.tokenizeCard(ctx.nonProfit.ClientId, card(), tx)).id;
      expect((await ctx.services.tokens.find(ctx.nonProfit.ClientId, kept, tx))?.id).toBe(kept);
    });
    expect(await ctx.services.tokens.find(ctx.nonProfit.ClientId, kept)).toBeDefined();
    let dropped = '';
    await db
      .transaction(async (tx) => {
        dropped = (await ctx.services.tokens.tokenizeBankAccount(ctx.nonProfit.ClientId, bank(), tx)).id;
        throw new Error('payment failed');
      })
      .catch(() => {});
    expect(dropped).not.toBe('');
    expect(await ctx.services.tokens.find(ctx.nonProfit.ClientId, dropped)).toBeUndefined();
  });
});
