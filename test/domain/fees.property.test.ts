import Big from 'big.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { feeBreakdownToWire } from '../../src/http/api/fees.ts';
import type { FeeSchedule } from '../../src/domain/fee-schedule.ts';
import { parsePercent, percentOf, percentOfBig } from '../../src/domain/fee-rates.ts';
import { type FeeBreakdown, FeeCalculationError, type FeeLineInput, quoteFees, quoteLine } from '../../src/domain/fees.ts';
import { MAX_CENTS } from '../../src/domain/money.ts';

/**
 * Properties of the fee rules over random contracts, lines and payment methods. The oracle is
 * big.js: every fee the engine computes with its integer arithmetic is recomputed here as
 * `round_half_up(amount * rate / 100)` in decimal.
 */

const RUNS = 400;

/** A percentage with up to 4 decimals, as text, from integer ten-thousandths. */
const rateText = (maxTenThousandths: number) =>
  fc.integer({ min: 0, max: maxTenThousandths }).map((n) => new Big(n).div(10_000).toString());

/** Mostly ordinary rates, sometimes extreme ones (up to 99.9999 %). */
const processingRate = fc.oneof({ arbitrary: rateText(100_000), weight: 4 }, { arbitrary: rateText(999_999), weight: 1 });

const schedule = (groupId: number): fc.Arbitrary<FeeSchedule> =>
  fc
    .record({
      card: processingRate,
      a: fc.integer({ min: 0, max: 300_000 }),
      b: fc.integer({ min: 0, max: 300_000 }),
      perTrans: fc.integer({ min: 0, max: 1_000 }),
      typeFees: fc.dictionary(fc.constantFrom('1', '2', '3', '4', '5', '6'), fc.integer({ min: 0, max: 500 })),
      ach: processingRate,
      achCap: fc.option(fc.integer({ min: 0, max: 5_000 }), { nil: null }),
    })
    .map((r) => ({
      groupId,
      cardFeeRate: r.card,
      platformCommissionRate: new Big(Math.min(r.a, r.b)).div(10_000).toString(),
      maxCommissionRate: new Big(Math.max(r.a, r.b)).div(10_000).toString(),
      perTransFeeCents: r.perTrans,
      cardTypeFeesCents: r.typeFees,
      achFeeRate: r.ach,
      achFeeCapCents: r.achCap,
    }));

const cents = fc.oneof({ arbitrary: fc.integer({ min: 1, max: 100_000 }), weight: 4 }, { arbitrary: fc.integer({ min: 1, max: 99_999_999_999 }), weight: 1 });

const lineOf = (groups: number[]): fc.Arbitrary<FeeLineInput> =>
  fc.record({
    transactionSourceGroupId: fc.constantFrom(...groups),
    amountCents: cents,
    payFee: fc.boolean(),
    commissionRateOverride: fc.option(
      fc.integer({ min: -100_000, max: 1_200_000 }).map((n) => new Big(n).div(10_000).toString()),
      { nil: undefined },
    ),
    cardProcessingFeeOverride: fc.option(processingRate, { nil: undefined }),
    tipCents: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 50_000 })),
    taxCents: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 50_000 })),
  });

const paymentMethod = fc.option(fc.integer({ min: 1, max: 7 }), { nil: undefined });

const payment = fc
  .record({ s1: schedule(1), s2: schedule(2), method: paymentMethod })
  .chain(({ s1, s2, method }) =>
    fc.record({
      schedules: fc.constant(new Map([[1, s1], [2, s2]])),
      method: fc.constant(method),
      lines: fc.array(lineOf([1, 2]), { minLength: 1, maxLength: 5 }),
    }),
  );

// ---- the big.js oracle -------------------------------------------------------------------

const pct = (amount: number | bigint, rate: string) => Number(new Big(String(amount)).times(rate).div(100).round(0, Big.roundHalfUp));

interface Expected {
  isAch: boolean;
  rate: string;
  platformAmount: number;
  partnerAmount: number;
  totalRate: Big;
  flat: number;
  /** The processing fee when the payer is charged `p`. */
  processing(p: number): number;
}

function oracle(s: FeeSchedule, l: FeeLineInput, method: number | undefined, first: boolean): Expected {
  const isAch = method === 7;
  const rate = isAch ? s.achFeeRate : (l.cardProcessingFeeOverride ?? s.cardFeeRate);
  const base = l.amountCents + l.tipCents + l.taxCents;
  const platform = new Big(s.platformCommissionRate);
  const max = new Big(s.maxCommissionRate);
  let total = l.commissionRateOverride === undefined ? max : new Big(l.commissionRateOverride);
  if (total.lt(platform)) total = platform;
  if (total.gt(max)) total = max;
  const cardType = !isAch && method !== undefined ? (s.cardTypeFeesCents[String(method)] ?? 0) : 0;
  return {
    isAch,
    rate,
    platformAmount: pct(base, platform.toString()),
    partnerAmount: pct(base, total.minus(platform).toString()),
    totalRate: total,
    flat: first ? s.perTransFeeCents + cardType : 0,
    processing(p) {
      const fee = pct(p, rate);
      return isAch && s.achFeeCapCents !== null ? Math.min(fee, s.achFeeCapCents) : fee;
    },
  };
}

const WIRE_AMOUNT = /^\d+(\.\d{1,2})?$/;
const AMOUNT_FIELDS = [
  'paymentAmountCents',
  'cardFeeAmountCents',
  'cardTypeFeeAmountCents',
  'totalCommissionAmountCents',
  'partnerCommissionAmountCents',
  'platformCommissionAmountCents',
  'totalFeesCents',
  'perTransFeeCents',
  'tipCents',
  'cardFeeOnFeeAmountCents',
  'taxCents',
  'achFeeAmountCents',
] as const satisfies readonly (keyof FeeBreakdown)[];

/** Quotes, or undefined when the calculation legitimately fails (checked against the oracle). */
function quoteOrOverflow(p: { schedules: Map<number, FeeSchedule>; method: number | undefined; lines: FeeLineInput[] }) {
  try {
    return quoteFees({ lines: p.lines, schedules: p.schedules, paymentMethodTypeId: p.method });
  } catch (err) {
    if (!(err instanceof FeeCalculationError)) throw err;
    const i = err.lineIndex;
    const l = p.lines[i]!;
    const e = oracle(p.schedules.get(l.transactionSourceGroupId)!, l, p.method, i === 0);
    const base = l.amountCents + l.tipCents + l.taxCents;
    // Only when even the largest amount handled could not carry the line and its fees.
    const largestNet = MAX_CENTS - e.platformAmount - e.partnerAmount - e.flat - e.processing(MAX_CENTS);
    expect(base > MAX_CENTS || (l.payFee && largestNet < base)).toBe(true);
    return undefined;
  }
}

describe('fee rules: properties', () => {
  it('every amount is whole cents, non-negative, and at most 2 decimals on the wire', () => {
    fc.assert(
      fc.property(payment, (p) => {
        const q = quoteOrOverflow(p);
        if (!q) return;
        for (const b of q.lines) {
          for (const f of AMOUNT_FIELDS) {
            expect(Number.isSafeInteger(b[f]), f).toBe(true);
            expect(b[f], f).toBeGreaterThanOrEqual(0);
          }
          const wire = feeBreakdownToWire(b) as unknown as Record<string, unknown>;
          for (const [k, v] of Object.entries(wire)) {
            if (k === 'TransactionSourceGroupId') continue;
            expect(typeof v).toBe('number');
            if (!k.endsWith('Rate')) expect(String(v), k).toMatch(WIRE_AMOUNT);
          }
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('TotalFees is the sum of its parts, and the totals the sums of the lines', () => {
    fc.assert(
      fc.property(payment, (p) => {
        const q = quoteOrOverflow(p);
        if (!q) return;
        for (const b of q.lines) {
          expect(b.totalCommissionAmountCents).toBe(b.platformCommissionAmountCents + b.partnerCommissionAmountCents);
          expect(b.totalFeesCents).toBe(
            b.totalCommissionAmountCents + b.cardFeeAmountCents + b.achFeeAmountCents + b.perTransFeeCents + b.cardTypeFeeAmountCents + b.cardFeeOnFeeAmountCents,
          );
        }
        const sum = (f: (b: FeeBreakdown) => number) => q.lines.reduce((a, b) => a + f(b), 0);
        expect(q.totalPaymentCents).toBe(sum((b) => b.paymentAmountCents));
        expect(q.totalFeesCents).toBe(sum((b) => b.totalFeesCents));
        expect(q.totalTaxCents).toBe(sum((b) => b.taxCents));
      }),
      { numRuns: RUNS },
    );
  });

  it('every fee equals round-half-up(amount * rate) computed with big.js', () => {
    fc.assert(
      fc.property(payment, (p) => {
        const q = quoteOrOverflow(p);
        if (!q) return;
        q.lines.forEach((b, i) => {
          const l = p.lines[i]!;
          const e = oracle(p.schedules.get(l.transactionSourceGroupId)!, l, p.method, i === 0);
          const base = l.amountCents + l.tipCents + l.taxCents;
          expect(b.platformCommissionAmountCents).toBe(e.platformAmount);
          expect(b.partnerCommissionAmountCents).toBe(e.partnerAmount);
          expect(b.perTransFeeCents + b.cardTypeFeeAmountCents).toBe(e.flat);
          if (e.isAch) {
            expect(b.cardFeeAmountCents + b.cardFeeOnFeeAmountCents).toBe(0);
            expect(b.achFeeAmountCents).toBe(e.processing(b.paymentAmountCents));
          } else {
            expect(b.achFeeAmountCents).toBe(0);
            expect(b.cardFeeAmountCents).toBe(pct(base, e.rate));
            expect(b.cardFeeAmountCents + b.cardFeeOnFeeAmountCents).toBe(e.processing(b.paymentAmountCents));
          }
          if (!l.payFee) expect(b.paymentAmountCents).toBe(base);
        });
      }),
      { numRuns: RUNS },
    );
  });

  it('with PayFee the net P - TotalFees - Tip covers Amount + Tax, and one cent less P would not', () => {
    fc.assert(
      fc.property(payment, (p) => {
        const q = quoteOrOverflow(p);
        if (!q) return;
        q.lines.forEach((b, i) => {
          const l = p.lines[i]!;
          if (!l.payFee) return;
          const e = oracle(p.schedules.get(l.transactionSourceGroupId)!, l, p.method, i === 0);
          const fixed = e.platformAmount + e.partnerAmount + e.flat;
          const need = l.amountCents + l.taxCents;
          const P = b.paymentAmountCents;
          expect(P - b.totalFeesCents - l.tipCents).toBeGreaterThanOrEqual(need);
          expect(b.totalFeesCents).toBe(fixed + e.processing(P));
          const less = P - 1;
          expect(less - (fixed + e.processing(less)) - l.tipCents).toBeLessThan(need);
        });
      }),
      { numRuns: RUNS },
    );
  });

  it('the commission override is always clamped into [platform, max]', () => {
    fc.assert(
      fc.property(payment, (p) => {
        const q = quoteOrOverflow(p);
        if (!q) return;
        q.lines.forEach((b, i) => {
          const l = p.lines[i]!;
          const s = p.schedules.get(l.transactionSourceGroupId)!;
          const total = new Big(b.totalCommissionRate);
          expect(total.gte(s.platformCommissionRate)).toBe(true);
          expect(total.lte(s.maxCommissionRate)).toBe(true);
          expect(total.eq(oracle(s, l, p.method, i === 0).totalRate)).toBe(true);
          expect(new Big(b.partnerCommissionRate).plus(b.platformCommissionRate).eq(total)).toBe(true);
        });
      }),
      { numRuns: RUNS },
    );
  });

  it('a line does not depend on the order of lines, except for the flat fees of the first', () => {
    const permuted = payment.chain((p) =>
      fc.record({
        p: fc.constant(p),
        order: fc.shuffledSubarray(
          p.lines.map((_, i) => i),
          { minLength: p.lines.length, maxLength: p.lines.length },
        ),
      }),
    );
    fc.assert(
      fc.property(permuted, ({ p, order }) => {
        const a = quoteOrOverflow(p);
        const b = quoteOrOverflow({ ...p, lines: order.map((i) => p.lines[i]!) });
        if (!a || !b) return;
        order.forEach((from, to) => {
          const l = p.lines[from]!;
          const s = p.schedules.get(l.transactionSourceGroupId)!;
          // Each line's breakdown is determined by the line and whether it comes first.
          const expected = (first: boolean) => quoteLine(s, l, { paymentMethodTypeId: p.method, chargesFlatFees: first });
          expect(a.lines[from]).toEqual(expected(from === 0));
          expect(b.lines[to]).toEqual(expected(to === 0));
          if ((from === 0) === (to === 0)) expect(b.lines[to]).toEqual(a.lines[from]);
        });
      }),
      { numRuns: RUNS },
    );
  });

  it('integer percent products equal big.js products far beyond 2^53', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 19n }), rateText(999_999), (amount, rate) => {
        const units = parsePercent(rate)!;
        expect(percentOfBig(amount, units)).toBe(BigInt(new Big(String(amount)).times(rate).div(100).round(0, Big.roundHalfUp).toFixed(0)));
        if (amount <= BigInt(MAX_CENTS) * 3n) expect(percentOf(Number(amount), units)).toBe(pct(amount, rate));
      }),
      { numRuns: 2_000 },
    );
  });
});
