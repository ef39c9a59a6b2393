import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestContext, type TestPartner, createTestContext, seedTestPartner } from '../../helpers/context.ts';
import { expectDocumented } from '../../helpers/openapi.ts';

let ctx: TestContext;
/** A non-profit partner whose contract has card-type fees (AMEX 0.25, VISA 0.10) on group 1. */
let typed: TestPartner;

beforeAll(async () => {
  ctx = await createTestContext();
  typed = await seedTestPartner(ctx.services, 'Card Type Fee Partner', 'non-profit');
  await ctx.services.partners.setSchedule(typed.ClientId, {
    groupId: 1,
    cardFeeRate: '2.9',
    platformCommissionRate: '1',
    maxCommissionRate: '5',
    perTransFeeCents: 30,
    cardTypeFeesCents: { '1': 25, '3': 10 },
    achFeeRate: '0.8',
    achFeeCapCents: 500,
  });
});
afterAll(() => ctx.close());

const fee = async (partner: TestPartner, query: Record<string, string>, documented = true) => {
  const res = await ctx.as(partner, { method: 'GET', url: `/api/fee?${new URLSearchParams(query)}` });
  if (documented) await expectDocumented(ctx.app, 'GET', '/api/fee', res);
  return res;
};
const fees = async (partner: TestPartner, body: unknown, documented = true) => {
  const res = await ctx.as(partner, {
    method: 'POST',
    url: '/api/fees',
    headers: { 'content-type': 'application/json-patch+json' },
    payload: JSON.stringify(body),
  });
  if (documented) await expectDocumented(ctx.app, 'POST', '/api/fees', res);
  return res;
};
const base = { Amount: '100.00', TransactionSourceGroupId: '1' };

/** The issue's first worked example, every field of the breakdown. */
const EXAMPLE_1 = {
  TransactionSourceGroupId: '1',
  PaymentAmount: 100,
  CardFeeRate: 2.9,
  CardFeeAmount: 2.9,
  CardTypeFeeAmount: 0,
  TotalCommissionRate: 5,
  TotalCommissionAmount: 5,
  PartnerCommissionRate: 4,
  PartnerCommissionAmount: 4,
  PlatformCommissionRate: 1,
  PlatformCommissionAmount: 1,
  TotalFees: 8.2,
  MaxOverridePartnerCommissionRate: 7.9,
  MinOverridePartnerCommissionRate: 3.9,
  PerTransFee: 0.3,
  Tip: 0,
  CardFeeOnFeeAmount: 0,
  Tax: 0,
  AchFeeRate: 0,
  AchFeeAmount: 0,
};

async function insertToken(partner: TestPartner, opts: { kind?: 'card' | 'bank'; type: number; status?: 'active' | 'deleted' }) {
  const id = randomUUID();
  const [row] = await ctx.store.sql.query<{ gateway_key: number | string }>(
    `INSERT INTO payment_tokens (id, partner_id, kind, customer_key, secret_ciphertext, secret_key_id, last4,
       payment_method_type_id, source, status, created_at)
     VALUES ($1, $2, $3, 'C-1', 'x', 'k1', '1111', $4, 'api', $5, now()) RETURNING gateway_key`,
    [id, partner.ClientId, opts.kind ?? 'card', opts.type, opts.status ?? 'active'],
  );
  return { id, gatewayKey: String(row!.gateway_key) };
}

/**
 * A row of the charity directory (a global table owned by the charity feature). Fills whatever
 * required columns the table has, so the fixture does not depend on that feature's other columns.
 */
async function insertCharity(): Promise<string> {
  const id = randomUUID();
  const columns = await ctx.store.sql.query<{ column_name: string; data_type: string }>(
    `SELECT column_name, data_type FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name = 'charities' AND is_nullable = 'NO' AND column_default IS NULL`,
  );
  const value = (c: { column_name: string; data_type: string }) =>
    c.column_name === 'id' ? id : c.column_name === 'registry' ? 'IRS' : c.data_type === 'boolean' ? true : c.data_type.startsWith('timestamp') ? new Date() : '123456789';
  await ctx.store.sql.query(
    `INSERT INTO charities (${columns.map((c) => c.column_name).join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
    columns.map(value),
  );
  return id;
}

describe('GET /api/fee', () => {
  it('gives the first worked example: PayFee false on 100.00', async () => {
    const res = await fee(ctx.nonProfit, { ...base, PayFee: 'false' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(EXAMPLE_1);
  });

  it('gives the second worked example: PayFee true on 100.00 charges 108.44', async () => {
    const res = await fee(ctx.nonProfit, { ...base, PayFee: 'true' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ...EXAMPLE_1, PaymentAmount: 108.44, CardFeeOnFeeAmount: 0.24, TotalFees: 8.44 });
  });

  it('binds parameter names case-insensitively and accepts PayFee=True', async () => {
    const res = await fee(ctx.nonProfit, { amount: '100', TRANSACTIONSOURCEGROUPID: '1', payfee: 'True' });
    expect(res.statusCode).toBe(200);
    expect(res.json().PaymentAmount).toBe(108.44);
  });

  it('includes tip and tax in the fees and echoes them', async () => {
    const res = await fee(ctx.nonProfit, { Amount: '50', TransactionSourceGroupId: '2', PayFee: 'true', Tip: '5.00', Tax: '1.5' });
    expect(res.json()).toMatchObject({ TransactionSourceGroupId: '2', PaymentAmount: 61.41, TotalFees: 4.91, Tip: 5, Tax: 1.5, CardFeeOnFeeAmount: 0.14 });
  });

  it('clamps the commission override and applies a card fee override', async () => {
    const high = await fee(ctx.nonProfit, { ...base, PayFee: 'false', CommissionRateOverride: '150' });
    expect(high.json()).toMatchObject({ TotalCommissionRate: 5, PartnerCommissionRate: 4 });
    const low = await fee(ctx.nonProfit, { ...base, PayFee: 'false', CommissionRateOverride: '0.25' });
    expect(low.json()).toMatchObject({ TotalCommissionRate: 1, PartnerCommissionRate: 0, TotalCommissionAmount: 1 });
    const mid = await fee(ctx.nonProfit, { ...base, PayFee: 'false', CommissionRateOverride: '2.75', CardProcessingFeeOverride: '3.25' });
    expect(mid.json()).toMatchObject({
      TotalCommissionRate: 2.75,
      PartnerCommissionRate: 1.75,
      PartnerCommissionAmount: 1.75,
      CardFeeRate: 3.25,
      CardFeeAmount: 3.25,
      MinOverridePartnerCommissionRate: 4.25,
      MaxOverridePartnerCommissionRate: 8.25,
    });
  });

  it('quotes ACH (PaymentMethodTypeId 7) with the ACH rate and cap', async () => {
    const res = await fee(ctx.nonProfit, { Amount: '1000', TransactionSourceGroupId: '1', PayFee: 'false', PaymentMethodTypeId: '7' });
    expect(res.json()).toMatchObject({ CardFeeRate: 0, CardFeeAmount: 0, AchFeeRate: 0.8, AchFeeAmount: 5, TotalFees: 55.3 });
  });

  it('charges the card-type fee of the brand, under either parameter name', async () => {
    const visa = await fee(typed, { ...base, PayFee: 'false', PaymentMethodTypeId: '3' });
    expect(visa.json()).toMatchObject({ CardTypeFeeAmount: 0.1, TotalFees: 8.3 });
    const amex = await fee(typed, { ...base, PayFee: 'false', CreditCardTypeId: '1' });
    expect(amex.json()).toMatchObject({ CardTypeFeeAmount: 0.25 });
    const both = await fee(typed, { ...base, PayFee: 'false', CreditCardTypeId: '1', PaymentMethodTypeId: '1' });
    expect(both.json()).toMatchObject({ CardTypeFeeAmount: 0.25 });
    const none = await fee(typed, { ...base, PayFee: 'false', PaymentMethodTypeId: '2' });
    expect(none.json()).toMatchObject({ CardTypeFeeAmount: 0 });
  });

  it("uses a token's card brand, or ACH for a bank token, found by TokenGuid or by its CcInfoKey", async () => {
    const visa = await insertToken(typed, { type: 3 });
    const bank = await insertToken(typed, { kind: 'bank', type: 7 });
    const byGuid = await fee(typed, { ...base, PayFee: 'false', TokenGuid: visa.id.toUpperCase() });
    expect(byGuid.json()).toMatchObject({ CardTypeFeeAmount: 0.1 });
    const byKey = await fee(typed, { ...base, PayFee: 'false', TokenGuid: visa.gatewayKey });
    expect(byKey.json()).toMatchObject({ CardTypeFeeAmount: 0.1 });
    const ach = await fee(typed, { ...base, PayFee: 'false', TokenGuid: bank.id });
    expect(ach.json()).toMatchObject({ CardFeeAmount: 0, AchFeeRate: 0.8, AchFeeAmount: 0.8 });
  });

  it('accepts every reference that belongs to the partner', async () => {
    const charityId = await insertCharity();
    const res = await fee(ctx.nonProfit, {
      ...base,
      PayFee: 'false',
      ProcessorGuid: ctx.nonProfit.processorId,
      CharityId: charityId,
      OrganizationGuid: ctx.nonProfit.organizationId!,
      IntegrationSourceGuid: ctx.nonProfit.integrationSourceId,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(EXAMPLE_1);
  });

  describe('400: a BrokenRule naming the field', () => {
    const rule = async (query: Record<string, string>, code: number, field: string, message?: string) => {
      const res = await fee(ctx.nonProfit, query);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual([{ ErrorCode: code, Message: message ?? expect.stringContaining(`'${field}'`), LoggerMessage: `${field}: rule ${code}` }]);
    };

    it('for each missing required parameter', async () => {
      const res = await fee(ctx.nonProfit, {});
      expect(res.statusCode).toBe(400);
      expect(res.json().map((r: { Message: string }) => r.Message).sort()).toEqual(
        ["'Amount' is required.", "'PayFee' is required.", "'TransactionSourceGroupId' is required."],
      );
    });

    it('for an amount that is not numeric, negative, over-long, too large, zero or with 3 decimals', async () => {
      await rule({ ...base, PayFee: 'false', Amount: 'abc' }, 1003, 'Amount', "'Amount' must be an amount such as 100.00 (digits, at most 2 decimals).");
      await rule({ ...base, PayFee: 'false', Amount: '1e3' }, 1003, 'Amount');
      await rule({ ...base, PayFee: 'false', Amount: '-5.00' }, 1005, 'Amount', "'Amount' must not be negative.");
      await rule({ ...base, PayFee: 'false', Amount: '1'.repeat(40) }, 1002, 'Amount', "'Amount' must be at most 20 characters.");
      await rule({ ...base, PayFee: 'false', Amount: '12345678901' }, 1005, 'Amount', "'Amount' must be at most 9999999999.99.");
      await rule({ ...base, PayFee: 'false', Amount: '0.00' }, 1005, 'Amount', "'Amount' must be greater than 0.");
      await rule({ ...base, PayFee: 'false', Amount: '10.005' }, 1003, 'Amount', "'Amount' must have at most 2 decimals.");
      await rule({ ...base, PayFee: 'false', Tip: 'ten' }, 1003, 'Tip');
      await rule({ ...base, PayFee: 'false', Tax: '-1' }, 1005, 'Tax');
    });

    it('for a group outside 1-12, a bad PayFee, bad overrides and a bad payment method type', async () => {
      await rule({ ...base, PayFee: 'false', TransactionSourceGroupId: '13' }, 1006, 'TransactionSourceGroupId');
      await rule({ ...base, PayFee: 'maybe' }, 1004, 'PayFee');
      await rule({ ...base, PayFee: 'false', CardProcessingFeeOverride: '100' }, 1005, 'CardProcessingFeeOverride');
      await rule({ ...base, PayFee: 'false', CardProcessingFeeOverride: '-0.5' }, 1005, 'CardProcessingFeeOverride');
      await rule({ ...base, PayFee: 'false', CommissionRateOverride: 'five' }, 1003, 'CommissionRateOverride');
      await rule({ ...base, PayFee: 'false', CommissionRateOverride: '2.12345' }, 1003, 'CommissionRateOverride');
      await rule({ ...base, PayFee: 'false', PaymentMethodTypeId: '8' }, 1006, 'PaymentMethodTypeId');
      await rule({ ...base, PayFee: 'false', ProcessorGuid: 'processor-1' }, 1003, 'ProcessorGuid');
      await rule({ ...base, PayFee: 'false', TokenGuid: 'not-a-token' }, 1003, 'TokenGuid');
    });

    it('for TokenGuid with PaymentMethodTypeId or CreditCardTypeId, and for two different method types', async () => {
      const token = await insertToken(ctx.nonProfit, { type: 3 });
      await rule({ ...base, PayFee: 'false', TokenGuid: token.id, PaymentMethodTypeId: '3' }, 2001, 'TokenGuid');
      await rule({ ...base, PayFee: 'false', TokenGuid: token.id, CreditCardTypeId: '3' }, 2001, 'TokenGuid');
      await rule({ ...base, PayFee: 'false', PaymentMethodTypeId: '3', CreditCardTypeId: '4' }, 2002, 'CreditCardTypeId');
    });

    it('for the group rule of the partner kind: 12 is for for-profit partners only', async () => {
      await rule({ ...base, PayFee: 'false', TransactionSourceGroupId: '12' }, 2000, 'TransactionSourceGroupId');
      const res = await fee(ctx.forProfit, { ...base, PayFee: 'false' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual([
        { ErrorCode: 2000, Message: "'TransactionSourceGroupId' must be 12 (PaymentNoFee) for a for-profit partner.", LoggerMessage: 'TransactionSourceGroupId: rule 2000' },
      ]);
    });

    it('when the fees cannot be calculated (the covered amount would exceed the largest amount)', async () => {
      await rule({ ...base, PayFee: 'true', Amount: '9999999999.99' }, 2003, 'Amount');
    });
  });

  it('quotes a for-profit partner on group 12: processing fees, no commission', async () => {
    const res = await fee(ctx.forProfit, { ...base, TransactionSourceGroupId: '12', PayFee: 'false' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ TransactionSourceGroupId: '12', TotalCommissionAmount: 0, CardFeeAmount: 2.9, PerTransFee: 0.3, TotalFees: 3.2 });
  });

  describe('404 problem details: fees not found', () => {
    const notFound = async (partner: TestPartner, query: Record<string, string>) => {
      const res = await fee(partner, { ...base, PayFee: 'false', ...query });
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ status: 404, title: 'Not Found', detail: expect.stringMatching(/^Fees not found: /) });
    };

    it('when the contract has no schedule for the group', async () => {
      await notFound(ctx.nonProfit, { TransactionSourceGroupId: '11' });
    });

    it("for a processor, organization, integration source or token that is not the partner's", async () => {
      await notFound(ctx.nonProfit, { ProcessorGuid: ctx.forProfit.processorId });
      await notFound(ctx.nonProfit, { ProcessorGuid: randomUUID() });
      await notFound(ctx.nonProfit, { OrganizationGuid: randomUUID() });
      await notFound(ctx.nonProfit, { IntegrationSourceGuid: ctx.forProfit.integrationSourceId });
      const theirs = await insertToken(ctx.forProfit, { type: 3 });
      await notFound(ctx.nonProfit, { TokenGuid: theirs.id });
      await notFound(ctx.nonProfit, { TokenGuid: theirs.gatewayKey });
      await notFound(ctx.nonProfit, { TokenGuid: randomUUID() });
      const deleted = await insertToken(ctx.nonProfit, { type: 3, status: 'deleted' });
      await notFound(ctx.nonProfit, { TokenGuid: deleted.id });
    });

    it('for an unknown charity', async () => {
      await notFound(ctx.nonProfit, { CharityId: randomUUID() });
    });
  });

  it('needs an AccessToken', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: `/api/fee?${new URLSearchParams({ ...base, PayFee: 'false' })}` });
    expect(res.statusCode).toBe(401);
  });
});

describe('POST /api/fees', () => {
  it('quotes every line in order, flat fees on the first, with totals', async () => {
    const res = await fees(ctx.nonProfit, {
      Transactions: [
        { TransactionSourceGroupId: '1', Amount: '100.00', PayFee: true, ExternalLineId: 'A' },
        { TransactionSourceGroupId: '2', Amount: '50', Tip: '5', Tax: '1.50' },
      ],
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.TransactionFees).toHaveLength(2);
    expect(body.TransactionFees[0]).toEqual({ ...EXAMPLE_1, PaymentAmount: 108.44, CardFeeOnFeeAmount: 0.24, TotalFees: 8.44 });
    expect(body.TransactionFees[1]).toMatchObject({ TransactionSourceGroupId: '2', PaymentAmount: 56.5, PerTransFee: 0, TotalFees: 4.47, Tip: 5, Tax: 1.5 });
    expect(body).toMatchObject({ TotalPaymentAmount: 164.94, TotalFeesAmount: 12.91, TotalTaxAmount: 1.5 });
  });

  it('applies PaymentMethodTypeId to every line and binds names case-insensitively', async () => {
    const res = await fees(ctx.nonProfit, {
      paymentmethodtypeid: '7',
      transactions: [{ transactionsourcegroupid: '1', amount: '1000' }, { TRANSACTIONSOURCEGROUPID: '3', AMOUNT: '10' }],
    });
    expect(res.statusCode).toBe(200);
    const [a, b] = res.json().TransactionFees;
    expect(a).toMatchObject({ AchFeeRate: 0.8, AchFeeAmount: 5, CardFeeAmount: 0, PaymentAmount: 1000 });
    expect(b).toMatchObject({ TransactionSourceGroupId: '3', AchFeeRate: 0.8, AchFeeAmount: 0.08, CardFeeRate: 0 });
  });

  it('accepts JSON numbers for amounts (as text) and PayFee omitted as false', async () => {
    const res = await fees(ctx.nonProfit, { Transactions: [{ TransactionSourceGroupId: 1, Amount: 100 }] });
    expect(res.statusCode).toBe(200);
    expect(res.json().TransactionFees[0]).toEqual(EXAMPLE_1);
  });

  it('names the field of each broken line with its index', async () => {
    const res = await fees(ctx.nonProfit, {
      Transactions: [
        { TransactionSourceGroupId: '1', Amount: '10' },
        { TransactionSourceGroupId: '1', Amount: '10.001', Tip: 'x' },
        { TransactionSourceGroupId: '0', Amount: '5' },
      ],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual([
      { ErrorCode: 1003, Message: "'Transactions[1].Amount' must have at most 2 decimals.", LoggerMessage: 'Transactions[1].Amount: rule 1003' },
      expect.objectContaining({ ErrorCode: 1003, LoggerMessage: 'Transactions[1].Tip: rule 1003' }),
      expect.objectContaining({ ErrorCode: 1006, LoggerMessage: 'Transactions[2].TransactionSourceGroupId: rule 1006' }),
    ]);
  });

  it('refuses a missing, empty or over-long list of lines, and missing line fields', async () => {
    const missing = await fees(ctx.nonProfit, {});
    expect(missing.json()).toEqual([expect.objectContaining({ ErrorCode: 1001, Message: "'Transactions' is required." })]);
    const empty = await fees(ctx.nonProfit, { Transactions: [] });
    expect(empty.json()).toEqual([expect.objectContaining({ ErrorCode: 1001, LoggerMessage: 'Transactions: rule 1001' })]);
    const many = await fees(ctx.nonProfit, { Transactions: Array.from({ length: 101 }, () => ({ TransactionSourceGroupId: '1', Amount: '1' })) });
    expect(many.json()).toEqual([expect.objectContaining({ ErrorCode: 1005, LoggerMessage: 'Transactions: rule 1005' })]);
    const fields = await fees(ctx.nonProfit, { Transactions: [{ PayFee: true }] });
    expect(fields.json().map((r: { Message: string }) => r.Message).sort()).toEqual([
      "'Transactions[0].Amount' is required.",
      "'Transactions[0].TransactionSourceGroupId' is required.",
    ]);
  });

  it('enforces the group rule per line and reports a failed calculation on its line', async () => {
    const group = await fees(ctx.nonProfit, { Transactions: [{ TransactionSourceGroupId: '1', Amount: '1' }, { TransactionSourceGroupId: '12', Amount: '1' }] });
    expect(group.json()).toEqual([expect.objectContaining({ ErrorCode: 2000, LoggerMessage: 'Transactions[1].TransactionSourceGroupId: rule 2000' })]);
    const calc = await fees(ctx.nonProfit, { Transactions: [{ TransactionSourceGroupId: '1', Amount: '1' }, { TransactionSourceGroupId: '1', Amount: '9999999999.99', PayFee: true }] });
    expect(calc.statusCode).toBe(400);
    expect(calc.json()).toEqual([expect.objectContaining({ ErrorCode: 2003, LoggerMessage: 'Transactions[1].Amount: rule 2003' })]);
  });

  it('is 404 when a line uses a group without a schedule, or a reference is not the partner', async () => {
    const group = await fees(ctx.nonProfit, { Transactions: [{ TransactionSourceGroupId: '1', Amount: '1' }, { TransactionSourceGroupId: '11', Amount: '1' }] });
    expect(group.statusCode).toBe(404);
    const processor = await fees(ctx.nonProfit, { ProcessorGuid: ctx.forProfit.processorId, Transactions: [{ TransactionSourceGroupId: '1', Amount: '1' }] });
    expect(processor.statusCode).toBe(404);
  });

  it('refuses TokenGuid with a payment method type', async () => {
    const token = await insertToken(ctx.nonProfit, { type: 3 });
    const res = await fees(ctx.nonProfit, { TokenGuid: token.id, CreditCardTypeId: '3', Transactions: [{ TransactionSourceGroupId: '1', Amount: '1' }] });
    expect(res.json()).toEqual([expect.objectContaining({ ErrorCode: 2001, LoggerMessage: 'TokenGuid: rule 2001' })]);
  });
});

describe('the OpenAPI document', () => {
  it('publishes both operations and the FeeBreakdown component', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.components.schemas.FeeBreakdown.required).toHaveLength(20);
    const get = doc.paths['/api/fee'].get;
    expect(get.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['Amount', 'PaymentMethodTypeId', 'CreditCardTypeId', 'TokenGuid']));
    expect(Object.keys(get.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '404']));
    expect(doc.paths['/api/fees'].post.responses['200'].content['application/json'].schema.properties.TransactionFees.items).toEqual({ $ref: '#/components/schemas/FeeBreakdown' });
  });
});
