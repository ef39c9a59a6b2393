/**
 * Fixed windows per key (a client IP, a username): how many events each key had since its window
 * began. A key's window starts at its first event and lasts `windowMs`. At most `maxKeys` windows
 * are kept: a new one first drops the expired windows at the front, then, if there are still too
 * many, the oldest ones (a Map keeps insertion order, and a window is re-inserted when it
 * restarts, so the front is always the oldest window).
 */
export class WindowCounter {
  readonly #windowMs: number;
  readonly #maxKeys: number;
  readonly #windows = new Map<string, { start: number; count: number }>();
  constructor(windowMs: number, maxKeys = 100_000) {
    this.#windowMs = windowMs;
    this.#maxKeys = maxKeys;
  }

  /** Counts an event for `key`; returns the count in its current window (1 for the first). */
  hit(key: string, now: number): number {
    const w = this.#live(key, now);
    if (w) return ++w.count;
    this.#windows.delete(key);
    this.#makeRoom(now);
    this.#windows.set(key, { start: now, count: 1 });
    return 1;
  }

  /** The events of `key` in its current window (0 when it has none). */
  count(key: string, now: number): number {
    return this.#live(key, now)?.count ?? 0;
  }

  forget(key: string): void {
    this.#windows.delete(key);
  }

  get size(): number {
    return this.#windows.size;
  }

  #live(key: string, now: number) {
    const w = this.#windows.get(key);
    return w && now >= w.start && now - w.start < this.#windowMs ? w : undefined;
  }

  #makeRoom(now: number) {
    for (const [key, w] of this.#windows) {
      if (this.#windows.size < this.#maxKeys && now >= w.start && now - w.start < this.#windowMs) break;
      this.#windows.delete(key);
    }
  }
}

/** At most `max` holders at once; a caller that finds it full is turned away, never queued. */
export class Gate {
  readonly #max: number;
  #held = 0;
  constructor(max: number) {
    this.#max = max;
  }
  /** A release function, or undefined when the gate is full. */
  tryEnter(): (() => void) | undefined {
    if (this.#held >= this.#max) return undefined;
    this.#held++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#held--;
    };
  }
}

/**
 * What a GetClientSessionID attempt may cost (each one is a 128 MiB, ~0.5 s scrypt):
 * - `perIpPerMinute` attempts per caller address (GATEWAY_LOGIN_RATE_LIMIT);
 * - `failuresPerAddress` failed logins of one username from one caller address in
 *   `failureWindowMs` lock that username for that address for the rest of the window: further
 *   attempts from it are Invalid_Login without hashing;
 * - `failuresPerUsername` failed logins of one username from all addresses lock it the same way
 *   for every address except those it logged in from in the last KNOWN_ADDRESS_MS (a guesser
 *   spread over many addresses is stopped, and cannot lock the integration's own servers out);
 * - `concurrentHashes` password checks at once in this process; a login that finds them all busy
 *   is Access_Denied at once (queueing would let a flood hold every caller).
 */
export interface LoginLimits {
  perIpPerMinute: number;
  failuresPerAddress: number;
  failuresPerUsername: number;
  failureWindowMs: number;
  concurrentHashes: number;
  /** Windows kept per counter before the oldest are evicted. */
  maxTrackedKeys: number;
}

export const DEFAULT_LOGIN_LIMITS: Omit<LoginLimits, 'perIpPerMinute'> = {
  failuresPerAddress: 10,
  failuresPerUsername: 100,
  failureWindowMs: 15 * 60_000,
  concurrentHashes: 2,
  maxTrackedKeys: 100_000,
};

/** How long an address a user logged in from stays exempt from that user's all-address lock. */
export const KNOWN_ADDRESS_MS = 24 * 60 * 60_000;
