import { describe, expect, it } from 'vitest';
import { parseRate } from '../../src/domain/money.ts';

describe('parseRate', () => {
  it.each([
    ['2.9', '2.9'],
    ['2.1234', '2.1234'],
    ['0', '0'],
    [' 99.9999 ', '99.9999'],
    ['2.9000', '2.9'],
  ])('accepts %j as %j', (text, rate) => {
    expect(parseRate(text)).toBe(rate);
  });
  it.each(['2.12345', '100', '-1', '2.', '.5', '1e1', ''])('refuses %j', (text) => {
    expect(parseRate(text)).toBeUndefined();
  });
});
