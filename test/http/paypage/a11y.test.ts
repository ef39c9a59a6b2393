import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import { unreachableDatabaseError } from '../../helpers/unreachable-database.ts';
import { ACH, CARD, createLink, csrfOf, encodeForm, h1Of, openPage, submit, titleOf } from './paylink-helpers.ts';

/**
 * What the accessibility audit of the pay page (.scratch/audit-a11y.md) asked for, as the server
 * renders it: titles and headings per outcome, the rules said before submission, the payer's own
 * values after an expired form, the error summary in form order, grouped saved-method choices,
 * the 429 wait, the French colon, the new-window note. The browser-side parts (forced colours,
 * the theme's protective layer, the live region, reflow) are in test/e2e/paylink-browser.test.ts.
 */

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ config: { providerName: 'Acme Payments', providerUrl: 'https://acme-payments.example' } });
});
afterAll(() => ctx.close());

/** The attributes of the element with `id`. */
function tagOf(html: string, id: string): string {
  const m = new RegExp(`<[a-z]+ [^>]*id="${id}"[^>]*>`).exec(html);
  expect(m, `#${id}`).not.toBeNull();
  return m![0];
}

describe('titles and headings say what happened', () => {
  it('prefixes the form title with the state: error, declined, too many attempts; none on a blank form', async () => {
    const { id } = await createLink(ctx);
    expect(titleOf((await openPage(ctx, id)).html)).toBe('Secure payment');
    expect(titleOf((await submit(ctx, id, { ...CARD, Email: 'nope' })).body)).toBe('Error: Secure payment');
    expect(titleOf((await submit(ctx, id, { ...CARD, CardNum: '4000000000000002' })).body)).toBe('Payment declined: Secure payment');
    expect(titleOf((await submit(ctx, id, CARD, { csrf: 'v1:expired' })).body)).toBe('Error: Secure payment');
    const french = await createLink(ctx, ctx.nonProfit, { Language: 'fr' });
    expect(titleOf((await submit(ctx, french.id, { ...CARD, Email: 'nope' })).body)).toBe('Erreur\u00a0: Paiement sécurisé');
    const saveCard = await createLink(ctx, ctx.nonProfit, { WorkflowType: 3, PaymentLines: [], ExternalConstituentId: 'title-donor' });
    expect(titleOf((await submit(ctx, saveCard.id, { Action: 'save-card', CardNum: '1' })).body)).toBe('Error: Save a card');
  });

  it('gives each message page its own title and heading', async () => {
    const notFound = await openPage(ctx, 'AAAAAAAAAAAAAAAAAAAAAAAA');
    expect([titleOf(notFound.html), h1Of(notFound.html)]).toEqual(['Payment link not found', 'Payment link not found']);

    const { id } = await createLink(ctx);
    await ctx.as(ctx.nonProfit, { method: 'DELETE', url: `/api/paylink?PayLinkId=${id}` });
    const gone = await openPage(ctx, id);
    expect(gone.res.statusCode).toBe(410);
    expect([titleOf(gone.html), h1Of(gone.html)]).toEqual(['Payment link unavailable', 'Payment link unavailable']);
  });

  it('says a bad address or method is one, not that "the form could not be read"', async () => {
    const badUrl = await ctx.app.inject({ method: 'GET', url: '/paylink/%ff' });
    expect(badUrl.statusCode).toBe(400);
    expect([titleOf(badUrl.body), h1Of(badUrl.body)]).toEqual(['Address not valid', 'Address not valid']);
    expect(badUrl.body).toContain('This address is not a valid payment link.');
    expect(badUrl.body).not.toContain('The form could not be read');

    const { id } = await createLink(ctx);
    const put = await ctx.app.inject({ method: 'PUT', url: `/paylink/${id}` });
    expect(put.statusCode).toBe(405);
    expect(titleOf(put.body)).toBe('Request not supported');
    expect(put.body).not.toContain('The form could not be read');

    // A form that really could not be read still says so, under its own title.
    const json = await ctx.app.inject({ method: 'POST', url: `/paylink/${id}`, headers: { 'content-type': 'application/json' }, payload: '{}' });
    expect(json.statusCode).toBe(415);
    expect(titleOf(json.body)).toBe('Form could not be read');
    expect(json.body).toContain('The form could not be read.');
  });

  it('titles a server error and an unreachable database apart', async () => {
    const find = ctx.services.payLinks.find;
    try {
      ctx.services.payLinks.find = async () => {
        throw new Error('boom');
      };
      const failed = await ctx.app.inject({ method: 'GET', url: '/paylink/AAAAAAAAAAAAAAAAAAAAAAAA' });
      expect(failed.statusCode).toBe(500);
      expect([titleOf(failed.body), h1Of(failed.body)]).toEqual(['Something went wrong', 'Something went wrong']);
      ctx.services.payLinks.find = async () => {
        throw unreachableDatabaseError();
      };
      const down = await ctx.app.inject({ method: 'GET', url: '/paylink/AAAAAAAAAAAAAAAAAAAAAAAA' });
      expect(down.statusCode).toBe(503);
      expect(titleOf(down.body)).toBe('Service temporarily unavailable');
      expect(down.body).toContain('Please try again later.');
    } finally {
      ctx.services.payLinks.find = find;
    }
  });
});

describe('what a theme cannot take away, and forced colours', () => {
  it('marks the chosen tab and saved-card choice in forced colours (paypage.css)', async () => {
    const { html } = await openPage(ctx, (await createLink(ctx)).id);
    expect(html).toContain(
      '@media (forced-colors:active){.pl-tab input:checked+label{forced-color-adjust:none;background:Highlight;color:HighlightText;border:3px solid Highlight;',
    );
    expect(html).toContain('.pl-choice input:checked+label::before{forced-color-adjust:none;background:Highlight;border-color:Highlight}');
  });

  it('sends a themed page the protective rules of the focus ring, the errors, the alert and the chosen tab and choice', async () => {
    const { html } = await openPage(ctx, (await createLink(ctx, ctx.nonProfit, { Theme: ':focus-visible{outline-color:transparent} .pl-error{font-size:0}' })).id);
    const protect = html.slice(html.indexOf('@layer pl-protect{'));
    expect(html).not.toContain('outline-color:transparent');
    expect(protect).toContain('#paylink :focus-visible,#paylink .pl-alert:focus,#paylink .pl-tab input:focus-visible+label,#paylink .pl-choice input:focus-visible+label{outline:3px solid #1a5fb4!important;');
    expect(protect).toContain('#paylink .pl-error{position:relative!important;z-index:1!important;color:#b3261e!important;background:#fff!important;font-size:.9rem!important;');
    expect(protect).toContain('#paylink .pl-alert{position:relative!important;z-index:1!important;color:#5c1410!important;background:#fdecea!important;');
    expect(protect).toContain('#paylink .pl-tab input:checked+label{color:#fff!important;background:#0b57a4!important;border-color:#0b57a4!important}');
    expect(protect).toContain('@media (forced-colors:active){#paylink .pl-tab input:checked+label{forced-color-adjust:none!important;');
  });
});

describe('rules said before submission', () => {
  it('ties a hint to Phone and State, marks State required while the bank account tab is chosen, and says which accounts ACH takes', async () => {
    const { id } = await createLink(ctx);
    const { html } = await openPage(ctx, id);
    expect(tagOf(html, 'pl-Phone')).toContain('aria-describedby="pl-Phone-hint"');
    expect(html).toContain('<p class="pl-hint" id="pl-Phone-hint">Optional. A US, Canadian or Australian number, such as 202-555-0123.</p>');
    expect(tagOf(html, 'pl-State')).toContain('aria-describedby="pl-State-hint"');
    expect(html).toContain('<p class="pl-hint" id="pl-State-hint">A state or province code, such as NY, ON or NSW. Required for bank account payments.</p>');
    // Shown only while ACH is chosen (CSS :has(), no script): the card tab does not need it.
    expect(html).toContain('<label for="pl-State">State or province <span class="pl-req pl-req-ach">(required)</span></label>');
    expect(html).toContain('#paylink form:has(#pl-method-ach:checked) .pl-req-ach{display:inline}');
    expect(tagOf(html, 'pl-method-ach')).toContain('aria-describedby="pl-ach-note"');
    expect(html).toContain('<div class="pl-panel-ach"><p class="pl-hint pl-ach-note" id="pl-ach-note">For US, Canadian and Australian bank accounts.</p>');
    const fr = await openPage(ctx, (await createLink(ctx, ctx.nonProfit, { Language: 'fr' })).id);
    expect(fr.html).toContain('id="pl-State-hint">Un code d’État ou de province, comme QC, NY ou NSW. Obligatoire pour un paiement par compte bancaire.</p>');
  });

  it('keeps the hint in the description of a field with an error, before the error', async () => {
    const { id } = await createLink(ctx);
    const res = await submit(ctx, id, { ...ACH, State: '' });
    expect(res.statusCode).toBe(422);
    expect(tagOf(res.body, 'pl-State')).toContain('aria-invalid="true" aria-describedby="pl-State-hint pl-State-error"');
  });
});

describe('an expired form', () => {
  const typed = { ...CARD, FirstName: 'Grace', LastName: 'Hopper', Email: 'grace@example.org', Street: '2 Navy Way', City: 'Arlington', CVNum: '987' };

  it("gives a same-origin payer their own values back (never the card number or CVV), not the link's prefill", async () => {
    const { id } = await createLink(ctx, ctx.nonProfit, { Email: 'prefill@example.org', FirstName: 'Pre' });
    const res = await submit(ctx, id, typed, { csrf: 'v1:expired:token:x' });
    expect(res.statusCode).toBe(403);
    expect(res.body).toContain('This form expired.');
    for (const [name, value] of Object.entries({ FirstName: 'Grace', LastName: 'Hopper', Email: 'grace@example.org', Street: '2 Navy Way', City: 'Arlington', NameOnCard: 'Ada Lovelace' })) {
      expect(res.body).toMatch(new RegExp(`<input id="pl-${name}" name="${name}"[^>]* value="${value}"`));
    }
    expect(res.body).not.toContain('prefill@example.org');
    expect(res.body).not.toContain('4242');
    expect(res.body).not.toContain('987');
    expect(res.body).toMatch(/<input id="pl-CardNum" name="CardNum" type="text" value=""/);
  });

  it('also after the token expired (24 hours) on the manual clock', async () => {
    const { id } = await createLink(ctx, ctx.nonProfit, { Email: 'prefill@example.org' });
    const csrf = csrfOf((await openPage(ctx, id)).html);
    ctx.clock.advance(24 * 3600_000 + 1000);
    const res = await submit(ctx, id, typed, { csrf });
    expect(res.statusCode).toBe(403);
    expect(res.body).toMatch(/<input id="pl-Email" name="Email"[^>]* value="grace@example.org"/);
  });

  it("keeps the link's own form when the browser does not say where the post came from", async () => {
    const { id } = await createLink(ctx, ctx.nonProfit, { Email: 'prefill@example.org' });
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/paylink/${id}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: encodeForm({ CsrfToken: 'v1:expired', Action: 'pay', ...typed }),
    });
    expect(res.statusCode).toBe(403);
    expect(res.body).toMatch(/<input id="pl-Email" name="Email"[^>]* value="prefill@example.org"/);
    expect(res.body).not.toContain('grace@example.org');
  });
});

describe('the error summary', () => {
  it("lists the problems in the form's order, not the payment service's", async () => {
    const { id } = await createLink(ctx);
    const res = await submit(ctx, id, { ...CARD, Email: 'nope', Phone: 'call me', Zip: 'x', CardNum: '1', CVNum: '1' });
    expect(res.statusCode).toBe(422);
    const order = [...res.body.matchAll(/<li><a href="#pl-(\w+)">/g)].map((m) => m[1]);
    expect(order).toEqual(['Email', 'Phone', 'Zip', 'CardNum', 'CVNum']);
  });

  it('puts a no-break space before the colon in French', async () => {
    const { id } = await createLink(ctx, ctx.nonProfit, { Language: 'fr' });
    const res = await submit(ctx, id, { ...CARD, Email: 'nope' });
    expect(res.body).toContain('<a href="#pl-Email">Courriel\u00a0: Saisissez une adresse courriel comme nom@exemple.org.</a>');
  });
});

describe('saved payment methods', () => {
  it('puts each saved-method choice pair in its own fieldset with a legend', async () => {
    const card = await ctx.services.tokens.tokenizeCard(ctx.nonProfit.ClientId, { cardNumber: '5555555555554444', expMonth: '11', expYear: '31', source: 'api' });
    const bank = await ctx.services.tokens.tokenizeBankAccount(ctx.nonProfit.ClientId, { routingNumber: '110000000', accountNumber: '000123456789', accountType: 1, source: 'api' });
    const { html } = await openPage(ctx, (await createLink(ctx, ctx.nonProfit, { TokenGuid: card.id, ExternalCheckToken: bank.gatewayKey })).id);
    expect(html).toMatch(/<fieldset class="pl-choice-group"><legend>Card to use<\/legend><div class="pl-choices"><div class="pl-choice"><input[^>]*id="pl-card-saved"[^>]*>.*?id="pl-card-new".*?<\/div><\/div><\/fieldset>/);
    expect(html).toMatch(/<fieldset class="pl-choice-group"><legend>Bank account to use<\/legend><div class="pl-choices"><div class="pl-choice"><input[^>]*id="pl-bank-saved"[^>]*>.*?id="pl-bank-new".*?<\/div><\/div><\/fieldset>/);
  });
});

describe('smaller points', () => {
  it('says on the 429 page how long to wait, from its Retry-After rounded up to minutes', async () => {
    const limited = await createTestContext({ config: { payLinkSubmitLimitPerLink: 1000, payLinkSubmitLimitPerIp: 1 } });
    try {
      const { id } = await createLink(limited);
      const ip = '203.0.113.40';
      expect((await submit(limited, id, { CardNum: '' }, { ip })).statusCode).toBe(422);
      const over = await submit(limited, id, CARD, { ip });
      expect(over.statusCode).toBe(429);
      expect(over.headers['retry-after']).toBe('600');
      expect(over.body).toContain('Too many attempts. Please wait 10 minutes and try again.');
      expect(titleOf(over.body)).toBe('Too many attempts: Secure payment');
      limited.clock.advance(9 * 60_000 + 1000);
      const soon = await submit(limited, id, CARD, { ip });
      expect(soon.headers['retry-after']).toBe('59');
      expect(soon.body).toContain('Too many attempts. Please wait 1 minute and try again.');
    } finally {
      await limited.close();
    }
  });

  it('says that the "Powered by" link opens a new window, in the page language', async () => {
    const en = await openPage(ctx, (await createLink(ctx)).id);
    expect(en.html).toContain('target="_blank">Acme Payments<span class="pl-sr"> (opens in a new window)</span></a>');
    const es = await openPage(ctx, (await createLink(ctx, ctx.nonProfit, { Language: 'es' })).id);
    expect(es.html).toContain('<span class="pl-sr"> (se abre en una ventana nueva)</span></a>');
  });

  it('lets a long reference and receipt values wrap (no sideways scrolling at 320px)', async () => {
    const tranId = `INV-${'0'.repeat(40)}`;
    const { id } = await createLink(ctx, ctx.nonProfit, { TranId: tranId, ShowTransactionId: true });
    const { html } = await openPage(ctx, id);
    expect(html).toContain(`<p class="pl-ref"><strong>Reference</strong>: ${tranId}</p>`);
    expect(html).toContain('.pl-ref{overflow-wrap:anywhere}');
    expect(html).toContain('.pl-receipt dd{margin:0 0 .5rem;overflow-wrap:anywhere}');
  });
});
