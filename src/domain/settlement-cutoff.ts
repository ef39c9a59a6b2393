/**
 * The daily settlement cut-off: a time of day in UTC (SETTLEMENT_CUTOFF, "HH:MM"). Pure rules; the
 * settlement worker asks them with the injected clock's time.
 */

const MINUTES_PER_DAY = 24 * 60;
const MS_PER_MINUTE = 60_000;
const MS_PER_DAY = MINUTES_PER_DAY * MS_PER_MINUTE;

/** "02:00" -> 120 (minutes after midnight UTC); undefined when it is not a time of day HH:MM. */
export function parseCutoff(text: string): number | undefined {
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(text.trim());
  if (!m) return undefined;
  return Number(m[1]) * 60 + Number(m[2]);
}

/** 120 -> "02:00" */
export function formatCutoff(minutes: number): string {
  return `${String(Math.trunc(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

/**
 * The most recent cut-off moment at or before `now`: today's cut-off when it has passed (or is
 * exactly now), otherwise yesterday's.
 */
export function latestCutoff(now: Date, cutoffMinutes: number): Date {
  const ms = now.getTime();
  const midnight = Math.floor(ms / MS_PER_DAY) * MS_PER_DAY;
  const today = midnight + cutoffMinutes * MS_PER_MINUTE;
  return new Date(today <= ms ? today : today - MS_PER_DAY);
}

/** The first cut-off moment strictly after `now`. */
export function nextCutoff(now: Date, cutoffMinutes: number): Date {
  return new Date(latestCutoff(now, cutoffMinutes).getTime() + MS_PER_DAY);
}
