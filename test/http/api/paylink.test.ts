import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.ts';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import { expectDocumented } from '../../helpers/openapi.ts';
import { makePayment } from './refund-void-fixtures.ts';
import { type Body, CARD, createLink, linkBody, openPage, redirectQuery, submit } from '../paypage/paylink-helpers.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ config: { publicBaseUrl: 'https://pay.example.org' } });
});
afterAll(() => ctx.close());

const post = (body: Body, partner = ctx.nonProfit) => ctx.as(partner, { method: 'POST', url: '/api/paylink', payload: body });
const rules = (res: { json(): unknown }) => res.json() as { ErrorCode: number; Message: string; LoggerMessage: string }[];
const fieldsOf = (res: { json(): unknown }) => rules(res).map((r) => r.LoggerMessage.split(':')[0]);

describe('POST /api/paylink', () => {
  it('creates a link: 200 with a PayLinkUrl under PUBLIC_BASE_URL and an unguessable PayLinkId', async () => {
    const res = await post(linkBody(ctx.nonProfit));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ PayLinkUrl: expect.stringMatching(/^https:\/\/pay\.example\.org\/paylink\/[A-Za-z0-9_-]{24}$/) });
    await expectDocumented(ctx.app, 'POST', '/api/paylink', res);
    const id = res.json().PayLinkUrl.split('/').pop();
    expect((await openPage(ctx, id)).res.statusCode).toBe(200);
  });

  it('gives every link its own 144-bit id', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) ids.add((await createLink(ctx)).id);
    expect(ids.size).toBe(20);
    for (const id of ids) expect(Buffer.from(id, 'base64url')).toHaveLength(18);
  });

  it('defaults PUBLIC_BASE_URL to http://localhost:<PORT>', () => {
    expect(loadConfig({ PORT: '9123' }).publicBaseUrl).toBe('http://localhost:9123');
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://pay.example/base/' }).publicBaseUrl).toBe('https://pay.example/base');
    // Links are made from it: a value that is not an absolute http(s) URL stops the start (an operator audit found "notaurl" taken).
    for (const bad of ['notaurl', 'ftp://pay.example', 'https://pay.example/?a=1', '/relative', 'http://x.example/?', 'http:x.example', 'https://u:p@pay.example', 'https://pay.example/a b']) {
      expect(() => loadConfig({ PUBLIC_BASE_URL: bad }), bad).toThrow(ConfigError);
    }
  });

  it('holds PROVIDER_URL (the default PoweredByUrl) to the rules of PoweredByUrl', () => {
    expect(loadConfig({ PORT: '9123' }).providerUrl).toBe('http://localhost:9123');
    expect(loadConfig({ PROVIDER_URL: ' https://provider.example/about ' }).providerUrl).toBe('https://provider.example/about');
    // A fresh-machine audit saw javascript:alert(1) become every pay page's "Powered by" link.
    for (const bad of ['javascript:alert(1)', 'provider.example', 'https://provider.example/a"b', 'https://a;sandbox/']) {
      expect(() => loadConfig({ PROVIDER_URL: bad }), bad).toThrow(/^PROVIDER_URL must/);
    }
  });

  it('takes a LOG_LEVEL pino knows, and refuses others as a configuration error', () => {
    expect(loadConfig({ LOG_LEVEL: 'WARN' }).logLevel).toBe('warn');
    expect(() => loadConfig({ LOG_LEVEL: 'verbose' })).toThrow(ConfigError);
  });

  it('needs the AccessToken header', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/api/paylink', payload: linkBody(ctx.nonProfit) });
    expect(res.statusCode).toBe(401);
    await expectDocumented(ctx.app, 'POST', '/api/paylink', res);
  });

  it('refuses a wrong ApiKey with one BrokenRule 6000, whatever else is wrong', async () => {
    const res = await post(linkBody(ctx.nonProfit, { ApiKey: 'not-the-key', RedirectUrl: 'nope', Email: 'x' }));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual([{ ErrorCode: 6000, Message: "'ApiKey' is not the partner's pay-link API key.", LoggerMessage: 'ApiKey: rule 6000' }]);
    await expectDocumented(ctx.app, 'POST', '/api/paylink', res);
  });

  it('refuses a RedirectUrl or PoweredByUrl whose host a CSP source cannot name (it went into the page\'s header)', async () => {
    for (const url of ['https://a;sandbox;x.example/', 'https://*/', 'https://a,b.example/', 'https://x_y.example/']) {
      for (const field of ['RedirectUrl', 'PoweredByUrl']) {
        const res = await post(linkBody(ctx.nonProfit, { [field]: url }));
        expect(res.statusCode, `${field} ${url}`).toBe(400);
        expect(fieldsOf(res)).toEqual([field]);
      }
    }
    for (const url of ['https://xn--bcher-kva.example/done', 'https://bücher.example/done', 'http://127.0.0.1:8080/x', 'http://[::1]:8080/x', 'https://shop.example./x']) {
      expect((await post(linkBody(ctx.nonProfit, { RedirectUrl: url }))).statusCode, url).toBe(200);
    }
  });

  it("refuses another partner's ApiKey", async () => {
    const res = await post(linkBody(ctx.nonProfit, { ApiKey: ctx.forProfit.ApiKey }));
    expect(rules(res).map((r) => r.ErrorCode)).toEqual([6000]);
  });

  it('requires ApiKey and RedirectUrl', async () => {
    const res = await post({ PaymentLines: [{ Amount: '1.00', Type: 1 }] });
    expect(res.statusCode).toBe(400);
    expect(fieldsOf(res)).toEqual(expect.arrayContaining(['ApiKey', 'RedirectUrl']));
    expect(rules(res).every((r) => r.ErrorCode === 1001)).toBe(true);
  });

  it('binds field names case-insensitively', async () => {
    const res = await post({ apikey: ctx.nonProfit.ApiKey, redirecturl: 'https://x.example/back', paymentlines: [{ amount: '3.00', type: 1 }] });
    expect(res.statusCode, res.body).toBe(200);
  });

  it.each([
    ['RedirectUrl', 'https://x.example/' + 'a'.repeat(500), 500],
    ['IpAddress', '1'.repeat(41), 40],
    ['TranId', 't'.repeat(101), 100],
    ['TransactionIdText', 't'.repeat(101), 100],
    ['PoweredByText', 't'.repeat(101), 100],
    ['PoweredByUrl', 'https://x.example/' + 'a'.repeat(500), 500],
    ['DonateButtonText', 't'.repeat(101), 100],
    ['Language', 'e'.repeat(36), 35],
    ['DefaultCountryCode', 'USA', 2],
    ['Theme', 'a'.repeat(5001), 5000],
    ['FirstName', 'f'.repeat(51), 50],
    ['LastName', 'l'.repeat(51), 50],
    ['Email', `${'e'.repeat(95)}@x.org`, 100],
    ['Street', 's'.repeat(51), 50],
    ['City', 'c'.repeat(51), 50],
    ['State', 's'.repeat(51), 50],
    ['Zip', '12345-67890', 10],
    ['Country', 'USA', 2],
    ['Phone', '5'.repeat(21), 20],
    ['ExternalCardToken', '1'.repeat(201), 200],
    ['ExternalCheckToken', '1'.repeat(201), 200],
    ['ExternalEventId', 'e'.repeat(11), 10],
    ['ExternalEventName', 'e'.repeat(501), 500],
    ['ExternalConstituentId', 'c'.repeat(201), 200],
    ['ExternalCustomerId', 'c'.repeat(201), 200],
  ])('limits %s to its maximum length', async (field, value, max) => {
    const res = await post(linkBody(ctx.nonProfit, { [field]: value }));
    expect(res.statusCode).toBe(400);
    expect(rules(res)).toContainEqual({ ErrorCode: 1002, Message: `'${field}' must be at most ${max} characters.`, LoggerMessage: `${field}: rule 1002` });
  });

  it.each([
    ['RedirectUrl', '/relative/path'],
    ['RedirectUrl', 'javascript:alert(1)'],
    ['RedirectUrl', 'ftp://files.example/x'],
    ['PoweredByUrl', 'data:text/html,hi'],
    ['Email', 'not-an-email'],
    ['IpAddress', '999.1.1.1'],
    ['Country', 'U1'],
    ['DefaultCountryCode', '12'],
    ['ProcessorGuid', 'not-a-guid'],
    ['IntegrationSource', 'nope'],
    ['TokenGuid', 'not a token'],
    ['ExternalCardToken', 'abc'],
  ])('refuses a malformed %s (%s)', async (field, value) => {
    const res = await post(linkBody(ctx.nonProfit, { [field]: value }));
    expect(res.statusCode).toBe(400);
    expect(rules(res)).toContainEqual(expect.objectContaining({ ErrorCode: 1003, LoggerMessage: `${field}: rule 1003` }));
  });

  it.each(['555-123-4567', '(555) 123-4567', '555.123.4567', '5551234567', '+1 555 123 4567', '+1-555-123-4567', '02 9876 5432', '0412 345 678', '+61 2 9876 5432', '+61 412 345 678'])(
    'accepts the phone form %s',
    async (phone) => {
      expect((await post(linkBody(ctx.nonProfit, { Phone: phone }))).statusCode).toBe(200);
    },
  );

  it.each(['12345', 'call me', '555-1234-567', '+44 20 7946 0958'])('refuses the phone %s', async (phone) => {
    const res = await post(linkBody(ctx.nonProfit, { Phone: phone }));
    expect(rules(res)).toContainEqual(expect.objectContaining({ ErrorCode: 1003, LoggerMessage: 'Phone: rule 1003' }));
  });

  it('checks Zip by Country, else by DefaultCountryCode, else any of US, CA and AU', async () => {
    expect((await post(linkBody(ctx.nonProfit, { Zip: 'K1A 0B1', Country: 'CA' }))).statusCode).toBe(200);
    expect((await post(linkBody(ctx.nonProfit, { Zip: 'K1A 0B1', DefaultCountryCode: 'CA' }))).statusCode).toBe(200);
    expect((await post(linkBody(ctx.nonProfit, { Zip: '2000' }))).statusCode).toBe(200);
    expect(fieldsOf(await post(linkBody(ctx.nonProfit, { Zip: '12345', Country: 'CA' })))).toEqual(['Zip']);
    expect(fieldsOf(await post(linkBody(ctx.nonProfit, { Zip: '2000', DefaultCountryCode: 'US' })))).toEqual(['Zip']);
  });

  it('needs at least one line for a payment link, and checks each line', async () => {
    expect(rules(await post(linkBody(ctx.nonProfit, { PaymentLines: [] })))).toEqual([expect.objectContaining({ ErrorCode: 1001, LoggerMessage: 'PaymentLines: rule 1001' })]);
    const res = await post(
      linkBody(ctx.nonProfit, {
        PaymentLines: [
          { Amount: '0', Type: 1 },
          { Amount: '1.005', Type: 13 },
          { Amount: 'abc', Type: 0, Recurring: 10 },
          { Amount: '5.00', Type: 1, ExternalLineId: 'x'.repeat(201) },
        ],
      }),
    );
    expect(res.statusCode).toBe(400);
    expect(rules(res).map((r) => [r.LoggerMessage, r.ErrorCode])).toEqual(
      expect.arrayContaining([
        ['PaymentLines[0].Amount: rule 1005', 1005],
        ['PaymentLines[1].Amount: rule 1003', 1003],
        ['PaymentLines[1].Type: rule 1006', 1006],
        ['PaymentLines[2].Amount: rule 1003', 1003],
        ['PaymentLines[2].Type: rule 1006', 1006],
        ['PaymentLines[2].Recurring: rule 1006', 1006],
        ['PaymentLines[3].ExternalLineId: rule 1002', 1002],
      ]),
    );
  });

  it('accepts Recurring 0-9 (9 is Semi-Monthly) on a single line', async () => {
    for (const recurring of [0, 1, 4, 8, 9]) {
      expect((await post(linkBody(ctx.nonProfit, { PaymentLines: [{ Amount: '10.00', Type: 1, Recurring: recurring }] }))).statusCode).toBe(200);
    }
  });

  it('refuses a recurring line that is not the only line (6001)', async () => {
    const res = await post(linkBody(ctx.nonProfit, { PaymentLines: [{ Amount: '10.00', Type: 1, Recurring: 4 }, { Amount: '5.00', Type: 1 }] }));
    expect(rules(res)).toEqual([expect.objectContaining({ ErrorCode: 6001, LoggerMessage: 'PaymentLines: rule 6001' })]);
  });

  it('applies the fee rules of the partner to the lines', async () => {
    const forProfit = await post(linkBody(ctx.forProfit, { PaymentLines: [{ Amount: '10.00', Type: 1 }] }), ctx.forProfit);
    expect(rules(forProfit)).toEqual([expect.objectContaining({ ErrorCode: 2000, LoggerMessage: 'PaymentLines[0].Type: rule 2000' })]);
    const noSchedule = await post(linkBody(ctx.nonProfit, { PaymentLines: [{ Amount: '10.00', Type: 11 }] }));
    expect(rules(noSchedule)).toEqual([expect.objectContaining({ ErrorCode: 3006, LoggerMessage: 'PaymentLines: rule 3006' })]);
  });

  it('requires ProcessorGuid for a for-profit partner, and a processor of the partner', async () => {
    const missing = await post(linkBody(ctx.forProfit, { ProcessorGuid: undefined }), ctx.forProfit);
    expect(rules(missing)).toEqual([expect.objectContaining({ ErrorCode: 3003 })]);
    const other = await post(linkBody(ctx.forProfit, { ProcessorGuid: ctx.nonProfit.processorId }), ctx.forProfit);
    expect(rules(other)).toEqual([expect.objectContaining({ ErrorCode: 3004, LoggerMessage: 'ProcessorGuid: rule 3004' })]);
    expect((await post(linkBody(ctx.forProfit), ctx.forProfit)).statusCode).toBe(200);
  });

  it('takes WorkflowType 1 (or 0, or none), 3 and 4, nothing else', async () => {
    for (const workflow of [0, 1]) expect((await post(linkBody(ctx.nonProfit, { WorkflowType: workflow }))).statusCode).toBe(200);
    const two = await post(linkBody(ctx.nonProfit, { WorkflowType: 2 }));
    expect(rules(two)).toEqual([expect.objectContaining({ ErrorCode: 1006, LoggerMessage: 'WorkflowType: rule 1006' })]);
  });

  it('needs ExternalConstituentId and no lines for WorkflowType 3 and 4', async () => {
    for (const workflow of [3, 4]) {
      const res = await post(linkBody(ctx.nonProfit, { WorkflowType: workflow }));
      expect(rules(res).map((r) => r.ErrorCode).sort()).toEqual([6002, 6003]);
      const ok = await post(linkBody(ctx.nonProfit, { WorkflowType: workflow, PaymentLines: [], ExternalConstituentId: 'donor-1' }));
      expect(ok.statusCode).toBe(200);
    }
  });

  it('checks the stored card and bank account a link offers', async () => {
    const card = await ctx.services.tokens.tokenizeCard(ctx.nonProfit.ClientId, { cardNumber: '4242424242424242', expMonth: '12', expYear: '30', source: 'api' });
    const bank = await ctx.services.tokens.tokenizeBankAccount(ctx.nonProfit.ClientId, { routingNumber: '110000000', accountNumber: '000123456789', accountType: 1, source: 'api' });
    expect((await post(linkBody(ctx.nonProfit, { TokenGuid: card.id }))).statusCode).toBe(200);
    expect((await post(linkBody(ctx.nonProfit, { ExternalCardToken: card.gatewayKey, ExternalCheckToken: bank.gatewayKey }))).statusCode).toBe(200);
    const both = await post(linkBody(ctx.nonProfit, { TokenGuid: card.id, ExternalCardToken: card.gatewayKey }));
    expect(rules(both)).toEqual([expect.objectContaining({ ErrorCode: 6004, LoggerMessage: 'ExternalCardToken: rule 6004' })]);
    const swapped = await post(linkBody(ctx.nonProfit, { ExternalCardToken: bank.gatewayKey, ExternalCheckToken: card.gatewayKey }));
    expect(rules(swapped).map((r) => [r.LoggerMessage, r.ErrorCode])).toEqual([
      ['ExternalCardToken: rule 6005', 6005],
      ['ExternalCheckToken: rule 6005', 6005],
    ]);
    const unknown = await post(linkBody(ctx.nonProfit, { TokenGuid: '3f2504e0-4f89-41d3-9a0c-0305e82c3301' }));
    expect(rules(unknown)).toEqual([expect.objectContaining({ ErrorCode: 3004, LoggerMessage: 'TokenGuid: rule 3004' })]);
    const otherPartners = await post(linkBody(ctx.forProfit, { TokenGuid: card.id }), ctx.forProfit);
    expect(rules(otherPartners)).toEqual([expect.objectContaining({ ErrorCode: 3004 })]);
  });

  it('checks ThemeFonts: local family names with optional weights, at most 50', async () => {
    expect((await post(linkBody(ctx.nonProfit, { ThemeFonts: ['Open Sans:400,700', 'Georgia'] }))).statusCode).toBe(200);
    const bad = await post(linkBody(ctx.nonProfit, { ThemeFonts: ['Open Sans', 'https://fonts.example/x.woff2', 'Lato:450'] }));
    expect(fieldsOf(bad)).toEqual(['ThemeFonts[1]', 'ThemeFonts[2]']);
    const many = await post(linkBody(ctx.nonProfit, { ThemeFonts: Array.from({ length: 51 }, () => 'Arial') }));
    expect(rules(many)).toEqual([expect.objectContaining({ ErrorCode: 1005, LoggerMessage: 'ThemeFonts: rule 1005' })]);
  });

  it('refuses a TranId a payment of the integration source already holds (6006): the link could never be paid; then closes a link whose TranId is taken later', async () => {
    const tranId = `link-${crypto.randomUUID()}`;
    const paid = await makePayment(ctx, { body: { TranId: tranId } });
    expect(paid.Successful).toBe(true);
    const res = await post(linkBody(ctx.nonProfit, { TranId: tranId }));
    expect(res.statusCode).toBe(400);
    expect(rules(res)).toEqual([expect.objectContaining({ ErrorCode: 6006, LoggerMessage: 'TranId: rule 6006', Message: expect.stringContaining(paid.PaymentGuid) })]);
    await expectDocumented(ctx.app, 'POST', '/api/paylink', res);
    // A declined TranId is free again (as for payments), and so is a new one.
    const declined = `link-${crypto.randomUUID()}`;
    expect((await makePayment(ctx, { body: { TranId: declined, CardNum: '4000000000000002' } })).Successful).toBe(false);
    expect((await post(linkBody(ctx.nonProfit, { TranId: declined }))).statusCode).toBe(200);

    // Taken after the link was made: the page says so, without asking the payer to try again, and charges nothing.
    const later = `link-${crypto.randomUUID()}`;
    const { id } = await createLink(ctx, ctx.nonProfit, { TranId: later });
    expect((await makePayment(ctx, { body: { TranId: later } })).Successful).toBe(true);
    const page = await submit(ctx, id, CARD);
    expect(page.statusCode).toBe(409);
    expect(page.body).toContain('its reference has already been used for another payment. Nothing was charged.');
    expect(page.body).not.toContain('try again');
    const charged = await ctx.store.sql.query('SELECT 1 FROM payments WHERE pay_link_id = $1 AND payment_result <> 4', [id]);
    expect(charged).toHaveLength(0);
  });

  it('reports every broken field at once', async () => {
    const res = await post(linkBody(ctx.nonProfit, { RedirectUrl: 'x', Email: 'y', Phone: 'z', Language: 'e'.repeat(40), PaymentLines: [{ Amount: '-1', Type: 1 }] }));
    expect(fieldsOf(res).sort()).toEqual(['Email', 'Language', 'PaymentLines[0].Amount', 'Phone', 'RedirectUrl']);
    await expectDocumented(ctx.app, 'POST', '/api/paylink', res);
  });
});

describe('DELETE /api/paylink', () => {
  const cancel = (id: string, partner = ctx.nonProfit) => ctx.as(partner, { method: 'DELETE', url: `/api/paylink?PayLinkId=${encodeURIComponent(id)}` });

  it('cancels the link and returns its PayLinkUrl; the page then answers 410', async () => {
    const { id, url } = await createLink(ctx);
    const res = await cancel(id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ PayLinkUrl: url });
    await expectDocumented(ctx.app, 'DELETE', '/api/paylink', res);
    const page = await openPage(ctx, id);
    expect(page.res.statusCode).toBe(410);
    expect(page.html).toContain('This payment link is no longer available.');
    // DELETE is idempotent.
    expect((await cancel(id)).json()).toEqual({ PayLinkUrl: url });
  });

  it("answers 404 for an unknown id and for another partner's link, which stays usable", async () => {
    const unknown = await cancel('AAAAAAAAAAAAAAAAAAAAAAAA');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ status: 404, title: 'Not Found' });
    await expectDocumented(ctx.app, 'DELETE', '/api/paylink', unknown);
    expect((await cancel('../../etc/passwd')).statusCode).toBe(404);
    const { id } = await createLink(ctx);
    expect((await cancel(id, ctx.forProfit)).statusCode).toBe(404);
    expect((await openPage(ctx, id)).res.statusCode).toBe(200);
  });

  it('ignores an empty body sent with a JSON Content-Type (clients that send the header on every call)', async () => {
    const { id, url } = await createLink(ctx);
    for (const type of ['application/json-patch+json', 'application/json']) {
      const res = await ctx.as(ctx.nonProfit, { method: 'DELETE', url: `/api/paylink?PayLinkId=${id}`, headers: { 'content-type': type }, payload: '' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ PayLinkUrl: url });
    }
    expect((await openPage(ctx, id)).res.statusCode).toBe(410);
    // A call that takes a body still needs one.
    const empty = await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/paylink', headers: { 'content-type': 'application/json' }, payload: '' });
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toEqual([expect.objectContaining({ ErrorCode: 1000, Message: 'The request body is empty.' })]);
  });

  it('binds the query name case-insensitively and requires it', async () => {
    const { id } = await createLink(ctx);
    expect((await ctx.as(ctx.nonProfit, { method: 'DELETE', url: `/api/paylink?paylinkid=${id}` })).statusCode).toBe(200);
    const missing = await ctx.as(ctx.nonProfit, { method: 'DELETE', url: '/api/paylink' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual([expect.objectContaining({ ErrorCode: 1001, LoggerMessage: 'PayLinkId: rule 1001' })]);
  });
});

describe('GET /api/paylinkResult', () => {
  const result = (token: string, partner = ctx.nonProfit) =>
    ctx.as(partner, { method: 'GET', url: `/api/paylinkResult?ResponseToken=${encodeURIComponent(token)}` });

  it('returns the payment response once, for the link partner only, and 404 after', async () => {
    const { id } = await createLink(ctx, ctx.nonProfit, { TranId: `inv-${Date.now()}` });
    const query = redirectQuery(await submit(ctx, id, CARD));
    const token = query.get('responseToken')!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const stranger = await result(token, ctx.forProfit);
    expect(stranger.statusCode).toBe(404);

    const first = await result(token);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ Successful: true, PaymentGuid: query.get('PaymentGuid'), TranId: query.get('TranId'), TotalAmount: 25, CardNum: '4242' });
    // No recurring line, no profile.
    expect(first.json().RecurringProfileGuid).toBeNull();
    await expectDocumented(ctx.app, 'GET', '/api/paylinkResult', first);

    const second = await result(token);
    expect(second.statusCode).toBe(404);
    await expectDocumented(ctx.app, 'GET', '/api/paylinkResult', second);
  });

  it('expires a responseToken after 30 minutes', async () => {
    const { id } = await createLink(ctx);
    const token = redirectQuery(await submit(ctx, id, CARD)).get('responseToken')!;
    ctx.clock.advance(30 * 60_000);
    expect((await result(token)).statusCode).toBe(404);
  });

  it('is still good just before 30 minutes', async () => {
    const { id } = await createLink(ctx);
    const token = redirectQuery(await submit(ctx, id, CARD)).get('responseToken')!;
    ctx.clock.advance(30 * 60_000 - 1000);
    expect((await result(token)).statusCode).toBe(200);
  });

  it('binds the query name case-insensitively', async () => {
    const { id } = await createLink(ctx);
    const token = redirectQuery(await submit(ctx, id, CARD)).get('responseToken')!;
    expect((await ctx.as(ctx.nonProfit, { method: 'GET', url: `/api/paylinkresult?responsetoken=${token}` })).statusCode).toBe(200);
  });

  it('answers 404 for an unknown token and 400 without one', async () => {
    expect((await result('nope')).statusCode).toBe(404);
    const missing = await ctx.as(ctx.nonProfit, { method: 'GET', url: '/api/paylinkResult' });
    expect(missing.statusCode).toBe(400);
  });

  it('needs the AccessToken header', async () => {
    expect((await ctx.app.inject({ method: 'GET', url: '/api/paylinkResult?ResponseToken=x' })).statusCode).toBe(401);
  });

  it('prunes responseTokens a day after they expired, and only those', async () => {
    const { id } = await createLink(ctx);
    redirectQuery(await submit(ctx, id, CARD));
    const count = async () => Number((await ctx.store.sql.query<{ n: string }>('SELECT count(*) AS n FROM pay_link_results WHERE pay_link_id = $1', [id]))[0]!.n);
    expect(await count()).toBe(1);
    await ctx.services.payLinkResults.prune();
    expect(await count()).toBe(1);
    ctx.clock.advance(30 * 60_000 + 24 * 3600_000 + 1000);
    await ctx.services.payLinkResults.prune();
    expect(await count()).toBe(0);
  });

  it('keeps the responseToken out of the logs', async () => {
    const { id } = await createLink(ctx);
    const token = redirectQuery(await submit(ctx, id, CARD)).get('responseToken')!;
    await result(token);
    expect(ctx.logs.join('\n')).not.toContain(token);
  });
});
