import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OPERATIONS_BY_TYPE, Operation, type OperationName, readCriteria } from '../../../src/modules/reports/report-criteria.ts';
import { REPORT_FIELDS } from '../../../src/modules/reports/report-fields.ts';

const one = (name: string, operation: number, ...values: string[]) => readCriteria({ filters: [{ name, operation, values }] });
const conditionOf = (name: string, operation: number, ...values: string[]) => {
  const read = one(name, operation, ...values);
  expect(read.violations).toEqual([]);
  return read.criteria!.filters[0]!.condition;
};
const violationOf = (name: string, operation: number, ...values: string[]) => {
  const read = one(name, operation, ...values);
  expect(read.violations).toHaveLength(1);
  return read.violations[0]!;
};

/** A value of the right kind for each type, so only the operation decides. */
const SAMPLE: Record<string, string> = {
  integer: '5',
  amount: '10.50',
  datetime: '2026-01-01',
  date: '2026-01-01',
  text: 'abc',
  guid: '6f1c1e0e-1b5b-4c3e-9a51-2d1f0f0b9a11',
};
const sampleOf = (field: (typeof REPORT_FIELDS)[number]) => (field.type === 'enum' ? String([...field.enum!.byName.values()][0]) : SAMPLE[field.type]!);
const valuesFor = (operation: OperationName, sample: string) =>
  operation === 'IsNull' || operation === 'IsNotNull' ? [] : operation === 'Between' ? [sample, sample] : [sample];

describe('filter operations by field type', () => {
  const cases = REPORT_FIELDS.flatMap((field) => (Object.keys(Operation) as OperationName[]).map((op) => [field.name, op, OPERATIONS_BY_TYPE[field.type].includes(op)] as const));

  it.each(cases)('%s %s: allowed %s', (name, op, allowed) => {
    const field = REPORT_FIELDS.find((f) => f.name === name)!;
    const read = one(name, Operation[op], ...valuesFor(op, sampleOf(field)));
    if (allowed) expect(read.violations).toEqual([]);
    else expect(read.violations).toEqual([expect.objectContaining({ code: 'ReportOperationNotForField', field: 'filters[0].operation' })]);
  });

  it('says which operations the field takes', () => {
    expect(violationOf('Amount', Operation.Contains, 'x').message).toBe(
      '{filters[0].operation} 2 (Contains) does not apply to Amount, an amount: it takes 0 Equals, 1 NotEquals, 5 GreaterThan, 6 LessThan, 9 GreaterThanOrEqual, 10 LessThanOrEqual, 11 Between, 12 In, 13 NotIn, 14 IsNull, 15 IsNotNull.',
    );
  });

  it('keeps 7 as After', () => {
    expect(Operation.After).toBe(7);
  });

  it('refuses a number that is no operation', () => {
    expect(violationOf('Amount', 99, '1')).toMatchObject({ code: 'InvalidValue', field: 'filters[0].operation' });
  });
});

describe('dates are whole days of UTC', () => {
  const at = (iso: string) => ({ value: iso, inclusive: true });
  it.each([
    ['After', Operation.After, ['2026-01-01'], { lower: at('2026-01-02T00:00:00.000Z') }],
    ['GreaterThan (as After)', Operation.GreaterThan, ['2026-01-01'], { lower: at('2026-01-02T00:00:00.000Z') }],
    ['OnOrAfter', Operation.OnOrAfter, ['2026-01-01'], { lower: at('2026-01-01T00:00:00.000Z') }],
    ['Before', Operation.Before, ['2026-01-01'], { upper: { value: '2026-01-01T00:00:00.000Z', inclusive: false } }],
    ['OnOrBefore', Operation.OnOrBefore, ['2026-12-31'], { upper: { value: '2027-01-01T00:00:00.000Z', inclusive: false } }],
    ['Equals', Operation.Equals, ['2028-02-29'], { lower: at('2028-02-29T00:00:00.000Z'), upper: { value: '2028-03-01T00:00:00.000Z', inclusive: false } }],
    ['Between (both days in)', Operation.Between, ['2026-01-01', '2026-01-31'], { lower: at('2026-01-01T00:00:00.000Z'), upper: { value: '2026-02-01T00:00:00.000Z', inclusive: false } }],
  ])('PaymentDate %s', (_name, op, values, bounds) => {
    expect(conditionOf('PaymentDate', op, ...values)).toEqual({ kind: 'range', negate: false, ...bounds });
  });

  it('NotEquals keeps every other day and the payments without a date', () => {
    expect(conditionOf('SettlementDate', Operation.NotEquals, '2026-01-01')).toMatchObject({ kind: 'range', negate: true });
  });

  it('a date field (BillDate) is bounded by days, not instants', () => {
    expect(conditionOf('BillDate', Operation.After, '2026-01-31')).toEqual({ kind: 'range', lower: { value: '2026-02-01', inclusive: true }, negate: false });
  });

  it('every day of the calendar is one day long (property)', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2199-12-31T00:00:00Z'), noInvalidDate: true }), (d) => {
        const day = d.toISOString().slice(0, 10);
        const c = conditionOf('PaymentDate', Operation.Equals, day);
        if (c.kind !== 'range') throw new Error('not a range');
        expect(Date.parse(String(c.upper!.value)) - Date.parse(String(c.lower!.value))).toBe(86_400_000);
        expect(String(c.lower!.value).slice(0, 10)).toBe(day);
      }),
      { numRuns: 200 },
    );
  });

  it.each(['2026-1-1', '2026-02-30', '01/02/2026', '2026-01-01T00:00:00Z', '', 'today', '0000-01-01'])('refuses %j as a date', (value) => {
    expect(violationOf('PaymentDate', Operation.After, value)).toMatchObject({
      code: 'ReportFilterValueInvalid',
      field: 'filters[0].values[0]',
      message: '{filters[0].values[0]} must be a date of the calendar in the form yyyy-MM-dd for PaymentDate.',
    });
  });
});

describe('values', () => {
  it('reads amounts into cents, exactly', () => {
    expect(conditionOf('TotalAmount', Operation.Between, '0.10', '108.44')).toEqual({ kind: 'range', lower: { value: 10, inclusive: true }, upper: { value: 10844, inclusive: true }, negate: false });
    expect(conditionOf('Amount', Operation.In, '1', '2.5')).toEqual({ kind: 'in', values: [100, 250], negate: false });
  });

  it.each(['1.234', '-5', '1e3', 'abc', '1,000.00'])('refuses %j as an amount', (value) => {
    expect(violationOf('TotalAmount', Operation.GreaterThan, value)).toMatchObject({ code: 'ReportFilterValueInvalid' });
  });

  it.each(['-1', '2147483648', '1.5', 'x'])('refuses %j as a whole number', (value) => {
    expect(violationOf('PaymentId', Operation.Equals, value)).toMatchObject({ code: 'ReportFilterValueInvalid' });
  });

  it('reads enums by number or by name, in any case', () => {
    expect(conditionOf('ProcessStatus', Operation.In, '4', 'refunded', 'AwaitingRefund')).toEqual({ kind: 'in', values: [4, 8, 7], negate: false });
    expect(conditionOf('PaymentMethod', Operation.Equals, 'ach')).toEqual({ kind: 'in', values: ['ach'], negate: false });
    expect(conditionOf('ProcessStatusName', Operation.Equals, 'Settled')).toEqual({ kind: 'in', values: [4], negate: false });
    expect(violationOf('ProcessStatus', Operation.Equals, '3').message).toMatch(/^\{filters\[0\]\.values\[0\]\} is not a value of ProcessStatus: give one of NotProcessed, Authorized, Settled/);
  });

  it('lower-cases GUIDs and refuses other text', () => {
    expect(conditionOf('PaymentGuid', Operation.Equals, '6F1C1E0E-1B5B-4C3E-9A51-2D1F0F0B9A11')).toEqual({ kind: 'in', values: ['6f1c1e0e-1b5b-4c3e-9a51-2d1f0f0b9a11'], negate: false });
    expect(violationOf('OrganizationGuid', Operation.Equals, 'urn:uuid:6f1c1e0e-1b5b-4c3e-9a51-2d1f0f0b9a11')).toMatchObject({ code: 'ReportFilterValueInvalid' });
  });

  it('takes text as given, up to 200 characters', () => {
    expect(conditionOf('FirstName', Operation.Contains, ' Ad%_')).toEqual({ kind: 'text', match: 'contains', text: ' Ad%_' });
    expect(violationOf('FirstName', Operation.Equals, 'x'.repeat(201))).toMatchObject({ code: 'ReportFilterValueInvalid' });
  });

  it.each([
    ['Equals with two values', 'Amount', Operation.Equals, ['1', '2'], 'must hold one value for Equals; it holds 2.'],
    ['Between with one', 'Amount', Operation.Between, ['1'], 'must hold 2 values for Between; it holds 1.'],
    ['IsNull with a value', 'TranId', Operation.IsNull, ['x'], 'must hold no value for IsNull; it holds 1.'],
    ['In with none', 'TranId', Operation.In, [], 'must hold 1 to 100 values for In; it holds 0.'],
  ])('counts the values: %s', (_name, field, op, values, message) => {
    expect(violationOf(field, op, ...values)).toEqual({ code: 'ReportFilterValueInvalid', field: 'filters[0].values', message: `{filters[0].values} ${message}` });
  });

  it('wants the lower bound of Between first', () => {
    expect(violationOf('TotalAmount', Operation.Between, '20', '10')).toMatchObject({ code: 'ReportFilterValueInvalid', field: 'filters[0].values' });
    expect(violationOf('PaymentDate', Operation.Between, '2026-02-01', '2026-01-01')).toMatchObject({ code: 'ReportFilterValueInvalid' });
  });
});

describe('field names', () => {
  it('match in any letter case, and an unknown one is named', () => {
    expect(one('paymentdate', Operation.After, '2026-01-01').violations).toEqual([]);
    expect(violationOf('PaymentDat', Operation.After, '2026-01-01')).toEqual({
      code: 'ReportFieldUnknown',
      field: 'filters[0].name',
      message: "{filters[0].name} names no field of the report: 'PaymentDat'.",
    });
  });

  it('reports every broken filter at once', () => {
    const read = readCriteria({
      filters: [
        { name: 'Nope', operation: 0, values: ['x'] },
        { name: 'Amount', operation: Operation.Contains, values: ['1'] },
        { name: 'PaymentDate', operation: Operation.After, values: ['2026/01/01'] },
        { name: 'TranId', operation: Operation.Equals, values: ['ok'] },
      ],
    });
    expect(read.violations.map((v) => [v.field, v.code])).toEqual([
      ['filters[0].name', 'ReportFieldUnknown'],
      ['filters[1].operation', 'ReportOperationNotForField'],
      ['filters[2].values[0]', 'ReportFilterValueInvalid'],
    ]);
  });
});

describe('sort columns', () => {
  const sortOf = (sortColumns: { name?: string; descending?: boolean; order?: number }[]) => readCriteria({ filters: [], sortColumns });

  it('default to PaymentDate, newest first', () => {
    expect(readCriteria({ filters: [] }).criteria!.sort.map((s) => [s.field.name, s.descending])).toEqual([['PaymentDate', true]]);
  });

  it('follow Order, not the list', () => {
    const read = sortOf([
      { name: 'TotalAmount', descending: true, order: 2 },
      { name: 'lastname', order: 1 },
    ]);
    expect(read.criteria!.sort.map((s) => [s.field.name, s.descending])).toEqual([
      ['LastName', false],
      ['TotalAmount', true],
    ]);
  });

  it('need Order when there are several, once each', () => {
    expect(sortOf([{ name: 'TotalAmount' }, { name: 'LastName', order: 1 }]).violations).toEqual([
      { code: 'Required', field: 'sortColumns[0].order', message: '{sortColumns[0].order} is required when several columns are sorted by.' },
    ]);
    expect(sortOf([{ name: 'TotalAmount', order: 1 }, { name: 'LastName', order: 1 }]).violations).toEqual([
      { code: 'ReportSortInvalid', field: 'sortColumns[1].order', message: '{sortColumns[1].order} 1 is given to another column too.' },
    ]);
  });

  it('name each field once (a name and its number are one field)', () => {
    expect(sortOf([{ name: 'ProcessStatus', order: 0 }, { name: 'ProcessStatusName', order: 1 }]).violations).toEqual([
      expect.objectContaining({ code: 'ReportSortInvalid', field: 'sortColumns[1].name' }),
    ]);
  });

  it('name fields of the row', () => {
    expect(sortOf([{ name: 'CardNum' }]).violations).toEqual([expect.objectContaining({ code: 'ReportFieldUnknown', field: 'sortColumns[0].name' })]);
  });

  it('are at most ten', () => {
    const columns = REPORT_FIELDS.slice(0, 11).map((f, i) => ({ name: f.name, order: i }));
    expect(sortOf(columns).violations).toEqual([expect.objectContaining({ code: 'OutOfRange', field: 'sortColumns' })]);
  });
});
