import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import { dumpAllTables, findSecrets } from '../../modules/vault/secret-scan.ts';
import { type GatewayLogin, createGatewayUser, formPost, login, resultOf, soap11, soap12 } from './gateway-helpers.ts';

// Logins verify a scrypt hash at PASSWORD_PARAMS (128 MiB, a few hundred ms; seconds on a busy machine).
vi.setConfig({ testTimeout: 120_000 });

/**
 * Raw card and bank data sent to the gateway (accepted or refused) reach neither a database
 * column nor a log line; nor do gateway passwords and ClientSessionIDs.
 */
let ctx: TestContext;
let user: GatewayLogin;

beforeAll(async () => {
  ctx = await createTestContext();
  user = await createGatewayUser(ctx, ctx.nonProfit, 'secret-scan-user');
});
afterAll(() => ctx.close());

const CARDS = ['4242424242424242', '5555555555554444', '378282246310005', '6011111111111117', '3056930009020004', '3530111333300000'];
const REFUSED = ['4242424242424241', '6200000000000005'];
const ACCOUNTS = ['987654321012', '11223344'];

describe('the gateway stores and logs no secret', () => {
  it('tokenizes over SOAP 1.1, SOAP 1.2 and HTTP POST, then finds no number, password or session id in the dump or the logs', async () => {
    const sids: string[] = [];
    const keys: string[] = [];
    sids.push(await login(ctx, user), await login(ctx, user));
    for (const [i, n] of CARDS.entries()) {
      const sid = sids[i % 2]!;
      const params = { ClientSessionID: sid, CcAccountNum: n, CcExpDate: '0830', CcNameOnCard: 'Secret Holder' };
      const res = i % 3 === 0 ? await soap11(ctx, 'GetToken', params) : i % 3 === 1 ? await soap12(ctx, 'GetToken', params) : await formPost(ctx, 'GetToken', params);
      const r = resultOf(res);
      expect(r.code).toBe('OK');
      keys.push(r.CcInfoKey!);
    }
    const sid = sids[0]!;
    for (const n of REFUSED) {
      const r = resultOf(await soap11(ctx, 'GetToken', { ClientSessionID: sid, CcAccountNum: n, CcExpDate: '0830' }));
      expect(r.code).toBe('Invalid_Argument');
      expect(r.error).not.toContain(n);
    }
    const check1 = resultOf(await soap11(ctx, 'GetCheckToken', { ClientSessionID: sid, BankRoutingNum: '021000021', BankAccountNum: ACCOUNTS[0]!, BankAcctType: 'C' }));
    const check2 = resultOf(await formPost(ctx, 'GetCheckToken', { clientsessionid: sid, cktransitnum: '011000015', ckaccountnum: ACCOUNTS[1]!, accounttype: 'Savings' }));
    keys.push(check1.CheckInfoKey!, check2.CheckInfoKey!);
    // A malformed request that carries a number is refused without echoing it.
    const broken = await ctx.app.inject({ method: 'POST', url: '/admin/ws/recurring.asmx', headers: { 'content-type': 'text/xml' }, payload: `<x><CcAccountNum>${CARDS[0]}</CcAccountNum>` });
    expect(broken.statusCode).toBe(400);
    expect(broken.body).not.toContain(CARDS[0]);

    // The numbers are in the vault, sealed: the token service gives them back.
    const tokens = await Promise.all(keys.map((k) => ctx.services.tokens.get(ctx.nonProfit.ClientId, k)));
    expect(await Promise.all(tokens.map((t) => ctx.services.tokens.reveal(t)))).toEqual([...CARDS, ...ACCOUNTS]);

    const dump = await dumpAllTables(ctx.store);
    expect(dump.tables).toEqual(expect.arrayContaining(['payment_tokens', 'gateway_sessions', 'gateway_users']));
    const logs = ctx.logs.join('\n');
    expect(logs).toContain('/admin/ws/recurring.asmx');
    const secrets = [...CARDS, ...REFUSED, ...ACCOUNTS];
    expect(findSecrets(dump.text, secrets)).toEqual([]);
    expect(findSecrets(logs, secrets)).toEqual([]);
    for (const s of [user.Password, ...sids]) {
      expect(dump.text).not.toContain(s);
      expect(logs).not.toContain(s);
    }
    expect(dump.text).not.toContain('Secret Holder');
  }, 180_000);
});
