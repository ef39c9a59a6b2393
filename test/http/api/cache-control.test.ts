import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import { PATH, createGatewayUser, envelope11 } from '../gateway/gateway-helpers.ts';

// Gateway logins verify a scrypt hash (a few hundred ms; seconds on a busy machine).
vi.setConfig({ testTimeout: 120_000 });

/**
 * No cache may store an answer of the API or of a gateway operation: they carry tokens and payer
 * data, and the credential travels in a header (AccessToken) that shared caches do not treat as
 * Authorization (an HTTP audit: no answer said so).
 */
let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

describe('Cache-Control: no-store', () => {
  it('on every API answer: sessions, reads, errors, public searches, unknown paths and methods, refusals before routing', async () => {
    const answers = [
      await ctx.app.inject({ method: 'POST', url: '/api/ClientSession', payload: { ClientId: ctx.nonProfit.ClientId, ClientSecret: ctx.nonProfit.ClientSecret } }),
      await ctx.as(ctx.nonProfit, { method: 'GET', url: '/api/fee?Amount=10&TransactionSourceGroupId=1&PayFee=true' }),
      await ctx.as(ctx.nonProfit, { method: 'GET', url: '/api/processorPaymentMethodTypes' }),
      await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload: {} }),
      await ctx.app.inject({ method: 'GET', url: '/api/processorPaymentMethodTypes', headers: { AccessToken: 'nope' } }),
      await ctx.app.inject({ method: 'GET', url: '/api/CharitySearch?Name=red%20cross' }),
      await ctx.app.inject({ method: 'GET', url: '/api/no-such-thing' }),
      await ctx.app.inject({ method: 'PUT', url: '/api/payment' }),
      await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload: 'x', headers: { 'content-encoding': 'gzip', 'content-type': 'application/json' } }),
    ];
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 400, 401, expect.any(Number), 404, 405, 415]);
    for (const answer of answers) expect(answer.headers['cache-control'], answer.body.slice(0, 80)).toBe('no-store');
  });

  it('on gateway operations over SOAP and HTTP POST, not on the WSDL', async () => {
    const user = await createGatewayUser(ctx, ctx.nonProfit, 'cache-user');
    const soap = await ctx.app.inject({
      method: 'POST',
      url: PATH,
      headers: { 'content-type': 'text/xml' },
      payload: envelope11('GetClientSessionID', { Username: user.Username, Password: user.Password }),
    });
    const form = await ctx.app.inject({
      method: 'POST',
      url: `${PATH}/GetClientSessionID`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ Username: user.Username, Password: user.Password, ClientIP: '203.0.113.9' }).toString(),
    });
    expect([soap.statusCode, form.statusCode]).toEqual([200, 200]);
    expect(soap.headers['cache-control']).toBe('no-store');
    expect(form.headers['cache-control']).toBe('no-store');
    const wsdl = await ctx.app.inject({ method: 'GET', url: `${PATH}?WSDL` });
    expect(wsdl.statusCode).toBe(200);
    expect(wsdl.headers['cache-control']).toBeUndefined();
  });
});
