import { describe, expect, it } from 'vitest';
import type { CheckedBankAccount } from '../../../src/domain/bank.ts';
import type { CheckedCard } from '../../../src/domain/cards.ts';
import { ManualClock } from '../../../src/platform/clock.ts';
import { ValidationError } from '../../../src/platform/errors.ts';
import { GatewayService } from '../../../src/modules/gateway/gateway-service.ts';
import type { GatewayUserService } from '../../../src/modules/gateway/gateway-user-service.ts';
import type { GatewaySession, GatewaySessionService } from '../../../src/modules/partners/gateway-session-service.ts';
import type { TokenService } from '../../../src/modules/vault/token-service.ts';

/**
 * GetToken and GetCheckToken against fake sessions and a fake token service: the card or account
 * is checked here once, and only a checked one reaches the token service.
 */

const SID = '0f8fad5b-d9cb-469f-a165-70867728950e';

function setUp() {
  const clock = new ManualClock('2026-11-21T12:00:00Z');
  const session: GatewaySession = { idHash: 'h', partnerId: 'p1', userId: 'u1', username: 'alice', vendor: 'Acme', expiresAt: new Date('2026-11-21T13:00:00Z'), customer: undefined };
  const sessions = {
    resolve: async (id: string) => (id.trim().toLowerCase() === SID ? session : undefined),
    customerOf: async (s: GatewaySession, make: () => Promise<{ customerKey: string; customerId: string }>) => (s.customer ??= await make()),
  } as unknown as GatewaySessionService;
  const stored: { method: string; partnerId: string; value: CheckedCard | CheckedBankAccount; holder: object; options: object }[] = [];
  const tokens = {
    newCustomerKey: async () => '5001',
    storeCard: async (partnerId: string, value: CheckedCard, holder: object, options: object) => {
      stored.push({ method: 'storeCard', partnerId, value, holder, options });
      return { gatewayKey: '1001' };
    },
    storeBankAccount: async (partnerId: string, value: CheckedBankAccount, holder: object, options: object) => {
      stored.push({ method: 'storeBankAccount', partnerId, value, holder, options });
      return { gatewayKey: '1002' };
    },
  } as unknown as TokenService;
  const gateway = new GatewayService({ users: {} as GatewayUserService, sessions, tokens, clock, loginAttemptsPerMinute: 30 });
  return { gateway, stored };
}

describe('GetToken', () => {
  it('hands the checked card (normalized number, brand, expiry) and the holder to storeCard, with the session\'s customer', async () => {
    const { gateway, stored } = setUp();
    const outcome = await gateway.getToken({ clientSessionId: ` ${SID} `, cardNumber: '4242-4242 4242-4242', expiry: '1230', firstName: ' Ada ', lastName: 'Lovelace', zip: '12345' });
    expect(outcome).toEqual({ ok: true, clientSessionId: SID, customerKey: '5001', customerId: 'Acme-AdaLovelace-20261121120000', gatewayKey: '1001' });
    expect(stored).toEqual([
      {
        method: 'storeCard',
        partnerId: 'p1',
        value: expect.objectContaining({ number: '4242424242424242', last4: '4242', expMonth: '12', expYear: '30', brand: expect.objectContaining({ cardType: 'Visa' }) }),
        holder: { firstName: 'Ada', lastName: 'Lovelace', street: undefined, zip: '12345' },
        options: { source: 'gateway', customerKey: '5001', customerId: 'Acme-AdaLovelace-20261121120000' },
      },
    ]);
  });

  it('refuses what breaks a rule before anything is stored, every problem in the service\'s field names', async () => {
    const { gateway, stored } = setUp();
    const refused = await gateway.getToken({ clientSessionId: SID, cardNumber: '4242424242424241', expiry: '1025', street: '1 Main\nSt' }).catch((e) => e);
    expect(refused).toBeInstanceOf(ValidationError);
    expect(refused.violations).toEqual([
      { code: 'CardNumberInvalid', field: 'cardNumber', message: '{cardNumber} is not a valid card number.' },
      { code: 'CardExpired', field: 'expiry', message: '{expiry} is in the past: the card has expired.' },
      { code: 'InvalidFormat', field: 'street', message: '{street} must not contain control characters.' },
    ]);
    const noExpiry = await gateway.getToken({ clientSessionId: SID, cardNumber: '4242424242424242', expiry: '13/30' }).catch((e) => e);
    expect(noExpiry.violations).toEqual([{ code: 'InvalidFormat', field: 'expiry', message: '{expiry} must be MMYY: a two-digit month (01-12) and a two-digit year.' }]);
    expect(stored).toEqual([]);
  });

  it('without a live session: sessionDenied, before any argument is looked at', async () => {
    const { gateway, stored } = setUp();
    expect(await gateway.getToken({ clientSessionId: 'not-a-session', cardNumber: 'x' })).toEqual({ ok: false, refusal: 'sessionDenied' });
    expect(await gateway.getToken({})).toEqual({ ok: false, refusal: 'sessionDenied' });
    expect(stored).toEqual([]);
  });
});

describe('GetCheckToken', () => {
  it('hands the checked US account, its types and the holder name to storeBankAccount', async () => {
    const { gateway, stored } = setUp();
    const outcome = await gateway.getCheckToken({ clientSessionId: SID, routingNumber: '021-000-021', accountNumber: '123456789', accountType: 'Savings', checkType: 'business', nameOnAccount: ' Ada L ' });
    expect(outcome).toMatchObject({ ok: true, gatewayKey: '1002', customerId: 'Acme-Customer-20261121120000' });
    expect(stored).toEqual([
      {
        method: 'storeBankAccount',
        partnerId: 'p1',
        value: expect.objectContaining({ country: 'US', routingNumber: '021000021', accountNumber: '123456789', last4: '6789' }),
        holder: { firstName: undefined, lastName: undefined, street: undefined, zip: undefined, nameOnAccount: 'Ada L' },
        options: { source: 'gateway', customerKey: '5001', customerId: 'Acme-Customer-20261121120000', accountType: 2, checkType: 2, nameOnAccount: 'Ada L' },
      },
    ]);
  });

  it('refuses a bad routing number, account number and account type at once, storing nothing', async () => {
    const { gateway, stored } = setUp();
    const refused = await gateway.getCheckToken({ clientSessionId: SID, routingNumber: '021000022', accountNumber: '12', accountType: 'X' }).catch((e) => e);
    expect(refused.violations.map((v: { field: string }) => v.field)).toEqual(['routingNumber', 'accountNumber', 'accountType']);
    expect(refused.violations[0].message).toBe('{routingNumber} is not a valid US routing number (checksum).');
    expect(stored).toEqual([]);
  });
});
