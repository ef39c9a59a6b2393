import { randomUUID } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseUnavailableError } from '../../../src/platform/errors.ts';
import type { ProcessorAdapter, SaleRequest } from '../../../src/processors/processor.ts';
import { backgroundJobs } from '../../../src/composition.ts';
import { type TestContext, type TestPartner, createTestContext, withSimulator } from '../../helpers/context.ts';
import { expectDocumented } from '../../helpers/openapi.ts';
import { type Body, ach, card, merchantLines, settleNow } from './refund-void-fixtures.ts';
import { linkBody } from '../paypage/paylink-helpers.ts';

/**
 * Idempotency-Key on every side-effecting call of surface A (issue 29; docs/decisions.md,
 * "Idempotency keys"). Two processes and a killed one: test/e2e/idempotency-processes.test.ts.
 */

const TTL_HOURS = 24;
let ctx: TestContext;

/** Probe routes with the mechanism, failing as asked: what a 5xx does to a key. */
const probeCalls = { n: 0 };
function probes(api: FastifyInstance) {
  api.post('/probe/idempotent-failure', { config: { idempotent: true } }, async (request) => {
    probeCalls.n++;
    const fail = (request.body as { fail?: string }).fail;
    if (fail === 'refused') throw new DatabaseUnavailableError({ mayHaveApplied: false });
    if (fail === 'may-have-applied') throw new DatabaseUnavailableError({ mayHaveApplied: true });
    if (fail === 'bug') throw new Error('a bug after the write');
    return { ok: true, n: probeCalls.n };
  });
}

beforeAll(async () => {
  ctx = await createTestContext({ extraApiRoutes: probes, config: { notificationAllowPrivate: true } });
});
afterAll(() => ctx.close());

const count = async (table: string) => Number((await ctx.store.sql.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`))[0]!.n);
const counts = async () => ({
  payments: await count('payments'),
  adjustments: await count('payment_adjustments'),
  profiles: await count('recurring_profiles'),
  links: await count('pay_links'),
  tokens: await count('payment_tokens'),
});

/** A request with (or without, `key: null`) an Idempotency-Key. */
function call(method: 'POST' | 'PUT' | 'DELETE', url: string, options: { body?: Body; key?: string | null; partner?: TestPartner } = {}): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = options.key === null || options.key === undefined ? {} : { 'Idempotency-Key': options.key };
  return ctx.as(options.partner ?? ctx.nonProfit, { method, url, headers, ...(options.body ? { payload: options.body } : {}) });
}

/** Counts the simulator's calls while `fn` runs. */
async function processorCalls<T>(fn: () => Promise<T>): Promise<{ result: T; calls: { sale: number; void: number; refund: number } }> {
  const adapter = ctx.services.processorAdapters.get('simulator');
  const calls = { sale: 0, void: 0, refund: 0 };
  const sale = adapter.sale.bind(adapter);
  const voidIt = adapter.void.bind(adapter);
  const refund = adapter.refund.bind(adapter);
  const result = await withSimulator(
    ctx.services,
    {
      sale: (r) => (calls.sale++, sale(r)),
      void: (r) => (calls.void++, voidIt(r)),
      refund: (r) => (calls.refund++, refund(r)),
    },
    fn,
  );
  return { result, calls };
}

/**
 * Sends the request with a new key, then again: the second answer is the first, byte for byte
 * (status, type and body), marked as a replay, and nothing else happened (rows, processor calls).
 */
async function expectReplay(method: 'POST' | 'PUT' | 'DELETE', url: string, body: Body | undefined, documentedPath: string) {
  const key = randomUUID();
  const first = await call(method, url, { body, key });
  expect(first.statusCode, first.body).toBeLessThan(300);
  expect(first.headers['idempotent-replayed']).toBeUndefined();
  const before = await counts();
  const { result: again, calls } = await processorCalls(() => call(method, url, { body, key }));
  expect(again.statusCode).toBe(first.statusCode);
  expect(again.headers['content-type']).toBe(first.headers['content-type']);
  expect(again.rawPayload.equals(first.rawPayload)).toBe(true);
  expect(again.headers['idempotent-replayed']).toBe('true');
  expect(await counts()).toEqual(before);
  expect(calls).toEqual({ sale: 0, void: 0, refund: 0 });
  await expectDocumented(ctx.app, method, documentedPath, again);
  return first;
}

describe('a replay of each operation with its Idempotency-Key', () => {
  it('POST /api/payment: the first answer, byte for byte, and no second charge', async () => {
    const body = card({ TranId: `idem-${randomUUID()}` });
    const key = randomUUID();
    const { result: first, calls } = await processorCalls(() => call('POST', '/api/payment', { body, key }));
    expect(first.statusCode).toBe(201);
    expect(calls.sale).toBe(1);
    await expectDocumented(ctx.app, 'POST', '/api/payment', first);
    await expectReplay('POST', '/api/payment', card(), '/api/payment');
  });

  it('POST /api/paymentAch', async () => {
    await expectReplay('POST', '/api/paymentAch', ach(), '/api/paymentAch');
  });

  it('POST /api/void and POST /api/refund', async () => {
    const toVoid = (await call('POST', '/api/payment', { body: card() })).json();
    await expectReplay('POST', '/api/void', { PaymentGuid: toVoid.PaymentGuid, Reason: 'customer asked' }, '/api/void');
    const toRefund = (await call('POST', '/api/payment', { body: card() })).json();
    await settleNow(ctx);
    const refunded = await expectReplay('POST', '/api/refund', { PaymentGuid: toRefund.PaymentGuid, Reason: 'customer asked' }, '/api/refund');
    expect(refunded.json()).toMatchObject({ Successful: true, PaymentResult: 5 });
  });

  it('a 404 (a refund of no payment of the partner): stored and replayed, as documented', async () => {
    const key = randomUUID();
    const body = { PaymentGuid: randomUUID(), Reason: 'customer asked' };
    const first = await call('POST', '/api/refund', { body, key });
    expect(first.statusCode).toBe(404);
    const again = await call('POST', '/api/refund', { body, key });
    expect([again.statusCode, again.headers['idempotent-replayed'], again.body]).toEqual([404, 'true', first.body]);
    await expectDocumented(ctx.app, 'POST', '/api/refund', again);
  });

  it('POST, PUT and DELETE /api/recurringProfile', async () => {
    const paid = (await call('POST', '/api/payment', { body: card({ Tokenize: true }) })).json();
    const created = await expectReplay('POST', '/api/recurringProfile', { TokenGuid: paid.TokenGuid, Amount: '10.00', StartDate: '2026-11-21', BillingFrequency: 'Monthly' }, '/api/recurringProfile');
    const profile = created.json().RecurringProfileGuid;
    await expectReplay('PUT', '/api/recurringProfile', { RecurringProfileGuid: profile, Amount: '12.00' }, '/api/recurringProfile');
    await expectReplay('DELETE', `/api/recurringProfile?RecurringProfileGuid=${profile}`, undefined, '/api/recurringProfile');
  });

  it('POST and DELETE /api/paylink', async () => {
    const created = await expectReplay('POST', '/api/paylink', linkBody(ctx.nonProfit), '/api/paylink');
    const id = created.json().PayLinkUrl.split('/').pop();
    await expectReplay('DELETE', `/api/paylink?PayLinkId=${id}`, undefined, '/api/paylink');
  });

  it('a held payment (the processor failed: outcome unknown) is answered held again, never charged again', async () => {
    const key = randomUUID();
    const body = card();
    const first = await withSimulator(ctx.services, { sale: async () => Promise.reject(new Error('connection reset')) }, () => call('POST', '/api/payment', { body, key }));
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({ Successful: false, PaymentResult: 2 });
    const { result: again, calls } = await processorCalls(() => call('POST', '/api/payment', { body, key }));
    expect(again.body).toBe(first.body);
    expect(calls.sale).toBe(0);
  });
});

describe('the key', () => {
  it('is optional: without it a request runs each time, as before', async () => {
    const body = card();
    const before = await count('payments');
    const a = await call('POST', '/api/payment', { body });
    const b = await call('POST', '/api/payment', { body });
    expect(a.json().PaymentGuid).not.toBe(b.json().PaymentGuid);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(await count('payments')).toBe(before + 2);
  });

  it('with another request is 422 problem details, and runs nothing', async () => {
    const key = randomUUID();
    expect((await call('POST', '/api/payment', { body: card(), key })).statusCode).toBe(201);
    const before = await counts();
    const changed = await call('POST', '/api/payment', { body: card({ Transactions: [{ TransactionSourceGroupId: '1', Amount: '100.01' }] }), key });
    expect(changed.statusCode).toBe(422);
    expect(changed.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(changed.json()).toMatchObject({ status: 422, title: 'Unprocessable Content' });
    await expectDocumented(ctx.app, 'POST', '/api/payment', changed);
    // Another card (same first six and last four would be needed to pass for the same), another path.
    expect((await call('POST', '/api/payment', { body: card({ CardNum: '5555555555554444' }), key })).statusCode).toBe(422);
    expect((await call('POST', '/api/paymentAch', { body: ach(), key })).statusCode).toBe(422);
    expect(await counts()).toEqual(before);
  });

  it('is stored without the secrets: two requests that differ only in what it leaves out are the same request', async () => {
    // A card's middle digits and its CVV: the fingerprint holds the first six, the last four and the lengths.
    const key = randomUUID();
    const first = await call('POST', '/api/payment', { body: card(), key });
    expect(first.statusCode).toBe(201);
    const middle = await call('POST', '/api/payment', { body: card({ CardNum: '4242420000004242', CVNum: '999' }), key });
    expect(middle.headers['idempotent-replayed']).toBe('true');
    expect(middle.body).toBe(first.body);
    expect((await call('POST', '/api/payment', { body: card({ CVNum: '9999' }), key })).statusCode).toBe(422);
    // A webhook's AccessToken, chosen by the partner: by its length.
    const hook = (token: string) => ({ NotificationConfigs: [{ NotificationConfigurationTypeId: '1', NotificationProtocolTypeId: '1', NotificationUrl: 'http://127.0.0.1:9/payments', AccessToken: token }] });
    const hookKey = randomUUID();
    const saved = await call('PUT', '/api/notificationConfig', { body: hook('summer2026'), key: hookKey });
    expect(saved.statusCode, saved.body).toBe(200);
    expect((await call('PUT', '/api/notificationConfig', { body: hook('winter2026'), key: hookKey })).headers['idempotent-replayed']).toBe('true');
    expect((await call('PUT', '/api/notificationConfig', { body: hook('autumn2026'), key: randomUUID() })).statusCode).toBe(200);
    expect((await call('PUT', '/api/notificationConfig', { body: hook('spring-2026'), key: hookKey })).statusCode).toBe(422);
  });

  it('is the same request whatever the order of the properties, their spacing or the letter case of the path', async () => {
    const key = randomUUID();
    const body = card();
    const first = await call('POST', '/api/payment', { body, key });
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const again = await ctx.as(ctx.nonProfit, {
      method: 'POST',
      url: '/API/Payment/',
      headers: { 'Idempotency-Key': key, 'content-type': 'application/json' },
      payload: JSON.stringify(reordered, null, 2),
    });
    expect(again.statusCode).toBe(201);
    expect(again.body).toBe(first.body);
  });

  it('may be sent as the draft\'s quoted string: "k" is the key k', async () => {
    const key = randomUUID();
    const body = card();
    const first = await call('POST', '/api/payment', { body, key: `"${key}"` });
    const again = await call('POST', '/api/payment', { body, key });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
  });

  it.each([
    ['empty', ''],
    ['too long', 'k'.repeat(256)],
    ['not ASCII', 'clé-1'],
    ['a control character', 'a\tb'],
    ['an unbalanced quote', '"abc'],
    ['an empty quoted string', '""'],
  ])('malformed (%s) is a 400 BrokenRule 1020, and nothing runs', async (_what, key) => {
    const before = await counts();
    const res = await call('POST', '/api/payment', { body: card(), key });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual([expect.objectContaining({ ErrorCode: 1020, LoggerMessage: 'Idempotency-Key: rule 1020' })]);
    await expectDocumented(ctx.app, 'POST', '/api/payment', res);
    expect(await counts()).toEqual(before);
  });

  it('sent twice is a 400', async () => {
    const res = await ctx.as(ctx.nonProfit, {
      method: 'POST',
      url: '/api/payment',
      headers: { 'Idempotency-Key': ['a', 'b'] as unknown as string },
      payload: card(),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()[0].ErrorCode).toBe(1020);
  });

  it('of 255 characters, any printable ASCII, is taken', async () => {
    const key = `${' !"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'}${'x'.repeat(222)}`.slice(0, 255);
    expect(key.length).toBe(255);
    const first = await call('POST', '/api/payment', { body: card(), key });
    expect(first.statusCode).toBe(201);
    expect((await call('POST', '/api/payment', { body: card(), key })).headers['idempotent-replayed']).toBe('true');
  });

  it('of partner A is not seen by partner B', async () => {
    const key = randomUUID();
    const a = await call('POST', '/api/payment', { body: card(), key });
    const b = await call('POST', '/api/payment', { body: card({ ProcessorGuid: ctx.forProfit.processorId, Transactions: merchantLines }), key, partner: ctx.forProfit });
    expect(a.statusCode).toBe(201);
    expect(b.statusCode).toBe(201);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(b.json().PaymentGuid).not.toBe(a.json().PaymentGuid);
  });

  it('does not lift the TranId rule: another key with the same TranId is a refused duplicate', async () => {
    const tranId = `idem-dup-${randomUUID()}`;
    const first = await call('POST', '/api/payment', { body: card({ TranId: tranId }), key: randomUUID() });
    expect(first.json()).toMatchObject({ Successful: true });
    const other = await call('POST', '/api/payment', { body: card({ TranId: tranId }), key: randomUUID() });
    expect(other.json()).toMatchObject({ Successful: false, ResponseCode: '-100' });
    expect(other.json().Message).toContain(first.json().PaymentGuid);
  });

  it('of a request refused as invalid (400) is not kept: the corrected request runs with it', async () => {
    const key = randomUUID();
    const invalid = await call('POST', '/api/payment', { body: card({ CardNum: '4242424242424241' }), key });
    expect(invalid.statusCode).toBe(400);
    const fixed = await call('POST', '/api/payment', { body: card(), key });
    expect(fixed.statusCode).toBe(201);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();
  });

  it('of a request still running is 409 with Retry-After, here or (e2e test) in another process', async () => {
    const key = randomUUID();
    const body = card();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let reached!: () => void;
    const atProcessor = new Promise<void>((r) => (reached = r));
    const adapter = ctx.services.processorAdapters.get('simulator');
    const sale = adapter.sale.bind(adapter);
    await withSimulator(
      ctx.services,
      {
        sale: async (r: SaleRequest) => {
          reached();
          await held;
          return sale(r);
        },
      } as Partial<ProcessorAdapter>,
      async () => {
        const first = call('POST', '/api/payment', { body, key });
        await atProcessor;
        const during = await call('POST', '/api/payment', { body, key });
        expect(during.statusCode).toBe(409);
        expect(during.headers['retry-after']).toBe('1');
        expect(during.json()).toMatchObject({ status: 409 });
        await expectDocumented(ctx.app, 'POST', '/api/payment', during);
        // Another request with the key while it runs is still 422, not 409.
        expect((await call('POST', '/api/payment', { body: card({ FirstName: 'Other' }), key })).statusCode).toBe(422);
        release();
        const answered = await first;
        expect(answered.statusCode).toBe(201);
        const after = await call('POST', '/api/payment', { body, key });
        expect(after.body).toBe(answered.body);
      },
    );
  });

  it('of a request running past its lease (the processor deadline and 10 s) is 409 without Retry-After: stopped, not run again', async () => {
    const key = randomUUID();
    const body = card();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let reached!: () => void;
    const atProcessor = new Promise<void>((r) => (reached = r));
    const adapter = ctx.services.processorAdapters.get('simulator');
    const sale = adapter.sale.bind(adapter);
    await withSimulator(
      ctx.services,
      { sale: async (r: SaleRequest) => (reached(), await held, sale(r)) } as Partial<ProcessorAdapter>,
      async () => {
        const first = call('POST', '/api/payment', { body, key });
        await atProcessor;
        ctx.clock.advance(ctx.services.config.processorTimeoutMs + 10_000);
        const { result: late, calls } = await processorCalls(() => call('POST', '/api/payment', { body, key }));
        expect(late.statusCode).toBe(409);
        expect(late.headers['retry-after']).toBeUndefined();
        expect(late.json().detail).toMatch(/not run again/);
        expect(calls.sale).toBe(0);
        release();
        // The request that was still running ends: its answer is stored and replayed after all.
        const answered = await first;
        expect((await call('POST', '/api/payment', { body, key })).body).toBe(answered.body);
      },
    );
  });

  it('sent by many requests at once: one runs, the others are 409 or its replay; distinct keys at once all run (claims go in batches)', async () => {
    const key = randomUUID();
    const body = card();
    const { result: same, calls } = await processorCalls(() => Promise.all(Array.from({ length: 8 }, () => call('POST', '/api/payment', { body, key }))));
    const ran = same.filter((r) => r.statusCode === 201 && r.headers['idempotent-replayed'] === undefined);
    expect(ran).toHaveLength(1);
    expect(calls.sale).toBe(1);
    for (const r of same.filter((x) => x !== ran[0])) {
      if (r.statusCode === 409) expect(r.headers['retry-after']).toBe('1');
      else expect(r.body).toBe(ran[0]!.body);
    }
    const keys = Array.from({ length: 12 }, () => randomUUID());
    const before = await count('payments');
    const distinct = await Promise.all(keys.map((k) => call('POST', '/api/payment', { body, key: k })));
    expect(distinct.map((r) => r.statusCode)).toEqual(keys.map(() => 201));
    expect(new Set(distinct.map((r) => r.json().PaymentGuid)).size).toBe(12);
    expect(await count('payments')).toBe(before + 12);
    // Each answer was stored with its own key.
    const replays = await Promise.all(keys.map((k) => call('POST', '/api/payment', { body, key: k })));
    expect(replays.map((r) => r.body)).toEqual(distinct.map((r) => r.body));
  });

  it(`is kept ${TTL_HOURS} hours (IDEMPOTENCY_TTL) on the injected clock, then forgotten and purged`, async () => {
    const key = randomUUID();
    const body = card();
    const first = await call('POST', '/api/payment', { body, key });
    ctx.clock.advance(TTL_HOURS * 3_600_000 - 1000);
    expect((await call('POST', '/api/payment', { body, key })).body).toBe(first.body);
    ctx.clock.advance(1000);
    // Past its TTL: a new request, purged or not.
    const after = await call('POST', '/api/payment', { body, key });
    expect(after.statusCode).toBe(201);
    expect(after.headers['idempotent-replayed']).toBeUndefined();
    expect(after.json().PaymentGuid).not.toBe(first.json().PaymentGuid);
    // The key is the new request's now: its answer is the one kept.
    const replayed = await call('POST', '/api/payment', { body, key });
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toBe(after.body);
    // The purge job deletes what is past its TTL, and only that.
    const other = randomUUID();
    await call('POST', '/api/payment', { body, key: other });
    ctx.clock.advance(TTL_HOURS * 3_600_000);
    const fresh = randomUUID();
    await call('POST', '/api/payment', { body, key: fresh });
    const job = backgroundJobs(ctx.services).find((j) => j.name === 'purge expired idempotency keys')!;
    expect(job.needsAgreedClock).toBe(true);
    await job.run();
    const left = (await ctx.store.sql.query<{ key: string }>('SELECT key FROM idempotency_keys WHERE key = ANY($1)', [[key, other, fresh]])).map((r) => r.key);
    expect(left).toEqual([fresh]);
  });
});

describe('a key whose request failed (5xx)', () => {
  const probe = (fail: string, key: string) => call('POST', '/api/probe/idempotent-failure', { body: { fail }, key });

  it('is let go when the failure surely changed nothing (the database refused it): the request runs again', async () => {
    const key = randomUUID();
    const failed = await probe('refused', key);
    expect(failed.statusCode).toBe(503);
    const n = probeCalls.n;
    const again = await probe('refused', key);
    expect(again.statusCode).toBe(503);
    expect(probeCalls.n).toBe(n + 1);
  });

  it.each(['may-have-applied', 'bug'])('is not run again when the failure may have taken effect (%s): 409 without Retry-After', async (fail) => {
    const key = randomUUID();
    const failed = await probe(fail, key);
    expect(failed.statusCode).toBeGreaterThanOrEqual(500);
    const n = probeCalls.n;
    const again = await probe(fail, key);
    expect(again.statusCode).toBe(409);
    expect(again.headers['retry-after']).toBeUndefined();
    expect(again.json().detail).toMatch(/not known/);
    expect(probeCalls.n).toBe(n);
  });
});

describe('/openapi.json', () => {
  it('documents the header, the replay header and 409/422 on every side-effecting call, and only there', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { parameters?: { in: string; name: string }[]; responses: Record<string, { headers?: Record<string, unknown> }> }>>;
    };
    const keyed = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => op.parameters?.some((p) => p.in === 'header' && p.name === 'Idempotency-Key'))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(keyed.sort()).toEqual(
      [
        'POST /api/payment',
        'POST /api/paymentAch',
        'POST /api/refund',
        'POST /api/void',
        'POST /api/recurringProfile',
        'PUT /api/recurringProfile',
        'DELETE /api/recurringProfile',
        'POST /api/paylink',
        'DELETE /api/paylink',
        'PUT /api/notificationConfig',
        'POST /api/notificationRedeliver',
        'POST /api/probe/idempotent-failure',
      ].sort(),
    );
    const payment = doc.paths['/api/payment']!.post!;
    expect(Object.keys(payment.responses)).toEqual(expect.arrayContaining(['201', '409', '422']));
    expect(payment.responses['201']!.headers).toHaveProperty('Idempotent-Replayed');
    expect(payment.responses['409']!.headers).toHaveProperty('Retry-After');
  });
});
