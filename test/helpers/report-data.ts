import type { SqlClient } from '../../src/platform/database/database.ts';

/**
 * Many payments at once, written straight into the tables (one statement per chunk): the volume
 * the reports' plans, exports and benchmark need, which making payments one by one through the
 * service would take minutes to reach. Each has one line with a fee breakdown's totals; every
 * 10th is settled (in one batch per call), every 50th refunded, every 70th voided; names,
 * TranIds and constituents vary, and some are missing.
 */
export interface SyntheticPayments {
  partnerId: string;
  processorId: string;
  /** Payments go to these in turn. */
  integrationSourceIds: string[];
  organizationIds: (string | null)[];
  count: number;
  /** Payment times spread evenly over [from, to). */
  from: Date;
  to: Date;
  /** Makes TranIds and transaction ids unique across calls. */
  prefix: string;
  /** Rows per statement. */
  chunk?: number;
}

export async function insertSyntheticPayments(sql: SqlClient, options: SyntheticPayments, progress?: (done: number) => void): Promise<void> {
  const chunk = options.chunk ?? 50_000;
  const spanMs = options.to.getTime() - options.from.getTime();
  const [batch] = await sql.query<{ id: string }>(
    `INSERT INTO settlement_batches (id, cutoff_at, trigger, state, closed_at, settled_count, ach_refunds_completed, totals)
     VALUES (gen_random_uuid(), $1::timestamptz, 'operator', 'closed', $1::timestamptz, 0, 0, '{}'::jsonb) RETURNING id`,
    [new Date(options.to.getTime() + Math.floor(Math.random() * 1_000_000)).toISOString()],
  );
  for (let start = 0; start < options.count; start += chunk) {
    const end = Math.min(options.count, start + chunk);
    await sql.query(
      `WITH made AS (
        INSERT INTO payments (id, partner_id, processor_id, organization_id, integration_source_id, duplicate_checked, method,
          payment_method_type_id, tran_id, transaction_id, auth_code, response_code, message, successful, payment_result, process_status,
          total_amount_cents, lines_amount_cents, lines_tip_cents, lines_tax_cents, lines_fees_cents, lines_commission_cents,
          lines_partner_commission_cents, lines_platform_commission_cents, currency, first_name, last_name, email, card_last4, card_type, check_account_last4, external_constituent_id,
          created_at, processed_at, settlement_batch_id, settled_at)
        SELECT gen_random_uuid(), $1::uuid, $2::uuid, ($3::uuid[])[1 + g % cardinality($3::uuid[])], ($4::uuid[])[1 + g % cardinality($4::uuid[])], false,
          CASE WHEN g % 5 = 0 THEN 'ach' ELSE 'card' END,
          CASE WHEN g % 5 = 0 THEN 7 ELSE 1 + g % 4 END,
          CASE WHEN g % 7 = 0 THEN NULL ELSE $5 || '-' || g END,
          'tx-' || $5 || '-' || g, 'A' || g % 1000, CASE WHEN g % 13 = 0 THEN '12' ELSE '0' END,
          CASE WHEN g % 13 = 0 THEN 'Declined' ELSE 'Approved' END, g % 13 <> 0,
          CASE WHEN g % 13 = 0 THEN 4 WHEN g % 50 = 0 THEN 5 WHEN g % 70 = 0 THEN 6 ELSE 3 END,
          CASE WHEN g % 13 = 0 THEN 5 WHEN g % 50 = 0 THEN 8 WHEN g % 70 = 0 THEN 9 WHEN g % 10 = 0 THEN 4 ELSE 2 END,
          1000 + (g::bigint * 7919) % 99000, 1000 + (g::bigint * 7919) % 99000, 0, 0, (1000 + (g::bigint * 7919) % 99000) * 8 / 100,
          (1000 + (g::bigint * 7919) % 99000) * 5 / 100, (1000 + (g::bigint * 7919) % 99000) * 4 / 100, (1000 + (g::bigint * 7919) % 99000) / 100, 'USD',
          CASE WHEN g % 11 = 0 THEN NULL ELSE 'Payer' END, 'N' || g, 'payer' || g || '@example.org',
          CASE WHEN g % 5 = 0 THEN NULL ELSE lpad((g % 10000)::text, 4, '0') END,
          CASE WHEN g % 5 = 0 THEN NULL ELSE 'Visa' END,
          CASE WHEN g % 5 = 0 THEN lpad((g % 10000)::text, 4, '0') END,
          CASE WHEN g % 3 = 0 THEN NULL ELSE 'c-' || g % 5000 END,
          $6::timestamptz + (g * $7::float8 / $8::float8) * interval '1 millisecond',
          $6::timestamptz + (g * $7::float8 / $8::float8) * interval '1 millisecond',
          CASE WHEN g % 10 = 0 AND g % 13 <> 0 AND (g % 70 <> 0 OR g % 50 = 0) THEN $9::uuid END,
          CASE WHEN g % 10 = 0 AND g % 13 <> 0 AND (g % 70 <> 0 OR g % 50 = 0) THEN $6::timestamptz + (g * $7::float8 / $8::float8 + 86400000) * interval '1 millisecond' END
        FROM generate_series($10::int, $11::int) g
        RETURNING id, total_amount_cents, created_at, payment_result, payment_id
      ), lines AS (
        INSERT INTO payment_lines (payment_id, line_no, transaction_source_group_id, amount_cents, tip_cents, tax_cents, pay_fee,
          payment_amount_cents, total_fees_cents, fees)
        SELECT id, 1, 1, total_amount_cents, 0, 0, false, total_amount_cents, total_amount_cents * 8 / 100,
          jsonb_build_object('totalCommissionAmountCents', total_amount_cents * 5 / 100, 'partnerCommissionAmountCents', total_amount_cents * 4 / 100,
            'platformCommissionAmountCents', total_amount_cents / 100, 'totalFeesCents', total_amount_cents * 8 / 100)
        FROM made
        RETURNING payment_id
      )
      INSERT INTO payment_adjustments (id, payment_id, partner_id, kind, status, reason, source, requested_at, processed_at, amount_cents, currency,
        payment_result_before, process_status_before, payment_result_after, process_status_after)
      SELECT gen_random_uuid(), id, $1::uuid, CASE WHEN payment_result = 5 THEN 'refund' ELSE 'void' END, 'approved', 'synthetic', 'api',
        created_at + interval '2 days', created_at + interval '2 days', total_amount_cents, 'USD',
        3, CASE WHEN payment_result = 5 THEN 4 ELSE 2 END, payment_result, CASE WHEN payment_result = 5 THEN 8 ELSE 9 END
      FROM made WHERE payment_result IN (5, 6)`,
      [
        options.partnerId,
        options.processorId,
        options.organizationIds.map((id) => id ?? null),
        options.integrationSourceIds,
        options.prefix,
        options.from.toISOString(),
        spanMs,
        options.count,
        batch!.id,
        start + 1,
        end,
      ],
    );
    progress?.(end);
  }
}
