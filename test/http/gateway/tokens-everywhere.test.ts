import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import { createGatewayUser, login, resultOf, soap11 } from './gateway-helpers.ts';

// Logins verify a scrypt hash at PASSWORD_PARAMS (seconds on a busy machine).
vi.setConfig({ testTimeout: 120_000 });

/** Keys made by the gateway are the partner's tokens on surface A too, and only that partner's. */
let ctx: TestContext;
let ccInfoKey: string;
let checkInfoKey: string;

beforeAll(async () => {
  ctx = await createTestContext();
  const user = await createGatewayUser(ctx, ctx.nonProfit, 'everywhere-user');
  const sid = await login(ctx, user);
  ccInfoKey = resultOf(await soap11(ctx, 'GetToken', { ClientSessionID: sid, CcAccountNum: '4242424242424242', CcExpDate: '1230' })).CcInfoKey!;
  checkInfoKey = resultOf(await soap11(ctx, 'GetCheckToken', { ClientSessionID: sid, BankRoutingNum: '021000021', BankAccountNum: '123456789', BankAcctType: 'C' })).CheckInfoKey!;
});
afterAll(() => ctx.close());

const linkBody = (partner: TestContext['nonProfit'], extra: Record<string, unknown>) => ({
  ApiKey: partner.ApiKey,
  RedirectUrl: 'https://example.org/thanks',
  PaymentLines: [{ Amount: '25.00', Type: partner.kind === 'for-profit' ? 12 : 1 }],
  ...(partner.kind === 'for-profit' ? { ProcessorGuid: partner.processorId } : {}),
  ...extra,
});

describe('gateway keys on surface A', () => {
  it('a CcInfoKey and a CheckInfoKey work as ExternalCardToken and ExternalCheckToken of a pay link', async () => {
    const res = await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/paylink', payload: linkBody(ctx.nonProfit, { ExternalCardToken: ccInfoKey, ExternalCheckToken: checkInfoKey }) });
    expect(res.statusCode, res.body).toBe(200);
    const other = await ctx.as(ctx.forProfit, { method: 'POST', url: '/api/paylink', payload: linkBody(ctx.forProfit, { ExternalCardToken: ccInfoKey }) });
    expect(other.statusCode).toBe(400);
    expect(other.body).toContain('ExternalCardToken');
  });

  it('a CcInfoKey is the token of a recurring profile', async () => {
    const body = { TokenGuid: ccInfoKey, Amount: '25.00', StartDate: '2026-11-21', BillingFrequency: 'Monthly' };
    const res = await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/recurringProfile', payload: body });
    expect(res.statusCode, res.body).toBe(201);
    const other = await ctx.as(ctx.forProfit, { method: 'POST', url: '/api/recurringProfile', payload: body });
    expect(other.statusCode).toBe(400);
    expect(other.body).toContain('TokenGuid');
  });
});
