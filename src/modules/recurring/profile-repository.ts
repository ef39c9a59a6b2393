import type { BillingFrequency } from '../../domain/billing-dates.ts';
import type { Holder, HolderField } from '../../domain/holder.ts';
import type { Db, DbOrTx, Tx } from '../../platform/database/database.ts';
import { and, eq } from '../../platform/database/drizzle.ts';
import { recurringProfiles } from '../../platform/database/schema/index.ts';
import type { NewRecurringProfile, RecurringProfile, RecurringProfileChanges } from './profile.ts';

type ProfileRow = typeof recurringProfiles.$inferSelect;

/** The payer's columns: one per holder field, of the same name. */
const PAYER_COLUMNS = Object.keys({
  firstName: 0,
  lastName: 0,
  street: 0,
  city: 0,
  state: 0,
  zip: 0,
  country: 0,
  email: 0,
  externalConstituentId: 0,
} satisfies Record<HolderField, 0>) as HolderField[];

/** A stored row as the module's profile (the billing run's leases stay in the database). */
export function profileOf(row: ProfileRow): RecurringProfile {
  const payer: Holder = {};
  for (const field of PAYER_COLUMNS) {
    const value = row[field];
    if (value !== null) payer[field] = value;
  }
  return {
    id: row.id,
    profileId: row.profileId,
    partnerId: row.partnerId,
    tokenId: row.tokenId,
    processorId: row.processorId,
    integrationSourceId: row.integrationSourceId,
    organizationId: row.organizationId,
    charityId: row.charityId,
    status: row.status,
    billingFrequency: row.billingFrequency as BillingFrequency,
    anchorDay: row.anchorDay,
    startDate: row.startDate,
    endDate: row.endDate,
    nextBillDate: row.nextBillDate,
    nextAttemptOn: row.nextAttemptOn,
    failedAttempts: row.failedAttempts,
    amountCents: row.amountCents,
    preFeeAmountCents: row.preFeeAmountCents,
    payFee: row.payFee,
    transactionSourceGroupId: row.transactionSourceGroupId,
    commissionRateOverride: row.commissionRateOverride,
    cardProcessingFeeOverride: row.cardProcessingFeeOverride,
    surchargeCents: row.surchargeCents,
    feeCommissionRate: row.feeCommissionRate,
    feeCardRate: row.feeCardRate,
    feesTakenAt: row.feesTakenAt,
    externalEventId: row.externalEventId,
    externalEventGuid: row.externalEventGuid,
    externalEventName: row.externalEventName,
    payer,
    currency: row.currency,
    lastPaymentId: row.lastPaymentId,
    lastAttemptAt: row.lastAttemptAt,
    lastFailure: row.lastFailure,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    suspendedAt: row.suspendedAt,
    completedAt: row.completedAt,
    cancelledAt: row.cancelledAt,
  };
}

/** Every statement of a partner's profiles: read, create, update under a row lock. The billing run's are in billing-repository.ts. */
export class RecurringProfileRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Runs `fn` in one transaction; the methods below take its `tx`. */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.#db.transaction(fn);
  }

  /** The partner's profile `id` (a lower-case GUID); `lock`: held FOR UPDATE until `tx` ends. */
  async find(partnerId: string, id: string, options: { tx?: DbOrTx; lock?: boolean } = {}): Promise<RecurringProfile | undefined> {
    const query = (options.tx ?? this.#db)
      .select()
      .from(recurringProfiles)
      .where(and(eq(recurringProfiles.id, id), eq(recurringProfiles.partnerId, partnerId)));
    const [row] = options.lock ? await query.for('update') : await query;
    return row && profileOf(row);
  }

  async insert(p: NewRecurringProfile): Promise<RecurringProfile> {
    const [row] = await this.#db
      .insert(recurringProfiles)
      .values({
        id: p.id,
        partnerId: p.partnerId,
        tokenId: p.tokenId,
        processorId: p.processorId,
        integrationSourceId: p.integrationSourceId,
        organizationId: p.organizationId,
        charityId: p.charityId,
        status: p.status,
        billingFrequency: p.billingFrequency,
        anchorDay: p.anchorDay,
        startDate: p.startDate,
        endDate: p.endDate,
        nextBillDate: p.nextBillDate,
        nextAttemptOn: p.nextAttemptOn,
        failedAttempts: p.failedAttempts,
        lastPaymentId: p.lastPaymentId,
        amountCents: p.amountCents,
        preFeeAmountCents: p.preFeeAmountCents,
        payFee: p.payFee,
        transactionSourceGroupId: p.transactionSourceGroupId,
        commissionRateOverride: p.commissionRateOverride,
        cardProcessingFeeOverride: p.cardProcessingFeeOverride,
        surchargeCents: p.surchargeCents,
        feeCommissionRate: p.feeCommissionRate,
        feeCardRate: p.feeCardRate,
        feesTakenAt: p.feesTakenAt,
        externalEventId: p.externalEventId,
        externalEventGuid: p.externalEventGuid,
        externalEventName: p.externalEventName,
        ...(Object.fromEntries(PAYER_COLUMNS.map((field) => [field, p.payer[field] ?? null])) as Record<HolderField, string | null>),
        currency: p.currency,
        createdAt: p.createdAt,
        updatedAt: p.updatedAt,
      })
      .returning();
    return profileOf(row!);
  }

  /** Writes `changes` (undefined fields stay) to profile `id`, in `tx`. */
  async update(id: string, changes: RecurringProfileChanges, tx: Tx): Promise<RecurringProfile> {
    const [row] = await tx.update(recurringProfiles).set(changes).where(eq(recurringProfiles.id, id)).returning();
    return profileOf(row!);
  }
}
