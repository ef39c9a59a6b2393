import { createRequire } from 'node:module';
import type { AttributeValue, Attributes } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace';
import { SECRET_FIELDS, maskQuotedValues, safeUrl } from './logging.ts';

/**
 * OpenTelemetry traces, on when OTEL_EXPORTER_OTLP_ENDPOINT is set (the OTEL_* variables of the
 * SDK configure the rest: OTEL_SERVICE_NAME, OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_TRACES_SAMPLER...).
 * A request, its database statements and its processor call are one trace: the SDK's
 * instrumentations of node:http (the server and its clients), Fastify (@fastify/otel), pg and
 * undici (fetch), spans of PGlite's statements (database.ts) and of processor calls (the
 * metering module's adapter wrapper).
 *
 * Off, nothing of the SDK is loaded and nothing is patched: `tracing()` is undefined and the
 * service's spans are not even made. The SDK is started before the service's modules load
 * (bin/start.js), so that its instrumentations patch the libraries as they are first required.
 */
export interface Tracing {
  /** The trace id of the span active now (the request's), for its log lines; undefined outside any. */
  traceId(): string | undefined;
  /**
   * Runs `fn` in a span of its own, a child of the active one. `requireParent`: made only inside a
   * trace (a database statement of a background job is not worth a trace of its own). A failure
   * is recorded by its error's name, never its message (a driver's or a bank library's message
   * may quote what it was sent).
   */
  span<T>(name: string, attributes: Attributes, fn: () => Promise<T>, options?: { requireParent?: boolean }): Promise<T>;
  /** Sends the spans still buffered and stops. */
  shutdown(): Promise<void>;
}

let started: Tracing | undefined;

/** The tracing of this process, when it was started. */
export function tracing(): Tracing | undefined {
  return started;
}

export interface TracingOptions {
  /** Where spans go; default: the OTLP exporter OTEL_EXPORTER_OTLP_PROTOCOL names (http/protobuf), batched. */
  exporter?: SpanExporter;
  /** Export each span as it ends (tests); default: batched. */
  immediate?: boolean;
  /** Default: OTEL_SERVICE_NAME, else "payments". */
  serviceName?: string;
}

/** Starts tracing when OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set. */
export async function startTracingFromEnvironment(env: Record<string, string | undefined> = process.env): Promise<Tracing | undefined> {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!endpoint || env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  return startTracing();
}

export async function startTracing(options: TracingOptions = {}): Promise<Tracing> {
  if (started) return started;
  const api = await import('@opentelemetry/api');
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  const { BatchSpanProcessor, SimpleSpanProcessor } = await import('@opentelemetry/sdk-trace');
  const { HttpInstrumentation } = await import('@opentelemetry/instrumentation-http');
  const { PgInstrumentation } = await import('@opentelemetry/instrumentation-pg');
  const { UndiciInstrumentation } = await import('@opentelemetry/instrumentation-undici');
  const { FastifyOtelInstrumentation } = await import('@fastify/otel');

  const exporter = options.exporter ?? (await otlpExporter());
  const sdk = new NodeSDK({
    serviceName: options.serviceName ?? (process.env.OTEL_SERVICE_NAME?.trim() || 'payments'),
    spanProcessors: [new Redaction(), options.immediate ? new SimpleSpanProcessor({ exporter }) : new BatchSpanProcessor({ exporter, ...batchSettings(process.env) })],
    // Traces only: the metrics are Prometheus's (METRICS_PORT), the logs stdout's.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        // Prometheus scrapes are not worth a trace each (the public port answers 404 there).
        ignoreIncomingRequestHook: (request) => /^\/metrics(\?|$)/.test(request.url ?? ''),
      }),
      new FastifyOtelInstrumentation({ registerOnInitialization: true }),
      // Statement texts only (parameterized: no values); statements outside a request are not traced.
      new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false }),
      new UndiciInstrumentation(),
    ],
  });
  sdk.start();
  // The service imports pg as an ES module, which the instrumentation's require hook does not
  // see: required here first, pg is patched, and the later import gets the same, patched, module.
  createRequire(import.meta.url)('pg');

  const tracer = api.trace.getTracer('payments');
  started = {
    traceId() {
      const context = api.trace.getActiveSpan()?.spanContext();
      return context && api.isSpanContextValid(context) ? context.traceId : undefined;
    },
    span(name, attributes, fn, spanOptions = {}) {
      if (spanOptions.requireParent && !api.trace.getActiveSpan()) return fn();
      return tracer.startActiveSpan(name, { kind: api.SpanKind.CLIENT, attributes }, async (span) => {
        try {
          return await fn();
        } catch (err) {
          const type = err instanceof Error ? err.name : typeof err;
          span.setAttribute('error.type', type);
          span.setStatus({ code: api.SpanStatusCode.ERROR, message: type });
          throw err;
        } finally {
          span.end();
        }
      });
    },
    async shutdown() {
      await sdk.shutdown();
    },
  };
  return started;
}

/** The batch span processor's OTEL_BSP_* settings, which the SDK reads only for processors it makes itself. */
function batchSettings(env: Record<string, string | undefined>) {
  const number = (name: string) => {
    const value = Number(env[name]?.trim() || Number.NaN);
    return Number.isFinite(value) && value > 0 ? value : undefined;
  };
  const settings = {
    scheduledDelayMillis: number('OTEL_BSP_SCHEDULE_DELAY'),
    exportTimeoutMillis: number('OTEL_BSP_EXPORT_TIMEOUT'),
    maxQueueSize: number('OTEL_BSP_MAX_QUEUE_SIZE'),
    maxExportBatchSize: number('OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
  };
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined));
}

/** The OTLP exporter of OTEL_EXPORTER_OTLP_TRACES_PROTOCOL / OTEL_EXPORTER_OTLP_PROTOCOL (default http/protobuf). */
async function otlpExporter(): Promise<SpanExporter> {
  const protocol = (process.env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? process.env.OTEL_EXPORTER_OTLP_PROTOCOL)?.trim() || 'http/protobuf';
  if (protocol === 'grpc') return new (await import('@opentelemetry/exporter-trace-otlp-grpc')).OTLPTraceExporter();
  if (protocol === 'http/json') return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
  return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
}

const SECRET_NAMES = new Set(SECRET_FIELDS.map((f) => f.toLowerCase()));

/** Attributes holding a URL's path and query (the pay link id of `/paylink/<id>`, query values). */
const PATH_ATTRIBUTES = new Set(['url.path', 'http.target', 'url.original']);
const FULL_URL_ATTRIBUTES = new Set(['url.full', 'http.url']);

/** A run of 13 to 19 digits that passes the Luhn check: a card number, whatever put it there. */
const CARD_LIKE = /\d{13,19}/g;

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

function maskCards(text: string): string {
  return text.replace(CARD_LIKE, (run) => (luhn(run) ? '[REDACTED]' : run));
}

/** An attribute as it may leave the process: URLs as log lines show them, secrets' values and card numbers masked. */
export function redactAttribute(key: string, value: AttributeValue): AttributeValue {
  // A captured header's values are an array of strings (OpenTelemetry's semantic conventions).
  if (Array.isArray(value)) return value.map((item) => (typeof item === 'string' ? redactAttribute(key, item) : item)) as AttributeValue;
  if (typeof value !== 'string') return value;
  const name = key.slice(key.lastIndexOf('.') + 1).toLowerCase();
  if (SECRET_NAMES.has(name) || name === 'body') return '[REDACTED]';
  if (PATH_ATTRIBUTES.has(key)) return maskCards(safeUrl(value));
  if (key === 'url.query') return maskCards(safeUrl(`/?${value.replace(/^\?/, '')}`).slice(2));
  if (FULL_URL_ATTRIBUTES.has(key)) {
    const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(value)?.[0] ?? '';
    return maskCards(origin + safeUrl(value.slice(origin.length) || '/'));
  }
  if (key.startsWith('exception.')) return maskCards(maskQuotedValues(value));
  return maskCards(value);
}

function redactAll(attributes: Attributes): void {
  for (const [key, value] of Object.entries(attributes)) {
    if (value !== undefined) attributes[key] = redactAttribute(key, value);
  }
}

/**
 * The last look at a span before it ends (and is exported): the URL attributes the HTTP
 * instrumentations record are made what the log lines show (the pay link id fingerprinted, query
 * values redacted but for the documented parameters), an attribute named as a secret loses its
 * value, an error's text its quoted values, and any card number is masked.
 */
class Redaction implements SpanProcessor {
  onStart(): void {}

  onEnding(span: Span): void {
    const readable = span as unknown as ReadableSpan & { attributes: Attributes; status: { code: number; message?: string } };
    redactAll(readable.attributes);
    for (const event of readable.events) if (event.attributes) redactAll(event.attributes);
    if (readable.status.message) readable.status.message = maskCards(maskQuotedValues(readable.status.message));
  }

  onEnd(): void {}

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
