import { PaymentResult } from '../../domain/payment-status.ts';
import type { Db } from '../../platform/database/database.ts';
import { partners, payLinks, payments } from '../../platform/database/schema/index.ts';
import { and, asc, eq, inArray, isNull, lt, ne, notExists, or, sql } from '../../platform/database/drizzle.ts';
import type { PayLinkLease, PayLinkSettings, StoredPayLink } from './paylink.ts';
import type { PayLinkLine, WorkflowType } from './paylink-rules.ts';

/** A link's payment in one of these states blocks another (migrations/0011_pay_link_payments.sql). */
const MAY_HAVE_CHARGED = [PaymentResult.Pending, PaymentResult.Processing, PaymentResult.Successful];

/** A new link, as `PayLinkService.create` made it. */
export type NewPayLink = Pick<StoredPayLink, 'id' | 'integrationSourceId' | 'processorId' | 'workflowType' | 'redirectUrl' | 'tranId' | 'lines' | 'settings' | 'createdAt'> & {
  partnerId: string;
};

/** Every statement on pay links: the links, their leases and completion. */
export class PayLinkRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async insert(link: NewPayLink): Promise<void> {
    await this.#db.insert(payLinks).values({
      id: link.id,
      partnerId: link.partnerId,
      integrationSourceId: link.integrationSourceId,
      processorId: link.processorId,
      workflowType: link.workflowType,
      status: 'active',
      redirectUrl: link.redirectUrl,
      tranId: link.tranId,
      lines: link.lines,
      settings: link.settings as unknown as Record<string, unknown>,
      createdAt: link.createdAt,
    });
  }

  /** Cancels the partner's link (keeping the first cancellation's time): false when it has no such link. */
  async cancel(partnerId: string, id: string, now: Date): Promise<boolean> {
    const [row] = await this.#db
      .update(payLinks)
      .set({ status: 'cancelled', cancelledAt: sql`coalesce(${payLinks.cancelledAt}, ${now})` })
      .where(and(eq(payLinks.id, id), eq(payLinks.partnerId, partnerId)))
      .returning({ id: payLinks.id });
    return row !== undefined;
  }

  /** The link with its partner, and whether the partner is active. */
  async find(id: string): Promise<{ link: StoredPayLink; partnerActive: boolean } | undefined> {
    const [row] = await this.#db
      .select({ link: payLinks, partnerName: partners.name, partnerKind: partners.kind, partnerStatus: partners.status })
      .from(payLinks)
      .innerJoin(partners, eq(partners.id, payLinks.partnerId))
      .where(eq(payLinks.id, id));
    if (!row) return undefined;
    const l = row.link;
    return {
      partnerActive: row.partnerStatus === 'active',
      link: {
        id: l.id,
        partner: { id: l.partnerId, name: row.partnerName, kind: row.partnerKind },
        integrationSourceId: l.integrationSourceId,
        processorId: l.processorId,
        workflowType: l.workflowType as WorkflowType,
        status: l.status,
        redirectUrl: l.redirectUrl,
        tranId: l.tranId,
        lines: l.lines as PayLinkLine[],
        settings: l.settings as unknown as PayLinkSettings,
        paymentId: l.paymentId,
        tokenId: l.tokenId,
        recurringProfileId: l.recurringProfileId,
        createdAt: l.createdAt,
      },
    };
  }

  /**
   * Takes the lease of an active link until `until`, when no lease runs at `now` and no payment
   * through the link may have charged the payer: true when taken.
   */
  async hold(id: string, now: Date, until: Date): Promise<boolean> {
    const rows = await this.#db
      .update(payLinks)
      .set({ leaseUntil: until })
      .where(
        and(
          eq(payLinks.id, id),
          eq(payLinks.status, 'active'),
          or(isNull(payLinks.leaseUntil), lt(payLinks.leaseUntil, now)),
          notExists(
            this.#db
              .select({ one: sql`1` })
              .from(payments)
              .where(and(eq(payments.payLinkId, id), inArray(payments.paymentResult, MAY_HAVE_CHARGED))),
          ),
        ),
      )
      .returning({ id: payLinks.id });
    return rows.length === 1;
  }

  /** Ends the lease, when it is still the link's: true when it was. */
  async release(lease: PayLinkLease): Promise<boolean> {
    const rows = await this.#db
      .update(payLinks)
      .set({ leaseUntil: null })
      .where(held(lease))
      .returning({ id: payLinks.id });
    return rows.length === 1;
  }

  /** Completes the link under the lease: true when the lease was still the link's. */
  async complete(lease: PayLinkLease, outcome: { paymentId?: string; tokenId?: string }, now: Date): Promise<boolean> {
    const rows = await this.#db
      .update(payLinks)
      .set({
        status: 'completed',
        paymentId: outcome.paymentId ?? null,
        tokenId: outcome.tokenId ?? null,
        completedAt: now,
        leaseUntil: null,
      })
      .where(held(lease))
      .returning({ id: payLinks.id });
    return rows.length === 1;
  }

  /** The first successful payment made through the link. */
  async firstSuccessfulPayment(id: string): Promise<string | undefined> {
    const [paid] = await this.#db
      .select({ id: payments.id })
      .from(payments)
      .where(and(eq(payments.payLinkId, id), eq(payments.paymentResult, PaymentResult.Successful)))
      .orderBy(asc(payments.createdAt))
      .limit(1);
    return paid?.id;
  }

  /** Completes a link that is still active with `paymentId`, whoever holds it: true when it did. */
  async completeWithPayment(id: string, paymentId: string, now: Date): Promise<boolean> {
    const rows = await this.#db
      .update(payLinks)
      .set({ status: 'completed', paymentId, completedAt: now, leaseUntil: null })
      .where(and(eq(payLinks.id, id), eq(payLinks.status, 'active')))
      .returning({ id: payLinks.id });
    return rows.length === 1;
  }

  async paymentIdOf(id: string): Promise<string | null> {
    const [row] = await this.#db.select({ paymentId: payLinks.paymentId }).from(payLinks).where(eq(payLinks.id, id));
    return row?.paymentId ?? null;
  }

  async setRecurringProfile(id: string, profileId: string): Promise<void> {
    await this.#db.update(payLinks).set({ recurringProfileId: profileId }).where(eq(payLinks.id, id));
  }

  /**
   * A payment of the integration source that holds `tranId` under duplicate checking: the
   * conditions of payments_tran_id_once, the index the duplicate check is.
   */
  async paymentHoldingTranId(integrationSourceId: string, tranId: string): Promise<string | undefined> {
    const [held] = await this.#db
      .select({ id: payments.id })
      .from(payments)
      .where(
        and(
          eq(payments.integrationSourceId, integrationSourceId),
          eq(payments.tranId, tranId),
          eq(payments.duplicateChecked, true),
          ne(payments.paymentResult, PaymentResult.Failed),
        ),
      )
      .limit(1);
    return held?.id;
  }
}

/** The lease is still the link's: the link is active and its lease ends at the lease's instant. */
function held(lease: PayLinkLease) {
  return and(eq(payLinks.id, lease.id), eq(payLinks.status, 'active'), eq(payLinks.leaseUntil, lease.until));
}
