import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_DIR } from '../../src/modules/charities/import-samples.ts';
import { Metrics } from '../../src/platform/metrics/metrics.ts';
import { type MetricsServer, startMetricsServer } from '../../src/platform/metrics/server.ts';
import { type TestContext, createTestContext } from '../helpers/context.ts';
import { Scrape, hasPrometheusParser } from '../helpers/prometheus.ts';
import { adjust, card, makePayment, settleNow } from './api/refund-void-fixtures.ts';

/**
 * The metrics as Prometheus reads them: a real HTTP scrape of the metrics port, parsed by a
 * Prometheus text-format parser, before and after what each metric counts.
 */

const GUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const SIMULATOR_SALE = { adapter: 'simulator', operation: 'sale' };

let ctx: TestContext;
let server: MetricsServer;
const scrape = () => Scrape.of(`http://127.0.0.1:${server.port}/metrics`);

beforeAll(async () => {
  const metrics = new Metrics({ readingsMaxAgeMs: 0 });
  ctx = await createTestContext({ metrics });
  server = await startMetricsServer(metrics, { port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await server?.close();
  await ctx?.close();
});

const pay = (body: Record<string, unknown>) => ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload: body });

describe.runIf(hasPrometheusParser())('GET /metrics on the metrics port', () => {
  it('counts an approved payment by method, outcome and adapter, its processor call and its HTTP request', async () => {
    const before = await scrape();
    const res = await pay(card({ TranId: `m-${randomUUID()}` }));
    expect(res.json().Successful).toBe(true);
    const after = await scrape();
    const approved = { method: 'card', outcome: 'approved', adapter: 'simulator' };
    expect(after.value('payments_total', approved) - before.value('payments_total', approved)).toBe(1);
    expect(after.count('processor_call_duration_seconds', SIMULATOR_SALE) - before.count('processor_call_duration_seconds', SIMULATOR_SALE)).toBe(1);
    const route = { route: '/api/payment', method: 'POST', status_class: '2xx' };
    expect(after.count('http_server_request_duration_seconds', route) - before.count('http_server_request_duration_seconds', route)).toBe(1);
    expect(after.type('http_server_request_duration_seconds')).toBe('histogram');
  });

  it('counts a declined card and a duplicate TranId apart from approvals', async () => {
    const before = await scrape();
    const declined = await pay(card({ CardNum: '4000000000000002' }));
    expect(declined.json().Successful).toBe(false);
    const tranId = `dup-${randomUUID()}`;
    expect((await pay(card({ TranId: tranId }))).json().Successful).toBe(true);
    const duplicate = await pay(card({ TranId: tranId }));
    expect(duplicate.json().ResponseCode).toBe('-100');
    const after = await scrape();
    const delta = (labels: Record<string, string>) => after.value('payments_total', labels) - before.value('payments_total', labels);
    expect(delta({ method: 'card', outcome: 'declined', adapter: 'simulator' })).toBe(1);
    expect(delta({ method: 'card', outcome: 'approved', adapter: 'simulator' })).toBe(1);
    // Refused before any processor was asked.
    expect(delta({ method: 'card', outcome: 'duplicate', adapter: 'none' })).toBe(1);
    // Two sales reached the processor: the duplicate did not.
    expect(after.count('processor_call_duration_seconds', SIMULATOR_SALE) - before.count('processor_call_duration_seconds', SIMULATOR_SALE)).toBe(2);
  });

  it('counts a request the rules refused by its HTTP status class: the payment service is not asked', async () => {
    const before = await scrape();
    const res = await pay(card({ CardNum: '4242424242424241' }));
    expect(res.statusCode).toBe(400);
    const after = await scrape();
    const route = { route: '/api/payment', method: 'POST', status_class: '4xx' };
    expect(after.count('http_server_request_duration_seconds', route) - before.count('http_server_request_duration_seconds', route)).toBe(1);
    expect(after.value('payments_total', { outcome: 'rejected' })).toBe(0);
  });

  it('counts a settlement run, what it settled, and a refund and a void by outcome', async () => {
    const paid = await makePayment(ctx);
    const toVoid = await makePayment(ctx);
    const before = await scrape();
    const run = await settleNow(ctx);
    const settledUsd = run.batch.totals.USD!;
    expect(settledUsd.settledCount).toBeGreaterThanOrEqual(2);
    const refund = await adjust(ctx, 'refund', { PaymentGuid: paid.PaymentGuid, Reason: 'Duplicate order' });
    expect(refund.json().Successful).toBe(true);
    // Settled: a void is refused (refund it instead), and the processor is not asked.
    const refused = await adjust(ctx, 'void', { PaymentGuid: toVoid.PaymentGuid, Reason: 'Changed mind' });
    expect(refused.json().Successful).toBe(false);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) => after.value(name, labels) - before.value(name, labels);
    expect(delta('settlement_runs_total', { trigger: 'operator', result: 'closed' })).toBe(1);
    expect(delta('settlement_settled_payments_total', { currency: 'USD' })).toBe(settledUsd.settledCount);
    expect(delta('settlement_settled_amount_cents_total', { currency: 'USD' })).toBe(settledUsd.settledCents);
    expect(delta('refunds_voids_total', { kind: 'refund', outcome: 'approved' })).toBe(1);
    expect(delta('refunds_voids_total', { kind: 'void', outcome: 'refused' })).toBe(1);
    expect(after.count('processor_call_duration_seconds', { adapter: 'simulator', operation: 'refund' }) - before.count('processor_call_duration_seconds', { adapter: 'simulator', operation: 'refund' })).toBe(1);
    expect(after.count('processor_call_duration_seconds', { adapter: 'simulator', operation: 'void' }) - before.count('processor_call_duration_seconds', { adapter: 'simulator', operation: 'void' })).toBe(0);
  });

  it('marks the latest cut-off settled once the settlement job found its batch', async () => {
    await ctx.services.settlement.settleIfCutoffPassed();
    const after = await scrape();
    const latest = after.value('settlement_latest_cutoff_timestamp_seconds');
    expect(latest).toBe(ctx.services.settlement.latestCutoff().getTime() / 1000);
    expect(after.value('settlement_cutoff_settled_timestamp_seconds')).toBe(latest);
  });

  it('times a charity search by what it searched by and what it found', async () => {
    await ctx.services.charityImport.importFiles([join(SAMPLE_DIR, 'irs-eo-bmf-DC.csv')]);
    const before = await scrape();
    expect((await ctx.app.inject({ method: 'GET', url: '/api/CharitySearch?Name=red%20cross' })).statusCode).toBe(200);
    expect((await ctx.app.inject({ method: 'GET', url: '/api/CharitySearch?EIN=000000001' })).statusCode).toBe(404);
    const after = await scrape();
    const delta = (by: string, result: string) => after.count('charity_search_duration_seconds', { by, result }) - before.count('charity_search_duration_seconds', { by, result });
    expect(delta('name', 'ok')).toBe(1);
    expect(delta('ein', 'none')).toBe(1);
  });

  it('counts a billing run', async () => {
    const before = await scrape();
    await ctx.services.billing.run();
    const after = await scrape();
    expect(after.value('billing_runs_total', { result: 'completed' }) - before.value('billing_runs_total', { result: 'completed' })).toBe(1);
    expect(after.count('billing_run_duration_seconds') - before.count('billing_run_duration_seconds')).toBe(1);
    expect(after.type('billing_profiles_due')).toBe('gauge');
  });

  it('gives the database pool, whether the database answers, and failed statements', async () => {
    const before = await scrape();
    await expect(ctx.store.sql.query('SELECT * FROM no_such_table')).rejects.toThrow();
    const after = await scrape();
    expect(after.value('db_query_errors_total', { kind: 'other' }) - before.value('db_query_errors_total', { kind: 'other' })).toBe(1);
    expect(after.value('db_up')).toBe(1);
    const state = ctx.store.poolState();
    expect(after.value('db_pool_connections_max')).toBe(state.max);
    expect(after.value('db_pool_connections')).toBeGreaterThanOrEqual(1);
    expect(after.value('db_pool_waiting')).toBe(0);
  });

  it("gives the process's own metrics from the library's defaults", async () => {
    const after = await scrape();
    for (const name of ['nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes', 'process_cpu_seconds_total', 'nodejs_gc_duration_seconds']) {
      expect(after.type(name), name).toBeDefined();
    }
  });

  it('never puts a GUID from a URL, an e-mail address or a card number in a label value', async () => {
    await ctx.app.inject({ method: 'GET', url: `/paylink/${randomUUID()}` });
    await ctx.app.inject({ method: 'GET', url: '/api/nothing/ada@example.org/4242424242424242?Email=ada@example.org' });
    await ctx.as(ctx.nonProfit, { method: 'GET', url: `/api/RecurringProfile?RecurringProfileGuid=${randomUUID()}&Email=ada%40example.org` });
    await pay(card({ TranId: `label-${randomUUID()}`, Email: 'grace@example.org' }));
    const after = await scrape();
    expect(after.count('http_server_request_duration_seconds', { route: '/paylink/:id', method: 'GET' })).toBeGreaterThanOrEqual(1);
    expect(after.count('http_server_request_duration_seconds', { route: 'unmatched', method: 'GET', status_class: '4xx' })).toBeGreaterThanOrEqual(1);
    const values = after.labelValues();
    expect(values.length).toBeGreaterThan(20);
    for (const value of values) {
      expect(value).not.toMatch(GUID);
      expect(value).not.toContain('@');
      expect(value).not.toMatch(/\d{12,}/);
    }
  });

  it('is what the dashboard and the alert rules in docs/ query', async () => {
    const after = await scrape();
    const docs = join(import.meta.dirname, '..', '..', 'docs');
    const dashboard = JSON.parse(readFileSync(join(docs, 'grafana-dashboard.json'), 'utf8')) as { panels: { targets?: { expr: string }[] }[] };
    const expressions = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
    // The alert rules' `expr:` values, one line or a block.
    const rules = readFileSync(join(docs, 'prometheus-alerts.yml'), 'utf8').split('\n');
    rules.forEach((line, i) => {
      const expr = /^(\s*)expr:\s*(\|)?\s*(.*)$/.exec(line);
      if (!expr) return;
      if (!expr[2]) return void expressions.push(expr[3]!);
      for (let j = i + 1; j < rules.length && /^\s*$|^\s{10,}/.test(rules[j]!) && rules[j]!.search(/\S/) > expr[1]!.length; j++) expressions.push(rules[j]!);
    });
    expect(expressions.length).toBeGreaterThan(30);
    const notMetrics = new Set(['histogram_quantile', 'label_values', 'status_class']);
    const used = new Set(expressions.flatMap((e) => e.match(/(?<![$\w])[a-z][a-z0-9]*_[a-z0-9_]*/g) ?? []).filter((t) => !notMetrics.has(t)));
    // Families are exposed before any of their labelled series is: the names they give samples.
    const suffixes: Record<string, string[]> = { counter: ['_total'], histogram: ['_bucket', '_count', '_sum'] };
    const exposed = new Set(after.families.flatMap((f) => [f.name, ...(suffixes[f.type] ?? []).map((suffix) => f.name + suffix)]));
    // The notifications capability brings its own (docs/operations.md, "Notifications").
    const missing = [...used].filter((name) => !exposed.has(name) && !name.startsWith('notification_'));
    expect(missing).toEqual([]);
  });

  it('answers 404 for anything but GET /metrics', async () => {
    const other = await fetch(`http://127.0.0.1:${server.port}/api/payment`);
    expect(other.status).toBe(404);
    const post = await fetch(`http://127.0.0.1:${server.port}/metrics`, { method: 'POST' });
    expect(post.status).toBe(404);
  });
});

describe('the public port', () => {
  it('answers 404 for /metrics', async () => {
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = ctx.app.server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain('payments_total');
  });
});

describe.runIf(hasPrometheusParser())('a processor that does not answer', () => {
  let slow: TestContext;
  let slowServer: MetricsServer;
  beforeAll(async () => {
    const metrics = new Metrics({ readingsMaxAgeMs: 0, processMetrics: false });
    // Every sale outlasts PROCESSOR_TIMEOUT: its outcome is unknown and the payment is held.
    slow = await createTestContext({ metrics, config: { simulatorLatencyMs: 1_500, processorTimeoutMs: 1_000 } });
    slowServer = await startMetricsServer(metrics, { port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await slowServer?.close();
    await slow?.close();
  });

  it('counts the held payment, the timeout by adapter and operation, and the held outcome waiting and its age', async () => {
    const url = `http://127.0.0.1:${slowServer.port}/metrics`;
    const before = await Scrape.of(url);
    expect(before.value('held_outcomes_waiting', { kind: 'payment' })).toBe(0);
    const res = await slow.as(slow.nonProfit, { method: 'POST', url: '/api/payment', payload: card() });
    expect(res.json().PaymentResult).toBe(2);
    slow.clock.advance(20 * 60_000);
    const after = await Scrape.of(url);
    expect(after.value('payments_total', { method: 'card', outcome: 'held', adapter: 'simulator' })).toBe(1);
    expect(after.value('processor_call_errors_total', { ...SIMULATOR_SALE, reason: 'timeout' })).toBe(1);
    expect(after.count('processor_call_duration_seconds', SIMULATOR_SALE)).toBe(1);
    expect(after.value('held_outcomes_waiting', { kind: 'payment' })).toBe(1);
    expect(after.value('held_outcomes_oldest_age_seconds', { kind: 'payment' })).toBeGreaterThanOrEqual(20 * 60);
    expect(after.value('held_outcomes_waiting', { kind: 'refund_void' })).toBe(0);
  });
});
