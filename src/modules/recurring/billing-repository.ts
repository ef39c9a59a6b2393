import type { CalendarDate } from '../../domain/billing-dates.ts';
import type { PositionChange } from '../../domain/billing-profile.ts';
import type { AuthenticatedPartner, PartnerKind } from '../../domain/partner.ts';
import type { Store } from '../../platform/database/database.ts';
import { and, eq, inArray } from '../../platform/database/drizzle.ts';
import { partners, paymentTokens, payments, recurringProfiles } from '../../platform/database/schema/index.ts';
import type { RecurringProfile } from './profile.ts';
import { profileOf } from './profile-repository.ts';

/** A profile a worker holds the lease of, with what charging it needs. */
export interface ClaimedProfile {
  profile: RecurringProfile;
  partner: AuthenticatedPartner;
  tokenKind: 'card' | 'bank';
  /** When the previous holder claimed the profile, if it left its lease behind. */
  abandonedClaimAt: Date | null;
}

/** One payment made for a profile's bill date. */
export interface BillDatePayment {
  id: string;
  paymentResult: number;
  responseCode: string;
  message: string | null;
  createdAt: Date;
}

/** Where a charged (or reconciled) profile goes next. */
export interface ProfileMove {
  profile: RecurringProfile;
  change: PositionChange;
  attempt: { paymentId?: string; failure?: string };
}

/** The longest LastFailure stored. */
const FAILURE_MAX = 500;

/**
 * Every statement of the billing run: leases (claim, release), the payments of a bill date, and
 * the moves of a batch. The conditions that make a bill date charged once with any number of
 * workers are in these statements (billing-service.ts says how they fit together).
 */
export class BillingRepository {
  readonly #store: Pick<Store, 'db' | 'sql'>;

  constructor(store: Pick<Store, 'db' | 'sql'>) {
    this.#store = store;
  }

  /**
   * Leases up to `limit` profiles due on or before `asOf`, of active partners, that no live lease
   * holds (`FOR UPDATE SKIP LOCKED`: no two workers lease the same profile), until `expires`.
   */
  async claim(workerId: string, asOf: CalendarDate, now: Date, expires: Date, limit: number): Promise<ClaimedProfile[]> {
    const leased = await this.#store.sql.query<{ id: string; abandoned_claim_at: Date | string | null }>(
      `UPDATE recurring_profiles p
          SET lease_owner = $1, lease_claimed_at = $2, lease_expires_at = $3
         FROM (SELECT r.id, r.lease_claimed_at AS abandoned_claim_at
                 FROM recurring_profiles r
                WHERE r.status = 'active'
                  AND r.next_attempt_on <= $4::date
                  AND (r.lease_expires_at IS NULL OR r.lease_expires_at <= $2)
                  AND EXISTS (SELECT 1 FROM partners pa WHERE pa.id = r.partner_id AND pa.status = 'active')
                ORDER BY r.next_attempt_on, r.id
                LIMIT $5
                  FOR UPDATE OF r SKIP LOCKED) due
        WHERE p.id = due.id
       RETURNING p.id, due.abandoned_claim_at`,
      [workerId, now.toISOString(), expires.toISOString(), asOf, limit],
    );
    if (leased.length === 0) return [];
    const abandoned = new Map(leased.map((r) => [r.id, r.abandoned_claim_at === null ? null : new Date(r.abandoned_claim_at)]));
    const rows = await this.#store.db
      .select({ profile: recurringProfiles, partnerName: partners.name, partnerKind: partners.kind, tokenKind: paymentTokens.kind })
      .from(recurringProfiles)
      .innerJoin(partners, eq(partners.id, recurringProfiles.partnerId))
      .innerJoin(paymentTokens, eq(paymentTokens.id, recurringProfiles.tokenId))
      .where(inArray(recurringProfiles.id, [...abandoned.keys()]));
    return rows.map((r) => ({
      profile: profileOf(r.profile),
      partner: { id: r.profile.partnerId, name: r.partnerName, kind: r.partnerKind as PartnerKind },
      tokenKind: r.tokenKind,
      abandonedClaimAt: abandoned.get(r.profile.id) ?? null,
    }));
  }

  /** The payments made for a profile's bill date, any result. */
  async billDatePayments(profileId: string, billDate: CalendarDate): Promise<BillDatePayment[]> {
    return this.#store.db
      .select({ id: payments.id, paymentResult: payments.paymentResult, responseCode: payments.responseCode, message: payments.message, createdAt: payments.createdAt })
      .from(payments)
      .where(and(eq(payments.recurringProfileId, profileId), eq(payments.billDate, billDate)));
  }

  /** Sets LastFailure of a profile this worker still holds. */
  async noteFailure(profileId: string, workerId: string, failure: string): Promise<void> {
    await this.#store.db
      .update(recurringProfiles)
      .set({ lastFailure: failure })
      .where(and(eq(recurringProfiles.id, profileId), eq(recurringProfiles.leaseOwner, workerId)));
  }

  /**
   * Puts off a profile this worker holds until `nextAttemptOn`, saying why, and gives up the lease.
   * lease_claimed_at stays: the next claim sees an unresolved attempt and looks again before charging.
   */
  async defer(profileId: string, workerId: string, nextAttemptOn: CalendarDate, failure: string): Promise<void> {
    await this.#store.db
      .update(recurringProfiles)
      .set({ nextAttemptOn, lastFailure: failure, leaseOwner: null, leaseExpiresAt: null })
      .where(and(eq(recurringProfiles.id, profileId), eq(recurringProfiles.leaseOwner, workerId)));
  }

  /**
   * Moves each profile of a batch to its change and releases its lease, in one statement, only
   * where nobody moved the profile or changed the terms the change was worked out from meanwhile
   * (status, bill date, failed attempts, frequency, anchor day, end date), and no other worker
   * holds it. Returns the profiles moved, with their new status.
   */
  async applyMoves(moves: readonly ProfileMove[], now: Date, workerId: string): Promise<{ id: string; status: string }[]> {
    const rows = moves.map(({ profile: p, change, attempt }) => ({
      id: p.id,
      was_bill_date: p.nextBillDate,
      was_failed: p.failedAttempts,
      was_frequency: p.billingFrequency,
      was_anchor_day: p.anchorDay,
      was_end_date: p.endDate,
      status: change.status,
      next_bill_date: change.nextBillDate,
      next_attempt_on: change.nextAttemptOn,
      failed_attempts: change.failedAttempts,
      payment_id: attempt.paymentId ?? null,
      attempted: attempt.paymentId !== undefined || attempt.failure !== undefined,
      failure: attempt.failure === undefined ? null : attempt.failure.slice(0, FAILURE_MAX),
    }));
    return this.#store.sql.query<{ id: string; status: string }>(
      `UPDATE recurring_profiles p
          SET status = m.status,
              next_bill_date = m.next_bill_date::date,
              next_attempt_on = m.next_attempt_on::date,
              failed_attempts = m.failed_attempts,
              last_payment_id = coalesce(m.payment_id, p.last_payment_id),
              last_attempt_at = CASE WHEN m.attempted THEN $2::timestamptz ELSE p.last_attempt_at END,
              last_failure = CASE WHEN m.failure IS NOT NULL THEN m.failure WHEN m.failed_attempts = 0 THEN NULL ELSE p.last_failure END,
              suspended_at = CASE WHEN m.status = 'suspended' THEN $2::timestamptz ELSE p.suspended_at END,
              completed_at = CASE WHEN m.status = 'completed' THEN $2::timestamptz ELSE p.completed_at END,
              lease_owner = NULL, lease_claimed_at = NULL, lease_expires_at = NULL
         FROM jsonb_to_recordset($1::jsonb) AS m(id uuid, was_bill_date date, was_failed smallint, was_frequency text, was_anchor_day smallint,
              was_end_date date, status text, next_bill_date text, next_attempt_on text, failed_attempts smallint, payment_id uuid,
              attempted boolean, failure text)
        WHERE p.id = m.id AND p.status = 'active' AND p.next_bill_date = m.was_bill_date AND p.failed_attempts = m.was_failed
          AND p.billing_frequency = m.was_frequency AND p.anchor_day = m.was_anchor_day AND p.end_date IS NOT DISTINCT FROM m.was_end_date
          AND (p.lease_owner IS NULL OR p.lease_owner = $3)
       RETURNING p.id, p.status`,
      [JSON.stringify(rows), now.toISOString(), workerId],
    );
  }

  /** Gives up this worker's leases of `ids`, changing nothing else. */
  async releaseLeases(ids: readonly string[], workerId: string): Promise<void> {
    await this.#store.sql.query(
      'UPDATE recurring_profiles SET lease_owner = NULL, lease_claimed_at = NULL, lease_expires_at = NULL WHERE id = ANY($1::uuid[]) AND lease_owner = $2',
      [ids, workerId],
    );
  }

  /** Per status: how many profiles, how many are due as of `asOf`, how many a live lease holds at `now`. */
  async countByStatus(asOf: CalendarDate, now: Date): Promise<{ status: string; total: number; due: number; leased: number }[]> {
    const rows = await this.#store.sql.query<{ status: string; total: number | string; due: number | string; leased: number | string }>(
      `SELECT status, count(*) AS total,
              count(*) FILTER (WHERE status = 'active' AND next_attempt_on <= $1::date) AS due,
              count(*) FILTER (WHERE lease_expires_at > $2) AS leased
         FROM recurring_profiles GROUP BY status`,
      [asOf, now.toISOString()],
    );
    return rows.map((r) => ({ status: r.status, total: Number(r.total), due: Number(r.due), leased: Number(r.leased) }));
  }
}
