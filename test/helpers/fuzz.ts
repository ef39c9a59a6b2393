/**
 * Shared by the generative robustness tests (`*fuzz*.test.ts`).
 * FUZZ_SCALE=10 runs every property ten times as long (a deeper search; the default is for CI).
 */
export const FUZZ_SCALE = Number(process.env.FUZZ_SCALE ?? 1) || 1;

/** The text with every letter's case flipped (`Amount` -> `aMOUNT`): names must match case-insensitively. */
export const flipCase = (s: string) => [...s].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');

/**
 * Captured log lines as one text to search for secrets, without request timings: they are floats
 * with rounding noise ("responseTime":3.0000000000009095) that can hold a generated all-zero
 * account number, which is then not a leak.
 */
export function loggedText(lines: string[]): string {
  return lines.join('\n').replace(/"responseTime":[0-9.eE+-]+/g, '');
}
