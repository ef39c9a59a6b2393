import { performance } from 'node:perf_hooks';
import type { Logger } from '../../platform/logging.ts';
import type { NotificationConfigService } from './config-service.ts';
import type { HttpSender, SendResult } from './http-sender.ts';
import type { ClaimedNotification, Delivery, NotificationOutboxRepository } from './outbox-repository.ts';
import { retryDelayMs, type RetrySchedule } from './retry-schedule.ts';

/**
 * The least time between two claims of a worker under a steady load: each claim records the
 * deliveries that ended since the last and takes what fell due since, so the payments and
 * deliveries of these milliseconds cost one statement, not one each. A backlog is not held back
 * by it (a full claim, or half a receiver's slots free again, claims at once).
 */
const CLAIM_INTERVAL_MS = 25;

/** What a worker reports of each attempt (metrics). */
export interface DeliveryObserver {
  attempt(result: 'delivered' | 'failed' | 'retried', lagSeconds: number | undefined): void;
}

export interface DeliveryOptions {
  /** Deliveries in flight at once in this process. */
  concurrency: number;
  /** Of those, at most this many to one URL (config): a slow or dead receiver leaves the rest to others. */
  perConfig: number;
  /** How long a claim holds a notification: the request's timeout and a margin for recording it. */
  leaseMs: number;
  schedule: RetrySchedule;
  /** How often the worker looks for due notifications without being woken (retries fall due; PGlite has no LISTEN). */
  pollMs: number;
  /** A recurring charge's notification waits this long for its profile's move, then goes as the profile is. */
  waitingMs: number;
  random?: () => number;
}

/**
 * The delivery worker: claims due notifications (FOR UPDATE SKIP LOCKED, so any number of
 * processes share the outbox and each notification is claimed by one), posts each, signed, and
 * records the outcome: delivered on a 2xx within the timeout, else retried after the schedule's
 * wait until the config's Retries are spent, then failed. A worker that dies holding a claim
 * leaves it due again when the lease ends: delivery is at least once.
 */
export class NotificationDeliveryWorker {
  readonly #outbox: NotificationOutboxRepository;
  readonly #configs: NotificationConfigService;
  readonly #sender: HttpSender;
  readonly #log: Logger;
  readonly #options: DeliveryOptions;
  readonly #random: () => number;
  readonly #inFlight = new Map<number, Promise<void>>();
  readonly #perConfig = new Map<number, number>();
  /** Deliveries that ended and are not recorded yet (with when, by performance.now()): the next claim records them. */
  #delivered: (Omit<Delivery, 'agoMs'> & { at: number })[] = [];
  #observer: DeliveryObserver | undefined;
  #wake: (() => void) | undefined;
  #woken = false;
  #stopping = false;
  #lastWaitingCheck = 0;
  #endedSinceClaim = 0;
  #lastClaimAt = 0;
  /** The most the last claim could have claimed. */
  #lastLimit = 0;

  constructor(deps: { outbox: NotificationOutboxRepository; configs: NotificationConfigService; sender: HttpSender; log: Logger; options: DeliveryOptions }) {
    this.#outbox = deps.outbox;
    this.#configs = deps.configs;
    this.#sender = deps.sender;
    this.#log = deps.log;
    this.#options = deps.options;
    this.#random = deps.options.random ?? Math.random;
  }

  observe(observer: DeliveryObserver): void {
    this.#observer = observer;
  }

  /** Makes a waiting worker look for due notifications now (a NOTIFY, a redelivery). */
  wake(): void {
    this.#woken = true;
    this.#wake?.();
  }

  /**
   * Delivers until `signal` aborts: claims as many as it has room for, waits for a wake, a
   * delivery ending or the poll interval, and again. Resolves once the deliveries in flight ended.
   */
  async run(signal: AbortSignal): Promise<void> {
    const onAbort = () => this.wake();
    signal.addEventListener('abort', onAbort);
    try {
      while (!signal.aborted) {
        const claimed = await this.#claimSome();
        // A full claim may have left more due; otherwise what falls due next wakes the worker
        // (a NOTIFY, deliveries ending) or the poll finds it: claiming again at once would
        // make a statement per payment under a steady load.
        if (claimed !== null && claimed === this.#lastLimit && this.#room() > 0) continue;
        await this.#sleep(this.#options.pollMs);
        // Each delivery that ends wakes the worker: it waits out the interval unless half a
        // receiver's slots are free again.
        for (;;) {
          const early = this.#lastClaimAt + CLAIM_INTERVAL_MS - performance.now();
          if (early <= 0 || signal.aborted || this.#endedSinceClaim >= Math.max(2, this.#options.perConfig / 2)) break;
          await this.#sleep(early);
        }
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      await Promise.all(this.#inFlight.values());
      await this.#claimSome(false);
    }
  }

  /** One pass for operators and tests: delivers what is due now, waiting for every attempt. Returns the attempts made. */
  async deliverDue(): Promise<number> {
    let attempts = 0;
    for (;;) {
      const claimed = await this.#claimSome();
      attempts += claimed ?? 0;
      if (claimed && this.#room() > 0) continue;
      if (this.#inFlight.size > 0) {
        await Promise.race(this.#inFlight.values());
        continue;
      }
      // Done; or the database unreachable, and what is unrecorded is sent again when its claim ends.
      if (claimed === null || this.#delivered.length === 0) return attempts;
    }
  }

  #room(): number {
    return this.#options.concurrency - this.#inFlight.size;
  }

  /**
   * Records the deliveries that ended and claims what there is room for (none when `claim` is
   * false). Returns how many it claimed, or null when the database could not be reached.
   */
  async #claimSome(claim = true): Promise<number | null> {
    const room = claim ? Math.max(0, Math.min(this.#room(), 200)) : 0;
    this.#lastLimit = room;
    if (room <= 0 && this.#delivered.length === 0) return 0;
    this.#woken = false;
    const now = Date.now();
    const done = this.#delivered;
    this.#delivered = [];
    this.#endedSinceClaim = 0;
    const recordedAt = performance.now();
    this.#lastClaimAt = recordedAt;
    try {
      if (room > 0 && now - this.#lastWaitingCheck > Math.min(30_000, this.#options.waitingMs)) {
        this.#lastWaitingCheck = now;
        await this.#outbox.releaseWaiting(this.#options.waitingMs);
      }
      const busy = [...this.#perConfig].filter(([, n]) => n >= this.#options.perConfig).map(([id]) => id);
      const { claimed, lags } = await this.#outbox.recordAndClaim(
        done.map((d) => ({ id: d.id, attempt: d.attempt, statusCode: d.statusCode, agoMs: Math.round(recordedAt - d.at) })),
        { limit: room, busyConfigs: busy, leaseMs: this.#options.leaseMs, perConfig: this.#options.perConfig },
      );
      for (const d of done) {
        const lag = lags.get(d.id);
        if (lag !== undefined) this.#observer?.attempt('delivered', lag);
      }
      for (const n of claimed) this.#start(n);
      return claimed.length;
    } catch (err) {
      // The database unreachable: the deliveries are recorded with the next claim (or, should
      // this process end first, sent again when their claims end: at least once); nothing claimed is lost.
      this.#delivered = done.concat(this.#delivered);
      this.#log.warn({ errorName: (err as Error)?.name }, 'could not claim notifications to deliver');
      return null;
    }
  }

  #start(n: ClaimedNotification): void {
    this.#perConfig.set(n.configId, (this.#perConfig.get(n.configId) ?? 0) + 1);
    const done = this.#deliver(n)
      .catch((err: unknown) => this.#log.warn({ notificationId: n.id, errorName: (err as Error)?.name }, 'could not record a notification attempt; it is tried again when its claim ends'))
      .finally(() => {
        this.#inFlight.delete(n.id);
        const left = (this.#perConfig.get(n.configId) ?? 1) - 1;
        if (left > 0) this.#perConfig.set(n.configId, left);
        else this.#perConfig.delete(n.configId);
        // Room again, and the payment's next notification may now go: the next claim records
        // this delivery with the others that ended meanwhile (CLAIM_INTERVAL_MS).
        this.#endedSinceClaim++;
        this.wake();
      });
    this.#inFlight.set(n.id, done);
  }

  async #deliver(n: ClaimedNotification): Promise<void> {
    let result: SendResult;
    try {
      const secrets = await this.#configs.signingSecrets(n.partnerId);
      const token = n.accessToken ? this.#configs.accessToken(n.configId, n.accessToken) : undefined;
      result = await this.#sender.post(n.url, n.payload, this.#configs.headers(n.guid, n.payload, secrets, token));
    } catch (err) {
      // The vault could not open a secret: the message names keys, not secrets, but stays here.
      this.#log.error({ notificationId: n.id, errorName: (err as Error)?.name }, 'could not sign a notification');
      result = { ok: false, statusCode: null, ms: 0, error: 'the notification could not be signed' };
    }
    if (result.ok) {
      this.#delivered.push({ id: n.id, attempt: n.attempt, statusCode: result.statusCode, at: performance.now() });
      this.#log.debug({ notificationId: n.id, statusCode: result.statusCode, ms: result.ms }, 'notification delivered');
      return;
    }
    const error = result.statusCode === null ? result.error : `the receiver answered HTTP ${result.statusCode}`;
    const wait = retryDelayMs(this.#options.schedule, n.retryCount + 1, this.#random());
    const outcome = await this.#outbox.attemptFailed(n.id, n.attempt, { statusCode: result.statusCode, error }, wait);
    if (outcome === undefined) return;
    this.#observer?.attempt(outcome, undefined);
    if (outcome === 'failed') this.#log.warn({ notificationId: n.id, retries: n.retryCount, error }, 'notification not delivered: its retries are spent');
    else this.#log.info({ notificationId: n.id, retry: n.retryCount + 1, inMs: wait, error }, 'notification attempt failed; it is retried');
  }

  #sleep(ms: number): Promise<void> {
    if (this.#woken) {
      this.#woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(finish, ms);
      function finish() {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = () => {
        this.#wake = undefined;
        finish();
      };
    });
  }
}
