import type { Clock } from '../clock.ts';
import { ErrorCode } from '../domain/error-codes.ts';
import { PaymentResult, ProcessStatus } from '../domain/payment-status.ts';
import { latestCutoff } from '../domain/settlement-cutoff.ts';
import type { Ids } from '../ids.ts';
import type { ProcessorRegistry } from '../processors/registry.ts';
import type { Db, DbOrTx } from '../store/database.ts';
import { type SettlementTotals, settlementBatches } from '../store/schema/index.ts';
import { ValidationError } from './errors.ts';
import { desc, eq, sql } from '../store/drizzle.ts';

export type SettlementBatch = typeof settlementBatches.$inferSelect;

export interface SettlementRun {
  batch: SettlementBatch;
  /** false: a batch for this moment had already been closed (by this or another process); nothing was done. */
  created: boolean;
}

/** Any fixed number, distinct from the other advisory locks of the service. */
const SETTLEMENT_LOCK = 727_005;

type Totals = { currency: string; n: number; cents: string }[];
type SettledShare = { processor_id: string; adapter: string; currency: string; n: number; cents: string; transaction_ids: string[] };

/** Rows of a raw statement, whichever driver ran it (node-postgres or PGlite). */
function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

/**
 * Closes settlement batches: every authorized payment up to a moment becomes Settled (4) with the
 * batch's id and the settlement time, and every ACH refund accepted up to that moment completes
 * (AwaitingRefund 7 -> Refunded 8).
 *
 * Safe with several processes on one database: runs take turns under a transaction-scoped
 * advisory lock, the batch row for a moment is unique (a second run for the same moment finds the
 * first and does nothing), and each payment moves with a
 * conditional UPDATE (`WHERE process_status = 2`) that PostgreSQL re-checks after waiting for a
 * concurrent writer, so a payment settles once, in one batch, whatever runs at the same time. A
 * payment with a refund or void in flight is left for the next batch.
 */
export class SettlementService {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #ids: Ids;
  readonly #cutoffMinutes: number;
  readonly #adapters: ProcessorRegistry;

  constructor(deps: { db: Db; clock: Clock; ids: Ids; cutoffMinutes: number; adapters: ProcessorRegistry }) {
    this.#db = deps.db;
    this.#adapters = deps.adapters;
    this.#clock = deps.clock;
    this.#ids = deps.ids;
    this.#cutoffMinutes = deps.cutoffMinutes;
  }

  /** The most recent cut-off moment by the injected clock. */
  latestCutoff(): Date {
    return latestCutoff(this.#clock.now(), this.#cutoffMinutes);
  }

  /**
   * The worker's check: when the latest cut-off has no batch yet, close one as of that cut-off.
   * Returns undefined when there was nothing to do.
   */
  async settleIfCutoffPassed(): Promise<SettlementRun | undefined> {
    const cutoff = this.latestCutoff();
    const [existing] = await this.#db.select({ id: settlementBatches.id }).from(settlementBatches).where(eq(settlementBatches.cutoffAt, cutoff));
    if (existing) return undefined;
    return this.settle({ asOf: cutoff, trigger: 'cutoff' });
  }

  /**
   * Closes the batch of everything authorized up to `asOf` (default: now). Idempotent per moment.
   * A moment in the future is refused: payments authorized between now and then would miss it.
   */
  async settle(options: { asOf?: Date; trigger?: 'cutoff' | 'operator' } = {}): Promise<SettlementRun> {
    const now = this.#clock.now();
    const asOf = options.asOf ?? now;
    if (Number.isNaN(asOf.getTime())) throw new ValidationError([{ code: ErrorCode.InvalidFormat, field: 'asOf', message: 'The settlement moment is not a valid date-time.' }]);
    if (asOf.getTime() > now.getTime()) {
      throw new ValidationError([{ code: ErrorCode.OutOfRange, field: 'asOf', message: `The settlement moment ${asOf.toISOString()} is in the future (now is ${now.toISOString()}).` }]);
    }
    return this.#db.transaction(async (tx) => {
      // Runs take turns (released at commit): two runs updating many of the same rows at once
      // could otherwise lock them in different orders and deadlock.
      await tx.execute(sql`SELECT pg_advisory_xact_lock(${SETTLEMENT_LOCK}::bigint)`);
      const id = this.#ids.uuid();
      const inserted = await tx
        .insert(settlementBatches)
        .values({ id, cutoffAt: asOf, trigger: options.trigger ?? 'operator', closedAt: now, settledCount: 0, achRefundsCompleted: 0, totals: {} })
        .onConflictDoNothing({ target: settlementBatches.cutoffAt })
        .returning({ id: settlementBatches.id });
      if (inserted.length === 0) {
        // Another run (maybe another process) closed this moment's batch; it has committed.
        const [existing] = await tx.select().from(settlementBatches).where(eq(settlementBatches.cutoffAt, asOf));
        return { batch: existing!, created: false };
      }
      const shares = await this.#settlePayments(tx, id, asOf, now);
      await this.#closeProcessorBatches(asOf, shares);
      const settled = byCurrency(shares);
      const refunded = await this.#completeAchRefunds(tx, id, asOf, now);
      const totals: SettlementTotals = {};
      const at = (currency: string) => (totals[currency] ??= { settledCount: 0, settledCents: 0, refundedCount: 0, refundedCents: 0 });
      for (const r of settled) Object.assign(at(r.currency), { settledCount: r.n, settledCents: Number(r.cents) });
      for (const r of refunded) Object.assign(at(r.currency), { refundedCount: r.n, refundedCents: Number(r.cents) });
      const [batch] = await tx
        .update(settlementBatches)
        .set({ settledCount: sum(settled), achRefundsCompleted: sum(refunded), totals })
        .where(eq(settlementBatches.id, id))
        .returning();
      return { batch: batch!, created: true };
    });
  }

  /**
   * Each processor captures its share of the batch. A refusal (or an unreachable processor)
   * throws, which rolls the whole batch back: nothing settles, and the next run tries again.
   */
  async #closeProcessorBatches(cutoffAt: Date, shares: SettledShare[]): Promise<void> {
    const byProcessor = new Map<string, SettledShare[]>();
    for (const s of shares) byProcessor.set(s.processor_id, [...(byProcessor.get(s.processor_id) ?? []), s]);
    for (const [processorId, parts] of byProcessor) {
      const result = await this.#adapters.get(parts[0]!.adapter).settle({
        // The same for every run of this moment, so that a run retried after a rollback cannot
        // make a processor capture the same sales twice: the processor deduplicates on it. One per
        // processor: a processor deduplicating on it must not take another's share for a repeat.
        batchId: settlementReference(cutoffAt, processorId),
        processorId,
        cutoffAt,
        transactionIds: parts.flatMap((p) => p.transaction_ids),
        totals: parts.map((p) => ({ currency: p.currency, count: p.n, amountCents: Number(p.cents) })),
      });
      if (!result.accepted) throw new Error(`processor ${processorId} refused to close the batch: ${result.message}`);
    }
  }

  /** Authorized (2) -> Settled (4), per processor and currency: count, sum and transaction ids. */
  async #settlePayments(tx: DbOrTx, batchId: string, asOf: Date, now: Date): Promise<SettledShare[]> {
    const result = await tx.execute(sql`
      WITH moved AS (
        UPDATE payments
           SET process_status = ${ProcessStatus.Settled}, settlement_batch_id = ${batchId}::uuid, settled_at = ${now.toISOString()}::timestamptz
         WHERE process_status = ${ProcessStatus.Authorized}
           AND payment_result = ${PaymentResult.Successful}
           AND pending_adjustment_id IS NULL
           AND processed_at <= ${asOf.toISOString()}::timestamptz
        RETURNING processor_id, transaction_id, currency, total_amount_cents
      )
      SELECT moved.processor_id, pr.adapter, coalesce(moved.currency, 'USD') AS currency, count(*)::int AS n,
             sum(moved.total_amount_cents)::text AS cents, array_agg(moved.transaction_id) AS transaction_ids
        FROM moved JOIN processors pr ON pr.id = moved.processor_id
       GROUP BY 1, 2, 3 ORDER BY 1, 3`);
    return rowsOf(result);
  }

  /** ACH refunds accepted up to `asOf`: AwaitingRefund (7) -> Refunded (8); the refund records completion. */
  async #completeAchRefunds(tx: DbOrTx, batchId: string, asOf: Date, now: Date): Promise<Totals> {
    const result = await tx.execute(sql`
      WITH due AS (
        SELECT id, payment_id FROM payment_adjustments
         WHERE kind = 'refund' AND status = 'approved' AND completed_at IS NULL
           AND processed_at <= ${asOf.toISOString()}::timestamptz
      ), moved AS (
        UPDATE payments p
           SET process_status = ${ProcessStatus.Refunded}
          FROM due
         WHERE p.id = due.payment_id AND p.process_status = ${ProcessStatus.AwaitingRefund}
        RETURNING p.currency, p.total_amount_cents, due.id AS adjustment_id
      ), completed AS (
        UPDATE payment_adjustments a
           SET completed_at = ${now.toISOString()}::timestamptz, settlement_batch_id = ${batchId}::uuid
          FROM moved
         WHERE a.id = moved.adjustment_id
        RETURNING a.id
      )
      SELECT coalesce(currency, 'USD') AS currency, count(*)::int AS n, sum(total_amount_cents)::text AS cents
        FROM moved GROUP BY 1 ORDER BY 1`);
    return rowsOf(result);
  }

  /** The most recent batches, newest first. */
  async recentBatches(limit = 10, db: DbOrTx = this.#db): Promise<SettlementBatch[]> {
    return db.select().from(settlementBatches).orderBy(desc(settlementBatches.cutoffAt)).limit(limit);
  }
}

const sum = (rows: Totals) => rows.reduce((n, r) => n + r.n, 0);

/** Our reference of one processor's share of the batch of a settlement moment, as it sees it. */
export function settlementReference(asOf: Date, processorId: string): string {
  return `settle-${asOf.toISOString()}-${processorId}`;
}

/** The processors' shares summed per currency. */
function byCurrency(shares: SettledShare[]): Totals {
  const totals = new Map<string, { n: number; cents: bigint }>();
  for (const s of shares) {
    const t = totals.get(s.currency) ?? { n: 0, cents: 0n };
    totals.set(s.currency, { n: t.n + s.n, cents: t.cents + BigInt(s.cents) });
  }
  return [...totals].map(([currency, t]) => ({ currency, n: t.n, cents: String(t.cents) }));
}
