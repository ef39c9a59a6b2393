import type { Clock } from '../../platform/clock.ts';
import type { Ids } from '../../platform/ids.ts';
import { deleteInBatches } from '../../platform/jobs.ts';
import type { Logger } from '../../platform/logging.ts';
import type { IdempotencyRepository, NewClaim } from './idempotency-repository.ts';

export { readIdempotencyKey, requestFingerprint, MAX_KEY_LENGTH, type KeyReading, type RequestParts } from './idempotency-rules.ts';

/** A request's answer, exactly as it was sent. */
export interface StoredAnswer {
  status: number;
  contentType: string;
  body: string;
}

/** The key as this request holds it, until it ends. */
export interface Claim {
  readonly partnerId: string;
  readonly key: string;
  readonly id: string;
}

/**
 * What a request with a key is to do:
 * - 'run': the key is this request's now; end it with `finish`, `release` or `markUnknown`;
 * - 'replay': an earlier request with the key and the same request was answered this;
 * - 'mismatch': the key was used for another request (422);
 * - 'in-flight': a request with the key is still running, here or in another process (409);
 * - 'stopped': the request that holds the key was not answered within its lease (its process
 *   stopped, or it is still running far past the processor's deadline), or it failed in a way
 *   that may have taken effect: whether it did is not known, and it is not run again (409).
 */
export type Begin =
  | { kind: 'run'; claim: Claim }
  | { kind: 'replay'; answer: StoredAnswer }
  | { kind: 'mismatch' }
  | { kind: 'in-flight'; retryAfterSeconds: number }
  | { kind: 'stopped' };

/** How many expired keys one statement of the purge deletes. */
const PURGE_BATCH = 10_000;

/**
 * Idempotency keys (issue 29): the first request with a partner's key runs and its answer is
 * stored with the key; a later request with the key and the same request gets that answer and
 * runs nothing. The key's row is the lock, in one process or many: no table in memory.
 * Surface-neutral: an edge reads the key, fingerprints the request and sends the answers.
 */
export class IdempotencyService {
  readonly #repository: IdempotencyRepository;
  readonly #clock: Clock;
  readonly #ids: Ids;
  readonly #log: Logger;
  readonly #ttlMs: number;
  readonly #leaseMs: number;

  /**
   * `ttlMs`: how long a key is kept (IDEMPOTENCY_TTL); `leaseMs`: how long a running request is
   * taken as in flight (the processor's deadline and a margin).
   */
  constructor(deps: { repository: IdempotencyRepository; clock: Clock; ids: Ids; log: Logger; ttlMs: number; leaseMs: number }) {
    this.#repository = deps.repository;
    this.#clock = deps.clock;
    this.#ids = deps.ids;
    this.#log = deps.log;
    this.#ttlMs = deps.ttlMs;
    this.#leaseMs = deps.leaseMs;
  }

  /** Claims `key` of the partner for a request with `fingerprint`, or says what the request is to do instead. */
  async begin(partnerId: string, key: string, fingerprint: string): Promise<Begin> {
    const now = this.#clock.now();
    const claim: NewClaim = {
      partnerId,
      key,
      claim: this.#ids.uuid(),
      fingerprint,
      createdAt: now,
      expiresAt: new Date(now.getTime() + this.#ttlMs),
      leaseUntil: new Date(now.getTime() + this.#leaseMs),
    };
    const ours: Begin = { kind: 'run', claim: { partnerId, key, id: claim.claim } };
    // Twice at most: a key deleted (released or purged) between the insert and the read is claimed again.
    for (let attempt = 0; attempt < 2; attempt++) {
      const found = await this.#repository.claim(claim);
      if (found.claimed) return ours;
      const existing = found.existing;
      if (!existing) continue;
      // Past its TTL a key is forgotten, whether or not the purge has deleted it yet.
      if (existing.expiresAt.getTime() <= now.getTime()) {
        if (await this.#repository.takeOver(claim)) return ours;
        continue;
      }
      if (existing.fingerprint !== fingerprint) return { kind: 'mismatch' };
      if (existing.state === 'done' && existing.answer) return { kind: 'replay', answer: existing.answer };
      if (existing.state === 'running' && existing.leaseUntil.getTime() > now.getTime()) return { kind: 'in-flight', retryAfterSeconds: 1 };
      return { kind: 'stopped' };
    }
    // Claimed and let go twice while this request looked: taken as in flight; the client tries again.
    return { kind: 'in-flight', retryAfterSeconds: 1 };
  }

  /** The request's answer, stored with its key: later requests with the key get it. */
  async finish(claim: Claim, answer: StoredAnswer): Promise<void> {
    await this.#end(claim, 'store its answer', () => this.#repository.finish(claim.partnerId, claim.key, claim.id, answer));
  }

  /** The request did nothing (refused as invalid, or failed before it changed anything): the key may be used again. */
  async release(claim: Claim): Promise<void> {
    await this.#end(claim, 'release it', () => this.#repository.release(claim.partnerId, claim.key, claim.id));
  }

  /** The request failed in a way that may have taken effect: the key is not run again. */
  async markUnknown(claim: Claim): Promise<void> {
    await this.#end(claim, 'mark its outcome unknown', () => this.#repository.markUnknown(claim.partnerId, claim.key, claim.id));
  }

  /**
   * A key that cannot be ended stays running: later requests with it are answered 409 (never run
   * again), in flight until its lease ends, then stopped. The request's own answer still goes out.
   */
  async #end(claim: Claim, what: string, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (err) {
      this.#log.warn({ errorName: (err as Error)?.name, partnerId: claim.partnerId }, `could not end a request's Idempotency-Key (${what}): later requests with the key are answered 409`);
    }
  }

  /** Deletes the keys past their TTL (the background job); how many. */
  async purgeExpired(): Promise<number> {
    const now = this.#clock.now();
    return deleteInBatches((limit) => this.#repository.purgeExpired(now, limit), PURGE_BATCH);
  }
}
