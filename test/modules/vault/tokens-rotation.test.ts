import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/platform/clock.ts';
import { testConfig } from '../../../src/config.ts';
import { cryptoIds } from '../../../src/platform/ids.ts';
import { createServices, type Services } from '../../../src/composition.ts';
import type { Store } from '../../../src/platform/database/database.ts';
import { generateKey } from '../../../src/modules/vault/keys.ts';
import { Vault } from '../../../src/modules/vault/vault.ts';
import { seedTestPartner, type TestPartner } from '../../helpers/context.ts';
import { freshStore } from '../../helpers/store.ts';
import { testLogger } from '../../helpers/logger.ts';

let store: Store;
let services: Services;
let partner: TestPartner;
const clock = new ManualClock();

beforeAll(async () => {
  store = await freshStore();
  services = createServices({ log: testLogger(), store, clock, ids: cryptoIds, config: testConfig(), vault: new Vault({ kind: 'memory', current: generateKey() }, clock) });
  partner = await seedTestPartner(services, 'Rotation Partner', 'non-profit');
});
afterAll(() => store.close());

const numbers = ['4242424242424242', '5555555555554444', '378282246310005', '6011111111111117', '3056930009020004', '3530111333300000', '2221000000000009'];

describe('key rotation and re-encryption', () => {
  it('re-encrypts every token under the new key in batches; old ciphertexts stay readable until then', async () => {
    const { tokens, vault } = services;
    const made = [];
    for (const n of numbers) made.push(await tokens.tokenizeCard(partner.ClientId, { cardNumber: n, expMonth: '01', expYear: '31', source: 'api' }));
    const bankToken = await tokens.tokenizeBankAccount(partner.ClientId, { routingNumber: '011000015', accountNumber: '12345678', accountType: 2, source: 'api' });
    const oldKey = vault.currentKeyId();
    const deleted = await tokens.tokenizeCard(partner.ClientId, { cardNumber: '4242424242424242', expMonth: '01', expYear: '31', source: 'api' });
    await tokens.delete(partner.ClientId, deleted.id);

    const newKey = vault.rotate();
    // A token made after the rotation is under the new key; the old ones are still readable.
    const after = await tokens.tokenizeCard(partner.ClientId, { cardNumber: '5454545454545454', expMonth: '01', expYear: '31', source: 'api' });
    // In JavaScript's order on both sides: the database's depends on its collation.
    const byKey = (a: { keyId: string }, b: { keyId: string }) => (a.keyId < b.keyId ? -1 : 1);
    expect((await tokens.keyUsage()).sort(byKey)).toEqual(
      [
        { keyId: oldKey, tokens: numbers.length + 1 },
        { keyId: newKey, tokens: 1 },
      ].sort(byKey),
    );
    expect((await tokens.keyIdsInUse()).sort()).toEqual([oldKey, newKey].sort());
    expect(await tokens.keyUsage([newKey])).toEqual([{ keyId: newKey, tokens: 1 }]);
    for (const [i, t] of made.entries()) expect(await tokens.reveal(t)).toBe(numbers[i]);

    const batches: number[] = [];
    const result = await tokens.reencryptAll({ batchSize: 3, onBatch: (n) => batches.push(n) });
    expect(result).toEqual({ reencrypted: numbers.length + 1, failed: 0, currentKeyId: newKey });
    expect(batches).toEqual([3, 6, 8]);
    expect(await tokens.keyUsage()).toEqual([{ keyId: newKey, tokens: numbers.length + 2 }]);
    expect(await tokens.keyIdsInUse()).toEqual([newKey]);
    // A second rotation run finds nothing to do, at once.
    const again: number[] = [];
    expect(await tokens.reencryptAll({ batchSize: 3, onBatch: (n) => again.push(n) })).toEqual({ reencrypted: 0, failed: 0, currentKeyId: newKey });
    expect(again).toEqual([]);
    for (const [i, t] of made.entries()) expect(await tokens.reveal(t)).toBe(numbers[i]);
    expect(await tokens.reveal(bankToken)).toBe('12345678');
    expect(await tokens.reveal(after)).toBe('5454545454545454');

    // With nothing under the old key, it can be forgotten, and everything still opens.
    expect(vault.forgetKeysExcept(new Set((await tokens.keyUsage()).map((u) => u.keyId)))).toEqual([oldKey]);
    for (const [i, t] of made.entries()) expect(await tokens.reveal(t)).toBe(numbers[i]);
    // Rows hold only ciphertext under the new key.
    const rows = await store.sql.query<{ secret_ciphertext: string; secret_key_id: string }>(
      "SELECT secret_ciphertext, secret_key_id FROM payment_tokens WHERE status = 'active'",
    );
    for (const r of rows) expect(r.secret_ciphertext.startsWith(`v1:${newKey}:`) && r.secret_key_id === newKey).toBe(true);
  });

  it('counts tokens whose key the vault does not hold as failed and leaves them', async () => {
    const stranger = new Vault({ kind: 'memory', current: generateKey() }, clock);
    const other = createServices({ log: testLogger(), store, clock, ids: cryptoIds, config: testConfig(), vault: stranger });
    const foreign = await other.tokens.tokenizeCard(partner.ClientId, { cardNumber: '4242424242424242', expMonth: '01', expYear: '31', source: 'api' });
    const result = await services.tokens.reencryptAll();
    expect(result.failed).toBe(1);
    expect(result.reencrypted).toBe(0);
    await expect(services.tokens.reveal(foreign)).rejects.toThrow(/has no key/);
    expect(await other.tokens.reveal(foreign)).toBe('4242424242424242');
  });
});
