import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type TestContext, createTestContext } from '../helpers/context.ts';
import { hasChromium } from '../helpers/tools.ts';
import { type Body, linkBody } from '../http/paypage/paylink-helpers.ts';

/**
 * The pay page in a real browser: Debian's Chromium, headless, driven by playwright-core. One
 * browser for the file; each test has its own browser context. The app listens on a real port,
 * and a second tiny server plays the partner's site that RedirectUrl points at.
 */

const ROOT = join(import.meta.dirname, '..', '..');
const ARTIFACTS = join(ROOT, 'test-artifacts');
const AXE = readFileSync(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

let ctx: TestContext;
let browser: Browser;
let base: string;
let partnerSite: Server;
let partnerBase: string;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

const browserAvailable = hasChromium();

beforeAll(async () => {
  if (!browserAvailable) return;
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  ctx = await createTestContext({ config: { publicBaseUrl: base, payLinkSubmitLimitPerLink: 1000, payLinkSubmitLimitPerIp: 1000 } });
  await ctx.app.listen({ port, host: '127.0.0.1' });
  partnerSite = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="en"><head><title>Thanks</title></head><body><main><h1>Thank you</h1><p>${req.url?.length ?? 0}</p></main></body></html>`);
  });
  await new Promise<void>((resolve) => partnerSite.listen(0, '127.0.0.1', resolve));
  partnerBase = `http://127.0.0.1:${(partnerSite.address() as { port: number }).port}`;
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  mkdirSync(ARTIFACTS, { recursive: true });
});

afterAll(async () => {
  if (!browserAvailable) return;
  await browser?.close();
  await new Promise((resolve) => partnerSite?.close(resolve));
  await ctx?.close();
});

interface Session {
  context: BrowserContext;
  page: Page;
  /** Every URL the browser asked for. */
  requests: string[];
  /** Console messages about the Content-Security-Policy, and page errors. */
  problems: string[];
}

const sessions: Session[] = [];
afterEach(async () => {
  for (const s of sessions.splice(0)) await s.context.close();
});

async function open(url: string, options: { context?: Parameters<Browser['newContext']>[0]; before?: (page: Page) => Promise<void> } = {}): Promise<Session> {
  const context = await browser.newContext({ locale: 'en-US', ...options.context });
  const page = await context.newPage();
  await options.before?.(page);
  const session: Session = { context, page, requests: [], problems: [] };
  page.on('request', (r) => session.requests.push(r.url()));
  page.on('console', (m) => {
    if (/content security policy|refused to/i.test(m.text())) session.problems.push(m.text());
  });
  page.on('pageerror', (e) => session.problems.push(String(e)));
  sessions.push(session);
  await page.goto(url);
  return session;
}

async function newLink(overrides: Body = {}, partner = ctx.nonProfit): Promise<string> {
  const res = await ctx.as(partner, { method: 'POST', url: '/api/paylink', payload: linkBody(partner, { RedirectUrl: `${partnerBase}/thanks?order=7`, ...overrides }) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().PayLinkUrl;
}

const paylinkResult = (token: string) => ctx.as(ctx.nonProfit, { method: 'GET', url: `/api/paylinkResult?ResponseToken=${encodeURIComponent(token)}` });

/** Only the service and the partner's site were asked for anything. */
function expectNoExternalRequests(s: Session) {
  const foreign = s.requests.filter((u) => !u.startsWith(`${base}/`) && !u.startsWith(`${partnerBase}/`) && !u.startsWith('data:'));
  expect(foreign).toEqual([]);
  expect(s.problems).toEqual([]);
}

async function axeViolations(page: Page): Promise<{ id: string; impact: string; nodes: number }[]> {
  await page.evaluate(AXE);
  const result = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] })')) as {
    violations: { id: string; impact: string; nodes: unknown[] }[];
  };
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
}

async function fillCard(page: Page, card = '4242 4242 4242 4242') {
  await page.getByLabel('Email').fill('ada@example.org');
  await page.getByLabel('Name on card').fill('Ada Lovelace');
  await page.getByLabel('Card number').fill(card);
  await page.getByLabel('Expiry month (MM)').fill('12');
  await page.getByLabel('Expiry year (YY)').fill('30');
  await page.getByLabel('Security code (CVV)').fill('123');
}

/**
 * What keeps the page's disclosures (.pl-disclosure: the lines, the recurring note, the shown total)
 * from being read, as the browser renders them: opacity or a text decoration on the element or a
 * container, text under 12px, another colour than the page's, shadows or spacing, a place outside
 * the page, or another element painted over any of its text. Run in the page.
 */
const DISCLOSURE_PROBLEMS = String.raw`(() => {
  const out = [];
  const shown = [...document.querySelectorAll('.pl-disclosure')].filter((el) => el.getClientRects().length > 0);
  if (shown.length !== 3) out.push(shown.length + ' disclosures shown, not 3 (lines, recurring note, card total)');
  for (const el of shown) {
    const name = el.className;
    for (let a = el; a; a = a.parentElement) {
      const cs = getComputedStyle(a);
      if (cs.opacity !== '1') out.push(name + ': opacity ' + cs.opacity + ' on ' + a.tagName);
      if (cs.textDecorationLine !== 'none') out.push(name + ': text decoration ' + cs.textDecorationLine + ' on ' + a.tagName);
    }
    el.scrollIntoView({ block: 'center', inline: 'center' });
    const box = el.getBoundingClientRect();
    const left = box.left + window.scrollX, top = box.top + window.scrollY;
    if (left < 0 || box.right + window.scrollX > document.documentElement.clientWidth || top < 0) out.push(name + ': outside the page at ' + Math.round(left) + ', ' + Math.round(top));
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent.trim();
      if (!text) continue;
      const cs = getComputedStyle(node.parentElement);
      if (parseFloat(cs.fontSize) < 12) out.push(name + ': font size ' + cs.fontSize + ' for "' + text + '"');
      if (!/^rgb\((29, 31, 35|74, 80, 91)\)$/.test(cs.color)) out.push(name + ': colour ' + cs.color + ' for "' + text + '"');
      if (cs.textShadow !== 'none' || cs.letterSpacing !== 'normal') out.push(name + ': text shadow or spacing for "' + text + '"');
      const range = document.createRange();
      range.selectNodeContents(node);
      const r = range.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      if (!hit || !el.contains(hit)) out.push(name + ': "' + text + '" is covered by ' + (hit ? hit.tagName + '#' + hit.id + '.' + hit.className : 'nothing'));
    }
  }
  return out;
})()`;

describe.skipIf(!browserAvailable)('the pay page in Chromium', () => {
  it('pays by card, arrives at the RedirectUrl, and the partner confirms once', async () => {
    const url = await newLink({ FirstName: 'Ada', LastName: 'Lovelace', PaymentLines: [{ Amount: '42.00', Type: 1 }] });
    const s = await open(url);
    expect(await s.page.title()).toBe('Secure payment');
    await s.page.screenshot({ path: join(ARTIFACTS, 'paylink-page.png'), fullPage: true });
    await fillCard(s.page);
    await Promise.all([s.page.waitForURL(`${partnerBase}/thanks**`), s.page.getByRole('button', { name: 'Submit Payment' }).click()]);
    const landed = new URL(s.page.url());
    expect(landed.searchParams.get('order')).toBe('7');
    expect(landed.searchParams.get('Successful')).toBe('true');
    const token = landed.searchParams.get('responseToken')!;
    const confirmed = await paylinkResult(token);
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.json()).toMatchObject({ Successful: true, TotalAmount: 42, CardNum: '4242', PaymentGuid: landed.searchParams.get('PaymentGuid') });
    expect((await paylinkResult(token)).statusCode).toBe(404);
    expectNoExternalRequests(s);

    await s.page.goto(url);
    await expect.poll(() => s.page.locator('h1').textContent()).toBe('Thank you!');
    expect(await s.page.locator('#pl-alert').textContent()).toContain('Your payment of $42.00 was received.');
    await s.page.screenshot({ path: join(ARTIFACTS, 'paylink-receipt.png'), fullPage: true });
  });

  it('shows a decline, focuses it, and lets the payer try again', async () => {
    const s = await open(await newLink());
    await fillCard(s.page, '4000 0000 0000 0002');
    await s.page.getByRole('button', { name: 'Submit Payment' }).click();
    const alert = s.page.getByRole('alert');
    await expect.poll(() => alert.textContent()).toContain('Your payment was declined by the bank.');
    expect(await s.page.evaluate('document.activeElement && document.activeElement.id')).toBe('pl-alert');
    // The card number is never put back into the page.
    expect(await s.page.getByLabel('Card number').inputValue()).toBe('');
    expect(await s.page.getByLabel('Email').inputValue()).toBe('ada@example.org');
    await fillCard(s.page);
    await Promise.all([s.page.waitForURL(`${partnerBase}/thanks**`), s.page.getByRole('button', { name: 'Submit Payment' }).click()]);
    expect((await paylinkResult(new URL(s.page.url()).searchParams.get('responseToken')!)).json().Successful).toBe(true);
    expectNoExternalRequests(s);
  });

  it('pays by ACH from the bank account tab', async () => {
    const s = await open(await newLink({ State: 'NY', Country: 'US' }));
    expect(await s.page.getByLabel('Routing number').isVisible()).toBe(false);
    await s.page.getByText('Bank account (ACH)').click();
    expect(await s.page.getByLabel('Routing number').isVisible()).toBe(true);
    expect(await s.page.getByLabel('Card number').isVisible()).toBe(false);
    await s.page.getByLabel('Email').fill('ada@example.org');
    await s.page.getByLabel('Account holder name').fill('Ada Lovelace');
    await s.page.getByLabel('Routing number').fill('110000000');
    await s.page.getByLabel('Account number').fill('000123456789');
    await s.page.getByLabel('Account type').selectOption('2');
    await s.page.screenshot({ path: join(ARTIFACTS, 'paylink-ach.png'), fullPage: true });
    await Promise.all([s.page.waitForURL(`${partnerBase}/thanks**`), s.page.getByRole('button', { name: 'Submit Payment' }).click()]);
    const body = (await paylinkResult(new URL(s.page.url()).searchParams.get('responseToken')!)).json();
    expect(body).toMatchObject({ Successful: true, PaymentMethodTypeId: 7, CheckAccountNum: '6789' });
    expectNoExternalRequests(s);
  });

  it('starts a recurring profile from a recurring line', async () => {
    const url = await newLink({ PaymentLines: [{ Amount: '12.00', Type: 1, Recurring: 4 }] });
    const s = await open(url);
    expect(await s.page.getByText('This amount will be charged every month').isVisible()).toBe(true);
    await fillCard(s.page);
    await Promise.all([s.page.waitForURL(`${partnerBase}/thanks**`), s.page.getByRole('button', { name: 'Submit Payment' }).click()]);
    const payment = (await paylinkResult(new URL(s.page.url()).searchParams.get('responseToken')!)).json();
    const [profile] = await ctx.store.sql.query<{ status: string; billing_frequency: string; token_id: string; amount_cents: string }>(
      'SELECT p.status, p.billing_frequency, p.token_id, p.amount_cents FROM recurring_profiles p JOIN pay_links l ON l.recurring_profile_id = p.id WHERE l.id = $1',
      [url.split('/').pop()],
    );
    expect(profile).toMatchObject({ status: 'active', billing_frequency: 'Monthly', token_id: payment.TokenGuid });
    expect(Number(profile!.amount_cents)).toBe(1200);
    await s.page.goto(url);
    expect(await s.page.getByText('Your recurring payment is set up: $12.00 every month.').isVisible()).toBe(true);
  });

  it('can be paid with the keyboard alone, with focus always visible', async () => {
    const s = await open(await newLink());
    const { page } = s;
    const active = () => page.evaluate('document.activeElement ? document.activeElement.id : ""') as Promise<string>;
    const focusVisible = () =>
      page.evaluate(`(() => {
        const el = document.activeElement;
        const target = el.matches('.pl-tab input, .pl-choice input') ? el.nextElementSibling : el;
        const style = getComputedStyle(target);
        return style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2;
      })()`) as Promise<boolean>;
    /** Presses Tab until the element with `id` has focus (keyboard only), checking focus is visible on the way. */
    const tabTo = async (id: string) => {
      for (let i = 0; i < 40; i++) {
        await page.keyboard.press('Tab');
        if (await active()) expect(await focusVisible(), `focus visible on #${await active()}`).toBe(true);
        if ((await active()) === id) return;
      }
      throw new Error(`Tab never reached #${id}`);
    };
    await tabTo('pl-Email');
    await page.keyboard.type('ada@example.org');
    await tabTo('pl-Country');
    await page.keyboard.type('United States');
    await tabTo('pl-method-card');
    // Arrow keys move between the method tabs, as in any radio group; back to card again.
    await page.keyboard.press('ArrowRight');
    expect(await active()).toBe('pl-method-ach');
    expect(await page.getByLabel('Routing number').isVisible()).toBe(true);
    await page.keyboard.press('ArrowLeft');
    expect(await active()).toBe('pl-method-card');
    await tabTo('pl-NameOnCard');
    await page.keyboard.type('Ada Lovelace');
    await page.keyboard.press('Tab');
    await page.keyboard.type('4242424242424242');
    await page.keyboard.press('Tab');
    await page.keyboard.type('12');
    await page.keyboard.press('Tab');
    await page.keyboard.type('30');
    await page.keyboard.press('Tab');
    await page.keyboard.type('123');
    await tabTo('pl-submit');
    await Promise.all([page.waitForURL(`${partnerBase}/thanks**`), page.keyboard.press('Enter')]);
    expect(new URL(page.url()).searchParams.get('Successful')).toBe('true');
    expectNoExternalRequests(s);
  });

  it('shows a French page, with French errors', async () => {
    const s = await open(await newLink({ Language: 'fr-CA', DefaultCountryCode: 'CA' }));
    expect(await s.page.getAttribute('html', 'lang')).toBe('fr');
    expect(await s.page.title()).toBe('Paiement sécurisé');
    expect(await s.page.getByLabel('Pays').inputValue()).toBe('CA');
    await s.page.getByLabel('Numéro de carte').fill('1234');
    await s.page.getByRole('button', { name: 'Valider le paiement' }).click();
    const alert = s.page.getByRole('alert');
    await expect.poll(() => alert.textContent()).toContain('Veuillez corriger');
    expect(await alert.textContent()).toContain('Numéro de carte\u00a0: Saisissez un numéro de carte valide.');
    expect(await s.page.getByLabel('Numéro de carte').getAttribute('aria-invalid')).toBe('true');
    expect(await s.page.getByLabel('Numéro de carte').getAttribute('aria-describedby')).toBe('pl-CardNum-error');
    await s.page.screenshot({ path: join(ARTIFACTS, 'paylink-fr-errors.png'), fullPage: true });
    expectNoExternalRequests(s);
  });

  it('has no serious or critical axe-core violations: form, errors, ACH tab, receipt, card wallet, delete confirmation, French', async () => {
    const pages: Record<string, { id: string; impact: string; nodes: number }[]> = {};
    const s = await open(await newLink({ ShowTransactionId: true, PaymentLines: [{ Amount: '30.00', Type: 1, PayFee: true }, { Amount: '10.00', Type: 4 }] }));
    pages.form = await axeViolations(s.page);
    await s.page.getByRole('button', { name: 'Submit Payment' }).click();
    await s.page.getByRole('alert').waitFor();
    pages.errors = await axeViolations(s.page);
    await s.page.getByText('Bank account (ACH)').click();
    pages.ach = await axeViolations(s.page);

    const paidUrl = await newLink();
    const paid = await open(paidUrl);
    await fillCard(paid.page);
    await Promise.all([paid.page.waitForURL(`${partnerBase}/thanks**`), paid.page.getByRole('button', { name: 'Submit Payment' }).click()]);
    await paid.page.goto(paidUrl);
    pages.receipt = await axeViolations(paid.page);

    await ctx.services.tokens.tokenizeCard(ctx.nonProfit.ClientId, { cardNumber: '4242424242424242', expMonth: '12', expYear: '30', externalConstituentId: 'axe-donor', source: 'api' });
    const wallet = await open(await newLink({ WorkflowType: 4, PaymentLines: [], ExternalConstituentId: 'axe-donor' }));
    pages.wallet = await axeViolations(wallet.page);
    await wallet.page.getByRole('button', { name: /^Delete / }).click();
    await wallet.page.locator('#pl-delete-question').waitFor();
    pages.deleteConfirm = await axeViolations(wallet.page);

    const french = await open(await newLink({ Language: 'fr' }));
    pages.french = await axeViolations(french.page);
    expect(pages).toEqual({ form: [], errors: [], ach: [], receipt: [], wallet: [], deleteConfirm: [], french: [] });
  });

  it.each([
    ['hidden, shrunk, recoloured (the review\'s theme)', '.pl-total .pl-sub{opacity:0} .pl-note{font-size:0;color:transparent} #pl-submit{margin-top:-500px;height:3000px} .pl-lines{max-height:0}'],
    ['through their containers', 'body,main,form,fieldset,.pl-box,.pl-panel-card{opacity:0;font-size:0;letter-spacing:-1em;text-decoration:line-through 40px #fff}'],
    ['moved off screen', '.pl-methods{margin-left:-9999px} .pl-summary{margin-top:-9999px;padding-left:9999px} .pl-total{margin-left:9999px} .pl-panel-card{padding-left:9999px;max-width:0} main{margin-left:-9999px}'],
    ['covered by other elements', '#pl-submit{margin-top:-600px;height:600px;background:#fff;color:#fff;box-shadow:0 0 0 3000px #fff} h2{font-size:400px;line-height:0;color:#fff} .pl-tab label{margin-top:-400px;padding:400px;background:#fff}'],
    ['matching colours with !important and many ids', '#pl-form#pl-form#pl-form .pl-total.pl-total,#paylink#paylink .pl-lines td{color:#fff!important;background:#fff!important;font-size:0!important;text-shadow:0 0 0 #fff!important} .pl-box{background:#fff}'],
  ])('keeps the totals and the fee disclosure readable whatever the theme: %s', async (_name, theme) => {
    const s = await open(await newLink({ Theme: theme, PaymentLines: [{ Amount: '100.00', Type: 1, PayFee: true, Recurring: 4 }] }));
    const problems = (await s.page.evaluate(DISCLOSURE_PROBLEMS)) as string[];
    expect(problems).toEqual([]);
    expect(await s.page.locator('.pl-total').first().textContent()).toMatch(/^Total by card: \$\d+\.\d\dProcessing fees \(covered by you\): \$\d+\.\d\d/);
  });

  it('keeps a themed page on its own origin and lets the partner frame nothing by default', async () => {
    const s = await open(await newLink({ Theme: 'body{background:url(https://cdn.example/bg.png)} .pl-button{background-color:#5b1a8a}', ThemeFonts: ['Georgia:400'] }));
    const button = await s.page.evaluate(`getComputedStyle(document.querySelector('.pl-button')).backgroundColor`);
    expect(button).toBe('rgb(91, 26, 138)');
    expect(await s.page.evaluate(`getComputedStyle(document.body).fontFamily`)).toContain('Georgia');
    await s.page.screenshot({ path: join(ARTIFACTS, 'paylink-themed.png'), fullPage: true });
    expectNoExternalRequests(s);
  });
  it('shows the chosen tab and saved-card choice in forced colours (high contrast), themed or not', async () => {
    const card = await ctx.services.tokens.tokenizeCard(ctx.nonProfit.ClientId, { cardNumber: '4242424242424242', expMonth: '12', expYear: '30', source: 'api' });
    // System colours are colours a theme may use: it could paint the chosen tab like the other one.
    const flattening =
      '.pl-tab input:checked+label{background:Canvas!important;color:CanvasText!important;border:1px solid CanvasText!important} ' +
      '.pl-choice input:checked+label{border:1px solid CanvasText!important}';
    for (const theme of [undefined, flattening]) {
      const s = await open(await newLink({ TokenGuid: card.id, ...(theme ? { Theme: theme } : {}) }), { context: { forcedColors: 'active' } });
      /** How a label (or its dot) is painted: background, border width and colour, text colour. */
      const looks = (id: string, pseudo?: string) =>
        s.page.evaluate(`(() => {
          const cs = getComputedStyle(document.querySelector('label[for="${id}"]'), ${pseudo ? `'${pseudo}'` : 'null'});
          return cs.backgroundColor + ' ' + cs.borderTopWidth + ' ' + cs.borderTopColor + ' ' + cs.color;
        })()`) as Promise<string>;
      expect(await s.page.evaluate('matchMedia("(forced-colors: active)").matches')).toBe(true);
      expect(await looks('pl-method-card'), `tabs, theme ${theme}`).not.toBe(await looks('pl-method-ach'));
      expect(await looks('pl-card-saved'), `choices, theme ${theme}`).not.toBe(await looks('pl-card-new'));
      expect(await looks('pl-card-saved', '::before'), `choice dots, theme ${theme}`).not.toBe(await looks('pl-card-new', '::before'));
      // The mark follows the payer's choice.
      const chosen = await looks('pl-method-card');
      await s.page.getByText('Bank account (ACH)').click();
      expect(await looks('pl-method-ach')).toBe(chosen);
      expect(await looks('pl-method-card')).not.toBe(chosen);
      if (!theme) await s.page.screenshot({ path: join(ARTIFACTS, 'paylink-forced-colors.png'), fullPage: true });
    }
  });

  it('keeps the focus ring, the errors, the alert and the chosen tab visible whatever the theme', async () => {
    const theme =
      ':focus-visible{outline-color:transparent;outline-offset:-3px} #paylink{background:#1a5fb4} fieldset,.pl-field,input{opacity:.05} ' +
      '.pl-error{font-size:0;color:#fff;background:#fff;margin-top:-40px} #pl-alert{color:#fdecea;background:#fdecea;font-size:0;border-color:#fdecea} #pl-alert *{font-size:0} ' +
      '.pl-tab label{background:#0b57a4;color:#fff} .pl-tab input:checked+label{background:#fff;color:#1d1f23;border-color:#6b7280}';
    const s = await open(await newLink({ Theme: theme }));
    const { page } = s;
    /** Contrast ratio of an element's text colour on its own background (both opaque). */
    const CHECK = String.raw`((el) => {
      const rgb = (c) => c.match(/[\d.]+/g).slice(0, 4).map(Number);
      const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }).reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
      const cs = getComputedStyle(el);
      const fg = rgb(cs.color), bg = rgb(cs.backgroundColor);
      const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
      let opacity = 1;
      for (let e = el; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
      return { contrast: Math.round(((a + 0.05) / (b + 0.05)) * 10) / 10, bgAlpha: bg.length === 4 ? bg[3] : 1, fontSize: parseFloat(cs.fontSize), opacity, visibility: cs.visibility, display: cs.display, background: cs.backgroundColor };
    })`;
    const check = (selector: string) => page.evaluate(`${CHECK}(document.querySelector(${JSON.stringify(selector)}))`) as Promise<{ contrast: number; bgAlpha: number; fontSize: number; opacity: number; visibility: string; display: string; background: string }>;

    await page.keyboard.press('Tab');
    const ring = (await page.evaluate(`(() => {
      const el = document.activeElement;
      const cs = getComputedStyle(el);
      let opacity = 1;
      for (let e = el; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
      return { id: el.id, outline: cs.outlineStyle + ' ' + cs.outlineWidth + ' ' + cs.outlineColor, offset: cs.outlineOffset, halo: cs.boxShadow, opacity };
    })()`)) as { id: string; outline: string; offset: string; halo: string; opacity: number };
    expect(ring).toEqual({ id: 'pl-FirstName', outline: 'solid 3px rgb(26, 95, 180)', offset: '2px', halo: 'rgb(255, 255, 255) 0px 0px 0px 2px', opacity: 1 });

    // The theme swapped the tabs' colours: the chosen one must still look chosen (the page's blue).
    const tabs = { checked: await check('label[for="pl-method-card"]'), other: await check('label[for="pl-method-ach"]') };
    expect([tabs.checked.background, tabs.other.background]).toEqual(['rgb(11, 87, 164)', 'rgb(255, 255, 255)']);
    expect(tabs.checked.contrast).toBeGreaterThanOrEqual(4.5);
    expect(tabs.other.contrast).toBeGreaterThanOrEqual(4.5);

    await page.getByRole('button', { name: 'Submit Payment' }).click();
    await page.locator('.pl-error').first().waitFor({ state: 'attached' });
    for (const selector of ['#pl-alert', '#pl-alert a', '.pl-error']) {
      const seen = await check(selector);
      expect(seen.fontSize, selector).toBeGreaterThanOrEqual(12);
      expect(seen.opacity, selector).toBe(1);
      expect(seen.visibility, selector).toBe('visible');
      if (selector !== '#pl-alert a') {
        expect(seen.bgAlpha, selector).toBe(1);
        expect(seen.contrast, selector).toBeGreaterThanOrEqual(4.5);
      }
    }
    // The error is not covered by anything (the theme pulled it up under the field).
    const covered = await page.evaluate(`(() => {
      const el = document.querySelector('.pl-error');
      el.scrollIntoView({ block: 'center' });
      const r = el.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + 5, r.top + r.height / 2);
      return hit === el || el.contains(hit) ? '' : hit.tagName + '#' + hit.id;
    })()`);
    expect(covered).toBe('');
    await page.screenshot({ path: join(ARTIFACTS, 'paylink-themed-errors.png'), fullPage: true });
    expectNoExternalRequests(s);
  });

  it('announces "processing" in a polite live region, and gives an interrupted submission its form back', async () => {
    const s = await open(await newLink(), { before: (page) => page.clock.install() });
    const { page } = s;
    // Submissions the page let through are counted and then stopped (as the browser's Stop would
    // leave them): a listener after the page's own, which cancels a second submission itself.
    await page.evaluate(`window.sent = 0; window.addEventListener('submit', (e) => { if (!e.defaultPrevented) window.sent++; e.preventDefault(); })`);
    const state = () =>
      page.evaluate(`({
        sent: window.sent,
        busy: document.querySelector('#pl-form').getAttribute('data-busy'),
        button: document.querySelector('#pl-submit').textContent,
        disabled: document.querySelector('#pl-submit').getAttribute('aria-disabled'),
        status: document.querySelector('#pl-status').textContent,
      })`) as Promise<{ sent: number; busy: string | null; button: string; disabled: string | null; status: string }>;
    const idle = { busy: null, button: 'Submit Payment', disabled: null, status: '' };
    const busy = { busy: '1', button: 'Processing…', disabled: 'true', status: 'Your payment is being processed. Please wait…' };
    expect(await page.getByRole('status').count()).toBe(1);
    expect(await state()).toEqual({ sent: 0, ...idle });
    await fillCard(page);
    await page.locator('#pl-submit').click();
    expect(await state()).toEqual({ sent: 1, ...busy });
    expect(await page.getByRole('status').textContent()).toBe('Your payment is being processed. Please wait…');
    // A second press sends nothing while the first may still be under way...
    await page.keyboard.press('Enter');
    await page.clock.runFor(89_000);
    expect(await state()).toEqual({ sent: 1, ...busy });
    // ... until 90 seconds went by without an answer (the browser's Stop, a lost connection).
    await page.clock.runFor(2_000);
    expect(await state()).toEqual({ sent: 1, ...idle });
    await page.locator('#pl-submit').click();
    expect(await state()).toEqual({ sent: 2, ...busy });
    // Shown again (back/forward cache): the form is usable at once.
    await page.evaluate(`window.dispatchEvent(new PageTransitionEvent('pageshow', { persisted: true }))`);
    expect(await state()).toEqual({ sent: 2, ...idle });
    expectNoExternalRequests(s);
  });

  it('reflows a long reference and the receipt at 320px, with no sideways scrolling', async () => {
    const tranId = `INV-2025-${'0'.repeat(30)}123456789`;
    const url = await newLink({ TranId: tranId, ShowTransactionId: true });
    const s = await open(url, { context: { viewport: { width: 320, height: 640 } } });
    const overflow = () => s.page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(await s.page.locator('.pl-ref').textContent()).toBe(`Reference: ${tranId}`);
    expect(await overflow()).toBe(0);
    await fillCard(s.page);
    await Promise.all([s.page.waitForURL(`${partnerBase}/thanks**`), s.page.getByRole('button', { name: 'Submit Payment' }).click()]);
    await s.page.goto(url);
    expect(await s.page.locator('.pl-receipt').textContent()).toContain(tranId);
    expect(await overflow()).toBe(0);
    await s.page.screenshot({ path: join(ARTIFACTS, 'paylink-receipt-320.png'), fullPage: true });
  });
});
