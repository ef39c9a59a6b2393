import { parseAmount } from '../../domain/money.ts';
import { Rule, type RuleViolation } from '../../domain/rules.ts';
import { GUID } from '../../platform/ids.ts';
import { type FieldType, PAYMENT_DATE_FIELD, type ReportField, reportField } from './report-fields.ts';

/**
 * A report request's Filters, SortColumns and paging, checked once into criteria the repository
 * turns into SQL. Pure: values are parsed here (dates into UTC day bounds, amounts into cents),
 * so the repository only binds them. docs/decisions.md, "Transaction reports".
 */

/** Filter operations by number (7 = After is the original's; the others are ours). */
export const Operation = {
  Equals: 0,
  NotEquals: 1,
  Contains: 2,
  StartsWith: 3,
  EndsWith: 4,
  GreaterThan: 5,
  LessThan: 6,
  After: 7,
  Before: 8,
  GreaterThanOrEqual: 9,
  LessThanOrEqual: 10,
  Between: 11,
  In: 12,
  NotIn: 13,
  IsNull: 14,
  IsNotNull: 15,
  OnOrAfter: 16,
  OnOrBefore: 17,
} as const;
export type OperationName = keyof typeof Operation;
export type OperationValue = (typeof Operation)[OperationName];

export const OPERATION_NAMES: Readonly<Record<number, OperationName>> = Object.fromEntries(Object.entries(Operation).map(([n, v]) => [v, n as OperationName]));
export const OPERATION_VALUES: readonly number[] = Object.values(Operation);

const COMPARISONS: OperationName[] = ['Equals', 'NotEquals', 'GreaterThan', 'LessThan', 'GreaterThanOrEqual', 'LessThanOrEqual', 'Between', 'In', 'NotIn'];
const DAY_COMPARISONS: OperationName[] = ['Equals', 'NotEquals', 'After', 'Before', 'OnOrAfter', 'OnOrBefore', 'GreaterThan', 'LessThan', 'GreaterThanOrEqual', 'LessThanOrEqual', 'Between'];
const NULL_TESTS: OperationName[] = ['IsNull', 'IsNotNull'];

/** The operations each type of field takes. */
export const OPERATIONS_BY_TYPE: Readonly<Record<FieldType, readonly OperationName[]>> = {
  integer: [...COMPARISONS, ...NULL_TESTS],
  amount: [...COMPARISONS, ...NULL_TESTS],
  datetime: [...DAY_COMPARISONS, ...NULL_TESTS],
  date: [...DAY_COMPARISONS, ...NULL_TESTS],
  text: ['Equals', 'NotEquals', 'Contains', 'StartsWith', 'EndsWith', 'In', 'NotIn', ...NULL_TESTS],
  guid: ['Equals', 'NotEquals', 'In', 'NotIn', ...NULL_TESTS],
  enum: ['Equals', 'NotEquals', 'In', 'NotIn', ...NULL_TESTS],
};

/** A value as bound to SQL: cents and whole numbers as numbers, instants as ISO text, days as yyyy-MM-dd. */
export type BoundValue = number | string;

/**
 * What a filter keeps, in SQL terms. `range` bounds are inclusive unless said; `negate` keeps
 * what the condition does not, rows without a value included ("not equal to X" keeps the
 * payments that have no value at all, as a partner reading it expects).
 */
export type Condition =
  | { kind: 'range'; lower?: { value: BoundValue; inclusive: boolean }; upper?: { value: BoundValue; inclusive: boolean }; negate: boolean }
  | { kind: 'in'; values: BoundValue[]; negate: boolean }
  | { kind: 'text'; match: 'contains' | 'startsWith' | 'endsWith'; text: string }
  | { kind: 'null'; negate: boolean };

export interface ReportFilter {
  field: ReportField;
  condition: Condition;
}

export interface ReportSort {
  field: ReportField;
  descending: boolean;
}

export interface ReportCriteria {
  filters: ReportFilter[];
  /** Never empty: PaymentDate descending when none is asked for. PaymentId breaks ties (repository). */
  sort: ReportSort[];
}

export interface ReportPaging {
  /** From 1. */
  pageIndex: number;
  pageSize: number;
}

/** What a request says, as its edge read it (JSON types already checked). */
export interface ReportRequestInput {
  filters?: { name?: string; operation?: number; values?: string[] }[];
  sortColumns?: { name?: string; descending?: boolean; order?: number }[];
}

export const MAX_PAGE_SIZE = 1000;
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_SORT_COLUMNS = 10;
export const MAX_FILTER_VALUE_LENGTH = 200;
/**
 * Filter values of one request, all filters together: a hundred filters of a hundred values each
 * made a page cost about 115 µs a payment of the partner's, minutes for a million.
 */
export const MAX_FILTER_VALUES = 1_000;

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const INTEGER = /^\d{1,10}$/;
const INT32_MAX = 2_147_483_647;

/** yyyy-MM-dd of the calendar, or undefined. */
function calendarDay(text: string): Date | undefined {
  const m = DAY.exec(text);
  if (!m) return undefined;
  // Not Date.UTC, which reads the years 0-99 as 1900-1999.
  const day = new Date(0);
  day.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return day.toISOString().slice(0, 10) === text && Number(m[1]) >= 1 ? day : undefined;
}

const nextDay = (day: Date) => new Date(day.getTime() + 86_400_000);

/** One value of a field, as bound; or the message of what is wrong with it. */
type Parsed = { value: BoundValue } | { problem: string };

function parseValue(field: ReportField, raw: string, path: string): Parsed {
  const text = raw.trim();
  switch (field.type) {
    case 'integer': {
      const n = INTEGER.test(text) ? Number(text) : Number.NaN;
      return Number.isInteger(n) && n <= INT32_MAX ? { value: n } : { problem: `{${path}} must be a whole number from 0 to ${INT32_MAX} for ${field.name}.` };
    }
    case 'amount': {
      const cents = parseAmount(text);
      return cents === undefined ? { problem: `{${path}} must be an amount with at most two decimals (108.44) for ${field.name}.` } : { value: cents };
    }
    case 'datetime':
    case 'date':
      return calendarDay(text) ? { value: text } : { problem: `{${path}} must be a date of the calendar in the form yyyy-MM-dd for ${field.name}.` };
    case 'guid':
      return GUID.test(text) ? { value: text.toLowerCase() } : { problem: `{${path}} must be a GUID for ${field.name}.` };
    case 'enum': {
      const value = field.enum!.byName.get(text.toLowerCase());
      return value === undefined ? { problem: `{${path}} is not a value of ${field.name}: give one of ${[...new Set(field.enum!.byName.values())].map((v) => field.enum!.nameOf(v)).join(', ')}.` } : { value };
    }
    case 'text':
      if (raw.length > MAX_FILTER_VALUE_LENGTH) return { problem: `{${path}} must be at most ${MAX_FILTER_VALUE_LENGTH} characters.` };
      // Text is compared as given: a TranId or a name may begin or end with a space.
      return { value: raw };
  }
}

/**
 * The bounds of a day filter: instants (UTC midnight, ISO) for datetime fields, days for date
 * fields. The end of 9999-12-31 is in year 10000, which JavaScript writes +010000 and PostgreSQL
 * reads as 10000.
 */
function dayBound(field: ReportField, day: string, after: boolean): BoundValue {
  const start = calendarDay(day)!;
  const at = (after ? nextDay(start) : start).toISOString().replace(/^\+0*/, '');
  return field.type === 'datetime' ? at : at.slice(0, at.indexOf('T'));
}

/** The condition of an operation on already-parsed values (their count checked). */
function conditionOf(field: ReportField, operation: OperationName, values: BoundValue[], raws: string[]): Condition {
  const days = field.type === 'datetime' || field.type === 'date';
  const inclusive = (value: BoundValue) => ({ value, inclusive: true });
  const exclusive = (value: BoundValue) => ({ value, inclusive: false });
  if (days) {
    // A day is [its midnight, the next midnight): every comparison is one of whole days of UTC.
    const start = (i: number) => inclusive(dayBound(field, raws[i]!.trim(), false));
    const end = (i: number) => exclusive(dayBound(field, raws[i]!.trim(), true));
    switch (operation) {
      case 'Equals':
        return { kind: 'range', lower: start(0), upper: end(0), negate: false };
      case 'NotEquals':
        return { kind: 'range', lower: start(0), upper: end(0), negate: true };
      case 'After':
      case 'GreaterThan':
        return { kind: 'range', lower: { value: dayBound(field, raws[0]!.trim(), true), inclusive: true }, negate: false };
      case 'OnOrAfter':
      case 'GreaterThanOrEqual':
        return { kind: 'range', lower: start(0), negate: false };
      case 'Before':
      case 'LessThan':
        return { kind: 'range', upper: exclusive(dayBound(field, raws[0]!.trim(), false)), negate: false };
      case 'OnOrBefore':
      case 'LessThanOrEqual':
        return { kind: 'range', upper: end(0), negate: false };
      case 'Between':
        return { kind: 'range', lower: start(0), upper: end(1), negate: false };
      default:
        break;
    }
  }
  switch (operation) {
    case 'Equals':
    case 'In':
      return { kind: 'in', values, negate: false };
    case 'NotEquals':
    case 'NotIn':
      return { kind: 'in', values, negate: true };
    case 'GreaterThan':
      return { kind: 'range', lower: exclusive(values[0]!), negate: false };
    case 'GreaterThanOrEqual':
      return { kind: 'range', lower: inclusive(values[0]!), negate: false };
    case 'LessThan':
      return { kind: 'range', upper: exclusive(values[0]!), negate: false };
    case 'LessThanOrEqual':
      return { kind: 'range', upper: inclusive(values[0]!), negate: false };
    case 'Between':
      return { kind: 'range', lower: inclusive(values[0]!), upper: inclusive(values[1]!), negate: false };
    case 'Contains':
      return { kind: 'text', match: 'contains', text: String(values[0]) };
    case 'StartsWith':
      return { kind: 'text', match: 'startsWith', text: String(values[0]) };
    case 'EndsWith':
      return { kind: 'text', match: 'endsWith', text: String(values[0]) };
    case 'IsNull':
      return { kind: 'null', negate: false };
    case 'IsNotNull':
      return { kind: 'null', negate: true };
    default:
      throw new Error(`no condition for ${operation} on ${field.type}`);
  }
}

/** How many values an operation takes: [least, most]. */
function valueCount(operation: OperationName): [number, number] {
  if (operation === 'IsNull' || operation === 'IsNotNull') return [0, 0];
  if (operation === 'Between') return [2, 2];
  if (operation === 'In' || operation === 'NotIn') return [1, 100];
  return [1, 1];
}

const TYPE_WORDS: Readonly<Record<FieldType, string>> = {
  integer: 'a whole number',
  amount: 'an amount',
  datetime: 'a date',
  date: 'a date',
  text: 'text',
  guid: 'a GUID',
  enum: 'a list of values',
};

function readFilter(input: NonNullable<ReportRequestInput['filters']>[number], i: number, violations: RuleViolation[]): ReportFilter | undefined {
  const at = `filters[${i}]`;
  const name = input.name?.trim() ?? '';
  if (name === '') {
    violations.push({ code: Rule.Required, field: `${at}.name`, message: `{${at}.name} is required.` });
    return undefined;
  }
  const field = reportField(name);
  if (!field) {
    violations.push({ code: Rule.ReportFieldUnknown, field: `${at}.name`, message: `{${at}.name} names no field of the report: '${name.slice(0, 100)}'.` });
    return undefined;
  }
  if (input.operation === undefined) {
    violations.push({ code: Rule.Required, field: `${at}.operation`, message: `{${at}.operation} is required.` });
    return undefined;
  }
  const operation = OPERATION_NAMES[input.operation];
  if (!operation) {
    violations.push({ code: Rule.InvalidValue, field: `${at}.operation`, message: `{${at}.operation} is not an operation: give one of ${OPERATION_VALUES.join(', ')}.` });
    return undefined;
  }
  const allowed = OPERATIONS_BY_TYPE[field.type];
  if (!allowed.includes(operation)) {
    const list = allowed.map((o) => `${Operation[o]} ${o}`).join(', ');
    violations.push({
      code: Rule.ReportOperationNotForField,
      field: `${at}.operation`,
      message: `{${at}.operation} ${input.operation} (${operation}) does not apply to ${field.name}, ${TYPE_WORDS[field.type]}: it takes ${list}.`,
    });
    return undefined;
  }
  const raws = input.values ?? [];
  const [least, most] = valueCount(operation);
  if (raws.length < least || raws.length > most) {
    const wanted = most === 0 ? 'no value' : least === most ? `${least === 1 ? 'one value' : `${least} values`}` : `${least} to ${most} values`;
    violations.push({ code: Rule.ReportFilterValueInvalid, field: `${at}.values`, message: `{${at}.values} must hold ${wanted} for ${operation}; it holds ${raws.length}.` });
    return undefined;
  }
  const values: BoundValue[] = [];
  for (const [j, raw] of raws.entries()) {
    const parsed = parseValue(field, raw, `${at}.values[${j}]`);
    if ('problem' in parsed) {
      violations.push({ code: Rule.ReportFilterValueInvalid, field: `${at}.values[${j}]`, message: parsed.problem });
      return undefined;
    }
    values.push(parsed.value);
  }
  if (operation === 'Between' && compare(values[0]!, values[1]!) > 0) {
    violations.push({ code: Rule.ReportFilterValueInvalid, field: `${at}.values`, message: `{${at}.values} must give the lower bound of Between first.` });
    return undefined;
  }
  return { field, condition: conditionOf(field, operation, values, raws) };
}

/** Bound values of one field compare as numbers or as text (yyyy-MM-dd sorts as text). */
const compare = (a: BoundValue, b: BoundValue) => (typeof a === 'number' && typeof b === 'number' ? a - b : String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0);

function readSort(input: NonNullable<ReportRequestInput['sortColumns']>, violations: RuleViolation[]): ReportSort[] {
  if (input.length === 0) return [{ field: PAYMENT_DATE_FIELD, descending: true }];
  if (input.length > MAX_SORT_COLUMNS) {
    violations.push({ code: Rule.OutOfRange, field: 'sortColumns', message: `{sortColumns} may name at most ${MAX_SORT_COLUMNS} columns.` });
    return [];
  }
  const columns: { field: ReportField; descending: boolean; order: number; i: number }[] = [];
  const seenFields = new Set<string>();
  const seenOrders = new Set<number>();
  for (const [i, column] of input.entries()) {
    const at = `sortColumns[${i}]`;
    const name = column.name?.trim() ?? '';
    if (name === '') {
      violations.push({ code: Rule.Required, field: `${at}.name`, message: `{${at}.name} is required.` });
      continue;
    }
    const field = reportField(name);
    if (!field) {
      violations.push({ code: Rule.ReportFieldUnknown, field: `${at}.name`, message: `{${at}.name} names no field of the report: '${name.slice(0, 100)}'.` });
      continue;
    }
    if (seenFields.has(field.key)) {
      violations.push({ code: Rule.ReportSortInvalid, field: `${at}.name`, message: `{${at}.name} sorts by ${field.name} a second time.` });
      continue;
    }
    seenFields.add(field.key);
    if (column.order === undefined && input.length > 1) {
      violations.push({ code: Rule.Required, field: `${at}.order`, message: `{${at}.order} is required when several columns are sorted by.` });
      continue;
    }
    if (column.order !== undefined && seenOrders.has(column.order)) {
      violations.push({ code: Rule.ReportSortInvalid, field: `${at}.order`, message: `{${at}.order} ${column.order} is given to another column too.` });
      continue;
    }
    if (column.order !== undefined) seenOrders.add(column.order);
    columns.push({ field, descending: column.descending === true, order: column.order ?? 0, i });
  }
  return columns.sort((a, b) => a.order - b.order || a.i - b.i).map(({ field, descending }) => ({ field, descending }));
}

/** The request's criteria, or every violation found (one per field). */
export function readCriteria(input: ReportRequestInput): { criteria: ReportCriteria; violations: [] } | { criteria?: undefined; violations: RuleViolation[] } {
  const violations: RuleViolation[] = [];
  const filters: ReportFilter[] = [];
  const valueCount = (input.filters ?? []).reduce((n, f) => n + (f.values?.length ?? 0), 0);
  if (valueCount > MAX_FILTER_VALUES) {
    violations.push({ code: Rule.OutOfRange, field: 'filters', message: `{filters} may hold at most ${MAX_FILTER_VALUES} values in all (${valueCount} given).` });
    return { violations };
  }
  for (const [i, filter] of (input.filters ?? []).entries()) {
    const read = readFilter(filter, i, violations);
    if (read) filters.push(read);
  }
  const sort = readSort(input.sortColumns ?? [], violations);
  if (violations.length > 0) return { violations };
  return { criteria: { filters, sort }, violations: [] };
}
