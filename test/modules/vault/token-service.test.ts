import { describe, expect, it } from 'vitest';
import { checkBankAccount } from '../../../src/domain/bank.ts';
import { type CheckedCard, checkCard } from '../../../src/domain/cards.ts';
import { ManualClock } from '../../../src/platform/clock.ts';
import { ValidationError } from '../../../src/platform/errors.ts';
import { cryptoIds } from '../../../src/platform/ids.ts';
import { TokenService } from '../../../src/modules/vault/token-service.ts';
import { memoryVault } from '../../../src/modules/vault/vault.ts';
import { FakeTokenRepository } from './fake-token-repository.ts';

/** The token service's rules against a repository in memory: no database. */

const PARTNER = '11111111-1111-4111-8111-111111111111';

function setUp() {
  const clock = new ManualClock('2026-11-30T12:00:00Z');
  const repository = new FakeTokenRepository();
  const vault = memoryVault(clock);
  const tokens = new TokenService({ repository: repository.asRepository(), clock, ids: cryptoIds, vault });
  return { clock, repository, vault, tokens };
}

function checked(number: string, expMonth: string, expYear: string, at: Date): CheckedCard {
  const result = checkCard({ number, expMonth, expYear }, at);
  if (!result.ok) throw new Error('test card refused');
  return result.card;
}

describe('storing a checked card', () => {
  it('stores it as it was checked, without checking it again: a card that expired since is still stored', async () => {
    const { clock, repository, tokens } = setUp();
    // Checked in the last minutes of November 2026 (UTC-12), stored a moment after its month ended everywhere.
    const card = checked('4242 4242 4242 4242', '11', '26', new Date('2026-12-01T11:59:00Z'));
    clock.set('2026-12-01T12:01:00Z');
    const token = await tokens.storeCard(PARTNER, card, { firstName: ' Ada ', lastName: '' }, { source: 'gateway' });
    expect(token).toMatchObject({ kind: 'card', last4: '4242', paymentMethodTypeId: 3, cardType: 'Visa', expMonth: '11', expYear: '26', firstName: 'Ada', lastName: null, source: 'gateway' });
    const row = repository.rows.get(token.id)!;
    expect(row.secretCiphertext).not.toContain('4242424242424242');
    expect(await tokens.reveal(token)).toBe('4242424242424242');
  });

  it('stores a checked bank account with its type, check type and holder name', async () => {
    const { tokens } = setUp();
    const result = checkBankAccount({ country: 'US', routingNumber: '021000021', accountNumber: '000123456789' });
    if (!result.ok) throw new Error('test account refused');
    const token = await tokens.storeBankAccount(PARTNER, result.account, { zip: '12345' }, { source: 'api', accountType: 2, checkType: 1, nameOnAccount: 'Ada L' });
    expect(token).toMatchObject({ kind: 'bank', paymentMethodTypeId: 7, routingNumber: '021000021', accountType: 2, checkType: 1, bankCountry: 'US', nameOnAccount: 'Ada L', zip: '12345', last4: '6789' });
    expect(await tokens.reveal(token)).toBe('000123456789');
  });

  it('refuses holder text longer than HOLDER_LIMITS, naming each field, and writes nothing', async () => {
    const { clock, repository, tokens } = setUp();
    const card = checked('4242424242424242', '12', '30', clock.now());
    const refused = await tokens.storeCard(PARTNER, card, { firstName: 'x'.repeat(51), zip: '1'.repeat(11) }, { source: 'api', customerId: 'c'.repeat(201) }).catch((e) => e);
    expect(refused).toBeInstanceOf(ValidationError);
    expect(refused.violations).toEqual([
      { code: 'MaxLength', field: 'firstName', message: '{firstName} must be at most 50 characters.' },
      { code: 'MaxLength', field: 'zip', message: '{zip} must be at most 10 characters.' },
      { code: 'MaxLength', field: 'customerId', message: '{customerId} must be at most 200 characters.' },
    ]);
    expect(repository.rows.size).toBe(0);
  });
});

describe('customer keys', () => {
  it('the key given; else the constituent\'s first token\'s, looked up under its lock; else a new one', async () => {
    const { clock, repository, tokens } = setUp();
    const card = checked('4242424242424242', '12', '30', clock.now());
    const given = await tokens.storeCard(PARTNER, card, { externalConstituentId: 'donor-1' }, { source: 'api', customerKey: 'CUST-9' });
    expect(given.customerKey).toBe('CUST-9');
    expect(repository.locks).toEqual([]);
    const first = await tokens.storeCard(PARTNER, card, { externalConstituentId: 'donor-2' }, { source: 'api' });
    const second = await tokens.storeCard(PARTNER, card, { externalConstituentId: 'donor-2' }, { source: 'api' });
    expect(second.customerKey).toBe(first.customerKey);
    expect(repository.locks).toEqual([`${PARTNER}:donor-2`, `${PARTNER}:donor-2`]);
    const alone = await tokens.storeCard(PARTNER, card, {}, { source: 'api' });
    expect([alone.customerKey, first.customerKey]).toEqual(['5002', '5001']);
  });
});

describe('tokenizing raw input', () => {
  it('checks the number, the expiry and the holder, and says every problem at once in its own field names', async () => {
    const { repository, tokens } = setUp();
    const refused = await tokens
      .tokenizeCard(PARTNER, { cardNumber: '4242424242424241', expMonth: '13', expYear: '30', lastName: 'y'.repeat(51), source: 'api' })
      .catch((e) => e);
    expect(refused.violations).toEqual([
      { code: 'InvalidFormat', field: 'cardNumber', message: '{cardNumber} is not a valid card number.' },
      { code: 'InvalidFormat', field: 'expMonth', message: '{expMonth} must be a two-digit month from 01 to 12.' },
      { code: 'MaxLength', field: 'lastName', message: '{lastName} must be at most 50 characters.' },
    ]);
    expect(repository.rows.size).toBe(0);
  });
});
