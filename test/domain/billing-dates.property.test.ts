import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BILLING_FREQUENCIES,
  type BillingFrequency,
  daysInMonth,
  firstBillDateOnOrAfter,
  formatYmd,
  fromEpochDay,
  frequencyStep,
  nextBillDate,
  semiMonthlyFirstDay,
  toEpochDay,
  toYmd,
} from '../../src/domain/billing-dates.ts';

/**
 * Properties of the schedule arithmetic over random anchors and ten years of steps. The oracles
 * are independent of the stepping: day counts by division, month positions by month index.
 */

const RUNS = 200;

/** A start date between 1900 and 2400: both kinds of century years, leap days. */
const startDate = fc.integer({ min: toEpochDay({ year: 1900, month: 1, day: 1 }), max: toEpochDay({ year: 2400, month: 12, day: 31 }) }).map((d) => formatYmd(fromEpochDay(d)));
const frequency = fc.constantFrom(...BILLING_FREQUENCIES);

/** The schedule as the endpoint and a profile make it: anchored on the start date's day. */
function tenYears(start: string, f: BillingFrequency): string[] {
  const schedule = { frequency: f, anchorDay: toYmd(start).day };
  const endYear = toYmd(start).year + 10;
  const dates = [start];
  for (;;) {
    const next = nextBillDate(dates[dates.length - 1]!, schedule);
    if (toYmd(next).year > endYear) break;
    dates.push(next);
  }
  return dates;
}

const monthIndex = (date: string) => toYmd(date).year * 12 + toYmd(date).month - 1;

describe('bill date properties (10 years of steps from random anchors)', () => {
  it('strictly increase, for any date and anchor', () => {
    fc.assert(
      fc.property(startDate, frequency, fc.integer({ min: 1, max: 31 }), (date, f, anchorDay) => {
        expect(nextBillDate(date, { frequency: f, anchorDay }) > date).toBe(true);
      }),
      { numRuns: RUNS * 3 },
    );
    fc.assert(
      fc.property(startDate, frequency, (start, f) => {
        const dates = tenYears(start, f);
        for (let i = 1; i < dates.length; i++) expect(dates[i]! > dates[i - 1]!).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('never skip a month: month steps move exactly their number of months', () => {
    fc.assert(
      fc.property(startDate, fc.constantFrom<BillingFrequency>('Monthly', 'Bi-Monthly', 'Quarterly', 'Semi-Annually', 'Annually'), (start, f) => {
        const step = frequencyStep(f);
        const months = step.kind === 'months' ? step.months : 0;
        const dates = tenYears(start, f);
        for (let i = 1; i < dates.length; i++) expect(monthIndex(dates[i]!) - monthIndex(dates[i - 1]!)).toBe(months);
      }),
      { numRuns: RUNS },
    );
    fc.assert(
      fc.property(startDate, (start) => {
        // Semi-Monthly: two dates in every month, none skipped.
        const dates = tenYears(start, 'Semi-Monthly').slice(1);
        const perMonth = new Map<number, number>();
        for (const d of dates) perMonth.set(monthIndex(d), (perMonth.get(monthIndex(d)) ?? 0) + 1);
        const months = [...perMonth.keys()].sort((a, b) => a - b);
        for (let i = 1; i < months.length; i++) expect(months[i]! - months[i - 1]!).toBe(1);
        for (const m of months.slice(1, -1)) expect(perMonth.get(m)).toBe(2);
        // Never two charges days apart, the first from the start date itself included: at least
        // 12 days between bills (Feb 16 to Feb 28 on the 31st), at most 16.
        const all = tenYears(start, 'Semi-Monthly');
        for (let i = 1; i < all.length; i++) {
          const gap = toEpochDay(toYmd(all[i]!)) - toEpochDay(toYmd(all[i - 1]!));
          expect(gap).toBeGreaterThanOrEqual(12);
          expect(gap).toBeLessThanOrEqual(16);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('never drift from the anchor day except by clamping to the end of the month', () => {
    fc.assert(
      fc.property(startDate, frequency, (start, f) => {
        const anchor = toYmd(start).day;
        const step = frequencyStep(f);
        const dates = tenYears(start, f).slice(1);
        for (const d of dates) {
          const { year, month, day } = toYmd(d);
          const last = daysInMonth(year, month);
          if (step.kind === 'months') expect(day).toBe(Math.min(anchor, last));
          if (step.kind === 'semi-monthly') {
            const a = semiMonthlyFirstDay(anchor);
            expect([a, Math.min(a + 15, last)]).toContain(day);
            // The anchor day is one of the two: a schedule started on it stays on it.
            expect([a, a + 15]).toContain(anchor);
          }
          if (step.kind === 'days') {
            const gap = toEpochDay(toYmd(d)) - toEpochDay(toYmd(start));
            expect(gap % step.days).toBe(0);
          }
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('give the exact number of bill dates in every full calendar year', () => {
    fc.assert(
      fc.property(startDate, frequency, (start, f) => {
        const step = frequencyStep(f);
        const dates = tenYears(start, f);
        const first = toYmd(start).year + 1;
        const s = toEpochDay(toYmd(start));
        const perYear = new Map<number, number>();
        for (const d of dates) perYear.set(Number(d.slice(0, 4)), (perYear.get(Number(d.slice(0, 4))) ?? 0) + 1);
        for (let year = first; year < first + 9; year++) {
          const inYear = perYear.get(year) ?? 0;
          let expected: number;
          if (step.kind === 'months') expected = 12 / step.months;
          else if (step.kind === 'semi-monthly') expected = 24;
          else {
            // Days s + k*n that fall within the year, counted by division.
            const from = toEpochDay({ year, month: 1, day: 1 }) - s;
            const to = toEpochDay({ year, month: 12, day: 31 }) - s;
            expected = Math.floor(to / step.days) - Math.ceil(from / step.days) + 1;
          }
          expect(inYear, `${f} in ${year} from ${start}`).toBe(expected);
        }
      }),
      { numRuns: RUNS },
    );
  });
});

describe('the first bill date not in the past', () => {
  it('is the one stepping from the start reaches, for any start, anchor and today', () => {
    /** The definition, stepped one bill date at a time. */
    const stepped = (start: string, schedule: { frequency: BillingFrequency; anchorDay: number }, notBefore: string) => {
      let d = nextBillDate(start, schedule);
      while (d < notBefore) d = nextBillDate(d, schedule);
      return d;
    };
    fc.assert(
      fc.property(startDate, frequency, fc.integer({ min: 1, max: 31 }), fc.integer({ min: -40, max: 6 * 366 }), (start, f, anchorDay, offset) => {
        const schedule = { frequency: f, anchorDay };
        const today = formatYmd(fromEpochDay(toEpochDay(toYmd(start)) + offset));
        expect(firstBillDateOnOrAfter(start, schedule, today), `${f} anchored on ${anchorDay} from ${start}, today ${today}`).toBe(stepped(start, schedule, today));
      }),
      { numRuns: RUNS * 5 },
    );
  });
});
