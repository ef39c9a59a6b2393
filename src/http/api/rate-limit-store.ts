import type { FastifyRateLimitStore } from '@fastify/rate-limit';
import { LRUCache } from 'lru-cache';

/** Clients counted per route and process, as @fastify/rate-limit's own store does (LRU, 5,000). */
const MAX_CLIENTS = 5_000;

/**
 * @fastify/rate-limit's fixed windows, timed by the monotonic clock. Its own store times them
 * with `Date.now()`, so a step of the wall clock back stretched the window by the step: after a
 * one-hour step, a partner over its ClientSession limit still got 429 five minutes later, `retry-after: 3360` (a clock
 * audit). `now` is for tests.
 */
export class MonotonicRateLimitStore implements FastifyRateLimitStore {
  readonly #now: () => number;
  readonly #windows = new LRUCache<string, { start: number; count: number }>({ max: MAX_CLIENTS });

  constructor(_options?: unknown, now: () => number = () => performance.now()) {
    this.#now = now;
  }

  incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number, _max?: number): void {
    const now = this.#now();
    let window = this.#windows.get(key);
    if (!window || now - window.start >= timeWindow) {
      window = { start: now, count: 0 };
      this.#windows.set(key, window);
    }
    window.count++;
    callback(null, { current: window.count, ttl: timeWindow - (now - window.start) });
  }

  /** The window of `key` without counting a request (the plugin's `increment: false`). */
  read(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number): void {
    const now = this.#now();
    const window = this.#windows.get(key);
    if (!window || now - window.start >= timeWindow) callback(null, { current: 0, ttl: 0 });
    else callback(null, { current: window.count, ttl: timeWindow - (now - window.start) });
  }

  /**
   * Each route counts on its own, as with the plugin's store. Fixed windows only: a route asking
   * for the plugin's sliding or growing windows is refused at start rather than counted otherwise.
   */
  child(routeOptions?: object): FastifyRateLimitStore {
    const options = routeOptions as { continueExceeding?: boolean; exponentialBackoff?: boolean } | undefined;
    if (options?.continueExceeding || options?.exponentialBackoff) throw new Error('MonotonicRateLimitStore counts fixed windows: continueExceeding and exponentialBackoff are not supported');
    return new MonotonicRateLimitStore(undefined, this.#now);
  }
}
