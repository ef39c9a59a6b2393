import type { Clock } from '../../platform/clock.ts';

/**
 * How far this process's clock may be from the database server's before the jobs that charge or
 * settle stop running. Servers kept by NTP agree within milliseconds; a clock that is minutes
 * off was stepped, or a virtual machine resumed without time sync. A billing run trusts its clock
 * for "today": one a year ahead would charge a weekly profile's 52 next bill dates at once.
 * Settlement writes its claim time, which other servers' workers compare with their own.
 */
export const CLOCK_SKEW_LIMIT_MS = 60_000;

/** A measurement whose round trip took longer than this cannot tell the limit (a busy pool, a slow database). */
const MAX_ROUND_TRIP_MS = 5_000;

/**
 * This process's clock minus the database server's, in milliseconds (the middle of one round
 * trip); null when the round trip took too long to tell.
 */
export async function clockSkewMs(databaseNowMs: () => Promise<number>, clock: Clock): Promise<number | null> {
  const started = performance.now();
  const before = clock.now().getTime();
  const databaseMs = await databaseNowMs();
  const after = clock.now().getTime();
  if (performance.now() - started > MAX_ROUND_TRIP_MS) return null;
  return Math.round((before + after) / 2 - databaseMs);
}
