import type { SealedSecret, TokenRepository } from '../../../src/modules/vault/token-repository.ts';
import type { NewToken, StoredToken } from '../../../src/modules/vault/stored-token.ts';
import { CARD_BRANDS, type CardPaymentMethodTypeId } from '../../../src/domain/cards.ts';

/**
 * TokenRepository in memory, for service tests without a database: rows in a Map, the gateway key
 * and customer key sequences as counters, and the constituent locks taken recorded in `locks`.
 */
export class FakeTokenRepository {
  readonly rows = new Map<string, NewToken & { gatewayKey: number; status: 'active' | 'deleted' }>();
  readonly locks: string[] = [];
  #gatewayKey = 1000;
  #customerKey = 5000;

  asRepository(): TokenRepository {
    return this as unknown as TokenRepository;
  }

  async findActive(partnerId: string, ref: { id: string } | { gatewayKey: number }): Promise<StoredToken | undefined> {
    const row = [...this.rows.values()].find((r) => ('id' in ref ? r.id === ref.id : r.gatewayKey === ref.gatewayKey) && r.partnerId === partnerId && r.status === 'active');
    return row ? stored(row) : undefined;
  }

  async activeCiphertext(partnerId: string, id: string): Promise<string | undefined> {
    const row = this.rows.get(id);
    return row && row.partnerId === partnerId && row.status === 'active' ? row.secretCiphertext || undefined : undefined;
  }

  async listByConstituent(partnerId: string, constituent: string): Promise<StoredToken[]> {
    return [...this.rows.values()].filter((r) => r.partnerId === partnerId && r.externalConstituentId === constituent && r.status === 'active').reverse().map(stored);
  }

  async markDeleted(partnerId: string, id: string): Promise<void> {
    const row = this.rows.get(id);
    if (row && row.partnerId === partnerId) Object.assign(row, { status: 'deleted', secretCiphertext: '', secretKeyId: '' });
  }

  async nextCustomerKey(): Promise<string> {
    return String(++this.#customerKey);
  }

  async firstCustomerKeyOf(partnerId: string, constituent: string): Promise<string | undefined> {
    return [...this.rows.values()].find((r) => r.partnerId === partnerId && r.externalConstituentId === constituent && r.status === 'active')?.customerKey;
  }

  async withConstituentLock<T>(partnerId: string, constituent: string, tx: unknown, fn: (tx: never) => Promise<T>): Promise<T> {
    this.locks.push(`${partnerId}:${constituent}`);
    return fn(tx as never);
  }

  async insert(row: NewToken): Promise<StoredToken> {
    const kept = { ...row, gatewayKey: ++this.#gatewayKey };
    this.rows.set(row.id, kept);
    return stored(kept);
  }

  async keyIdsInUse(): Promise<string[]> {
    return [...new Set([...this.rows.values()].map((r) => r.secretKeyId).filter((k) => k !== ''))].sort();
  }

  async keyUsage(): Promise<{ keyId: string; tokens: number }[]> {
    const counts = new Map<string, number>();
    for (const r of this.rows.values()) if (r.secretKeyId) counts.set(r.secretKeyId, (counts.get(r.secretKeyId) ?? 0) + 1);
    return [...counts].sort().map(([keyId, tokens]) => ({ keyId, tokens }));
  }

  async resealBatch(currentKeyId: string, after: string, limit: number, reseal: (id: string, ciphertext: string) => SealedSecret | undefined): Promise<string | undefined> {
    const batch = [...this.rows.values()].filter((r) => r.secretKeyId !== currentKeyId && r.secretKeyId !== '' && r.id > after).sort((a, b) => (a.id < b.id ? -1 : 1)).slice(0, limit);
    for (const row of batch) {
      const sealed = reseal(row.id, row.secretCiphertext);
      if (sealed) Object.assign(row, { secretCiphertext: sealed.ciphertext, secretKeyId: sealed.keyId });
    }
    return batch.at(-1)?.id;
  }
}

function stored(r: NewToken & { gatewayKey: number; status: 'active' | 'deleted' }): StoredToken {
  return {
    id: r.id,
    partnerId: r.partnerId,
    kind: r.kind,
    gatewayKey: String(r.gatewayKey),
    customerKey: r.customerKey,
    customerId: r.customerId,
    last4: r.last4,
    paymentMethodTypeId: r.paymentMethodTypeId,
    cardType: r.kind === 'card' ? CARD_BRANDS[r.paymentMethodTypeId as CardPaymentMethodTypeId].cardType : null,
    expMonth: r.expMonth,
    expYear: r.expYear,
    routingNumber: r.routingNumber,
    accountType: r.accountType as StoredToken['accountType'],
    checkType: r.checkType as StoredToken['checkType'],
    bankCountry: r.bankCountry,
    nameOnAccount: r.nameOnAccount,
    firstName: r.firstName,
    lastName: r.lastName,
    street: r.street,
    zip: r.zip,
    externalConstituentId: r.externalConstituentId,
    source: r.source,
    status: r.status,
    createdAt: r.createdAt,
  };
}
