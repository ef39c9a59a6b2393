import type { Clock } from '../clock.ts';
import type { Logger } from '../logging.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** One process's view of whether its database answers (see DatabaseAvailability). */
    databaseAvailability: DatabaseAvailability;
  }
}

/**
 * When the database stopped answering and when it came back, as one log line each. Every call
 * refused meanwhile logs its own short warn line; an operator reading the log after an outage
 * needs where it began and ended, and how many calls it cost, without counting those (an outage
 * audit asked for it). It is back when the pool makes a new connection (every connection of an
 * outage has ended, so recovery makes new ones) or when readiness reaches it.
 */
export class DatabaseAvailability {
  readonly #log: Logger;
  readonly #clock: Clock;
  #downSince: Date | undefined;
  #refusedCalls = 0;

  constructor(log: Logger, clock: Clock) {
    this.#log = log;
    this.#clock = clock;
  }

  /** A call was refused because the database could not be reached. */
  refused(): void {
    if (this.#downSince === undefined) {
      this.#downSince = this.#clock.now();
      this.#log.error('database unreachable: calls that need it are answered 503 (the gateway: Internal_Error) until it is back');
    }
    this.#refusedCalls++;
  }

  /** The database answered (a new connection, or readiness). */
  reached(): void {
    if (this.#downSince === undefined) return;
    const downForMs = this.#clock.now().getTime() - this.#downSince.getTime();
    this.#log.warn({ downSince: this.#downSince.toISOString(), downForMs, refusedCalls: this.#refusedCalls }, 'database reachable again');
    this.#downSince = undefined;
    this.#refusedCalls = 0;
  }
}
