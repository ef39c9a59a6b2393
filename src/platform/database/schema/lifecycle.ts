import { partners } from './foundation.ts';
import { payments } from './payments.ts';
import { bigint, index, integer, jsonb, pgTable, smallint, sql, text, timestamp, uniqueIndex, uuid } from '../drizzle.ts';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const cents = (name: string) => bigint(name, { mode: 'number' });

/** Per currency totals of a batch, in cents. */
export type SettlementTotals = Record<string, { settledCount: number; settledCents: number; refundedCount: number; refundedCents: number }>;

/** One closed settlement batch; see migrations/0005_lifecycle.sql. */
export const settlementBatches = pgTable('settlement_batches', {
  id: uuid('id').primaryKey(),
  batchNo: integer('batch_no').generatedAlwaysAsIdentity(),
  cutoffAt: ts('cutoff_at').notNull().unique(),
  trigger: text('trigger', { enum: ['cutoff', 'operator'] }).notNull(),
  /** 'closing': payments claimed, the processors not yet all answered; `closedAt` is then the claim's time. */
  state: text('state', { enum: ['closing', 'closed'] }).notNull(),
  closedAt: ts('closed_at').notNull(),
  settledCount: integer('settled_count').notNull(),
  achRefundsCompleted: integer('ach_refunds_completed').notNull(),
  totals: jsonb('totals').$type<SettlementTotals>().notNull(),
});

export type AdjustmentKind = 'void' | 'refund';
export type AdjustmentStatus = 'pending' | 'approved' | 'declined' | 'failed' | 'refused';

/** A refund or void request against a payment, whatever its outcome. */
export const paymentAdjustments = pgTable(
  'payment_adjustments',
  {
    id: uuid('id').primaryKey(),
    paymentId: uuid('payment_id').notNull().references(() => payments.id),
    partnerId: uuid('partner_id').notNull().references(() => partners.id),
    kind: text('kind', { enum: ['void', 'refund'] }).notNull(),
    status: text('status', { enum: ['pending', 'approved', 'declined', 'failed', 'refused'] }).notNull(),
    reason: text('reason').notNull(),
    source: text('source').notNull(),
    requestId: text('request_id'),
    requestedAt: ts('requested_at').notNull(),
    processedAt: ts('processed_at'),
    amountCents: cents('amount_cents').notNull(),
    currency: text('currency'),
    transactionId: text('transaction_id'),
    responseCode: text('response_code'),
    message: text('message'),
    processorMessage: text('processor_message'),
    paymentResultBefore: smallint('payment_result_before').notNull(),
    processStatusBefore: smallint('process_status_before').notNull(),
    paymentResultAfter: smallint('payment_result_after'),
    processStatusAfter: smallint('process_status_after'),
    feeTreatment: jsonb('fee_treatment').$type<Record<string, number>>(),
    completedAt: ts('completed_at'),
    settlementBatchId: uuid('settlement_batch_id').references(() => settlementBatches.id),
  },
  (t) => [
    uniqueIndex('payment_adjustments_one_effective').on(t.paymentId).where(sql`status IN ('pending', 'approved')`),
    index('payment_adjustments_payment').on(t.paymentId, t.requestedAt),
  ],
);
