import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cryptoIds } from '../../../src/platform/ids.ts';
import { createServices } from '../../../src/composition.ts';
import { FormTokens } from '../../../src/http/paypage/csrf.ts';
import { checkVaultKeysAtStart } from '../../../src/modules/vault/key-check.ts';
import { createKeyFile, keyFilePath } from '../../../src/modules/vault/key-file.ts';
import { vaultFromConfig } from '../../../src/modules/vault/vault.ts';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import { testLogger } from '../../helpers/logger.ts';

/**
 * A data directory restored without its vault key file: a key file made at the first token would
 * be overwritten when the old file is put back, losing the tokens sealed meanwhile, so none is made
 * while stored tokens are under keys the vault lacks.
 */
let ctx: TestContext;
let dataDir: string;
beforeAll(async () => {
  ctx = await createTestContext();
  dataDir = mkdtempSync(join(tmpdir(), 'vault-key-check-'));
});
afterAll(async () => {
  await ctx.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const card = (cardNumber: string) => ({ cardNumber, expMonth: '01', expYear: '31', source: 'api' as const });

function fakeLog() {
  return { error: vi.fn(), warn: vi.fn(), info: vi.fn() } as unknown as FastifyBaseLogger & Record<'error' | 'warn', ReturnType<typeof vi.fn>>;
}

describe('the vault key check at start', () => {
  it('with the key file missing while tokens are sealed: says so, and makes no new key file until the file is back', async () => {
    // The "lost" key file: tokens sealed under a key this data directory's vault never had.
    const stored = await ctx.services.tokens.tokenizeCard(ctx.nonProfit.ClientId, card('4242424242424242'));
    const services = createServices({ log: testLogger(), store: ctx.store, clock: ctx.clock, ids: cryptoIds, config: ctx.services.config, vault: vaultFromConfig({ dataDir }, ctx.clock) });
    const log = fakeLog();
    await checkVaultKeysAtStart(services, log);
    expect(log.error).toHaveBeenCalledWith(
      expect.objectContaining({ keyIds: [ctx.services.vault.currentKeyId()], tokens: expect.any(Number) }),
      expect.stringMatching(/vault key file .* is missing while stored tokens are sealed under keys it held: restore it/),
    );
    await expect(services.tokens.tokenizeCard(ctx.nonProfit.ClientId, card('5555555555554444'))).rejects.toThrow(/is missing while stored tokens are sealed/);
    expect(existsSync(keyFilePath(dataDir))).toBe(false);

    // Nor does a rotation make one.
    expect(() => services.vault.rotate()).toThrow(/is missing while stored tokens are sealed/);
    expect(existsSync(keyFilePath(dataDir))).toBe(false);
    // The pay page's form tokens still work, on this server (with a key of their own).
    const forms = new FormTokens(services.vaultService.formTokenKey(), ctx.clock);
    const form = forms.issue('L'.repeat(24));
    expect(forms.verify('L'.repeat(24), form)).toBe(true);
    expect(new FormTokens(services.vaultService.formTokenKey(), ctx.clock).verify('L'.repeat(24), form)).toBe(false);
    expect(existsSync(keyFilePath(dataDir))).toBe(false);

    // The key file comes back (here: another file, as an operator might restore the wrong one):
    // it is used at once, without a restart.
    createKeyFile(dataDir, ctx.clock.now());
    const again = await services.tokens.tokenizeCard(ctx.nonProfit.ClientId, card('5555555555554444'));
    expect(await services.tokens.reveal(again)).toBe('5555555555554444');
    expect(await ctx.services.tokens.reveal(stored)).toBe('4242424242424242');
  });

  it('with no token stored yet: nothing to say, and the first token makes the key file', async () => {
    const fresh = await createTestContext();
    const dir = mkdtempSync(join(tmpdir(), 'vault-key-check-'));
    try {
      const services = createServices({ log: testLogger(), store: fresh.store, clock: fresh.clock, ids: cryptoIds, config: fresh.services.config, vault: vaultFromConfig({ dataDir: dir }, fresh.clock) });
      const log = fakeLog();
      await checkVaultKeysAtStart(services, log);
      expect(log.error).not.toHaveBeenCalled();
      expect(log.warn).not.toHaveBeenCalled();
      await services.tokens.tokenizeCard(fresh.nonProfit.ClientId, card('4242424242424242'));
      expect(existsSync(keyFilePath(dir))).toBe(true);
    } finally {
      await fresh.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
