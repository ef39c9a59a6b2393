import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestContext, createTestContext } from '../helpers/context.ts';

/** Bad input of every odd kind gets a 400 BrokenRule array, never a 500 (review findings 3-6, 16). */
let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const card = (overrides: Record<string, unknown> = {}) => ({
  CardNum: '4242424242424242', ExpMonth: '12', ExpYear: '30', NameOnCard: 'Ada', Email: 'ada@example.org', IpAddress: '203.0.113.9',
  Transactions: [{ TransactionSourceGroupId: '1', Amount: '10.00' }], ...overrides,
});
const ach = (overrides: Record<string, unknown> = {}) => ({
  CheckRoutingNumber: '110000000', CheckAccountNumber: '000123456789', CheckAccountTypeId: '1', CheckTypeId: '1', NameOnCheck: 'Ada',
  State: 'NY', Email: 'ada@example.org', IpAddress: '203.0.113.9', Transactions: [{ TransactionSourceGroupId: '1', Amount: '10.00' }], ...overrides,
});
const count = async () => Number((await ctx.store.sql.query<{ n: string }>('SELECT count(*) AS n FROM payments'))[0]!.n);

function expectBrokenRules(res: { statusCode: number; json(): unknown }) {
  expect(res.statusCode).toBe(400);
  const body = res.json() as { ErrorCode: number; Message: string }[];
  expect(Array.isArray(body)).toBe(true);
  expect(body.length).toBeGreaterThan(0);
  return body;
}

describe('GUIDs are 8-4-4-4-12 hex digits only', () => {
  const urn = 'urn:uuid:00000000-0000-0000-0000-000000000000';
  it('on the public session endpoint', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/api/ClientSession', payload: { ClientId: urn, ClientSecret: 'x' } });
    expect(expectBrokenRules(res)[0]!.Message).toBe("'ClientId' must be a GUID.");
  });
  it('in query strings and fee bodies', async () => {
    for (const url of [`/api/fee?Amount=1&TransactionSourceGroupId=1&PayFee=false&ProcessorGuid=${urn}`, `/api/processorPaymentMethodTypes?processorGuid=${urn}`]) {
      expectBrokenRules(await ctx.as(ctx.nonProfit, { method: 'GET', url }));
    }
    const fees = await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/fees', payload: { OrganizationGuid: urn, Transactions: [{ TransactionSourceGroupId: '1', Amount: '1' }] } });
    expectBrokenRules(fees);
  });
});

describe('a NUL character', () => {
  it.each([
    ['FirstName', { FirstName: 'x\u0000y' }],
    ['NameOnCard', { NameOnCard: 'A\u0000' }],
    ['TranId', { TranId: 'x\u0000' }],
    ['Transactions[0].ExternalLineId', { Transactions: [{ TransactionSourceGroupId: '1', Amount: '1', ExternalLineId: 'a\u0000' }] }],
  ])('in %s is refused by name, before anything is recorded', async (field, overrides) => {
    const before = await count();
    const res = await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload: card(overrides) });
    expect(expectBrokenRules(res)).toEqual([expect.objectContaining({ Message: `'${field}' must not contain a NUL character.` })]);
    expect(await count()).toBe(before);
  });
  it('in a query string', async () => {
    expectBrokenRules(await ctx.as(ctx.nonProfit, { method: 'GET', url: '/api/processorPaymentMethodTypes?mKey=a%00' }));
  });
});

describe('values of the wrong JSON type', () => {
  it.each([
    [{ ShippingFee: {} }, 'ShippingFee'],
    [{ Transactions: { a: 1 } }, 'Transactions'],
    // AJV turns a lone string into a one-item array ("coerce to array"), so the item is named.
    [{ Transactions: 'x' }, 'Transactions[0]'],
    [{ Transactions: [null] }, 'Transactions[0]'],
    [{ Transactions: [{}] }, 'Transactions[0].TransactionSourceGroupId'],
    [{ Transactions: [{ TransactionSourceGroupId: '1', Amount: {} }] }, 'Transactions[0].Amount'],
    [{ CardNum: {} }, 'CardNum'],
    [{ Email: ['a@b.co', 'x'] }, 'Email'],
    [{ GwShieldAdditional: 'x' }, 'GwShieldAdditional'],
  ])('card payment %j: 400 naming %s', async (overrides, field) => {
    const rules = expectBrokenRules(await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload: card(overrides) }));
    expect(rules.some((r) => r.Message.startsWith(`'${field}'`)), JSON.stringify(rules)).toBe(true);
  });
  it.each([
    [{ CheckAccountNumber: {} }, 'CheckAccountNumber'],
    [{ TaxableBenefit: [] }, 'TaxableBenefit'],
    [{ CheckAccountTypeId: 'constructor' }, 'CheckAccountTypeId'],
    [{ CheckTypeId: 'toString' }, 'CheckTypeId'],
  ])('ACH payment %j: 400 naming %s', async (overrides, field) => {
    const rules = expectBrokenRules(await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/paymentAch', payload: ach(overrides) }));
    expect(rules.some((r) => r.Message.startsWith(`'${field}'`)), JSON.stringify(rules)).toBe(true);
  });
});

describe('URLs the router cannot read', () => {
  it('answer with a BrokenRule that does not echo the URL', async () => {
    for (const url of ['/api/%', '/api/fee%ff']) {
      const res = await ctx.app.inject({ method: 'GET', url });
      expect(expectBrokenRules(res)).toEqual([{ ErrorCode: 1000, Message: 'The request URL is not valid.', LoggerMessage: 'rule 1000' }]);
    }
  });
});

describe('the database backstop', () => {
  it('recognises PostgreSQL data exceptions wherever the driver nests them', async () => {
    const { isInvalidDatabaseInput } = await import('../../src/api/error-handler.ts');
    expect(isInvalidDatabaseInput(Object.assign(new Error('Failed query'), { cause: { code: '22P02' } }))).toBe(true);
    expect(isInvalidDatabaseInput({ code: '22021' })).toBe(true);
    expect(isInvalidDatabaseInput({ code: '23505' })).toBe(false);
    expect(isInvalidDatabaseInput(new Error('plain'))).toBe(false);
  });
});
