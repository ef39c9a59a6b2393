import type { AccountTypeId, CheckTypeId } from '../../domain/bank.ts';
import { CARD_BRANDS, type CardPaymentMethodTypeId } from '../../domain/cards.ts';
import type { Db, DbOrTx, Tx } from '../../platform/database/database.ts';
import { and, asc, count, desc, eq, gt, inArray, ne, sql } from '../../platform/database/drizzle.ts';
import { rowsOf } from '../../platform/database/rows.ts';
import { paymentTokens } from '../../platform/database/schema/index.ts';
import type { NewToken, StoredToken } from './stored-token.ts';

type TokenRow = typeof paymentTokens.$inferSelect;

/** A sealed secret: its ciphertext and the vault key that sealed it. */
export interface SealedSecret {
  ciphertext: string;
  keyId: string;
}

/**
 * Every statement on `payment_tokens` and the customer key sequence. Lookups take a partner and
 * see its active tokens only. A method that may run in a caller's transaction takes `tx`.
 */
export class TokenRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** A partner's active token by TokenGuid (`id`, lower case) or by gateway key. */
  async findActive(partnerId: string, ref: { id: string } | { gatewayKey: number }, tx: DbOrTx = this.#db): Promise<StoredToken | undefined> {
    const where = 'id' in ref ? eq(paymentTokens.id, ref.id) : eq(paymentTokens.gatewayKey, ref.gatewayKey);
    const [row] = await tx
      .select()
      .from(paymentTokens)
      .where(and(where, eq(paymentTokens.partnerId, partnerId), eq(paymentTokens.status, 'active')));
    return row ? toStoredToken(row) : undefined;
  }

  /** The sealed number of a partner's active token; undefined when there is none (or it holds none). */
  async activeCiphertext(partnerId: string, id: string, tx: DbOrTx = this.#db): Promise<string | undefined> {
    const [row] = await tx
      .select({ ciphertext: paymentTokens.secretCiphertext })
      .from(paymentTokens)
      .where(and(eq(paymentTokens.id, id), eq(paymentTokens.partnerId, partnerId), eq(paymentTokens.status, 'active')));
    return row?.ciphertext || undefined;
  }

  /** A partner's active tokens of one constituent, newest first. */
  async listByConstituent(partnerId: string, externalConstituentId: string, tx: DbOrTx = this.#db): Promise<StoredToken[]> {
    const rows = await tx
      .select()
      .from(paymentTokens)
      .where(
        and(
          eq(paymentTokens.partnerId, partnerId),
          eq(paymentTokens.externalConstituentId, externalConstituentId),
          eq(paymentTokens.status, 'active'),
        ),
      )
      .orderBy(desc(paymentTokens.createdAt), desc(paymentTokens.gatewayKey));
    return rows.map(toStoredToken);
  }

  /** Marks a token deleted and erases its ciphertext. */
  async markDeleted(partnerId: string, id: string, at: Date, tx: DbOrTx = this.#db): Promise<void> {
    await tx
      .update(paymentTokens)
      .set({ status: 'deleted', deletedAt: at, secretCiphertext: '', secretKeyId: '' })
      .where(and(eq(paymentTokens.id, id), eq(paymentTokens.partnerId, partnerId)));
  }

  /** The next CustomerKey of the sequence, as text. */
  async nextCustomerKey(tx: DbOrTx = this.#db): Promise<string> {
    return rowsOf<{ key: string }>(await tx.execute(sql`SELECT nextval('customer_key_seq')::text AS key`))[0]!.key;
  }

  /** The CustomerKey of a constituent's first active token, if it has one. */
  async firstCustomerKeyOf(partnerId: string, externalConstituentId: string, tx: DbOrTx = this.#db): Promise<string | undefined> {
    const [existing] = await tx
      .select({ customerKey: paymentTokens.customerKey })
      .from(paymentTokens)
      .where(
        and(
          eq(paymentTokens.partnerId, partnerId),
          eq(paymentTokens.externalConstituentId, externalConstituentId),
          eq(paymentTokens.status, 'active'),
        ),
      )
      .orderBy(asc(paymentTokens.createdAt))
      .limit(1);
    return existing?.customerKey;
  }

  /**
   * Runs `fn` in a transaction (a savepoint inside a caller's) that holds a lock on one
   * constituent of a partner until it ends: two tokens of a new constituent stored at once
   * take turns.
   */
  async withConstituentLock<T>(partnerId: string, externalConstituentId: string, tx: DbOrTx = this.#db, fn: (tx: Tx) => Promise<T>): Promise<T> {
    return tx.transaction(async (locked) => {
      await locked.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`customer:${partnerId}:${externalConstituentId}`}, 0))`);
      return fn(locked);
    });
  }

  /**
   * Writes a new token; returns it with the gateway key the sequence gave. One statement written
   * out: every surface's tokenization ends here, and Drizzle's insert builder costs several times
   * the rest of a GetToken call. Only the gateway key comes back; everything else is what we wrote.
   */
  async insert(row: NewToken, tx: DbOrTx = this.#db): Promise<StoredToken> {
    const result = await tx.execute(sql`
      INSERT INTO payment_tokens (id, partner_id, kind, customer_key, customer_id, external_constituent_id, secret_ciphertext,
        secret_key_id, last4, payment_method_type_id, exp_month, exp_year, routing_number, account_type, check_type, bank_country,
        name_on_account, first_name, last_name, street, zip, source, status, created_at)
      VALUES (${row.id}, ${row.partnerId}, ${row.kind}, ${row.customerKey}, ${row.customerId}, ${row.externalConstituentId},
        ${row.secretCiphertext}, ${row.secretKeyId}, ${row.last4}, ${row.paymentMethodTypeId}, ${row.expMonth}, ${row.expYear},
        ${row.routingNumber}, ${row.accountType}, ${row.checkType}, ${row.bankCountry}, ${row.nameOnAccount}, ${row.firstName},
        ${row.lastName}, ${row.street}, ${row.zip}, ${row.source}, ${row.status}, ${row.createdAt.toISOString()})
      RETURNING gateway_key`);
    return toStoredToken({ ...row, gatewayKey: Number(rowsOf<{ gateway_key: number | string }>(result)[0]!.gateway_key) });
  }

  /**
   * The vault keys that hold stored secrets, one index probe per key (a skip scan of
   * `payment_tokens_key_id`): counting every token of a vault of a million took 160-200 ms.
   */
  async keyIdsInUse(tx: DbOrTx = this.#db): Promise<string[]> {
    const rows = rowsOf<{ key_id: string }>(
      await tx.execute(sql`
        WITH RECURSIVE k(key_id) AS (
          (SELECT secret_key_id FROM payment_tokens WHERE secret_key_id > '' ORDER BY secret_key_id LIMIT 1)
          UNION ALL
          SELECT (SELECT t.secret_key_id FROM payment_tokens t WHERE t.secret_key_id > k.key_id ORDER BY t.secret_key_id LIMIT 1)
          FROM k WHERE k.key_id IS NOT NULL)
        SELECT key_id FROM k WHERE key_id IS NOT NULL`),
    );
    return rows.map((r) => r.key_id);
  }

  /** How many stored secrets each vault key holds (deleted tokens hold none); all keys, or `keyIds`. */
  async keyUsage(keyIds?: string[], tx: DbOrTx = this.#db): Promise<{ keyId: string; tokens: number }[]> {
    const rows = await tx
      .select({ keyId: paymentTokens.secretKeyId, tokens: count() })
      .from(paymentTokens)
      .where(keyIds ? inArray(paymentTokens.secretKeyId, keyIds) : ne(paymentTokens.secretKeyId, ''))
      .groupBy(paymentTokens.secretKeyId)
      .orderBy(asc(paymentTokens.secretKeyId));
    return rows.map((r) => ({ keyId: r.keyId, tokens: Number(r.tokens) }));
  }

  /**
   * One batch of a re-encryption, in its own transaction with its rows locked: up to `limit`
   * secrets not under `currentKeyId`, in id order after `after`. `reseal` gives each one's new
   * sealed secret, or undefined to leave it as it is. Returns the batch's last id (undefined when
   * there was nothing left).
   */
  async resealBatch(currentKeyId: string, after: string, limit: number, reseal: (id: string, ciphertext: string) => SealedSecret | undefined): Promise<string | undefined> {
    const rows = await this.#db.transaction(async (tx) => {
      const batch = await tx
        .select({ id: paymentTokens.id, ciphertext: paymentTokens.secretCiphertext })
        .from(paymentTokens)
        .where(and(ne(paymentTokens.secretKeyId, currentKeyId), ne(paymentTokens.secretKeyId, ''), gt(paymentTokens.id, after)))
        .orderBy(asc(paymentTokens.id))
        .limit(limit)
        .for('update');
      for (const row of batch) {
        const sealed = reseal(row.id, row.ciphertext);
        if (!sealed) continue;
        await tx
          .update(paymentTokens)
          .set({ secretCiphertext: sealed.ciphertext, secretKeyId: sealed.keyId })
          .where(eq(paymentTokens.id, row.id));
      }
      return batch;
    });
    return rows.length === 0 ? undefined : rows[rows.length - 1]!.id;
  }
}

function toStoredToken(row: TokenRow): StoredToken {
  const brand = row.kind === 'card' ? CARD_BRANDS[row.paymentMethodTypeId as CardPaymentMethodTypeId] : undefined;
  return {
    id: row.id,
    partnerId: row.partnerId,
    kind: row.kind,
    gatewayKey: String(row.gatewayKey),
    customerKey: row.customerKey,
    customerId: row.customerId,
    last4: row.last4,
    paymentMethodTypeId: row.paymentMethodTypeId,
    cardType: brand?.cardType ?? null,
    expMonth: row.expMonth,
    expYear: row.expYear,
    routingNumber: row.routingNumber,
    accountType: (row.accountType as AccountTypeId | null) ?? null,
    checkType: (row.checkType as CheckTypeId | null) ?? null,
    bankCountry: row.bankCountry,
    nameOnAccount: row.nameOnAccount,
    firstName: row.firstName,
    lastName: row.lastName,
    street: row.street,
    zip: row.zip,
    externalConstituentId: row.externalConstituentId,
    source: row.source,
    status: row.status,
    createdAt: row.createdAt,
  };
}
