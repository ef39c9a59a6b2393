import { type CalendarDate, parseCalendarDate } from '../../domain/billing-dates.ts';
import { profileDateRangeViolations } from '../../domain/billing-profile.ts';
import { type Cents, MAX_CENTS } from '../../domain/money.ts';
import { Rule, type RuleName, type RuleViolation } from '../../domain/rules.ts';
import { GUID } from '../../platform/ids.ts';
import { ValidationError } from '../../platform/errors.ts';

/**
 * The rules of a profile's terms that need nothing stored: amounts, dates, the event GUID. Fields
 * are the service's (camelCase); each edge says them in its own words.
 */

/** A violation of `field`, its message beginning with the field. */
export const bad = (code: RuleName, field: string, message: string): RuleViolation => ({ code, field, message: `{${field}} ${message}.` });

/** The amounts and the event GUID of the terms given (create: all; update: those sent). */
export function termViolations(terms: {
  amountCents?: Cents;
  preFeeAmountCents?: Cents;
  surchargeCents?: Cents;
  externalEventGuid?: string;
}): RuleViolation[] {
  const violations: RuleViolation[] = [];
  const positive = (field: string, cents: Cents | undefined) => {
    if (cents === undefined) return;
    if (!Number.isInteger(cents) || cents <= 0) violations.push(bad(Rule.OutOfRange, field, 'must be greater than 0'));
    else if (cents > MAX_CENTS) violations.push(bad(Rule.OutOfRange, field, 'must be at most 9999999999.99'));
  };
  positive('amountCents', terms.amountCents);
  positive('preFeeAmountCents', terms.preFeeAmountCents);
  if (terms.surchargeCents !== undefined && (!Number.isInteger(terms.surchargeCents) || terms.surchargeCents < 0)) {
    violations.push(bad(Rule.OutOfRange, 'surchargeCents', 'must not be negative'));
  }
  if (terms.amountCents !== undefined && terms.preFeeAmountCents !== undefined && terms.preFeeAmountCents > terms.amountCents) {
    violations.push(bad(Rule.RecurringPreFeeAboveAmount, 'preFeeAmountCents', 'must not be more than Amount'));
  }
  if (terms.externalEventGuid !== undefined && terms.externalEventGuid.trim() !== '' && !GUID.test(terms.externalEventGuid.trim())) {
    violations.push(bad(Rule.InvalidFormat, 'externalEventGuid', 'must be a GUID'));
  }
  return violations;
}

/** The form and the range (PROFILE_DATE_MIN to PROFILE_DATE_MAX) of each date given. */
export function dateFormViolations(input: { startDate?: CalendarDate; endDate?: CalendarDate; nextBillDate?: CalendarDate }): RuleViolation[] {
  const violations: RuleViolation[] = [];
  const inRange: Record<string, CalendarDate> = {};
  for (const [field, value] of [['startDate', input.startDate], ['endDate', input.endDate], ['nextBillDate', input.nextBillDate]] as const) {
    if (value === undefined) continue;
    if (!parseCalendarDate(value).ok) violations.push(bad(Rule.InvalidFormat, field, 'must be a date in the form yyyy-MM-dd'));
    else inRange[field] = value;
  }
  violations.push(...profileDateRangeViolations(inRange));
  return violations;
}

/**
 * Date arithmetic that would leave the calendar (RangeError: a year past 9999) is the client's
 * date out of range, not a server error. The range checks keep profiles far from that edge; this
 * is the backstop.
 */
export function withinCalendar<T>(field: string, compute: () => T): T {
  try {
    return compute();
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    throw new ValidationError([bad(Rule.OutOfRange, field, 'is out of range: its schedule would leave the calendar')]);
  }
}
