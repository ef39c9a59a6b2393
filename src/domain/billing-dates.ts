/**
 * Calendar arithmetic of recurring billing: billing frequencies, and the next bill date of a
 * schedule. Pure: no clock, no time zone. A bill date is a calendar date written `yyyy-MM-dd`.
 *
 * Month steps (Monthly, Bi-Monthly, Quarterly, Semi-Annually, Annually) keep the schedule's
 * anchor day and clamp it to the last day of a shorter month: anchored on the 31st, a monthly
 * schedule bills Jan 31, Feb 28 (29), Mar 31, Apr 30. Semi-Monthly bills on two anchor days 15
 * apart, `a` and `a + 15`, one of them the anchor day itself: `a` is the anchor day up to the 15th,
 * and the anchor day minus 15 from the 16th (the 31st bills on the 16th and the last day). The
 * second day is clamped likewise.
 * Day steps (Daily, Weekly, Bi-Weekly) add 1, 7 or 14 days.
 */

/** A calendar date, `yyyy-MM-dd`. */
export type CalendarDate = string;

export const BILLING_FREQUENCIES = [
  'Daily',
  'Weekly',
  'Bi-Weekly',
  'Monthly',
  'Bi-Monthly',
  'Semi-Monthly',
  'Quarterly',
  'Semi-Annually',
  'Annually',
] as const;

export type BillingFrequency = (typeof BILLING_FREQUENCIES)[number];

type Step = { kind: 'days'; days: number } | { kind: 'months'; months: number } | { kind: 'semi-monthly' };

const STEPS: Record<BillingFrequency, Step> = {
  Daily: { kind: 'days', days: 1 },
  Weekly: { kind: 'days', days: 7 },
  'Bi-Weekly': { kind: 'days', days: 14 },
  Monthly: { kind: 'months', months: 1 },
  'Bi-Monthly': { kind: 'months', months: 2 },
  'Semi-Monthly': { kind: 'semi-monthly' },
  Quarterly: { kind: 'months', months: 3 },
  'Semi-Annually': { kind: 'months', months: 6 },
  Annually: { kind: 'months', months: 12 },
};

const BY_LOWER_NAME = new Map(BILLING_FREQUENCIES.map((f) => [f.toLowerCase(), f]));

/** The frequency a name means, matched case-insensitively (`monthly`, `BI-WEEKLY`); undefined for any other name. */
export function parseBillingFrequency(name: string): BillingFrequency | undefined {
  return BY_LOWER_NAME.get(name.trim().toLowerCase());
}

/** The step of a frequency, for callers that reason about it (tests, reports). */
export function frequencyStep(frequency: BillingFrequency): Step {
  return STEPS[frequency];
}

export interface Ymd {
  year: number;
  /** 1-12 */
  month: number;
  /** 1-31 */
  day: number;
}

export const MIN_YEAR = 1;
export const MAX_YEAR = 9999;

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * Reads `yyyy-MM-dd`. `malformed` when the text is not in that form, `impossible` when it is but
 * names no day of the calendar (2026-02-30, 2026-13-01, 0000-01-01).
 */
export function parseCalendarDate(text: string): { ok: true; date: CalendarDate; ymd: Ymd } | { ok: false; problem: 'malformed' | 'impossible' } {
  const m = DATE.exec(text.trim());
  if (!m) return { ok: false, problem: 'malformed' };
  const ymd = { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) };
  if (ymd.year < MIN_YEAR || ymd.month < 1 || ymd.month > 12 || ymd.day < 1 || ymd.day > daysInMonth(ymd.year, ymd.month)) {
    return { ok: false, problem: 'impossible' };
  }
  return { ok: true, date: formatYmd(ymd), ymd };
}

/** A date known to be valid (from the database or this module), as its parts. */
export function toYmd(date: CalendarDate): Ymd {
  const parsed = parseCalendarDate(date);
  if (!parsed.ok) throw new RangeError(`not a calendar date: ${date}`);
  return parsed.ymd;
}

export function formatYmd({ year, month, day }: Ymd): CalendarDate {
  if (year > MAX_YEAR) throw new RangeError(`year ${year} is beyond ${MAX_YEAR}`);
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (integer arithmetic, valid for every year). */
export function toEpochDay({ year, month, day }: Ymd): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (month + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

export function fromEpochDay(epochDay: number): Ymd {
  const z = epochDay + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

export function addDays(date: CalendarDate, days: number): CalendarDate {
  return formatYmd(fromEpochDay(toEpochDay(toYmd(date)) + days));
}

/** Negative, zero or positive as `a` is before, equal to or after `b` (the text order is the calendar order). */
export function compareDates(a: CalendarDate, b: CalendarDate): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The calendar date of an instant in UTC. */
export function utcDate(instant: Date): CalendarDate {
  return instant.toISOString().slice(0, 10);
}

/**
 * The first of the two semi-monthly days (1-16) of an anchor day (1-31): the anchor day is always
 * one of the two, so a schedule started on its anchor day never bills again the next day
 * (`((day - 1) mod 15) + 1` would give the 31st the 1st and the 16th: Jan 31, then Feb 1).
 */
export function semiMonthlyFirstDay(anchorDay: number): number {
  return anchorDay > 15 ? anchorDay - 15 : anchorDay;
}

/** A schedule: how often, and on which day of the month month-based steps land. */
export interface BillingSchedule {
  frequency: BillingFrequency;
  /** 1-31: the day month steps keep (clamped to shorter months). Unused by day steps. */
  anchorDay: number;
}

/**
 * The bill date that follows `date` on `schedule`: the first billing date after it.
 * Month steps count from `date`'s month and land on the anchor day, clamped; Semi-Monthly takes
 * the first of its two (clamped) days of the month after `date`.
 */
export function nextBillDate(date: CalendarDate, schedule: BillingSchedule): CalendarDate {
  const ymd = toYmd(date);
  const step = STEPS[schedule.frequency];
  switch (step.kind) {
    case 'days':
      return formatYmd(fromEpochDay(toEpochDay(ymd) + step.days));
    case 'months':
      return onAnchor(addMonths(ymd.year, ymd.month, step.months), schedule.anchorDay);
    case 'semi-monthly': {
      const first = semiMonthlyFirstDay(schedule.anchorDay);
      const second = Math.min(first + 15, daysInMonth(ymd.year, ymd.month));
      if (ymd.day < first) return formatYmd({ ...ymd, day: first });
      if (ymd.day < second) return formatYmd({ ...ymd, day: second });
      return onAnchor(addMonths(ymd.year, ymd.month, 1), first);
    }
  }
}

/** The `count` bill dates after `date`, in order (for previews and tests). */
export function billDatesAfter(date: CalendarDate, schedule: BillingSchedule, count: number): CalendarDate[] {
  const dates: CalendarDate[] = [];
  let d = date;
  for (let i = 0; i < count; i++) {
    d = nextBillDate(d, schedule);
    dates.push(d);
  }
  return dates;
}

/**
 * The first bill date of the schedule after `start` that is not before `notBefore` (today): a
 * profile whose start lies in the past is not billed for the dates that have already passed.
 * Computed, not stepped: the work is the same for a start a century back as for yesterday.
 * - Day steps: the k-th bill date is `start + k * days`.
 * - Month steps: the k-th is on the anchor day (clamped) of the month `k * months` after start's.
 * - Semi-Monthly: the bill dates are the schedule's two days of every month, so the first one on
 *   or after `notBefore` is the one that follows the day before it.
 */
export function firstBillDateOnOrAfter(start: CalendarDate, schedule: BillingSchedule, notBefore: CalendarDate): CalendarDate {
  const first = nextBillDate(start, schedule);
  if (first >= notBefore) return first;
  const from = toYmd(start);
  const step = STEPS[schedule.frequency];
  switch (step.kind) {
    case 'days': {
      const gap = toEpochDay(toYmd(notBefore)) - toEpochDay(from);
      return formatYmd(fromEpochDay(toEpochDay(from) + Math.ceil(gap / step.days) * step.days));
    }
    case 'months': {
      const until = toYmd(notBefore);
      const months = until.year * 12 + until.month - (from.year * 12 + from.month);
      // Step k lands in a month before notBefore's for every k below this one; at most one step more.
      let k = Math.max(1, Math.floor(months / step.months));
      let d = onAnchor(addMonths(from.year, from.month, k * step.months), schedule.anchorDay);
      while (d < notBefore) {
        k++;
        d = onAnchor(addMonths(from.year, from.month, k * step.months), schedule.anchorDay);
      }
      return d;
    }
    case 'semi-monthly':
      // notBefore is after `first`, itself after start: the day before it is a valid date.
      return nextBillDate(addDays(notBefore, -1), schedule);
  }
}

function addMonths(year: number, month: number, months: number): { year: number; month: number } {
  const index = year * 12 + (month - 1) + months;
  return { year: Math.floor(index / 12), month: (index % 12) + 1 };
}

function onAnchor(ym: { year: number; month: number }, anchorDay: number): CalendarDate {
  return formatYmd({ ...ym, day: Math.min(anchorDay, daysInMonth(ym.year, ym.month)) });
}
