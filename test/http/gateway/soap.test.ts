import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GATEWAY_CODES } from '../../../src/http/gateway/results.ts';
import { VaultError } from '../../../src/platform/errors.ts';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import {
  type GatewayLogin,
  NS,
  PATH,
  SOAP11,
  SOAP12,
  createGatewayUser,
  elementOrder,
  envelope11,
  envelope12,
  formPost,
  login,
  resultOf,
  soap11,
  soap12,
} from './gateway-helpers.ts';

// Logins verify a scrypt hash at PASSWORD_PARAMS (128 MiB, a few hundred ms; seconds on a busy machine).
vi.setConfig({ testTimeout: 120_000 });

let ctx: TestContext;
let user: GatewayLogin;
let sid: string;

beforeAll(async () => {
  ctx = await createTestContext();
  user = await createGatewayUser(ctx, ctx.nonProfit, 'wire-user', 'WireVendor');
  sid = await login(ctx, user);
});
afterAll(() => ctx.close());

const card = (over: Record<string, string> = {}) => ({ ClientSessionID: sid, CcAccountNum: '4242424242424242', CcExpDate: '1230', ...over });
const check = (over: Record<string, string> = {}) => ({ ClientSessionID: sid, BankRoutingNum: '021000021', BankAccountNum: '123456789', BankAcctType: 'C', ...over });

describe('SOAP 1.1', () => {
  it('answers GetClientSessionID with a GUID, OK, the success text and the Username, in a soap:Envelope', async () => {
    const res = await soap11(ctx, 'GetClientSessionID', { Username: user.Username, Password: user.Password, ClientIP: '203.0.113.9', UserAgent: 'Agent/1.0' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/xml; charset=utf-8');
    expect(res.body).toMatch(
      new RegExp(`^<\\?xml version="1.0" encoding="utf-8"\\?><soap:Envelope xmlns:soap="${SOAP11}"[^>]*><soap:Body><GetClientSessionIDResponse xmlns="${NS}"><GetClientSessionIDResult>`),
    );
    const r = resultOf(res);
    expect(r).toEqual({ ClientSessionID: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/), code: 'OK', error: 'ClientSessionID generated successfully', Username: 'wire-user' });
    expect(elementOrder(res)).toEqual(['ClientSessionID', 'code', 'error', 'Username']);
  });

  it('records the client IP and user agent of the session, and stores the ClientSessionID only as a hash', async () => {
    const given = resultOf(await soap11(ctx, 'GetClientSessionID', { Username: user.Username, Password: user.Password, ClientIP: '2001:db8::7', UserAgent: 'Payer Browser' })).ClientSessionID!;
    const fallback = resultOf(await soap11(ctx, 'GetClientSessionID', { Username: user.Username, Password: user.Password, 'User-Agent-Ignored': 'x' }, { SOAPAction: `${NS}/GetClientSessionID`, 'user-agent': 'Integration/2.0' })).ClientSessionID!;
    const rows = await ctx.store.sql.query<{ client_ip: string; user_agent: string; id_hash: string; expires_at: Date; created_at: Date }>(
      'SELECT client_ip, user_agent, id_hash, expires_at, created_at FROM gateway_sessions ORDER BY created_at',
    );
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(given);
    expect(dump).not.toContain(fallback);
    expect(rows).toEqual(expect.arrayContaining([expect.objectContaining({ client_ip: '2001:db8::7', user_agent: 'Payer Browser' }), expect.objectContaining({ client_ip: '127.0.0.1', user_agent: 'Integration/2.0' })]));
    for (const r of rows) expect(new Date(r.expires_at).getTime() - new Date(r.created_at).getTime()).toBe(20 * 60_000);
  });

  it('accepts the SOAPAction quoted, unquoted, or absent (then routes by the body element)', async () => {
    for (const headers of [{ SOAPAction: `"${NS}/GetToken"` }, { SOAPAction: `${NS}/GetToken` }, { SOAPAction: '""' }, {}]) {
      const res = await soap11(ctx, 'GetToken', card(), headers as Record<string, string>);
      expect(res.statusCode, JSON.stringify(headers)).toBe(200);
      expect(resultOf(res).code).toBe('OK');
    }
  });

  it('answers GetToken with CustomerID, ClientSessionID, CustomerKey, CcInfoKey and code, in that order, and nothing empty', async () => {
    const fresh = await login(ctx, user);
    const res = await soap11(ctx, 'GetToken', { ...card({ ClientSessionID: fresh }), FirstName: "Mary-Jo", LastName: "O'Neil &amp; Co", CcNameOnCard: 'M J ONEIL' });
    const r = resultOf(res);
    expect(elementOrder(res)).toEqual(['CustomerID', 'ClientSessionID', 'CustomerKey', 'CcInfoKey', 'code']);
    expect(r.CustomerID).toBe(`WireVendor-MaryJoONeilampCo-${ctx.clock.now().toISOString().replace(/[-:T]/g, '').slice(0, 14)}`);
    expect(r).toMatchObject({ ClientSessionID: fresh, code: 'OK', CustomerKey: expect.stringMatching(/^\d+$/), CcInfoKey: expect.stringMatching(/^\d+$/) });
    const token = await ctx.services.tokens.find(ctx.nonProfit.ClientId, r.CcInfoKey!);
    expect(token).toMatchObject({ kind: 'card', cardType: 'Visa', last4: '4242', expMonth: '12', expYear: '30', firstName: 'Mary-Jo', lastName: "O'Neil &amp; Co", customerKey: r.CustomerKey, customerId: r.CustomerID });
  });

  it('decodes the predefined entities and character references in values', async () => {
    const payload = envelope11('GetToken', {}).replace(
      `<GetToken xmlns="${NS}"></GetToken>`,
      `<GetToken xmlns="${NS}"><ClientSessionID>${sid}</ClientSessionID><CcAccountNum>4242&#32;4242&#x20;4242 4242</CcAccountNum><CcExpDate>1230</CcExpDate><FirstName>A&amp;B &lt;&gt;&quot;&apos;</FirstName><LastName><![CDATA[Cd&amp;]]></LastName></GetToken>`,
    );
    const res = await ctx.app.inject({ method: 'POST', url: PATH, headers: { 'content-type': 'text/xml', SOAPAction: `${NS}/GetToken` }, payload });
    const r = resultOf(res);
    expect(r.code).toBe('OK');
    const token = await ctx.services.tokens.find(ctx.nonProfit.ClientId, r.CcInfoKey!);
    expect([token?.firstName, token?.lastName]).toEqual(['A&B <>"\'', 'Cd&amp;']);
  });

  it('shares one customer between the calls of a session; another session is another customer', async () => {
    const s1 = await login(ctx, user);
    const a = resultOf(await soap11(ctx, 'GetToken', card({ ClientSessionID: s1, FirstName: 'Ann' })));
    const b = resultOf(await soap11(ctx, 'GetCheckToken', check({ ClientSessionID: s1, FirstName: 'Bob' })));
    expect([b.CustomerKey, b.CustomerID]).toEqual([a.CustomerKey, a.CustomerID]);
    expect(a.CustomerID).toMatch(/^WireVendor-Ann-\d{14}$/);
    const s2 = await login(ctx, user);
    const c = resultOf(await soap11(ctx, 'GetToken', card({ ClientSessionID: s2 })));
    expect(c.CustomerKey).not.toBe(a.CustomerKey);
    expect(c.CustomerID).toMatch(/^WireVendor-Customer-\d{14}$/);
  });

  it('answers an unknown SOAPAction with HTTP 500 and a soap:Client fault', async () => {
    const res = await soap11(ctx, 'GetToken', card(), { SOAPAction: `"${NS}/DeleteEverything"` });
    expect(res.statusCode).toBe(500);
    expect(res.headers['content-type']).toBe('text/xml; charset=utf-8');
    const fault = new XMLParser({ removeNSPrefix: true }).parse(res.body).Envelope.Body.Fault;
    expect(fault).toEqual({ faultcode: 'soap:Client', faultstring: `Server did not recognize the value of HTTP Header SOAPAction: ${NS}/DeleteEverything.`, detail: '' });
  });

  it('refuses a SOAPAction that does not match the body element, and a body element of another namespace', async () => {
    const mismatch = await soap11(ctx, 'GetToken', card(), { SOAPAction: `${NS}/GetCheckToken` });
    expect(mismatch.statusCode).toBe(500);
    expect(mismatch.body).toContain('<faultcode>soap:Client</faultcode>');
    const otherNs = await ctx.app.inject({ method: 'POST', url: PATH, headers: { 'content-type': 'text/xml' }, payload: envelope11('GetToken', card(), 'urn:other') });
    expect(otherNs.statusCode).toBe(500);
    expect(otherNs.body).toContain('Server did not recognize the value of the request element GetToken in namespace urn:other');
    const notEnvelope = await ctx.app.inject({ method: 'POST', url: PATH, headers: { 'content-type': 'text/xml' }, payload: '<GetToken/>' });
    expect(notEnvelope.statusCode).toBe(500);
    expect(notEnvelope.body).toContain('The request is not a SOAP envelope.');
  });

  it('answers a SOAP 1.2 envelope sent as text/xml with a VersionMismatch fault, and a mustUnderstand header with MustUnderstand', async () => {
    const wrong = await ctx.app.inject({ method: 'POST', url: PATH, headers: { 'content-type': 'text/xml' }, payload: `<e:Envelope xmlns:e="${SOAP12}"><e:Body/></e:Envelope>` });
    expect(wrong.statusCode).toBe(500);
    expect(wrong.body).toContain('<faultcode>soap:VersionMismatch</faultcode>');
    const payload = `<s:Envelope xmlns:s="${SOAP11}"><s:Header><Auth xmlns="urn:x" s:mustUnderstand="1">x</Auth></s:Header><s:Body><GetToken xmlns="${NS}"/></s:Body></s:Envelope>`;
    const must = await ctx.app.inject({ method: 'POST', url: PATH, headers: { 'content-type': 'text/xml' }, payload });
    expect(must.statusCode).toBe(500);
    expect(must.body).toContain('<faultcode>soap:MustUnderstand</faultcode>');
    const ignorable = payload.replace('s:mustUnderstand="1"', 's:mustUnderstand="0"');
    const ok = await ctx.app.inject({ method: 'POST', url: PATH, headers: { 'content-type': 'text/xml' }, payload: ignorable });
    expect(resultOf(ok).code).toBe('Access_Denied');
  });
});

describe('SOAP 1.2', () => {
  it('takes the action from the content type and answers in a 1.2 envelope', async () => {
    const res = await soap12(ctx, 'GetToken', card());
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/soap+xml; charset=utf-8');
    expect(res.body).toContain(`<soap:Envelope xmlns:soap="${SOAP12}"`);
    expect(resultOf(res).code).toBe('OK');
    expect(resultOf(await soap12(ctx, 'GetCheckToken', check(), undefined)).code).toBe('OK');
  });

  it('takes the media type in any case (Application/SOAP+XML)', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: PATH,
      headers: { 'content-type': `Application/SOAP+XML; charset=utf-8; action="${NS}/GetToken"` },
      payload: envelope12('GetToken', card()),
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`<soap:Envelope xmlns:soap="${SOAP12}"`);
    expect(resultOf(res).code).toBe('OK');
  });

  it('answers an unknown action with a 1.2 Sender fault', async () => {
    const res = await soap12(ctx, 'GetToken', card(), `${NS}/Nope`);
    expect(res.statusCode).toBe(500);
    const fault = new XMLParser({ removeNSPrefix: true }).parse(res.body).Envelope.Body.Fault;
    expect(fault.Code.Value).toBe('soap:Sender');
    expect(fault.Reason.Text['#text'] ?? fault.Reason.Text).toBe(`Server did not recognize the value of HTTP Header SOAPAction: ${NS}/Nope.`);
  });
});

describe('HTTP POST', () => {
  it('binds form fields case-insensitively, ignores unknown fields, and treats missing ones as empty', async () => {
    const res = await formPost(ctx, 'GetToken', { CLIENTSESSIONID: sid, ccaccountnum: '5555555555554444', CcExpDate: '0130', Whatever: 'x' });
    expect(res.statusCode).toBe(200);
    expect(res.body.startsWith(`<?xml version="1.0" encoding="utf-8"?>\n<RecurringResult xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns="${NS}">`)).toBe(true);
    expect(resultOf(res)).toMatchObject({ code: 'OK', CcInfoKey: expect.stringMatching(/^\d+$/) });
    const missing = resultOf(await formPost(ctx, 'GetToken', { clientsessionid: sid }));
    expect(missing).toEqual({ code: 'Invalid_Argument', error: 'CcAccountNum is required. CcExpDate is required.' });
  });

  it('routes the operation name case-insensitively; an unknown operation is 404', async () => {
    expect(resultOf(await formPost(ctx, 'getchecktoken', check())).code).toBe('OK');
    const unknown = await formPost(ctx, 'GetContracts', {});
    expect(unknown.statusCode).toBe(404);
  });

  it('answers a method the gateway does not take in plain text, as its other refusals, not with problem details', async () => {
    const get = await ctx.app.inject({ method: 'GET', url: '/admin/ws/recurring.asmx/GetToken?CcAccountNum=1' });
    expect(get.statusCode).toBe(405);
    expect(get.headers.allow).toBe('POST');
    expect(get.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(get.body).toBe('GET is not allowed here; use POST.');
    const put = await ctx.app.inject({ method: 'PUT', url: '/admin/ws/Recurring.asmx' });
    expect(put.statusCode).toBe(405);
    expect(put.headers['content-type']).toBe('text/plain; charset=utf-8');
    const deeper = await ctx.app.inject({ method: 'GET', url: '/admin/ws/recurring.asmx/GetToken/more' });
    expect(deeper.statusCode).toBe(404);
    expect(deeper.headers['content-type']).toBe('text/plain; charset=utf-8');
    // The JSON API keeps its problem details.
    expect((await ctx.app.inject({ method: 'PUT', url: '/api/fee' })).headers['content-type']).toBe('application/problem+json; charset=utf-8');
  });
});

describe('business errors are HTTP 200 with code and error', () => {
  it('Invalid_Login for a wrong password and an unknown user alike', async () => {
    const wrong = await soap11(ctx, 'GetClientSessionID', { Username: user.Username, Password: 'not-the-password' });
    const unknown = await soap11(ctx, 'GetClientSessionID', { Username: 'nobody-here', Password: 'not-the-password' });
    for (const res of [wrong, unknown]) {
      expect(res.statusCode).toBe(200);
      expect(resultOf(res)).toEqual({ code: 'Invalid_Login', error: 'Invalid Username or Password.' });
    }
    expect(resultOf(await soap11(ctx, 'GetClientSessionID', { Username: user.Username.toUpperCase(), Password: user.Password })).code).toBe('OK');
  });

  it('Invalid_Argument for a missing password or a ClientIP that is not an address', async () => {
    expect(resultOf(await soap11(ctx, 'GetClientSessionID', { Username: user.Username }))).toEqual({ code: 'Invalid_Argument', error: 'Password is required.' });
    expect(resultOf(await soap11(ctx, 'GetClientSessionID', { Username: user.Username, Password: user.Password, ClientIP: 'localhost' }))).toEqual({
      code: 'Invalid_Argument',
      error: 'ClientIP must be an IPv4 or IPv6 address.',
    });
  });

  it('Access_Denied for a missing, unknown or expired ClientSessionID, before any argument is looked at', async () => {
    const expected = { code: 'Access_Denied', error: 'ClientSessionID is missing, unknown or expired; call GetClientSessionID for a new one.' };
    expect(resultOf(await soap11(ctx, 'GetToken', { CcAccountNum: 'garbage' }))).toEqual(expected);
    expect(resultOf(await soap11(ctx, 'GetToken', card({ ClientSessionID: '7d7f43f4-1b7e-4f6b-9d7e-6c0f2a1b3c4d' })))).toEqual(expected);
    expect(resultOf(await soap11(ctx, 'GetCheckToken', check({ ClientSessionID: 'garbage' })))).toEqual(expected);

    const session = await login(ctx, user);
    ctx.clock.advance(20 * 60_000 - 1000);
    expect(resultOf(await soap11(ctx, 'GetToken', card({ ClientSessionID: session }))).code).toBe('OK');
    ctx.clock.advance(1000);
    expect(resultOf(await soap11(ctx, 'GetToken', card({ ClientSessionID: session })))).toEqual(expected);
    sid = await login(ctx, user);
  });

  it.each([
    [{ CcAccountNum: '4242424242424241' }, 'CcAccountNum is not a valid card number.'],
    [{ CcAccountNum: '6200000000000005' }, 'CcAccountNum is not a card we accept (American Express, Mastercard, Visa, Discover, Diners Club or JCB).'],
    [{ CcAccountNum: '4242-4242-4242-424x' }, 'CcAccountNum must contain only digits (spaces and dashes are ignored).'],
    [{ CcExpDate: '12/30' }, 'CcExpDate must be MMYY: a two-digit month (01-12) and a two-digit year.'],
    [{ CcExpDate: '1330' }, 'CcExpDate must be MMYY: a two-digit month (01-12) and a two-digit year.'],
    [{ CcExpDate: '1026' }, 'CcExpDate is in the past: the card has expired.'],
    [{ CcExpDate: '' }, 'CcExpDate is required.'],
    [{ CcZip: '12345678901' }, 'CcZip must be at most 10 characters.'],
  ])('GetToken %j: Invalid_Argument "%s"', async (over, error) => {
    const res = await soap11(ctx, 'GetToken', card(over));
    expect(res.statusCode).toBe(200);
    expect(resultOf(res)).toEqual({ code: 'Invalid_Argument', error });
  });

  it('GetToken does not validate or store CcNameOnCard', async () => {
    const r = resultOf(await soap11(ctx, 'GetToken', card({ CcNameOnCard: '\u2603'.repeat(300) + ' Zelda Unstored' })));
    expect(r.code).toBe('OK');
    const rows = await ctx.store.sql.query<{ t: string }>('SELECT t::text AS t FROM payment_tokens t');
    expect(rows.map((x) => x.t).join()).not.toContain('Zelda Unstored');
  });

  it.each([
    [{ BankRoutingNum: '021000022' }, 'BankRoutingNum is not a valid US routing number (checksum).'],
    [{ BankRoutingNum: '12345678' }, 'BankRoutingNum must have 9 digits.'],
    [{ BankRoutingNum: '', CkTransitNum: '131000000' }, 'CkTransitNum is not a valid US routing number (its first two digits are not an ABA range).'],
    [{ BankAccountNum: '1234567' }, 'BankAccountNum must have 8 to 12 digits for a US account.'],
    [{ BankAccountNum: '', CkAccountNum: '12x45678' }, 'CkAccountNum must contain only digits.'],
    [{ BankAcctType: 'X' }, 'BankAcctType must be C (checking) or S (savings); AccountType may say Checking or Savings.'],
    [{ BankAcctType: '', AccountType: 'Brokerage' }, 'AccountType must be C (checking) or S (savings); AccountType may say Checking or Savings.'],
    [{ BankAcctType: '' }, 'BankAcctType is required: C (checking) or S (savings).'],
    [{ CheckType: 'Crypto' }, 'CheckType must be Personal, Corporate or Government (or 1, 2, 3).'],
    [{ CkTransitNum: '011000015' }, 'BankRoutingNum and CkTransitNum disagree; send one of them.'],
    [{ AccountType: 'Savings' }, 'BankAcctType and AccountType disagree; send one of them.'],
  ])('GetCheckToken %j: Invalid_Argument "%s"', async (over, error) => {
    expect(resultOf(await soap11(ctx, 'GetCheckToken', check(over)))).toEqual({ code: 'Invalid_Argument', error });
  });

  it('GetCheckToken takes the sample names too, and agreeing aliases', async () => {
    const r = resultOf(
      await soap11(ctx, 'GetCheckToken', {
        ClientSessionID: sid,
        CkTransitNum: '0110-0001 5',
        BankRoutingNum: '011000015',
        CkAccountNum: '55556666',
        AccountType: 'savings',
        BankAcctType: 'S',
        CheckType: 'Government',
        CkNameOnAccount: 'City of Springfield',
        CkStreet: '1 Main St',
        CkZip: '54321',
        BankName: 'First Bank',
      }),
    );
    expect(r.code).toBe('OK');
    const token = await ctx.services.tokens.find(ctx.nonProfit.ClientId, r.CheckInfoKey!);
    expect(token).toMatchObject({ kind: 'bank', routingNumber: '011000015', last4: '6666', accountType: 2, checkType: 3, nameOnAccount: 'City of Springfield', street: '1 Main St', zip: '54321', bankCountry: 'US' });
  });

  it('a parameter given twice is an Invalid_Argument', async () => {
    const payload = envelope11('GetToken', card()).replace('<CcExpDate>1230</CcExpDate>', '<CcExpDate>1230</CcExpDate><ccexpdate>0131</ccexpdate>');
    const res = await ctx.app.inject({ method: 'POST', url: PATH, headers: { 'content-type': 'text/xml' }, payload });
    expect(resultOf(res)).toEqual({ code: 'Invalid_Argument', error: 'CcExpDate is given more than once.' });
  });

  it('Invalid_User_Status for a disabled user, whose sessions end at once; Invalid_VendorID for another vendor', async () => {
    const other = await createGatewayUser(ctx, ctx.nonProfit, 'soon-disabled');
    const session = await login(ctx, other);
    await ctx.services.gatewayUsers.setStatus('soon-disabled', 'disabled');
    expect(resultOf(await soap11(ctx, 'GetToken', card({ ClientSessionID: session }))).code).toBe('Access_Denied');
    expect(resultOf(await soap11(ctx, 'GetClientSessionID', { Username: other.Username, Password: other.Password }))).toEqual({
      code: 'Invalid_User_Status',
      error: 'The gateway user is disabled.',
    });
    expect(resultOf(await soap11(ctx, 'GetClientSessionID', { Username: user.Username, Password: user.Password, Vendor: 'Elsewhere' })).code).toBe('Invalid_VendorID');
    expect(resultOf(await soap11(ctx, 'GetClientSessionID', { Username: user.Username, Password: user.Password, Vendor: 'wirevendor' })).code).toBe('OK');
  });

  it("tokens belong to the gateway user's partner", async () => {
    const merchantUser = await createGatewayUser(ctx, ctx.forProfit, 'merchant-gw');
    const r = resultOf(await soap11(ctx, 'GetToken', card({ ClientSessionID: await login(ctx, merchantUser) })));
    expect(await ctx.services.tokens.find(ctx.forProfit.ClientId, r.CcInfoKey!)).toBeDefined();
    expect(await ctx.services.tokens.find(ctx.nonProfit.ClientId, r.CcInfoKey!)).toBeUndefined();
  });
});

describe('WSDL and the operations page', () => {
  const parse = (xml: string) => new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['wsdl:port', 's:element', 's:enumeration', 'wsdl:binding', 'wsdl:operation', 'wsdl:message', 'wsdl:part'].includes(name) }).parse(xml);

  it('serves a WSDL 1.1 at ?WSDL and ?wsdl, document/literal, with SOAP 1.1 first, then SOAP 1.2 and HTTP POST', async () => {
    const upper = await ctx.app.inject({ method: 'GET', url: `${PATH}?WSDL`, headers: { host: 'gateway.example.org:8443' } });
    const lower = await ctx.app.inject({ method: 'GET', url: `${PATH}?wsdl` });
    expect(upper.statusCode).toBe(200);
    expect(upper.headers['content-type']).toBe('text/xml; charset=utf-8');
    expect(lower.statusCode).toBe(200);
    const doc = parse(upper.body)['wsdl:definitions'];
    expect(doc.targetNamespace).toBe(NS);
    const ports = doc['wsdl:service']['wsdl:port'];
    expect(ports.map((p: { name: string }) => p.name)).toEqual(['RecurringSoap', 'RecurringSoap12', 'RecurringHttpPost']);
    expect(ports[0]['soap:address'].location).toBe(`http://gateway.example.org:8443${PATH}`);
    const bindings = doc['wsdl:binding'];
    expect(bindings.map((b: { name: string }) => b.name)).toEqual(['RecurringSoap', 'RecurringSoap12', 'RecurringHttpPost']);
    const soapOps = bindings[0]['wsdl:operation'];
    expect(soapOps.map((o: Record<string, Record<string, string>>) => [o.name, o['soap:operation']!.soapAction, o['soap:operation']!.style])).toEqual([
      ['GetClientSessionID', `${NS}/GetClientSessionID`, 'document'],
      ['GetToken', `${NS}/GetToken`, 'document'],
      ['GetCheckToken', `${NS}/GetCheckToken`, 'document'],
    ]);
    expect(bindings[1]['soap12:binding']).toBeDefined();
    expect(bindings[2]['http:binding'].verb).toBe('POST');
  });

  it('has one wrapper per operation with both the described and the sample names as optional strings', async () => {
    const doc = parse((await ctx.app.inject({ method: 'GET', url: `${PATH}?WSDL` })).body)['wsdl:definitions'];
    const elements = doc['wsdl:types']['s:schema']['s:element'] as Record<string, unknown>[];
    const params = (name: string) =>
      ((elements.find((e) => e.name === name)!['s:complexType'] as Record<string, Record<string, Record<string, string>[]>>)['s:sequence']!['s:element']!).map((e) => {
        expect([e.minOccurs, e.maxOccurs, e.type]).toEqual(['0', '1', 's:string']);
        return e.name;
      });
    expect(params('GetClientSessionID')).toEqual(['Username', 'Password', 'ClientIP', 'UserAgent', 'Vendor']);
    expect(params('GetToken')).toEqual(['ClientSessionID', 'CcAccountNum', 'CcExpDate', 'CcNameOnCard', 'CcStreet', 'CcZip', 'FirstName', 'LastName']);
    expect(params('GetCheckToken')).toEqual([
      'ClientSessionID', 'BankRoutingNum', 'BankAccountNum', 'BankAcctType', 'BankName', 'CkAccountNum', 'CkTransitNum', 'CkNameOnAccount', 'CheckType', 'AccountType', 'CkStreet', 'CkZip', 'FirstName', 'LastName',
    ]);
  });

  it('types RecurringResult as the spec\'s sequence with code an enumeration of the spec\'s codes', async () => {
    const doc = parse((await ctx.app.inject({ method: 'GET', url: `${PATH}?WSDL` })).body)['wsdl:definitions'];
    const schema = doc['wsdl:types']['s:schema'];
    const types = Array.isArray(schema['s:complexType']) ? schema['s:complexType'] : [schema['s:complexType']];
    const result = types.find((t: { name: string }) => t.name === 'RecurringResult');
    expect(result['s:sequence']['s:element'].map((e: { name: string }) => e.name)).toEqual([
      'CustomerID', 'ClientSessionID', 'CustomerKey', 'ContractKey', 'CcInfoKey', 'CheckInfoKey', 'code', 'error', 'Partner', 'Vendor', 'Username', 'Result', 'AuthCode', 'PNRef', 'Message', 'Contracts', 'ContractTransactions', 'AccountNumber',
    ]);
    const codes = schema['s:simpleType']['s:restriction']['s:enumeration'].map((e: { value: string }) => e.value);
    expect(codes).toEqual([...GATEWAY_CODES]);
    expect(codes).toHaveLength(19);
  });

  it('serves an HTML page listing the operations, and stays out of the OpenAPI document', async () => {
    const page = await ctx.app.inject({ method: 'GET', url: PATH });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    for (const op of ['GetClientSessionID', 'GetToken', 'GetCheckToken']) expect(page.body).toContain(`<h2>${op}</h2>`);
    expect(page.body).toContain(`href="${PATH}?WSDL"`);
    const openapi = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(openapi.paths).filter((p) => p.toLowerCase().includes('admin'))).toEqual([]);
  });
});

describe('a vault that cannot seal here', () => {
  it('is said as such over SOAP and HTTP POST, with the reason only in the log (its key file missing: a review saw a bare "unable to process")', async () => {
    const refused = vi.spyOn(ctx.services.vault, 'seal').mockImplementation(() => {
      throw new VaultError('the vault key file /srv/data/vault-keys.json is missing while stored tokens are sealed under keys it held');
    });
    try {
      const overSoap = await soap11(ctx, 'GetToken', card());
      expect(overSoap.statusCode).toBe(500);
      expect(overSoap.body).toContain('Card and bank account data cannot be stored or read on this server at the moment');
      expect(overSoap.body).not.toContain('vault-keys.json');
      const overPost = resultOf(await formPost(ctx, 'GetToken', card()));
      expect(overPost).toMatchObject({ code: 'Internal_Error', error: expect.stringMatching(/cannot be stored or read on this server/) });
      expect(ctx.logs.some((l) => l.includes('"level":50') && l.includes('vault-keys.json') && l.includes('GetToken'))).toBe(true);
    } finally {
      refused.mockRestore();
    }
  });
});
