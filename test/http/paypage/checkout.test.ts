import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import { expectDocumented } from '../../helpers/openapi.ts';
import { ACH, CARD, createLink, csrfOf, encodeForm, openPage, paymentCount, redirectQuery, submit, titleOf } from './paylink-helpers.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ config: { payLinkSubmitLimitPerLink: 1000, payLinkSubmitLimitPerIp: 1000 } });
});
afterAll(() => ctx.close());

const result = async (token: string, partner = ctx.nonProfit) =>
  ctx.as(partner, { method: 'GET', url: `/api/paylinkResult?ResponseToken=${encodeURIComponent(token)}` });
let seq = 0;
const tranId = () => `page-${Date.now()}-${++seq}`;

describe('paying a link by card', () => {
  it('pays, redirects 303 with responseToken and hints, and the page then shows a receipt', async () => {
    const tran = tranId();
    const { id } = await createLink(ctx, ctx.nonProfit, { TranId: tran, PaymentLines: [{ Amount: '40.00', Type: 1, ExternalLineId: 'gift' }] });
    const before = await paymentCount(ctx);
    const res = await submit(ctx, id, { ...CARD, FirstName: 'Ada', LastName: 'Lovelace', Phone: '555-123-4567' });
    const query = redirectQuery(res);
    expect(query.get('order')).toBe('42');
    expect(query.get('Successful')).toBe('true');
    expect(query.get('TranId')).toBe(tran);
    expect(query.get('PaymentGuid')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await paymentCount(ctx)).toBe(before + 1);

    const confirmed = (await result(query.get('responseToken')!)).json();
    expect(confirmed).toMatchObject({
      Successful: true,
      PaymentGuid: query.get('PaymentGuid'),
      TotalAmount: 40,
      CardNum: '4242',
      CardType: 'Visa',
      EmailAddress: 'ada@example.org',
      FirstName: 'Ada',
      TranId: tran,
      Currency: 'USD',
      TransactionFees: [expect.objectContaining({ TransactionSourceGroupId: '1' })],
    });

    const receipt = await openPage(ctx, id);
    expect(receipt.res.statusCode).toBe(200);
    expect(receipt.html).toContain('Your payment of $40.00 was received.');
    expect(receipt.html).toContain('Visa ending in 4242');
    // It says whom the payer paid (a receipt kept for taxes or a dispute).
    expect(receipt.html).toContain(`<dt>Paid to</dt><dd>${ctx.nonProfit.name}</dd>`);
    expect(receipt.html).not.toContain('name="CardNum"');
  });

  it('takes one successful payment per link: a second submission pays nothing', async () => {
    const { id } = await createLink(ctx);
    const csrf = csrfOf((await openPage(ctx, id)).html);
    redirectQuery(await submit(ctx, id, CARD, { csrf }));
    const count = await paymentCount(ctx);
    const again = await submit(ctx, id, CARD, { csrf });
    expect(again.statusCode).toBe(303);
    expect(again.headers.location).toBe(`/paylink/${id}`);
    expect(await paymentCount(ctx)).toBe(count);
  });

  it('lets two simultaneous submissions pay once', async () => {
    const { id } = await createLink(ctx);
    const csrf = csrfOf((await openPage(ctx, id)).html);
    const count = await paymentCount(ctx);
    const answers = await Promise.all(Array.from({ length: 4 }, () => submit(ctx, id, CARD, { csrf })));
    expect(await paymentCount(ctx)).toBe(count + 1);
    const partnerRedirects = answers.filter((r) => String(r.headers.location).startsWith('https://partner.example/'));
    expect(partnerRedirects).toHaveLength(1);
    for (const other of answers.filter((r) => !partnerRedirects.includes(r))) expect([303, 409]).toContain(other.statusCode);
  });

  it('shows a decline with its reason, charges nothing, and lets the payer try again', async () => {
    const { id } = await createLink(ctx);
    const declined = await submit(ctx, id, { ...CARD, CardNum: '4000000000009995' });
    expect(declined.statusCode).toBe(200);
    expect(declined.body).toContain('Your payment was declined: insufficient funds.');
    expect(declined.body).toContain('Nothing was charged.');
    expect(declined.body).toContain('value="ada@example.org"');
    expect(declined.body).not.toContain('4000000000009995');
    expect(declined.body).toMatch(/<div id="pl-alert" class="pl-alert" role="alert" tabindex="-1">/);
    const paid = await submit(ctx, id, CARD, { csrf: csrfOf(declined.body) });
    expect(redirectQuery(paid).get('Successful')).toBe('true');
  });

  it('shows field errors in the page language, tied to their fields, without echoing card data', async () => {
    const { id } = await createLink(ctx, ctx.nonProfit, { Language: 'es' });
    const res = await submit(ctx, id, { ...CARD, Email: 'nope', CardNum: '4242424242424241', ExpMonth: '13', CVNum: '12', Phone: 'call me' });
    expect(res.statusCode).toBe(422);
    const html = res.body;
    expect(html).toContain('<input id="pl-Email" name="Email" type="email" value="nope"');
    expect(html).toMatch(/id="pl-Email"[^>]*aria-invalid="true" aria-describedby="pl-Email-error"/);
    expect(html).toContain('<p class="pl-error" id="pl-Email-error">Escriba un correo electrónico como nombre@ejemplo.org.</p>');
    expect(html).toContain('<p class="pl-error" id="pl-CardNum-error">Escriba un número de tarjeta válido.</p>');
    expect(html).toContain('<p class="pl-error" id="pl-ExpMonth-error">Escriba el mes con dos dígitos, de 01 a 12.</p>');
    expect(html).toContain('<p class="pl-error" id="pl-Phone-error">');
    expect(html).toContain('<a href="#pl-CardNum">Número de tarjeta: Escriba un número de tarjeta válido.</a>');
    expect(html).toContain('Corrija 5 problema(s):');
    expect(html).not.toContain('4242424242424241');
    expect(html).toMatch(/<input id="pl-CardNum" name="CardNum" type="text" value=""/);
  });

  it('applies the payment rules to ACH: state required, US/CA/AU only', async () => {
    const { id } = await createLink(ctx);
    const res = await submit(ctx, id, { ...ACH, State: '', Country: 'FR', CheckRoutingNumber: '123' });
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('id="pl-State-error">This field is required.');
    expect(res.body).toContain('id="pl-Country-error">Bank account payments are for the United States, Canada and Australia.');
    expect(res.body).toMatch(/<input[^>]*id="pl-method-ach"[^>]*checked/);
  });

  it('uses the request IP unless the link set IpAddress', async () => {
    const plain = await createLink(ctx);
    const fromRequest = redirectQuery(await submit(ctx, plain.id, CARD, { ip: '203.0.113.50' }));
    const fixed = await createLink(ctx, ctx.nonProfit, { IpAddress: '192.0.2.1' });
    const fromLink = redirectQuery(await submit(ctx, fixed.id, CARD, { ip: '203.0.113.51' }));
    const ipOf = async (guid: string) => (await ctx.store.sql.query<{ ip: string }>('SELECT ip_address AS ip FROM payments WHERE id = $1', [guid]))[0]!.ip;
    expect(await ipOf(fromRequest.get('PaymentGuid')!)).toBe('203.0.113.50');
    expect(await ipOf(fromLink.get('PaymentGuid')!)).toBe('192.0.2.1');
  });

  it('refuses a TranId already paid (duplicate check) like the API does', async () => {
    // Two links made with one TranId: once one is paid, the other cannot be (409, no retry asked).
    const tran = tranId();
    const first = await createLink(ctx, ctx.nonProfit, { TranId: tran });
    const second = await createLink(ctx, ctx.nonProfit, { TranId: tran });
    redirectQuery(await submit(ctx, first.id, CARD));
    const res = await submit(ctx, second.id, CARD);
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain('its reference has already been used for another payment. Nothing was charged.');
    expect(titleOf(res.body)).toBe('Reference already used');
    // A TranId the payer typed can be typed again: the form says so and lets them.
    const typed = await createLink(ctx, ctx.nonProfit, { ShowTransactionId: true });
    const again = await submit(ctx, typed.id, { ...CARD, TranId: tran });
    expect(again.statusCode).toBe(200);
    expect(again.body).toContain('This payment was already made: its reference has been used.');
  });

  it('takes the TranId the payer enters when the link shows the field', async () => {
    const { id } = await createLink(ctx, ctx.nonProfit, { ShowTransactionId: true });
    const tran = tranId();
    const query = redirectQuery(await submit(ctx, id, { ...CARD, TranId: tran }));
    expect(query.get('TranId')).toBe(tran);
    expect((await result(query.get('responseToken')!)).json().TranId).toBe(tran);
  });

  it('stores the card when the link says TokenizeCard', async () => {
    const { id } = await createLink(ctx, ctx.nonProfit, { TokenizeCard: true, ExternalConstituentId: 'donor-tok', ExternalCustomerId: 'cust-77' });
    const query = redirectQuery(await submit(ctx, id, CARD));
    const body = (await result(query.get('responseToken')!)).json();
    expect(body.TokenGuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.ExternalCardToken).toMatch(/^\d+$/);
    expect(body).toMatchObject({ ExternalConstituentId: 'donor-tok', ExternalCustomerId: 'cust-77' });
  });

  it('pays with the saved card of TokenGuid, or the CcInfoKey of ExternalCardToken, or a new card', async () => {
    const card = await ctx.services.tokens.tokenizeCard(ctx.nonProfit.ClientId, { cardNumber: '5555555555554444', expMonth: '11', expYear: '31', source: 'api', externalConstituentId: 'donor-saved' });
    const byGuid = redirectQuery(await submit(ctx, (await createLink(ctx, ctx.nonProfit, { TokenGuid: card.id })).id, { Email: 'ada@example.org', PaymentMethod: 'card', CardChoice: 'saved' }));
    // The payment is the card's constituent's (the spec: ExternalConstituentId is linked to the token).
    expect((await result(byGuid.get('responseToken')!)).json()).toMatchObject({ CardNum: '4444', TokenGuid: card.id, ExternalConstituentId: 'donor-saved' });
    const byKey = redirectQuery(await submit(ctx, (await createLink(ctx, ctx.nonProfit, { ExternalCardToken: card.gatewayKey })).id, { Email: 'ada@example.org', PaymentMethod: 'card' }));
    expect((await result(byKey.get('responseToken')!)).json()).toMatchObject({ CardNum: '4444', ExternalCardToken: card.gatewayKey });
    const other = redirectQuery(await submit(ctx, (await createLink(ctx, ctx.nonProfit, { TokenGuid: card.id })).id, { ...CARD, CardChoice: 'new' }));
    expect((await result(other.get('responseToken')!)).json()).toMatchObject({ CardNum: '4242' });
  });
});

describe('paying a link by ACH', () => {
  it('debits the bank account and confirms it', async () => {
    const { id } = await createLink(ctx);
    const query = redirectQuery(await submit(ctx, id, ACH));
    expect((await result(query.get('responseToken')!)).json()).toMatchObject({ Successful: true, CheckAccountNum: '6789', PaymentMethodTypeId: 7, ProvinceCode: 'NY' });
  });

  it('pays with the saved bank account of ExternalCheckToken', async () => {
    const bank = await ctx.services.tokens.tokenizeBankAccount(ctx.nonProfit.ClientId, { routingNumber: '110000000', accountNumber: '000987654321', accountType: 2, source: 'api' });
    const { id } = await createLink(ctx, ctx.nonProfit, { ExternalCheckToken: bank.gatewayKey });
    const query = redirectQuery(await submit(ctx, id, { PaymentMethod: 'ach', BankChoice: 'saved', Email: 'ada@example.org', State: 'NY', Country: 'US' }));
    expect((await result(query.get('responseToken')!)).json()).toMatchObject({ CheckAccountNum: '4321', ExternalCheckToken: bank.gatewayKey });
  });

  it('shows an ACH return as a decline', async () => {
    const { id } = await createLink(ctx);
    const res = await submit(ctx, id, { ...ACH, CheckAccountNumber: '000111111116' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Your payment was declined: the account was not found.');
  });
});

describe('form protection', () => {
  it('refuses a post without a valid form token (403) and renders the form again with a fresh one', async () => {
    const { id } = await createLink(ctx);
    const count = await paymentCount(ctx);
    const missing = await submit(ctx, id, CARD, { csrf: '' });
    expect(missing.statusCode).toBe(403);
    expect(missing.body).toContain('This form expired.');
    const forged = await submit(ctx, id, CARD, { csrf: 'v1:abc:def:ghi' });
    expect(forged.statusCode).toBe(403);
    const other = await createLink(ctx);
    const otherToken = csrfOf((await openPage(ctx, other.id)).html);
    expect((await submit(ctx, id, CARD, { csrf: otherToken })).statusCode).toBe(403);
    expect(await paymentCount(ctx)).toBe(count);
    expect(redirectQuery(await submit(ctx, id, CARD, { csrf: csrfOf(missing.body) })).get('Successful')).toBe('true');
  });

  it('takes a form token for 24 hours (no time limit a payer must be warned of, WCAG 2.2.1) and refuses it after', async () => {
    const { id } = await createLink(ctx);
    const csrf = csrfOf((await openPage(ctx, id)).html);
    ctx.clock.advance(24 * 3600_000 + 1000);
    expect((await submit(ctx, id, CARD, { csrf })).statusCode).toBe(403);
    const { id: other } = await createLink(ctx);
    const fresh = csrfOf((await openPage(ctx, other)).html);
    ctx.clock.advance(20 * 3600_000);
    expect(redirectQuery(await submit(ctx, other, CARD, { csrf: fresh })).get('Successful')).toBe('true');
  });

  it('refuses a post from another site, whatever its token', async () => {
    const { id } = await createLink(ctx);
    const crossSite = await submit(ctx, id, { ...CARD, Email: 'attacker@evil.example', TranId: 'planted-tran-id' }, { headers: { 'sec-fetch-site': 'cross-site' } });
    expect(crossSite.statusCode).toBe(403);
    expect(crossSite.body).toContain('This form was sent from another site, so it was not accepted.');
    // The form comes back as the link has it, not as the other site posted it.
    expect(crossSite.body).not.toContain('attacker@evil.example');
    expect(crossSite.body).not.toContain('planted-tran-id');
    const csrf = csrfOf((await openPage(ctx, id)).html);
    const foreignOrigin = await ctx.app.inject({
      method: 'POST',
      url: `/paylink/${id}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example', host: 'localhost:80' },
      payload: encodeForm({ CsrfToken: csrf, Action: 'pay', ...CARD }),
    });
    expect(foreignOrigin.statusCode).toBe(403);
    expect(foreignOrigin.body).not.toContain('This form expired.');
    const sameOrigin = await ctx.app.inject({
      method: 'POST',
      url: `/paylink/${id}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost:80', host: 'localhost:80' },
      payload: encodeForm({ CsrfToken: csrf, Action: 'pay', ...CARD }),
    });
    expect(sameOrigin.statusCode).toBe(303);
  });

  it('answers a form over 16 KiB with an HTML error page (413), not JSON', async () => {
    const { id } = await createLink(ctx);
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/paylink/${id}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: encodeForm({ Action: 'pay', Street: 'x'.repeat(20_000) }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.body).toContain('The form could not be read.');
  });

  it('never writes a card or account number, or a security code, to the logs', async () => {
    const { id } = await createLink(ctx);
    await submit(ctx, id, { ...CARD, CardNum: '4000000000000002', CVNum: '987' });
    await submit(ctx, id, { ...ACH, CheckAccountNumber: '000222222227' });
    await submit(ctx, id, { ...CARD, CardNum: '5555 5555 5555 4444', CVNum: '321' });
    const logs = ctx.logs.join('\n');
    for (const secret of ['4000000000000002', '000222222227', '5555555555554444', '5555 5555 5555 4444', '"987"', '"321"']) expect(logs).not.toContain(secret);
  });
});

describe('rate limits', () => {
  it('limits submissions per link and per IP (429 with Retry-After)', async () => {
    const limited = await createTestContext({ config: { payLinkSubmitLimitPerLink: 3, payLinkSubmitLimitPerIp: 5 } });
    try {
      const a = await createLink(limited);
      const csrf = csrfOf((await openPage(limited, a.id)).html);
      for (let i = 0; i < 3; i++) expect((await submit(limited, a.id, { ...CARD, CardNum: '4000000000000002' }, { csrf, ip: `198.51.100.${i + 1}` })).statusCode).toBe(200);
      const overLink = await submit(limited, a.id, CARD, { csrf, ip: '198.51.100.99' });
      expect(overLink.statusCode).toBe(429);
      expect(Number(overLink.headers['retry-after'])).toBeGreaterThan(0);
      expect(overLink.body).toContain('Too many attempts.');

      // Forms refused before the processor count per IP only: junk cannot shut a link's payers out.
      const open = await createLink(limited);
      const openCsrf = csrfOf((await openPage(limited, open.id)).html);
      for (let i = 0; i < 4; i++) {
        expect((await submit(limited, open.id, { CardNum: '' }, { csrf: openCsrf, ip: `192.0.2.${i + 1}` })).statusCode).toBe(422);
      }
      expect((await submit(limited, open.id, CARD, { csrf: openCsrf, ip: '192.0.2.50' })).statusCode).toBe(303);

      const links = await Promise.all(Array.from({ length: 3 }, () => createLink(limited)));
      const ip = '203.0.113.77';
      const statuses: number[] = [];
      for (const link of [...links, ...links]) statuses.push((await submit(limited, link.id, { ...CARD, CardNum: '4000000000000002' }, { ip })).statusCode);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);

      limited.clock.advance(10 * 60_000);
      expect((await submit(limited, a.id, CARD, { ip: '198.51.100.99' })).statusCode).toBe(303);
    } finally {
      await limited.close();
    }
  });
});

describe('WorkflowType 3: store a card without paying', () => {
  it('stores the card for the constituent, redirects, confirms it through paylinkResult, then shows it was saved', async () => {
    const { id } = await createLink(ctx, ctx.nonProfit, { WorkflowType: 3, PaymentLines: [], ExternalConstituentId: 'donor-wt3', FirstName: 'Grace', LastName: 'Hopper' });
    const page = await openPage(ctx, id);
    expect(page.html).toContain('<h1>Save a card</h1>');
    expect(page.html).not.toContain('name="CVNum"');
    const count = await paymentCount(ctx);
    const res = await submit(ctx, id, { Action: 'save-card', CardNum: '4242424242424242', ExpMonth: '10', ExpYear: '32', FirstName: 'Grace', LastName: 'Hopper' });
    const query = redirectQuery(res);
    expect(query.get('TokenGuid')).toMatch(/^[0-9a-f-]{36}$/);
    expect(query.get('PaymentGuid')).toBeNull();
    expect(await paymentCount(ctx)).toBe(count);
    const confirmed = await result(query.get('responseToken')!);
    expect(confirmed.json()).toMatchObject({
      Successful: true,
      PaymentGuid: '00000000-0000-0000-0000-000000000000',
      OrganizationGuid: '00000000-0000-0000-0000-000000000000',
      TotalAmount: 0,
      TokenGuid: query.get('TokenGuid'),
      ExternalConstituentId: 'donor-wt3',
      CardNum: '4242',
      CardType: 'Visa',
      ExpMonth: '10',
      ExpYear: '32',
      FirstName: 'Grace',
    });
    const tokens = await ctx.services.tokens.listByConstituent(ctx.nonProfit.ClientId, 'donor-wt3');
    expect(tokens.map((t) => t.id)).toEqual([query.get('TokenGuid')]);
    expect(tokens[0]!.source).toBe('paypage');
    const after = await openPage(ctx, id);
    expect(after.html).toContain('Your card was saved.');
  });

  it('leaves no card behind when recording the link fails, and the retry stores exactly one', async () => {
    const { id } = await createLink(ctx, ctx.nonProfit, { WorkflowType: 3, PaymentLines: [], ExternalConstituentId: 'donor-wt3c' });
    const links = ctx.services.payLinks;
    const original = links.complete;
    links.complete = async () => {
      throw new Error('connection lost');
    };
    const card = { Action: 'save-card', CardNum: '4242424242424242', ExpMonth: '10', ExpYear: '32' };
    try {
      expect((await submit(ctx, id, card)).statusCode).toBe(500);
    } finally {
      links.complete = original;
    }
    expect(await ctx.services.tokens.listByConstituent(ctx.nonProfit.ClientId, 'donor-wt3c')).toEqual([]);
    const saved = redirectQuery(await submit(ctx, id, card));
    const tokens = await ctx.services.tokens.listByConstituent(ctx.nonProfit.ClientId, 'donor-wt3c');
    expect(tokens.map((t) => t.id)).toEqual([saved.get('TokenGuid')]);
  });

  it('checks the card like a payment does', async () => {
    const { id } = await createLink(ctx, ctx.nonProfit, { WorkflowType: 3, PaymentLines: [], ExternalConstituentId: 'donor-wt3b' });
    const res = await submit(ctx, id, { Action: 'save-card', CardNum: '1234', ExpMonth: '01', ExpYear: '20' });
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('id="pl-CardNum-error"');
    expect(res.body).toContain('id="pl-ExpYear-error">This card has expired.');
  });
});

describe('WorkflowType 4: manage saved cards', () => {
  it("lists, adds and deletes the constituent's cards, and nobody else's", async () => {
    const mine = await ctx.services.tokens.tokenizeCard(ctx.nonProfit.ClientId, { cardNumber: '378282246310005', expMonth: '09', expYear: '33', externalConstituentId: 'donor-wt4', source: 'api' });
    const theirs = await ctx.services.tokens.tokenizeCard(ctx.nonProfit.ClientId, { cardNumber: '6011111111111117', expMonth: '09', expYear: '33', externalConstituentId: 'someone-else', source: 'api' });
    const { id } = await createLink(ctx, ctx.nonProfit, { WorkflowType: 4, PaymentLines: [], ExternalConstituentId: 'donor-wt4' });
    const page = await openPage(ctx, id);
    expect(page.html).toContain('American Express ending in 0005 (expires 09/33)');
    expect(page.html).not.toContain('0005</span><span'); // one entry
    expect(page.html).not.toContain('Discover');

    const added = redirectQuery(await submit(ctx, id, { Action: 'save-card', CardNum: '5555555555554444', ExpMonth: '08', ExpYear: '34' }));
    expect((await result(added.get('responseToken')!)).json()).toMatchObject({ TokenGuid: added.get('TokenGuid'), CardNum: '4444', ExternalConstituentId: 'donor-wt4' });
    const listed = await openPage(ctx, id);
    expect(listed.html).toContain('Mastercard ending in 4444');
    expect(listed.html).toContain('American Express ending in 0005');

    const refused = await submit(ctx, id, { Action: 'delete-card', TokenGuid: theirs.id });
    expect(refused.statusCode).toBe(404);
    expect((await submit(ctx, id, { Action: 'delete-card', TokenGuid: theirs.id, Confirm: 'yes' })).statusCode).toBe(404);
    expect(await ctx.services.tokens.find(ctx.nonProfit.ClientId, theirs.id)).toBeDefined();

    // A delete button only asks (a page that works without script); Yes deletes, No goes back.
    const asked = await submit(ctx, id, { Action: 'delete-card', TokenGuid: mine.id });
    expect(asked.statusCode).toBe(200);
    expect(titleOf(asked.body)).toBe('Delete a saved card');
    expect(asked.body).toContain('<p id="pl-delete-question">Delete American Express ending in 0005 (expires 09/33)? This cannot be undone.</p>');
    expect(asked.body).toContain(`<input type="hidden" name="TokenGuid" value="${mine.id}"><input type="hidden" name="Confirm" value="yes"><button type="submit" class="pl-button">Yes, delete this card</button>`);
    expect(asked.body).toContain(`<a class="pl-button pl-button-secondary" href="/paylink/${id}">No, keep it</a>`);
    expect(await ctx.services.tokens.find(ctx.nonProfit.ClientId, mine.id)).toBeDefined();

    const deleted = await submit(ctx, id, { Action: 'delete-card', TokenGuid: mine.id, Confirm: 'yes' }, { csrf: csrfOf(asked.body) });
    expect(deleted.statusCode).toBe(303);
    expect(deleted.headers.location).toBe(`/paylink/${id}?notice=deleted`);
    expect(await ctx.services.tokens.find(ctx.nonProfit.ClientId, mine.id)).toBeUndefined();
    const notice = await openPage(ctx, id, '?notice=deleted');
    expect(notice.html).toContain('The card was deleted.');
    expect(notice.html).not.toContain('American Express ending in 0005');
  });
});

describe('the receipt', () => {
  it('sends the payer on with a fresh responseToken from Continue', async () => {
    const { id } = await createLink(ctx);
    const first = redirectQuery(await submit(ctx, id, CARD));
    const again = redirectQuery(await submit(ctx, id, { Action: 'continue' }));
    expect(again.get('PaymentGuid')).toBe(first.get('PaymentGuid'));
    expect(again.get('responseToken')).not.toBe(first.get('responseToken'));
    expect((await result(again.get('responseToken')!)).json().PaymentGuid).toBe(first.get('PaymentGuid'));
    expect((await result(first.get('responseToken')!)).statusCode).toBe(200);
  });

  it('is replaced by 410 once the partner cancels the link, and a cancelled link takes no payment', async () => {
    const { id } = await createLink(ctx);
    const csrf = csrfOf((await openPage(ctx, id)).html);
    await ctx.as(ctx.nonProfit, { method: 'DELETE', url: `/api/paylink?PayLinkId=${id}` });
    const count = await paymentCount(ctx);
    const res = await submit(ctx, id, CARD, { csrf });
    expect(res.statusCode).toBe(410);
    expect(res.body).toContain('This payment link is no longer available.');
    expect(await paymentCount(ctx)).toBe(count);
  });
});

describe('a recurring line', () => {
  const profileOfLink = async (id: string) =>
    (
      await ctx.store.sql.query<{ profile: string | null }>('SELECT recurring_profile_id AS profile FROM pay_links WHERE id = $1', [id])
    )[0]!.profile;
  const profile = async (profileId: string) =>
    (
      await ctx.store.sql.query<Record<string, unknown>>(
        `SELECT token_id, status, billing_frequency, start_date::text AS start_date, next_bill_date::text AS next_bill_date,
                amount_cents, pre_fee_amount_cents, pay_fee, transaction_source_group_id, email, external_constituent_id
           FROM recurring_profiles WHERE id = $1`,
        [profileId],
      )
    )[0]!;

  it('stores the card and starts a profile that bills from the next bill date after the payment', async () => {
    const today = ctx.clock.now().toISOString().slice(0, 10);
    const { id } = await createLink(ctx, ctx.nonProfit, { PaymentLines: [{ Amount: '15.00', Type: 1, Recurring: 4 }], ExternalConstituentId: 'donor-monthly' });
    const query = redirectQuery(await submit(ctx, id, CARD));
    const payment = (await result(query.get('responseToken')!)).json();
    expect(payment.TokenGuid).toMatch(/^[0-9a-f-]{36}$/);
    const profileId = await profileOfLink(id);
    expect(profileId).toMatch(/^[0-9a-f-]{36}$/);
    const row = await profile(profileId!);
    const [y, m, d] = today.split('-').map(Number) as [number, number, number];
    const next = new Date(Date.UTC(y, m, Math.min(d, new Date(Date.UTC(y, m + 1, 0)).getUTCDate()))).toISOString().slice(0, 10);
    expect(row).toMatchObject({
      token_id: payment.TokenGuid,
      status: 'active',
      billing_frequency: 'Monthly',
      start_date: today,
      next_bill_date: next,
      pay_fee: false,
      transaction_source_group_id: 1,
      email: 'ada@example.org',
      external_constituent_id: 'donor-monthly',
    });
    expect(Number(row.amount_cents)).toBe(1500);
    expect((await openPage(ctx, id)).html).toContain('Your recurring payment is set up: $15.00 every month.');

    // The partner learns the profile from paylinkResult, reads it back and can cancel it.
    expect(payment.RecurringProfileGuid).toBe(profileId);
    const read = await ctx.as(ctx.nonProfit, { method: 'GET', url: `/api/recurringProfile?RecurringProfileGuid=${profileId}` });
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({ RecurringProfileGuid: profileId, Status: 'Active', BillingFrequency: 'Monthly', Amount: 15, NextBillDate: next, TokenGuid: payment.TokenGuid });
    // Its last payment, until it first bills, is the link's payment that started it.
    expect(read.json().LastPaymentGuid).toBe(payment.PaymentGuid);
    await expectDocumented(ctx.app, 'GET', '/api/recurringProfile', read);
    const cancel = await ctx.as(ctx.nonProfit, { method: 'DELETE', url: `/api/recurringProfile?RecurringProfileGuid=${profileId}` });
    expect(cancel.statusCode).toBe(200);
    expect((await ctx.as(ctx.nonProfit, { method: 'GET', url: `/api/recurringProfile?RecurringProfileGuid=${profileId}` })).json().Status).toBe('Cancelled');
  });

  it('maps Recurring 9 to Semi-Monthly, pays by ACH, and grosses up later charges when the payer covers the fees', async () => {
    const { id } = await createLink(ctx, ctx.nonProfit, { PaymentLines: [{ Amount: '20.00', Type: 1, Recurring: 9, PayFee: true }] });
    const query = redirectQuery(await submit(ctx, id, ACH));
    const payment = (await result(query.get('responseToken')!)).json();
    const row = await profile((await profileOfLink(id))!);
    expect(row).toMatchObject({ billing_frequency: 'Semi-Monthly', pay_fee: true, token_id: payment.TokenGuid });
    expect(Number(row.pre_fee_amount_cents)).toBe(2000);
    expect(Number(row.amount_cents)).toBe(Math.round(payment.TotalAmount * 100));
    expect(Number(row.amount_cents)).toBeGreaterThan(2000);
    // The receipt tells the payer what each later charge will be: today's total, not the line's $20.00.
    const charged = `$${(Number(row.amount_cents) / 100).toFixed(2)}`;
    expect((await openPage(ctx, id)).html).toContain(`Your recurring payment is set up: ${charged} twice a month.`);
  });

  it('starts no profile when the payment is declined', async () => {
    const { id } = await createLink(ctx, ctx.nonProfit, { PaymentLines: [{ Amount: '15.00', Type: 1, Recurring: 2 }] });
    expect((await submit(ctx, id, { ...CARD, CardNum: '4000000000000002' })).statusCode).toBe(200);
    expect(await profileOfLink(id)).toBeNull();
  });
});
