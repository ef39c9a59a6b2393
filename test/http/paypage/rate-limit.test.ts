import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/platform/clock.ts';
import { MAX_TRACKED, SUBMISSION_WINDOW_MS, SubmissionLimiter } from '../../../src/http/paypage/rate-limit.ts';

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

  it('past MAX_TRACKED clients, drops the windows that have passed and keeps every live count, at a cost that does not grow with them', () => {
    const clock = new ManualClock();
    const limiter = new SubmissionLimiter(clock, { perLink: 2, perIp: 1 });
    for (let i = 0; i < 10_000; i++) limiter.take('old', `old-${i}`);
    clock.advance(SUBMISSION_WINDOW_MS / 2);
    fillLink(limiter);
    const live = MAX_TRACKED + 5_000;
    for (let i = 0; i < live; i++) limiter.take('new', `new-${i}`);
    // The old windows pass; the new ones do not, and are more than MAX_TRACKED.
    clock.advance(SUBMISSION_WINDOW_MS / 2);
    const started = performance.now();
    for (let i = 0; i < 5_000; i++) limiter.take('flood', `flood-${i}`);
    // Looking at every live entry on each submission took about 5,000 x 55,000 steps (seconds).
    expect(performance.now() - started).toBeLessThan(1_000);
    // The link and its two clients, 'new' and its clients, 'flood' and its clients.
    expect(limiter.tracked).toBe(3 + (live + 1) + 5_001);
    // Live counts are kept: the link is still shut, a client still over its limit.
    expect(limiter.take('link', '198.51.100.1').allowed).toBe(false);
    expect(limiter.take('new', 'new-7').allowed).toBe(false);
  });

  it('does not stretch a window when the clock is stepped back (a clock audit: an hour back shut a link for 70 minutes)', () => {
    const clock = new ManualClock();
    const limiter = new SubmissionLimiter(clock, { perLink: 2, perIp: 100 });
    fillLink(limiter);
    clock.advance(-3_600_000);
    expect(limiter.take('link', '203.0.113.9')).toEqual({ allowed: true, retryAfterSeconds: 0 });
  });
});
