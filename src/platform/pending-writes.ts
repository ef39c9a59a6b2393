import { DatabaseUnavailableError, findError } from './errors.ts';
import type { Logger } from './logging.ts';

/** One write the database could not take when it was made, kept to be made again. */
interface PendingWrite {
  what: string;
  write: () => Promise<unknown>;
  since: number;
}

/** The most writes kept at once; beyond it the oldest is dropped (and logged). */
const MAX_KEPT = 100_000;

/**
 * Writes that must happen but that the database could not take when they were made (it was
 * unreachable, or its connection ended): an outcome the processor already gave, say. They are kept
 * in this process, by the key of what they record, and made again by `writeAll` (a background
 * job, every few seconds) until the database takes them. A write must be safe to make twice and
 * to make after a later one has: it only records what is still unrecorded.
 *
 * They live in memory: a process that stops first loses them, and what they would have recorded
 * is then confirmed another way (the processor's records, or an operator).
 */
export class PendingWrites {
  readonly #log: Logger;
  readonly #writes = new Map<string, PendingWrite>();

  constructor(log: Logger) {
    this.#log = log;
  }

  get size(): number {
    return this.#writes.size;
  }

  has(key: string): boolean {
    return this.#writes.has(key);
  }

  /** Keeps `write` to be made again; a later write for the same key replaces an earlier one. */
  keep(key: string, what: string, write: () => Promise<unknown>): void {
    if (!this.#writes.has(key) && this.#writes.size >= MAX_KEPT) {
      const [oldest] = this.#writes.keys();
      this.#log.error({ key: oldest, what: this.#writes.get(oldest!)?.what }, 'too many writes waiting for the database: the oldest is dropped and must be confirmed by an operator');
      this.#writes.delete(oldest!);
    }
    this.#writes.set(key, { what, write, since: Date.now() });
  }

  /**
   * Makes every kept write once, oldest first; returns how many were made. One the database still
   * cannot take stays (the rest are not tried: it is down); one that fails otherwise is dropped,
   * logged for an operator.
   */
  async writeAll(): Promise<number> {
    let written = 0;
    for (const [key, entry] of [...this.#writes]) {
      if (this.#writes.get(key) !== entry) continue;
      try {
        await entry.write();
        if (this.#writes.get(key) === entry) this.#writes.delete(key);
        written++;
      } catch (err) {
        if (findError(err, DatabaseUnavailableError)) break;
        if (this.#writes.get(key) === entry) this.#writes.delete(key);
        this.#log.error({ err, key, what: entry.what }, 'a write kept for the database failed: it is dropped and must be confirmed by an operator');
      }
    }
    if (written > 0) this.#log.info({ written, waiting: this.#writes.size }, 'writes kept while the database was unavailable were made');
    return written;
  }
}
