import type { Clock } from '../clock.ts';

export const SUBMISSION_WINDOW_MS = 10 * 60_000;
const MAX_TRACKED = 50_000;

/**
 * Form submissions allowed per pay link and per client IP in a fixed 10-minute window (card
 * testing goes through payment forms). In memory, per process: with several servers each one
 * counts its own share.
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

  /** Counts one submission; `allowed` is false when the link or the IP is over its limit. */
  take(payLinkId: string, ip: string): { allowed: boolean; retryAfterSeconds: number } {
    const now = this.#clock.now().getTime();
    if (this.#counts.size > MAX_TRACKED) this.#prune(now);
    const link = this.#count(`l:${payLinkId}`, now);
    const client = this.#count(`i:${ip}`, now);
    const allowed = link.count <= this.#perLink && client.count <= this.#perIp;
    const until = Math.max(link.count > this.#perLink ? link.windowStart : 0, client.count > this.#perIp ? client.windowStart : 0) + SUBMISSION_WINDOW_MS;
    return { allowed, retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((until - now) / 1000)) };
  }

  #count(key: string, now: number) {
    let entry = this.#counts.get(key);
    if (!entry || now - entry.windowStart >= SUBMISSION_WINDOW_MS) {
      entry = { windowStart: now, count: 0 };
      this.#counts.set(key, entry);
    }
    entry.count++;
    return entry;
  }

  #prune(now: number) {
    for (const [key, entry] of this.#counts) if (now - entry.windowStart >= SUBMISSION_WINDOW_MS) this.#counts.delete(key);
  }
}
