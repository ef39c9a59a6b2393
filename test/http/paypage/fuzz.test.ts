import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import { ACH, CARD, REDIRECT_URL, createLink, csrfOf, encodeForm, openPage, paymentCount } from './paylink-helpers.ts';
import { FUZZ_SCALE, flipCase, loggedText } from '../../helpers/fuzz.ts';

/**
 * Generative robustness tests of the hosted pay page (GET and POST /paylink/<PayLinkId>, its
 * receipt, error and not-found pages; the page's CSS and script are inlined, it has no asset
 * routes). A valid card or bank form gets 1-3 fields replaced, deleted or sent again (in another
 * letter case, or repeated exactly: an array), with odd values (huge, control characters, NUL,
 * lone surrogates, raw `%`, `%ff`, `+`), odd content types and charsets, odd origins; random and
 * oversized bodies; odd link ids, paths, query strings and methods. The contract:
 * - never a 5xx, never an error-level log line;
 * - every answer but a redirect is a whole HTML page (the page's headers and CSP, one nonce'd
 *   script: nothing of the input became markup), with a status the page documents
 *   (docs/decisions.md, "Outcomes of a submission");
 * - a refused submission records no payment, and leaves the link active and not held;
 * - a decline records one unsuccessful payment and leaves the link active and not held;
 * - a success (303 to RedirectUrl) completes the link with its one successful payment, and a
 *   second valid submission charges nothing;
 * - no card number, security code or bank account number of the input is logged, or written back
 *   into the page (the receipt shows the last 4 digits only).
 * fast-check prints the seed and the shrunk counterexample of a failure; replay it with
 * `{ seed, path }` in the property's parameters.
 */

const RUNS = { form: Math.round(120 * FUZZ_SCALE), random: Math.round(60 * FUZZ_SCALE), paths: Math.round(80 * FUZZ_SCALE), sequence: Math.round(25 * FUZZ_SCALE) };

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ config: { payLinkSubmitLimitPerLink: 1_000_000, payLinkSubmitLimitPerIp: 1_000_000 } });
}, 120_000);
afterAll(() => ctx?.close());

// ---------------------------------------------------------------------------------------------
// Links to submit to

/** An active link and a form token of its page; replaced once a submission completes it. */
interface Target {
  id: string;
  csrf: string;
}
let current: Target | undefined;
async function freshTarget(): Promise<Target> {
  const { id } = await createLink(ctx);
  return { id, csrf: csrfOf((await openPage(ctx, id)).html) };
}
async function target(): Promise<Target> {
  current ??= await freshTarget();
  return current;
}

interface LinkState {
  status: string;
  paymentId: string | null;
  held: boolean;
  /** Payments made through the link (payments.pay_link_id). */
  payments: { id: string; successful: boolean }[];
}
async function linkState(id: string): Promise<LinkState> {
  const [row] = await ctx.store.sql.query<{ status: string; payment_id: string | null; lease_until: unknown }>('SELECT status, payment_id, lease_until FROM pay_links WHERE id = $1', [id]);
  const payments = await ctx.store.sql.query<{ id: string; successful: boolean }>('SELECT id, successful FROM payments WHERE pay_link_id = $1', [id]);
  return { status: row!.status, paymentId: row!.payment_id, held: row!.lease_until !== null, payments: payments.map((p) => ({ id: p.id, successful: p.successful })) };
}

// ---------------------------------------------------------------------------------------------
// Odd values

const oddConstants = [
  '', ' ', '\t', '\n', '\r\n', '\u00a0', '\u200b', '\u0000', 'a\u0000b', '\u0001\u001f\u007f', '\u0085\u009b', '\ud800', '\udfff', 'x\ud83dy', '\uffff', '\ufeff', '\u202etxt', 'e\u0301', '🙂', '１２',
  '0', '-1', '00', '13', '99', '1e400', 'NaN', '12.0', ' 12 ', '2030', '1', '123456789', '9999999999999999999999',
  'constructor', '__proto__', 'toString', 'hasOwnProperty', 'true', 'null', 'undefined', 'card', 'ach', 'CARD', 'ACH', 'new', 'saved', 'continue', 'delete-card', 'pay',
  "' OR 1=1 --", '"><img src=x onerror=alert(1)>', '<script>alert(1)</script>', '</textarea></form><form>', '&amp;', '&#x3c;', '`${x}`', '{{7*7}}', 'javascript:alert(1)',
  'US', 'us', 'CA', 'FR', 'ZZ', 'NY', 'ny', '12345', '12345-6789', 'K1A 0B6', 'ada@example.org', 'a@b', '555-123-4567',
  '4242424242424242', '4242 4242 4242 4242', '4242-4242-4242-4242', '4000000000000002', '4000000000009995', '378282246310005', '5555555555554444', '4242424242424241',
  '110000000', '021000021', '000123456789', '000111111116', '000222222227', '987', '9876',
];

const hugeString = fc
  .tuple(fc.constantFrom('x', '9', 'é', '🙂', '\u0000', ' ', '4242424242424242', '%', '+'), fc.integer({ min: 100, max: 6_000 }))
  .map(([unit, n]) => unit.repeat(Math.ceil(n / unit.length)));

const oddValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...oddConstants) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 15 }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom('0', '4', '9', ' ', '-', '/', '.'), maxLength: 22 }) },
  { weight: 1, arbitrary: hugeString },
);

/** Text written into the body as is, not encoded: malformed or surprising percent-encoding. */
const rawFragment = fc.constantFrom('%', '%f', '%ff', '%FF%FE', '%00', '%C0%80', '%ED%A0%80', '%E2%82', '%u0041', '%%', '%2', '+', '++', '%2B', '%20', '&', '=', '==', '&&', ';', '%26', '%3D', '\u00e9', '\ud800');

/** How a value is written into the body. */
type Encoding = 'encoded' | 'plus' | 'raw';

interface Pair {
  name: string;
  value: string;
  encoding: Encoding;
  /** Appended unencoded after the value. */
  tail?: string;
}

const FORM_FIELDS = [
  'CsrfToken', 'Action', 'PaymentMethod', 'CardChoice', 'BankChoice', 'FirstName', 'LastName', 'Email', 'Phone', 'Street', 'City', 'State', 'Zip', 'Country',
  'NameOnCard', 'CardNum', 'ExpMonth', 'ExpYear', 'CVNum', 'NameOnCheck', 'CheckRoutingNumber', 'CheckAccountNumber', 'CheckAccountTypeId', 'CheckTypeId', 'TranId', 'TokenGuid',
];


type Mutation =
  | { kind: 'set'; pick: number; value: string; encoding: Encoding }
  | { kind: 'raw'; pick: number; tail: string }
  | { kind: 'delete'; pick: number }
  /** The field again, its name in another letter case (`cardnum` beside `CardNum`). */
  | { kind: 'caseDuplicate'; pick: number; value: string; upper: boolean }
  /** The field again with the exact same name: the body holds an array. */
  | { kind: 'repeat'; pick: number; value: string; first: boolean }
  | { kind: 'extra'; name: string; value: string };

const encoding = fc.constantFrom<Encoding>('encoded', 'encoded', 'plus', 'raw');
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('set' as const), pick: fc.nat(), value: oddValue, encoding }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('raw' as const), pick: fc.nat(), tail: rawFragment }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('caseDuplicate' as const), pick: fc.nat(), value: oddValue, upper: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('repeat' as const), pick: fc.nat(), value: oddValue, first: fc.boolean() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('extra' as const),
      name: fc.oneof(fc.constantFrom(...FORM_FIELDS, '__proto__', 'constructor', 'prototype', '', 'a[b]', 'CardNum[]', 'hasOwnProperty'), fc.string({ maxLength: 8 })),
      value: oddValue,
    }),
  },
);

function mutate(base: Record<string, string>, mutations: Mutation[]): Pair[] {
  const pairs: Pair[] = Object.entries(base).map(([name, value]) => ({ name, value, encoding: 'encoded' }));
  for (const m of mutations) {
    if (m.kind === 'extra') {
      pairs.push({ name: m.name, value: m.value, encoding: 'encoded' });
      continue;
    }
    if (pairs.length === 0) continue;
    const i = m.pick % pairs.length;
    const p = pairs[i]!;
    if (m.kind === 'set') pairs[i] = { ...p, value: m.value, encoding: m.encoding };
    else if (m.kind === 'raw') pairs[i] = { ...p, tail: (p.tail ?? '') + m.tail };
    else if (m.kind === 'delete') pairs.splice(i, 1);
    else if (m.kind === 'caseDuplicate') {
      const other = m.upper ? p.name.toUpperCase() : p.name.toLowerCase();
      pairs.push({ name: other === p.name ? flipCase(p.name) : other, value: m.value, encoding: 'encoded' });
    } else pairs.splice(m.first ? i : i + 1, 0, { name: p.name, value: m.value, encoding: 'encoded' });
  }
  return pairs;
}

/** encodeURIComponent, which throws on a lone surrogate: those are sent as U+FFFD, as a browser would. */
const enc = (s: string) => encodeURIComponent(s.toWellFormed());

function serialize(pairs: Pair[]): string {
  return pairs
    .map((p) => {
      const value = p.encoding === 'raw' ? p.value : p.encoding === 'plus' ? enc(p.value).replace(/%20/g, '+') : enc(p.value);
      return `${enc(p.name)}=${value}${p.tail ?? ''}`;
    })
    .join('&');
}

const FORM = 'application/x-www-form-urlencoded';
const contentType = fc.oneof(
  { weight: 14, arbitrary: fc.constant<string | undefined>(FORM) },
  {
    weight: 4,
    arbitrary: fc.constantFrom<string | undefined>(
      `${FORM}; charset=UTF-8`, `${FORM}; charset=utf-8`, `${FORM}; charset=latin1`, `${FORM}; charset=utf-16`, `${FORM}; charset="utf-8"`, `${FORM};;`, `${FORM} ; charset=x`,
      'Application/X-WWW-Form-Urlencoded', `${FORM},text/plain`, `${FORM}x`, ` ${FORM}`,
      'application/json', 'text/plain', 'multipart/form-data; boundary=x', 'text/html', '*/*', '', undefined,
    ),
  },
);

/** The browser's word on where the form comes from; mostly the page itself. */
const origin = fc.oneof(
  { weight: 10, arbitrary: fc.constant<Record<string, string>>({ 'sec-fetch-site': 'same-origin' }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom<Record<string, string>>(
      {},
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': 'none' },
      { 'sec-fetch-site': 'SAME-ORIGIN' },
      { origin: 'null' },
      { origin: 'https://evil.example' },
      { origin: 'http://localhost:80' },
      { origin: '%' },
      { origin: 'http://[' },
    ),
  },
);

// ---------------------------------------------------------------------------------------------
// The contract

/** Card numbers, security codes and account numbers a body carries, as the page must never show or log them. */
function secretsOf(pairs: Pair[]): { numbers: string[]; codes: string[] } {
  const numbers = new Set<string>();
  const codes = new Set<string>();
  const clean = (v: string) => v.toWellFormed().replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
  for (const p of pairs) {
    const v = clean(p.value);
    if (/^(cardnum|checkaccountnumber)$/i.test(p.name)) {
      const digits = v.replace(/[\s-]/g, '');
      if (/^\d{8,}$/.test(digits)) numbers.add(digits);
      for (const run of v.match(/\d[\d -]{6,}\d/g) ?? []) if (run.replace(/\D/g, '').length >= 8) numbers.add(run.slice(0, 200));
    }
    if (/^cvnum$/i.test(p.name) && /^\d{3,4}$/.test(v.trim())) codes.add(v.trim());
  }
  // A number typed into a field the page does write back (a name, the street) is no secret there.
  const elsewhere = pairs.filter((p) => !/^(cardnum|checkaccountnumber|cvnum)$/i.test(p.name)).map((p) => clean(p.value).replace(/[\s-]/g, '') + '\n' + clean(p.value));
  const shownElsewhere = (s: string) => elsewhere.some((e) => e.includes(s));
  return { numbers: [...numbers].filter((s) => !shownElsewhere(s)), codes: [...codes].filter((s) => !shownElsewhere(s)) };
}

const PAGE_STATUSES = [200, 400, 403, 404, 405, 409, 410, 413, 415, 422, 429];

/** A whole page: the page's headers, a complete document, exactly one script (the page's own). */
function expectPage(res: LightMyRequestResponse, info: string): void {
  expect(PAGE_STATUSES, info).toContain(res.statusCode);
  expect(res.headers['content-type'], info).toBe('text/html; charset=utf-8');
  expect(res.headers['content-security-policy'], info).toContain("default-src 'none'");
  expect(res.headers['cache-control'], info).toBe('no-store');
  expect(res.headers['referrer-policy'], info).toBe('no-referrer');
  const html = res.body;
  expect(html.startsWith('<!doctype html><html lang="'), info).toBe(true);
  expect(html.endsWith('</script></body></html>'), info).toBe(true);
  expect(html.match(/<script\b/gi)?.length, info).toBe(1);
  expect(html.match(/<\/main>/g)?.length, info).toBe(1);
  expect(html.match(/<form\b/g)?.length ?? 0, info).toBe(html.match(/<\/form>/g)?.length ?? 0);
  expect(html, info).toMatch(/<h1>[^<]+<\/h1>/);
  // Input is text: no tag of its own, no event handler attribute (quoted values are escaped, so dropping them is exact).
  expect(html, info).not.toMatch(/<(img|textarea|svg|iframe)\b/i);
  for (const [tag] of html.matchAll(/<[a-z][^>]*>/gi)) expect(tag.replace(/"[^"]*"/g, '""'), info).not.toMatch(/\son[a-z]+\s*=/i);
}

function expectNoErrorLogs(from: number, info: string): void {
  for (const line of ctx.logs.slice(from)) {
    const level = (JSON.parse(line) as { level?: number }).level ?? 0;
    expect(level, `${info}: ${line.slice(0, 500)}`).toBeLessThan(50);
  }
}

function expectNoSecrets(secrets: { numbers: string[]; codes: string[] }, res: LightMyRequestResponse, from: number, info: string): void {
  const logged = loggedText(ctx.logs.slice(from));
  // Form tokens and nonces are random base64: not the page's text.
  const html = res.body.replace(/value="[A-Za-z0-9:_+/=-]{40,}"/g, '').replace(/nonce(?:="|-)[A-Za-z0-9+/=]+/g, '');
  for (const n of secrets.numbers) {
    expect(logged.includes(n), `${info}: ${n} was logged`).toBe(false);
    expect(html.includes(n), `${info}: ${n} was written back into the page`).toBe(false);
  }
  for (const c of secrets.codes) {
    expect(logged.includes(`"${c}"`), `${info}: security code ${c} was logged`).toBe(false);
    expect(html.includes(`value="${c}"`), `${info}: security code ${c} was written back into the page`).toBe(false);
  }
}

interface Submission {
  id: string;
  payload: string | Buffer;
  contentType: string | undefined;
  headers?: Record<string, string>;
  secrets?: { numbers: string[]; codes: string[] };
  /** A WorkflowType 3 or 4 link: a success stores a card, nothing is ever charged. */
  saves?: boolean;
}

/**
 * Posts to a link and checks the contract against the link's state before and after. Returns the
 * answer and whether it paid the link.
 */
async function post(s: Submission): Promise<{ res: LightMyRequestResponse; paid: boolean }> {
  const before = await linkState(s.id);
  const countBefore = await paymentCount(ctx);
  const logsFrom = ctx.logs.length;
  const res = await ctx.app.inject({
    method: 'POST',
    url: `/paylink/${s.id}`,
    remoteAddress: '198.51.100.7',
    headers: { ...(s.contentType === undefined ? {} : { 'content-type': s.contentType }), ...s.headers },
    payload: s.payload,
  });
  const payloadText = typeof s.payload === 'string' ? s.payload : s.payload.toString('latin1');
  const info = `POST ${s.contentType} ${JSON.stringify(s.headers ?? {})} ${payloadText.slice(0, 400)} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
  expect(res.statusCode, info).toBeLessThan(500);
  expectNoErrorLogs(logsFrom, info);
  if (s.secrets) expectNoSecrets(s.secrets, res, logsFrom, info);

  const after = await linkState(s.id);
  const countAfter = await paymentCount(ctx);
  const successes = after.payments.filter((p) => p.successful);
  expect(successes.length, `${info}: a link paid twice`).toBeLessThanOrEqual(1);
  expect(after.held, `${info}: the link was left held`).toBe(false);
  const location = String(res.headers.location ?? '');
  const toPartner = res.statusCode === 303 && location.startsWith(REDIRECT_URL);
  // A completed link's receipt sends the payer on again (Continue) without a payment.
  const paid = toPartner && before.status === 'active' && !s.saves;
  if (s.saves) {
    expect(countAfter, `${info}: a card form recorded a payment`).toBe(countBefore);
    if (toPartner && before.status === 'active') expect(new URL(location).searchParams.get('TokenGuid'), info).toMatch(/^[0-9a-f-]{36}$/);
    else if (res.statusCode !== 303) expectPage(res, info);
  } else if (paid) {
    const query = new URL(location).searchParams;
    expect(query.get('Successful'), info).toBe('true');
    expect(query.get('responseToken'), info).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(after.status, info).toBe('completed');
    expect(after.paymentId, info).toBe(query.get('PaymentGuid'));
    expect(successes.map((p) => p.id), info).toEqual([query.get('PaymentGuid')]);
    expect(countAfter, info).toBe(countBefore + 1);
    expect(res.body, info).toBe('');
  } else {
    expect(after.status, `${info}: the link changed status`).toBe(before.status);
    expect(after.paymentId, info).toBe(before.paymentId);
    expect(successes.length, info).toBe(before.payments.filter((p) => p.successful).length);
    if (res.statusCode === 200 && before.status === 'active') {
      // A decline: one unsuccessful payment, the page again with the reason.
      expect(countAfter - countBefore, info).toBeLessThanOrEqual(1);
      expect(res.body, info).toContain('pl-alert');
    } else {
      expect(countAfter, `${info}: a refused submission recorded a payment`).toBe(countBefore);
    }
    if (toPartner) expect(new URL(location).searchParams.get('PaymentGuid'), info).toBe(before.paymentId);
    else if (res.statusCode === 303) expect([`/paylink/${s.id}`, `/paylink/${s.id}?notice=deleted`], info).toContain(location);
    else expectPage(res, info);
    // A sequential submission of an active link is never "busy": nothing holds it.
    if (before.status === 'active' && !before.held) expect(res.statusCode, info).not.toBe(409);
  }
  return { res, paid };
}

/** After a success: a valid form again (a fresh one, from the receipt) charges nothing. */
async function expectNoSecondCharge(id: string): Promise<void> {
  const receipt = await openPage(ctx, id);
  expect(receipt.res.statusCode).toBe(200);
  expect(receipt.html).not.toContain('4242424242424242');
  expect(receipt.html).not.toContain('000123456789');
  const csrf = csrfOf(receipt.html);
  for (const fields of [CARD, ACH]) {
    const { res, paid } = await post({
      id,
      payload: encodeForm({ CsrfToken: csrf, Action: 'pay', ...fields }),
      contentType: FORM,
      headers: { 'sec-fetch-site': 'same-origin' },
    });
    expect(paid).toBe(false);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/paylink/${id}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Properties

describe.each([
  ['card', CARD],
  ['bank', ACH],
] as const)('a %s form with odd fields', (_name, fields) => {
  it('keeps the contract: a page or a redirect, no payment unless paid, at most one per link, no secrets shown or logged', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), contentType, origin, async (mutations, type, headers) => {
        const t = await target();
        const pairs = mutate({ CsrfToken: t.csrf, Action: 'pay', ...fields, CVNum: '987' }, mutations);
        const { paid } = await post({ id: t.id, payload: serialize(pairs), contentType: type, headers, secrets: secretsOf(pairs) });
        if (paid) {
          await expectNoSecondCharge(t.id);
          current = undefined;
        }
      }),
      { numRuns: RUNS.form },
    );
  });
});

describe.each([
  [3, 'save-card'],
  [4, 'save-card'],
  [4, 'delete-card'],
] as const)('a WorkflowType %i %s form with odd fields', (workflowType, action) => {
  it('keeps the contract and charges nothing', async () => {
    let link: Target | undefined;
    let saved: string | undefined;
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), contentType, origin, async (mutations, type, headers) => {
        if (!link) {
          const constituent = `fuzz-${workflowType}-${action}-${Math.random().toString(36).slice(2)}`;
          const { id } = await createLink(ctx, ctx.nonProfit, { WorkflowType: workflowType, PaymentLines: [], ExternalConstituentId: constituent });
          if (action === 'delete-card') saved = (await ctx.services.tokens.tokenizeCard(ctx.nonProfit.ClientId, { cardNumber: '5555555555554444', expMonth: '09', expYear: '33', externalConstituentId: constituent, source: 'api' })).id;
          link = { id, csrf: csrfOf((await openPage(ctx, id)).html) };
        }
        const fields: Record<string, string> = action === 'delete-card' ? { TokenGuid: saved! } : { CardNum: '4242424242424242', ExpMonth: '10', ExpYear: '32', FirstName: 'Grace', LastName: 'Hopper', Zip: '12345' };
        const pairs = mutate({ CsrfToken: link.csrf, Action: action, ...fields }, mutations);
        const { res } = await post({ id: link.id, payload: serialize(pairs), contentType: type, headers, secrets: secretsOf(pairs), saves: true });
        // A stored card completes a WorkflowType 3 link; a deleted card is gone: start again.
        if (res.statusCode === 303 && (workflowType === 3 || action === 'delete-card')) link = undefined;
      }),
      { numRuns: Math.round(RUNS.form / 3) },
    );
  });
});

describe('odd bodies', () => {
  it('random bytes, random text and broken forms keep the contract', async () => {
    const almostForm = fc.tuple(fc.nat(), rawFragment).map(([cut, tail]) => {
      const text = encodeForm({ Action: 'pay', ...CARD, CVNum: '987' });
      return text.slice(0, cut % (text.length + 1)) + tail;
    });
    const body = fc.oneof(
      fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
      fc.string({ unit: 'binary', maxLength: 80 }),
      almostForm,
      fc.string({ unit: fc.constantFrom('a', '=', '&', '%', 'f', '0', '+', '[', ']', '.', '\u0000'), maxLength: 40 }),
    );
    await fc.assert(
      fc.asyncProperty(body, contentType, async (payload, type) => {
        const t = await target();
        const { paid } = await post({ id: t.id, payload, contentType: type, headers: { 'sec-fetch-site': 'same-origin' }, secrets: { numbers: ['4242424242424242'], codes: [] } });
        // Without the form token nothing can pay.
        expect(paid).toBe(false);
      }),
      { numRuns: RUNS.random },
    );
  });

  it('a valid form in Latin-1, UTF-16 or with a byte-order mark keeps the contract', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom<BufferEncoding>('latin1', 'utf16le', 'utf8'), fc.boolean(), contentType, async (bytes, bom, type) => {
        const t = await target();
        const text = (bom ? '\ufeff' : '') + encodeForm({ CsrfToken: t.csrf, Action: 'pay', ...CARD, CVNum: '987', FirstName: 'Zoë' }).replace('Zo%C3%AB', 'Zoë');
        const { paid } = await post({ id: t.id, payload: Buffer.from(text, bytes), contentType: type, headers: { 'sec-fetch-site': 'same-origin' }, secrets: { numbers: ['4242424242424242'], codes: ['987'] } });
        if (paid) {
          await expectNoSecondCharge(t.id);
          current = undefined;
        }
      }),
      { numRuns: Math.round(RUNS.random / 2) },
    );
  });

  it('a body over 16 KiB is a 413 page (415 when it is no form), never read, never paid', async () => {
    const size = fc.integer({ min: 16 * 1024 + 1, max: 300_000 });
    await fc.assert(
      fc.asyncProperty(size, contentType, fc.constantFrom('Street', 'CardNum', 'CsrfToken', 'x'), async (n, type, field) => {
        const t = await target();
        const payload = `${encodeForm({ CsrfToken: t.csrf, Action: 'pay', ...CARD, CVNum: '987' })}&${field}=${'4'.repeat(n)}`;
        const { res } = await post({ id: t.id, payload, contentType: type, headers: { 'sec-fetch-site': 'same-origin' }, secrets: { numbers: ['4242424242424242'], codes: ['987'] } });
        const form = type !== undefined && type.split(';')[0]!.trim().toLowerCase() === FORM;
        expect(res.statusCode, `${type}`).toBe(form ? 413 : 415);
      }),
      { numRuns: Math.round(RUNS.random / 3) },
    );
  });
});

const decodable = (path: string) => {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
};

describe('odd ids, paths, query strings and methods', () => {
  let active: string;
  let completed: string;
  let cancelled: string;
  beforeAll(async () => {
    active = (await createLink(ctx)).id;
    completed = (await freshTarget()).id;
    const csrf = csrfOf((await openPage(ctx, completed)).html);
    const paid = await ctx.app.inject({ method: 'POST', url: `/paylink/${completed}`, headers: { 'content-type': FORM }, payload: encodeForm({ CsrfToken: csrf, Action: 'pay', ...CARD }) });
    expect(paid.statusCode, paid.body).toBe(303);
    cancelled = (await createLink(ctx)).id;
    expect((await ctx.as(ctx.nonProfit, { method: 'DELETE', url: `/api/paylink?PayLinkId=${cancelled}` })).statusCode).toBe(200);
  });

  it('answer a page (404, 405, 410, the form or the receipt) or a redirect, never a 5xx, and pay nothing', async () => {
    const id = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom('active', 'completed', 'cancelled').map((which) => ({ which })) },
      { weight: 2, arbitrary: fc.constantFrom('', 'x', 'A'.repeat(24), 'A'.repeat(101), 'constructor', '__proto__', '%', '%ff', '%00', '%2F', '..', '.', '%2e%2e', '\u00e9', '%F0%9F%99%82', 'a;b', 'a b', '*').map((raw) => ({ raw })) },
    );
    const edit = fc.constantFrom('same', 'flip', 'truncate', 'extend', 'slash', 'double slash', 'sub', 'encoded', 'upper', 'space', 'dot');
    const query = fc.oneof(
      fc.constantFrom('', '?', '?notice=deleted', '?notice=deleted&notice=x', '?notice[]=deleted', '?notice=%ff', '?notice=%', '?__proto__=x', '?constructor[prototype]=1', '#frag', '?a=%00', `?x=${'y'.repeat(3000)}`),
      fc.string({ unit: fc.constantFrom('a', 'B', '=', '&', '%', 'f', '0', '+', ';', '[', ']', '.', '\u00e9', '?'), maxLength: 30 }).map((q) => `?${q}`),
    );
    const method = fc.constantFrom('GET', 'GET', 'POST', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS') as fc.Arbitrary<InjectOptions['method']>;
    const before = await paymentCount(ctx);
    await fc.assert(
      fc.asyncProperty(id, edit, query, method, fc.boolean(), async (which, e, q, m, withBody) => {
        const base = 'which' in which ? { active, completed, cancelled }[which.which as 'active'] : which.raw;
        const path = {
          same: base,
          flip: flipCase(base),
          truncate: base.slice(0, -1),
          extend: `${base}A`,
          slash: `${base}/`,
          'double slash': `${base}//`,
          sub: `${base}/receipt`,
          encoded: encodeURIComponent(base).replace(/A/g, '%41'),
          upper: base.toUpperCase(),
          space: `${base}%20`,
          dot: `${base}/.`,
        }[e];
        const url = `/paylink/${path}${q}`;
        const send = withBody && m !== 'GET' && m !== 'HEAD';
        const logsFrom = ctx.logs.length;
        const res = await ctx.app.inject({
          method: m,
          url,
          headers: send ? { 'content-type': FORM, 'sec-fetch-site': 'same-origin' } : {},
          payload: send ? encodeForm({ Action: 'pay', ...CARD, CVNum: '987' }) : undefined,
        });
        const info = `${m} ${url.slice(0, 300)} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
        expect(res.statusCode, info).toBeLessThan(500);
        expectNoErrorLogs(logsFrom, info);
        if (!new URL(url, 'http://localhost').pathname.startsWith('/paylink/')) {
          // `..` and its encodings leave the page (`/paylink/..` is `/`): the API's 404 problem.
          expect(res.statusCode, info).toBe(404);
          return;
        }
        const pathname = url.split(/[?#]/)[0]!;
        if (!decodable(pathname) || (pathname.split('/')[2]!.length > 100 && res.statusCode === 400)) {
          // A path the router cannot decode (`/paylink/%`), or an id over its 100-character
          // parameter limit on a method the page has, never reaches a route: src/app.ts
          // (frameworkErrors) answers with the pay page's 400 page.
          expect(res.statusCode, info).toBe(400);
          if (m === 'HEAD') expect(res.body, info).toBe('');
          else expectPage(res, info);
          return;
        }
        expect(decodable(pathname), info).toBe(true);
        if (res.statusCode === 303) expect(String(res.headers.location), info).toMatch(/^\/paylink\//);
        else if (m === 'HEAD') expect(res.body, info).toBe('');
        else expectPage(res, info);
        if (m === 'GET' && e === 'same' && 'which' in which) {
          expect(res.statusCode, info).toBe(which.which === 'cancelled' ? 410 : 200);
          if (which.which === 'completed') expect(res.body, info).toContain('Visa ending in 4242');
        }
        if (m === 'GET' && 'which' in which && (e === 'flip' || e === 'truncate' || e === 'extend' || e === 'upper') && path !== base) expect(res.statusCode, info).toBe(404);
      }),
      { numRuns: RUNS.paths },
    );
    // No form token in any of these posts: nothing was paid, and the active link is still open.
    expect(await paymentCount(ctx)).toBe(before);
    expect(await linkState(active)).toMatchObject({ status: 'active', held: false, payments: [] });
  });
});

describe('a sequence of submissions to one link', () => {
  it('pays it at most once, whatever the order of valid, odd, declined and simultaneous forms', async () => {
    const step = fc.oneof(
      { weight: 3, arbitrary: fc.record({ kind: fc.constant('valid' as const), method: fc.constantFrom('card', 'bank'), fresh: fc.boolean() }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('declined' as const), method: fc.constantFrom('card', 'bank') }) },
      { weight: 3, arbitrary: fc.record({ kind: fc.constant('odd' as const), method: fc.constantFrom('card', 'bank'), mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('continue' as const) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('together' as const), n: fc.integer({ min: 2, max: 3 }) }) },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 2, maxLength: 5 }), async (steps) => {
        const { id, csrf } = await freshTarget();
        const form = (fields: Record<string, string>, token = csrf) => encodeForm({ CsrfToken: token, Action: 'pay', ...fields });
        const headers = { 'sec-fetch-site': 'same-origin' };
        for (const s of steps) {
          if (s.kind === 'together') {
            // Simultaneous valid forms: checked together afterwards (one may see another's lease).
            const before = await linkState(id);
            const answers = await Promise.all(
              Array.from({ length: s.n }, () => ctx.app.inject({ method: 'POST', url: `/paylink/${id}`, headers: { 'content-type': FORM, ...headers }, payload: form(CARD) })),
            );
            for (const r of answers) expect(r.statusCode, r.body.slice(0, 300)).toBeLessThan(500);
            const paid = answers.filter((r) => String(r.headers.location ?? '').startsWith(REDIRECT_URL));
            const after = await linkState(id);
            expect(paid.length).toBe(before.status === 'active' ? 1 : 0);
            expect(after.payments.filter((p) => p.successful)).toHaveLength(1);
            expect(after).toMatchObject({ status: 'completed', held: false });
            continue;
          }
          const fields: Record<string, string> = s.kind === 'continue' ? { Action: 'continue' } : s.kind !== 'valid' && s.kind !== 'declined' ? {} : s.method === 'card' ? CARD : ACH;
          let payload: string;
          let secrets: { numbers: string[]; codes: string[] } | undefined;
          if (s.kind === 'odd') {
            const pairs = mutate({ CsrfToken: csrf, Action: 'pay', ...(s.method === 'card' ? CARD : ACH), CVNum: '987' }, s.mutations);
            payload = serialize(pairs);
            secrets = secretsOf(pairs);
          } else if (s.kind === 'declined') {
            payload = form(s.method === 'card' ? { ...CARD, CardNum: '4000000000000002' } : { ...ACH, CheckAccountNumber: '000111111116' });
          } else {
            const token = s.kind === 'valid' && s.fresh ? csrfOf((await openPage(ctx, id)).html) : csrf;
            payload = s.kind === 'continue' ? encodeForm({ CsrfToken: token, Action: 'continue' }) : form(fields, token);
          }
          const before = await linkState(id);
          const { res, paid } = await post({ id, payload, contentType: FORM, headers, secrets });
          if (s.kind === 'valid') expect(paid || before.status === 'completed', res.body.slice(0, 300)).toBe(true);
          if (s.kind === 'declined' && before.status === 'active') expect(res.statusCode).toBe(200);
          if (s.kind === 'continue' && before.status === 'completed') expect(String(res.headers.location)).toMatch(/^https:\/\/partner\.example\/thanks\?order=42&responseToken=/);
        }
        const end = await linkState(id);
        expect(end.payments.filter((p) => p.successful).length).toBe(end.status === 'completed' ? 1 : 0);
        if (end.status === 'completed') await expectNoSecondCharge(id);
      }),
      { numRuns: RUNS.sequence },
    );
  });
});
