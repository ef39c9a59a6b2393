import { Counter, type CounterConfiguration, Gauge, type GaugeConfiguration, Histogram, type HistogramConfiguration, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The process's Prometheus metrics: one prom-client registry, with the library's process metrics
 * (event loop lag, heap, GC, handles, CPU), and the counters, gauges and histograms the service's
 * parts add to it. Served by `startMetricsServer` on METRICS_PORT, never on the public port.
 *
 * Label values must be bounded: route templates, outcomes, adapter names; never a URL, an id, an
 * e-mail address or a secret (docs/operations.md).
 */
export class Metrics {
  readonly registry = new Registry();
  readonly #readingsMaxAgeMs: number | undefined;

  /**
   * `processMetrics`: the library's process metrics (default on). `readingsMaxAgeMs`: the longest
   * any value read at a scrape is reused (tests: 0, each scrape reads); default each reading's own.
   */
  constructor(options: { processMetrics?: boolean; readingsMaxAgeMs?: number } = {}) {
    this.#readingsMaxAgeMs = options.readingsMaxAgeMs;
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  /**
   * A value computed when Prometheus scrapes, at most once every `maxAgeMs`: a gauge that needs a
   * database query must not run it for every scrape of every Prometheus server. A failed refresh
   * keeps the last value (a scrape never fails for it) and is tried again at the next scrape.
   */
  reading<T>(read: () => Promise<T>, maxAgeMs: number): () => Promise<T | undefined> {
    return cachedReading(read, Math.min(maxAgeMs, this.#readingsMaxAgeMs ?? maxAgeMs));
  }

  counter<L extends string>(config: Omit<CounterConfiguration<L>, 'registers'>): Counter<L> {
    return new Counter({ ...config, registers: [this.registry] });
  }

  gauge<L extends string>(config: Omit<GaugeConfiguration<L>, 'registers'>): Gauge<L> {
    return new Gauge({ ...config, registers: [this.registry] });
  }

  histogram<L extends string>(config: Omit<HistogramConfiguration<L>, 'registers'>): Histogram<L> {
    return new Histogram({ ...config, registers: [this.registry] });
  }

  /** Every metric in the Prometheus text format. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/** Seconds buckets for calls that take milliseconds to seconds (HTTP requests, processor calls, searches). */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** See Metrics.reading. */
export function cachedReading<T>(read: () => Promise<T>, maxAgeMs: number, now: () => number = Date.now): () => Promise<T | undefined> {
  let value: T | undefined;
  let readAt = -Infinity;
  let reading: Promise<T | undefined> | undefined;
  return () => {
    if (now() - readAt < maxAgeMs) return Promise.resolve(value);
    reading ??= read().then(
      (v) => {
        value = v;
        readAt = now();
        return v;
      },
      () => value,
    ).finally(() => {
      reading = undefined;
    });
    return reading;
  };
}
