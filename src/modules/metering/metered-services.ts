import type { CharitySearchCriteria } from '../charities/search-rules.ts';
import { PaymentResult, ProcessStatus, ResponseCode } from '../../domain/payment-status.ts';
import type { Clock } from '../../platform/clock.ts';
import { NotFoundError, OutcomeUnknownError, RecordUnknownError, ValidationError } from '../../platform/errors.ts';
import type { RefundVoidService } from '../adjustments/refund-void-service.ts';
import type { SettlementRun, SettlementService } from '../adjustments/settlement-service.ts';
import type { CharityService } from '../charities/search-service.ts';
import type { PendingPaymentService } from '../payments/held-outcome-service.ts';
import type { PaymentRecord } from '../payments/payment-record.ts';
import type { PaymentService } from '../payments/payment-service.ts';
import type { BillingRunSummary, BillingService } from '../recurring/billing-service.ts';
import type { ProcessorCallNote, ServiceMetrics } from './service-metrics.ts';

/**
 * The services' use cases metered from outside, at the composition root: each decorator replaces
 * a method of the one service instance with a call of the original that counts what it returned
 * or threw. Every holder of the instance (the API, the pay page, the billing run) goes through it,
 * and the services themselves stay as they are.
 */
function around<T extends object, K extends keyof T>(target: T, name: K, wrap: (original: T[K]) => T[K]): void {
  const original = (target[name] as (...args: unknown[]) => unknown).bind(target) as T[K];
  target[name] = wrap(original);
}

/** How a payment request ended, from its record (or what it threw). */
export function paymentOutcome(record: PaymentRecord): 'approved' | 'declined' | 'duplicate' | 'held' | 'not_processed' {
  const { payment } = record;
  if (payment.successful) return 'approved';
  if (payment.responseCode === ResponseCode.NotProcessed) return 'duplicate';
  if (payment.paymentResult === PaymentResult.Processing || payment.paymentResult === PaymentResult.Pending) return 'held';
  // Not sent, or the processor never reached: nothing was charged and the payer may try again.
  if (payment.processStatus === ProcessStatus.NotProcessed && payment.responseCode === ResponseCode.GeneralError && payment.transactionId === null) return 'not_processed';
  return 'declined';
}

/** A thrown request: refused before anything was done (400, 404), held (do not pay again), or failed. */
function thrownOutcome(err: unknown): 'rejected' | 'held' | 'error' {
  if (err instanceof ValidationError || err instanceof NotFoundError) return 'rejected';
  if (err instanceof OutcomeUnknownError) return 'held';
  return 'error';
}

/** The reference a failed request was made under, when its error says it (the processor may have been asked). */
function referenceOf(err: unknown): string | undefined {
  return err instanceof OutcomeUnknownError || err instanceof RecordUnknownError ? err.reference : undefined;
}

/** `payCard`, `payAch`: payments_total by method, outcome and the adapter that was asked. */
export function meterPayments(payments: PaymentService, metrics: ServiceMetrics): void {
  const notes = metrics.processorCallNotes;
  const meter =
    <A extends unknown[]>(requested: 'card' | 'ach', pay: (...args: A) => Promise<PaymentRecord>) =>
    (...args: A): Promise<PaymentRecord> =>
      pay(...args).then(
        (record) => {
          const adapter = notes.take(record.payment.id)?.adapter ?? 'none';
          metrics.payments.inc({ method: record.payment.method, outcome: paymentOutcome(record), adapter });
          return record;
        },
        (err: unknown) => {
          const adapter = notes.take(referenceOf(err))?.adapter ?? 'none';
          metrics.payments.inc({ method: requested, outcome: thrownOutcome(err), adapter });
          throw err;
        },
      );
  around(payments, 'payCard', (payCard) => meter('card', payCard));
  around(payments, 'payAch', (payAch) => meter('ach', payAch));
}

/** `refund`, `voidPayment`: refunds_voids_total by kind and outcome. */
export function meterRefundsVoids(refundsVoids: RefundVoidService, metrics: ServiceMetrics): void {
  type Adjust = RefundVoidService['refund'];
  const notes = metrics.processorCallNotes;
  const meter =
    (kind: 'refund' | 'void', adjust: Adjust): Adjust =>
    (...args) =>
      adjust(...args).then(
        (outcome) => {
          metrics.refundsVoids.inc({ kind, outcome: adjustmentOutcome(outcome, notes.take(outcome.adjustmentId)) });
          return outcome;
        },
        (err: unknown) => {
          notes.take(referenceOf(err));
          metrics.refundsVoids.inc({ kind, outcome: thrownOutcome(err) });
          throw err;
        },
      );
  around(refundsVoids, 'refund', (refund) => meter('refund', refund));
  around(refundsVoids, 'voidPayment', (voidPayment) => meter('void', voidPayment));
}

export function adjustmentOutcome(outcome: { successful: boolean; responseCode: string }, note: ProcessorCallNote | undefined): string {
  if (outcome.successful) return 'approved';
  // Refused by the rules (already refunded, settling, another in flight): the processor was not asked.
  if (outcome.responseCode === ResponseCode.NotProcessed) return 'refused';
  if (note?.answer === 'not_reached') return 'not_processed';
  // No answer (the claim is held for an operator), or an approval that could not be recorded yet.
  if (note?.answer === 'failed' || note?.answer === 'approved') return 'held';
  return 'declined';
}

/**
 * `settle` (the job's and the operator's): runs, settled payments and amounts; and after each
 * check of the job that found the latest cut-off settled, that cut-off (the alert "settlement not
 * run since the cut-off" compares it with the latest one).
 */
export function meterSettlement(settlement: SettlementService, metrics: ServiceMetrics): void {
  around(settlement, 'settle', (settle) => async (options = {}) => {
    const trigger = options.trigger ?? 'operator';
    let run: SettlementRun;
    try {
      run = await settle(options);
    } catch (err) {
      metrics.settlementRuns.inc({ trigger, result: 'failed' });
      throw err;
    }
    if (!run.created) {
      metrics.settlementRuns.inc({ trigger, result: 'already_closed' });
      return run;
    }
    metrics.settlementRuns.inc({ trigger, result: 'closed' });
    for (const [currency, totals] of Object.entries(run.batch.totals)) {
      metrics.settledPayments.inc({ currency }, totals.settledCount);
      metrics.settledCents.inc({ currency }, totals.settledCents);
    }
    metrics.achRefundsCompleted.inc(run.batch.achRefundsCompleted);
    return run;
  });
  around(settlement, 'settleIfCutoffPassed', (check) => async () => {
    const cutoff = settlement.latestCutoff();
    const run = await check();
    metrics.settledCutoff.set(cutoff.getTime() / 1000);
    return run;
  });
  metrics.metrics.gauge({
    name: 'settlement_latest_cutoff_timestamp_seconds',
    help: 'The latest settlement cut-off (SETTLEMENT_CUTOFF) that has passed, Unix time.',
    collect() {
      this.set(settlement.latestCutoff().getTime() / 1000);
    },
  });
}

/** `run`: billing runs, their duration and the profiles they handled, from the run's summary. */
export function meterBilling(billing: BillingService, metrics: ServiceMetrics): void {
  around(billing, 'run', (run) => async (options) => {
    let summary: BillingRunSummary;
    try {
      summary = await run(options);
    } catch (err) {
      metrics.billingRuns.inc({ result: 'failed' });
      throw err;
    }
    metrics.billingRuns.inc({ result: 'completed' });
    metrics.billingRunDuration.observe(summary.durationMs / 1000);
    const counts = { approved: summary.approved, declined: summary.declined, suspended: summary.suspended, completed: summary.completed, reconciled: summary.reconciled, deferred: summary.deferred, error: summary.errors };
    for (const [result, n] of Object.entries(counts)) if (n > 0) metrics.billingProfiles.inc({ result }, n);
    return summary;
  });
  const due = metrics.metrics.reading(async () => (await billing.status()).due, 15_000);
  metrics.metrics.gauge({
    name: 'billing_profiles_due',
    help: 'Active recurring profiles due for a charge today or earlier (read at most every 15 s).',
    async collect() {
      const value = await due();
      if (value !== undefined) this.set(value);
    },
  });
}

/** `search`: charity_search_duration_seconds by what was searched by and whether it answered. */
export function meterCharitySearch(charities: CharityService, metrics: ServiceMetrics): void {
  around(charities, 'search', (search) => async (input: CharitySearchCriteria) => {
    const by = input.taxId ? 'ein' : input.name ? 'name' : 'filter';
    const started = performance.now();
    let result = 'error';
    try {
      const page = await search(input);
      result = 'ok';
      return page;
    } catch (err) {
      // Nothing found (the API's 404) and a refused request (400) are answers, not failures.
      if (err instanceof NotFoundError) result = 'none';
      else if (err instanceof ValidationError) result = 'rejected';
      throw err;
    } finally {
      metrics.charitySearch.observe({ by, result }, (performance.now() - started) / 1000);
    }
  });
}

/**
 * Payments, refunds and voids whose outcome is unknown (`payments pending list`): how many wait
 * and how long the oldest has, read from the database at a scrape, at most every 5 s.
 */
export function observeHeldOutcomes(pending: PendingPaymentService, clock: Clock, metrics: ServiceMetrics): void {
  const read = metrics.metrics.reading(async () => {
    const found = await pending.list(0);
    const now = clock.now().getTime();
    const oldest = (dates: Date[]) => (dates.length === 0 ? 0 : Math.max(0, (now - Math.min(...dates.map((d) => d.getTime()))) / 1000));
    return {
      payment: { waiting: found.payments.length, oldest: oldest(found.payments.map((p) => p.createdAt)) },
      refund_void: { waiting: found.adjustments.length, oldest: oldest(found.adjustments.map((a) => a.requestedAt)) },
    };
  }, 5_000);
  metrics.metrics.gauge({
    name: 'held_outcomes_waiting',
    help: 'Payments (kind payment) and refunds or voids (kind refund_void) whose outcome is not recorded yet: in flight, or held for an operator (payments pending list).',
    labelNames: ['kind'] as const,
    async collect() {
      const held = await read();
      if (!held) return;
      this.set({ kind: 'payment' }, held.payment.waiting);
      this.set({ kind: 'refund_void' }, held.refund_void.waiting);
    },
  });
  metrics.metrics.gauge({
    name: 'held_outcomes_oldest_age_seconds',
    help: 'Age of the oldest payment (kind payment) or refund or void (kind refund_void) whose outcome is not recorded yet; 0 when none waits.',
    labelNames: ['kind'] as const,
    async collect() {
      const held = await read();
      if (!held) return;
      this.set({ kind: 'payment' }, held.payment.oldest);
      this.set({ kind: 'refund_void' }, held.refund_void.oldest);
    },
  });
}
