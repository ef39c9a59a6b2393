import type { OperationsRepository } from './operations-repository.ts';

/**
 * Facts an installation records about itself in its database, each once (which partners the demo
 * made, say), and a lock the processes sharing the database take turns on.
 */
export class InstallationService {
  readonly #repository: OperationsRepository;

  constructor(deps: { repository: OperationsRepository }) {
    this.#repository = deps.repository;
  }

  /** The fact recorded under `key`, or undefined. */
  async fact<T>(key: string): Promise<T | undefined> {
    return this.#repository.setting<T>(key);
  }

  /** Records a fact; an error if one is recorded under `key` already (take `exclusively` first). */
  async recordFact(key: string, value: unknown): Promise<void> {
    await this.#repository.addSetting(key, value);
  }

  /** Runs `fn` while no other process of this database runs one with the same `lockId`. */
  exclusively<T>(lockId: number, fn: () => Promise<T>): Promise<T> {
    return this.#repository.withLock(lockId, fn);
  }
}
