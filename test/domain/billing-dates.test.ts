import { describe, expect, it } from 'vitest';
import {
  BILLING_FREQUENCIES,
  type BillingFrequency,
  billDatesAfter,
  daysInMonth,
  firstBillDateOnOrAfter,
  fromEpochDay,
  nextBillDate,
  parseBillingFrequency,
  parseCalendarDate,
  toEpochDay,
} from '../../src/domain/billing-dates.ts';

const on = (frequency: BillingFrequency, anchorDay: number) => ({ frequency, anchorDay });

describe('next bill date: anchors and clamping', () => {
  it('keeps a monthly schedule anchored on the 31st, clamping to short months', () => {
    expect(billDatesAfter('2027-01-31', on('Monthly', 31), 6)).toEqual(['2027-02-28', '2027-03-31', '2027-04-30', '2027-05-31', '2027-06-30', '2027-07-31']);
    // Leap year: February 29.
    expect(billDatesAfter('2028-01-31', on('Monthly', 31), 2)).toEqual(['2028-02-29', '2028-03-31']);
  });

  it('bills a Feb 29 anchor on Feb 28 in common years and Feb 29 in leap years', () => {
    expect(billDatesAfter('2028-02-29', on('Annually', 29), 5)).toEqual(['2029-02-28', '2030-02-28', '2031-02-28', '2032-02-29', '2033-02-28']);
    expect(billDatesAfter('2028-02-29', on('Monthly', 29), 2)).toEqual(['2028-03-29', '2028-04-29']);
  });

  it('steps every month-based frequency by its number of months on the anchor day', () => {
    expect(nextBillDate('2026-08-31', on('Monthly', 31))).toBe('2026-09-30');
    expect(nextBillDate('2026-08-31', on('Bi-Monthly', 31))).toBe('2026-10-31');
    expect(nextBillDate('2026-11-30', on('Quarterly', 30))).toBe('2027-02-28');
    expect(nextBillDate('2027-02-28', on('Quarterly', 30))).toBe('2027-05-30');
    expect(nextBillDate('2026-08-31', on('Semi-Annually', 31))).toBe('2027-02-28');
    expect(nextBillDate('2026-11-21', on('Annually', 21))).toBe('2027-11-21');
    expect(nextBillDate('2026-12-15', on('Monthly', 15))).toBe('2027-01-15');
  });

  it('adds days for day-based frequencies, across months and years', () => {
    expect(nextBillDate('2026-12-31', on('Daily', 31))).toBe('2027-01-01');
    expect(nextBillDate('2026-12-28', on('Weekly', 28))).toBe('2027-01-04');
    expect(nextBillDate('2028-02-20', on('Bi-Weekly', 20))).toBe('2028-03-05');
  });

  it('bills Semi-Monthly on a and a + 15, one of them the anchor day', () => {
    expect(billDatesAfter('2026-01-03', on('Semi-Monthly', 3), 4)).toEqual(['2026-01-18', '2026-02-03', '2026-02-18', '2026-03-03']);
    expect(billDatesAfter('2026-01-20', on('Semi-Monthly', 20), 4)).toEqual(['2026-02-05', '2026-02-20', '2026-03-05', '2026-03-20']);
    // On the 30th: the 15th and the 30th, clamped in February.
    expect(billDatesAfter('2026-01-30', on('Semi-Monthly', 30), 5)).toEqual(['2026-02-15', '2026-02-28', '2026-03-15', '2026-03-30', '2026-04-15']);
    expect(billDatesAfter('2028-01-30', on('Semi-Monthly', 30), 2)).toEqual(['2028-02-15', '2028-02-29']);
    // On the 31st: the 16th and the last day (never the 1st: that billed Jan 31, then Feb 1).
    expect(billDatesAfter('2026-01-31', on('Semi-Monthly', 31), 5)).toEqual(['2026-02-16', '2026-02-28', '2026-03-16', '2026-03-31', '2026-04-16']);
    expect(billDatesAfter('2027-12-31', on('Semi-Monthly', 31), 2)).toEqual(['2028-01-16', '2028-01-31']);
    // On the 16th: the 1st and the 16th.
    expect(billDatesAfter('2026-01-16', on('Semi-Monthly', 16), 3)).toEqual(['2026-02-01', '2026-02-16', '2026-03-01']);
  });

  it('gives every frequency its exact number of bill dates in a year', () => {
    const expected: Record<BillingFrequency, number> = {
      Daily: 365,
      Weekly: 52,
      'Bi-Weekly': 26,
      Monthly: 12,
      'Bi-Monthly': 6,
      'Semi-Monthly': 24,
      Quarterly: 4,
      'Semi-Annually': 2,
      Annually: 1,
    };
    for (const frequency of BILLING_FREQUENCIES) {
      // A year of bills from 2026-01-01 (2027 is a common year): the dates after Dec 31, 2026 up to Dec 31, 2027.
      const dates: string[] = [];
      let d = '2026-12-31';
      for (;;) {
        d = nextBillDate(d, on(frequency, 31));
        if (d > '2027-12-31') break;
        dates.push(d);
      }
      expect(dates.length, frequency).toBe(expected[frequency]);
      expect(new Set(dates).size, `${frequency} has no repeated date`).toBe(dates.length);
    }
  });

  it('starts a profile on the first bill date after its start that is not in the past', () => {
    expect(firstBillDateOnOrAfter('2026-11-21', on('Monthly', 21), '2026-11-21')).toBe('2026-12-21');
    expect(firstBillDateOnOrAfter('2026-01-31', on('Monthly', 31), '2026-11-21')).toBe('2026-11-30');
    expect(firstBillDateOnOrAfter('2026-10-21', on('Monthly', 21), '2026-11-21')).toBe('2026-11-21');
  });

  it('computes the first bill date from a start long ago instead of stepping to it', () => {
    expect(firstBillDateOnOrAfter('1900-01-01', on('Daily', 1), '2026-11-21')).toBe('2026-11-21');
    expect(firstBillDateOnOrAfter('1900-01-01', on('Weekly', 1), '2026-11-21')).toBe('2026-11-23');
    expect(firstBillDateOnOrAfter('1900-01-01', on('Bi-Weekly', 1), '2026-11-21')).toBe('2026-11-30');
    expect(firstBillDateOnOrAfter('1900-01-31', on('Monthly', 31), '2026-11-21')).toBe('2026-11-30');
    expect(firstBillDateOnOrAfter('1900-01-31', on('Monthly', 31), '2026-12-01')).toBe('2026-12-31');
    expect(firstBillDateOnOrAfter('1900-02-28', on('Bi-Monthly', 28), '2026-11-21')).toBe('2026-12-28');
    expect(firstBillDateOnOrAfter('1900-03-15', on('Quarterly', 15), '2026-11-21')).toBe('2026-12-15');
    expect(firstBillDateOnOrAfter('1900-02-28', on('Annually', 29), '2026-11-21')).toBe('2027-02-28');
    expect(firstBillDateOnOrAfter('1900-02-28', on('Annually', 29), '2028-01-01')).toBe('2028-02-29');
    expect(firstBillDateOnOrAfter('1900-01-31', on('Semi-Monthly', 31), '2026-11-21')).toBe('2026-11-30');
    expect(firstBillDateOnOrAfter('1900-01-31', on('Semi-Monthly', 31), '2026-11-16')).toBe('2026-11-16');
    expect(firstBillDateOnOrAfter('1900-01-31', on('Semi-Monthly', 31), '2026-12-01')).toBe('2026-12-16');
    expect(firstBillDateOnOrAfter('1900-01-30', on('Semi-Monthly', 30), '2026-02-16')).toBe('2026-02-28');
    // The whole calendar: stepped, this was 3.6 million steps (seconds of blocked event loop).
    const t = performance.now();
    expect(firstBillDateOnOrAfter('0001-01-01', on('Daily', 1), '9999-12-31')).toBe('9999-12-31');
    expect(firstBillDateOnOrAfter('0001-01-01', on('Semi-Monthly', 1), '9999-12-02')).toBe('9999-12-16');
    expect(firstBillDateOnOrAfter('0001-01-31', on('Monthly', 31), '9999-12-02')).toBe('9999-12-31');
    expect(performance.now() - t).toBeLessThan(250);
  });

  it('throws RangeError when the first bill date would be after 9999-12-31', () => {
    expect(() => firstBillDateOnOrAfter('9999-12-31', on('Daily', 31), '9999-12-31')).toThrow(RangeError);
    expect(() => firstBillDateOnOrAfter('2199-06-30', on('Annually', 30), '9999-12-31')).toThrow(RangeError);
  });
});

describe('frequencies and dates', () => {
  it('matches frequency names case-insensitively and nothing else', () => {
    expect(parseBillingFrequency('monthly')).toBe('Monthly');
    expect(parseBillingFrequency('SEMI-ANNUALLY')).toBe('Semi-Annually');
    expect(parseBillingFrequency(' bi-weekly ')).toBe('Bi-Weekly');
    expect(parseBillingFrequency('BiWeekly')).toBeUndefined();
    expect(parseBillingFrequency('Fortnightly')).toBeUndefined();
  });

  it('tells malformed dates from impossible ones', () => {
    expect(parseCalendarDate('2026-11-21')).toMatchObject({ ok: true, date: '2026-11-21' });
    expect(parseCalendarDate('2028-02-29')).toMatchObject({ ok: true });
    for (const text of ['2026-11-1', '21/11/2026', '2026-11-21T00:00:00', '', 'tomorrow']) {
      expect(parseCalendarDate(text), text).toEqual({ ok: false, problem: 'malformed' });
    }
    for (const text of ['2027-02-29', '2026-02-30', '2026-04-31', '2026-09-31', '2026-06-31', '2026-11-31', '2026-13-01', '2026-00-10', '2026-01-00', '0000-01-01']) {
      expect(parseCalendarDate(text), text).toEqual({ ok: false, problem: 'impossible' });
    }
  });

  it('converts calendar dates to day numbers and back', () => {
    expect(toEpochDay({ year: 1970, month: 1, day: 1 })).toBe(0);
    expect(toEpochDay({ year: 2000, month: 3, day: 1 })).toBe(11_017);
    for (const day of [-800_000, -1, 0, 59, 11_016, 20_000, 2_900_000]) {
      expect(toEpochDay(fromEpochDay(day))).toBe(day);
    }
    expect(daysInMonth(1900, 2)).toBe(28);
    expect(daysInMonth(2000, 2)).toBe(29);
  });
});
