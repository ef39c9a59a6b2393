import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { loadConfig } from '../../src/config.ts';
import { cryptoIds } from '../../src/platform/ids.ts';
import { createServices, type Services } from '../../src/composition.ts';
import { openStore } from '../../src/platform/database/database.ts';
import { seedTestPartner } from '../helpers/context.ts';
import { runCliProcess } from '../helpers/process.ts';
import { processStore } from '../helpers/store.ts';
import { testLogger } from '../helpers/logger.ts';
import { answeringAsGateway } from '../helpers/gateway-results.ts';

/** `payments gateway-user ...` as an operator runs it, on this run's kind of store. */
let env: Record<string, string>;
let cleanup: () => Promise<void>;
let clientId: string;

async function withServices<T>(fn: (s: Services) => Promise<T>): Promise<T> {
  const config = loadConfig(env);
  const store = await openStore(config);
  try {
    return await fn(createServices({ log: testLogger(), store, clock: new ManualClock(new Date()), ids: cryptoIds, config }));
  } finally {
    await store.close();
  }
}

beforeAll(async () => {
  ({ env, cleanup } = await processStore('gwcli'));
  clientId = await withServices(async (s) => (await seedTestPartner(s, 'CLI Gateway Partner', 'non-profit')).ClientId);
});
afterAll(() => cleanup());

describe('payments gateway-user', () => {
  it('creates a user with a generated password shown once, stored only as a scrypt hash, that can log in', async () => {
    const created = await runCliProcess(['gateway-user', 'create', clientId, '--username', 'cli.user', '--vendor', 'CliVendor'], env);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const password = /Password \(shown this once only\): (\S+)/.exec(created.stdout)?.[1];
    expect(password).toMatch(/^[\w-]{24}$/);

    await withServices(async (s) => {
      const [row] = await s.store.sql.query<{ password_hash: string; vendor: string }>("SELECT password_hash, vendor FROM gateway_users WHERE username = 'cli.user'");
      expect(row!.vendor).toBe('CliVendor');
      expect(row!.password_hash).toMatch(/^scrypt\$131072\$8\$1\$/);
      expect(row!.password_hash).not.toContain(password!);
      const result = await answeringAsGateway(s.gateway).getClientSessionId({ username: 'CLI.USER', password }, { ip: '127.0.0.1', userAgent: undefined });
      expect(result).toMatchObject({ code: 'OK', username: 'cli.user' });
    });

    const list = await runCliProcess(['gateway-user', 'list', '--json'], env);
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ username: 'cli.user', vendor: 'CliVendor', status: 'active', partnerId: clientId })]);
  }, 300_000);

  it('refuses a taken name, bad characters, an unknown partner and a short password, in words (the code names are for SOAP clients)', async () => {
    const taken = await runCliProcess(['gateway-user', 'create', clientId, '--username', 'Cli.User', '--vendor', 'V'], env);
    expect([taken.code, taken.stderr.trim()]).toEqual([2, 'error: "Cli.User" is taken']);
    const chars = await runCliProcess(['gateway-user', 'create', clientId, '--username', 'bad name!', '--vendor', 'V'], env);
    expect(chars.stderr).toMatch(/^error: a username is 3 to 64/);
    const partner = await runCliProcess(['gateway-user', 'create', '0b7e7f9e-3a55-4c0a-9a8e-6f1f1d2c3b4a', '--username', 'orphan', '--vendor', 'V'], env);
    expect(partner.stderr).toContain('no partner with ClientId');
    const missing = await runCliProcess(['gateway-user', 'create', clientId, '--username', 'novendor'], env);
    expect(missing.stderr).toContain('--vendor is required');
  }, 300_000);

  it('disables (ending sessions), enables and resets the password', async () => {
    const sid = await withServices(async (s) => {
      const pw = await s.gatewayUsers.resetPassword('cli.user', 'a-known-password-123');
      const r = await answeringAsGateway(s.gateway).getClientSessionId({ username: 'cli.user', password: pw }, { ip: '127.0.0.1', userAgent: undefined });
      return r.clientSessionId!;
    });
    expect((await runCliProcess(['gateway-user', 'disable', 'cli.user'], env)).code).toBe(0);
    await withServices(async (s) => {
      expect((await answeringAsGateway(s.gateway).getToken({ clientSessionId: sid, cardNumber: '4242424242424242', expiry: '1230' })).code).toBe('Access_Denied');
      expect((await answeringAsGateway(s.gateway).getClientSessionId({ username: 'cli.user', password: 'a-known-password-123' }, { ip: '127.0.0.1', userAgent: undefined })).code).toBe('Invalid_User_Status');
    });
    expect((await runCliProcess(['gateway-user', 'enable', 'cli.user'], env)).code).toBe(0);
    const reset = await runCliProcess(['gateway-user', 'reset-password', 'cli.user', '--json'], env);
    const { Password } = JSON.parse(reset.stdout);
    await withServices(async (s) => {
      expect((await answeringAsGateway(s.gateway).getClientSessionId({ username: 'cli.user', password: 'a-known-password-123' }, { ip: '127.0.0.1', userAgent: undefined })).code).toBe('Invalid_Login');
      expect((await answeringAsGateway(s.gateway).getClientSessionId({ username: 'cli.user', password: Password }, { ip: '127.0.0.1', userAgent: undefined })).code).toBe('OK');
    });
    const unknown = await runCliProcess(['gateway-user', 'disable', 'nobody'], env);
    expect([unknown.code, unknown.stderr.trim()]).toEqual([1, 'error: no gateway user "nobody"']);
  }, 300_000);
});
