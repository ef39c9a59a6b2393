import { type AddressInfo, connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestContext, createTestContext } from '../../helpers/context.ts';

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

/** A raw connection to an app listening on a real port: bytes go out as written; what came back, once closed. */
async function rawConnection(app = ctx.app) {
  await app.listen({ port: 0, host: '127.0.0.1' }).catch(() => {});
  const { port } = app.server.address() as AddressInfo;
  const socket = connect(port, '127.0.0.1');
  let data = '';
  socket.on('data', (d) => (data += d));
  const closed = new Promise((resolve) => socket.on('close', resolve));
  return { write: (bytes: string) => socket.write(bytes), closed, data: () => data };
}

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

describe('a lone surrogate (valid JSON, not valid Unicode text)', () => {
  // The database would store U+FFFD instead: the answer, the record and a later duplicate check
  // of the TranId would disagree.
  it.each([
    ['FirstName', { FirstName: 'Ada\ud800' }],
    ['TranId', { TranId: 'order-\udc00-1' }],
    ['Transactions[0].ExternalLineId', { Transactions: [{ TransactionSourceGroupId: '1', Amount: '1', ExternalLineId: '\ud83d' }] }],
    ['GwShieldAdditional', { GwShieldAdditional: { ['\udfff']: 'x' } }],
  ])('in %s is refused by name, before anything is recorded', async (field, overrides) => {
    const before = await count();
    const res = await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload: card(overrides) });
    expect(expectBrokenRules(res)).toEqual([expect.objectContaining({ ErrorCode: 1003, Message: `'${field}' must be valid Unicode text (it holds a lone surrogate, such as \\ud800).` })]);
    expect(await count()).toBe(before);
  });
  it('while a well-formed pair (an emoji) is taken and answered as sent', async () => {
    const res = await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload: card({ FirstName: 'Ada \ud83d\ude00' }) });
    expect(res.statusCode).toBe(201);
    expect(res.json().FirstName).toBe('Ada \u{1F600}');
  });
});

describe('values of the wrong JSON type', () => {
  it.each([
    [{ ShippingFee: {} }, 'ShippingFee'],
    [{ Transactions: { a: 1 } }, 'Transactions'],
    // Not a one-item array: the validator's "coerce to array" is for query strings.
    [{ Transactions: 'x' }, 'Transactions'],
    [{ Transactions: 5 }, 'Transactions'],
    [{ Transactions: [null] }, 'Transactions[0]'],
    [{ Transactions: [{}] }, 'Transactions[0].TransactionSourceGroupId'],
    [{ Transactions: [{ TransactionSourceGroupId: '1', Amount: {} }] }, 'Transactions[0].Amount'],
    [{ CardNum: {} }, 'CardNum'],
    [{ Email: ['a@b.co', 'x'] }, 'Email'],
    [{ GwShieldAdditional: 'x' }, 'GwShieldAdditional'],
  ])('card payment %j: 400 naming %s', async (overrides, field) => {
    const rules = expectBrokenRules(await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload: card(overrides) }));
    expect(rules.some((r) => r.Message.startsWith(`'${field}'`)), JSON.stringify(rules)).toBe(true);
    if (field === 'Transactions') expect(rules.find((r) => r.Message.startsWith("'Transactions'"))!.Message).toBe("'Transactions' must be an array.");
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

describe('JSON types are bound strictly, as System.Text.Json binds them (a robustness audit)', () => {
  const fields = (res: { statusCode: number; json(): unknown }) => expectBrokenRules(res).map((r) => [r.ErrorCode, r.Message.split("'")[1]]);

  it.each([
    // A one-item array is not its item; a boolean is not text, nor a number; a number is not a boolean.
    [{ CardNum: ['4242424242424242'] }, 'CardNum'],
    [{ TranId: ['t-1'] }, 'TranId'],
    [{ FirstName: false }, 'FirstName'],
    [{ Transactions: [{ TransactionSourceGroupId: '1', Amount: ['10.00'] }] }, 'Transactions[0].Amount'],
    [{ Transactions: [{ TransactionSourceGroupId: '1', Amount: '10.00', PayFee: 1 }] }, 'Transactions[0].PayFee'],
    [{ Tokenize: 0 }, 'Tokenize'],
  ])('card payment %j: 1004 naming %s, nothing recorded', async (overrides, field) => {
    const before = await count();
    expect(fields(await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload: card(overrides) }))).toContainEqual([1004, field]);
    expect(await count()).toBe(before);
  });

  it('refuses `"Recurring": true` on a pay-link line, which the coercion took as 1, a daily donation', async () => {
    const link = (line: Record<string, unknown>) =>
      ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/paylink', payload: { ApiKey: ctx.nonProfit.ApiKey, RedirectUrl: 'https://example.org/thanks', PaymentLines: [{ Amount: '25.00', Type: 1, ...line }] } });
    expect(fields(await link({ Recurring: true }))).toEqual([[1004, 'PaymentLines[0].Recurring']]);
    for (const type of [true, ' 1.00 ', '+1', '0x1', '1e0']) expect(fields(await link({ Type: type })), String(type)).toEqual([[1004, 'PaymentLines[0].Type']]);
    // What ASP.NET Core reads: a number, or a number written as plain digits; and text as a number.
    for (const ok of [{ Recurring: 4 }, { Recurring: '4' }, { Type: '1' }, { Amount: 25 }]) expect((await link(ok)).statusCode, JSON.stringify(ok)).toBe(200);
  });

  it('holds integer query parameters to plain digits', async () => {
    for (const size of ['0x10', '1e1', '+3', '2.0', ' 5']) {
      const res = await ctx.app.inject({ method: 'GET', url: `/api/CharitySearch?Name=red&PageSize=${encodeURIComponent(size)}` });
      expect(fields(res), size).toEqual([[1004, 'PageSize']]);
    }
  });
});

describe('a body that is not UTF-8 text', () => {
  it('is refused (1000), not stored with U+FFFD, where two TranIds became one (a robustness audit)', async () => {
    const before = await count();
    for (const type of ['application/json', 'application/json; charset=iso-8859-1']) {
      const latin1 = Buffer.from(JSON.stringify(card({ FirstName: 'José', TranId: 'inv-é' })), 'latin1');
      const res = await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload: latin1, headers: { 'content-type': type } });
      expect(expectBrokenRules(res)).toEqual([{ ErrorCode: 1000, Message: 'The request body is not UTF-8 text (JSON is read as UTF-8 only).', LoggerMessage: 'body: rule 1000' }]);
    }
    expect(await count()).toBe(before);
    // The same text in UTF-8 is taken as sent.
    const utf8 = await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload: Buffer.from(JSON.stringify(card({ FirstName: 'José' })), 'utf8'), headers: { 'content-type': 'application/json' } });
    expect([utf8.statusCode, utf8.json().FirstName]).toEqual([201, 'José']);
  });
});

describe('a query parameter given more than once', () => {
  it.each([
    ['Amount=1.00&Amount=2.00&TransactionSourceGroupId=1'],
    ['amount=1.00&AMOUNT=2.00&TransactionSourceGroupId=1'],
  ])('%s: 400 naming it, whatever its spelling', async (query) => {
    const res = await ctx.as(ctx.nonProfit, { method: 'GET', url: `/api/fee?${query}` });
    expect(expectBrokenRules(res)).toEqual([{ ErrorCode: 1004, Message: "'Amount' is given more than once.", LoggerMessage: 'Amount: rule 1004' }]);
  });
});

describe('an array longer than any the API takes (an audit of costly inputs)', () => {
  it('is refused before its items are read: 340,000 empty lines (1 MiB) ran the process out of memory', async () => {
    const huge = `[${Array(340_000).fill('{}').join(',')}]`;
    const before = await count();
    for (const [url, json] of [
      ['/api/payment', `{"CardNum":"4242424242424242","ExpMonth":"12","ExpYear":"30","Transactions":${huge}}`],
      ['/api/fees', `{"Transactions":${huge}}`],
      ['/api/paylink', `{"Email":"ada@example.org","paymentlines":${huge}}`],
      ['/api/fees', `{"Transactions":[{"TransactionSourceGroupId":"1","Amount":"1","Extra":[${Array(101).fill('1').join(',')}]}]}`],
    ] as const) {
      const res = await ctx.as(ctx.nonProfit, { method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: json });
      const rules = expectBrokenRules(res);
      expect(rules, url).toHaveLength(1);
      expect(rules[0], url).toMatchObject({ ErrorCode: 1005, Message: expect.stringMatching(/may have at most 100 items\.$/) });
    }
    expect((await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/fees', payload: { Transactions: Array(300_000).fill({}) } })).json()[0].Message).toBe(
      "'Transactions' may have at most 100 items.",
    );
    expect(await count()).toBe(before);
    // At the limit the lines are read and checked one by one, as before.
    const hundred = await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/fees', payload: { Transactions: Array(100).fill({ TransactionSourceGroupId: '1', Amount: '1' }) } });
    expect(hundred.statusCode).toBe(200);
  });
});

describe('a body with a prototype key', () => {
  it('is refused with a message that says why (it is valid JSON)', async () => {
    const before = await count();
    const payload = JSON.stringify(card()).replace('{', '{"__proto__":{"x":1},');
    const res = await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload, headers: { 'content-type': 'application/json' } });
    expect(expectBrokenRules(res)).toEqual([{ ErrorCode: 1000, Message: expect.stringMatching(/'__proto__'.*refused/), LoggerMessage: 'body: rule 1000' }]);
    expect(await count()).toBe(before);
  });
});

describe('URLs the router cannot read', () => {
  it('answer with a BrokenRule that does not echo the URL', async () => {
    // `/api/../%` arrives as `/%` from a client that resolves dots (a fuzz finding: it was a
    // text/plain 400 outside /api).
    for (const url of ['/api/%', '/api/fee%ff', '/api/../%', '/%', '/docs/%ff']) {
      const res = await ctx.app.inject({ method: 'GET', url });
      expect(expectBrokenRules(res)).toEqual([{ ErrorCode: 1000, Message: 'The request URL is not valid.', LoggerMessage: 'rule 1000' }]);
    }
  });

  it("on the gateway: plain text, as the gateway's other transport refusals (its clients read no BrokenRule)", async () => {
    for (const url of ['/admin/ws/recurring.asmx/%', '/admin/ws/recurring.asmx/%zz']) {
      const res = await ctx.app.inject({ method: 'POST', url });
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(res.body).toBe('The request URL is not valid.');
    }
  });
});

describe('the database backstop', () => {
  it('recognises PostgreSQL data exceptions wherever the driver nests them', async () => {
    const { translateDatabaseError } = await import('../../../src/platform/database/errors.ts');
    const { InvalidStoredValueError, findError } = await import('../../../src/platform/errors.ts');
    const isInvalidDatabaseInput = (e: unknown) => findError(translateDatabaseError(e), InvalidStoredValueError) !== undefined;
    expect(isInvalidDatabaseInput(Object.assign(new Error('Failed query'), { cause: { code: '22P02' } }))).toBe(true);
    expect(isInvalidDatabaseInput({ code: '22021' })).toBe(true);
    // A date or time the database cannot read (a year written +010000, a time zone out of range).
    expect(isInvalidDatabaseInput({ code: '22009' })).toBe(true);
    expect(isInvalidDatabaseInput({ code: '23505' })).toBe(false);
    expect(isInvalidDatabaseInput(new Error('plain'))).toBe(false);
  });
});

describe("requests Node's HTTP parser refuses", () => {
  /** Sends raw bytes to the app listening on a real port, and reads the answer to the close. */
  async function raw(bytes: string): Promise<{ head: string; body: string }> {
    const connection = await rawConnection();
    connection.write(bytes);
    await connection.closed;
    const [head, body] = connection.data().split('\r\n\r\n');
    return { head: head!, body: body! };
  }

  it.each([
    ['a URL beyond the header limit', `GET /api/CharitySearch?Name=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431],
    ['bytes that are not HTTP', 'HELLO\r\n\r\n', 400],
  ])('%s: problem details', async (_name, bytes, status) => {
    const { head, body } = await raw(bytes);
    expect(head.split('\r\n')[0]).toBe(`HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}`);
    expect(head).toMatch(/\r\nContent-Type: application\/problem\+json; charset=utf-8\r\n/);
    expect(JSON.parse(body)).toMatchObject({ status, title: expect.any(String), detail: expect.any(String), traceId: expect.any(String) });
    // The refused URL is not echoed.
    expect(body).not.toContain('aaaa');
  });

  it('behind a payment on the same connection: the payment gets its own answer, then the connection closes', async () => {
    const token = await ctx.token(ctx.nonProfit);
    const tranId = `pipelined-${Date.now()}`;
    const body = JSON.stringify(card({ TranId: tranId, CVNum: '123' }));
    const payment = `POST /api/payment HTTP/1.1\r\nHost: x\r\nAccessToken: ${token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    // Two Content-Lengths: Node's parser refuses the second request while the first is at work.
    const { head, body: answer } = await raw(`${payment}GET /readyz HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n`);
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 201 Created');
    expect(JSON.parse(answer)).toMatchObject({ Successful: true, TranId: tranId });
  });
});

describe('a transfer coding other than chunked', () => {
  it('is refused with 501, never read as if plain', async () => {
    const connection = await rawConnection();
    connection.write('POST /api/ClientSession HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3\r\n\x1f\x8b\x08\r\n0\r\n\r\n');
    await connection.closed;
    const [head, body] = connection.data().split('\r\n\r\n');
    expect(head!.split('\r\n')[0]).toBe('HTTP/1.1 501 Not Implemented');
    expect(JSON.parse(body!)).toMatchObject({ status: 501, detail: 'No transfer coding but chunked is supported.' });
  });
});

describe('an answer given before the request body was read', () => {
  it('closes its connection: the rest of the body is never answered again', async () => {
    const connection = await rawConnection();
    // A bad token is refused from the headers; 10 of the 100 bytes announced are sent, then nothing.
    connection.write('POST /api/payment HTTP/1.1\r\nHost: x\r\nAccessToken: nope\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"CardNum"');
    const started = Date.now();
    await connection.closed;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(connection.data().split('\r\n')[0]).toBe('HTTP/1.1 401 Unauthorized');
    expect(connection.data()).toMatch(/\r\nConnection: close\r\n/i);
    expect(connection.data().match(/HTTP\/1\.1 /g)).toHaveLength(1);
  });
});

describe('a request body that never finishes (a robustness audit)', () => {
  it('is answered 408 after REQUEST_TIMEOUT and its connection closed, not held open', async () => {
    const slow = await createTestContext({ config: { requestTimeoutMs: 1000 } });
    try {
      const connection = await rawConnection(slow.app);
      // Headers complete, then 10 of the 1,000 bytes announced, and nothing more.
      connection.write('POST /api/ClientSession HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"Client');
      const started = Date.now();
      await connection.closed;
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(connection.data().split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
    } finally {
      await slow.close();
    }
  }, 30_000);
});

describe('a body with a Content-Encoding (a robustness audit)', () => {
  it('is refused with 415, never read as if plain (a gzip body was a "not valid JSON" 400, a plain one a payment)', async () => {
    const before = await count();
    for (const coding of ['gzip', 'identity, br', 'GZIP']) {
      const res = await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload: card(), headers: { 'content-encoding': coding } });
      expect(res.statusCode, coding).toBe(415);
      expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(res.json().detail).toBe('No Content-Encoding is supported: send the body uncompressed.');
    }
    expect(await count()).toBe(before);
    const gateway = await ctx.app.inject({ method: 'POST', url: '/admin/ws/recurring.asmx/GetToken', headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'gzip' }, payload: 'a=b' });
    expect([gateway.statusCode, gateway.headers['content-type']]).toEqual([415, 'text/plain; charset=utf-8']);
    // identity is no coding at all.
    expect((await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload: card(), headers: { 'content-encoding': 'identity' } })).statusCode).toBe(201);
  });

  it('is not looked for in a request without a body (a GET: its operations document no 415)', async () => {
    const res = await ctx.as(ctx.nonProfit, { method: 'GET', url: '/api/CharitySearch?Name=red', headers: { 'content-encoding': 'br' } });
    expect(res.statusCode).not.toBe(415);
    expect(res.statusCode).toBeLessThan(500);
    const empty = await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/notificationSecret', headers: { 'content-encoding': 'gzip', 'content-length': '0' } });
    expect(empty.statusCode).not.toBe(415);
  });
});
