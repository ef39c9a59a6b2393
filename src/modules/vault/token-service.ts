import type { Clock } from '../../platform/clock.ts';
import { type AccountTypeId, type BankProblem, type CheckTypeId, type CheckedBankAccount, bankCountry, checkBankAccount } from '../../domain/bank.ts';
import { type CardProblem, type CheckedCard, checkCard } from '../../domain/cards.ts';
import { HOLDER_LIMITS, type Holder, storedText } from '../../domain/holder.ts';
import { PaymentMethodType } from '../../domain/payment-status.ts';
import { Rule } from '../../domain/rules.ts';
import { GUID, type Ids } from '../../platform/ids.ts';
import type { DbOrTx } from '../../platform/database/database.ts';
import { NotFoundError, ValidationError, type Violation } from '../../platform/errors.ts';
import type { Vault } from './vault.ts';
import type { TokenRepository } from './token-repository.ts';
import type { StoredToken, TokenKind, TokenSource } from './stored-token.ts';

export type { StoredToken, TokenKind, TokenSource } from './stored-token.ts';

/** How a token is stored, beside its card or account and its holder. */
export interface TokenOptions {
  source: TokenSource;
  /** CustomerKey (ExternalCustomerId) of an existing customer; a new one when absent. */
  customerKey?: string;
  /** The gateway's CustomerID text, when the gateway made the customer. */
  customerId?: string;
}

/** What a bank-account token keeps beside the checked account. */
export interface BankAccountDetails {
  /** 1 checking, 2 savings */
  accountType: AccountTypeId;
  /** 1 personal, 2 corporate, 3 government */
  checkType?: CheckTypeId;
  /** The account holder's name (NameOnCheck, CkNameOnAccount). */
  nameOnAccount?: string;
}

type HolderInput = Pick<Holder, 'firstName' | 'lastName' | 'street' | 'zip' | 'externalConstituentId'> & TokenOptions;

/** A card as sent, checked by `tokenizeCard`. */
export interface CardTokenInput extends HolderInput {
  cardNumber: string;
  /** "01"-"12" */
  expMonth: string;
  /** Two digits */
  expYear: string;
}

/** A bank account as sent, checked by `tokenizeBankAccount`. */
export interface BankTokenInput extends HolderInput {
  routingNumber: string;
  accountNumber: string;
  accountType: AccountTypeId;
  checkType?: CheckTypeId;
  /** US (default), CA or AU */
  country?: string;
  nameOnAccount?: string;
}

const GATEWAY_KEY = /^\d{1,15}$/;
const SOURCES: readonly string[] = ['api', 'gateway', 'paypage'];

/** The holder fields a token stores, with the options, as stored: trimmed, empty ones absent. */
interface TokenHolder {
  firstName: string | undefined;
  lastName: string | undefined;
  street: string | undefined;
  zip: string | undefined;
  externalConstituentId: string | undefined;
  customerKey: string | undefined;
  customerId: string | undefined;
  nameOnAccount: string | undefined;
  source: TokenSource;
}

/** The stored fields checked against HOLDER_LIMITS, in the order their violations are listed. */
const LIMITED_FIELDS = ['firstName', 'lastName', 'street', 'zip', 'externalConstituentId', 'customerKey', 'customerId', 'nameOnAccount'] as const;

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
}

/** The associated data that binds a ciphertext to its token row (see vault/cipher.ts). */
function secretContext(tokenId: string): string {
  return `payment_tokens:${tokenId}`;
}

function problemViolation(field: string, problem: CardProblem | BankProblem): Violation {
  return { code: problem.kind === 'required' ? Rule.Required : Rule.InvalidFormat, field, message: `{${field}} ${problem.message}.` };
}

function tokenHolder(holder: Holder, options: TokenOptions, nameOnAccount?: string): TokenHolder {
  return {
    firstName: storedText(holder.firstName),
    lastName: storedText(holder.lastName),
    street: storedText(holder.street),
    zip: storedText(holder.zip),
    externalConstituentId: storedText(holder.externalConstituentId),
    customerKey: storedText(options.customerKey),
    customerId: storedText(options.customerId),
    nameOnAccount: storedText(nameOnAccount),
    source: options.source,
  };
}

/** The holder's problems: fields longer than the service stores, an unknown source. */
function holderViolations(holder: TokenHolder): Violation[] {
  let out: Violation[] | undefined;
  for (const field of LIMITED_FIELDS) {
    const value = holder[field];
    const max = HOLDER_LIMITS[field];
    if (value !== undefined && value.length > max) (out ??= []).push({ code: Rule.MaxLength, field, message: `{${field}} must be at most ${max} characters.` });
  }
  if (!SOURCES.includes(holder.source)) (out ??= []).push({ code: Rule.InvalidValue, field: 'source', message: '{source} must be api, gateway or paypage.' });
  return out ?? [];
}

/** An account's type and check type, when they are not the spec's. */
function detailViolations(details: BankAccountDetails): Violation[] {
  const out: Violation[] = [];
  if (details.accountType !== 1 && details.accountType !== 2) {
    out.push({ code: Rule.InvalidValue, field: 'accountType', message: '{accountType} must be 1 (checking) or 2 (savings).' });
  }
  if (details.checkType !== undefined && ![1, 2, 3].includes(details.checkType)) {
    out.push({ code: Rule.InvalidValue, field: 'checkType', message: '{checkType} must be 1, 2 or 3.' });
  }
  return out;
}

function cardSecret(card: CheckedCard): TokenSecret {
  return { kind: 'card', plain: card.number, last4: card.last4, paymentMethodTypeId: card.brand.paymentMethodTypeId, expMonth: card.expMonth, expYear: card.expYear };
}

function bankSecret(account: CheckedBankAccount, details: BankAccountDetails): TokenSecret {
  return {
    kind: 'bank',
    plain: account.accountNumber,
    last4: account.last4,
    paymentMethodTypeId: PaymentMethodType.ACH,
    routingNumber: account.routingNumber,
    accountType: details.accountType,
    checkType: details.checkType ?? null,
    bankCountry: account.country,
  };
}

/**
 * Card and bank-account tokens of every surface (payments with Tokenize, the SOAP gateway, the
 * pay page), in one table, with the number sealed by the vault. Every lookup is scoped to a
 * partner: another partner's token is "not found". Violations name the fields in the service's
 * words (`{cardNumber}`), for each surface to say in its own.
 */
export class TokenService {
  readonly #repository: TokenRepository;
  readonly #clock: Clock;
  readonly #ids: Ids;
  readonly #vault: Vault;

  constructor(deps: { repository: TokenRepository; clock: Clock; ids: Ids; vault: Vault }) {
    this.#repository = deps.repository;
    this.#clock = deps.clock;
    this.#ids = deps.ids;
    this.#vault = deps.vault;
  }

  /**
   * Stores a checked card (its number and expiry are not checked again). The holder's fields are
   * stored trimmed, within HOLDER_LIMITS (a ValidationError otherwise). The CVV is never stored.
   */
  async storeCard(partnerId: string, card: CheckedCard, holder: Holder, options: TokenOptions, tx?: DbOrTx): Promise<StoredToken> {
    const stored = tokenHolder(holder, options);
    const violations = holderViolations(stored);
    if (violations.length) throw new ValidationError(violations);
    return this.#store(partnerId, cardSecret(card), stored, tx);
  }

  /** Stores a checked bank account (its routing and account numbers are not checked again). */
  async storeBankAccount(
    partnerId: string,
    account: CheckedBankAccount,
    holder: Holder,
    options: TokenOptions & BankAccountDetails,
    tx?: DbOrTx,
  ): Promise<StoredToken> {
    const stored = tokenHolder(holder, options, options.nameOnAccount);
    const violations = [...detailViolations(options), ...holderViolations(stored)];
    if (violations.length) throw new ValidationError(violations);
    return this.#store(partnerId, bankSecret(account, options), stored, tx);
  }

  /** Checks a card as sent (number, brand, expiry) and stores it: `storeCard` for input not checked yet. */
  async tokenizeCard(partnerId: string, input: CardTokenInput, tx?: DbOrTx): Promise<StoredToken> {
    const checked = checkCard({ number: input.cardNumber, expMonth: input.expMonth, expYear: input.expYear }, this.#clock.now());
    const violations = checked.ok ? [] : checked.problems.map((p) => problemViolation(p.field === 'number' ? 'cardNumber' : p.field === 'expiry' ? 'expYear' : p.field, p));
    const stored = tokenHolder(input, input);
    violations.push(...holderViolations(stored));
    if (violations.length || !checked.ok) throw new ValidationError(violations);
    return this.#store(partnerId, cardSecret(checked.card), stored, tx);
  }

  /** Checks a bank account as sent (routing and account numbers by country, US by default) and stores it. */
  async tokenizeBankAccount(partnerId: string, input: BankTokenInput, tx?: DbOrTx): Promise<StoredToken> {
    const country = bankCountry(input.country);
    if (!country) {
      throw new ValidationError([{ code: Rule.InvalidValue, field: 'country', message: '{country} must be US, CA or AU for a bank account.' }]);
    }
    const checked = checkBankAccount({ country, routingNumber: input.routingNumber, accountNumber: input.accountNumber });
    const violations = checked.ok ? [] : checked.problems.map((p) => problemViolation(p.field, p));
    const stored = tokenHolder(input, input, input.nameOnAccount);
    violations.push(...detailViolations(input), ...holderViolations(stored));
    if (violations.length || !checked.ok) throw new ValidationError(violations);
    return this.#store(partnerId, bankSecret(checked.account, input), stored, tx);
  }

  /**
   * A partner's active token by TokenGuid (uuid) or by gateway key (the numeric CcInfoKey or
   * CheckInfoKey). Undefined when there is none, it was deleted, or it is another partner's.
   */
  async find(partnerId: string, ref: string | number, tx?: DbOrTx): Promise<StoredToken | undefined> {
    const text = String(ref).trim();
    if (GUID.test(text)) return this.#repository.findActive(partnerId, { id: text.toLowerCase() }, tx);
    if (GATEWAY_KEY.test(text)) return this.#repository.findActive(partnerId, { gatewayKey: Number(text) }, tx);
    return undefined;
  }

  /** Like `find`, but a missing token is a NotFoundError. */
  async get(partnerId: string, ref: string | number, tx?: DbOrTx): Promise<StoredToken> {
    const token = await this.find(partnerId, ref, tx);
    if (!token) throw new NotFoundError('No such token.');
    return token;
  }

  /**
   * The plain card or account number of an active token. For the processor adapter only: never
   * log it, return it or store it.
   */
  async reveal(token: Pick<StoredToken, 'id' | 'partnerId'>, tx?: DbOrTx): Promise<string> {
    const ciphertext = await this.#repository.activeCiphertext(token.partnerId, token.id, tx);
    if (!ciphertext) throw new NotFoundError('No such token.');
    return this.#vault.open(ciphertext, secretContext(token.id));
  }

  /** A partner's active tokens for one of its customers (ExternalConstituentId), newest first. */
  async listByConstituent(partnerId: string, externalConstituentId: string, tx?: DbOrTx): Promise<StoredToken[]> {
    return this.#repository.listByConstituent(partnerId, externalConstituentId, tx);
  }

  /**
   * Deletes a token: it is marked deleted (payments that used it keep their reference) and its
   * ciphertext is erased, so the number is gone for good.
   */
  async delete(partnerId: string, tokenRef: string, tx?: DbOrTx): Promise<void> {
    const token = await this.find(partnerId, tokenRef, tx);
    if (!token) throw new NotFoundError('No such token.');
    await this.#repository.markDeleted(partnerId, token.id, this.#clock.now(), tx);
  }

  /** A new CustomerKey (numeric string) for a customer record of the gateway. */
  async newCustomerKey(tx?: DbOrTx): Promise<string> {
    return this.#repository.nextCustomerKey(tx);
  }

  /** The vault keys that hold stored secrets (start-up checks them; one index probe per key). */
  async keyIdsInUse(): Promise<string[]> {
    return this.#repository.keyIdsInUse();
  }

  /** How many stored secrets each vault key holds (deleted tokens hold none); all keys, or `keyIds`. */
  async keyUsage(keyIds?: string[]): Promise<{ keyId: string; tokens: number }[]> {
    return this.#repository.keyUsage(keyIds);
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
    // Nothing under another key: done without walking the tokens (2.3 s for a million).
    if ((await this.keyIdsInUse()).every((id) => id === currentKeyId)) return { reencrypted, failed, currentKeyId };
    let after: string | undefined = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      after = await this.#repository.resealBatch(currentKeyId, after, batchSize, (id, ciphertext) => {
        let plain: string;
        try {
          plain = this.#vault.open(ciphertext, secretContext(id));
        } catch {
          failed++;
          return undefined;
        }
        reencrypted++;
        return this.#vault.seal(plain, secretContext(id));
      });
      if (after === undefined) break;
      options.onBatch?.(reencrypted);
    }
    return { reencrypted, failed, currentKeyId };
  }

  async #store(partnerId: string, secret: TokenSecret, holder: TokenHolder, tx: DbOrTx | undefined): Promise<StoredToken> {
    const constituent = holder.externalConstituentId;
    if (constituent && !holder.customerKey) {
      // One customer per constituent also when two of its cards are stored at once: the second
      // waits for the first's key (a lock released at commit; inside a caller's transaction, at
      // that transaction's end).
      return this.#repository.withConstituentLock(partnerId, constituent, tx, (locked) => this.#write(partnerId, secret, holder, locked));
    }
    return this.#write(partnerId, secret, holder, tx);
  }

  async #write(partnerId: string, secret: TokenSecret, holder: TokenHolder, tx: DbOrTx | undefined): Promise<StoredToken> {
    const id = this.#ids.uuid();
    const sealed = this.#vault.seal(secret.plain, secretContext(id));
    const customerKey = await this.#customerKeyFor(partnerId, holder, tx);
    return this.#repository.insert(
      {
        id,
        partnerId,
        kind: secret.kind,
        customerKey,
        customerId: holder.customerId ?? null,
        externalConstituentId: holder.externalConstituentId ?? null,
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
        nameOnAccount: holder.nameOnAccount ?? null,
        firstName: holder.firstName ?? null,
        lastName: holder.lastName ?? null,
        street: holder.street ?? null,
        zip: holder.zip ?? null,
        source: holder.source,
        status: 'active',
        createdAt: this.#clock.now(),
        deletedAt: null,
      },
      tx,
    );
  }

  /** The given CustomerKey; else the constituent's (one customer record per constituent); else a new one. */
  async #customerKeyFor(partnerId: string, holder: TokenHolder, tx: DbOrTx | undefined): Promise<string> {
    if (holder.customerKey) return holder.customerKey;
    const existing = holder.externalConstituentId ? await this.#repository.firstCustomerKeyOf(partnerId, holder.externalConstituentId, tx) : undefined;
    return existing ?? this.#repository.nextCustomerKey(tx);
  }
}
