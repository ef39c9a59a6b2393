import type { Db, DbOrTx } from '../../platform/database/database.ts';
import { processorCredentials, processors } from '../../platform/database/schema/index.ts';
import { and, asc, eq, gt, ne, sql } from '../../platform/database/drizzle.ts';
import { rowsOf } from '../../platform/database/rows.ts';

export type Environment = 'sandbox' | 'production';

/** A processor's sealed credentials as stored. */
export interface SealedCredentials {
  processorId: string;
  environment: Environment;
  ciphertext: string;
  keyId: string;
}

/** A processor as this module reads it (the partners module owns the table). */
export interface ProcessorOfAccount {
  id: string;
  partnerId: string;
  name: string;
  adapter: string;
}

/** Every SQL statement of the processor-accounts module (issue 30). */
export class ProcessorAccountRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async insert(tx: DbOrTx, row: SealedCredentials, now: Date): Promise<void> {
    await tx.insert(processorCredentials).values({
      processorId: row.processorId,
      environment: row.environment,
      secretCiphertext: row.ciphertext,
      secretKeyId: row.keyId,
      createdAt: now,
      updatedAt: now,
    });
  }

  async find(processorId: string, db: DbOrTx = this.#db): Promise<SealedCredentials | undefined> {
    const [row] = await db.select().from(processorCredentials).where(eq(processorCredentials.processorId, processorId));
    return row ? { processorId: row.processorId, environment: row.environment, ciphertext: row.secretCiphertext, keyId: row.secretKeyId } : undefined;
  }

  /** A processor by its id, whoever's it is (the operator's commands). */
  async processor(processorId: string): Promise<ProcessorOfAccount | undefined> {
    const [row] = await this.#db
      .select({ id: processors.id, partnerId: processors.partnerId, name: processors.name, adapter: processors.adapter })
      .from(processors)
      .where(eq(processors.id, processorId));
    return row;
  }

  /** The vault keys the stored credentials are sealed under. */
  async keyIdsInUse(): Promise<string[]> {
    const rows = rowsOf<{ key_id: string }>(await this.#db.execute(sql`SELECT DISTINCT secret_key_id AS key_id FROM processor_credentials ORDER BY 1`));
    return rows.map((r) => r.key_id);
  }

  /** Credentials not sealed under `keyId`, after `afterId` in id order, locked for re-sealing in `tx`. */
  async notUnder(tx: DbOrTx, keyId: string, afterId: string, limit: number): Promise<SealedCredentials[]> {
    const rows = await tx
      .select()
      .from(processorCredentials)
      .where(and(ne(processorCredentials.secretKeyId, keyId), gt(processorCredentials.processorId, afterId)))
      .orderBy(asc(processorCredentials.processorId))
      .limit(limit)
      .for('update');
    return rows.map((row) => ({ processorId: row.processorId, environment: row.environment, ciphertext: row.secretCiphertext, keyId: row.secretKeyId }));
  }

  async reseal(tx: DbOrTx, processorId: string, sealed: { ciphertext: string; keyId: string }, now: Date): Promise<void> {
    await tx
      .update(processorCredentials)
      .set({ secretCiphertext: sealed.ciphertext, secretKeyId: sealed.keyId, updatedAt: now })
      .where(eq(processorCredentials.processorId, processorId));
  }

  transaction<T>(fn: (tx: DbOrTx) => Promise<T>): Promise<T> {
    return this.#db.transaction(fn);
  }
}
