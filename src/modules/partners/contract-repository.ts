import type { FeeSchedule } from '../../domain/fee-schedule.ts';
import type { Db, DbOrTx } from '../../platform/database/database.ts';
import { feeSchedules } from '../../platform/database/schema/index.ts';
import { and, asc, eq } from '../../platform/database/drizzle.ts';

/** Every statement on partners' contracts: their fee schedules, one per TransactionSourceGroupId. */
export class ContractRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** The partner's fee schedules by group; inside `tx` when given. */
  async schedules(partnerId: string, tx: DbOrTx = this.#db): Promise<FeeSchedule[]> {
    const rows = await tx.select().from(feeSchedules).where(eq(feeSchedules.partnerId, partnerId)).orderBy(asc(feeSchedules.groupId));
    return rows.map(toSchedule);
  }

  /** Creates or replaces the schedule of one group. */
  async put(partnerId: string, schedule: FeeSchedule, updatedAt: Date): Promise<void> {
    const values = {
      partnerId,
      groupId: schedule.groupId,
      cardFeeRate: schedule.cardFeeRate,
      platformCommissionRate: schedule.platformCommissionRate,
      maxCommissionRate: schedule.maxCommissionRate,
      perTransFeeCents: schedule.perTransFeeCents,
      cardTypeFees: schedule.cardTypeFeesCents,
      achFeeRate: schedule.achFeeRate,
      achFeeCapCents: schedule.achFeeCapCents,
      updatedAt,
    };
    await this.#db
      .insert(feeSchedules)
      .values(values)
      .onConflictDoUpdate({ target: [feeSchedules.partnerId, feeSchedules.groupId], set: values });
  }

  /** Whether there was a schedule of the group to remove. */
  async remove(partnerId: string, groupId: number): Promise<boolean> {
    const gone = await this.#db
      .delete(feeSchedules)
      .where(and(eq(feeSchedules.partnerId, partnerId), eq(feeSchedules.groupId, groupId)))
      .returning({ g: feeSchedules.groupId });
    return gone.length > 0;
  }
}

function toSchedule(row: typeof feeSchedules.$inferSelect): FeeSchedule {
  return {
    groupId: row.groupId,
    cardFeeRate: normalizeRate(row.cardFeeRate),
    platformCommissionRate: normalizeRate(row.platformCommissionRate),
    maxCommissionRate: normalizeRate(row.maxCommissionRate),
    perTransFeeCents: Number(row.perTransFeeCents),
    cardTypeFeesCents: row.cardTypeFees ?? {},
    achFeeRate: normalizeRate(row.achFeeRate),
    achFeeCapCents: row.achFeeCapCents === null ? null : Number(row.achFeeCapCents),
  };
}

/** numeric comes back as text with whatever scale it was stored with: "2.90" -> "2.9". */
function normalizeRate(text: string): string {
  if (!text.includes('.')) return text;
  return text.replace(/0+$/, '').replace(/\.$/, '');
}
