import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/platform/clock.ts';
import { loadConfig } from '../../../src/config.ts';
import { GatewayService } from '../../../src/modules/gateway/gateway-service.ts';
import { DEFAULT_LOGIN_LIMITS, Gate, KNOWN_ADDRESS_MS, WindowCounter } from '../../../src/modules/gateway/login-limits.ts';
import type { GatewaySessionService } from '../../../src/modules/partners/gateway-session-service.ts';
import type { GatewayUser, GatewayUserService, LoginOutcome } from '../../../src/modules/gateway/gateway-user-service.ts';
import type { TokenService } from '../../../src/modules/vault/token-service.ts';
import { answeringAsGateway } from '../../helpers/gateway-results.ts';

/**
 * What a GetClientSessionID may cost (each real attempt is a 128 MiB scrypt): a per-address
 * limit, failure locks per username and address and per username, and a cap on password checks running at once. The
 * password check is faked here so that the tests count checks instead of waiting for them.
 */

const USER: GatewayUser = {
  id: 'u1',
  partnerId: 'p1',
  partnerName: 'Partner',
  username: 'alice',
  vendor: 'V',
  status: 'active',
  createdAt: new Date(0),
};

function fakeUsers(password = 'right-password-1') {
  const checks: string[] = [];
  let hold: Promise<void> | undefined;
  const users = {
    async authenticate(username: string, given: string): Promise<LoginOutcome> {
      checks.push(username);
      if (hold) await hold;
      return username.toLowerCase() === 'alice' && given === password ? { ok: true, user: USER } : { ok: false, reason: 'invalid' };
    },
  };
  return {
    users: users as unknown as GatewayUserService,
    checks,
    /** Password checks wait until the returned function is called. */
    holdChecks(): () => void {
      let open!: () => void;
      hold = new Promise((r) => (open = r));
      return () => {
        hold = undefined;
        open();
      };
    },
  };
}

const sessions = { create: async () => ({ clientSessionId: '00000000-0000-4000-8000-000000000000' }) } as unknown as GatewaySessionService;

function service(users: GatewayUserService, clock: ManualClock, perIp = 1000, limits: ConstructorParameters<typeof GatewayService>[0]['loginLimits'] = {}) {
  return answeringAsGateway(new GatewayService({ users, sessions, tokens: {} as TokenService, clock, loginAttemptsPerMinute: perIp, loginLimits: limits }));
}

const from = (ip: string) => ({ ip, userAgent: undefined });

describe('GATEWAY_LOGIN_RATE_LIMIT', () => {
  it('is its own setting, 30 a minute by default (not SESSION_RATE_LIMIT)', () => {
    expect(loadConfig({}).gatewayLoginRateLimitPerMinute).toBe(30);
    expect(loadConfig({ GATEWAY_LOGIN_RATE_LIMIT: '5', SESSION_RATE_LIMIT: '500' }).gatewayLoginRateLimitPerMinute).toBe(5);
    expect(() => loadConfig({ GATEWAY_LOGIN_RATE_LIMIT: '0' })).toThrow(/GATEWAY_LOGIN_RATE_LIMIT/);
  });

  it('limits attempts per caller address a minute: Access_Denied without a password check; other addresses are not affected', async () => {
    const clock = new ManualClock();
    const fake = fakeUsers();
    const gateway = service(fake.users, clock, 3);
    const attempt = (ip: string) => gateway.getClientSessionId({ username: 'alice', password: 'wrong' }, from(ip)).then((r) => r.code);
    expect([await attempt('192.0.2.1'), await attempt('192.0.2.1'), await attempt('192.0.2.1')]).toEqual(['Invalid_Login', 'Invalid_Login', 'Invalid_Login']);
    expect(await attempt('192.0.2.1')).toBe('Access_Denied');
    expect(fake.checks).toHaveLength(3);
    expect(await attempt('192.0.2.2')).toBe('Invalid_Login');
    clock.advance(60_000);
    expect(await attempt('192.0.2.1')).toBe('Invalid_Login');
  });
});

describe('failed logins per username', () => {
  it('10 failures from one address in 15 minutes lock the username there for the rest of the window: Invalid_Login without a password check, even with the right password', async () => {
    const clock = new ManualClock();
    const fake = fakeUsers();
    const gateway = service(fake.users, clock);
    for (let i = 0; i < DEFAULT_LOGIN_LIMITS.failuresPerAddress; i++) {
      expect((await gateway.getClientSessionId({ username: i % 2 ? 'alice' : ' ALICE ', password: `guess-${i}` }, from('198.51.100.7'))).code).toBe('Invalid_Login');
    }
    expect(fake.checks).toHaveLength(10);
    const locked = await gateway.getClientSessionId({ username: 'Alice', password: 'right-password-1' }, from('198.51.100.7'));
    expect(locked).toEqual({ code: 'Invalid_Login', error: 'Too many failed logins for this Username; try again later.' });
    expect(fake.checks).toHaveLength(10);
    // Another username from there is not locked, nor this one from another address: a guesser
    // cannot lock the integration out.
    expect((await gateway.getClientSessionId({ username: 'bob', password: 'x' }, from('198.51.100.7'))).error).toBe('Invalid Username or Password.');
    expect((await gateway.getClientSessionId({ username: 'alice', password: 'right-password-1' }, from('203.0.113.5'))).code).toBe('OK');
    clock.advance(15 * 60_000 - 1);
    expect((await gateway.getClientSessionId({ username: 'alice', password: 'right-password-1' }, from('198.51.100.7'))).code).toBe('Invalid_Login');
    clock.advance(1);
    expect((await gateway.getClientSessionId({ username: 'alice', password: 'right-password-1' }, from('198.51.100.7'))).code).toBe('OK');
  });

  it('failures from many addresses lock the username everywhere except where it logged in lately', async () => {
    const clock = new ManualClock();
    const fake = fakeUsers();
    const gateway = service(fake.users, clock, 1000, { failuresPerUsername: 6 });
    expect((await gateway.getClientSessionId({ username: 'alice', password: 'right-password-1' }, from('192.0.2.1'))).code).toBe('OK');
    for (let i = 0; i < 6; i++) {
      expect((await gateway.getClientSessionId({ username: 'alice', password: `guess-${i}` }, from(`198.51.100.${i}`))).code).toBe('Invalid_Login');
    }
    const checks = fake.checks.length;
    // A new address is locked without a password check, the right password too ...
    expect((await gateway.getClientSessionId({ username: 'alice', password: 'right-password-1' }, from('203.0.113.9'))).error).toMatch(/^Too many failed logins/);
    expect(fake.checks).toHaveLength(checks);
    // ... the integration's own server is not.
    expect((await gateway.getClientSessionId({ username: 'alice', password: 'right-password-1' }, from('192.0.2.1'))).code).toBe('OK');
    // An address is known for KNOWN_ADDRESS_MS after its last login; the failures' window ends first.
    clock.advance(KNOWN_ADDRESS_MS + 1);
    expect((await gateway.getClientSessionId({ username: 'alice', password: 'right-password-1' }, from('203.0.113.9'))).code).toBe('OK');
  });

  it('a successful login forgets the failures from its address; an unknown username locks the same way', async () => {
    const clock = new ManualClock();
    const fake = fakeUsers();
    const gateway = service(fake.users, clock, 1000, { failuresPerAddress: 3 });
    const login = (username: string, password: string) => gateway.getClientSessionId({ username, password }, from('192.0.2.9')).then((r) => r.code);
    expect([await login('alice', 'a'), await login('alice', 'b')]).toEqual(['Invalid_Login', 'Invalid_Login']);
    expect(await login('alice', 'right-password-1')).toBe('OK');
    expect([await login('alice', 'c'), await login('alice', 'd')]).toEqual(['Invalid_Login', 'Invalid_Login']);
    expect(await login('alice', 'right-password-1')).toBe('OK');
    for (const p of ['a', 'b', 'c']) await login('nobody', p);
    const checks = fake.checks.length;
    expect((await gateway.getClientSessionId({ username: 'nobody', password: 'e' }, from('192.0.2.9'))).error).toMatch(/^Too many failed logins/);
    expect(fake.checks).toHaveLength(checks);
  });

  it('a username longer than any user can have is Invalid_Login without a password check', async () => {
    const fake = fakeUsers();
    const gateway = service(fake.users, new ManualClock());
    expect(await gateway.getClientSessionId({ username: 'a'.repeat(65), password: 'x' }, from('192.0.2.1'))).toEqual({ code: 'Invalid_Login', error: 'Invalid Username or Password.' });
    expect(fake.checks).toHaveLength(0);
  });
});

describe('password checks at once', () => {
  it('at most 2 run at a time; a login that finds them busy is Access_Denied at once, not queued', async () => {
    const fake = fakeUsers();
    const gateway = service(fake.users, new ManualClock());
    const release = fake.holdChecks();
    const first = gateway.getClientSessionId({ username: 'alice', password: 'right-password-1' }, from('192.0.2.1'));
    const second = gateway.getClientSessionId({ username: 'bob', password: 'x' }, from('192.0.2.2'));
    const third = await gateway.getClientSessionId({ username: 'carol', password: 'x' }, from('192.0.2.3'));
    expect(third).toEqual({ code: 'Access_Denied', error: 'The server is busy checking other logins; try GetClientSessionID again in a few seconds.' });
    expect(fake.checks).toEqual(['alice', 'bob']);
    release();
    expect((await first).code).toBe('OK');
    expect((await second).code).toBe('Invalid_Login');
    // Freed again: the next login is checked.
    expect((await gateway.getClientSessionId({ username: 'carol', password: 'x' }, from('192.0.2.3'))).code).toBe('Invalid_Login');
  });

  it('a check that throws frees its place', async () => {
    let calls = 0;
    const users = {
      async authenticate(): Promise<LoginOutcome> {
        calls++;
        throw new Error('database down');
      },
    } as unknown as GatewayUserService;
    const gateway = service(users, new ManualClock(), 1000, { concurrentHashes: 1 });
    await expect(gateway.getClientSessionId({ username: 'alice', password: 'x' }, from('192.0.2.1'))).rejects.toThrow('database down');
    await expect(gateway.getClientSessionId({ username: 'alice', password: 'x' }, from('192.0.2.1'))).rejects.toThrow('database down');
    expect(calls).toBe(2);
  });

  it('Gate: enters up to its size, a release is counted once', () => {
    const gate = new Gate(2);
    const a = gate.tryEnter()!;
    const b = gate.tryEnter()!;
    expect(gate.tryEnter()).toBeUndefined();
    a();
    a();
    expect(gate.tryEnter()).toBeDefined();
    expect(gate.tryEnter()).toBeUndefined();
    b();
    expect(gate.tryEnter()).toBeDefined();
  });
});

describe('WindowCounter', () => {
  it('when full, evicts the oldest windows, not all of them: recent counts survive', () => {
    const counter = new WindowCounter(60_000, 3);
    counter.hit('a', 0);
    counter.hit('b', 10);
    counter.hit('b', 11);
    counter.hit('c', 20);
    counter.hit('c', 21);
    counter.hit('c', 22);
    counter.hit('d', 30);
    expect(counter.size).toBe(3);
    expect(counter.count('a', 30)).toBe(0);
    expect(counter.count('b', 30)).toBe(2);
    expect(counter.count('c', 30)).toBe(3);
    expect(counter.count('d', 30)).toBe(1);
    // Many new keys (rotating addresses) never wipe the newest windows.
    for (let i = 0; i < 1000; i++) counter.hit(`x${i}`, 40 + i);
    expect(counter.size).toBe(3);
    expect(counter.count('x999', 1039)).toBe(1);
    expect(counter.count('x998', 1039)).toBe(1);
  });

  it('drops expired windows first, whatever their number', () => {
    const counter = new WindowCounter(1000, 3);
    counter.hit('a', 0);
    counter.hit('b', 100);
    counter.hit('c', 2000);
    counter.hit('c', 2001);
    counter.hit('d', 2002);
    expect(counter.size).toBe(2);
    expect(counter.count('c', 2002)).toBe(2);
    expect(counter.count('d', 2002)).toBe(1);
  });

  it('a window restarts after its time, as the newest', () => {
    const counter = new WindowCounter(1000, 2);
    counter.hit('a', 0);
    counter.hit('b', 500);
    expect(counter.hit('a', 1000)).toBe(1);
    counter.hit('c', 1100);
    expect(counter.count('a', 1100)).toBe(1);
    expect(counter.count('b', 1100)).toBe(0);
  });
});
