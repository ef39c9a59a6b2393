import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import { createLink, openPage } from './paylink-helpers.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ config: { providerName: 'Acme Payments', providerUrl: 'https://acme-payments.example' } });
});
afterAll(() => ctx.close());

const HOSTILE = `"><img src=x onerror=alert(2)>'\``;

/** Every attribute value and text node of the page, decoded only as far as the HTML parser would. */
function scriptsIn(html: string): string[] {
  return [...html.matchAll(/<script\b[^>]*>/gi)].map((m) => m[0]);
}

/** Attribute names of every tag (values are quoted and escaped, so dropping "..." is exact). */
function attributeNames(html: string): string[] {
  const names: string[] = [];
  for (const [tag] of html.matchAll(/<[a-z][^>]*>/gi)) {
    const bare = tag.replace(/"[^"]*"/g, '""');
    for (const m of bare.matchAll(/\s([a-z-:]+)(?==|\s|>)/gi)) names.push(m[1]!.toLowerCase());
  }
  return names;
}

describe('GET /paylink/<PayLinkId>', () => {
  it('renders the payment page: lines, total, prefilled payer form, card and ACH tabs', async () => {
    const { id } = await createLink(ctx, ctx.nonProfit, {
      PaymentLines: [
        { Amount: '25.00', Type: 1 },
        { Amount: '10.50', Type: 4, ExternalLineId: 'ticket-1' },
      ],
      FirstName: 'Ada',
      LastName: 'Lovelace',
      Email: 'ada@example.org',
      Street: '1 Main St',
      City: 'Albany',
      State: 'NY',
      Zip: '12207',
      Country: 'US',
      Phone: '555-123-4567',
    });
    const { res, html } = await openPage(ctx, id);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(html).toContain('<html lang="en"');
    expect(html).toContain('Donation');
    expect(html).toContain('Ticket');
    expect(html).toContain('$35.50');
    for (const [name, value] of Object.entries({ FirstName: 'Ada', LastName: 'Lovelace', Email: 'ada@example.org', Street: '1 Main St', City: 'Albany', State: 'NY', Zip: '12207', Phone: '555-123-4567', NameOnCard: 'Ada Lovelace' })) {
      expect(html).toMatch(new RegExp(`<input id="pl-${name}" name="${name}"[^>]* value="${value}"`));
    }
    expect(html).toContain('<option value="US" selected>United States</option>');
    expect(html).toMatch(/<input[^>]*id="pl-method-card"[^>]*checked/);
    expect(html).toContain('id="pl-method-ach"');
    expect(html).toContain('name="CardNum"');
    expect(html).toContain('name="CheckRoutingNumber"');
    expect(html).toContain('>Submit Payment</button>');
    expect(html).toContain('Powered by <a href="https://acme-payments.example"');
    expect(html).toContain('>Acme Payments<span class="pl-sr"> (opens in a new window)</span></a>');
  });

  it('labels every input and select', async () => {
    const { id } = await createLink(ctx);
    const { html } = await openPage(ctx, id);
    const controls = [...html.matchAll(/<(input|select)\b([^>]*)>/g)].filter((m) => !/type="hidden"/.test(m[2]!));
    expect(controls.length).toBeGreaterThan(15);
    for (const [, , attributes] of controls) {
      const controlId = /\bid="([^"]+)"/.exec(attributes!)?.[1];
      expect(controlId, attributes).toBeDefined();
      expect(html).toContain(`<label for="${controlId}">`);
    }
  });

  it('escapes every prefilled value and partner text', async () => {
    const { id } = await createLink(ctx, ctx.nonProfit, {
      FirstName: HOSTILE,
      LastName: '</title><script>alert(3)</script>',
      City: `" autofocus onfocus="alert(4)`,
      Street: "' onmouseover='alert(5)",
      DonateButtonText: '<b>Give</b> & go',
      TransactionIdText: '<i>Invoice</i>',
      TranId: `inv-<script>-"1"`,
      ShowTransactionId: true,
      PoweredByText: '<a href="javascript:alert(6)">x</a>',
      ExternalEventName: '<script>alert(7)</script>',
    });
    const { html } = await openPage(ctx, id);
    expect(scriptsIn(html)).toHaveLength(1);
    expect(html).not.toMatch(/<img/i);
    expect(attributeNames(html).filter((n) => n.startsWith('on') || n === 'autofocus' || n === 'style')).toEqual([]);
    expect(html).not.toContain('href="javascript:');
    expect(html).not.toContain('<b>Give</b>');
    expect(html).toContain('&lt;b&gt;Give&lt;/b&gt; &amp; go');
    expect(html).toContain('&lt;i&gt;Invoice&lt;/i&gt;</strong>: inv-&lt;script&gt;-&quot;1&quot;');
    expect(html).toContain('value="&quot;&gt;&lt;img src=x onerror=alert(2)&gt;&#39;&#96;"');
    expect(html).toContain('value="&lt;/title&gt;&lt;script&gt;alert(3)&lt;/script&gt;"');
    expect(html).toContain('value="&quot; autofocus onfocus=&quot;alert(4)"');
    expect(html).toContain('value="&#39; onmouseover=&#39;alert(5)"');
  });

  it('sends a strict Content-Security-Policy whose nonce is on the only script and styles', async () => {
    const { id } = await createLink(ctx, ctx.nonProfit, { Theme: 'h1{color:#123456}', RedirectUrl: 'https://shop.example:8443/done' });
    const { res, html } = await openPage(ctx, id);
    const csp = String(res.headers['content-security-policy']);
    const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
    expect(nonce).toBeDefined();
    expect(csp).toBe(
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; img-src data:; form-action 'self' https://shop.example:8443; frame-ancestors 'none'; base-uri 'none'`,
    );
    expect(scriptsIn(html)).toEqual([`<script nonce="${nonce}">`]);
    expect([...html.matchAll(/<style\b[^>]*>/g)].map((m) => m[0])).toEqual([`<style nonce="${nonce}">`, `<style nonce="${nonce}">`]);
    expect(html).not.toMatch(/\sstyle="/);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const again = await openPage(ctx, id);
    expect(again.res.headers['content-security-policy']).not.toContain(nonce);
  });

  it('puts no odd host of a stored RedirectUrl into the CSP (links made before hosts were checked)', async () => {
    const { id } = await createLink(ctx, ctx.nonProfit, {});
    await ctx.store.sql.query(`UPDATE pay_links SET redirect_url = 'https://a;sandbox;x.example/' WHERE id = $1`, [id]);
    const { res } = await openPage(ctx, id);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("form-action 'self'; frame-ancestors");
    expect(csp).not.toContain('sandbox');
  });

  it('references nothing outside the page: no src, no stylesheet, no font, no external form target', async () => {
    const { id } = await createLink(ctx, ctx.nonProfit, { ThemeFonts: ['Open Sans:400,700'], Theme: 'body{background:url(https://cdn.example/bg.png)}' });
    const { html } = await openPage(ctx, id);
    expect(html).not.toMatch(/\ssrc=/i);
    expect(html).not.toMatch(/<link\b(?![^>]*href="data:,")/i);
    expect(html).not.toMatch(/url\(/i);
    expect(html).not.toMatch(/@import|@font-face/i);
    expect([...html.matchAll(/<form\b[^>]*action="([^"]+)"/g)].map((m) => m[1])).toEqual([`/paylink/${id}`]);
    expect(html).toContain('--pl-font:"Open Sans",system-ui,sans-serif');
  });

  it('stays under 100 KB with every option set', async () => {
    const { id } = await createLink(ctx, ctx.nonProfit, {
      PaymentLines: Array.from({ length: 100 }, (_, i) => ({ Amount: `${i + 1}.00`, Type: 1 + (i % 10), ExternalLineId: `line-${i}` })),
      Theme: Array.from({ length: 100 }, (_, i) => `.c${i}{color:#${String(i).padStart(6, '0')}}`).join('').slice(0, 5000),
      ThemeFonts: Array.from({ length: 50 }, (_, i) => `Font ${i}:400,700`),
      ShowTransactionId: true,
      FirstName: 'f'.repeat(50),
      LastName: 'l'.repeat(50),
    });
    const { html } = await openPage(ctx, id);
    expect(Buffer.byteLength(html)).toBeLessThan(100 * 1024);
  });

  it('answers 404 with a page for an unknown or malformed id', async () => {
    for (const id of ['AAAAAAAAAAAAAAAAAAAAAAAA', 'short', '%3Cscript%3E']) {
      const { res, html } = await openPage(ctx, id);
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(html).toContain('This payment link does not exist.');
      expect(html).not.toContain('<script>');
    }
  });

  it('answers a link URL the router cannot take (undecodable, over-long id) with the page\'s 400 page', async () => {
    for (const url of ['/paylink/%ff', '/paylink/%', `/paylink/${'a'.repeat(101)}`]) {
      for (const method of ['GET', 'POST'] as const) {
        const res = await ctx.app.inject({ method, url });
        expect(res.statusCode, `${method} ${url}`).toBe(400);
        expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(res.headers['content-security-policy']).toMatch(/default-src 'none'/);
        expect(res.body).toContain('<!doctype html>');
      }
    }
  });

  it('keeps the PayLinkId exactly as issued (ids are case-sensitive)', async () => {
    const { id } = await createLink(ctx);
    const flipped = id.replace(/[a-z]/, (c) => c.toUpperCase()).replace(/[A-Z]/, (c) => c.toLowerCase());
    expect((await openPage(ctx, id)).res.statusCode).toBe(200);
    if (flipped !== id) expect((await openPage(ctx, flipped)).res.statusCode).toBe(404);
  });

  it('answers other methods with 405 and Allow', async () => {
    const { id } = await createLink(ctx);
    const res = await ctx.app.inject({ method: 'PUT', url: `/paylink/${id}` });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, POST');
  });

  it('is not in the OpenAPI document', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(doc.paths).filter((p: string) => p.startsWith('/paylink'))).toEqual([]);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/paylink', '/api/paylinkResult']));
  });
});

describe('language', () => {
  it.each([
    ['fr', 'fr', 'Paiement sécurisé', 'Valider le paiement'],
    ['fr-CA', 'fr', 'Paiement sécurisé', 'Valider le paiement'],
    ['es', 'es', 'Pago seguro', 'Enviar pago'],
    ['es-MX', 'es', 'Pago seguro', 'Enviar pago'],
    ['EN-gb', 'en', 'Secure payment', 'Submit Payment'],
    ['de', 'en', 'Secure payment', 'Submit Payment'],
    ['', 'en', 'Secure payment', 'Submit Payment'],
  ])('Language %j gives a page in %s', async (language, lang, title, button) => {
    const { id } = await createLink(ctx, ctx.nonProfit, language ? { Language: language } : {});
    const { html } = await openPage(ctx, id);
    expect(html).toContain(`<html lang="${lang}"`);
    expect(html).toContain(`<h1>${title}</h1>`);
    expect(html).toContain(`>${button}</button>`);
  });

  it('translates labels, line types and amounts, and keeps the partner button text as given', async () => {
    const { id } = await createLink(ctx, ctx.nonProfit, { Language: 'fr', DefaultCountryCode: 'CA', DonateButtonText: 'Je donne' });
    const { html } = await openPage(ctx, id);
    expect(html).toContain('<label for="pl-CardNum">Numéro de carte');
    expect(html).toContain('Don');
    expect(html).toContain('25,00\u00a0$');
    expect(html).toContain('<option value="CA" selected>Canada</option>');
    expect(html).toContain('>Je donne</button>');
    expect(html).toContain('Propulsé par');
  });
});

describe('what the page shows', () => {
  it('shows the fees the payer covers, per method, as the fee engine quotes them', async () => {
    const { id } = await createLink(ctx, ctx.nonProfit, { PaymentLines: [{ Amount: '100.00', Type: 1, PayFee: true }] });
    const { html } = await openPage(ctx, id);
    const partner = { id: ctx.nonProfit.ClientId, name: ctx.nonProfit.name, kind: ctx.nonProfit.kind };
    const lines = [{ transactionSourceGroupId: 1, amountCents: 10_000, payFee: true, tipCents: 0, taxCents: 0 }];
    const card = await ctx.services.fees.quote(partner, { lines });
    const ach = await ctx.services.fees.quote(partner, { lines, paymentMethodTypeId: 7 });
    const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;
    expect(card.totalPaymentCents).toBeGreaterThan(10_000);
    expect(html).toContain('Subtotal');
    expect(html).toContain(`Total by card: ${dollars(card.totalPaymentCents)}<span class="pl-sub">Processing fees (covered by you): ${dollars(card.totalPaymentCents - 10_000)}</span>`);
    expect(html).toContain(`Total by bank account: ${dollars(ach.totalPaymentCents)}<span class="pl-sub">Processing fees (covered by you): ${dollars(ach.totalPaymentCents - 10_000)}</span>`);
  });

  it('shows no fee line when the organization pays the fees', async () => {
    const { id } = await createLink(ctx);
    const { html } = await openPage(ctx, id);
    expect(html).toContain('Total by card: $25.00</p>');
    expect(html).not.toContain('covered by you');
  });

  it('shows TranId with its label, or a field to enter it, or nothing', async () => {
    const shown = await openPage(ctx, (await createLink(ctx, ctx.nonProfit, { TranId: 'INV-7', ShowTransactionId: true, TransactionIdText: 'Invoice' })).id);
    expect(shown.html).toContain('<p class="pl-ref"><strong>Invoice</strong>: INV-7</p>');
    expect(shown.html).not.toContain('name="TranId"');
    const field = await openPage(ctx, (await createLink(ctx, ctx.nonProfit, { ShowTransactionId: true, TransactionIdText: 'Invoice number' })).id);
    expect(field.html).toContain('<label for="pl-TranId">Invoice number</label>');
    const hidden = await openPage(ctx, (await createLink(ctx, ctx.nonProfit, { TranId: 'INV-8' })).id);
    expect(hidden.html).not.toContain('INV-8');
    expect(hidden.html).not.toContain('name="TranId"');
  });

  it('uses the integration source name as the default PoweredByText, and the partner texts when given', async () => {
    const viaSource = await openPage(ctx, (await createLink(ctx, ctx.nonProfit, { IntegrationSource: ctx.nonProfit.integrationSourceId })).id);
    expect(viaSource.html).toContain('>Test Charity Partner website<span class="pl-sr"> (opens in a new window)</span></a>');
    const own = await openPage(ctx, (await createLink(ctx, ctx.nonProfit, { PoweredByText: 'Giving Co', PoweredByUrl: 'https://giving.example/' })).id);
    expect(own.html).toContain('<a href="https://giving.example/" rel="noopener noreferrer" target="_blank">Giving Co<span class="pl-sr"> (opens in a new window)</span></a>');
  });

  it('describes a recurring line', async () => {
    const { id } = await createLink(ctx, ctx.nonProfit, { PaymentLines: [{ Amount: '15.00', Type: 1, Recurring: 4 }] });
    const { html } = await openPage(ctx, id);
    expect(html).toContain('<span class="pl-sub">every month</span>');
    expect(html).toContain('This amount will be charged every month from now on');
    // When the payer covers the fees, the note says they are charged each time too.
    const withFees = await openPage(ctx, (await createLink(ctx, ctx.nonProfit, { PaymentLines: [{ Amount: '15.00', Type: 1, Recurring: 4, PayFee: true }] })).id);
    expect(withFees.html).toContain('This amount and the fees you cover (the total of the payment method you choose below) will be charged every month');
    expect(withFees.html).not.toContain('This amount will be charged');
  });

  it('offers the saved card of TokenGuid, and the saved account of ExternalCheckToken', async () => {
    const card = await ctx.services.tokens.tokenizeCard(ctx.nonProfit.ClientId, { cardNumber: '5555555555554444', expMonth: '11', expYear: '31', source: 'api' });
    const bank = await ctx.services.tokens.tokenizeBankAccount(ctx.nonProfit.ClientId, { routingNumber: '110000000', accountNumber: '000123456789', accountType: 1, source: 'api' });
    const { html } = await openPage(ctx, (await createLink(ctx, ctx.nonProfit, { TokenGuid: card.id, ExternalCheckToken: bank.gatewayKey })).id);
    expect(html).toContain('Use my saved card: Mastercard ending in 4444 (expires 11/31)');
    expect(html).toContain('Use my saved account: Bank account ending in 6789');
    expect(html).toMatch(/id="pl-card-saved" value="saved" checked/);
  });

  it('applies the sanitized theme, scoped to the page', async () => {
    const { id } = await createLink(ctx, ctx.nonProfit, { Theme: 'body{background:#fafafa} .pl-button{background-color:#7a1f5c} h1{display:none}</style><script>alert(1)</script>' });
    const { html } = await openPage(ctx, id);
    expect(html).toContain('#paylink{background:#fafafa}');
    expect(html).toContain('#paylink .pl-button{background-color:#7a1f5c}');
    expect(html).not.toContain('display:none}</style>');
    expect(scriptsIn(html)).toHaveLength(1);
  });

  it('follows a theme with the protective layer of the fee disclosure and totals', async () => {
    const { id } = await createLink(ctx, ctx.nonProfit, {
      Theme: '.pl-total .pl-sub{opacity:0} .pl-note{font-size:0;color:transparent!important}',
      PaymentLines: [{ Amount: '10.00', Type: 1, PayFee: true, Recurring: 4 }],
    });
    const { html } = await openPage(ctx, id);
    const style = /<style nonce="[^"]+">([^<]*#paylink \.pl-note[^<]*)<\/style>/.exec(html)?.[1] ?? '';
    const theme = style.indexOf('#paylink .pl-total .pl-sub{opacity:0}');
    const layer = style.indexOf('@layer pl-protect{');
    expect(theme).toBeGreaterThanOrEqual(0);
    expect(layer).toBeGreaterThan(theme);
    const protect = style.slice(layer);
    expect(protect).toContain('#paylink .pl-disclosure{position:relative!important;z-index:1!important;background:#fff!important}');
    expect(protect).toMatch(/#paylink \.pl-disclosure,#paylink \.pl-disclosure \*\{opacity:1!important;color:#1d1f23!important;/);
    // The lines, the recurring note and both totals are disclosures.
    expect(html).toContain('<table class="pl-lines pl-disclosure">');
    expect(html).toContain('<p class="pl-note pl-disclosure">');
    expect(html.match(/<p class="pl-total pl-disclosure">/g)).toHaveLength(2);
    // Without a theme there is nothing to protect from.
    expect((await openPage(ctx, (await createLink(ctx)).id)).html).not.toContain('@layer');
  });

  it('accepts only CSP origins in FRAME_ANCESTORS, no scheme-only source', () => {
    expect(loadConfig({}).frameAncestors).toBe("'none'");
    expect(loadConfig({ FRAME_ANCESTORS: "'self'  https://shop.example https://*.example.org:8443" }).frameAncestors).toBe("'self' https://shop.example https://*.example.org:8443");
    expect(loadConfig({ FRAME_ANCESTORS: 'http://localhost:3000 https://*.shop.example.co.uk' }).frameAncestors).toBe('http://localhost:3000 https://*.shop.example.co.uk');
    // A scheme alone, or a wildcard over a top-level domain, would let (nearly) every site frame the page.
    for (const bad of ['https:', 'http:', "'self' https:", 'https://shop.example HTTPS:', 'https://*.com', 'https://*', 'data:', 'blob:', 'wss:']) {
      expect(() => loadConfig({ FRAME_ANCESTORS: bad }), bad).toThrow(/FRAME_ANCESTORS .*a scheme alone \(https:\) would let every site frame the page/);
    }
    for (const bad of ["'none' https://shop.example", 'https://shop.example; script-src *', 'javascript:', '*', 'https://shop.example/path']) {
      expect(() => loadConfig({ FRAME_ANCESTORS: bad }), bad).toThrow(/FRAME_ANCESTORS/);
    }
  });

  it('honours FRAME_ANCESTORS', async () => {
    const framed = await createTestContext({ config: { frameAncestors: "'self' https://shop.example" } });
    try {
      const link = await createLink(framed);
      const { res } = await openPage(framed, link.id);
      expect(String(res.headers['content-security-policy'])).toContain("frame-ancestors 'self' https://shop.example");
      expect(res.headers['x-frame-options']).toBeUndefined();
    } finally {
      await framed.close();
    }
  });
});
