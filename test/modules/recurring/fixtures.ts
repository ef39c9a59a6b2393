import type { TestContext, TestPartner } from '../../helpers/context.ts';

/** Card and account numbers of the simulator (docs/test-cards.md). */
export const APPROVED_CARD = '4242424242424242';
export const DECLINED_CARD = '4000000000000002';
export const APPROVED_ACCOUNT = '000123456789';

/** A stored card of the partner, as POST /api/payment with Tokenize: true or the gateway would make it. */
export async function cardToken(ctx: TestContext, partner: TestPartner, cardNumber = APPROVED_CARD, expYear = '30') {
  return ctx.services.tokens.tokenizeCard(partner.ClientId, { cardNumber, expMonth: '12', expYear, firstName: 'Ada', lastName: 'Lovelace', zip: '12345', source: 'api' });
}

export async function bankToken(ctx: TestContext, partner: TestPartner, accountNumber = APPROVED_ACCOUNT) {
  return ctx.services.tokens.tokenizeBankAccount(partner.ClientId, { routingNumber: '110000000', accountNumber, accountType: 1, checkType: 1, nameOnAccount: 'Ada Lovelace', source: 'api' });
}

/** POST /api/recurringProfile with a body of wire fields. */
export function createProfile(ctx: TestContext, body: Record<string, unknown>, partner: TestPartner = ctx.nonProfit) {
  return ctx.as(partner, { method: 'POST', url: '/api/recurringProfile', payload: body });
}

export function updateProfile(ctx: TestContext, body: Record<string, unknown>, partner: TestPartner = ctx.nonProfit) {
  return ctx.as(partner, { method: 'PUT', url: '/api/recurringProfile', payload: body });
}

export function cancelProfile(ctx: TestContext, guid: string, partner: TestPartner = ctx.nonProfit) {
  return ctx.as(partner, { method: 'DELETE', url: `/api/recurringProfile?RecurringProfileGuid=${encodeURIComponent(guid)}` });
}

/** The stored profile row (snake_case columns). */
export async function profileRow(ctx: TestContext, guid: string) {
  const [row] = await ctx.store.sql.query<Record<string, unknown>>(
    `SELECT status, to_char(next_bill_date, 'YYYY-MM-DD') AS next_bill_date, to_char(next_attempt_on, 'YYYY-MM-DD') AS next_attempt_on,
            failed_attempts, anchor_day, amount_cents, pre_fee_amount_cents, pay_fee, transaction_source_group_id, billing_frequency,
            to_char(start_date, 'YYYY-MM-DD') AS start_date, to_char(end_date, 'YYYY-MM-DD') AS end_date, fee_commission_rate, fee_card_rate,
            lease_owner, last_failure, cancelled_at, completed_at, suspended_at
       FROM recurring_profiles WHERE id = $1`,
    [guid],
  );
  return row;
}

/** The payments made for a profile, oldest first. */
export async function profilePayments(ctx: TestContext, guid: string) {
  return ctx.store.sql.query<{ id: string; bill_date: string; successful: boolean; payment_result: number; response_code: string; total_amount_cents: number }>(
    `SELECT id, to_char(bill_date, 'YYYY-MM-DD') AS bill_date, successful, payment_result, response_code, total_amount_cents
       FROM payments WHERE recurring_profile_id = $1 ORDER BY created_at, payment_id`,
    [guid],
  );
}
