import { describe, expect, it } from 'vitest';
import type { FeeSchedule } from '../../src/domain/fee-schedule.ts';
import { DEMO_SCHEDULE } from '../helpers/demo-schedule.ts';
import { formatPercent, parsePercent, percentOf } from '../../src/domain/fee-rates.ts';
import { type FeeLineInput, FeeCalculationError, grossUp, quoteFees, quoteLine } from '../../src/domain/fees.ts';

const demo: FeeSchedule = DEMO_SCHEDULE;
const zeroCommission: FeeSchedule = { ...demo, groupId: 9, platformCommissionRate: '0', maxCommissionRate: '0' };
const withVisaFee: FeeSchedule = { ...demo, cardTypeFeesCents: { '3': 10, '1': 25 } };

const line = (over: Partial<FeeLineInput> = {}): FeeLineInput => ({
  transactionSourceGroupId: 1,
  amountCents: 10_000,
  payFee: false,
  tipCents: 0,
  taxCents: 0,
  ...over,
});

const one = (l: FeeLineInput, schedule = demo, paymentMethodTypeId?: number) =>
  quoteFees({ lines: [l], schedules: new Map([[schedule.groupId, schedule]]), paymentMethodTypeId }).lines[0]!;

describe('the worked examples of issue 3 (docs/fees.md, examples 1 and 2)', () => {
  it('PayFee false on 100.00: fees 8.20 taken from 100.00', () => {
    expect(one(line())).toEqual({
      transactionSourceGroupId: 1,
      paymentAmountCents: 10_000,
      cardFeeRate: '2.9',
      cardFeeAmountCents: 290,
      cardTypeFeeAmountCents: 0,
      totalCommissionRate: '5',
      totalCommissionAmountCents: 500,
      partnerCommissionRate: '4',
      partnerCommissionAmountCents: 400,
      platformCommissionRate: '1',
      platformCommissionAmountCents: 100,
      totalFeesCents: 820,
      maxOverridePartnerCommissionRate: '7.9',
      minOverridePartnerCommissionRate: '3.9',
      perTransFeeCents: 30,
      tipCents: 0,
      cardFeeOnFeeAmountCents: 0,
      taxCents: 0,
      achFeeRate: '0',
      achFeeAmountCents: 0,
      externalLineId: undefined,
    });
  });

  it('PayFee true on 100.00: 108.44, not the closed form 108.45', () => {
    const b = one(line({ payFee: true }));
    expect(b).toMatchObject({
      paymentAmountCents: 10_844,
      cardFeeAmountCents: 290,
      cardFeeOnFeeAmountCents: 24,
      totalCommissionAmountCents: 500,
      perTransFeeCents: 30,
      totalFeesCents: 844,
    });
    // 108.44 nets exactly 100.00; 108.43 would net 99.99 (its card fee rounds to 3.14 as well).
    expect(b.paymentAmountCents - b.totalFeesCents).toBe(10_000);
    expect(10_843 - (500 + 30 + percentOf(10_843, parsePercent('2.9')!))).toBe(9_999);
  });
});

describe('more worked examples (docs/fees.md)', () => {
  it('3: tip and tax are part of the base and echoed; PayFee false', () => {
    const b = one(line({ amountCents: 5_000, tipCents: 500, taxCents: 150 }));
    expect(b).toMatchObject({
      paymentAmountCents: 5_650,
      platformCommissionAmountCents: 57, // 0.565 rounds half away from zero
      partnerCommissionAmountCents: 226,
      totalCommissionAmountCents: 283,
      cardFeeAmountCents: 164, // 1.6385
      perTransFeeCents: 30,
      totalFeesCents: 477,
      tipCents: 500,
      taxCents: 150,
    });
  });

  it('4: the same with PayFee true: the organization still nets Amount + Tax after the tip', () => {
    const b = one(line({ amountCents: 5_000, tipCents: 500, taxCents: 150, payFee: true }));
    expect(b).toMatchObject({
      paymentAmountCents: 6_141,
      cardFeeAmountCents: 164,
      cardFeeOnFeeAmountCents: 14,
      totalCommissionAmountCents: 283,
      perTransFeeCents: 30,
      totalFeesCents: 491,
    });
    expect(b.paymentAmountCents - b.totalFeesCents - b.tipCents).toBe(5_150);
  });

  it('5: a commission override is clamped into [platform, maximum]', () => {
    expect(one(line({ commissionRateOverride: '3' }))).toMatchObject({
      totalCommissionRate: '3',
      partnerCommissionRate: '2',
      platformCommissionRate: '1',
      totalCommissionAmountCents: 300,
      partnerCommissionAmountCents: 200,
      platformCommissionAmountCents: 100,
      maxOverridePartnerCommissionRate: '7.9',
      minOverridePartnerCommissionRate: '3.9',
    });
    expect(one(line({ commissionRateOverride: '0.5' }))).toMatchObject({ totalCommissionRate: '1', partnerCommissionRate: '0', totalCommissionAmountCents: 100 });
    expect(one(line({ commissionRateOverride: '-3' }))).toMatchObject({ totalCommissionRate: '1', partnerCommissionAmountCents: 0 });
    expect(one(line({ commissionRateOverride: '12.5' }))).toMatchObject({ totalCommissionRate: '5', partnerCommissionRate: '4', totalCommissionAmountCents: 500 });
    expect(one(line({ commissionRateOverride: '2.125' }))).toMatchObject({
      totalCommissionRate: '2.125',
      partnerCommissionRate: '1.125',
      partnerCommissionAmountCents: 113,
      totalCommissionAmountCents: 213,
    });
  });

  it('6: ACH: the ACH rate, capped, and no card fee; PayFee grosses up to the cap', () => {
    const plain = one(line({ amountCents: 100_000 }), demo, 7);
    expect(plain).toMatchObject({
      paymentAmountCents: 100_000,
      cardFeeRate: '0',
      cardFeeAmountCents: 0,
      achFeeRate: '0.8',
      achFeeAmountCents: 500, // 8.00 capped at 5.00
      totalFeesCents: 5_530,
      minOverridePartnerCommissionRate: '1.8',
      maxOverridePartnerCommissionRate: '5.8',
    });
    const covered = one(line({ amountCents: 100_000, payFee: true }), demo, 7);
    expect(covered).toMatchObject({ paymentAmountCents: 105_530, achFeeAmountCents: 500, cardFeeOnFeeAmountCents: 0, totalFeesCents: 5_530 });
    // Without the cap the payer would have been charged 1058.77.
    expect(grossUp(105_030n, parsePercent('0.8')!, null)).toBe(105_877n);
    const small = one(line({ amountCents: 2_000, payFee: true }), demo, 7);
    // Net 20.00 + 1.00 commission + 0.30 = 21.30; the closed form gives 21.48, but 21.47 already
    // nets 21.30 (its fee 0.17176 rounds to 0.17), and 21.46 nets 21.29.
    expect(small).toMatchObject({ paymentAmountCents: 2_147, achFeeAmountCents: 17, totalFeesCents: 147 });
  });

  it('7: flat fees once per payment, on the first line; the card-type fee by brand', () => {
    const q = quoteFees({
      lines: [line({ amountCents: 2_000 }), line({ amountCents: 3_000 })],
      schedules: new Map([[1, withVisaFee]]),
      paymentMethodTypeId: 3,
    });
    expect(q.lines.map((l) => [l.perTransFeeCents, l.cardTypeFeeAmountCents])).toEqual([
      [30, 10],
      [0, 0],
    ]);
    expect(q.lines[0]!.totalFeesCents).toBe(100 + 58 + 30 + 10); // commission 1.00, card 0.58
    expect(q.lines[1]!.totalFeesCents).toBe(150 + 87); // commission 1.50, card 0.87
    expect(q.totalPaymentCents).toBe(5_000);
    expect(q.totalFeesCents).toBe(q.lines[0]!.totalFeesCents + q.lines[1]!.totalFeesCents);
    // A brand without a fee in the contract, an unknown brand and ACH pay none.
    expect(one(line(), withVisaFee, 2).cardTypeFeeAmountCents).toBe(0);
    expect(one(line(), withVisaFee, undefined).cardTypeFeeAmountCents).toBe(0);
    expect(one(line(), withVisaFee, 7).cardTypeFeeAmountCents).toBe(0);
    expect(one(line(), withVisaFee, 1).cardTypeFeeAmountCents).toBe(25);
    // Whatever the first line's PayFee: with it, its gross-up covers the flat fees too (the line nets
    // its amount, within the cent of rounding); with PayFee on another line only, they stay on line 1.
    const covered = quoteFees({
      lines: [line({ amountCents: 2_000, payFee: true }), line({ amountCents: 3_000 })],
      schedules: new Map([[1, withVisaFee]]),
      paymentMethodTypeId: 3,
    }).lines[0]!;
    expect([covered.perTransFeeCents, covered.cardTypeFeeAmountCents]).toEqual([30, 10]);
    expect(covered.paymentAmountCents - covered.totalFeesCents).toBeGreaterThanOrEqual(2_000);
    expect(covered.paymentAmountCents - covered.totalFeesCents).toBeLessThan(2_002);
    const elsewhere = quoteFees({
      lines: [line({ amountCents: 2_000 }), line({ amountCents: 3_000, payFee: true })],
      schedules: new Map([[1, withVisaFee]]),
      paymentMethodTypeId: 3,
    });
    expect(elsewhere.lines.map((l) => [l.perTransFeeCents, l.cardTypeFeeAmountCents])).toEqual([
      [30, 10],
      [0, 0],
    ]);
  });

  it('8: group 9 has no commission', () => {
    expect(one(line({ transactionSourceGroupId: 9 }), zeroCommission)).toMatchObject({
      totalCommissionRate: '0',
      partnerCommissionRate: '0',
      platformCommissionRate: '0',
      totalCommissionAmountCents: 0,
      totalFeesCents: 320,
    });
  });

  it('9: CardProcessingFeeOverride replaces the card rate (and the derived override bounds)', () => {
    expect(one(line({ cardProcessingFeeOverride: '3.5' }))).toMatchObject({
      cardFeeRate: '3.5',
      cardFeeAmountCents: 350,
      minOverridePartnerCommissionRate: '4.5',
      maxOverridePartnerCommissionRate: '8.5',
    });
    // ACH keeps the ACH rate.
    expect(one(line({ cardProcessingFeeOverride: '3.5' }), demo, 7)).toMatchObject({ cardFeeRate: '0', achFeeRate: '0.8' });
    expect(one(line({ cardProcessingFeeOverride: '0', payFee: true }))).toMatchObject({ paymentAmountCents: 10_530, cardFeeAmountCents: 0 });
  });

  it('keeps the caller reference of a line', () => {
    expect(one(line({ externalLineId: 'L-1' })).externalLineId).toBe('L-1');
  });
});

describe('grossUp', () => {
  const r = (t: string) => parsePercent(t)!;
  it('is the smallest amount that nets the target', () => {
    expect(grossUp(10_530n, r('2.9'), null)).toBe(10_844n);
    expect(grossUp(0n, r('2.9'), null)).toBe(0n);
    expect(grossUp(1n, r('2.9'), null)).toBe(1n); // fee on 0.01 rounds to 0
    expect(grossUp(500n, r('0'), null)).toBe(500n);
  });
  it('takes the cap when it is cheaper', () => {
    expect(grossUp(100_000n, r('0.8'), 500n)).toBe(100_500n);
    expect(grossUp(100_000n, r('0.8'), 0n)).toBe(100_000n);
  });
  it('stays exact for rates near 100 %', () => {
    const rate = r('99.9999');
    const p = grossUp(1_000n, rate, null);
    const fee = (x: bigint) => BigInt(percentOf(Number(x), rate));
    expect(p - fee(p)).toBeGreaterThanOrEqual(1_000n);
    expect(p - 1n - fee(p - 1n)).toBeLessThan(1_000n);
  });
});

describe('limits', () => {
  it('refuses a covered amount beyond the largest amount with a calculation error for that line', () => {
    const huge = line({ amountCents: 999_999_999_999, payFee: true });
    expect(() => quoteFees({ lines: [line(), huge], schedules: new Map([[1, demo]]) })).toThrow(FeeCalculationError);
    try {
      quoteFees({ lines: [line(), huge], schedules: new Map([[1, demo]]) });
    } catch (e) {
      expect((e as FeeCalculationError).lineIndex).toBe(1);
    }
  });
  it('refuses a line total beyond the largest amount', () => {
    expect(() => one(line({ amountCents: 999_999_999_999, tipCents: 1 }))).toThrow(/exceeds 9999999999.99/);
  });
  it('handles the largest amount without the payer covering fees', () => {
    const b = one(line({ amountCents: 999_999_999_999 }));
    expect(b.cardFeeAmountCents).toBe(29_000_000_000); // 28,999,999,999.971 cents
    expect(b.platformCommissionAmountCents).toBe(10_000_000_000);
  });
  it('allows a covered amount of exactly the largest amount, and refuses one cent more', () => {
    // Card rate overridden to 0 and no commission: the covered amount is Amount + 0.30, exactly.
    const noRate: FeeSchedule = { ...zeroCommission, groupId: 1 };
    const atMax = line({ amountCents: 999_999_999_969, payFee: true, cardProcessingFeeOverride: '0' });
    expect(one(atMax, noRate).paymentAmountCents).toBe(999_999_999_999);
    expect(() => one({ ...atMax, amountCents: 999_999_999_970 }, noRate)).toThrow(FeeCalculationError);
  });
  it.each(['100', '100.5'])('refuses a schedule card fee rate of %s (rates are below 100)', (rate) => {
    expect(() => quoteLine({ ...demo, cardFeeRate: rate }, line(), { chargesFlatFees: true })).toThrow(/card fee rate "100(\.5)?" is not a percentage from 0 to below 100/);
    expect(quoteLine({ ...demo, cardFeeRate: '99.999999' }, line(), { chargesFlatFees: true }).cardFeeRate).toBe('99.999999');
  });
  it('refuses a CardProcessingFeeOverride of 100 with a calculation error', () => {
    expect(() => one(line({ cardProcessingFeeOverride: '100' }))).toThrow(FeeCalculationError);
    expect(() => one(line({ cardProcessingFeeOverride: '100' }))).toThrow(/below 100/);
    expect(one(line({ cardProcessingFeeOverride: '99.9999' })).cardFeeRate).toBe('99.9999');
  });
  it('refuses a schedule whose platform rate exceeds its maximum', () => {
    expect(() => quoteLine({ ...demo, platformCommissionRate: '6' }, line(), { chargesFlatFees: true })).toThrow(/exceeds the maximum/);
  });
});

describe('percent arithmetic', () => {
  it('parses and prints rates exactly', () => {
    expect(formatPercent(parsePercent('2.90')!)).toBe('2.9');
    expect(formatPercent(parsePercent('0.0001')!)).toBe('0.0001');
    expect(formatPercent(parsePercent('-1.5')!)).toBe('-1.5');
    expect(parsePercent('1.0000001')).toBeUndefined();
    expect(parsePercent('1e2')).toBeUndefined();
  });
  it.each([
    ['0.000001', 1n],
    ['2.5000000', 2_500_000n],
    ['2.9', 2_900_000n],
    ['100', 100_000_000n],
  ])('parsePercent(%j) is %s millionths of a percent', (text, units) => {
    expect(parsePercent(text)).toBe(units);
  });
  it.each(['2.', '.5', '', ' 2', '+2', '0.0000001'])('parsePercent(%j) is not a percentage', (text) => {
    expect(parsePercent(text)).toBeUndefined();
  });
  it('rounds half away from zero', () => {
    expect(percentOf(50, parsePercent('1')!)).toBe(1); // 0.5 cent
    expect(percentOf(49, parsePercent('1')!)).toBe(0);
    expect(percentOf(5_650, parsePercent('1')!)).toBe(57);
  });
});
