import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/platform/clock.ts';
import { SUBMISSION_WINDOW_MS, SubmissionLimiter } from '../../../src/http/paypage/rate-limit.ts';

describe('the pay page submission limiter', () => {
  const fillLink = (limiter: SubmissionLimiter) => {
    for (let i = 0; i < 2; i++) {
      expect(limiter.take('link', `203.0.113.${i}`).allowed).toBe(true);
      limiter.countAttempt('link');
    }
  };

  it('shuts a link for the rest of its window once its attempts are used, then opens it again', () => {
    const clock = new ManualClock();
    const limiter = new SubmissionLimiter(clock, { perLink: 2, perIp: 100 });
    fillLink(limiter);
    clock.advance(60_000);
    expect(limiter.take('link', '203.0.113.9')).toEqual({ allowed: false, retryAfterSeconds: (SUBMISSION_WINDOW_MS - 60_000) / 1000 });
    clock.advance(SUBMISSION_WINDOW_MS - 60_000);
    expect(limiter.take('link', '203.0.113.9').allowed).toBe(true);
  });

  it('does not stretch a window when the clock is stepped back (a clock audit: an hour back shut a link for 70 minutes)', () => {
    const clock = new ManualClock();
    const limiter = new SubmissionLimiter(clock, { perLink: 2, perIp: 100 });
    fillLink(limiter);
    clock.advance(-3_600_000);
    expect(limiter.take('link', '203.0.113.9')).toEqual({ allowed: true, retryAfterSeconds: 0 });
  });
});
