import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as soap from 'soap';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hasPhpSoap, hasZeep } from '../../helpers/tools.ts';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import { type GatewayLogin, PATH, createGatewayUser, resultOf } from './gateway-helpers.ts';

// Logins verify a scrypt hash at PASSWORD_PARAMS (128 MiB, a few hundred ms; seconds on a busy machine).
vi.setConfig({ testTimeout: 120_000 });

/**
 * Conformance with SOAP clients nobody on this team wrote: node-soap loading our WSDL, PHP's
 * SoapClient, python zeep, and raw form posts with lower-case field names, all against the
 * gateway listening on a real port. Each gets a session, a CcInfoKey and a CheckInfoKey, and
 * sees a business error come back as code/error.
 */
const run = promisify(execFile);
const CLIENTS = join(import.meta.dirname, 'clients');

let ctx: TestContext;
let user: GatewayLogin;
let base: string;

beforeAll(async () => {
  ctx = await createTestContext();
  user = await createGatewayUser(ctx, ctx.nonProfit, 'conformance-user', 'ConfVendor');
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = ctx.app.server.address() as { port: number };
  base = `http://127.0.0.1:${port}`;
});
afterAll(() => ctx.close());

/** The token exists, belongs to the non-profit partner, and is of the expected kind. */
async function expectToken(key: string | undefined, kind: 'card' | 'bank', last4: string) {
  expect(key).toMatch(/^\d+$/);
  const token = await ctx.services.tokens.find(ctx.nonProfit.ClientId, key!);
  expect(token).toMatchObject({ kind, last4, source: 'gateway' });
  expect(await ctx.services.tokens.find(ctx.forProfit.ClientId, key!)).toBeUndefined();
}

describe('node-soap client (npm soap) loading our WSDL', () => {
  it('gets a session, a CcInfoKey and a CheckInfoKey, and a business error as code/error', async () => {
    const client = await soap.createClientAsync(`${base}${PATH}?WSDL`);
    const [session] = await client.GetClientSessionIDAsync({ Username: user.Username, Password: user.Password });
    expect(session.GetClientSessionIDResult).toMatchObject({ code: 'OK', error: 'ClientSessionID generated successfully', Username: 'conformance-user' });
    const sid = session.GetClientSessionIDResult.ClientSessionID;
    expect(sid).toMatch(/^[0-9a-f-]{36}$/);

    const [card] = await client.GetTokenAsync({ ClientSessionID: sid, CcAccountNum: '4242424242424242', CcExpDate: '1230', FirstName: 'Node', LastName: 'Soap' });
    const cardResult = card.GetTokenResult;
    expect(cardResult).toMatchObject({ code: 'OK', ClientSessionID: sid });
    expect(cardResult.CustomerID).toMatch(/^ConfVendor-NodeSoap-\d{14}$/);
    await expectToken(cardResult.CcInfoKey, 'card', '4242');

    const [check] = await client.GetCheckTokenAsync({ ClientSessionID: sid, BankRoutingNum: '021000021', BankAccountNum: '123456789', BankAcctType: 'S' });
    expect(check.GetCheckTokenResult).toMatchObject({ code: 'OK', CustomerKey: cardResult.CustomerKey, CustomerID: cardResult.CustomerID });
    await expectToken(check.GetCheckTokenResult.CheckInfoKey, 'bank', '6789');

    const [bad] = await client.GetTokenAsync({ ClientSessionID: sid, CcAccountNum: '4242424242424241', CcExpDate: '1230' });
    expect(bad.GetTokenResult).toEqual({ code: 'Invalid_Argument', error: 'CcAccountNum is not a valid card number.' });
    const [denied] = await client.GetCheckTokenAsync({ ClientSessionID: 'not-a-session', BankRoutingNum: '021000021', BankAccountNum: '123456789', BankAcctType: 'C' });
    expect(denied.GetCheckTokenResult.code).toBe('Access_Denied');
  });

  it('also works through the SOAP 1.2 port', async () => {
    const client = await soap.createClientAsync(`${base}${PATH}?WSDL`, { forceSoap12Headers: true });
    const port = (client as unknown as Record<string, Record<string, Record<string, (args: object, cb: (err: unknown, result: unknown) => void) => void>>>).Recurring!.RecurringSoap12!;
    const call = (op: string, args: object) =>
      new Promise<Record<string, Record<string, string>>>((resolve, reject) => port[op]!(args, (err, result) => (err ? reject(err) : resolve(result as never))));
    const session = await call('GetClientSessionID', { Username: user.Username, Password: user.Password });
    expect(session.GetClientSessionIDResult!.code).toBe('OK');
    const card = await call('GetToken', { ClientSessionID: session.GetClientSessionIDResult!.ClientSessionID, CcAccountNum: '3056930009020004', CcExpDate: '1230' });
    expect(card.GetTokenResult!.code).toBe('OK');
    await expectToken(card.GetTokenResult!.CcInfoKey, 'card', '0004');
    expect(client.lastRequest).toContain('http://www.w3.org/2003/05/soap-envelope');
  });
});

describe.skipIf(!hasPhpSoap())('PHP SoapClient (php-soap)', () => {
  it.each(['1.1', '1.2'])('SOAP %s: gets a session, both keys, and business errors as code/error', async (version) => {
    const { stdout } = await run('php', [join(CLIENTS, 'php-soapclient.php'), `${base}${PATH}?WSDL`, user.Username, user.Password, version], { timeout: 60_000 });
    const out = JSON.parse(stdout);
    expect(out.functions).toEqual(expect.arrayContaining([expect.stringContaining('GetTokenResponse GetToken(GetToken $parameters)')]));
    expect(out.session).toMatchObject({ code: 'OK', Username: 'conformance-user' });
    expect(out.card).toMatchObject({ code: 'OK', ClientSessionID: out.session.ClientSessionID });
    expect(out.card.CustomerID).toMatch(/^ConfVendor-JoPhp-\d{14}$/);
    await expectToken(out.card.CcInfoKey, 'card', '4444');
    expect(out.check).toMatchObject({ code: 'OK', CustomerKey: out.card.CustomerKey });
    await expectToken(out.check.CheckInfoKey, 'bank', '5678');
    const savings = await ctx.services.tokens.find(ctx.nonProfit.ClientId, out.check.CheckInfoKey);
    expect([savings?.accountType, savings?.nameOnAccount]).toEqual([2, 'Jo Php']);
    expect(out.badCard).toEqual({ code: 'Invalid_Argument', error: 'CcAccountNum is not a valid card number.' });
    expect(out.denied.code).toBe('Access_Denied');
    expect(out.wrongPassword).toEqual({ code: 'Invalid_Login', error: 'Invalid Username or Password.' });
  }, 60_000);
});

describe.skipIf(!hasZeep())('python zeep (python3-zeep)', () => {
  it('gets a session, both keys, and business errors as code/error', async () => {
    const { stdout } = await run('/usr/bin/python3', [join(CLIENTS, 'zeep_client.py'), `${base}${PATH}?WSDL`, user.Username, user.Password], { timeout: 60_000 });
    const out = JSON.parse(stdout);
    expect(out.session).toMatchObject({ code: 'OK', Username: 'conformance-user' });
    expect(out.card).toMatchObject({ code: 'OK', ClientSessionID: out.session.ClientSessionID });
    expect(out.card.CustomerID).toMatch(/^ConfVendor-ZedPython-\d{14}$/);
    await expectToken(out.card.CcInfoKey, 'card', '0005');
    expect((await ctx.services.tokens.find(ctx.nonProfit.ClientId, out.card.CcInfoKey))?.cardType).toBe('American Express');
    await expectToken(out.check.CheckInfoKey, 'bank', '4321');
    expect(out.badCheck).toEqual({ code: 'Invalid_Argument', error: 'BankAcctType must be C (checking) or S (savings); AccountType may say Checking or Savings.' });
    expect(out.expired).toEqual({ code: 'Invalid_Argument', error: 'CcExpDate is in the past: the card has expired.' });
    expect(out.soap12card.code).toBe('OK');
    await expectToken(out.soap12card.CcInfoKey, 'card', '1117');
  }, 60_000);
});

describe('raw HTTP POST form with lower-case field names', () => {
  const post = async (op: string, fields: Record<string, string>) => {
    const res = await fetch(`${base}${PATH}/${op}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/xml; charset=utf-8');
    const text = await res.text();
    expect(text).toMatch(/^<\?xml version="1\.0" encoding="utf-8"\?>\s*<RecurringResult xmlns:xsi="http:\/\/www\.w3\.org\/2001\/XMLSchema-instance" xmlns:xsd="http:\/\/www\.w3\.org\/2001\/XMLSchema" xmlns="http:\/\/www\.tpisoft\.com\/Admin\/ws">/);
    return resultOf(text);
  };

  it('gets a session, both keys, and a business error as code/error', async () => {
    const session = await post('GetClientSessionID', { username: user.Username, password: user.Password, vendor: 'confvendor', unknownfield: 'ignored' });
    expect(session).toMatchObject({ code: 'OK', error: 'ClientSessionID generated successfully' });
    const sid = session.ClientSessionID!;
    const card = await post('gettoken', { clientsessionid: sid, ccaccountnum: '3530111333300000', ccexpdate: '0631', firstname: 'Form', lastname: 'Post' });
    expect(card).toMatchObject({ code: 'OK', ClientSessionID: sid });
    await expectToken(card.CcInfoKey, 'card', '0000');
    const check = await post('GetCheckToken', { ClientSessionID: sid, cktransitnum: '011000015', ckaccountnum: '11112222', accounttype: 'checking', checktype: 'Corporate' });
    expect(check.code).toBe('OK');
    await expectToken(check.CheckInfoKey, 'bank', '2222');
    const missing = await post('GetToken', { clientsessionid: sid, ccexpdate: '0631' });
    expect(missing).toEqual({ code: 'Invalid_Argument', error: 'CcAccountNum is required.' });
    const vendor = await post('GetClientSessionID', { username: user.Username, password: user.Password, vendor: 'OtherVendor' });
    expect(vendor).toEqual({ code: 'Invalid_VendorID', error: "Vendor does not match the gateway user's vendor." });
  });
});
