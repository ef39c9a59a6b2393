import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { abaChecksumValid, abaPrefixValid, bankCountry, checkAccountNumber, checkRoutingNumber } from '../../src/domain/bank.ts';

/** The ninth digit that makes eight digits a valid ABA number. */
function withAbaCheck(eight: string): string {
  for (let d = 0; d <= 9; d++) if (abaChecksumValid(eight + d)) return eight + d;
  throw new Error('unreachable');
}

describe('US routing numbers', () => {
  it.each(['011000015', '021000021', '011401533', '091000019', '122105278', '322271627', '061000104', '211274450'])('accepts %s', (n) => {
    expect(checkRoutingNumber('US', n)).toEqual({ ok: true, routingNumber: n });
  });
  it.each([
    ['021000022', 'checksum'],
    ['02100002', 'length'],
    ['0210000210', 'length'],
    ['13100000' + '0', 'range'],
    ['000000000', 'range'],
    ['02100002a', 'format'],
    ['', 'required'],
  ])('refuses %j (%s)', (n, kind) => {
    const check = checkRoutingNumber('US', n);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.problem).toMatchObject({ field: 'routingNumber', kind });
  });
  it('accepts spaces and dashes as formatting', () => {
    expect(checkRoutingNumber('US', '0210-0002 1')).toEqual({ ok: true, routingNumber: '021000021' });
  });
  it('has the valid first-two-digit ranges 00-12, 21-32, 61-72, 80', () => {
    const valid = Array.from({ length: 100 }, (_, p) => p).filter((p) => abaPrefixValid(String(p).padStart(2, '0') + '0000000'));
    expect(valid).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 80]);
  });
  it('the checksum (weights 3, 7, 1) catches every single-digit change', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{8}$/), fc.integer({ min: 0, max: 8 }), fc.integer({ min: 1, max: 9 }), (eight, i, delta) => {
        const n = withAbaCheck(eight);
        expect(abaChecksumValid(n)).toBe(true);
        const changed = n.slice(0, i) + String((Number(n[i]) + delta) % 10) + n.slice(i + 1);
        expect(abaChecksumValid(changed)).toBe(false);
      }),
    );
  });
  it('accepts a generated number exactly when its prefix is in range', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{8}$/), (eight) => {
        const n = withAbaCheck(eight);
        const p = Number(n.slice(0, 2));
        const inRange = p <= 12 || (p >= 21 && p <= 32) || (p >= 61 && p <= 72) || p === 80;
        expect(checkRoutingNumber('US', n).ok).toBe(inRange && n !== '000000000');
      }),
    );
  });
});

describe('CA and AU routing numbers', () => {
  it('CA: 0 + institution + transit, 9 digits', () => {
    expect(checkRoutingNumber('CA', '000112345')).toEqual({ ok: true, routingNumber: '000112345' });
    expect(checkRoutingNumber('CA', '0003-12345').ok).toBe(true);
    for (const bad of ['100112345', '00011234', '0001123456']) {
      expect(checkRoutingNumber('CA', bad)).toMatchObject({ ok: false, problem: { kind: 'format' } });
    }
  });
  it('AU: a 6-digit BSB, written with or without the dash', () => {
    expect(checkRoutingNumber('AU', '062-000')).toEqual({ ok: true, routingNumber: '062000' });
    expect(checkRoutingNumber('AU', '06200')).toMatchObject({ ok: false, problem: { kind: 'length' } });
    expect(checkRoutingNumber('AU', '0620001')).toMatchObject({ ok: false, problem: { kind: 'length' } });
  });
});

describe('account numbers', () => {
  it.each([
    ['US', 8, 12],
    ['CA', 7, 12],
    ['AU', 3, 9],
  ] as const)('%s: %i to %i digits', (country, min, max) => {
    expect(checkAccountNumber(country, '1'.repeat(min)).ok).toBe(true);
    expect(checkAccountNumber(country, '1'.repeat(max)).ok).toBe(true);
    expect(checkAccountNumber(country, '1'.repeat(min - 1))).toMatchObject({ ok: false, problem: { field: 'accountNumber', kind: 'length' } });
    expect(checkAccountNumber(country, '1'.repeat(max + 1))).toMatchObject({ ok: false, problem: { kind: 'length' } });
  });
  it('keeps the last 4 and refuses letters', () => {
    expect(checkAccountNumber('US', '0001-2345-6789')).toEqual({ ok: true, accountNumber: '000123456789', last4: '6789' });
    expect(checkAccountNumber('US', '1234567x')).toMatchObject({ ok: false, problem: { kind: 'format' } });
    expect(checkAccountNumber('US', '')).toMatchObject({ ok: false, problem: { kind: 'required' } });
  });
  it('never quotes the number in a message', () => {
    fc.assert(
      fc.property(fc.constantFrom('US', 'CA', 'AU' as const), fc.stringMatching(/^\d{3,20}$/), (country, n) => {
        const check = checkAccountNumber(country, n);
        if (!check.ok) expect(check.problem.message).not.toContain(n);
      }),
    );
  });
});

describe('bankCountry', () => {
  it('is US by default, case-insensitive, and only US, CA, AU', () => {
    expect(bankCountry(undefined)).toBe('US');
    expect(bankCountry('')).toBe('US');
    expect(bankCountry('ca')).toBe('CA');
    expect(bankCountry('AU')).toBe('AU');
    expect(bankCountry('GB')).toBeUndefined();
  });
});
