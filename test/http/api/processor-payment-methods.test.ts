import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import { expectDocumented } from '../../helpers/openapi.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const get = (query: string, partner = ctx.nonProfit) =>
  ctx.as(partner, { method: 'GET', url: `/api/processorPaymentMethodTypes${query}` });

const ALL = [
  { PaymentMethodTypeId: 1, PaymentMethodTypeValue: 'AMEX' },
  { PaymentMethodTypeId: 2, PaymentMethodTypeValue: 'MASTERCARD' },
  { PaymentMethodTypeId: 3, PaymentMethodTypeValue: 'VISA' },
  { PaymentMethodTypeId: 4, PaymentMethodTypeValue: 'DISCOVER' },
  { PaymentMethodTypeId: 5, PaymentMethodTypeValue: 'DINERSCLUB' },
  { PaymentMethodTypeId: 6, PaymentMethodTypeValue: 'JCB' },
  { PaymentMethodTypeId: 7, PaymentMethodTypeValue: 'ACH' },
  { PaymentMethodTypeId: 8, PaymentMethodTypeValue: 'WALLET_A' },
  { PaymentMethodTypeId: 9, PaymentMethodTypeValue: 'WALLET_B' },
];

describe('GET /api/processorPaymentMethodTypes', () => {
  it("lists the default processor's active types when no processor is named", async () => {
    const res = await get('');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(ALL);
    await expectDocumented(ctx.app, 'GET', '/api/processorPaymentMethodTypes', res);
  });

  it('finds a processor by guid or by MKey (parameter names in any case)', async () => {
    const id = await ctx.services.partners.createProcessor(ctx.nonProfit.ClientId, { name: 'Cards only', mkey: 'cards-only', paymentMethodTypes: [3, 2] });
    const expected = [
      { PaymentMethodTypeId: 2, PaymentMethodTypeValue: 'MASTERCARD' },
      { PaymentMethodTypeId: 3, PaymentMethodTypeValue: 'VISA' },
    ];
    expect((await get(`?processorGuid=${id}`)).json()).toEqual(expected);
    expect((await get(`?ProcessorGuid=${id.toUpperCase()}`)).json()).toEqual(expected);
    expect((await get('?mKey=cards-only')).json()).toEqual(expected);
    expect((await get('?MKEY=cards-only')).json()).toEqual(expected);
  });

  it("answers another partner's processor exactly like an unknown one", async () => {
    const other = await get(`?processorGuid=${ctx.forProfit.processorId}`);
    const unknown = await get('?processorGuid=6f1c2d9e-1111-4a4a-9b9b-0123456789ab');
    for (const res of [other, unknown]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ status: 404, detail: 'No such processor.' });
      await expectDocumented(ctx.app, 'GET', '/api/processorPaymentMethodTypes', res);
    }
    expect((await get(`?mKey=demo-merchant-simulator`)).statusCode).toBe(404);
    expect((await get(`?processorGuid=${ctx.forProfit.processorId}`, ctx.forProfit)).statusCode).toBe(200);
  });

  it('refuses a malformed processorGuid with a BrokenRule', async () => {
    const res = await get('?processorGuid=nope');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual([expect.objectContaining({ ErrorCode: 1003, Message: "'processorGuid' must be a GUID." })]);
    await expectDocumented(ctx.app, 'GET', '/api/processorPaymentMethodTypes', res);
  });

  it('requires an AccessToken', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/processorPaymentMethodTypes' });
    expect(res.statusCode).toBe(401);
  });
});
