import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkCardNumber,
  checkCvv,
  checkExpiry,
  detectBrand,
  isExpired,
  luhnValid,
  normalizeCardNumber,
  parseMmYy,
  cardBrand,
} from '../../src/domain/cards.ts';

/** Appends the Luhn check digit to a payload of digits. */
function withCheckDigit(payload: string): string {
  for (let d = 0; d <= 9; d++) if (luhnValid(payload + d)) return payload + d;
  throw new Error('unreachable');
}

describe('normalizeCardNumber', () => {
  it('strips spaces and dashes only', () => {
    expect(normalizeCardNumber(' 4242 4242-4242\t4242 ')).toBe('4242424242424242');
    expect(normalizeCardNumber('4242.4242')).toBe('4242.4242');
  });
  it('is idempotent and never leaves a space or dash', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const once = normalizeCardNumber(s);
        expect(normalizeCardNumber(once)).toBe(once);
        expect(once).not.toMatch(/[\s-]/);
      }),
    );
  });
});

describe('luhnValid', () => {
  it.each(['4242424242424242', '5555555555554444', '378282246310005', '6011111111111117', '3056930009020004', '79927398713'])('accepts %s', (n) => {
    expect(luhnValid(n)).toBe(true);
  });
  it.each(['4242424242424241', '79927398710', '', '42424242a4242424'])('refuses %j', (n) => {
    expect(luhnValid(n)).toBe(false);
  });
  it('accepts every payload with its check digit, and refuses any single changed digit', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{11,18}$/), fc.nat(), fc.integer({ min: 1, max: 9 }), (payload, at, delta) => {
        const n = withCheckDigit(payload);
        expect(luhnValid(n)).toBe(true);
        const i = at % n.length;
        const changed = n.slice(0, i) + String((Number(n[i]) + delta) % 10) + n.slice(i + 1);
        expect(luhnValid(changed)).toBe(false);
      }),
    );
  });
});

describe('detectBrand', () => {
  it.each([
    ['378282246310005', 1, 'American Express'],
    ['371449635398431', 1, 'American Express'],
    ['5555555555554444', 2, 'Mastercard'],
    ['5454545454545454', 2, 'Mastercard'],
    ['2221000000000009', 2, 'Mastercard'],
    ['2720990000000007', 2, 'Mastercard'],
    ['4242424242424242', 3, 'Visa'],
    ['4000000000000002', 3, 'Visa'],
    ['4000000000000000006', 3, 'Visa'],
    ['6011111111111117', 4, 'Discover'],
    ['6445644564456445', 4, 'Discover'],
    ['3056930009020004', 5, 'Diners Club'],
    ['36227206271667', 5, 'Diners Club'],
    ['3530111333300000', 6, 'JCB'],
    ['3566002020360505', 6, 'JCB'],
  ])('%s is PaymentMethodTypeId %i (%s)', (n, id, name) => {
    expect(detectBrand(n)).toMatchObject({ paymentMethodTypeId: id, cardType: name });
  });

  it('does not accept brands outside the six (UnionPay, Maestro)', () => {
    expect(detectBrand('6200000000000005')).toBeUndefined();
    expect(detectBrand('6304000000000000')).toBeUndefined();
  });

  it('finds the brand of generated numbers from each range', () => {
    const ranges: [fc.Arbitrary<string>, number, number][] = [
      [fc.constantFrom('34', '37'), 15, 1],
      [fc.integer({ min: 51, max: 55 }).map(String), 16, 2],
      [fc.integer({ min: 2221, max: 2720 }).map(String), 16, 2],
      // Prefixes chosen clear of other brands' ranges (Elo and Hipercard share some of 4, 38 and 65).
      [fc.constant('42'), 16, 3],
      [fc.constantFrom('6011', '644', '649'), 16, 4],
      [fc.constantFrom('36', '300', '305'), 14, 5],
      [fc.integer({ min: 3528, max: 3589 }).map(String), 16, 6],
    ];
    for (const [prefix, length, id] of ranges) {
      fc.assert(
        fc.property(prefix, fc.stringMatching(/^\d{20}$/), (p, fill) => {
          const n = withCheckDigit((p + fill).slice(0, length - 1));
          const check = checkCardNumber(n);
          expect(check.ok && check.brand.paymentMethodTypeId).toBe(id);
        }),
        { numRuns: 50 },
      );
    }
  });
});

describe('checkCardNumber', () => {
  it('normalizes and reports brand and last 4', () => {
    expect(checkCardNumber('4242-4242 4242-4242')).toMatchObject({ ok: true, number: '4242424242424242', last4: '4242', brand: { code: 'VISA' } });
  });
  it('accepts a 19-digit Visa number', () => {
    expect(checkCardNumber('4000000000000000006')).toMatchObject({ ok: true, number: '4000000000000000006', last4: '0006', brand: { code: 'VISA' } });
  });
  it.each([
    [undefined, 'required', 'is required'],
    ['   ', 'required', 'is required'],
    ['4242x42424242424', 'format', 'must contain only digits (spaces and dashes are ignored)'],
    ['42424242424', 'length', 'must have 12 to 19 digits'],
    ['42424242424242424242', 'length', 'must have 12 to 19 digits'],
    ['4242424242424241', 'checksum', 'is not a valid card number'],
    ['6200000000000005', 'brand', 'is not a card we accept (American Express, Mastercard, Visa, Discover, Diners Club or JCB)'],
    ['37828224631000', 'checksum', 'is not a valid card number'],
    ['4222222222222', 'length', 'has the wrong number of digits for a Visa card'],
  ])('%j: %s', (raw, kind, message) => {
    const check = checkCardNumber(raw);
    expect(check).toEqual({ ok: false, problem: { field: 'number', kind, message } });
  });
  it('never puts the number in a problem message', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{12,19}$/), (n) => {
        const check = checkCardNumber(n);
        if (!check.ok) expect(check.problem.message).not.toContain(n);
      }),
    );
  });
});

describe('checkExpiry', () => {
  const now = new Date('2026-11-21T12:00:00Z');
  it('accepts the current month through its last day (in the latest time zone), and refuses the month before', () => {
    expect(checkExpiry('11', '26', now)).toEqual([]);
    expect(checkExpiry('11', '26', new Date('2026-11-30T23:59:59.999Z'))).toEqual([]);
    expect(checkExpiry('11', '26', new Date('2026-12-01T11:59:59.999Z'))).toEqual([]);
    expect(checkExpiry('11', '26', new Date('2026-12-01T12:00:00Z'))).toEqual([
      { field: 'expiry', kind: 'expired', message: 'is in the past: the card has expired' },
    ]);
    expect(checkExpiry('10', '26', now)).toHaveLength(1);
    expect(checkExpiry('12', '25', now)).toHaveLength(1);
    expect(checkExpiry('01', '27', now)).toEqual([]);
  });
  it.each([
    ['1', '27', 'expMonth', 'format'],
    ['00', '27', 'expMonth', 'format'],
    ['13', '27', 'expMonth', 'format'],
    ['', '27', 'expMonth', 'required'],
    ['12', '2027', 'expYear', 'format'],
    ['12', '7', 'expYear', 'format'],
    ['12', undefined, 'expYear', 'required'],
  ])('month %j year %j: %s %s', (m, y, field, kind) => {
    expect(checkExpiry(m, y, now)).toEqual([expect.objectContaining({ field, kind })]);
  });
  it('keeps a card valid until its month has ended in every time zone (UTC-12), not at midnight UTC (a time audit)', () => {
    expect(isExpired('11', '26', new Date('2026-12-01T00:00:00Z'))).toBe(false);
    expect(isExpired('11', '26', new Date('2026-12-01T11:59:59.999Z'))).toBe(false);
    expect(isExpired('11', '26', new Date('2026-12-01T12:00:00Z'))).toBe(true);
    expect(isExpired('12', '26', new Date('2027-01-01T11:59:59Z'))).toBe(false);
    expect(isExpired('12', '26', new Date('2027-01-01T12:00:00Z'))).toBe(true);
  });

  it('agrees with a month count for every month and year', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 0, max: 99 }), fc.date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }), (m, y, at) => {
        const mm = String(m).padStart(2, '0');
        const yy = String(y).padStart(2, '0');
        // The month as it is at UTC-12, the last place a day ends.
        const there = new Date(at.getTime() - 12 * 3600_000);
        const expired = there.getUTCFullYear() * 12 + there.getUTCMonth() > (2000 + y) * 12 + (m - 1);
        expect(isExpired(mm, yy, at)).toBe(expired);
        expect(checkExpiry(mm, yy, at).length).toBe(expired ? 1 : 0);
      }),
    );
  });
});

describe('parseMmYy', () => {
  it('reads four digits with a valid month', () => {
    expect(parseMmYy('0428')).toEqual({ expMonth: '04', expYear: '28' });
    expect(parseMmYy('1328')).toBeUndefined();
    expect(parseMmYy('04/28')).toBeUndefined();
    expect(parseMmYy('428')).toBeUndefined();
  });
});

describe('checkCvv', () => {
  const amex = cardBrand(1);
  const visa = cardBrand(3);
  it('wants 4 digits for American Express and 3 for the others', () => {
    expect(checkCvv('1234', amex)).toBeUndefined();
    expect(checkCvv('123', amex)).toEqual({ field: 'cvv', kind: 'length', message: 'must have 4 digits for an American Express card' });
    expect(checkCvv('123', visa)).toBeUndefined();
    expect(checkCvv('1234', visa)).toEqual({ field: 'cvv', kind: 'length', message: 'must have 3 digits for a Visa card' });
    expect(checkCvv('12a', visa)?.kind).toBe('format');
  });
  it('is optional unless required', () => {
    expect(checkCvv(undefined, visa)).toBeUndefined();
    expect(checkCvv('', visa, true)).toEqual({ field: 'cvv', kind: 'required', message: 'is required' });
  });
  it('takes 3 or 4 digits when the brand is not known (token payments)', () => {
    expect(checkCvv('123', undefined)).toBeUndefined();
    expect(checkCvv('1234', undefined)).toBeUndefined();
    for (const bad of ['12', '12345']) expect(checkCvv(bad, undefined), bad).toEqual({ field: 'cvv', kind: 'length', message: 'must have 3 or 4 digits' });
    expect(checkCvv('12a', undefined)?.kind).toBe('format');
  });
});
