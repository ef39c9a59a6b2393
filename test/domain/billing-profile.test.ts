import { describe, expect, it } from 'vitest';
import {
  type BillingPosition,
  afterApproval,
  afterDecline,
  isPastEnd,
  parseRetryDays,
  profileDateRangeViolations,
  profileDateViolations,
  statusAfterUpdate,
} from '../../src/domain/billing-profile.ts';
import { asApiWire } from '../helpers/wire-violations.ts';

const monthly31 = (nextBillDate: string, failedAttempts = 0, endDate: string | null = null): BillingPosition => ({
  schedule: { frequency: 'Monthly', anchorDay: 31 },
  endDate,
  nextBillDate,
  failedAttempts,
});

describe('a charge moves the profile', () => {
  it('on approval: to the next anchored bill date, failures forgotten', () => {
    expect(afterApproval(monthly31('2027-01-31', 2))).toEqual({ status: 'active', nextBillDate: '2027-02-28', nextAttemptOn: '2027-02-28', failedAttempts: 0 });
    expect(afterApproval(monthly31('2027-02-28'))).toMatchObject({ nextBillDate: '2027-03-31' });
  });

  it('on approval: completed when the next bill date is after EndDate; a bill date on EndDate is still billed', () => {
    expect(afterApproval(monthly31('2027-03-31', 0, '2027-04-29'))).toMatchObject({ status: 'completed', nextBillDate: '2027-04-30' });
    expect(afterApproval(monthly31('2027-03-31', 0, '2027-04-30'))).toMatchObject({ status: 'active', nextBillDate: '2027-04-30' });
  });

  it('on decline: retried 1, 3 and 7 days after the bill date, then suspended', () => {
    const days = [1, 3, 7];
    expect(afterDecline(monthly31('2027-01-31', 0), '2027-01-31', days)).toEqual({ status: 'active', nextBillDate: '2027-01-31', nextAttemptOn: '2027-02-01', failedAttempts: 1 });
    expect(afterDecline(monthly31('2027-01-31', 1), '2027-02-01', days)).toMatchObject({ status: 'active', nextAttemptOn: '2027-02-03', failedAttempts: 2 });
    expect(afterDecline(monthly31('2027-01-31', 2), '2027-02-03', days)).toMatchObject({ status: 'active', nextAttemptOn: '2027-02-07', failedAttempts: 3 });
    expect(afterDecline(monthly31('2027-01-31', 3), '2027-02-07', days)).toMatchObject({ status: 'suspended', nextBillDate: '2027-01-31', failedAttempts: 4 });
  });

  it('on decline: never tries again on the same day, even when a retry day has passed (a late run)', () => {
    expect(afterDecline(monthly31('2027-01-31', 0), '2027-02-20', [1, 3, 7])).toMatchObject({ nextAttemptOn: '2027-02-21', failedAttempts: 1 });
  });

  it('on decline with no retries configured: suspended at once', () => {
    expect(afterDecline(monthly31('2027-01-31', 0), '2027-01-31', [])).toMatchObject({ status: 'suspended', failedAttempts: 1 });
  });
});

describe('profile date rules', () => {
  it('keeps every date of a profile from 1900-01-01 to 2199-12-31, naming each field out of range', () => {
    expect(profileDateRangeViolations({ startDate: '1900-01-01', endDate: '2199-12-31', nextBillDate: undefined })).toEqual([]);
    expect(asApiWire(profileDateRangeViolations({ startDate: '0001-01-01', endDate: '9999-12-31', nextBillDate: '2200-01-01' }))).toEqual(
      ['StartDate', 'EndDate', 'NextBillDate'].map((field) => ({ code: 1005, field, message: `'${field}' must be from 1900-01-01 to 2199-12-31.` })),
    );
    expect(profileDateRangeViolations({ startDate: '1899-12-31', endDate: null })).toHaveLength(1);
  });

  const today = '2026-11-21';
  const rules = (dates: { startDate: string; endDate: string | null; nextBillDate: string }, given = true, requireBillDate = true) =>
    asApiWire(profileDateViolations(dates, today, { nextBillDateGiven: given, requireBillDate })).map((v) => [v.code, v.field]);

  it('accepts a consistent profile', () => {
    expect(rules({ startDate: '2026-11-21', endDate: '2027-11-21', nextBillDate: '2026-12-21' })).toEqual([]);
    expect(rules({ startDate: '2026-11-20', endDate: null, nextBillDate: '2026-11-21' })).toEqual([]);
  });

  it('refuses EndDate not after StartDate, and NextBillDate not after StartDate', () => {
    expect(rules({ startDate: '2026-12-01', endDate: '2026-12-01', nextBillDate: '2027-01-01' })).toEqual([[5001, 'EndDate']]);
    expect(rules({ startDate: '2026-12-01', endDate: null, nextBillDate: '2026-12-01' })).toEqual([[5002, 'NextBillDate']]);
  });

  it('refuses a NextBillDate in the past, or after EndDate', () => {
    expect(rules({ startDate: '2026-01-01', endDate: null, nextBillDate: '2026-11-20' })).toEqual([[5003, 'NextBillDate']]);
    expect(rules({ startDate: '2026-11-21', endDate: '2026-12-01', nextBillDate: '2026-12-21' })).toEqual([[5004, 'NextBillDate']]);
  });

  it('does not call a computed NextBillDate (not sent by the partner) in the past', () => {
    expect(rules({ startDate: '2026-01-01', endDate: null, nextBillDate: '2026-11-20' }, false)).toEqual([]);
    expect(rules({ startDate: '2026-01-01', endDate: null, nextBillDate: '2026-11-20' }, false, false)).toEqual([]);
  });

  it('bills a NextBillDate on EndDate itself', () => {
    expect(isPastEnd('2026-12-21', '2026-12-21')).toBe(false);
    expect(isPastEnd('2026-12-22', '2026-12-21')).toBe(true);
    expect(isPastEnd('9999-12-31', null)).toBe(false);
    expect(rules({ startDate: '2026-11-21', endDate: '2026-12-21', nextBillDate: '2026-12-21' })).toEqual([]);
    expect(rules({ startDate: '2026-11-21', endDate: '2026-12-21', nextBillDate: '2026-12-21' }, false, true)).toEqual([]);
  });

  it('refuses a computed first bill date after EndDate on create, and lets an update end the profile instead', () => {
    expect(rules({ startDate: '2026-11-21', endDate: '2026-12-01', nextBillDate: '2026-12-21' }, false, true)).toEqual([[5004, 'EndDate']]);
    expect(rules({ startDate: '2026-11-21', endDate: '2026-12-01', nextBillDate: '2026-12-21' }, false, false)).toEqual([]);
  });
});

describe('state after an update', () => {
  it('resumes a suspended profile only with a new NextBillDate', () => {
    expect(statusAfterUpdate('suspended', { nextBillDate: '2027-01-01', endDate: null, nextBillDateGiven: false })).toBe('suspended');
    expect(statusAfterUpdate('suspended', { nextBillDate: '2027-01-01', endDate: null, nextBillDateGiven: true })).toBe('active');
  });

  it('completes a profile whose next bill date falls after a new EndDate, and reopens it when EndDate moves later', () => {
    expect(statusAfterUpdate('active', { nextBillDate: '2027-01-01', endDate: '2026-12-31', nextBillDateGiven: false })).toBe('completed');
    expect(statusAfterUpdate('completed', { nextBillDate: '2027-01-01', endDate: '2027-06-30', nextBillDateGiven: false })).toBe('active');
    expect(statusAfterUpdate('cancelled', { nextBillDate: '2027-01-01', endDate: null, nextBillDateGiven: true })).toBe('cancelled');
  });
});

describe('retry schedule setting', () => {
  it('reads increasing whole days, or none', () => {
    expect(parseRetryDays('1,3,7')).toEqual([1, 3, 7]);
    expect(parseRetryDays(' 2, 5 ')).toEqual([2, 5]);
    expect(parseRetryDays('none')).toEqual([]);
    for (const bad of ['3,1', '1,1', '0', '1;3', 'x', '400']) expect(parseRetryDays(bad), bad).toBeUndefined();
  });
  it('takes at most 10 retries, each at most 365 days after the bill date', () => {
    const ten = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(parseRetryDays(ten.join(','))).toEqual(ten);
    expect(parseRetryDays([...ten, 11].join(','))).toBeUndefined();
    expect(parseRetryDays('1,365')).toEqual([1, 365]);
    expect(parseRetryDays('365')).toEqual([365]);
    expect(parseRetryDays('366')).toBeUndefined();
    expect(parseRetryDays('1,366')).toBeUndefined();
  });
});
