import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardToken, createProfile } from '../../modules/recurring/fixtures.ts';
import { type TestContext, type TestPartner, createTestContext } from '../../helpers/context.ts';
import { linkBody } from '../paypage/paylink-helpers.ts';
import { FUZZ_SCALE, flipCase, loggedText } from '../../helpers/fuzz.ts';

/**
 * Generative robustness tests of surface A: every route gets mostly-valid requests with one or
 * more values replaced by odd ones (wrong JSON types, huge strings, control characters, NaN-ish
 * numbers, nested containers, null, duplicate keys in another letter case), and fully random
 * JSON. Whatever arrives, the error contract holds:
 * - never a 5xx;
 * - 400 is a non-empty JSON array of BrokenRule objects;
 * - every other 4xx is RFC 9457 problem details (application/problem+json);
 * - a refused POST /api/payment or /api/paymentAch records no payment;
 * - no card number (or bank account number) of the request reaches a log line.
 * fast-check prints the seed and the shrunk counterexample of a failure; replay it with
 * `{ seed, path }` in the property's parameters.
 */

const RUNS = { mutated: Math.round(150 * FUZZ_SCALE), random: Math.round(60 * FUZZ_SCALE) };

let ctx: TestContext;
let paymentGuid: string;
let transactionId: string;
let tokenGuid: string;
let profileGuid: string;

beforeAll(async () => {
  ctx = await createTestContext();
  const paid = await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload: cardBody() });
  expect(paid.statusCode, paid.body).toBe(201);
  ({ PaymentGuid: paymentGuid, TransactionId: transactionId } = paid.json() as { PaymentGuid: string; TransactionId: string });
  tokenGuid = (await cardToken(ctx, ctx.nonProfit)).id;
  const profile = await createProfile(ctx, { TokenGuid: tokenGuid, Amount: '25.00', StartDate: '2026-11-21', BillingFrequency: 'Monthly' });
  expect(profile.statusCode, profile.body).toBe(201);
  profileGuid = (profile.json() as { RecurringProfileGuid: string }).RecurringProfileGuid;
}, 120_000);
afterAll(() => ctx?.close());

// ---------------------------------------------------------------------------------------------
// Valid requests to start from

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

const CARD = '4242424242424242';
const ACCOUNT = '000123456789';

function cardBody(): Obj {
  return {
    CardNum: CARD, ExpMonth: '12', ExpYear: '30', CVNum: '123', NameOnCard: 'Ada Lovelace', Email: 'ada@example.org', IpAddress: '203.0.113.9',
    FirstName: 'Ada', Zip: '12345', Country: 'US', TranId: 'inv-1', ShippingFee: '1.00', Surcharge: '0.50', Tokenize: false,
    Transactions: [{ TransactionSourceGroupId: '1', Amount: '10.00', PayFee: true, Tip: '1.00', Tax: '0.10', CommissionRateOverride: '5', CardProcessingFeeOverride: '2.9', ExternalLineId: 'l1' }],
    GwShieldAdditional: { ClientFullName: 'Ada Lovelace' },
  };
}
function achBody(): Obj {
  return {
    CheckRoutingNumber: '110000000', CheckAccountNumber: ACCOUNT, CheckAccountTypeId: '1', CheckTypeId: '1', NameOnCheck: 'Ada Lovelace', State: 'NY',
    Email: 'ada@example.org', IpAddress: '203.0.113.9', TaxableBenefit: '0.00', Transactions: [{ TransactionSourceGroupId: '1', Amount: '10.00' }],
  };
}

interface BodyRoute {
  name: string;
  method: 'POST' | 'PUT';
  url: string;
  public?: boolean;
  /** Counts `payments` rows before and after: a refused request records nothing. */
  recordsPayments?: boolean;
  body(): Obj;
}
interface QueryRoute {
  name: string;
  method: 'GET' | 'DELETE';
  url: string;
  public?: boolean;
  query(): Record<string, string>;
}

const bodyRoutes: BodyRoute[] = [
  { name: 'payment', method: 'POST', url: '/api/payment', recordsPayments: true, body: cardBody },
  { name: 'paymentAch', method: 'POST', url: '/api/paymentAch', recordsPayments: true, body: achBody },
  { name: 'refund', method: 'POST', url: '/api/refund', body: () => ({ PaymentGuid: paymentGuid, PaymentExternalId: transactionId, Reason: 'asked' }) },
  { name: 'void', method: 'POST', url: '/api/void', body: () => ({ PaymentGuid: paymentGuid, Reason: 'asked' }) },
  {
    name: 'fees',
    method: 'POST',
    url: '/api/fees',
    body: (): Obj => ({ PaymentMethodTypeId: '3', Transactions: [{ TransactionSourceGroupId: '1', Amount: '100.00', PayFee: true }, { TransactionSourceGroupId: '2', Amount: '5' }] }),
  },
  {
    name: 'create recurringProfile',
    method: 'POST',
    url: '/api/recurringProfile',
    body: () => ({ TokenGuid: tokenGuid, Amount: '25.00', StartDate: '2026-11-21', EndDate: '2027-11-21', BillingFrequency: 'Monthly', PayFee: true, PreFeeAmount: '20.00' }),
  },
  {
    name: 'update recurringProfile',
    method: 'PUT',
    url: '/api/recurringProfile',
    body: () => ({ RecurringProfileGuid: profileGuid, Amount: '30.00', NextBillDate: '2026-12-21', BillingFrequency: 'Weekly', UseOriginalFees: false }),
  },
  { name: 'paylink', method: 'POST', url: '/api/paylink', body: () => linkBody(ctx.nonProfit, { Email: 'ada@example.org', ThemeFonts: ['Open Sans:400'], WorkflowType: 1 }) as Obj },
  { name: 'ClientSession', method: 'POST', url: '/api/ClientSession', public: true, body: () => ({ ClientId: ctx.nonProfit.ClientId, ClientSecret: ctx.nonProfit.ClientSecret }) },
  // Notification URLs are IP literals (no DNS here): a loopback one is refused by the URL rules before any connection.
  {
    name: 'notificationConfig',
    method: 'PUT',
    url: '/api/notificationConfig',
    body: () => ({ NotificationConfigs: [{ NotificationConfigurationTypeId: '1', NotificationProtocolTypeId: '1', NotificationUrl: 'http://127.0.0.1:1/n', Retries: 3, AccessToken: 'tok', IsDeleted: false }] }),
  },
  { name: 'notificationTest', method: 'POST', url: '/api/notificationTest', body: () => ({ Url: 'http://127.0.0.1:1/n', AccessToken: 'tok', Payload: { PaymentId: 1 } }) },
  { name: 'notificationRedeliver', method: 'POST', url: '/api/notificationRedeliver', body: () => ({ NotificationIds: [1, 2] }) },
  {
    name: 'sourceTransactionsReport',
    method: 'POST',
    url: '/api/sourceTransactionsReport',
    body: () => ({
      Filters: [{ Name: 'PaymentDate', Operation: 7, Values: ['2026-01-01'] }, { Name: 'TotalAmount', Operation: 11, Values: ['1.00', '100.00'] }],
      SortColumns: [{ Name: 'PaymentDate', Descending: true, Order: 0 }, { Name: 'TotalAmount', Descending: false, Order: 1 }],
      PageSize: 10,
      PageIndex: 1,
    }),
  },
  {
    name: 'exportSourceTransactionsReport',
    method: 'POST',
    url: '/api/exportSourceTransactionsReport',
    body: () => ({ Filters: [{ Name: 'CardLastFour', Operation: 12, Values: ['4242'] }], SortColumns: [], Format: 'csv' }),
  },
];

const queryRoutes: QueryRoute[] = [
  { name: 'fee', method: 'GET', url: '/api/fee', query: () => ({ Amount: '100.00', TransactionSourceGroupId: '1', PayFee: 'true', PaymentMethodTypeId: '3' }) },
  { name: 'nextBillDate', method: 'GET', url: '/api/nextBillDate', query: () => ({ Date: '2026-11-21', BillingFrequency: 'Monthly' }) },
  { name: 'processorPaymentMethodTypes', method: 'GET', url: '/api/processorPaymentMethodTypes', query: () => ({ processorGuid: ctx.nonProfit.processorId }) },
  { name: 'CharitySearch', method: 'GET', url: '/api/CharitySearch', public: true, query: () => ({ Name: 'red cross', State: 'NY', PageIndex: '1', PageSize: '10', SortColumn: 'NpoName', SortDesc: 'false' }) },
  { name: 'paylinkResult', method: 'GET', url: '/api/paylinkResult', query: () => ({ ResponseToken: 'abc' }) },
  { name: 'cancel paylink', method: 'DELETE', url: '/api/paylink', query: () => ({ PayLinkId: 'nope' }) },
  { name: 'read recurringProfile', method: 'GET', url: '/api/recurringProfile', query: () => ({ RecurringProfileGuid: profileGuid }) },
  { name: 'cancel recurringProfile', method: 'DELETE', url: '/api/recurringProfile', query: () => ({ RecurringProfileGuid: '0b7e7f9e-3a55-4c0a-9a8e-6f1f1d2c3b4a' }) },
  { name: 'notifications', method: 'GET', url: '/api/notifications', query: () => ({ paymentId: '1', paymentExternalId: transactionId }) },
];


// ---------------------------------------------------------------------------------------------
// Odd values

const GUID = '0b7e7f9e-3a55-4c0a-9a8e-6f1f1d2c3b4a';
const oddConstants = [
  // NaN-ish and other odd numbers as text
  '1e400', '-1e400', '-0', '0', ' 1.005 ', '1.005', 'NaN', 'Infinity', '-Infinity', '0x1A', '1_000', '１２', '1,00', '-1', '-0.01', '.5', '5.', '+5', '1e2',
  '00001', '99999999999.99', '9999999999.99', '9999999999999999999999', '0.001', '1 2', '٣', '2147483648', '-2147483649', '4294967296',
  // empty and blank
  '', ' ', '\t', '\n', '\u00a0', '\u200b',
  // control and odd unicode
  '\u0000', 'a\u0000b', '\u0001\u0002\u001f\u007f', '\ud800', '\udfff', 'x\ud83dy', '\uffff', '\ufeff', '\u202etxt', 'e\u0301', '𝟙𝟚', '🙂',
  // dates and GUIDs
  '2026-02-30', '2026-13-01', '0000-01-01', '9999-12-31', '10000-01-01', '+002026-11-21', '2026-11-21T00:00:00Z', '21/11/2026', '1969-12-31',
  GUID.toUpperCase(), '00000000-0000-0000-0000-000000000000', `{${GUID}}`, `urn:uuid:${GUID}`, GUID.replace(/-/g, ''), `${GUID} `, 'ffffffff-ffff-ffff-ffff-ffffffffffff',
  // words the code might look up
  'constructor', '__proto__', 'toString', 'hasOwnProperty', 'true', 'false', 'null', 'undefined', 'Monthly', 'MONTHLY', 'weekly ', 'Daily',
  // injection-looking text
  "' OR 1=1 --", '"; DROP TABLE payments; --', '<script>alert(1)</script>', '%00', '%ff', '../../../etc/passwd', '${jndi:ldap://x/a}', '{{7*7}}', 'javascript:alert(1)',
  // card and account numbers
  CARD, '4242 4242 4242 4242', '4242-4242-4242-4242', '4000000000000002', '378282246310005', ACCOUNT,
];

const hugeString = fc
  .tuple(fc.constantFrom('x', '9', 'é', '🙂', '\u0001', ' ', '4242424242424242'), fc.integer({ min: 200, max: 40_000 }))
  .map(([unit, n]) => unit.repeat(Math.ceil(n / unit.length)));

const oddString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...oddConstants) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom('0', '1', '9', '.', '-', '+', 'e', ' ', ','), maxLength: 25 }) },
  { weight: 1, arbitrary: hugeString },
);

/**
 * Arrays nested `depth` deep around a value (`[[[["x"]]]]`), built only when the request is; the
 * counterexample shows `Deep(3000)` rather than the nesting itself.
 */
class Deep {
  readonly depth: number;
  constructor(depth: number) {
    this.depth = depth;
  }
  [fc.toStringMethod]() {
    return `Deep(${this.depth})`;
  }
}
const deeplyNested = fc.integer({ min: 2, max: 20_000 }).map((depth) => new Deep(depth));
type Odd = Json | Deep;

/** Deep values stay markers in the body (JSON.stringify itself recurses) and become nesting in its text. */
function materialize(v: Odd): Json {
  if (v instanceof Deep) return `@@deep:${v.depth}@@`;
  // A copy: constantFrom hands out one instance, which a later mutation could change (or nest in itself).
  return v !== null && typeof v === 'object' ? structuredClone(v) : v;
}
const expandDeep = (text: string) => text.replace(/"@@deep:(\d+)@@"/g, (_m, n: string) => '['.repeat(Number(n)) + '"x"' + ']'.repeat(Number(n)));

const oddValue: fc.Arbitrary<Odd> = fc.oneof(
  { weight: 8, arbitrary: oddString },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.integer() },
  // NaN and ±Infinity become null in JSON.
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.constantFrom<Json>([], {}, [null], [''], [CARD], { a: 1 }, [{}], { '': '' }, 1e308, -0, 0.1, Number.MAX_SAFE_INTEGER + 2) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json> },
  { weight: 1, arbitrary: deeplyNested },
);

// ---------------------------------------------------------------------------------------------
// Mutations of a valid body

type Path = (string | number)[];

/** Every value's path in a JSON value (containers too), the root excluded. */
function pathsOf(value: Json, prefix: Path = []): Path[] {
  const out: Path[] = [];
  if (prefix.length >= 6) return out;
  if (Array.isArray(value)) value.forEach((v, i) => out.push([...prefix, i], ...pathsOf(v, [...prefix, i])));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push([...prefix, k], ...pathsOf(v, [...prefix, k]));
  return out;
}

function parentOf(root: Json, path: Path): Json | undefined {
  let node: Json | undefined = root;
  for (const key of path.slice(0, -1)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string | number, Json>)[key];
  }
  return node;
}


type Mutation =
  | { kind: 'set'; pick: number; value: Odd }
  | { kind: 'delete'; pick: number }
  /** The same property again, its name in another letter case (`amount` beside `Amount`). */
  | { kind: 'caseDuplicate'; pick: number; value: Odd; upper: boolean }
  | { kind: 'unknownKey'; name: string; value: Odd };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('set' as const), pick: fc.nat(), value: oddValue }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('caseDuplicate' as const), pick: fc.nat(), value: oddValue, upper: fc.boolean() }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('unknownKey' as const), name: fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', '', ' Amount', 'cardnum'), fc.string({ maxLength: 10 })), value: oddValue }),
  },
);

function mutate(base: Obj, mutations: Mutation[]): Obj {
  const body = structuredClone(base);
  for (const m of mutations) {
    if (m.kind === 'unknownKey') {
      // defineProperty: a key `__proto__` becomes an own property (and `"__proto__"` in the JSON).
      Object.defineProperty(body, m.name, { value: materialize(m.value), enumerable: true, writable: true, configurable: true });
      continue;
    }
    const paths = pathsOf(body);
    if (paths.length === 0) continue;
    const path = paths[m.pick % paths.length]!;
    const parent = parentOf(body, path);
    if (parent === null || typeof parent !== 'object') continue;
    const key = path[path.length - 1]!;
    if (m.kind === 'set') (parent as Record<string | number, Json>)[key] = materialize(m.value);
    else if (m.kind === 'delete') {
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete parent[key as string];
    } else if (!Array.isArray(parent) && typeof key === 'string') {
      const other = m.upper ? key.toUpperCase() : key.toLowerCase();
      parent[other === key ? flipCase(key) : other] = materialize(m.value);
    }
  }
  return body;
}

/** The serialized body; sometimes a top-level key is sent twice with the exact same spelling. */
function serialize(body: Obj, duplicate: { pick: number; value: Odd } | null): string {
  const text = JSON.stringify(body);
  const keys = Object.keys(body);
  if (!duplicate || keys.length === 0) return expandDeep(text);
  const key = keys[duplicate.pick % keys.length]!;
  return expandDeep(`{${JSON.stringify(key)}:${JSON.stringify(materialize(duplicate.value))},${text.slice(1)}`);
}

const exactDuplicate = fc.option(fc.record({ pick: fc.nat(), value: oddValue }), { freq: 4 });

const contentType = fc.oneof(
  { weight: 12, arbitrary: fc.constant('application/json') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8', 'text/json', 'application/json-patch+json', 'application/problem+json', 'APPLICATION/JSON', 'application/vnd.x+json; charset=utf-8',
      'application/json; charset=latin1', 'application/json;;', 'text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/+json', '*/*', 'application',
    ),
  },
);

// ---------------------------------------------------------------------------------------------
// The contract

interface Sent {
  partner?: TestPartner;
  options: InjectOptions;
  /** Values that must not reach a log line. */
  secrets: string[];
  countPayments?: boolean;
}

const paymentCount = async () => Number((await ctx.store.sql.query<{ n: string | number }>('SELECT count(*) AS n FROM payments'))[0]!.n);

function expectContract(res: LightMyRequestResponse, what: string): void {
  const info = `${what} -> ${res.statusCode} ${res.body.slice(0, 500)}`;
  expect(res.statusCode, info).toBeLessThan(500);
  if (res.statusCode < 400) return;
  if (res.statusCode === 400) {
    expect(res.headers['content-type'], info).toMatch(/^application\/json/);
    const rules = res.json() as unknown;
    expect(Array.isArray(rules), info).toBe(true);
    expect((rules as unknown[]).length, info).toBeGreaterThan(0);
    for (const rule of rules as Record<string, unknown>[]) {
      expect(Object.keys(rule).sort(), info).toEqual(['ErrorCode', 'LoggerMessage', 'Message']);
      expect(Number.isInteger(rule.ErrorCode), info).toBe(true);
      expect(rule.Message === null || typeof rule.Message === 'string', info).toBe(true);
      expect(rule.LoggerMessage === null || typeof rule.LoggerMessage === 'string', info).toBe(true);
    }
    return;
  }
  expect(res.headers['content-type'], info).toMatch(/^application\/problem\+json/);
  const problem = res.json() as Record<string, unknown>;
  expect(typeof problem.type, info).toBe('string');
  expect(typeof problem.title, info).toBe('string');
  expect(problem.status, info).toBe(res.statusCode);
  expect(problem.detail === null || typeof problem.detail === 'string', info).toBe(true);
  expect(typeof problem.traceId, info).toBe('string');
}

/** Card and account numbers of a body: its CardNum / CheckAccountNumber values in any letter case, and any long digit run there. */
function secretsOf(body: Json, raw = ''): string[] {
  const out = new Set<string>();
  const stack: [Json, string][] = [[body, '']];
  raw = raw.replace(/\[{100,}/g, '[').replace(/\]{100,}/g, ']');
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [v, key] = item;
    if (typeof v === 'string' && /^(cardnum|checkaccountnumber)$/i.test(key)) {
      const digits = v.replace(/[\s-]/g, '');
      if (/^\d{8,}$/.test(digits)) out.add(digits);
      if (/\d{8,}/.test(v)) out.add(v);
    }
    if (Array.isArray(v)) for (const x of v) stack.push([x, '']);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) stack.push([x, k]);
  }
  // Bodies that are not JSON: a number written right after the card-number field.
  for (const m of raw.matchAll(/"(?:cardnum|checkaccountnumber)"\s*:\s*"?([\d -]{8,})/gi)) {
    const digits = m[1]!.replace(/[\s-]/g, '');
    if (digits.length >= 8) out.add(digits);
  }
  return [...out];
}

async function send(sent: Sent): Promise<LightMyRequestResponse> {
  const before = sent.countPayments ? await paymentCount() : 0;
  const logsBefore = ctx.logs.length;
  const res = sent.partner ? await ctx.as(sent.partner, sent.options) : await ctx.app.inject(sent.options);
  const what = `${sent.options.method} ${String(sent.options.url).slice(0, 300)}`;
  expectContract(res, what);
  if (sent.countPayments && res.statusCode >= 400) expect(await paymentCount(), `${what}: a refused payment recorded a row`).toBe(before);
  const logged = loggedText(ctx.logs.slice(logsBefore));
  for (const secret of sent.secrets) expect(logged.includes(secret), `${what}: ${secret} was logged`).toBe(false);
  return res;
}

function bodyRequest(route: BodyRoute, payload: string, type: string, secrets: string[]): Sent {
  return {
    partner: route.public ? undefined : ctx.nonProfit,
    options: { method: route.method, url: route.url, headers: { 'content-type': type }, payload },
    secrets,
    countPayments: route.recordsPayments,
  };
}

// ---------------------------------------------------------------------------------------------
// Properties

describe.each(bodyRoutes.map((r) => [r.name, r] as const))('%s: odd bodies', (_name, route) => {
  it('a valid body with values replaced by odd ones keeps the error contract', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), exactDuplicate, contentType, async (mutations, duplicate, type) => {
        const body = mutate(route.body(), mutations);
        const payload = serialize(body, duplicate);
        await send(bodyRequest(route, payload, type, secretsOf(body, payload)));
      }),
      { numRuns: RUNS.mutated },
    );
  });

  it('random JSON, and text that is almost JSON, keeps the error contract', async () => {
    const almostJson = fc.tuple(fc.nat(), fc.constantFrom('', '}', ',', '{', '"', '\\', 'tru', 'NaN', '\u0000', '//x', '\n]')).map(([cut, tail]) => {
      const text = JSON.stringify(route.body());
      return text.slice(0, cut % (text.length + 1)) + tail;
    });
    const payload = fc.oneof(fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? 'null'), almostJson, fc.string({ unit: 'binary', maxLength: 60 }));
    await fc.assert(
      fc.asyncProperty(payload, async (text) => {
        await send(bodyRequest(route, text, 'application/json', secretsOf(null, text)));
      }),
      { numRuns: RUNS.random },
    );
  });
});

/** A query string built from parameters, some repeated or renamed, their values odd. */
const queryValue = fc.oneof({ weight: 6, arbitrary: oddString.filter((s) => s.length < 2_000) }, { weight: 1, arbitrary: fc.constant('') });
type QueryEdit = { kind: 'set'; pick: number; value: string } | { kind: 'repeat'; pick: number; value: string; flip: boolean } | { kind: 'drop'; pick: number } | { kind: 'extra'; name: string; value: string };
const queryEdit: fc.Arbitrary<QueryEdit> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('set' as const), pick: fc.nat(), value: queryValue }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('repeat' as const), pick: fc.nat(), value: queryValue, flip: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('drop' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('extra' as const), name: fc.oneof(fc.constantFrom('__proto__', 'constructor', '', 'a[b]', 'a.b'), fc.string({ maxLength: 8 })), value: queryValue }) },
);

function queryString(base: Record<string, string>, edits: QueryEdit[]): string {
  const pairs: [string, string][] = Object.entries(base);
  for (const e of edits) {
    if (e.kind === 'extra') {
      pairs.push([e.name, e.value]);
      continue;
    }
    if (pairs.length === 0) continue;
    const i = e.pick % pairs.length;
    const [name] = pairs[i]!;
    if (e.kind === 'set') pairs[i] = [name, e.value];
    else if (e.kind === 'drop') pairs.splice(i, 1);
    else pairs.push([e.flip ? flipCase(name) : name, e.value]);
  }
  return new URLSearchParams(pairs).toString();
}

/** Raw query text, not necessarily well encoded: `%`, `%ff`, `&&`, `==`. */
const rawQuery = fc.string({ unit: fc.constantFrom('a', 'B', '=', '&', '%', 'f', '0', '+', ';', '[', ']', '.', '\u00e9', '#', '?'), maxLength: 30 });

describe.each(queryRoutes.map((r) => [r.name, r] as const))('%s: odd query strings', (_name, route) => {
  it('a valid query with values replaced, repeated or renamed keeps the error contract', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(queryEdit, { minLength: 1, maxLength: 3 }), async (edits) => {
        const url = `${route.url}?${queryString(route.query(), edits)}`;
        await send({ partner: route.public ? undefined : ctx.nonProfit, options: { method: route.method, url }, secrets: [] });
      }),
      { numRuns: RUNS.mutated },
    );
  });

  it('raw query text keeps the error contract', async () => {
    await fc.assert(
      fc.asyncProperty(rawQuery, async (q) => {
        await send({ partner: route.public ? undefined : ctx.nonProfit, options: { method: route.method, url: `${route.url}?${q}` }, secrets: [] });
      }),
      { numRuns: RUNS.random },
    );
  });
});

describe('any route', () => {
  const everyRoute = [...bodyRoutes.map((r) => [r.method, r.url] as const), ...queryRoutes.map((r) => [r.method, r.url] as const)];

  it('an odd AccessToken header is a 401 problem (or the public route answers), never a 5xx', async () => {
    const header = fc.oneof(fc.constantFrom('', ' ', 'null', 'Bearer x', '\t', 'x'.repeat(5_000), GUID, '%00'), fc.string({ unit: fc.constantFrom('a', '0', '-', ' ', '\t', '~', '.'), maxLength: 50 }));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...everyRoute), header, async ([method, url], token) => {
        const res = await send({ options: { method, url, headers: { AccessToken: token, 'content-type': 'application/json' }, payload: method === 'GET' || method === 'DELETE' ? undefined : '{}' }, secrets: [] });
        if (!url.endsWith('/ClientSession') && !url.endsWith('/CharitySearch')) expect(res.statusCode).toBe(401);
      }),
      { numRuns: RUNS.mutated },
    );
  });

  it('odd paths and methods are problems (404, 405) or BrokenRules, never a 5xx', async () => {
    const path = fc.oneof(
      fc.constantFrom(...everyRoute.map(([, u]) => u)).chain((u) => fc.constantFrom(u, `${u}/`, u.toUpperCase(), `${u}//`, `${u}/x`, `${u}%20`, `${u}%`, `${u}/..`, `${u};x`)),
      fc.string({ unit: fc.constantFrom('a', '/', '%', '.', 'f', '0', '~'), maxLength: 20 }).map((s) => `/api/${s}`),
    );
    await fc.assert(
      fc.asyncProperty(path, fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD') as fc.Arbitrary<InjectOptions['method']>, async (url, method) => {
        const res = await ctx.as(ctx.nonProfit, { method, url, headers: { 'content-type': 'application/json' }, payload: method === 'GET' || method === 'HEAD' ? undefined : '{}' });
        expect(res.statusCode, `${method} ${url}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
        if (method !== 'HEAD') expectContract(res, `${method} ${url}`);
      }),
      { numRuns: RUNS.mutated },
    );
  });
});

describe('regressions found by the fuzzing', () => {
  const nested = (depth: number, inner = '"x"') => '['.repeat(depth) + inner + ']'.repeat(depth);
  const post = (url: string, payload: string) => ctx.as(ctx.nonProfit, { method: 'POST', url, headers: { 'content-type': 'application/json' }, payload });
  const deepRule = [{ ErrorCode: 1000, Message: 'The request body nests arrays and objects deeper than 32 levels.', LoggerMessage: 'body: rule 1000' }];

  // Found (PGlite and PostgreSQL): paymentAch with CheckRoutingNumber = arrays nested 2992 deep
  // gave a 500 (RangeError: Maximum call stack size exceeded in the recursive NUL check of
  // src/http/api/json-bodies.ts), on every JSON route, the public ClientSession included.
  // Found (PostgreSQL only): POST /api/payment with an extra GwShieldAdditional property nested
  // 4388 deep gave a 500 (RangeError in JSON.stringify of the jsonb column, before the processor
  // was called: no row, no charge); on PGlite the same request was approved and stored.
  // Fixed in src/http/api/json-bodies.ts: bodies nested deeper than 32 levels are a 400, and the NUL
  // check is iterative.
  it.each([
    ['/api/paymentAch', JSON.stringify(achBody()).replace('"110000000"', nested(2_992))],
    ['/api/payment', JSON.stringify({ ...cardBody(), GwShieldAdditional: { ClientFullName: 'Ada', Extra: '@@' } }).replace('"@@"', nested(4_388))],
    ['/api/payment', `{"CardNum":${nested(20_000)}}`],
    ['/api/fees', `{"Unknown":${nested(100_000)}}`],
    ['/api/ClientSession', `{"x":${nested(100_000)}}`],
  ])('a body nested thousands of arrays deep is a 400 on %s, not a 500', async (url, payload) => {
    const before = await paymentCount();
    const res = await post(url, payload);
    expectContract(res, url);
    expect(res.json()).toEqual(deepRule);
    expect(await paymentCount()).toBe(before);
  });

  it('32 levels are accepted as before; a NUL inside them is still found and named', async () => {
    const res = await post('/api/fees', `{"a":[{"b":${nested(29, '"\\u0000"')}}]}`);
    expectContract(res, 'fees');
    expect((res.json() as { Message: string }[])[0]!.Message).toBe(`'a[0].b${'[0]'.repeat(29)}' must not contain a NUL character.`);
    expect((await post('/api/fees', `{"a":[{"b":${nested(30)}}]}`)).json()).toEqual(deepRule);
  });

  // Found (PGlite and PostgreSQL): POST /api/recurringProfile with Amount, StartDate or
  // BillingFrequency blank (' ') passed the schema (minLength 1) and was skipped as "not given"
  // by readTerms: a 500 (BigInt(NaN) in the fee quote, an undefined date or frequency in the
  // schedule, or a NOT NULL violation on insert). Fixed in src/http/api/recurring-profiles.ts.
  it.each(['Amount', 'StartDate', 'BillingFrequency'])('a blank %s on POST /api/recurringProfile is a 400 Required', async (field) => {
    const body = { TokenGuid: tokenGuid, Amount: '25.00', StartDate: '2026-11-21', BillingFrequency: 'Monthly', PayFee: true, PreFeeAmount: '20.00', [field]: '  ' };
    const res = await post('/api/recurringProfile', JSON.stringify(body));
    expectContract(res, field);
    expect(res.json()).toEqual([{ ErrorCode: 1001, Message: `'${field}' is required.`, LoggerMessage: `${field}: rule 1001` }]);
  });
});
