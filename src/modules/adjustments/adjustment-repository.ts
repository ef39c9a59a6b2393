import type { FeeBreakdown } from '../../domain/fees.ts';
import type { Db, Tx } from '../../platform/database/database.ts';
import { and, asc, eq } from '../../platform/database/drizzle.ts';
import { paymentAdjustments, paymentLines, payments, processors } from '../../platform/database/schema/index.ts';
import type { Payment } from '../payments/payment-record.ts';

/** A refund or void request against a payment, whatever its outcome. */
export interface Adjustment {
  id: string;
  paymentId: string;
  partnerId: string;
  kind: 'void' | 'refund';
  status: 'pending' | 'approved' | 'declined' | 'failed' | 'refused';
  reason: string;
  source: string;
  requestId: string | null;
  requestedAt: Date;
  processedAt: Date | null;
  amountCents: number;
  currency: string | null;
  transactionId: string | null;
  responseCode: string | null;
  message: string | null;
  processorMessage: string | null;
  paymentResultBefore: number;
  processStatusBefore: number;
  paymentResultAfter: number | null;
  processStatusAfter: number | null;
  feeTreatment: Record<string, number> | null;
  completedAt: Date | null;
  settlementBatchId: string | null;
}

/** The row written when a request is recorded (refused, or pending while the processor is asked). */
export type NewAdjustment = Pick<
  Adjustment,
  'id' | 'paymentId' | 'partnerId' | 'kind' | 'status' | 'reason' | 'source' | 'requestId' | 'requestedAt' | 'amountCents' | 'currency' | 'paymentResultBefore' | 'processStatusBefore'
> &
  Partial<Pick<Adjustment, 'processedAt' | 'responseCode' | 'message' | 'paymentResultAfter' | 'processStatusAfter'>>;

/** What completing a request writes on it. */
export type AdjustmentChanges = Partial<Omit<Adjustment, 'id' | 'paymentId' | 'partnerId' | 'kind'>>;

const sameShape: Adjustment = {} as typeof paymentAdjustments.$inferSelect;
void sameShape;

/**
 * Every statement of refunds and voids: the requests (payment_adjustments) and the claim they put
 * on their payment (`payments.pending_adjustment_id`). The methods that take a `tx` run inside the
 * service's transaction, so that a claim and its record stand or fall together.
 */
export class AdjustmentRepository {
  readonly #db: Db;

  constructor(store: { db: Db }) {
    this.#db = store.db;
  }

  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.#db.transaction(fn);
  }

  /** A payment of the partner, by PaymentGuid and/or its processor's TransactionId, locked until the transaction ends. */
  async lockPayment(tx: Tx, partnerId: string, ref: { paymentGuid?: string; transactionId?: string }): Promise<Payment | undefined> {
    const conditions = [eq(payments.partnerId, partnerId)];
    if (ref.paymentGuid !== undefined) conditions.push(eq(payments.id, ref.paymentGuid));
    if (ref.transactionId !== undefined) conditions.push(eq(payments.transactionId, ref.transactionId));
    const [payment] = await tx.select().from(payments).where(and(...conditions)).for('update');
    return payment;
  }

  /** A payment by PaymentGuid, locked until the transaction ends. */
  async lockPaymentById(tx: Tx, paymentGuid: string): Promise<Payment | undefined> {
    const [payment] = await tx.select().from(payments).where(eq(payments.id, paymentGuid)).for('update');
    return payment;
  }

  async insert(tx: Tx, adjustment: NewAdjustment): Promise<void> {
    await tx.insert(paymentAdjustments).values(adjustment);
  }

  /** Puts the claim of a refund or void on its payment. */
  async claimPayment(tx: Tx, paymentGuid: string, adjustmentId: string): Promise<void> {
    await tx.update(payments).set({ pendingAdjustmentId: adjustmentId }).where(eq(payments.id, paymentGuid));
  }

  /** The adapter of a payment's processor, and its lines' fees. */
  async claimDetails(tx: Tx, payment: Payment): Promise<{ adapter: string; lines: FeeBreakdown[] }> {
    const [processor] = await tx.select({ adapter: processors.adapter }).from(processors).where(eq(processors.id, payment.processorId));
    const lines = await tx.select({ fees: paymentLines.fees }).from(paymentLines).where(eq(paymentLines.paymentId, payment.id)).orderBy(asc(paymentLines.lineNo));
    return { adapter: processor!.adapter, lines: lines.map((l) => l.fees as unknown as FeeBreakdown) };
  }

  /** The payment while the request's claim is still on it (a resolution may have released it meanwhile). */
  async paymentClaimedBy(tx: Tx, paymentGuid: string, adjustmentId: string): Promise<Payment | undefined> {
    const [held] = await tx.select().from(payments).where(and(eq(payments.id, paymentGuid), eq(payments.pendingAdjustmentId, adjustmentId)));
    return held;
  }

  /** Moves the payment to its state after an approved request and releases the claim; undefined when the claim is no longer on it. */
  async moveAndRelease(tx: Tx, paymentGuid: string, adjustmentId: string, after: { paymentResult: number; processStatus: number }): Promise<Payment | undefined> {
    const [moved] = await tx
      .update(payments)
      .set({ paymentResult: after.paymentResult, processStatus: after.processStatus, pendingAdjustmentId: null })
      .where(and(eq(payments.id, paymentGuid), eq(payments.pendingAdjustmentId, adjustmentId)))
      .returning();
    return moved;
  }

  /** Releases the claim, the payment unchanged; undefined when the claim is no longer on it. */
  async release(tx: Tx, paymentGuid: string, adjustmentId: string): Promise<Payment | undefined> {
    const [released] = await tx
      .update(payments)
      .set({ pendingAdjustmentId: null })
      .where(and(eq(payments.id, paymentGuid), eq(payments.pendingAdjustmentId, adjustmentId)))
      .returning();
    return released;
  }

  /** Records the outcome of a request still pending. */
  async complete(tx: Tx, adjustmentId: string, changes: AdjustmentChanges): Promise<void> {
    await tx
      .update(paymentAdjustments)
      .set(changes)
      .where(and(eq(paymentAdjustments.id, adjustmentId), eq(paymentAdjustments.status, 'pending')));
  }

  async find(tx: Tx | Db, adjustmentId: string): Promise<Adjustment | undefined> {
    const [adjustment] = await tx.select().from(paymentAdjustments).where(eq(paymentAdjustments.id, adjustmentId));
    return adjustment;
  }

  async lock(tx: Tx, adjustmentId: string): Promise<Adjustment | undefined> {
    const [adjustment] = await tx.select().from(paymentAdjustments).where(eq(paymentAdjustments.id, adjustmentId)).for('update');
    return adjustment;
  }

  async payment(tx: Tx, paymentGuid: string): Promise<Payment | undefined> {
    const [payment] = await tx.select().from(payments).where(eq(payments.id, paymentGuid));
    return payment;
  }

  /** The refunds and voids recorded against a payment of the partner, oldest first. */
  async history(partnerId: string, paymentGuid: string): Promise<Adjustment[]> {
    return this.#db
      .select()
      .from(paymentAdjustments)
      .where(and(eq(paymentAdjustments.paymentId, paymentGuid), eq(paymentAdjustments.partnerId, partnerId)))
      .orderBy(asc(paymentAdjustments.requestedAt), asc(paymentAdjustments.id));
  }
}
