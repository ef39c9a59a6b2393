import type { AddressInfo } from 'node:net';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactAttribute, startTracing, tracing } from '../../src/platform/tracing.ts';
import type { TestContext } from '../helpers/context.ts';

/**
 * Traces with the SDK's in-memory exporter. The SDK starts before the app's modules load (as
 * bin/start.js starts it), so the service is imported only afterwards; a real HTTP request, so
 * that the node:http instrumentation sees it.
 */

const exporter = new InMemorySpanExporter();
let ctx: TestContext;
let base: string;

beforeAll(async () => {
  await startTracing({ exporter, immediate: true });
  const { createTestContext } = await import('../helpers/context.ts');
  ctx = await createTestContext();
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await ctx?.close();
  await tracing()?.shutdown();
});

const CARD = '378282246310005';
const CVV = '8317';
const EMAIL = 'ada.tracing@example.org';

/** The spans of the trace of the request that answered with `requestId`, once its server span has ended. */
async function traceOf(requestId: string): Promise<ReadableSpan[]> {
  for (let i = 0; i < 100; i++) {
    const server = exporter.getFinishedSpans().find((s) => s.instrumentationScope.name === '@opentelemetry/instrumentation-http' && s.kind === SpanKind.SERVER);
    if (server) return exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === server.spanContext().traceId);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no server span for request ${requestId}`);
}

/** Every text a span carries: its name, its attributes', its events' and its status message. */
function textsOf(span: ReadableSpan): string[] {
  const values = [span.name, ...Object.values(span.attributes), ...span.events.flatMap((e) => [e.name, ...Object.values(e.attributes ?? {})])];
  if (span.status.message) values.push(span.status.message);
  return values.map((v) => (Array.isArray(v) ? v.join(' ') : String(v)));
}

describe('tracing', () => {
  it('makes one payment one trace, with HTTP, database and processor spans and no secret in it', async () => {
    const token = await ctx.token(ctx.nonProfit);
    exporter.reset();
    const res = await fetch(`${base}/api/payment`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', AccessToken: token },
      body: JSON.stringify({
        CardNum: CARD,
        ExpMonth: '12',
        ExpYear: '30',
        CVNum: CVV,
        NameOnCard: 'Ada Lovelace',
        Email: EMAIL,
        IpAddress: '203.0.113.9',
        Transactions: [{ TransactionSourceGroupId: '1', Amount: '100.00' }],
      }),
    });
    expect(res.status).toBe(201);
    const requestId = res.headers.get('x-request-id')!;
    const spans = await traceOf(requestId);

    // One trace: every span made for the request, the test's own fetch included, shares it.
    const traces = new Set(exporter.getFinishedSpans().map((s) => s.spanContext().traceId));
    expect(traces.size).toBe(1);
    const scopes = new Set(spans.map((s) => s.instrumentationScope.name));
    expect(scopes).toContain('@opentelemetry/instrumentation-http');
    expect(scopes).toContain('@fastify/otel');
    // PostgreSQL: the pg instrumentation's spans; PGlite, which has none, the store's own.
    const database = spans.filter((s) => (ctx.store.kind === 'postgres' ? s.instrumentationScope.name === '@opentelemetry/instrumentation-pg' : s.name.startsWith('pglite.')));
    expect(database.length).toBeGreaterThan(1);
    expect(database.some((s) => /INSERT/.test(String(s.attributes['db.query.text'] ?? s.attributes['db.statement'] ?? s.name)))).toBe(true);
    const processor = spans.filter((s) => s.name === 'processor sale');
    expect(processor).toHaveLength(1);
    expect(processor[0]!.attributes).toMatchObject({ 'processor.adapter': 'simulator', 'processor.operation': 'sale' });
    // The route is named by its template.
    expect(spans.some((s) => s.attributes['http.route'] === '/api/payment')).toBe(true);

    const texts = spans.flatMap(textsOf);
    const secrets = [CARD, EMAIL, token, ctx.nonProfit.ClientSecret, '"CardNum"', 'Lovelace'];
    for (const text of texts) {
      for (const secret of secrets) expect(text).not.toContain(secret);
      expect(text).not.toMatch(new RegExp(`(^|\\D)${CVV}(\\D|$)`));
    }
  });

  it("puts the request's trace id on its log lines", async () => {
    exporter.reset();
    const before = ctx.logs.length;
    const res = await fetch(`${base}/api/CharitySearch?Name=nothing%20here`);
    expect([200, 404]).toContain(res.status);
    const spans = await traceOf(res.headers.get('x-request-id')!);
    const traceId = spans[0]!.spanContext().traceId;
    const lines = ctx.logs
      .slice(before)
      .map((l) => JSON.parse(l) as { msg: string; traceId?: string; reqId?: string })
      .filter((l) => l.reqId === res.headers.get('x-request-id'));
    expect(lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['incoming request', 'request completed']));
    for (const line of lines) expect(line.traceId).toBe(traceId);
  });

  it('keeps pay link ids and query values out of the URL attributes, and masks card numbers anywhere', () => {
    expect(redactAttribute('url.path', '/paylink/0f8fad5b-d9cb-469f-a165-70867728950e')).not.toContain('0f8fad5b');
    expect(redactAttribute('url.query', 'Email=ada%40example.org&PageSize=10')).toBe('Email=%5BREDACTED%5D&PageSize=10');
    expect(redactAttribute('url.full', 'http://h:1/api/x?ClientSecret=abc')).toBe('http://h:1/api/x?ClientSecret=%5BREDACTED%5D');
    expect(redactAttribute('http.request.header.accesstoken', 'tok')).toBe('[REDACTED]');
    expect(redactAttribute('http.request.header.accesstoken', ['tok', 'other'])).toEqual(['[REDACTED]', '[REDACTED]']);
    expect(redactAttribute('http.request.header.x-note', ['card 4111111111111111', null] as never)).toEqual(['card [REDACTED]', null]);
    expect(redactAttribute('http.response.status_codes', [200, 503])).toEqual([200, 503]);
    expect(redactAttribute('exception.message', 'invalid input syntax for type uuid: "4111111111111111"')).not.toContain('4111');
    expect(redactAttribute('note', 'card 4111111111111111 here')).toBe('card [REDACTED] here');
    expect(redactAttribute('note', 'order 1234567890123')).toBe('order 1234567890123');
  });
});
