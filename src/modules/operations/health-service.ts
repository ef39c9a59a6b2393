import type { Clock } from '../../platform/clock.ts';
import { clockSkewMs } from './clock-agreement.ts';
import type { OperationsRepository } from './operations-repository.ts';

/** What the readiness check and the background jobs ask of the database: does it answer, and does its clock agree with ours. */
export class HealthService {
  readonly #repository: OperationsRepository;
  readonly #clock: Clock;

  constructor(deps: { repository: OperationsRepository; clock: Clock }) {
    this.#repository = deps.repository;
    this.#clock = deps.clock;
  }

  /** Which database the service runs on: `pglite` (embedded) or `postgres`. */
  get database(): 'pglite' | 'postgres' {
    return this.#repository.kind;
  }

  /** Resolves when the database answers. */
  async ping(): Promise<void> {
    await this.#repository.ping();
  }

  /** This process's clock minus the database server's, in milliseconds; null when one measurement cannot tell. */
  async clockSkewMs(): Promise<number | null> {
    return clockSkewMs(() => this.#repository.databaseNowMs(), this.#clock);
  }
}
