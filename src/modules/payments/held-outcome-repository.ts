import { PaymentResult } from '../../domain/payment-status.ts';
import type { SqlClient } from '../../platform/database/database.ts';
import { ConflictError } from '../../platform/errors.ts';

const UNIQUE_VIOLATION = '23505';

const STILL_PENDING = `payment_result IN (${PaymentResult.Pending}, ${PaymentResult.Processing})`;

const LIST_SQL = `
SELECT p.id, p.partner_id, pa.name AS partner_name, pr.name AS processor_name, pr.adapter, p.method,
       p.total_amount_cents, p.currency, p.tran_id, p.recurring_profile_id, p.bill_date, p.pay_link_id, p.created_at
FROM payments p JOIN partners pa ON pa.id = p.partner_id JOIN processors pr ON pr.id = p.processor_id
WHERE p.${STILL_PENDING} AND p.created_at <= $1
ORDER BY p.created_at, p.id`;

const CLAIMS_SQL = `
SELECT a.id, a.kind, a.payment_id, p.transaction_id, a.partner_id, pa.name AS partner_name, a.amount_cents, a.currency, a.requested_at
FROM payment_adjustments a JOIN payments p ON p.id = a.payment_id JOIN partners pa ON pa.id = a.partner_id
WHERE a.status = 'pending' AND a.requested_at <= $1
ORDER BY a.requested_at, a.id`;

/**
 * Only a payment still pending is completed: two operators, or an operator and a late process,
 * cannot both. A charge taken through a pay link completes the link in the same statement, as the
 * page would have (still active: the link took no other payment while this one was unresolved).
 */
const RESOLVE_SQL = `
WITH p AS (
  UPDATE payments SET transaction_id = $2, auth_code = $3, response_code = $4, message = $5, processor_message = $6,
         successful = $7, payment_result = $8, process_status = $9, processed_at = $10
  WHERE id = $1 AND ${STILL_PENDING} AND created_at <= $11
  RETURNING id, pay_link_id, successful),
link AS (
  UPDATE pay_links l SET status = 'completed', payment_id = p.id, completed_at = $10, lease_until = NULL
  FROM p WHERE l.id = p.pay_link_id AND p.successful AND l.status = 'active'
  RETURNING l.id)
SELECT p.id, p.successful, (SELECT count(*) FROM link) > 0 AS pay_link_completed,
       (SELECT l.status FROM pay_links l WHERE l.id = p.pay_link_id) AS pay_link_status_before
FROM p`;


export interface ListRow {
  id: string;
  partner_id: string;
  partner_name: string;
  processor_name: string;
  adapter: string;
  method: string;
  total_amount_cents: number | string;
  currency: string | null;
  tran_id: string | null;
  recurring_profile_id: string | null;
  bill_date: string | null;
  pay_link_id: string | null;
  created_at: Date | string;
}

export interface ClaimRow {
  id: string;
  kind: 'refund' | 'void';
  payment_id: string;
  transaction_id: string | null;
  partner_id: string;
  partner_name: string;
  amount_cents: number | string;
  currency: string | null;
  requested_at: Date | string;
}

/** The answer an operator records for a payment (held-outcome-service.ts `completion`). */
export interface PaymentCompletion {
  transactionId: string | null;
  authCode: string | null;
  responseCode: string;
  message: string;
  processorMessage: string;
  successful: boolean;
  paymentResult: number;
  processStatus: number;
}

/** A held payment, refund or void as the resolution by look-up needs it. */
export interface HeldRow {
  kind: 'payment' | 'refund' | 'void';
  id: string;
  processor_id: string;
  adapter: string;
  sent_at: Date | string;
  amount_cents: number | string;
  original_transaction_id: string | null;
}

/** Held payments and refunds/voids still claiming theirs, sent at $1 or earlier, oldest first, at most $2. */
const HELD_SQL = `
(SELECT 'payment' AS kind, p.id, p.processor_id, pr.adapter, p.created_at AS sent_at, p.total_amount_cents AS amount_cents,
        NULL::text AS original_transaction_id
   FROM payments p JOIN processors pr ON pr.id = p.processor_id
  WHERE p.${STILL_PENDING} AND p.created_at <= $1
  ORDER BY p.created_at LIMIT $2)
UNION ALL
(SELECT a.kind, a.id, p.processor_id, pr.adapter, a.requested_at AS sent_at, a.amount_cents, p.transaction_id AS original_transaction_id
   FROM payment_adjustments a JOIN payments p ON p.id = a.payment_id JOIN processors pr ON pr.id = p.processor_id
  WHERE a.status = 'pending' AND a.requested_at <= $1
  ORDER BY a.requested_at LIMIT $2)`;

/** The statements of payments, refunds and voids whose outcome is unknown. */
export class HeldOutcomeRepository {
  readonly #sql: SqlClient;

  constructor(sql: SqlClient) {
    this.#sql = sql;
  }

  /** Payments still pending (or held) that started at `before` or earlier, oldest first. */
  pendingPayments(before: string): Promise<ListRow[]> {
    return this.#sql.query<ListRow>(LIST_SQL, [before]);
  }

  /** Refunds and voids still claiming their payment, requested at `before` or earlier, oldest first. */
  pendingAdjustments(before: string): Promise<ClaimRow[]> {
    return this.#sql.query<ClaimRow>(CLAIMS_SQL, [before]);
  }

  /** Held payments, refunds and voids sent at `before` or earlier (at most `limit` of each), for their processors to be asked. */
  held(before: string, limit: number): Promise<HeldRow[]> {
    return this.#sql.query<HeldRow>(HELD_SQL, [before, limit]);
  }

  async isPayment(id: string): Promise<boolean> {
    return (await this.#sql.query('SELECT 1 FROM payments WHERE id = $1', [id])).length > 0;
  }

  async paymentResult(id: string): Promise<number | undefined> {
    const [row] = await this.#sql.query<{ payment_result: number }>('SELECT payment_result FROM payments WHERE id = $1', [id]);
    return row?.payment_result;
  }

  /**
   * Completes a payment still pending that started at `startedBefore` or earlier, with its pay
   * link when it was made on one; no rows when it is not pending (or too young).
   */
  async resolve(id: string, answer: PaymentCompletion, now: string, startedBefore: string): Promise<{ successful: boolean; pay_link_completed: boolean; pay_link_status_before: string | null }[]> {
    return this.#sql.query<{ successful: boolean; pay_link_completed: boolean; pay_link_status_before: string | null }>(RESOLVE_SQL, [
      id,
      answer.transactionId,
      answer.authCode,
      answer.responseCode,
      answer.message,
      answer.processorMessage,
      answer.successful,
      answer.paymentResult,
      answer.processStatus,
      now,
      startedBefore,
    ]).catch((err: unknown) => {
      if ((err as { code?: string } | null)?.code === UNIQUE_VIOLATION) throw new ConflictError('another payment already has this transaction id');
      throw err;
    });
  }
}
