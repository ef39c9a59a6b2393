import Big from 'big.js';

/**
 * Money inside the service is an integer number of cents (minor units). JavaScript numbers
 * represent every integer up to 2^53 exactly, so adding and subtracting cents is exact; every
 * multiplication by a rate goes through big.js (see docs/fees.md for the rounding rule).
 */
export type Cents = number;

/** Largest amount accepted anywhere: 9,999,999,999.99, far inside exact integer range. */
export const MAX_CENTS = 999_999_999_999;

const AMOUNT = /^(\d{1,10})(?:\.(\d{1,2}))?$/;

/**
 * Parses a wire amount ("100", "100.5", "100.50") into cents. At most two decimals, no sign,
 * no exponent, no thousands separators. Returns undefined when the text is not such an amount.
 */
export function parseAmount(text: string): Cents | undefined {
  const m = AMOUNT.exec(text.trim());
  if (!m) return undefined;
  const whole = Number(m[1]);
  const frac = Number((m[2] ?? '').padEnd(2, '0'));
  const cents = whole * 100 + frac;
  return cents <= MAX_CENTS ? cents : undefined;
}

/** "1234.50" */
export function formatCents(cents: Cents): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/**
 * Cents as the JSON number the wire carries (the spec's amount-like responses are doubles).
 * Goes through the decimal text, so 10844 becomes exactly the double nearest 108.44.
 */
export function centsToWire(cents: Cents): number {
  return Number(formatCents(cents));
}

/** Rounds a decimal number of cents half away from zero to a whole cent. */
export function roundCents(value: Big): Cents {
  return Number(value.round(0, Big.roundHalfUp));
}

/**
 * A percentage rate given as text ("2.9" is 2.9 %): 0 <= rate < 100, at most 4 decimals.
 * Returns undefined when the text is not such a rate.
 */
export function parseRate(text: string): string | undefined {
  const t = text.trim();
  if (!/^\d{1,2}(\.\d{1,4})?$/.test(t)) return undefined;
  return new Big(t).toString();
}
