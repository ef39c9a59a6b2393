import type { Cents } from './money.ts';

/**
 * Exact percentage arithmetic for the fee rules.
 *
 * A rate is held as an integer number of millionths of a percent (`2.9` % is 2_900_000n), so
 * adding, subtracting and comparing rates is exact, and a rate times an amount in cents is an
 * exact integer product that is rounded once, half away from zero, by integer division. This is
 * decimal arithmetic like big.js, only without allocating a decimal object per operation: the fee
 * engine must quote 200,000 lines a second on one core, and big.js costs about 1 µs per product
 * there (docs/decisions.md, "Fees"). The property tests check every product against big.js.
 */
export type Percent = bigint;

/** Decimals a rate may have (millionths of a percent). */
export const PERCENT_DECIMALS = 6;
const UNITS_PER_PERCENT = 1_000_000n;
/** Units of a whole amount: 100 % is 10^8 units. */
const UNITS_PER_WHOLE = 100n * UNITS_PER_PERCENT;
const TWO_WHOLES = 2n * UNITS_PER_WHOLE;

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * Parses a percentage as decimal text ("2.9", "-1", "0.0125"). Returns undefined for anything
 * else, and for more than PERCENT_DECIMALS decimals (never rounded silently).
 */
export function parsePercent(text: string): Percent | undefined {
  const m = DECIMAL.exec(text);
  if (!m) return undefined;
  const frac = (m[3] ?? '').replace(/0+$/, '');
  if (frac.length > PERCENT_DECIMALS) return undefined;
  const units = BigInt(m[2]!) * UNITS_PER_PERCENT + BigInt(frac.padEnd(PERCENT_DECIMALS, '0') || '0');
  return m[1] ? -units : units;
}

/** The shortest decimal text of a rate: 2_900_000n -> "2.9", 0n -> "0". */
export function formatPercent(rate: Percent): string {
  const negative = rate < 0n;
  const abs = negative ? -rate : rate;
  const whole = abs / UNITS_PER_PERCENT;
  const frac = String(abs % UNITS_PER_PERCENT).padStart(PERCENT_DECIMALS, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

/** `amount * rate %`, rounded half away from zero to the cent. Amount and rate are non-negative. */
export function percentOf(amount: Cents, rate: Percent): Cents {
  if (rate === 0n || amount === 0) return 0;
  return Number((2n * BigInt(amount) * rate + UNITS_PER_WHOLE) / TWO_WHOLES);
}

/** The same, for an amount already held as a bigint (the gross-up works beyond 2^53). */
export function percentOfBig(amount: bigint, rate: Percent): bigint {
  return (2n * amount * rate + UNITS_PER_WHOLE) / TWO_WHOLES;
}

export function clampPercent(rate: Percent, min: Percent, max: Percent): Percent {
  return rate < min ? min : rate > max ? max : rate;
}

/** 100 %, for the gross-up's `1 - r`. */
export const WHOLE: Percent = UNITS_PER_WHOLE;

/** `ceil(a / b)` for a >= 0, b > 0. */
export function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}
