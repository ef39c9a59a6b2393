import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import { asReported, unreachableDatabaseError } from '../../helpers/unreachable-database.ts';
import { type GatewayLogin, NS, PATH, createGatewayUser, formPost, login, resultOf, soap11 } from './gateway-helpers.ts';

// Logins verify a scrypt hash at PASSWORD_PARAMS (128 MiB, a few hundred ms; seconds on a busy machine).
vi.setConfig({ testTimeout: 120_000 });

/**
 * Whatever a client sends, and whatever goes wrong inside an operation, the answer is a record or
 * a SOAP fault: never a text/plain 500. A NUL character (which PostgreSQL text cannot hold) is an
 * Invalid_Argument naming the parameter, decided before anything reaches the database.
 */
let ctx: TestContext;
let user: GatewayLogin;
let sid: string;

beforeAll(async () => {
  ctx = await createTestContext();
  user = await createGatewayUser(ctx, ctx.nonProfit, 'errors-user');
  sid = await login(ctx, user);
});
afterAll(() => ctx.close());
afterEach(() => {
  vi.restoreAllMocks();
});

async function count(table: 'gateway_sessions' | 'payment_tokens'): Promise<number> {
  const [row] = await ctx.store.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
  return Number(row!.n);
}

const errorLogs = () => ctx.logs.filter((l) => l.includes('"level":50'));

describe('a NUL character in a parameter', () => {
  it('GetClientSessionID: Invalid_Argument naming Username or UserAgent, before the password is checked (HTTP POST and SOAP)', async () => {
    const authenticate = vi.spyOn(ctx.services.gatewayUsers, 'authenticate');
    const sessions = await count('gateway_sessions');
    const logs = errorLogs().length;
    const name = await formPost(ctx, 'GetClientSessionID', { Username: 'errors\u0000user', Password: user.Password });
    expect(name.statusCode).toBe(200);
    expect(name.headers['content-type']).toMatch(/^text\/xml/);
    expect(resultOf(name)).toEqual({ code: 'Invalid_Argument', error: 'Username must not contain a NUL character.' });
    // After the right password too: the UserAgent would be stored with the session.
    const agent = await formPost(ctx, 'GetClientSessionID', { Username: user.Username, Password: user.Password, UserAgent: 'a\u0000b' });
    expect(agent.statusCode).toBe(200);
    expect(resultOf(agent)).toEqual({ code: 'Invalid_Argument', error: 'UserAgent must not contain a NUL character.' });
    const soap = await soap11(ctx, 'GetClientSessionID', { Username: user.Username, Password: user.Password, UserAgent: 'a\u0000b' });
    expect(soap.statusCode).toBe(200);
    expect(resultOf(soap)).toEqual({ code: 'Invalid_Argument', error: 'UserAgent must not contain a NUL character.' });
    expect(authenticate).not.toHaveBeenCalled();
    expect(await count('gateway_sessions')).toBe(sessions);
    expect(errorLogs()).toHaveLength(logs);
  });

  it('GetToken: Invalid_Argument naming FirstName or CcZip; no token is stored (HTTP POST and SOAP)', async () => {
    const tokenize = vi.spyOn(ctx.services.tokens, 'storeCard');
    const tokens = await count('payment_tokens');
    const logs = errorLogs().length;
    const card = { ClientSessionID: sid, CcAccountNum: '4111111111111111', CcExpDate: '1230' };
    for (const [param, value] of [
      ['FirstName', 'a\u0000b'],
      ['CcZip', '1\u00002'],
      ['LastName', '\u0000'],
      ['CcStreet', '1 Main\u0000St'],
    ] as const) {
      const form = await formPost(ctx, 'GetToken', { ...card, [param]: value });
      expect(form.statusCode).toBe(200);
      expect(resultOf(form)).toEqual({ code: 'Invalid_Argument', error: `${param} must not contain a NUL character.` });
      const soap = await soap11(ctx, 'GetToken', { ...card, [param]: value });
      expect(soap.statusCode).toBe(200);
      expect(resultOf(soap)).toEqual({ code: 'Invalid_Argument', error: `${param} must not contain a NUL character.` });
    }
    expect(tokenize).not.toHaveBeenCalled();
    expect(await count('payment_tokens')).toBe(tokens);
    expect(errorLogs()).toHaveLength(logs);
  });

  it('control characters in the holder text: Invalid_Argument, no token (they reached payment records; a robustness audit)', async () => {
    const tokens = await count('payment_tokens');
    const card = { ClientSessionID: sid, CcAccountNum: '4111111111111111', CcExpDate: '1230' };
    for (const [param, value] of [['FirstName', '\u001b[31mRed'], ['CcStreet', '1 Main\r\nSt'], ['LastName', 'a\u0085b'], ['CcZip', '1\u007f2']] as const) {
      expect(resultOf(await formPost(ctx, 'GetToken', { ...card, [param]: value }))).toEqual({ code: 'Invalid_Argument', error: `${param} must not contain control characters.` });
    }
    expect(resultOf(await soap11(ctx, 'GetToken', { ...card, CcStreet: '1 Main\nSt' }))).toEqual({ code: 'Invalid_Argument', error: 'CcStreet must not contain control characters.' });
    const check = { ClientSessionID: sid, BankRoutingNum: '021000021', BankAccountNum: '123456789', BankAcctType: 'C' };
    expect(resultOf(await formPost(ctx, 'GetCheckToken', { ...check, CkNameOnAccount: 'Ada\tL' })).code).toBe('Invalid_Argument');
    expect(await count('payment_tokens')).toBe(tokens);
    // Letters of any script, and emoji, are text like any other.
    expect(resultOf(await formPost(ctx, 'GetToken', { ...card, FirstName: 'Zoë 🙂', CcStreet: 'Straße 1' })).code).toBe('OK');
  });

  it('GetToken and GetCheckToken never look at CcNameOnCard and BankName (neither validated nor stored)', async () => {
    const card = { ClientSessionID: sid, CcAccountNum: '4111111111111111', CcExpDate: '1230', CcNameOnCard: 'A\u0000B' };
    expect(resultOf(await formPost(ctx, 'GetToken', card)).code).toBe('OK');
    expect(resultOf(await soap11(ctx, 'GetToken', card)).code).toBe('OK');
    const check = { ClientSessionID: sid, BankRoutingNum: '021000021', BankAccountNum: '123456789', BankAcctType: 'C', BankName: '\u0000' };
    expect(resultOf(await formPost(ctx, 'GetCheckToken', check)).code).toBe('OK');
  });

  it('GetCheckToken: Invalid_Argument naming the parameter, whichever alias carries it', async () => {
    const check = { ClientSessionID: sid, BankRoutingNum: '021000021', BankAccountNum: '123456789', BankAcctType: 'C' };
    expect(resultOf(await formPost(ctx, 'GetCheckToken', { ...check, CkNameOnAccount: 'A\u0000' }))).toEqual({
      code: 'Invalid_Argument',
      error: 'CkNameOnAccount must not contain a NUL character.',
    });
    const { BankRoutingNum: _, ...noRouting } = check;
    expect(resultOf(await formPost(ctx, 'GetCheckToken', { ...noRouting, CkTransitNum: '0210\u000000021' }))).toMatchObject({
      code: 'Invalid_Argument',
      error: expect.stringContaining('CkTransitNum must not contain a NUL character.'),
    });
  });

  it('a NUL in the User-Agent header (stored when UserAgent is not sent) is dropped, not stored', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: `${PATH}/GetClientSessionID`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'Agent\u0000/1.0' },
      payload: new URLSearchParams({ Username: user.Username, Password: user.Password }).toString(),
    });
    expect(resultOf(res).code).toBe('OK');
    const rows = await ctx.store.sql.query<{ user_agent: string }>("SELECT user_agent FROM gateway_sessions WHERE user_agent LIKE 'Agent%'");
    expect(rows.map((r) => r.user_agent)).toEqual(['Agent/1.0']);
  });
});

describe('an error inside an operation', () => {
  const card = () => ({ ClientSessionID: sid, CcAccountNum: '4111111111111111', CcExpDate: '1230' });

  it('over HTTP POST: HTTP 200 and the record Internal_Error, logged, nothing internal said', async () => {
    vi.spyOn(ctx.services.tokens, 'storeCard').mockRejectedValue(new Error('Failed query: insert into tokens ...\nparams: secret-params'));
    const logs = errorLogs().length;
    const res = await formPost(ctx, 'GetToken', card());
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/xml/);
    expect(resultOf(res)).toEqual({ code: 'Internal_Error', error: 'Server was unable to process request.' });
    expect(res.body).not.toContain('secret-params');
    expect(errorLogs().length).toBe(logs + 1);
  });

  it('over SOAP: a 500 Server fault (SOAP 1.1), as the gateway answers any unexpected error', async () => {
    vi.spyOn(ctx.services.gatewaySessions, 'resolve').mockRejectedValue(new Error('Failed query: select ... secret-params'));
    const res = await soap11(ctx, 'GetToken', card());
    expect(res.statusCode).toBe(500);
    expect(res.headers['content-type']).toMatch(/^text\/xml/);
    expect(res.body).toContain('<faultcode>soap:Server</faultcode><faultstring>Server was unable to process request.</faultstring>');
    expect(res.body).not.toContain('secret-params');
  });

  it('an unreachable database: says so and that the call can be repeated, with one warn line and no stack (HTTP POST and SOAP)', async () => {
    vi.spyOn(ctx.services.gatewaySessions, 'resolve').mockImplementation(async () => {
      throw unreachableDatabaseError();
    });
    const said = 'The service cannot reach its database. Try again shortly.';
    const before = ctx.logs.length;
    const form = await formPost(ctx, 'GetToken', card());
    expect(form.statusCode).toBe(200);
    expect(resultOf(form)).toEqual({ code: 'Internal_Error', error: said });
    const soap = await soap11(ctx, 'GetToken', card());
    expect(soap.statusCode).toBe(500);
    expect(soap.body).toContain(`<faultcode>soap:Server</faultcode><faultstring>${said}</faultstring>`);
    const lines = ctx.logs.slice(before);
    expect(lines.filter((l) => l.includes('database unavailable: gateway call not carried out'))).toHaveLength(2);
    expect(lines.join('')).not.toContain('"stack"');
    // Errors: at most the one line saying the outage began (this file's first refused call).
    expect(lines.filter((l) => l.includes('"level":50') && !l.includes('database unreachable: calls that need it'))).toHaveLength(0);
  });

  it('text the database cannot store (SQLSTATE 22021 or 22P05, behind a wrapper) is Invalid_Argument on both, and its parameters are not logged', async () => {
    const dbError = (code: string) => Object.assign(new Error('Failed query: insert ...\nparams: unstorable-params'), { cause: asReported(Object.assign(new Error('invalid byte sequence'), { code })) });
    const tokenize = vi.spyOn(ctx.services.tokens, 'storeCard');
    for (const code of ['22021', '22P05']) {
      tokenize.mockRejectedValueOnce(dbError(code)).mockRejectedValueOnce(dbError(code));
      const expected = { code: 'Invalid_Argument', error: 'A parameter holds a character that cannot be stored.' };
      const form = await formPost(ctx, 'GetToken', card());
      expect(form.statusCode).toBe(200);
      expect(resultOf(form)).toEqual(expected);
      const soap = await soap11(ctx, 'GetToken', card(), { SOAPAction: `${NS}/GetToken` });
      expect(soap.statusCode).toBe(200);
      expect(resultOf(soap)).toEqual(expected);
    }
    expect(ctx.logs.join('\n')).not.toContain('unstorable-params');
  });
});
