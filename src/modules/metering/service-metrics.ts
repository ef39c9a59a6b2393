import { DURATION_BUCKETS, type Metrics } from '../../platform/metrics/metrics.ts';

/** What the processor did for one payment, refund or void request: its metric's labels come from it. */
export interface ProcessorCallNote {
  adapter: string;
  /** approved / declined: its answer; not_reached, failed: no answer (the outcome is unknown). */
  answer?: 'approved' | 'declined' | 'not_reached' | 'failed';
}

/**
 * The processor calls of the requests in progress, by the reference they were sent with (a
 * PaymentGuid, a refund's or void's id), from the adapter's wrapper to the service's decorator,
 * which takes its request's note when the request ends. A note nobody takes (a request that
 * failed without saying its reference, a reversal) is dropped once 1,000 newer ones are kept.
 */
export class ProcessorCallNotes {
  static readonly LIMIT = 1_000;
  readonly #notes = new Map<string, ProcessorCallNote>();

  note(reference: string, note: ProcessorCallNote): void {
    this.#notes.delete(reference);
    if (this.#notes.size >= ProcessorCallNotes.LIMIT) this.#notes.delete(this.#notes.keys().next().value!);
    this.#notes.set(reference, note);
  }

  take(reference: string | undefined): ProcessorCallNote | undefined {
    if (reference === undefined) return undefined;
    const note = this.#notes.get(reference);
    if (note) this.#notes.delete(reference);
    return note;
  }

  get size(): number {
    return this.#notes.size;
  }
}

/**
 * The counters, gauges and histograms of the payment capabilities (docs/operations.md says what
 * each means). Labels are bounded sets: methods, outcomes, adapter names, operations, currencies;
 * never a partner, a payment, a TranId, an e-mail address or a secret (docs/decisions.md,
 * "Metrics and traces").
 */
export class ServiceMetrics {
  readonly metrics: Metrics;
  readonly processorCallNotes = new ProcessorCallNotes();
  readonly payments;
  readonly processorCalls;
  readonly processorErrors;
  readonly refundsVoids;
  readonly settlementRuns;
  readonly settledPayments;
  readonly settledCents;
  readonly achRefundsCompleted;
  readonly settledCutoff;
  readonly billingRuns;
  readonly billingRunDuration;
  readonly billingProfiles;
  readonly charitySearch;

  constructor(metrics: Metrics) {
    this.metrics = metrics;
    this.payments = metrics.counter({
      name: 'payments_total',
      help: 'Card, ACH and wallet payment requests by method, outcome (approved, declined, duplicate, held, not_processed, rejected, error) and processor adapter ("none": no processor was asked).',
      labelNames: ['method', 'outcome', 'adapter'] as const,
    });
    this.processorCalls = metrics.histogram({
      name: 'processor_call_duration_seconds',
      help: 'Processor calls by adapter and operation (sale, void, refund, settle), answered or not, up to PROCESSOR_TIMEOUT.',
      labelNames: ['adapter', 'operation'] as const,
      buckets: DURATION_BUCKETS,
    });
    this.processorErrors = metrics.counter({
      name: 'processor_call_errors_total',
      help: 'Processor calls that brought no answer, by adapter, operation and reason: timeout (PROCESSOR_TIMEOUT passed: outcome unknown), not_reached (nothing happened there), error (outcome unknown).',
      labelNames: ['adapter', 'operation', 'reason'] as const,
    });
    this.refundsVoids = metrics.counter({
      name: 'refunds_voids_total',
      help: 'Refund and void requests by kind and outcome (approved, declined, refused by the rules, held, not_processed, rejected, error).',
      labelNames: ['kind', 'outcome'] as const,
    });
    this.settlementRuns = metrics.counter({
      name: 'settlement_runs_total',
      help: 'Settlement runs of this process by trigger (cutoff, operator) and result: closed (a batch), already_closed (the moment had its batch), failed.',
      labelNames: ['trigger', 'result'] as const,
    });
    this.settledPayments = metrics.counter({
      name: 'settlement_settled_payments_total',
      help: 'Payments settled by the batches this process closed, by currency.',
      labelNames: ['currency'] as const,
    });
    this.settledCents = metrics.counter({
      name: 'settlement_settled_amount_cents_total',
      help: 'Amount settled by the batches this process closed, in cents, by currency.',
      labelNames: ['currency'] as const,
    });
    this.achRefundsCompleted = metrics.counter({
      name: 'settlement_ach_refunds_completed_total',
      help: 'ACH refunds the batches this process closed completed.',
    });
    this.settledCutoff = metrics.gauge({
      name: 'settlement_cutoff_settled_timestamp_seconds',
      help: "The latest cut-off (Unix time) this process's settlement job found settled: its batch closed here or by another process.",
    });
    this.billingRuns = metrics.counter({
      name: 'billing_runs_total',
      help: 'Recurring billing runs of this process by result: completed, failed (the run stopped with an error).',
      labelNames: ['result'] as const,
    });
    this.billingRunDuration = metrics.histogram({
      name: 'billing_run_duration_seconds',
      help: 'Duration of the billing runs that completed.',
      buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600],
    });
    this.billingProfiles = metrics.counter({
      name: 'billing_profiles_total',
      help: 'Profiles the billing runs handled, by result: approved, declined (charges), suspended (after the last retry), completed (past EndDate), reconciled, deferred, error.',
      labelNames: ['result'] as const,
    });
    this.charitySearch = metrics.histogram({
      name: 'charity_search_duration_seconds',
      help: 'Charity directory searches by what they searched by (name, ein, filter) and result: ok, none (nothing found), rejected (a bad request), error.',
      labelNames: ['by', 'result'] as const,
      buckets: DURATION_BUCKETS,
    });
  }
}
