import { Rule } from '../../domain/rules.ts';
import { formatCutoff, latestCutoff } from '../../domain/settlement-cutoff.ts';
import type { Clock } from '../../platform/clock.ts';
import { ValidationError } from '../../platform/errors.ts';
import type { Ids } from '../../platform/ids.ts';
import { type ProcessorAdapter, ProcessorNotReachedError } from '../../processors/processor.ts';
import type { ProcessorRegistry } from '../../processors/registry.ts';
import type { SettledShare, SettlementBatch, SettlementRepository, SettlementTotals, Totals } from './settlement-repository.ts';

export type { SettlementBatch };

export interface SettlementRun {
  batch: SettlementBatch;
  /** false: a batch for this moment had already been closed (by this or another process); nothing was done. */
  created: boolean;
}

/**
 * A batch left 'closing' longer than this is taken over by the next run: the run that claimed it
 * stopped (or its processor never answered) between the claim and the close.
 */
export const CLOSING_TAKEOVER_MS = 10 * 60_000;

/** What the processors answered to a batch's capture, by processor id. */
interface CaptureAnswers {
  accepted: string[];
  /** Definitely not captured: refused, or never reached. */
  refused: { processorId: string; error: unknown }[];
  /** No answer received: it may have captured. */
  unknown: { processorId: string; error: unknown }[];
  /** Sales a processor that settles itself has not settled yet: they wait for a later batch. */
  notYetSettled: string[];
}

/**
 * How far before a share's first payment a settlement report starts, and past now it ends: the
 * processor's batches are stamped by its clock, in its time zone's day.
 */
const REPORT_MARGIN_MS = 86_400_000;
/** The longest window Authorize.Net's batch list takes (31 days); older sales are not looked for. */
const REPORT_WINDOW_MS = 31 * 86_400_000;

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** A batch claimed by this run: its id, the claim's time (a fencing token) and its payments' shares. */
interface Claim {
  batchId: string;
  claimedAt: Date;
  shares: SettledShare[];
}

/**
 * Closes settlement batches: every authorized payment up to a moment becomes Settled (4) with the
 * batch's id and the settlement time, and every ACH refund accepted up to that moment completes
 * (AwaitingRefund 7 -> Refunded 8).
 *
 * In two steps, with the processors asked between them and outside any transaction (as refunds
 * and voids are), so that a slow or stuck processor holds no row locks and, on PGlite, not the
 * whole database (one slow capture would otherwise exhaust the pool with voids waiting on locked
 * payments):
 * 1. claim (one transaction, runs take turns under an advisory lock): the batch row, 'closing',
 *    and its payments, which keep Authorized with the batch's id (a void of one is refused, a
 *    later run's claim skips it);
 * 2. each processor captures its share; one that settles itself (Authorize.Net) is asked for its
 *    settlement report instead, and the sales it has not settled yet are given back in step 3,
 *    for a later batch;
 * 3. close (one transaction): the payments settle, ACH refunds complete, the batch is 'closed'.
 * A definite refusal gives the payments back and removes the batch, so that the next run tries
 * again. A run that stops between the steps, or whose processor's answer was not received, leaves
 * the batch 'closing': after its takeover time (#takeOverAfterMs) the worker takes it over and
 * asks the processors again under the same reference (they deduplicate on it). The claim's time
 * fences the steps: a run whose batch was taken over changes nothing.
 *
 * Safe with several processes on one database: the batch row for a moment is unique (a second run
 * for the same moment finds the first and does nothing), and each payment is claimed with a
 * conditional UPDATE that PostgreSQL re-checks after waiting for a concurrent writer, so a payment
 * settles once, in one batch. A payment with a refund or void in flight is left for the next batch.
 */
export class SettlementService {
  readonly #repository: SettlementRepository;
  readonly #clock: Clock;
  readonly #ids: Ids;
  readonly #cutoffMinutes: number;
  readonly #adapters: ProcessorRegistry;
  readonly #processorTimeoutMs: number;

  constructor(deps: { repository: SettlementRepository; clock: Clock; ids: Ids; cutoffMinutes: number; adapters: ProcessorRegistry; processorTimeoutMs?: number }) {
    this.#repository = deps.repository;
    this.#adapters = deps.adapters;
    this.#processorTimeoutMs = deps.processorTimeoutMs ?? 0;
    this.#clock = deps.clock;
    this.#ids = deps.ids;
    this.#cutoffMinutes = deps.cutoffMinutes;
  }

  /** The most recent cut-off moment by the injected clock. */
  latestCutoff(): Date {
    return latestCutoff(this.#clock.now(), this.#cutoffMinutes);
  }

  /**
   * The cut-off (HH:MM UTC) of the latest scheduled batch when it is not this process's: another
   * server on the database closes batches at another time, so payments settle at two cut-offs a
   * day, some hours early (and can then only be refunded). Undefined when they agree or no
   * scheduled batch exists yet.
   */
  async otherCutoffInUse(): Promise<string | undefined> {
    const latest = await this.#repository.latestScheduledCutoff();
    if (!latest) return undefined;
    const minutes = latest.getUTCHours() * 60 + latest.getUTCMinutes();
    return minutes === this.#cutoffMinutes ? undefined : formatCutoff(minutes);
  }

  /**
   * The worker's check: batches left 'closing' past their takeover time are closed now (each on
   * its own: one that keeps failing does not hold up the rest), and when the latest cut-off has no
   * batch yet, one is closed as of that cut-off. Returns the latest cut-off's run, undefined when
   * there was nothing to do for it.
   */
  async settleIfCutoffPassed(): Promise<SettlementRun | undefined> {
    const stale = new Date(this.#clock.now().getTime() - CLOSING_TAKEOVER_MS);
    const abandoned = await this.#repository.abandonedCutoffs(stale);
    let failed: unknown;
    for (const cutoffAt of abandoned) {
      try {
        await this.#run(cutoffAt, 'cutoff', { takeOverOnly: true });
      } catch (err) {
        failed ??= err;
      }
    }
    const cutoff = this.latestCutoff();
    const run = (await this.#repository.hasBatchAt(cutoff)) ? undefined : await this.settle({ asOf: cutoff, trigger: 'cutoff' });
    if (failed !== undefined) throw failed;
    return run;
  }

  /**
   * Closes the batch of everything authorized up to `asOf` (default: now). Idempotent per moment.
   * A moment in the future is refused: payments authorized between now and then would miss it.
   */
  async settle(options: { asOf?: Date; trigger?: 'cutoff' | 'operator' } = {}): Promise<SettlementRun> {
    const now = this.#clock.now();
    const asOf = options.asOf ?? now;
    if (Number.isNaN(asOf.getTime())) throw new ValidationError([{ code: Rule.InvalidFormat, field: 'asOf', message: 'The settlement moment is not a valid date-time.' }]);
    if (asOf.getTime() > now.getTime()) {
      throw new ValidationError([{ code: Rule.OutOfRange, field: 'asOf', message: `The settlement moment ${asOf.toISOString()} is in the future (now is ${now.toISOString()}).` }]);
    }
    return (await this.#run(asOf, options.trigger ?? 'operator', { takeOverOnly: false }))!;
  }

  /**
   * The three steps. A definite refusal (or a processor never reached) gives that processor's
   * payments back (all of them, and the batch, when no processor accepted); an answer not
   * received (a timeout, a broken answer) leaves the batch 'closing': the processor may have
   * captured, so the batch is taken over later and its processors asked again under the same
   * references, which they deduplicate on. Giving back payments a processor may have captured
   * would let a later run send them under another moment's reference, to be captured twice.
   * `takeOverOnly`: only a batch left 'closing' is closed; none is made (undefined then).
   */
  async #run(asOf: Date, trigger: 'cutoff' | 'operator', options: { takeOverOnly: boolean }): Promise<SettlementRun | undefined> {
    const claim = await this.#claim(asOf, trigger, this.#clock.now(), options.takeOverOnly);
    if (claim === undefined) return undefined;
    if (!('batchId' in claim)) return { batch: claim.batch, created: false };
    const answers = await this.#captureShares(asOf, claim.shares);
    if (answers.unknown.length > 0) {
      const first = answers.unknown[0]!;
      throw new Error(
        `processor ${first.processorId}'s answer to the settlement capture of ${asOf.toISOString()} was not received (${errorMessage(first.error)}): ` +
          `the batch stays closing and is asked again under the same references after ${Math.round(this.#takeOverAfterMs(claim.shares) / 60_000)} minutes`,
        { cause: first.error },
      );
    }
    if (answers.refused.length === 0) return this.#close(claim, asOf, answers.notYetSettled);
    const refusal = answers.refused.map((r) => errorMessage(r.error)).join('; ');
    if (answers.accepted.length === 0) {
      await this.#giveBack(claim);
      throw new Error(refusal, { cause: answers.refused[0]!.error });
    }
    // Some processors captured their shares and others refused: those shares settle now (given
    // back, they could be sent again under another moment's reference and captured twice), and
    // the refused ones wait for the next batch.
    const refusedIds = answers.refused.map((r) => r.processorId);
    await this.#giveBack(claim, refusedIds);
    const run = await this.#close(claim, asOf, answers.notYetSettled);
    throw new Error(
      `${refusal}: ${refusedIds.length === 1 ? "that processor's payments wait" : "those processors' payments wait"} for the next batch; ` +
        `the other processors' shares settled in batch #${run.batch.batchNo} (${run.batch.settledCount} payments)`,
    );
  }

  /**
   * When a batch left 'closing' may be taken over: after CLOSING_TAKEOVER_MS, and after every one
   * of its processors could have taken the whole PROCESSOR_TIMEOUT, one after another (a run that
   * is only slow must not be taken over).
   */
  #takeOverAfterMs(shares: SettledShare[]): number {
    const processors = new Set(shares.map((s) => s.processor_id)).size;
    return Math.max(CLOSING_TAKEOVER_MS, (processors + 1) * this.#processorTimeoutMs);
  }

  /**
   * Step 1: the batch of this moment, 'closing', and its payments claimed; or, when the moment
   * has a batch already, that batch (closed, or being closed by another run), unless it was left
   * 'closing' past its takeover time, which this run then takes over. With `takeOverOnly`, no
   * batch is made (undefined when the moment has none).
   */
  async #claim(asOf: Date, trigger: 'cutoff' | 'operator', now: Date, takeOverOnly: boolean): Promise<Claim | { batch: SettlementBatch } | undefined> {
    return this.#repository.transaction(async (tx) => {
      await this.#repository.takeTurn(tx);
      const id = this.#ids.uuid();
      const inserted = !takeOverOnly && (await this.#repository.insertClosing(tx, { id, cutoffAt: asOf, trigger, claimedAt: now }));
      if (inserted) return { batchId: id, claimedAt: now, shares: await this.#repository.claimPayments(tx, id, asOf) };
      // Another run (maybe another process) made this moment's batch; it has committed.
      const batch = await this.#repository.batchAt(tx, asOf);
      if (!batch) return undefined;
      if (batch.state === 'closed') return { batch };
      const shares = await this.#repository.claimedShares(tx, batch.id);
      if (now.getTime() - batch.closedAt.getTime() < this.#takeOverAfterMs(shares)) return { batch };
      await this.#repository.reclaim(tx, batch.id, now);
      return { batchId: batch.id, claimedAt: now, shares };
    });
  }

  /**
   * A refusal: the claimed payments are given back and the batch removed (the next run tries
   * again); with `processorIds`, only those processors' payments, and the batch stays.
   */
  async #giveBack(claim: Claim, processorIds?: string[]): Promise<void> {
    await this.#repository.transaction(async (tx) => {
      // Taken over meanwhile: the batch is the other run's now.
      if (!(await this.#repository.lockClaimed(tx, claim.batchId, claim.claimedAt))) return;
      // The payments first: their key to the batch is checked when the batch row is deleted.
      await this.#repository.releasePayments(tx, claim.batchId, processorIds);
      if (!processorIds) await this.#repository.deleteBatch(tx, claim.batchId);
    });
  }

  /**
   * Step 3: the claimed payments settle (but for `notYetSettled` transactions, given back), ACH
   * refunds complete, the batch closes (unless taken over meanwhile).
   */
  async #close(claim: Claim, asOf: Date, notYetSettled: string[]): Promise<SettlementRun> {
    const now = this.#clock.now();
    return this.#repository.transaction(async (tx) => {
      if (!(await this.#repository.markClosed(tx, claim.batchId, claim.claimedAt, now))) {
        // Taken over meanwhile: closed by the run that took it over, or still being closed by it.
        const batch = await this.#repository.batch(tx, claim.batchId);
        if (batch) return { batch, created: false };
        // ...or given back by it, after a refusal: this run's capture was accepted, yet its
        // payments are Authorized again. Said, for the operator to reconcile with the processor.
        throw new Error(
          `the settlement batch of ${asOf.toISOString()} was taken over by another run and given back after a refusal, although this run's capture was accepted: ` +
            `check the processors' records for the references settle-${asOf.toISOString()}-<processor id> before the payments settle again`,
        );
      }
      await this.#repository.releaseTransactions(tx, claim.batchId, notYetSettled);
      const settled = await this.#repository.settleClaimed(tx, claim.batchId, now);
      const refunded = await this.#repository.completeAchRefunds(tx, claim.batchId, asOf, now);
      const totals: SettlementTotals = {};
      const at = (currency: string) => (totals[currency] ??= { settledCount: 0, settledCents: 0, refundedCount: 0, refundedCents: 0 });
      for (const r of settled) Object.assign(at(r.currency), { settledCount: r.n, settledCents: Number(r.cents) });
      for (const r of refunded) Object.assign(at(r.currency), { refundedCount: r.n, refundedCents: Number(r.cents) });
      return { batch: await this.#repository.recordTotals(tx, claim.batchId, sum(settled), sum(refunded), totals), created: true };
    });
  }

  /**
   * Each processor is asked to capture its share of the batch, every one whatever the others
   * answered: accepted, refused (a definite refusal, or never reached: nothing was captured), or
   * unknown (no answer received: it may have captured).
   */
  async #captureShares(cutoffAt: Date, shares: SettledShare[]): Promise<CaptureAnswers> {
    const byProcessor = new Map<string, SettledShare[]>();
    for (const s of shares) byProcessor.set(s.processor_id, [...(byProcessor.get(s.processor_id) ?? []), s]);
    const answers: CaptureAnswers = { accepted: [], refused: [], unknown: [], notYetSettled: [] };
    for (const [processorId, parts] of byProcessor) {
      const adapter = this.#adapters.get(parts[0]!.adapter);
      try {
        if (adapter.capabilities.settlesItself && adapter.settlementReport) {
          answers.notYetSettled.push(...(await this.#notYetSettled(adapter, processorId, parts)));
          answers.accepted.push(processorId);
          continue;
        }
        const result = await adapter.settle({
          // The same for every run of this moment, so that a run retried after a refusal or taken
          // over cannot make a processor capture the same sales twice: the processor deduplicates
          // on it. One per processor: a processor deduplicating on it must not take another's share.
          batchId: settlementReference(cutoffAt, processorId),
          processorId,
          cutoffAt,
          transactionIds: parts.flatMap((p) => p.transaction_ids),
          totals: parts.map((p) => ({ currency: p.currency, count: p.n, amountCents: Number(p.cents) })),
        });
        if (result.accepted) answers.accepted.push(processorId);
        else answers.refused.push({ processorId, error: new Error(`processor ${processorId} refused to close the batch: ${result.message}`) });
      } catch (error) {
        (error instanceof ProcessorNotReachedError ? answers.refused : answers.unknown).push({ processorId, error });
      }
    }
    return answers;
  }

  /**
   * A processor that settles itself is asked nothing: its settlement report says which of the
   * share's sales it has settled (returned ACH debits included: they did settle), and the others
   * are not yet settled.
   */
  async #notYetSettled(adapter: ProcessorAdapter, processorId: string, parts: SettledShare[]): Promise<string[]> {
    const to = new Date(this.#clock.now().getTime() + REPORT_MARGIN_MS);
    const first = Math.min(...parts.map((p) => new Date(p.first_processed_at).getTime()));
    const from = new Date(Math.max(first - REPORT_MARGIN_MS, to.getTime() - REPORT_WINDOW_MS));
    const report = await adapter.settlementReport!({ processorId, from, to });
    const settled = new Set(report.transactions.filter((t) => t.kind === 'sale' && t.state !== 'failed').map((t) => t.transactionId));
    return parts.flatMap((p) => p.transaction_ids).filter((id) => !settled.has(id));
  }

  /** The most recent batches, newest first. */
  recentBatches(limit = 10): Promise<SettlementBatch[]> {
    return this.#repository.recentBatches(limit);
  }
}

const sum = (rows: Totals) => rows.reduce((n, r) => n + r.n, 0);

/** Our reference of one processor's share of the batch of a settlement moment, as it sees it. */
export function settlementReference(asOf: Date, processorId: string): string {
  return `settle-${asOf.toISOString()}-${processorId}`;
}
