import type { Clock } from '../../platform/clock.ts';
import { NotFoundError, ValidationError } from '../../platform/errors.ts';
import { deleteInBatches } from '../../platform/jobs.ts';
import { Rule } from '../../domain/rules.ts';
import type { NotificationOutboxRepository, NotificationRecord, NotificationStatus } from './outbox-repository.ts';

export type { NotificationRecord, NotificationStatus } from './outbox-repository.ts';

/** The most notifications one redelivery request names. */
export const REDELIVER_MAX = 100;

/** Notifications kept after their creation, unless configured (NOTIFICATION_RETENTION_DAYS). */
export const DEFAULT_RETENTION_DAYS = 90;

/** How many notifications one statement of the retention purge deletes. */
const PURGE_BATCH = 5_000;

/** A partner's and an operator's view of the outbox: histories, listings, redeliveries, retention. */
export class NotificationService {
  readonly #outbox: NotificationOutboxRepository;
  readonly #wake: () => void;
  readonly #clock: Clock;
  readonly #retentionDays: number;

  constructor(deps: { outbox: NotificationOutboxRepository; clock: Clock; retentionDays?: number; wake?: () => void }) {
    this.#outbox = deps.outbox;
    this.#clock = deps.clock;
    this.#retentionDays = deps.retentionDays ?? DEFAULT_RETENTION_DAYS;
    this.#wake = deps.wake ?? (() => {});
  }

  /**
   * Deletes the notifications created more than the retention ago whose delivery has ended (the
   * background job); how many. Without it the outbox outgrew every other table: a row per change
   * of a payment and URL, kept for ever.
   */
  async purgeEnded(): Promise<number> {
    const before = new Date(this.#clock.now().getTime() - this.#retentionDays * 86_400_000);
    return deleteInBatches((limit) => this.#outbox.purgeEnded(before, limit), PURGE_BATCH);
  }

  /** The notifications of one of the partner's payments; NotFoundError when there are none. */
  async history(partnerId: string, ref: { paymentId?: number; paymentExternalId?: string }): Promise<NotificationRecord[]> {
    if (ref.paymentId === undefined && ref.paymentExternalId === undefined) {
      throw new ValidationError([{ code: Rule.PaymentReferenceRequired, field: 'paymentId', message: 'Send {paymentId} or {paymentExternalId}.' }]);
    }
    const found = await this.#outbox.history(partnerId, ref);
    if (found.length === 0) throw new NotFoundError('No notification of this payment.');
    return found;
  }

  list(filter: { partnerId?: string; status?: NotificationStatus; paymentGuid?: string; limit?: number }): Promise<NotificationRecord[]> {
    return this.#outbox.list({ ...filter, limit: filter.limit ?? 50 });
  }

  /**
   * Sends delivered or failed notifications again, now, with their retries afresh and the same
   * NotificationGuid (the receiver sees the same event). `partnerId`: only that partner's (the
   * API); undefined: any (an operator). NotFoundError when none of the ids is known.
   */
  async redeliver(ids: readonly number[], partnerId: string | undefined): Promise<{ redelivered: NotificationRecord[]; unchanged: NotificationRecord[] }> {
    if (ids.length === 0 || ids.length > REDELIVER_MAX) {
      throw new ValidationError([{ code: Rule.OutOfRange, field: 'notificationIds', message: `Name 1 to ${REDELIVER_MAX} notifications in {notificationIds}.` }]);
    }
    const known = await this.#outbox.byIds(ids, partnerId);
    if (known.length === 0) throw new NotFoundError('No such notification.');
    const redelivered = await this.#outbox.redeliver(ids, partnerId);
    if (redelivered.length > 0) this.#wake();
    const done = new Set(redelivered.map((r) => r.id));
    return { redelivered, unchanged: known.filter((k) => !done.has(k.id)) };
  }

  backlog(): Promise<number> {
    return this.#outbox.backlog();
  }
}
