/** The most retries a config may ask for (Retries). */
export const MAX_RETRIES = 20;
/** Retries when a config does not say. */
export const DEFAULT_RETRIES = 10;

export interface RetrySchedule {
  /** The wait before the first retry. */
  firstMs: number;
  /** Each wait is this many times the one before. */
  factor: number;
  /** No wait is longer. */
  maxMs: number;
}

/**
 * 10 s, then x2.6 each time: the second retry comes about 36 s after the first attempt, the
 * tenth about 24 h after it (10 s x (2.6^10 - 1) / 1.6 = 86,150 s). A receiver that blips gets
 * it at once; one down for a night still gets everything.
 */
export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = { firstMs: 10_000, factor: 2.6, maxMs: 24 * 3_600_000 };

/**
 * The wait before retry number `retry` (1 for the first), with +-20 % jitter (`random` in [0, 1)):
 * the receivers of a partner that went down together are not all tried again in the same second.
 */
export function retryDelayMs(schedule: RetrySchedule, retry: number, random: number): number {
  const base = Math.min(schedule.maxMs, schedule.firstMs * schedule.factor ** Math.max(0, retry - 1));
  return Math.max(1, Math.round(base * (0.8 + 0.4 * random)));
}
