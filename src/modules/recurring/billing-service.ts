import { hostname } from 'node:os';
import type { Clock } from '../../platform/clock.ts';
import { type BillingFrequency, type CalendarDate, addDays, parseCalendarDate, utcDate } from '../../domain/billing-dates.ts';
import { type BillingPosition, afterApproval, afterDecline, isPastEnd } from '../../domain/billing-profile.ts';
import { PaymentResult, ResponseCode } from '../../domain/payment-status.ts';
import type { Ids } from '../../platform/ids.ts';
import { ValidationError, VaultError } from '../../platform/errors.ts';
import type { Logger } from '../../platform/logging.ts';
import type { PaymentRecord } from '../payments/payment-record.ts';
import type { PaymentService } from '../payments/payment-service.ts';
import { billingChargeInput } from './billing-charge.ts';
import type { BillingRepository, ClaimedProfile, ProfileMove } from './billing-repository.ts';
import type { RecurringProfile } from './profile.ts';

export interface BillingRunOptions {
  /** The billing day: profiles due on or before it are charged. Default: today (UTC). */
  asOf?: CalendarDate;
  /** Profiles claimed per lease round trip. */
  batchSize?: number;
  /** Charges in flight at once within this worker. */
  concurrency?: number;
  /** Stops the run after the batch in hand (a server shutting down). */
  signal?: AbortSignal;
}

export interface BillingRunSummary {
  workerId: string;
  asOf: CalendarDate;
  /** Profiles this run took a lease on (a profile billed for several bill dates counts each time). */
  claimed: number;
  /** Charges sent to the payment service. */
  charged: number;
  approved: number;
  declined: number;
  /** Profiles suspended after their last retry failed. */
  suspended: number;
  /** Profiles completed (past EndDate). */
  completed: number;
  /** Bill dates whose earlier attempt (a worker that stopped between charge and advance) was found and applied without charging again. */
  reconciled: number;
  /** Profiles left for later: another worker is charging them, or an earlier attempt's outcome is unknown. */
  deferred: number;
  /** Profiles whose processing failed unexpectedly (the lease expires and a later run reconciles). */
  errors: number;
  durationMs: number;
}

/** Test seams: a way to stop a worker at the worst moments, as a crash would. */
export interface BillingFaults {
  /** Runs after the charge was recorded and before the profile moves on. Throwing here is a crash between charge and advance. */
  afterCharge?(profileId: string, billDate: CalendarDate): void | Promise<void>;
}

type Outcome = 'approved' | 'declined' | 'completed' | 'reconciled-approved' | 'reconciled-declined' | 'deferred' | 'error';

export const DEFAULT_LEASE_MS = 10 * 60_000;

/**
 * The billing run: charges every active profile whose next attempt is due, exactly once per bill
 * date, and moves each on (docs/decisions.md, "Recurring billing").
 *
 * Exactly once, with any number of workers on one PostgreSQL database:
 * 1. A worker leases a batch of due profiles (`FOR UPDATE SKIP LOCKED` in one UPDATE: no two
 *    workers lease the same profile; the lease expires if the worker dies).
 * 2. It charges each through the PaymentService; the payment row carries the profile and bill
 *    date, and a unique index allows one live or successful payment per profile and bill date,
 *    so even a second charge that got past the lease is refused as a duplicate before the processor.
 * 3. It advances the profile and releases the lease in one conditional UPDATE.
 * A lease found abandoned (a crash between 2 and 3) is reconciled first: a successful payment for
 * the bill date advances the profile without charging, a declined one counts as the attempt.
 */
export class BillingService {
  readonly #repository: Pick<BillingRepository, keyof BillingRepository>;
  readonly #clock: Clock;
  readonly #ids: Ids;
  readonly #payments: Pick<PaymentService, 'payCard' | 'payAch'>;
  readonly #retryDays: readonly number[];
  readonly #leaseMs: number;
  readonly #faults: BillingFaults;
  readonly #log: Logger;

  constructor(deps: {
    repository: Pick<BillingRepository, keyof BillingRepository>;
    clock: Clock;
    ids: Ids;
    log: Logger;
    payments: Pick<PaymentService, 'payCard' | 'payAch'>;
    retryDays: readonly number[];
    leaseMs?: number;
    faults?: BillingFaults;
  }) {
    this.#log = deps.log;
    this.#repository = deps.repository;
    this.#clock = deps.clock;
    this.#ids = deps.ids;
    this.#payments = deps.payments;
    this.#retryDays = deps.retryDays;
    this.#leaseMs = deps.leaseMs ?? DEFAULT_LEASE_MS;
    this.#faults = deps.faults ?? {};
  }

  /** Bills everything due as of `asOf` and returns what happened. */
  async run(options: BillingRunOptions = {}): Promise<BillingRunSummary> {
    const started = performance.now();
    const asOf = options.asOf ?? utcDate(this.#clock.now());
    if (!parseCalendarDate(asOf).ok) throw new RangeError(`asOf must be a date yyyy-MM-dd, got "${asOf}"`);
    const batchSize = options.batchSize ?? 100;
    const concurrency = Math.max(1, options.concurrency ?? 8);
    const workerId = `${hostname()}:${process.pid}:${this.#ids.uuid().slice(0, 8)}`;
    const summary: BillingRunSummary = {
      workerId,
      asOf,
      claimed: 0,
      charged: 0,
      approved: 0,
      declined: 0,
      suspended: 0,
      completed: 0,
      reconciled: 0,
      deferred: 0,
      errors: 0,
      durationMs: 0,
    };
    while (!options.signal?.aborted) {
      const batch = await this.#claim(workerId, asOf, batchSize);
      if (batch.length === 0) break;
      summary.claimed += batch.length;
      let next = 0;
      const moves: ProfileMove[] = [];
      const lanes = Array.from({ length: Math.min(concurrency, batch.length) }, async () => {
        while (next < batch.length) {
          const item = batch[next++]!;
          await this.#bill(item, asOf, workerId, summary, moves);
        }
      });
      await Promise.all(lanes);
      // One statement moves the whole batch on: a crash before it leaves leases that the next
      // run reconciles from the payments, as for a crash between any charge and its advance.
      await this.#applyMoves(moves, workerId, summary);
    }
    summary.durationMs = Math.round(performance.now() - started);
    if (summary.claimed > 0) this.#log.info({ billing: summary }, 'billing run');
    return summary;
  }

  /** Profiles by state, how many are due as of `asOf` (default today), and how many a worker holds now. */
  async status(asOf?: CalendarDate): Promise<{ asOf: CalendarDate; byStatus: Record<string, number>; due: number; leased: number }> {
    const date = asOf ?? utcDate(this.#clock.now());
    const rows = await this.#repository.countByStatus(date, this.#clock.now());
    const byStatus: Record<string, number> = { active: 0, suspended: 0, completed: 0, cancelled: 0 };
    let due = 0;
    let leased = 0;
    for (const r of rows) {
      byStatus[r.status] = r.total;
      due += r.due;
      leased += r.leased;
    }
    return { asOf: date, byStatus, due, leased };
  }

  /** Leases up to `limit` due profiles for one lease period. */
  async #claim(workerId: string, asOf: CalendarDate, limit: number): Promise<ClaimedProfile[]> {
    const now = this.#clock.now();
    return this.#repository.claim(workerId, asOf, now, new Date(now.getTime() + this.#leaseMs), limit);
  }

  async #bill(item: ClaimedProfile, asOf: CalendarDate, workerId: string, summary: BillingRunSummary, moves: ProfileMove[]): Promise<void> {
    let outcome: Outcome;
    try {
      outcome = await this.#billOne(item, asOf, workerId, summary, moves);
    } catch (err) {
      // The lease stays: it expires, and the next run reconciles whatever happened.
      outcome = 'error';
      // A VaultError's message holds no secret and tells the operator which key is missing.
      const vault = err instanceof VaultError ? { vaultError: err.message } : {};
      this.#log.error({ errorName: (err as Error)?.name, profileGuid: item.profile.id, ...vault }, 'billing a recurring profile failed');
      if (err instanceof VaultError) await this.#noteUnreadableToken(item.profile, workerId);
    }
    switch (outcome) {
      case 'approved':
        summary.approved++;
        break;
      case 'declined':
        summary.declined++;
        break;
      case 'reconciled-approved':
      case 'reconciled-declined':
        summary.reconciled++;
        break;
      case 'completed':
        break;
      case 'deferred':
        summary.deferred++;
        break;
      case 'error':
        summary.errors++;
        break;
    }
  }

  async #billOne(item: ClaimedProfile, asOf: CalendarDate, workerId: string, summary: BillingRunSummary, moves: ProfileMove[]): Promise<Outcome> {
    const p = item.profile;
    const position: BillingPosition = {
      schedule: { frequency: p.billingFrequency as BillingFrequency, anchorDay: p.anchorDay },
      endDate: p.endDate,
      nextBillDate: p.nextBillDate,
      failedAttempts: p.failedAttempts,
    };
    const billDate = p.nextBillDate;

    if (isPastEnd(billDate, p.endDate)) {
      moves.push({ profile: p, change: { status: 'completed', nextBillDate: billDate, nextAttemptOn: billDate, failedAttempts: p.failedAttempts }, attempt: {} });
      return 'completed';
    }

    if (item.abandonedClaimAt !== null) {
      const found = await this.#earlierAttempt(p.id, billDate, item.abandonedClaimAt);
      if (found.kind === 'charged') {
        moves.push({ profile: p, change: afterApproval(position), attempt: { paymentId: found.paymentId } });
        return 'reconciled-approved';
      }
      if (found.kind === 'pending') return this.#defer(p, asOf, workerId, found);
      if (found.kind === 'declined') {
        moves.push({ profile: p, change: afterDecline(position, this.#triedOn(asOf), this.#retryDays), attempt: { paymentId: found.paymentId, failure: found.message } });
        return 'reconciled-declined';
      }
    }

    let record: PaymentRecord;
    summary.charged++;
    try {
      const input = billingChargeInput(p, billDate);
      record = item.tokenKind === 'card' ? await this.#payments.payCard(item.partner, input) : await this.#payments.payAch(item.partner, input);
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      // Nothing was sent to the processor (a deleted token, an expired card, a contract without
      // the group's schedule): a failed attempt all the same.
      moves.push({ profile: p, change: afterDecline(position, this.#triedOn(asOf), this.#retryDays), attempt: { failure: err.message } });
      return 'declined';
    }
    await this.#faults.afterCharge?.(p.id, billDate);

    const payment = record.payment;
    if (!payment.successful && payment.responseCode === ResponseCode.NotProcessed) {
      // Refused as a duplicate: another worker holds a live or successful payment for this bill date.
      const found = await this.#earlierAttempt(p.id, billDate, null);
      if (found.kind === 'charged') {
        moves.push({ profile: p, change: afterApproval(position), attempt: { paymentId: found.paymentId } });
        return 'reconciled-approved';
      }
      return 'deferred';
    }
    if (payment.successful) {
      moves.push({ profile: p, change: afterApproval(position), attempt: { paymentId: payment.id } });
      return 'approved';
    }
    // The processor call failed with the charge unknown: held for an operator, never retried.
    if (payment.paymentResult === PaymentResult.Processing) return this.#defer(p, asOf, workerId, { paymentId: payment.id, createdAt: payment.createdAt });
    moves.push({ profile: p, change: afterDecline(position, this.#triedOn(asOf), this.#retryDays), attempt: { paymentId: payment.id, failure: payment.message ?? 'Declined' } });
    return 'declined';
  }

  /**
   * What became of an earlier attempt at a bill date: a live or successful payment (charged,
   * whenever it was made), one still pending, or a decline made since `since` (the abandoned
   * claim). Duplicate refusals are not attempts.
   */
  async #earlierAttempt(
    profileId: string,
    billDate: CalendarDate,
    since: Date | null,
  ): Promise<{ kind: 'charged'; paymentId: string } | { kind: 'pending'; paymentId: string; createdAt: Date } | { kind: 'declined'; paymentId: string; message: string } | { kind: 'none' }> {
    const rows = await this.#repository.billDatePayments(profileId, billDate);
    const live = rows.find((r) => r.paymentResult !== PaymentResult.Failed);
    if (live) {
      return live.paymentResult === PaymentResult.Pending || live.paymentResult === PaymentResult.Processing
        ? { kind: 'pending', paymentId: live.id, createdAt: live.createdAt }
        : { kind: 'charged', paymentId: live.id };
    }
    if (since !== null) {
      const declined = rows
        .filter((r) => r.responseCode !== ResponseCode.NotProcessed && r.createdAt >= since)
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())[0];
      if (declined) return { kind: 'declined', paymentId: declined.id, message: declined.message ?? 'Declined' };
    }
    return { kind: 'none' };
  }

  /**
   * The stored card or account could not be read (a vault key missing from this process's
   * configuration, or a damaged ciphertext): nothing was sent to the processor. Not a failed
   * attempt of the payer's (the retry schedule and suspension stay as they are), but the profile
   * says why it is not billed; the lease stays, so the next run after it lapses tries again. The
   * vault's own message, which names keys, goes to the operator's log only.
   */
  async #noteUnreadableToken(p: RecurringProfile, workerId: string): Promise<void> {
    await this.#repository
      .noteFailure(p.id, workerId, `The stored payment method could not be read for bill date ${p.nextBillDate}; the charge was not attempted and will be retried.`)
      .catch((err: unknown) => this.#log.warn({ errorName: (err as Error)?.name, profileGuid: p.id }, 'could not record the unreadable payment method'));
  }

  /**
   * The day a charge is tried on: today, or the run's as-of day when that is later (`--ahead`).
   * A run as of a past day (catching up) still tries today, so its retry comes tomorrow at the
   * earliest: a declined card is never charged again the same day.
   */
  #triedOn(asOf: CalendarDate): CalendarDate {
    const today = utcDate(this.#clock.now());
    return asOf > today ? asOf : today;
  }

  /**
   * A payment for the bill date is still pending. Younger than a lease: another worker is
   * charging it; our lease stays and lapses. Older: its worker died between asking the processor
   * and recording the answer, so nobody knows whether the payer was charged. It is never charged
   * again automatically (the unique index would refuse it anyway); the profile is looked at again
   * tomorrow and the error is logged for an operator.
   */
  async #defer(p: RecurringProfile, asOf: CalendarDate, workerId: string, found: { paymentId: string; createdAt: Date }): Promise<Outcome> {
    if (this.#clock.now().getTime() - found.createdAt.getTime() < this.#leaseMs) return 'deferred';
    this.#log.error({ profileGuid: p.id, paymentGuid: found.paymentId, billDate: p.nextBillDate }, 'recurring charge outcome unknown: payment still pending; not charged again');
    await this.#repository.defer(p.id, workerId, addDays(this.#triedOn(asOf), 1), `Payment ${found.paymentId} for bill date ${p.nextBillDate} is still pending; its outcome is unknown.`);
    return 'deferred';
  }

  /**
   * Moves each profile of the batch to its change and releases its lease, in one statement, only
   * where nobody moved the profile or changed the terms the change was worked out from meanwhile
   * (a partner's update of its bill date, frequency or end date, a cancellation, another worker's
   * reconciliation). The others only lose this worker's lease: whatever changed them stands, and
   * the next run finds the bill date's payment (the unique index refuses a second charge) and
   * moves the profile on from its current terms.
   */
  async #applyMoves(moves: ProfileMove[], workerId: string, summary: BillingRunSummary): Promise<void> {
    if (moves.length === 0) return;
    const moved = await this.#repository.applyMoves(moves, this.#clock.now(), workerId);
    for (const r of moved) {
      if (r.status === 'suspended') summary.suspended++;
      if (r.status === 'completed') summary.completed++;
    }
    if (moved.length < moves.length) {
      const done = new Set(moved.map((r) => r.id));
      const stale = moves.map((m) => m.profile.id).filter((id) => !done.has(id));
      await this.#repository.releaseLeases(stale, workerId);
    }
  }
}

