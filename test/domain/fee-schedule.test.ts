import { describe, expect, it } from 'vitest';
import { type FeeSchedule, scheduleProblems } from '../../src/domain/fee-schedule.ts';
import { DEMO_SCHEDULE } from '../helpers/demo-schedule.ts';

const demo: FeeSchedule = DEMO_SCHEDULE;

describe('scheduleProblems', () => {
  it.each<[string, Partial<FeeSchedule>]>([
    ['the demo contract', {}],
    ['no per-transaction fee', { perTransFeeCents: 0 }],
    ['an ACH cap of 0', { achFeeCapCents: 0 }],
    ['no ACH cap', { achFeeCapCents: null }],
    ['a card-type fee of 0', { cardTypeFeesCents: { '3': 0 } }],
    ['card-type fees for all six brands, JCB (6) included', { cardTypeFeesCents: { '1': 25, '2': 10, '3': 10, '4': 10, '5': 10, '6': 15 } }],
    ['group 12', { groupId: 12 }],
    ['rates just below 100', { cardFeeRate: '99.9999', achFeeRate: '99.9999', maxCommissionRate: '99.9999' }],
    ['rates of 0', { cardFeeRate: '0', platformCommissionRate: '0', maxCommissionRate: '0', achFeeRate: '0' }],
  ])('accepts %s', (_name, over) => {
    expect(scheduleProblems({ ...demo, ...over })).toEqual([]);
  });

  it.each<[string, Partial<FeeSchedule>, string]>([
    ['a negative per-transaction fee', { perTransFeeCents: -1 }, 'per-transaction fee must not be negative'],
    ['a negative ACH cap', { achFeeCapCents: -1 }, 'ACH fee cap must not be negative'],
    ['a negative card-type fee', { cardTypeFeesCents: { '3': -1 } }, 'card type fee for 3 must be a non-negative amount'],
    ['a card-type fee with a fraction of a cent', { cardTypeFeesCents: { '3': 10.5 } }, 'card type fee for 3 must be a non-negative amount'],
    ['a card-type fee for an unknown type (7, ACH)', { cardTypeFeesCents: { '7': 10 } }, 'card type fee for unknown card type 7'],
    ['a card fee rate of 100', { cardFeeRate: '100' }, 'card fee rate must be at least 0 and below 100, got 100'],
    ['an ACH fee rate of 100', { achFeeRate: '100' }, 'ACH fee rate must be at least 0 and below 100, got 100'],
    ['a negative card fee rate', { cardFeeRate: '-0.1' }, 'card fee rate must be at least 0 and below 100, got -0.1'],
    ['a group id that is not an integer', { groupId: 1.5 }, 'group must be a TransactionSourceGroupId from 1 to 12, got 1.5'],
    ['an unknown group', { groupId: 13 }, 'group must be a TransactionSourceGroupId from 1 to 12, got 13'],
    ['a platform rate above the maximum', { platformCommissionRate: '6' }, 'platform commission rate must not exceed the maximum commission rate'],
  ])('refuses %s', (_name, over, problem) => {
    expect(scheduleProblems({ ...demo, ...over })).toEqual([problem]);
  });
});
