import type { PgColumn } from 'drizzle-orm/pg-core';
import type { FeeBreakdown, FeeLineInput } from '../../domain/fees.ts';
import { PaymentResult } from '../../domain/payment-status.ts';
import type { Db, DbOrTx, SqlClient, Tx } from '../../platform/database/database.ts';
import { and, asc, eq, getTableColumns, inArray } from '../../platform/database/drizzle.ts';
import { paymentLines, payments } from '../../platform/database/schema/index.ts';
import type { Payment, PaymentChanges, PaymentDraft, PaymentRecord } from './payment-record.ts';

type PaymentInsert = typeof payments.$inferInsert;

/** The schema's row and the module's Payment are the same shape (checked when type-checking). */
const sameShape: [Payment, PaymentInsert] = [{} as typeof payments.$inferSelect, {} as PaymentDraft];
void sameShape;

/**
 * The payment insert as fixed SQL text, built once: building it with the query builder for every
 * payment cost more CPU than the rest of the request. Every column but the identity `payment_id`.
 */
const INSERT_COLUMNS = (Object.entries(getTableColumns(payments)) as [keyof PaymentInsert, PgColumn][]).filter(([, column]) => column.name !== 'payment_id');
const COLUMN_BY_KEY = new Map(INSERT_COLUMNS);
/** Every column of a payments row, by key: a row built in memory starts with all of them null. */
const ALL_COLUMN_KEYS = Object.keys(getTableColumns(payments)) as (keyof Payment)[];
const UPDATE_SQL = new Map<string, string>();
/**
 * The payment statements are fixed texts (one per set of updated columns): prepared once per
 * connection, they are not parsed and planned again for every payment.
 */
const PREPARED = { prepare: true } as const;

/** The results of a payment whose processor answer may still be written (not yet resolved by an operator). */
export const AWAITING_ANSWER = [PaymentResult.Pending, PaymentResult.Processing];

const INSERT_PAYMENT_SQL = `INSERT INTO payments (${INSERT_COLUMNS.map(([, c]) => c.name).join(', ')})
  VALUES (${INSERT_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')}) ON CONFLICT DO NOTHING RETURNING id, payment_id`;

/** The parameter ($n) of a column in INSERT_PAYMENT_SQL. */
const param = (name: string) => `$${INSERT_COLUMNS.findIndex(([, c]) => c.name === name) + 1}`;

/**
 * When the insert is refused, the live payment holding the bill date (a recurring charge) or the
 * TranId, read in the same statement: each branch runs only when nothing was inserted and its key
 * was given (one-time filters), on the unique index the refusal came from. A payment committed
 * by a concurrent request after this statement began is not seen: the refusal then names none.
 */
const HOLDER_SQL = `
UNION ALL
(SELECT NULL, NULL, h.id, h.payment_result, h.created_at FROM payments h
  WHERE NOT EXISTS (SELECT 1 FROM p) AND ${param('recurring_profile_id')}::uuid IS NOT NULL
    AND h.recurring_profile_id = ${param('recurring_profile_id')}::uuid AND h.bill_date = ${param('bill_date')}::date AND h.payment_result <> 4 LIMIT 1)
UNION ALL
(SELECT NULL, NULL, h.id, h.payment_result, h.created_at FROM payments h
  WHERE NOT EXISTS (SELECT 1 FROM p) AND ${param('recurring_profile_id')}::uuid IS NULL
    AND h.integration_source_id = ${param('integration_source_id')}::uuid AND h.tran_id = ${param('tran_id')}::text
    AND h.duplicate_checked AND h.tran_id IS NOT NULL AND h.payment_result <> 4 LIMIT 1)`;

/**
 * The pending payment and its lines in one statement; the lines travel as one jsonb parameter
 * after the payment's columns. Refused, it answers the live payment that holds its TranId or bill
 * date instead.
 */
const INSERT_WITH_LINES_SQL = `WITH p AS (${INSERT_PAYMENT_SQL}), l AS (
  INSERT INTO payment_lines (payment_id, line_no, transaction_source_group_id, external_line_id, amount_cents, tip_cents, tax_cents,
                             pay_fee, commission_rate_override, card_processing_fee_override, payment_amount_cents, total_fees_cents, fees)
  SELECT p.id, l.line_no, l.transaction_source_group_id, l.external_line_id, l.amount_cents, l.tip_cents, l.tax_cents,
         l.pay_fee, l.commission_rate_override, l.card_processing_fee_override, l.payment_amount_cents, l.total_fees_cents, l.fees
  FROM p, jsonb_to_recordset($${INSERT_COLUMNS.length + 1}::jsonb) AS l(line_no smallint, transaction_source_group_id smallint, external_line_id text,
       amount_cents bigint, tip_cents bigint, tax_cents bigint, pay_fee boolean, commission_rate_override text,
       card_processing_fee_override text, payment_amount_cents bigint, total_fees_cents bigint, fees jsonb)
  RETURNING 1)
(SELECT p.id, p.payment_id, NULL::uuid AS live_id, NULL::smallint AS live_result, NULL::timestamptz AS live_created FROM p)${HOLDER_SQL}`;

/** The live payment that holds a TranId of an integration source, or a bill date of a recurring profile. */
export interface LivePayment {
  id: string;
  paymentResult: number;
  createdAt: Date;
}

/** The lines as rows of payment_lines (snake_case: they travel as JSON into the insert). */
function lineRows(paymentId: string, lines: readonly FeeBreakdown[], inputs: readonly FeeLineInput[]) {
  return lines.map((fees, i) => {
    const input = inputs[i]!;
    return {
      payment_id: paymentId,
      line_no: i + 1,
      transaction_source_group_id: fees.transactionSourceGroupId,
      external_line_id: fees.externalLineId ?? null,
      amount_cents: input.amountCents,
      tip_cents: input.tipCents,
      tax_cents: input.taxCents,
      pay_fee: input.payFee,
      commission_rate_override: input.commissionRateOverride ?? null,
      card_processing_fee_override: input.cardProcessingFeeOverride ?? null,
      payment_amount_cents: fees.paymentAmountCents,
      total_fees_cents: fees.totalFeesCents,
      fees: { ...fees, externalLineId: fees.externalLineId ?? null },
    };
  });
}

/** Every statement of the payments module's own tables: payments and their lines. */
export class PaymentRepository {
  readonly #db: Db;
  readonly #sql: SqlClient;

  constructor(store: { db: Db; sql: SqlClient }) {
    this.#db = store.db;
    this.#sql = store.sql;
  }

  /** Runs `fn` in one transaction, for writes of this module and others' that must stand or fall together. */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.#db.transaction(fn);
  }

  /**
   * Writes a new attempt with its lines, atomically, in one statement (a data-modifying CTE).
   * Returns its PaymentId, or undefined when a unique index refused it: the duplicate-TranId
   * rule's (payments_tran_id_once) or a recurring bill date's (payments_recurring_bill_once).
   */
  async insert(draft: PaymentDraft, lines: readonly FeeBreakdown[], inputs: readonly FeeLineInput[]): Promise<{ paymentId: number } | { refused: true; live?: LivePayment }> {
    const params = INSERT_COLUMNS.map(([key, column]) => {
      const value = draft[key as keyof PaymentDraft];
      return value === undefined || value === null ? null : column.mapToDriverValue(value);
    });
    const [row] = await this.#sql.query<{ payment_id: number | string | null; live_id: string | null; live_result: number | null; live_created: Date | string | null }>(
      INSERT_WITH_LINES_SQL,
      [...params, JSON.stringify(lineRows(draft.id, lines, inputs))],
      PREPARED,
    );
    if (row?.payment_id !== null && row?.payment_id !== undefined) return { paymentId: Number(row.payment_id) };
    return { refused: true, ...(row?.live_id ? { live: { id: row.live_id, paymentResult: row.live_result!, createdAt: new Date(row.live_created!) } } : {}) };
  }

  /** A payment by PaymentGuid alone. */
  async find(paymentGuid: string): Promise<Payment | undefined> {
    const [row] = await this.#db.select().from(payments).where(eq(payments.id, paymentGuid));
    return row;
  }

  /** A payment of the partner by PaymentGuid, with its lines' fees. */
  async get(partnerId: string, paymentGuid: string, db: DbOrTx = this.#db): Promise<PaymentRecord | undefined> {
    const [row] = await db.select().from(payments).where(and(eq(payments.id, paymentGuid), eq(payments.partnerId, partnerId)));
    if (!row) return undefined;
    const lines = await db.select({ fees: paymentLines.fees }).from(paymentLines).where(eq(paymentLines.paymentId, row.id)).orderBy(asc(paymentLines.lineNo));
    return { payment: row, lines: lines.map((l) => l.fees as unknown as FeeBreakdown) };
  }

  /**
   * Records changes (the processor's answer) on a payment still awaiting its answer; false when it
   * no longer is (an operator resolved it meanwhile). Fixed SQL text per set of columns (built
   * once each): the query builder's cost per statement showed in the payment benchmark. It
   * returns only the id: the caller knows the rest of the row, and returning all of it cost 13-18 %
   * of the database's and a third of the driver's work for both writes (docs/decisions.md,
   * "Payments are answered from the row written").
   */
  async complete(id: string, changes: PaymentChanges): Promise<boolean> {
    const keys = Object.keys(changes).filter((k) => changes[k as keyof PaymentChanges] !== undefined) as (keyof PaymentChanges)[];
    const signature = keys.join(',');
    let text = UPDATE_SQL.get(signature);
    if (!text) {
      const sets = keys.map((k, i) => `${COLUMN_BY_KEY.get(k)!.name} = $${i + 2}`).join(', ');
      text = `UPDATE payments SET ${sets} WHERE id = $1 AND payment_result IN (${AWAITING_ANSWER.join(', ')}) RETURNING id`;
      UPDATE_SQL.set(signature, text);
    }
    const params = keys.map((k) => {
      const value = changes[k];
      return value === null ? null : COLUMN_BY_KEY.get(k)!.mapToDriverValue(value);
    });
    return (await this.#sql.query(text, [id, ...params], PREPARED)).length > 0;
  }

  /** `complete` inside a transaction of the caller's. */
  async completeIn(tx: Tx, id: string, changes: PaymentChanges): Promise<boolean> {
    const [row] = await tx
      .update(payments)
      .set(changes)
      .where(and(eq(payments.id, id), inArray(payments.paymentResult, AWAITING_ANSWER)))
      .returning({ id: payments.id });
    return row !== undefined;
  }

  /**
   * The stored row of a payment, from what was written: the draft, then the changes on it. The
   * database adds only `payment_id` (identity) and has no column defaults on payments;
   * `test/modules/payments/payment-row.test.ts` compares the two.
   */
  writtenRow(draft: PaymentDraft, paymentId: number, changes: PaymentChanges): Payment {
    const row = Object.fromEntries(ALL_COLUMN_KEYS.map((k) => [k, null])) as Record<string, unknown>;
    for (const source of [draft, changes]) {
      for (const [k, v] of Object.entries(source)) if (v !== undefined) row[k] = v;
    }
    row.paymentId = paymentId;
    return row as unknown as Payment;
  }
}
