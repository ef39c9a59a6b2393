import Big from 'big.js';
import type { Cents } from './money.ts';

/** TransactionSourceGroupId values of the spec. */
export const TRANSACTION_SOURCE_GROUPS: Readonly<Record<number, string>> = {
  1: 'Donation Fee',
  2: 'Peer-to-Peer Fee',
  3: 'Auction Performance Fee',
  4: 'Ticket Fee',
  5: 'Registration Fee',
  6: 'Quick Sales Fee',
  7: 'Online Store Fee',
  8: 'Campaign Fee',
  9: '0% Auction Performance Fee',
  10: 'ApiPartnerFee',
  11: 'ExpressPayrollFee',
  12: 'PaymentNoFee',
};

/** The group a for-profit (direct merchant) partner must use, and non-profit partners must not. */
export const PAYMENT_NO_FEE_GROUP = 12;

/**
 * A partner's fee schedule for one TransactionSourceGroupId. Rates are percentages as decimal
 * text ("2.9" = 2.9 %), flat amounts are cents.
 */
export interface FeeSchedule {
  groupId: number;
  cardFeeRate: string;
  platformCommissionRate: string;
  maxCommissionRate: string;
  perTransFeeCents: Cents;
  /** PaymentMethodTypeId (1 AMEX, 2 MASTERCARD, ...) -> flat fee in cents. */
  cardTypeFeesCents: Record<string, Cents>;
  achFeeRate: string;
  achFeeCapCents: Cents | null;
}

/** Problems with a schedule, in words an operator understands; empty when it is usable. */
export function scheduleProblems(s: FeeSchedule): string[] {
  const problems: string[] = [];
  if (!Number.isInteger(s.groupId) || !(s.groupId in TRANSACTION_SOURCE_GROUPS)) {
    problems.push(`group must be a TransactionSourceGroupId from 1 to 12, got ${s.groupId}`);
  }
  for (const [name, rate] of [
    ['card fee rate', s.cardFeeRate],
    ['platform commission rate', s.platformCommissionRate],
    ['maximum commission rate', s.maxCommissionRate],
    ['ACH fee rate', s.achFeeRate],
  ] as const) {
    const r = new Big(rate);
    if (r.lt(0) || r.gte(100)) problems.push(`${name} must be at least 0 and below 100, got ${rate}`);
  }
  if (new Big(s.platformCommissionRate).gt(s.maxCommissionRate)) {
    problems.push('platform commission rate must not exceed the maximum commission rate');
  }
  if (s.perTransFeeCents < 0) problems.push('per-transaction fee must not be negative');
  if (s.achFeeCapCents !== null && s.achFeeCapCents < 0) problems.push('ACH fee cap must not be negative');
  for (const [type, cents] of Object.entries(s.cardTypeFeesCents)) {
    if (!['1', '2', '3', '4', '5', '6'].includes(type)) problems.push(`card type fee for unknown card type ${type}`);
    if (!Number.isInteger(cents) || cents < 0) problems.push(`card type fee for ${type} must be a non-negative amount`);
  }
  return problems;
}
