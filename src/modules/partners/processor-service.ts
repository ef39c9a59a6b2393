import type { AuthenticatedPartner } from '../../domain/partner.ts';
import type { Db, DbOrTx } from '../../platform/database/database.ts';
import { processors } from '../../platform/database/schema/index.ts';
import { NotFoundError } from '../../platform/errors.ts';
import { and, eq } from '../../platform/database/drizzle.ts';

export type ProcessorRow = typeof processors.$inferSelect;

/** A partner's processors: by guid, by MKey, or the partner's default. */
export class ProcessorService {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /**
   * The processor a request names (by guid and/or MKey; both must then name the same one), or
   * the partner's default when it names none. Another partner's processor is "not found".
   */
  async resolve(partner: AuthenticatedPartner, ref: { processorId?: string; mkey?: string }, db: DbOrTx = this.#db): Promise<ProcessorRow> {
    const conditions = [eq(processors.partnerId, partner.id)];
    if (ref.processorId) conditions.push(eq(processors.id, ref.processorId.toLowerCase()));
    if (ref.mkey) conditions.push(eq(processors.mkey, ref.mkey));
    if (!ref.processorId && !ref.mkey) conditions.push(eq(processors.isDefault, true));
    const [row] = await db.select().from(processors).where(and(...conditions)).limit(1);
    if (!row) throw new NotFoundError(ref.processorId || ref.mkey ? 'No such processor.' : 'The partner has no default processor.');
    return row;
  }
}
