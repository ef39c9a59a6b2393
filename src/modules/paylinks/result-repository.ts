import type { Db } from '../../platform/database/database.ts';
import { payLinkResults, payLinks } from '../../platform/database/schema/index.ts';
import { and, eq, gt, isNull, lt } from '../../platform/database/drizzle.ts';

/** A responseToken as stored: its hash, never the token. */
export interface StoredResult {
  tokenHash: string;
  payLinkId: string;
  partnerId: string;
  paymentId: string | null;
  tokenId: string | null;
  createdAt: Date;
  expiresAt: Date;
}

/** Every statement on the responseTokens of pay links. */
export class PayLinkResultRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async insert(result: StoredResult): Promise<void> {
    await this.#db.insert(payLinkResults).values(result);
  }

  /** Marks the partner's unused, unexpired token used at `now` and returns it; undefined when there is none. */
  async redeem(tokenHash: string, partnerId: string, now: Date): Promise<StoredResult | undefined> {
    const [row] = await this.#db
      .update(payLinkResults)
      .set({ usedAt: now })
      .where(and(eq(payLinkResults.tokenHash, tokenHash), eq(payLinkResults.partnerId, partnerId), isNull(payLinkResults.usedAt), gt(payLinkResults.expiresAt, now)))
      .returning();
    if (!row) return undefined;
    return {
      tokenHash: row.tokenHash,
      payLinkId: row.payLinkId,
      partnerId: row.partnerId,
      paymentId: row.paymentId,
      tokenId: row.tokenId,
      createdAt: row.createdAt,
      expiresAt: row.expiresAt,
    };
  }

  /** The recurring profile the link's recurring line started, if any. */
  async recurringProfileOf(payLinkId: string): Promise<string | null> {
    const [link] = await this.#db.select({ recurringProfileId: payLinks.recurringProfileId }).from(payLinks).where(eq(payLinks.id, payLinkId));
    return link?.recurringProfileId ?? null;
  }

  /** Deletes the tokens that expired before `cutoff`: how many. */
  async deleteExpiredBefore(cutoff: Date): Promise<number> {
    const gone = await this.#db.delete(payLinkResults).where(lt(payLinkResults.expiresAt, cutoff)).returning({ h: payLinkResults.tokenHash });
    return gone.length;
  }
}
