import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestContext, TestPartner } from '../../helpers/context.ts';

/** Shared by the refund and void tests: payments to act on, and the calls. */

export type Body = Record<string, unknown>;

export const card = (overrides: Body = {}): Body => ({
  CardNum: '4242424242424242',
  ExpMonth: '12',
  ExpYear: '30',
  CVNum: '123',
  NameOnCard: 'Ada Lovelace',
  Email: 'ada@example.org',
  IpAddress: '203.0.113.9',
  Transactions: [{ TransactionSourceGroupId: '1', Amount: '100.00' }],
  ...overrides,
});

export const ach = (overrides: Body = {}): Body => ({
  CheckRoutingNumber: '110000000',
  CheckAccountNumber: '000123456789',
  CheckAccountTypeId: '1',
  CheckTypeId: '1',
  NameOnCheck: 'Ada Lovelace',
  State: 'NY',
  Email: 'ada@example.org',
  IpAddress: '203.0.113.9',
  Transactions: [{ TransactionSourceGroupId: '1', Amount: '50.00' }],
  ...overrides,
});

export const merchantLines = [{ TransactionSourceGroupId: '12', Amount: '20.00' }];

export interface Paid {
  PaymentGuid: string;
  PaymentId: number;
  TransactionId: string;
  Successful: boolean;
  TotalAmount: number;
  [k: string]: unknown;
}

/** Makes a card (or, with `kind: 'ach'`, an ACH) payment and returns its response body. */
export async function makePayment(ctx: TestContext, options: { partner?: TestPartner; kind?: 'card' | 'ach'; body?: Body } = {}): Promise<Paid> {
  const partner = options.partner ?? ctx.nonProfit;
  const forProfit = partner.kind === 'for-profit';
  const extra: Body = forProfit ? { ProcessorGuid: partner.processorId, Transactions: merchantLines } : {};
  const kind = options.kind ?? 'card';
  const body = kind === 'card' ? card({ ...extra, ...options.body }) : ach({ ...extra, ...options.body });
  const res = await ctx.as(partner, { method: 'POST', url: kind === 'card' ? '/api/payment' : '/api/paymentAch', payload: body });
  expect(res.statusCode).toBe(201);
  return res.json() as Paid;
}

export function adjust(ctx: TestContext, kind: 'void' | 'refund', body: Body, partner: TestPartner = ctx.nonProfit): Promise<LightMyRequestResponse> {
  return ctx.as(partner, { method: 'POST', url: `/api/${kind}`, payload: body });
}

/**
 * Settles everything authorized up to the test clock's now. The clock moves on by 1 ms first:
 * a batch is unique per moment, so two runs at one moment would be one batch.
 */
export async function settleNow(ctx: TestContext) {
  ctx.clock.advance(1);
  return ctx.services.settlement.settle();
}

export async function paymentRow(ctx: TestContext, paymentGuid: string) {
  const [row] = await ctx.store.sql.query<{
    payment_result: number;
    process_status: number;
    settlement_batch_id: string | null;
    settled_at: Date | string | null;
    pending_adjustment_id: string | null;
    transaction_id: string;
    auth_code: string | null;
    total_amount_cents: string | number;
    successful: boolean;
  }>('SELECT * FROM payments WHERE id = $1', [paymentGuid]);
  return row!;
}

export async function adjustmentsOf(ctx: TestContext, paymentGuid: string) {
  return ctx.store.sql.query<{
    id: string;
    kind: string;
    status: string;
    reason: string;
    source: string;
    request_id: string | null;
    transaction_id: string | null;
    response_code: string | null;
    message: string | null;
    payment_result_before: number;
    process_status_before: number;
    payment_result_after: number | null;
    process_status_after: number | null;
    fee_treatment: Record<string, number> | null;
    completed_at: Date | string | null;
    settlement_batch_id: string | null;
    partner_id: string;
  }>('SELECT * FROM payment_adjustments WHERE payment_id = $1 ORDER BY requested_at, status', [paymentGuid]);
}
