import type { Clock } from '../../platform/clock.ts';
import type { SessionKind, SessionRepository } from './session-repository.ts';

/** What the store asks of the repository for every kind of session. */
export type SessionTable = Pick<SessionRepository, 'revoke' | 'deleteExpiredBefore'>;

/** Sessions expired longer ago than this are deleted by the purge. */
const PURGE_AFTER_MS = 24 * 60 * 60 * 1000;
const CACHE_MAX_ENTRIES = 50_000;

/**
 * The one shape of both kinds of session (access tokens, gateway ClientSessionIDs): a random
 * secret handed out once and stored as its SHA-256 hash, with its owner and its expiry. A process
 * remembers the live sessions it read, by hash, for `recheckMs`, so that repeated calls do not ask
 * the database; a revoked owner's sessions are forgotten at once in this process (other processes
 * notice within `recheckMs`).
 */
export class SessionStore<S extends { expiresAt: Date }> {
  readonly #repository: SessionTable;
  readonly #kind: SessionKind;
  readonly #clock: Clock;
  readonly #recheckMs: number;
  readonly #ownerOf: (session: S) => string;
  readonly #read: (hash: string) => Promise<S | undefined>;
  readonly #cache = new Map<string, { session: S; checkedAt: number }>();

  constructor(deps: {
    repository: SessionTable;
    kind: SessionKind;
    clock: Clock;
    recheckMs: number;
    ownerOf: (session: S) => string;
    /** The session of a hash from the database, or undefined when it is unknown or its owner may not use it. */
    read: (hash: string) => Promise<S | undefined>;
  }) {
    this.#repository = deps.repository;
    this.#kind = deps.kind;
    this.#clock = deps.clock;
    this.#recheckMs = deps.recheckMs;
    this.#ownerOf = deps.ownerOf;
    this.#read = deps.read;
  }

  /**
   * The live session of a hash, or undefined when it is unknown, expired or its owner may not use
   * it. A remembered session read "after" now (the clock was stepped back) is read again.
   */
  async find(hash: string): Promise<S | undefined> {
    const now = this.#clock.now().getTime();
    const cached = this.#cache.get(hash);
    if (cached && now >= cached.checkedAt && now - cached.checkedAt < this.#recheckMs) {
      return now < cached.session.expiresAt.getTime() ? cached.session : undefined;
    }
    const session = await this.#read(hash);
    if (!session) {
      this.#cache.delete(hash);
      return undefined;
    }
    if (this.#cache.size >= CACHE_MAX_ENTRIES) {
      // Maps iterate in insertion order: drop the oldest entry.
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) this.#cache.delete(oldest);
    }
    this.#cache.set(hash, { session, checkedAt: now });
    return now < session.expiresAt.getTime() ? session : undefined;
  }

  /** Ends every session of an owner. */
  async revoke(ownerId: string): Promise<void> {
    await this.#repository.revoke(this.#kind, ownerId);
    for (const [hash, entry] of this.#cache) if (this.#ownerOf(entry.session) === ownerId) this.#cache.delete(hash);
  }

  /** Deletes sessions that expired more than a day ago; returns how many. */
  async purgeExpired(): Promise<number> {
    return this.#repository.deleteExpiredBefore(this.#kind, new Date(this.#clock.now().getTime() - PURGE_AFTER_MS));
  }
}
