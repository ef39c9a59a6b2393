import { PaymentResult, ProcessStatus } from '../../domain/payment-status.ts';
import type { Db, Tx } from '../../platform/database/database.ts';
import { and, asc, desc, eq, lt, sql } from '../../platform/database/drizzle.ts';
import { rowsOf } from '../../platform/database/rows.ts';
import { type SettlementTotals, settlementBatches } from '../../platform/database/schema/index.ts';

export type { SettlementTotals };

/** One settlement batch. */
export interface SettlementBatch {
  id: string;
  batchNo: number;
  cutoffAt: Date;
  trigger: 'cutoff' | 'operator';
  /** 'closing': payments claimed, the processors not yet all answered; `closedAt` is then the claim's time. */
  state: 'closing' | 'closed';
  closedAt: Date;
  settledCount: number;
  achRefundsCompleted: number;
  totals: SettlementTotals;
}

const sameShape: SettlementBatch = {} as typeof settlementBatches.$inferSelect;
void sameShape;

/** Per currency: a count and a sum in cents (text: a sum of bigints). */
export type Totals = { currency: string; n: number; cents: string }[];
/** One processor's share of a batch in one currency, with its sales' transaction ids. */
export type SettledShare = { processor_id: string; adapter: string; currency: string; n: number; cents: string; transaction_ids: string[]; first_processed_at: Date | string };

/** Any fixed number, distinct from the other advisory locks of the service. */
const SETTLEMENT_LOCK = 727_005;

/** Per processor and currency, the claimed payments (`moved`): count, sum and transaction ids. */
const SHARES_OF_MOVED = sql`
      SELECT moved.processor_id, pr.adapter, coalesce(moved.currency, 'USD') AS currency, count(*)::int AS n,
             sum(moved.total_amount_cents)::text AS cents, array_agg(moved.transaction_id) AS transaction_ids,
             min(moved.processed_at) AS first_processed_at
        FROM moved JOIN processors pr ON pr.id = moved.processor_id
       GROUP BY 1, 2, 3 ORDER BY 1, 3`;

/** A batch as a run's claim left it: 'closing' since the claim's time (a fencing token). */
const stillClaimed = (batchId: string, claimedAt: Date) =>
  and(eq(settlementBatches.id, batchId), eq(settlementBatches.state, 'closing'), eq(settlementBatches.closedAt, claimedAt));

/** Every statement of settlement: batches, and the payments and ACH refunds they settle. */
export class SettlementRepository {
  readonly #db: Db;

  constructor(store: { db: Db }) {
    this.#db = store.db;
  }

  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.#db.transaction(fn);
  }

  /** Runs take turns until the transaction ends: two runs claiming many of the same rows at once could lock them in different orders and deadlock. */
  async takeTurn(tx: Tx): Promise<void> {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(${SETTLEMENT_LOCK}::bigint)`);
  }

  /** The cut-off of the latest scheduled batch. */
  async latestScheduledCutoff(): Promise<Date | undefined> {
    const [latest] = await this.#db
      .select({ cutoffAt: settlementBatches.cutoffAt })
      .from(settlementBatches)
      .where(eq(settlementBatches.trigger, 'cutoff'))
      .orderBy(desc(settlementBatches.cutoffAt))
      .limit(1);
    return latest?.cutoffAt;
  }

  /** The cut-offs of batches left 'closing' since before `stale`, oldest first. */
  async abandonedCutoffs(stale: Date): Promise<Date[]> {
    const rows = await this.#db
      .select({ cutoffAt: settlementBatches.cutoffAt })
      .from(settlementBatches)
      .where(and(eq(settlementBatches.state, 'closing'), lt(settlementBatches.closedAt, stale)))
      .orderBy(asc(settlementBatches.cutoffAt));
    return rows.map((r) => r.cutoffAt);
  }

  async hasBatchAt(cutoffAt: Date): Promise<boolean> {
    const [existing] = await this.#db.select({ id: settlementBatches.id }).from(settlementBatches).where(eq(settlementBatches.cutoffAt, cutoffAt));
    return existing !== undefined;
  }

  /** A new 'closing' batch for the moment; false when the moment has one already. */
  async insertClosing(tx: Tx, batch: { id: string; cutoffAt: Date; trigger: 'cutoff' | 'operator'; claimedAt: Date }): Promise<boolean> {
    const inserted = await tx
      .insert(settlementBatches)
      .values({ id: batch.id, cutoffAt: batch.cutoffAt, trigger: batch.trigger, state: 'closing', closedAt: batch.claimedAt, settledCount: 0, achRefundsCompleted: 0, totals: {} })
      .onConflictDoNothing({ target: settlementBatches.cutoffAt })
      .returning({ id: settlementBatches.id });
    return inserted.length > 0;
  }

  async batchAt(tx: Tx, cutoffAt: Date): Promise<SettlementBatch | undefined> {
    const [batch] = await tx.select().from(settlementBatches).where(eq(settlementBatches.cutoffAt, cutoffAt));
    return batch;
  }

  async batch(tx: Tx, batchId: string): Promise<SettlementBatch | undefined> {
    const [batch] = await tx.select().from(settlementBatches).where(eq(settlementBatches.id, batchId));
    return batch;
  }

  /** Takes a batch over: its claim's time becomes `claimedAt`. */
  async reclaim(tx: Tx, batchId: string, claimedAt: Date): Promise<void> {
    await tx.update(settlementBatches).set({ closedAt: claimedAt }).where(eq(settlementBatches.id, batchId));
  }

  /** Whether the batch is still this claim's, locked until the transaction ends. */
  async lockClaimed(tx: Tx, batchId: string, claimedAt: Date): Promise<boolean> {
    const mine = await tx.select({ id: settlementBatches.id }).from(settlementBatches).where(stillClaimed(batchId, claimedAt)).for('update');
    return mine.length > 0;
  }

  /** Gives the claimed payments back (only those of `processorIds` when given). */
  async releasePayments(tx: Tx, batchId: string, processorIds?: string[]): Promise<void> {
    await tx.execute(sql`
        UPDATE payments SET settlement_batch_id = NULL
         WHERE settlement_batch_id = ${batchId}::uuid AND process_status = ${ProcessStatus.Authorized}
           ${processorIds ? sql`AND processor_id IN (${sql.join(processorIds.map((id) => sql`${id}::uuid`), sql`, `)})` : sql``}`);
  }

  /** Gives back the claimed payments of these transactions (a processor that settles itself has not settled them yet). */
  async releaseTransactions(tx: Tx, batchId: string, transactionIds: string[]): Promise<void> {
    if (transactionIds.length === 0) return;
    await tx.execute(sql`
        UPDATE payments SET settlement_batch_id = NULL
         WHERE settlement_batch_id = ${batchId}::uuid AND process_status = ${ProcessStatus.Authorized}
           AND transaction_id IN (SELECT jsonb_array_elements_text(${JSON.stringify(transactionIds)}::jsonb))`);
  }

  async deleteBatch(tx: Tx, batchId: string): Promise<void> {
    await tx.delete(settlementBatches).where(eq(settlementBatches.id, batchId));
  }

  /** Marks the batch closed if it is still this claim's; false when it was taken over meanwhile. */
  async markClosed(tx: Tx, batchId: string, claimedAt: Date, now: Date): Promise<boolean> {
    const mine = await tx.update(settlementBatches).set({ state: 'closed', closedAt: now }).where(stillClaimed(batchId, claimedAt)).returning({ id: settlementBatches.id });
    return mine.length > 0;
  }

  async recordTotals(tx: Tx, batchId: string, settledCount: number, achRefundsCompleted: number, totals: SettlementTotals): Promise<SettlementBatch> {
    const [batch] = await tx.update(settlementBatches).set({ settledCount, achRefundsCompleted, totals }).where(eq(settlementBatches.id, batchId)).returning();
    return batch!;
  }

  /** Claims the authorized payments up to `asOf` not in another batch: per processor and currency, count, sum and transaction ids. */
  async claimPayments(tx: Tx, batchId: string, asOf: Date): Promise<SettledShare[]> {
    const result = await tx.execute(sql`
      WITH moved AS (
        UPDATE payments
           SET settlement_batch_id = ${batchId}::uuid
         WHERE process_status = ${ProcessStatus.Authorized}
           AND payment_result = ${PaymentResult.Successful}
           AND pending_adjustment_id IS NULL
           AND settlement_batch_id IS NULL
           AND processed_at <= ${asOf.toISOString()}::timestamptz
        RETURNING processor_id, transaction_id, currency, total_amount_cents, processed_at
      )
      ${SHARES_OF_MOVED}`);
    return rowsOf(result);
  }

  /** The shares of a batch claimed earlier (a batch taken over). */
  async claimedShares(tx: Tx, batchId: string): Promise<SettledShare[]> {
    const result = await tx.execute(sql`
      WITH moved AS (
        SELECT processor_id, transaction_id, currency, total_amount_cents, processed_at FROM payments
         WHERE settlement_batch_id = ${batchId}::uuid AND process_status = ${ProcessStatus.Authorized}
      )
      ${SHARES_OF_MOVED}`);
    return rowsOf(result);
  }

  /** Claimed (2, with the batch) -> Settled (4), per currency: count and sum. */
  async settleClaimed(tx: Tx, batchId: string, now: Date): Promise<Totals> {
    const result = await tx.execute(sql`
      WITH moved AS (
        UPDATE payments
           SET process_status = ${ProcessStatus.Settled}, settled_at = ${now.toISOString()}::timestamptz
         WHERE settlement_batch_id = ${batchId}::uuid AND process_status = ${ProcessStatus.Authorized}
        RETURNING currency, total_amount_cents
      )
      SELECT coalesce(currency, 'USD') AS currency, count(*)::int AS n, sum(total_amount_cents)::text AS cents
        FROM moved GROUP BY 1 ORDER BY 1`);
    return rowsOf(result);
  }

  /** ACH refunds accepted up to `asOf`: AwaitingRefund (7) -> Refunded (8); the refund records completion. */
  async completeAchRefunds(tx: Tx, batchId: string, asOf: Date, now: Date): Promise<Totals> {
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
  recentBatches(limit: number): Promise<SettlementBatch[]> {
    return this.#db.select().from(settlementBatches).orderBy(desc(settlementBatches.cutoffAt)).limit(limit);
  }
}
