import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { loadConfig } from '../../src/config.ts';
import { cryptoIds } from '../../src/platform/ids.ts';
import { createServices, type Services } from '../../src/composition.ts';
import { openStore, type Store } from '../../src/platform/database/database.ts';
import { keyFilePath } from '../../src/modules/vault/key-file.ts';
import { generateKey } from '../../src/modules/vault/keys.ts';
import { seedTestPartner } from '../helpers/context.ts';
import { runCliProcess, startService } from '../helpers/process.ts';
import { processStore } from '../helpers/store.ts';
import { testLogger } from '../helpers/logger.ts';

/**
 * `payments vault rotate-key` as an operator runs it: a real process on the same store and data
 * directory as the server (PGlite in DATA_DIR, or this run's PostgreSQL).
 */
let dataDir: string;
let env: Record<string, string>;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ env, cleanup, dataDir } = await processStore('rotate'));
});
afterAll(() => cleanup());

async function withServices<T>(extraEnv: Record<string, string>, fn: (s: Services) => Promise<T>): Promise<T> {
  const config = loadConfig({ ...env, ...extraEnv });
  const store: Store = await openStore(config);
  try {
    return await fn(createServices({ log: testLogger(), store, clock: new ManualClock(), ids: cryptoIds, config }));
  } finally {
    await store.close();
  }
}

const NUMBERS = ['4242424242424242', '5555555555554444', '378282246310005'];

describe('payments vault rotate-key', () => {
  let tokenIds: { id: string; partnerId: string }[] = [];
  const notification = { partnerId: '', configId: 0, accessToken: 'receiver-token-0123456789', secrets: [] as string[] };

  it('with the embedded key file: adds a key and re-encrypts every token under it', async () => {
    // NOTIFICATION_ALLOW_PRIVATE: the URL's host is not resolved (no DNS here).
    const firstKey = await withServices({ NOTIFICATION_ALLOW_PRIVATE: 'on' }, async (s) => {
      const partner = await seedTestPartner(s, 'Rotate CLI Partner', 'non-profit');
      for (const n of NUMBERS) tokenIds.push(await s.tokens.tokenizeCard(partner.ClientId, { cardNumber: n, expMonth: '01', expYear: '31', source: 'api' }));
      tokenIds.push(await s.tokens.tokenizeBankAccount(partner.ClientId, { routingNumber: '021000021', accountNumber: '123456789', accountType: 1, source: 'api' }));
      // A notification URL with an AccessToken, and a rotated signing secret (current and previous): three sealed values.
      const [config] = await s.notificationConfigs.save(partner.ClientId, [
        { notificationConfigurationTypeId: '1', notificationProtocolTypeId: '1', notificationUrl: 'https://receiver.example.org/n', accessToken: notification.accessToken, isDeleted: false },
      ]);
      await s.notificationConfigs.rotateSecret(partner.ClientId);
      Object.assign(notification, { partnerId: partner.ClientId, configId: config!.id, secrets: await s.notificationConfigs.signingSecrets(partner.ClientId) });
      expect(notification.secrets).toHaveLength(2);
      return s.vault.currentKeyId();
    });
    expect(statSync(keyFilePath(dataDir)).mode & 0o777).toBe(0o600);

    const run = await runCliProcess(['vault', 'rotate-key', '--json'], env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({ newKey: true, previousKeyId: firstKey, reencrypted: 4, failed: 0, notificationSecrets: { resealed: 3, failed: 0 } });
    expect(result.currentKeyId).not.toBe(firstKey);
    const file = JSON.parse(readFileSync(keyFilePath(dataDir), 'utf8'));
    expect(file.current).toBe(result.currentKeyId);
    expect(file.keys.map((k: { id: string }) => k.id).sort()).toEqual([firstKey, result.currentKeyId].sort());
    expect(statSync(keyFilePath(dataDir)).mode & 0o777).toBe(0o600);

    await withServices({}, async (s) => {
      expect(await s.tokens.keyUsage()).toEqual([{ keyId: result.currentKeyId, tokens: 4 }]);
      const plain = await Promise.all(tokenIds.map((t) => s.tokens.reveal(t)));
      expect(plain).toEqual([...NUMBERS, '123456789']);
    });

    const status = await runCliProcess(['vault', 'status'], env);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`${result.currentKeyId}`);
    expect(status.stdout).toMatch(/4 token\(s\)\s+\(current\)/);
    for (const n of NUMBERS) expect(status.stdout + run.stdout).not.toContain(n);

    const prune = await runCliProcess(['vault', 'prune-keys', '--json'], env);
    expect(JSON.parse(prune.stdout)).toEqual({ removed: [firstKey] });
    // Without the first key, the notification secrets open: they were re-sealed under the new one.
    await withServices({}, async (s) => {
      expect(await s.notificationConfigs.signingSecrets(notification.partnerId)).toEqual(notification.secrets);
      const [sealed] = await s.store.sql.query<{ ciphertext: string; key_id: string }>(
        'SELECT access_token_ciphertext AS ciphertext, access_token_key_id AS key_id FROM notification_configs WHERE id = $1',
        [notification.configId],
      );
      expect(s.notificationConfigs.accessToken(notification.configId, { ciphertext: sealed!.ciphertext, keyId: sealed!.key_id })).toBe(notification.accessToken);
      expect(await s.notificationConfigs.keyIdsInUse()).toEqual([result.currentKeyId]);
    });
  }, 120_000);

  it('with VAULT_KEY: re-encrypts under the new VAULT_KEY, reading the old key from VAULT_OLD_KEYS', async () => {
    const fileKey = JSON.parse(readFileSync(keyFilePath(dataDir), 'utf8')).keys[0].key as string;
    rmSync(keyFilePath(dataDir));
    const newKey = generateKey();
    const keyEnv = { VAULT_KEY: newKey.key.toString('base64'), VAULT_OLD_KEYS: fileKey };

    // Status says which tokens cannot be decrypted, and exits 1 for monitoring.
    const status = await runCliProcess(['vault', 'status', '--json'], { ...env, VAULT_KEY: newKey.key.toString('base64') });
    expect(status.code).toBe(1);
    expect(JSON.parse(status.stdout).tokensByKey).toEqual([expect.objectContaining({ tokens: 4, available: false })]);
    // A server started without the keys says so at start (it would approve payments, and fail to charge stored tokens):
    // also one with no key file yet (a new server given its own DATA_DIR instead of VAULT_KEY).
    // Its key file missing while tokens need it, it makes no new one (one made then would be
    // overwritten when the old file is restored), and says so as an error.
    const keyless = await startService({ ...env, DEMO: 'off', BILLING_WORKER: 'off' });
    try {
      expect(keyless.output()).toMatch(/"level":50.*the vault key file .* is missing while stored tokens are sealed under keys it held/);
      expect(keyless.output()).not.toContain('could not check the vault keys');
    } finally {
      await keyless.stop();
    }
    expect(existsSync(keyFilePath(dataDir))).toBe(false);
    // Nor does a rotation.
    const noRotation = await runCliProcess(['vault', 'rotate-key'], env);
    expect(noRotation.code).toBe(1);
    expect(noRotation.stderr).toMatch(/is missing while stored tokens are sealed under keys it held.*4 token\(s\)/);
    expect(existsSync(keyFilePath(dataDir))).toBe(false);
    const server = await startService({ ...env, DEMO: 'off', BILLING_WORKER: 'off', VAULT_KEY: newKey.key.toString('base64') });
    try {
      expect(server.output()).toMatch(/stored tokens are sealed under vault keys this process does not hold/);
    } finally {
      await server.stop();
    }

    const refused = await runCliProcess(['vault', 'rotate-key'], { ...env, VAULT_KEY: newKey.key.toString('base64') });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/4 token\(s\) are sealed with a key this vault does not hold/);
    expect(refused.stderr).toContain('4 token(s) could not be re-encrypted');

    const run = await runCliProcess(['vault', 'rotate-key', '--json'], { ...env, ...keyEnv });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ newKey: false, currentKeyId: newKey.id, reencrypted: 4, failed: 0 });
    // Now VAULT_KEY alone reads everything.
    await withServices({ VAULT_KEY: keyEnv.VAULT_KEY }, async (s) => {
      expect(await s.tokens.keyUsage()).toEqual([{ keyId: newKey.id, tokens: 4 }]);
      expect(await Promise.all(tokenIds.map((t) => s.tokens.reveal(t)))).toEqual([...NUMBERS, '123456789']);
    });
  }, 120_000);

  it('prints a fresh key for VAULT_KEY, and refuses a malformed VAULT_KEY', async () => {
    const a = await runCliProcess(['vault', 'new-key'], env);
    const b = await runCliProcess(['vault', 'new-key'], env);
    expect(Buffer.from(a.stdout.trim(), 'base64')).toHaveLength(32);
    expect(a.stdout).not.toBe(b.stdout);
    const bad = await runCliProcess(['vault', 'status'], { ...env, VAULT_KEY: 'too-short' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('VAULT_KEY must be a 32-byte key in base64');
  }, 60_000);
});
