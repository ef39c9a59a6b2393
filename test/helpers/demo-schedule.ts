import type { FeeSchedule } from '../../src/domain/fee-schedule.ts';

/** The demo contract: card 2.9 %, platform 1 %, maximum 5 %, 0.30 per transaction, ACH 0.8 % capped at 5.00. */
export const DEMO_SCHEDULE: FeeSchedule = {
  groupId: 1,
  cardFeeRate: '2.9',
  platformCommissionRate: '1',
  maxCommissionRate: '5',
  perTransFeeCents: 30,
  cardTypeFeesCents: {},
  achFeeRate: '0.8',
  achFeeCapCents: 500,
};
