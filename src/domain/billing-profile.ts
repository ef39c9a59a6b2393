import { type BillingSchedule, type CalendarDate, addDays, nextBillDate } from './billing-dates.ts';
import { Rule, type RuleViolation } from './rules.ts';

/**
 * The rules of a recurring profile's life (docs/decisions.md, "Recurring billing"): its states,
 * the rules its dates obey, and where a charge's outcome takes it. Pure: the service and the
 * billing worker read and write the rows; this decides.
 *
 * - active: billed on its schedule.
 * - suspended: the charge of a bill date and all its retries failed; not billed until the partner
 *   sets a new NextBillDate (PUT).
 * - completed: the next bill date would fall after EndDate; not billed. A PUT that moves EndDate
 *   (or NextBillDate) so that a bill date is left makes it active again.
 * - cancelled: DELETE; final. Kept with its payments for history.
 */
export type ProfileStatus = 'active' | 'suspended' | 'completed' | 'cancelled';
export const PROFILE_STATUSES: readonly ProfileStatus[] = ['active', 'suspended', 'completed', 'cancelled'];

/** Days after the bill date on which a declined charge is tried again; after the last, the profile is suspended. */
export const DEFAULT_RETRY_DAYS: readonly number[] = [1, 3, 7];

export interface ProfileDates {
  startDate: CalendarDate;
  endDate: CalendarDate | null;
  nextBillDate: CalendarDate;
}

/**
 * The dates a profile's StartDate, EndDate and NextBillDate may take. A profile's schedule is
 * computed from them (and bill dates follow EndDate by at most a year), so far-off dates would
 * only reach the calendar's end (year 9999) or make a schedule of hundreds of thousands of steps.
 */
export const PROFILE_DATE_MIN: CalendarDate = '1900-01-01';
export const PROFILE_DATE_MAX: CalendarDate = '2199-12-31';

/** OutOfRange for each given date outside [PROFILE_DATE_MIN, PROFILE_DATE_MAX], naming its field (the key). Dates are valid `yyyy-MM-dd`. */
export function profileDateRangeViolations(dates: Record<string, CalendarDate | null | undefined>): RuleViolation[] {
  const v: RuleViolation[] = [];
  for (const [field, date] of Object.entries(dates)) {
    if (date === undefined || date === null) continue;
    if (date < PROFILE_DATE_MIN || date > PROFILE_DATE_MAX) {
      v.push({ code: Rule.OutOfRange, field, message: `{${field}} must be from ${PROFILE_DATE_MIN} to ${PROFILE_DATE_MAX}.` });
    }
  }
  return v;
}

/**
 * The date rules of a profile's terms (fields `startDate`, `endDate`, `nextBillDate`): EndDate after StartDate; NextBillDate after
 * StartDate, and, when the partner sent it, not in the past (`today`) and not after EndDate (a
 * profile made to never bill is a mistake). A computed NextBillDate after EndDate means the
 * schedule leaves no bill date before the end, which `create` refuses too (`requireBillDate`);
 * an update that moves EndDate before the next bill date ends the profile instead
 * (`statusAfterUpdate`).
 */
export function profileDateViolations(
  dates: ProfileDates,
  today: CalendarDate,
  options: { nextBillDateGiven: boolean; requireBillDate: boolean },
): RuleViolation[] {
  const v: RuleViolation[] = [];
  const endOk = dates.endDate === null || dates.endDate > dates.startDate;
  if (!endOk) {
    v.push({ code: Rule.RecurringEndDateNotAfterStart, field: 'endDate', message: '{endDate} must be after {startDate}.' });
  }
  if (dates.nextBillDate <= dates.startDate) {
    v.push({ code: Rule.RecurringNextBillDateNotAfterStart, field: 'nextBillDate', message: '{nextBillDate} must be after {startDate}.' });
  } else if (options.nextBillDateGiven && dates.nextBillDate < today) {
    v.push({ code: Rule.RecurringNextBillDateInPast, field: 'nextBillDate', message: `{nextBillDate} must not be in the past (today is ${today}).` });
  } else if (endOk && isPastEnd(dates.nextBillDate, dates.endDate)) {
    if (options.nextBillDateGiven) {
      v.push({ code: Rule.RecurringNextBillDateAfterEnd, field: 'nextBillDate', message: '{nextBillDate} must not be after {endDate}.' });
    } else if (options.requireBillDate) {
      v.push({
        code: Rule.RecurringNextBillDateAfterEnd,
        field: 'endDate',
        message: `{endDate} leaves no bill date: the first one would be ${dates.nextBillDate}.`,
      });
    }
  }
  return v;
}

/** Where a profile stands in its billing: the bill date being worked on and the attempts at it. */
export interface BillingPosition {
  schedule: BillingSchedule;
  endDate: CalendarDate | null;
  /** The bill date being charged. */
  nextBillDate: CalendarDate;
  /** Failed attempts at `nextBillDate` so far. */
  failedAttempts: number;
}

export interface PositionChange {
  status: 'active' | 'suspended' | 'completed';
  nextBillDate: CalendarDate;
  /** When the worker next tries: the bill date, a retry day, or (not active) unchanged. */
  nextAttemptOn: CalendarDate;
  failedAttempts: number;
}

/**
 * After the charge of `nextBillDate` was approved: on to the following bill date by the anchored
 * rule, or completed when that date is after EndDate. Failures are forgotten. Bill dates that
 * passed meanwhile (a retry, a worker that did not run) are due at once: each bill date is
 * charged once, none is skipped.
 */
export function afterApproval(position: BillingPosition): PositionChange {
  const following = nextBillDate(position.nextBillDate, position.schedule);
  const status = position.endDate !== null && following > position.endDate ? 'completed' : 'active';
  return { status, nextBillDate: following, nextAttemptOn: following, failedAttempts: 0 };
}

/**
 * After a charge of `nextBillDate` failed on `asOf`: tried again `retryDays[n]` days after the
 * bill date (never again on the same day), or suspended after the last retry failed.
 */
export function afterDecline(position: BillingPosition, asOf: CalendarDate, retryDays: readonly number[]): PositionChange {
  const failed = position.failedAttempts + 1;
  if (failed > retryDays.length) {
    return { status: 'suspended', nextBillDate: position.nextBillDate, nextAttemptOn: position.nextBillDate, failedAttempts: failed };
  }
  const retryOn = addDays(position.nextBillDate, retryDays[failed - 1]!);
  const tomorrow = addDays(asOf, 1);
  return { status: 'active', nextBillDate: position.nextBillDate, nextAttemptOn: retryOn > tomorrow ? retryOn : tomorrow, failedAttempts: failed };
}

/** A profile whose bill date lies after its EndDate has nothing left to bill. */
export function isPastEnd(nextBill: CalendarDate, endDate: CalendarDate | null): boolean {
  return endDate !== null && nextBill > endDate;
}

/**
 * The state after a partner's update: a new NextBillDate resumes a suspended profile; a
 * completed or active profile is active exactly when its next bill date is within EndDate.
 * Cancelled profiles are never updated (the service refuses first).
 */
export function statusAfterUpdate(current: ProfileStatus, next: { nextBillDate: CalendarDate; endDate: CalendarDate | null; nextBillDateGiven: boolean }): ProfileStatus {
  if (current === 'cancelled') return current;
  if (current === 'suspended' && !next.nextBillDateGiven) return current;
  return isPastEnd(next.nextBillDate, next.endDate) ? 'completed' : 'active';
}

/** Parses a retry schedule like `1,3,7`: increasing whole days, 1 to 365, at most 10 of them. */
export function parseRetryDays(text: string): number[] | undefined {
  const trimmed = text.trim();
  if (trimmed === '' || trimmed.toLowerCase() === 'none') return [];
  const parts = trimmed.split(',').map((p) => p.trim());
  if (parts.length > 10 || !parts.every((p) => /^\d{1,3}$/.test(p))) return undefined;
  const days = parts.map(Number);
  for (let i = 0; i < days.length; i++) {
    if (days[i]! < 1 || days[i]! > 365 || (i > 0 && days[i]! <= days[i - 1]!)) return undefined;
  }
  return days;
}
