import type { Clock } from '../../platform/clock.ts';
import { type AccountTypeId, type CheckTypeId, type BankProblem, bankCountry, checkAccountNumber, checkRoutingNumber } from '../../domain/bank.ts';
import { CARD_BRANDS, type CardPaymentMethodTypeId, type CardProblem, checkCardNumber, checkExpiry } from '../../domain/cards.ts';
import { Rule, type RuleViolation } from '../../domain/rules.ts';
import { GUID, type Ids } from '../../platform/ids.ts';
import type { Db, DbOrTx } from '../../platform/database/database.ts';
import { paymentTokens } from '../../platform/database/schema/index.ts';
import type { Vault } from './vault.ts';
import { NotFoundError, ValidationError } from '../../platform/errors.ts';
import { and, asc, count, desc, eq, gt, inArray, ne, sql } from '../../platform/database/drizzle.ts';
import { rowsOf } from '../../platform/database/rows.ts';

/** PaymentMethodTypeId of a bank-account (ACH) token. */
export const ACH_PAYMENT_METHOD_TYPE_ID = 7;

export type TokenSource = 'api' | 'gateway' | 'paypage';
export type TokenKind = 'card' | 'bank';

interface HolderFields {
  firstName?: string;
  lastName?: string;
  street?: string;
  zip?: string;
  /** The partner's own customer id (ExternalConstituentId). */
  externalConstituentId?: string;
  /** CustomerKey (ExternalCustomerId) of an existing gateway customer; a new one when absent. */
  customerKey?: string;
  /** The gateway's CustomerID text, when the gateway made the customer. */
  customerId?: string;
  source: TokenSource;
}

export interface CardTokenInput extends HolderFields {
  cardNumber: string;
  /** "01"-"12" */
  expMonth: string;
  /** Two digits */
  expYear: string;
}

export interface BankTokenInput extends HolderFields {
  routingNumber: string;
  accountNumber: string;
  /** 1 checking, 2 savings */
  accountType: AccountTypeId;
  /** 1 personal, 2 corporate, 3 government */
  checkType?: CheckTypeId;
  /** US (default), CA or AU */
  country?: string;
  /** The account holder's name (NameOnCheck, CkNameOnAccount). */
  nameOnAccount?: string;
}

/** A token as every surface sees it. Never the number: `reveal` is for the processor adapter only. */
export interface StoredToken {
  /** TokenGuid */
  id: string;
  partnerId: string;
  kind: TokenKind;
  /** CcInfoKey (card) or CheckInfoKey (bank): a numeric string. */
  gatewayKey: string;
  /** CustomerKey (ExternalCustomerId) */
  customerKey: string;
  /** The gateway's CustomerID, when the gateway made the token. */
  customerId: string | null;
  last4: string;
  /** 1-6 for cards (brand), 7 for bank accounts. */
  paymentMethodTypeId: number;
  /** The spec's CardType name (American Express, Mastercard, Visa, Discover, Diners Club, JCB); null for bank accounts. */
  cardType: string | null;
  expMonth: string | null;
  expYear: string | null;
  routingNumber: string | null;
  accountType: AccountTypeId | null;
  checkType: CheckTypeId | null;
  bankCountry: string | null;
  nameOnAccount: string | null;
  firstName: string | null;
  lastName: string | null;
  street: string | null;
  zip: string | null;
  externalConstituentId: string | null;
  source: TokenSource;
  status: 'active' | 'deleted';
  createdAt: Date;
}

type TokenRow = typeof paymentTokens.$inferSelect;

const GATEWAY_KEY = /^\d{1,15}$/;

/** Maximum lengths of the stored holder fields (the payment request's limits). */
const MAX_LENGTHS: Record<string, number> = {
  firstName: 50,
  lastName: 50,
  street: 50,
  zip: 10,
  externalConstituentId: 200,
  customerKey: 200,
  customerId: 200,
  nameOnAccount: 50,
};

/** The associated data that binds a ciphertext to its token row (see vault/cipher.ts). */
function secretContext(tokenId: string): string {
  return `payment_tokens:${tokenId}`;
}

function problemToViolation(field: string, problem: CardProblem | BankProblem): RuleViolation {
  return {
    code: problem.kind === 'required' ? Rule.Required : Rule.InvalidFormat,
    field,
    message: `'${field}' ${problem.message}.`,
  };
}

function optional(value: string | undefined): string | null {
  const v = value?.trim();
  return v ? v : null;
}

/**
 * Card and bank-account tokens of every surface (payments with Tokenize, the SOAP gateway, the
 * pay page), in one table, with the number sealed by the vault. Every lookup is scoped to a
 * partner: another partner's token is "not found".
 */
export class TokenService {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #ids: Ids;
  readonly #vault: Vault;

  constructor(db: Db, clock: Clock, ids: Ids, vault: Vault) {
    this.#db = db;
    this.#clock = clock;
    this.#ids = ids;
    this.#vault = vault;
  }

  // --- Issue 30 (processor credentials): other secrets sealed by the vault -----------------------

  /**
   * Seals a secret that is not a card or account (a processor's credentials) under the vault's
   * current key. `context` names its owner (`processor_credentials:<id>`): a ciphertext copied to
   * another owner does not open.
   */
  sealSecret(plain: string, context: string): { ciphertext: string; keyId: string } {
    return this.#vault.seal(plain, context);
  }

  openSecret(ciphertext: string, context: string): string {
    return this.#vault.open(ciphertext, context);
  }

  /** The key new secrets are sealed under (a rotation re-seals the others). */
  currentKeyId(): string {
    return this.#vault.currentKeyId();
  }

  /**
   * Stores a card. Callers validate first with their own field names; this checks again (number,
   * brand, expiry) and throws ValidationError naming the input's fields. The CVV is not an input:
   * it is never stored.
   */
  async tokenizeCard(partnerId: string, input: CardTokenInput, db: DbOrTx = this.#db): Promise<StoredToken> {
    const violations: RuleViolation[] = [];
    const card = checkCardNumber(input.cardNumber);
    if (!card.ok) violations.push(problemToViolation('cardNumber', card.problem));
    for (const p of checkExpiry(input.expMonth, input.expYear, this.#clock.now())) {
      violations.push(problemToViolation(p.field === 'expiry' ? 'expYear' : p.field, p));
    }
    violations.push(...this.#holderViolations(input));
    if (violations.length || !card.ok) throw new ValidationError(violations);
    return this.#insert(
      partnerId,
      {
        kind: 'card',
        plain: card.number,
        last4: card.last4,
        paymentMethodTypeId: card.brand.paymentMethodTypeId,
        expMonth: input.expMonth.trim(),
        expYear: input.expYear.trim(),
      },
      input,
      db,
    );
  }

  /** Stores a bank account; routing and account numbers are checked by country (US by default). */
  async tokenizeBankAccount(partnerId: string, input: BankTokenInput, db: DbOrTx = this.#db): Promise<StoredToken> {
    const violations: RuleViolation[] = [];
    const country = bankCountry(input.country);
    if (!country) {
      throw new ValidationError([{ code: Rule.InvalidValue, field: 'country', message: "'country' must be US, CA or AU for a bank account." }]);
    }
    const routing = checkRoutingNumber(country, input.routingNumber);
    if (!routing.ok) violations.push(problemToViolation('routingNumber', routing.problem));
    const account = checkAccountNumber(country, input.accountNumber);
    if (!account.ok) violations.push(problemToViolation('accountNumber', account.problem));
    if (input.accountType !== 1 && input.accountType !== 2) {
      violations.push({ code: Rule.InvalidValue, field: 'accountType', message: "'accountType' must be 1 (checking) or 2 (savings)." });
    }
    if (input.checkType !== undefined && ![1, 2, 3].includes(input.checkType)) {
      violations.push({ code: Rule.InvalidValue, field: 'checkType', message: "'checkType' must be 1, 2 or 3." });
    }
    violations.push(...this.#holderViolations(input));
    if (violations.length || !routing.ok || !account.ok) throw new ValidationError(violations);
    return this.#insert(
      partnerId,
      {
        kind: 'bank',
        plain: account.accountNumber,
        last4: account.last4,
        paymentMethodTypeId: ACH_PAYMENT_METHOD_TYPE_ID,
        routingNumber: routing.routingNumber,
        accountType: input.accountType,
        checkType: input.checkType ?? null,
        bankCountry: country,
        nameOnAccount: optional(input.nameOnAccount),
      },
      input,
      db,
    );
  }

  /**
   * A partner's active token by TokenGuid (uuid) or by gateway key (the numeric CcInfoKey or
   * CheckInfoKey). Undefined when there is none, it was deleted, or it is another partner's.
   */
  async find(partnerId: string, ref: string | number, db: DbOrTx = this.#db): Promise<StoredToken | undefined> {
    const text = String(ref).trim();
    let where;
    if (GUID.test(text)) where = eq(paymentTokens.id, text.toLowerCase());
    else if (GATEWAY_KEY.test(text)) where = eq(paymentTokens.gatewayKey, Number(text));
    else return undefined;
    const [row] = await db
      .select()
      .from(paymentTokens)
      .where(and(where, eq(paymentTokens.partnerId, partnerId), eq(paymentTokens.status, 'active')));
    return row ? toStoredToken(row) : undefined;
  }

  /** Like `find`, but a missing token is a NotFoundError. */
  async get(partnerId: string, ref: string | number, db: DbOrTx = this.#db): Promise<StoredToken> {
    const token = await this.find(partnerId, ref, db);
    if (!token) throw new NotFoundError('No such token.');
    return token;
  }

  /**
   * The plain card or account number of an active token. For the processor adapter only: never
   * log it, return it or store it.
   */
  async reveal(token: Pick<StoredToken, 'id' | 'partnerId'>, db: DbOrTx = this.#db): Promise<string> {
    const [row] = await db
      .select({ ciphertext: paymentTokens.secretCiphertext })
      .from(paymentTokens)
      .where(and(eq(paymentTokens.id, token.id), eq(paymentTokens.partnerId, token.partnerId), eq(paymentTokens.status, 'active')));
    if (!row || !row.ciphertext) throw new NotFoundError('No such token.');
    return this.#vault.open(row.ciphertext, secretContext(token.id));
  }

  /** A partner's active tokens for one of its customers (ExternalConstituentId), newest first. */
  async listByConstituent(partnerId: string, externalConstituentId: string, db: DbOrTx = this.#db): Promise<StoredToken[]> {
    const rows = await db
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

  /**
   * Deletes a token: it is marked deleted (payments that used it keep their reference) and its
   * ciphertext is erased, so the number is gone for good.
   */
  async delete(partnerId: string, tokenRef: string, db: DbOrTx = this.#db): Promise<void> {
    const token = await this.find(partnerId, tokenRef, db);
    if (!token) throw new NotFoundError('No such token.');
    await db
      .update(paymentTokens)
      .set({ status: 'deleted', deletedAt: this.#clock.now(), secretCiphertext: '', secretKeyId: '' })
      .where(and(eq(paymentTokens.id, token.id), eq(paymentTokens.partnerId, partnerId)));
  }

  /** A new CustomerKey (numeric string) for a customer record of the gateway. */
  async newCustomerKey(db: DbOrTx = this.#db): Promise<string> {
    return rowsOf<{ key: string }>(await db.execute(sql`SELECT nextval('customer_key_seq')::text AS key`))[0]!.key;
  }

  /**
   * The vault keys that hold stored secrets, one index probe per key (a skip scan of
   * `payment_tokens_key_id`): start-up checks them, and counting every token of a vault of a
   * million took 160-200 ms of each start (a data-volume audit).
   */
  async keyIdsInUse(db: DbOrTx = this.#db): Promise<string[]> {
    const rows = rowsOf<{ key_id: string }>(
      await db.execute(sql`
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
  async keyUsage(keyIds?: string[], db: DbOrTx = this.#db): Promise<{ keyId: string; tokens: number }[]> {
    const rows = await db
      .select({ keyId: paymentTokens.secretKeyId, tokens: count() })
      .from(paymentTokens)
      .where(keyIds ? inArray(paymentTokens.secretKeyId, keyIds) : ne(paymentTokens.secretKeyId, ''))
      .groupBy(paymentTokens.secretKeyId)
      .orderBy(asc(paymentTokens.secretKeyId));
    return rows.map((r) => ({ keyId: r.keyId, tokens: Number(r.tokens) }));
  }

  /**
   * Re-encrypts every secret that is not under the vault's current key, in batches of `batchSize`
   * rows, each batch in its own transaction with the rows locked. Rows whose key the vault does
   * not hold are counted in `failed` and left as they are.
   */
  async reencryptAll(options: { batchSize?: number; onBatch?: (done: number) => void } = {}): Promise<{ reencrypted: number; failed: number; currentKeyId: string }> {
    const batchSize = options.batchSize ?? 500;
    const currentKeyId = this.#vault.currentKeyId();
    let reencrypted = 0;
    let failed = 0;
    // Nothing under another key: done without reading the tokens (their walk in id order found
    // nothing after reading the whole table: 2.3 s for a million, a data-volume audit).
    if ((await this.keyIdsInUse()).every((id) => id === currentKeyId)) return { reencrypted, failed, currentKeyId };
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const batch = await this.#db.transaction(async (tx) => {
        const rows = await tx
          .select({ id: paymentTokens.id, ciphertext: paymentTokens.secretCiphertext })
          .from(paymentTokens)
          .where(and(ne(paymentTokens.secretKeyId, currentKeyId), ne(paymentTokens.secretKeyId, ''), gt(paymentTokens.id, after)))
          .orderBy(asc(paymentTokens.id))
          .limit(batchSize)
          .for('update');
        for (const row of rows) {
          let plain: string;
          try {
            plain = this.#vault.open(row.ciphertext, secretContext(row.id));
          } catch {
            failed++;
            continue;
          }
          const sealed = this.#vault.seal(plain, secretContext(row.id));
          await tx
            .update(paymentTokens)
            .set({ secretCiphertext: sealed.ciphertext, secretKeyId: sealed.keyId })
            .where(eq(paymentTokens.id, row.id));
          reencrypted++;
        }
        return rows;
      });
      if (batch.length === 0) break;
      after = batch[batch.length - 1]!.id;
      options.onBatch?.(reencrypted);
    }
    return { reencrypted, failed, currentKeyId };
  }

  #holderViolations(input: HolderFields & { nameOnAccount?: string }): RuleViolation[] {
    const out: RuleViolation[] = [];
    for (const [field, max] of Object.entries(MAX_LENGTHS)) {
      const value = (input as unknown as Record<string, unknown>)[field];
      if (typeof value === 'string' && value.trim().length > max) {
        out.push({ code: Rule.MaxLength, field, message: `'${field}' must be at most ${max} characters.` });
      }
    }
    if (!['api', 'gateway', 'paypage'].includes(input.source)) {
      out.push({ code: Rule.InvalidValue, field: 'source', message: "'source' must be api, gateway or paypage." });
    }
    return out;
  }

  async #customerKeyFor(partnerId: string, input: HolderFields, db: DbOrTx): Promise<string> {
    const given = optional(input.customerKey);
    if (given) return given;
    const constituent = optional(input.externalConstituentId);
    if (constituent) {
      // One customer record per constituent: a second card of the same customer joins the first.
      const [existing] = await db
        .select({ customerKey: paymentTokens.customerKey })
        .from(paymentTokens)
        .where(
          and(
            eq(paymentTokens.partnerId, partnerId),
            eq(paymentTokens.externalConstituentId, constituent),
            eq(paymentTokens.status, 'active'),
          ),
        )
        .orderBy(asc(paymentTokens.createdAt))
        .limit(1);
      if (existing) return existing.customerKey;
    }
    return this.newCustomerKey(db);
  }

  async #insert(
    partnerId: string,
    secret: TokenSecret,
    holder: HolderFields,
    db: DbOrTx,
  ): Promise<StoredToken> {
    const constituent = optional(holder.externalConstituentId);
    if (constituent && !optional(holder.customerKey)) {
      // One customer per constituent also when two of its cards are stored at once: the second
      // waits for the first's key (a transaction lock, released at commit; a savepoint inside a
      // caller's transaction holds it to that transaction's end).
      return db.transaction(async (tx) => {
        await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`customer:${partnerId}:${constituent}`}, 0))`);
        return this.#write(partnerId, secret, holder, tx);
      });
    }
    return this.#write(partnerId, secret, holder, db);
  }

  async #write(partnerId: string, secret: TokenSecret, holder: HolderFields, db: DbOrTx): Promise<StoredToken> {
    const id = this.#ids.uuid();
    const sealed = this.#vault.seal(secret.plain, secretContext(id));
    const customerKey = await this.#customerKeyFor(partnerId, holder, db);
    const row = {
      id,
      partnerId,
      kind: secret.kind,
      customerKey,
      customerId: optional(holder.customerId),
      externalConstituentId: optional(holder.externalConstituentId),
      secretCiphertext: sealed.ciphertext,
      secretKeyId: sealed.keyId,
      last4: secret.last4,
      paymentMethodTypeId: secret.paymentMethodTypeId,
      expMonth: secret.expMonth ?? null,
      expYear: secret.expYear ?? null,
      routingNumber: secret.routingNumber ?? null,
      accountType: secret.accountType ?? null,
      checkType: secret.checkType ?? null,
      bankCountry: secret.bankCountry ?? null,
      nameOnAccount: secret.nameOnAccount ?? null,
      firstName: optional(holder.firstName),
      lastName: optional(holder.lastName),
      street: optional(holder.street),
      zip: optional(holder.zip),
      source: holder.source,
      status: 'active' as const,
      createdAt: this.#clock.now(),
      deletedAt: null,
    };
    // Every surface's tokenization ends here, so this one statement is written out: Drizzle's
    // insert builder costs several times the rest of a GetToken call. Only the sequence's gateway
    // key comes back; everything else is what we wrote.
    const result = await db.execute(sql`
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
}

/** What a token keeps of the card or account, the number sealed. */
interface TokenSecret {
  kind: TokenKind;
  plain: string;
  last4: string;
  paymentMethodTypeId: number;
  expMonth?: string;
  expYear?: string;
  routingNumber?: string;
  accountType?: number;
  checkType?: number | null;
  bankCountry?: string;
  nameOnAccount?: string | null;
}


export function toStoredToken(row: TokenRow): StoredToken {
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
