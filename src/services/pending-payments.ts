import type { Clock } from '../clock.ts';
import { PaymentResult, ProcessStatus, ResponseCode } from '../domain/payment-status.ts';
import type { SqlClient } from '../store/database.ts';
import { NotFoundError } from './errors.ts';
import { OperatorInputError } from './partners.ts';

/**
 * Payments whose outcome we do not know: written Pending before the processor was asked, and
 * never completed because the process died (or the database was unreachable) before the answer
 * was recorded. The processor may or may not have charged. An operator looks the payment up in
 * the processor's records (its reference there is our PaymentGuid) and records what it says.
 * Until then the payment stays Pending, and recurring billing does not charge its bill date again.
 */
export interface PendingPayment {
  paymentGuid: string;
  partnerId: string;
  partnerName: string;
  processorName: string;
  adapter: string;
  method: string;
  amountCents: number;
  currency: string | null;
  tranId: string | null;
  recurringProfileId: string | null;
  billDate: string | null;
  createdAt: Date;
}

/** What the processor's records say about a payment. */
export type ProcessorOutcome =
  | { kind: 'approved'; transactionId: string; authCode?: string }
  | { kind: 'declined' }
  /** The processor has no sale with this reference: nothing was charged. */
  | { kind: 'not-processed' };

const STILL_PENDING = `payment_result IN (${PaymentResult.Pending}, ${PaymentResult.Processing})`;

const LIST_SQL = `
SELECT p.id, p.partner_id, pa.name AS partner_name, pr.name AS processor_name, pr.adapter, p.method,
       p.total_amount_cents, p.currency, p.tran_id, p.recurring_profile_id, p.bill_date, p.created_at
FROM payments p JOIN partners pa ON pa.id = p.partner_id JOIN processors pr ON pr.id = p.processor_id
WHERE p.${STILL_PENDING} AND p.created_at <= $1
ORDER BY p.created_at, p.id`;

/** Only a payment still pending is completed: two operators, or an operator and a late process, cannot both. */
const RESOLVE_SQL = `
UPDATE payments SET transaction_id = $2, auth_code = $3, response_code = $4, message = $5, processor_message = $6,
       successful = $7, payment_result = $8, process_status = $9, processed_at = $10
WHERE id = $1 AND ${STILL_PENDING}
RETURNING id`;

/** A processor's transaction id or authorization code, as an operator copies it from a report. */
const PROCESSOR_REFERENCE = /^[A-Za-z0-9._:-]{1,100}$/;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface ListRow {
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
  created_at: Date | string;
}

export class PendingPaymentService {
  readonly #sql: SqlClient;
  readonly #clock: Clock;

  constructor(deps: { sql: SqlClient; clock: Clock }) {
    this.#sql = deps.sql;
    this.#clock = deps.clock;
  }

  /** Payments pending for at least `olderThanMinutes` (younger ones may still be in flight). */
  async list(olderThanMinutes: number): Promise<PendingPayment[]> {
    const before = new Date(this.#clock.now().getTime() - olderThanMinutes * 60_000);
    const rows = await this.#sql.query<ListRow>(LIST_SQL, [before.toISOString()]);
    return rows.map((r) => ({
      paymentGuid: r.id,
      partnerId: r.partner_id,
      partnerName: r.partner_name,
      processorName: r.processor_name,
      adapter: r.adapter,
      method: r.method,
      amountCents: Number(r.total_amount_cents),
      currency: r.currency,
      tranId: r.tran_id,
      recurringProfileId: r.recurring_profile_id,
      billDate: r.bill_date,
      createdAt: new Date(r.created_at),
    }));
  }

  /** Records the processor's answer for a pending payment, as the payment would have had it. */
  async resolve(paymentGuid: string, outcome: ProcessorOutcome): Promise<{ paymentResult: number; processStatus: number }> {
    if (!GUID.test(paymentGuid)) throw new OperatorInputError(`"${paymentGuid}" is not a PaymentGuid`);
    if (outcome.kind === 'approved') {
      if (!PROCESSOR_REFERENCE.test(outcome.transactionId)) throw new OperatorInputError('the transaction id must be 1-100 letters, digits or . _ : -');
      if (outcome.authCode !== undefined && !PROCESSOR_REFERENCE.test(outcome.authCode)) throw new OperatorInputError('the auth code must be 1-100 letters, digits or . _ : -');
    }
    const answer = completion(outcome);
    let updated: unknown[];
    try {
      updated = await this.#sql.query(RESOLVE_SQL, [
        paymentGuid,
        answer.transactionId,
        answer.authCode,
        answer.responseCode,
        answer.message,
        answer.processorMessage,
        answer.successful,
        answer.paymentResult,
        answer.processStatus,
        this.#clock.now().toISOString(),
      ]);
    } catch (err) {
      if ((err as { code?: string }).code === '23505') throw new OperatorInputError('another payment already has this transaction id');
      throw err;
    }
    if (updated.length === 0) {
      const [row] = await this.#sql.query<{ payment_result: number }>('SELECT payment_result FROM payments WHERE id = $1', [paymentGuid]);
      if (!row) throw new NotFoundError(`No payment ${paymentGuid}.`);
      throw new OperatorInputError(`payment ${paymentGuid} is not pending (PaymentResult ${row.payment_result}): its outcome is already recorded`);
    }
    return { paymentResult: answer.paymentResult, processStatus: answer.processStatus };
  }
}

const BY_OPERATOR = 'recorded by an operator from the processor\'s records';

function completion(outcome: ProcessorOutcome) {
  switch (outcome.kind) {
    case 'approved':
      return {
        transactionId: outcome.transactionId,
        authCode: outcome.authCode ?? null,
        responseCode: ResponseCode.Approved,
        message: 'Approved',
        processorMessage: `Approved (${BY_OPERATOR})`,
        successful: true,
        paymentResult: PaymentResult.Successful,
        processStatus: ProcessStatus.Authorized,
      };
    case 'declined':
      return {
        transactionId: null,
        authCode: null,
        responseCode: ResponseCode.Declined,
        message: 'Declined',
        processorMessage: `Declined (${BY_OPERATOR})`,
        successful: false,
        paymentResult: PaymentResult.Failed,
        processStatus: ProcessStatus.Rejected,
      };
    case 'not-processed':
      return {
        transactionId: null,
        authCode: null,
        responseCode: ResponseCode.GeneralError,
        message: 'Processing error: the processor has no record of this payment. The payment was not processed.',
        processorMessage: `No such sale (${BY_OPERATOR})`,
        successful: false,
        paymentResult: PaymentResult.Failed,
        processStatus: ProcessStatus.NotProcessed,
      };
  }
}
