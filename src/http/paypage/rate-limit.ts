import type { Clock } from '../../platform/clock.ts';

export const SUBMISSION_WINDOW_MS = 10 * 60_000;
export const MAX_TRACKED = 50_000;

/**
 * Form submissions allowed per client IP, and payment attempts per pay link, in a fixed 10-minute
 * window (card testing goes through payment forms). A link counts only the submissions that
 * reached the processor (`countAttempt`): were every submission counted, anyone holding a public
 * donation link could shut its payers out with a few empty forms.
 * In memory, per process: with several servers each one counts its own share.
 */
export class SubmissionLimiter {
  readonly #clock: Clock;
  readonly #perLink: number;
  readonly #perIp: number;
  readonly #counts = new Map<string, { windowStart: number; count: number }>();

  constructor(clock: Clock, limits: { perLink: number; perIp: number }) {
    this.#clock = clock;
    this.#perLink = limits.perLink;
    this.#perIp = limits.perIp;
  }

  /**
   * Counts one submission from `ip`; `allowed` is false when the IP is over its limit or the link
   * has had its payment attempts for the window.
   */
  take(payLinkId: string, ip: string): { allowed: boolean; retryAfterSeconds: number } {
    const now = this.#clock.now().getTime();
    if (this.#counts.size > MAX_TRACKED) this.#prune(now);
    const link = this.#current(`l:${payLinkId}`, now);
    const client = this.#current(`i:${ip}`, now);
    client.count++;
    const linkFull = link.count >= this.#perLink;
    const ipFull = client.count > this.#perIp;
    const allowed = !linkFull && !ipFull;
    const until = Math.max(linkFull ? link.windowStart : 0, ipFull ? client.windowStart : 0) + SUBMISSION_WINDOW_MS;
    return { allowed, retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((until - now) / 1000)) };
  }

  /** Counts a payment attempt on the link: a submission that reached the processor. */
  countAttempt(payLinkId: string): void {
    this.#current(`l:${payLinkId}`, this.#clock.now().getTime()).count++;
  }

  /**
   * The entry of `key` in the current window (a new one when its window has passed, or began
   * after now: the clock was stepped back, which would otherwise stretch the window by the step;
   * a one-hour step would shut a public donation link for an hour and ten minutes).
   */
  #current(key: string, now: number) {
    let entry = this.#counts.get(key);
    if (!entry || windowOver(entry.windowStart, now)) {
      entry = { windowStart: now, count: 0 };
      // Deleted first, so that the map stays in the order windows began (a Map keeps a key's first place).
      this.#counts.delete(key);
      this.#counts.set(key, entry);
    }
    return entry;
  }

  /** How many clients and links are counted. */
  get tracked(): number {
    return this.#counts.size;
  }

  /**
   * Drops the windows that have passed, oldest first, up to the first that has not: each is
   * looked at once. (Every live entry was looked at on every submission past MAX_TRACKED.) No
   * live entry is dropped: a link's count evicted by a flood of addresses would open it again.
   */
  #prune(now: number) {
    for (const [key, entry] of this.#counts) {
      if (!windowOver(entry.windowStart, now)) return;
      this.#counts.delete(key);
    }
  }
}

function windowOver(windowStart: number, now: number): boolean {
  return now - windowStart >= SUBMISSION_WINDOW_MS || now < windowStart;
}
