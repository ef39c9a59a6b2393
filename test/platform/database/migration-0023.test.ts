import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../helpers/context.ts';
import { card } from '../../http/api/refund-void-fixtures.ts';

/** 0023 keeps the totals of a payment's lines on its row; the payments module writes them with the lines. */
const MIGRATION_0023 = readFileSync(join(import.meta.dirname, '../../../src/platform/database/migrations/0023_payment_line_totals.sql'), 'utf8');
const TOTALS = ['amount', 'tip', 'tax', 'fees', 'commission', 'partner_commission', 'platform_commission'];

/** Each payment's stored totals next to the sums of its lines. */
const COMPARED = `
  SELECT p.id, ${TOTALS.map((t) => `p.lines_${t}_cents::text AS "${t}"`).join(', ')},
         l.amount::text AS "sum_amount", l.tip::text AS "sum_tip", l.tax::text AS "sum_tax", l.fees::text AS "sum_fees",
         l.commission::text AS "sum_commission", l.partner_commission::text AS "sum_partner_commission", l.platform_commission::text AS "sum_platform_commission"
    FROM payments p
    JOIN (SELECT payment_id, sum(amount_cents) AS amount, sum(tip_cents) AS tip, sum(tax_cents) AS tax, sum(total_fees_cents) AS fees,
                 sum((fees->>'totalCommissionAmountCents')::bigint) AS commission,
                 sum((fees->>'partnerCommissionAmountCents')::bigint) AS partner_commission,
                 sum((fees->>'platformCommissionAmountCents')::bigint) AS platform_commission
            FROM payment_lines GROUP BY payment_id) l ON l.payment_id = p.id
   ORDER BY p.id`;

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
  const payments = [
    card({ Transactions: [{ TransactionSourceGroupId: '1', Amount: '100.00', PayFee: true, Tip: '5.00', Tax: '2.50', CommissionRateOverride: '3' }, { TransactionSourceGroupId: '4', Amount: '20.00' }] }),
    card({ CardNum: '4000000000000002', Transactions: [{ TransactionSourceGroupId: '1', Amount: '10.01', Tip: '0.99' }] }),
    card({ Transactions: [{ TransactionSourceGroupId: '1', Amount: '33.33' }, { TransactionSourceGroupId: '1', Amount: '66.67', Tax: '1.00' }, { TransactionSourceGroupId: '4', Amount: '0.01' }] }),
  ];
  for (const payload of payments) {
    const res = await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload });
    expect(res.statusCode, res.body).toBe(201);
  }
}, 60_000);
afterAll(() => ctx?.close());

const rowsOf = async () => ctx.store.sql.query<Record<string, string>>(COMPARED);

describe('the totals of a payment\'s lines', () => {
  it('are written with the payment (approved or declined), equal to the sums of its lines', async () => {
    const rows = await rowsOf();
    expect(rows).toHaveLength(3);
    for (const row of rows) for (const t of TOTALS) expect(row[t], `${t} of ${row.id}`).toBe(row[`sum_${t}`]);
    expect(rows.map((r) => r.tip).sort()).toEqual(['0', '500', '99']);
  });

  it('are filled in by migration 0023 on payments made before it', async () => {
    const before = await rowsOf();
    await ctx.store.sql.exec(`ALTER TABLE payments ${TOTALS.map((t) => `DROP COLUMN lines_${t}_cents`).join(', ')}`);
    await ctx.store.sql.exec(MIGRATION_0023);
    expect(await rowsOf()).toEqual(before);
    const [nullable] = await ctx.store.sql.query<{ n: number | string }>(
      `SELECT count(*) AS n FROM information_schema.columns WHERE table_name = 'payments' AND column_name LIKE 'lines\\_%' AND is_nullable = 'YES'`,
    );
    expect(Number(nullable!.n)).toBe(0);
  });
});
