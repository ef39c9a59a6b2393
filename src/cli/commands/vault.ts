import { generateKey } from '../../modules/vault/keys.ts';
import { refuseNewKeyFileIfLost } from '../../modules/vault/key-check.ts';
import type { Command } from '../command.ts';

/**
 * Vault key operations. With the embedded default (a key file in DATA_DIR) rotate-key makes a new
 * key and re-encrypts every token under it. With VAULT_KEY from the environment the operator
 * brings the new key (VAULT_KEY=new, VAULT_OLD_KEYS=old, restart) and rotate-key re-encrypts.
 */
export const vaultCommands: Command[] = [
  {
    name: 'vault status',
    summary: 'show where the vault keys live, the current key and how many tokens each key holds',
    usage: 'vault status',
    async run(ctx) {
      const { vault, tokens } = await ctx.services();
      const usage = await tokens.keyUsage();
      const known = new Set(vault.keyIds());
      // Reading the status never creates a key file.
      const current = vault.kind === 'file' ? safeCurrent(vault) : vault.currentKeyId();
      const report = {
        keys: vault.describe(),
        currentKeyId: current,
        tokensByKey: usage.map((u) => ({ ...u, current: u.keyId === current, available: known.has(u.keyId) })),
      };
      // Exit 1 when a token cannot be decrypted here, for monitoring (an operator audit saw 0).
      const missing = report.tokensByKey.some((u) => !u.available) ? 1 : 0;
      if (ctx.json) {
        ctx.out(JSON.stringify(report));
        return missing;
      }
      ctx.out(`Vault keys: ${report.keys}`);
      ctx.out(`Current key: ${current ?? '(none yet: created with the first token)'}`);
      if (usage.length === 0) {
        ctx.out('No stored tokens.');
        return 0;
      }
      for (const u of report.tokensByKey) {
        ctx.out(`  ${u.keyId}  ${String(u.tokens).padStart(8)} token(s)${u.current ? '  (current)' : ''}${u.available ? '' : '  MISSING: cannot be decrypted'}`);
      }
      return missing;
    },
  },
  {
    name: 'vault rotate-key',
    summary: 'add a new vault key and re-encrypt every token under it (with VAULT_KEY: re-encrypt under VAULT_KEY)',
    usage: 'vault rotate-key',
    async run(ctx) {
      const services = await ctx.services();
      const { vault, tokens } = services;
      // A rotation would make a new key file where the one holding the tokens' keys is missing.
      const lost = await refuseNewKeyFileIfLost(services);
      if (lost) throw new Error(`${lost.why} (${lost.tokens} token(s) under ${lost.keyIds.join(', ')})`);
      const previous = vault.kind === 'file' ? safeCurrent(vault) : vault.currentKeyId();
      const rotated = vault.kind !== 'environment';
      const current = rotated ? vault.rotate() : vault.currentKeyId();
      const result = await tokens.reencryptAll({
        onBatch: (done) => {
          if (!ctx.json) ctx.out(`  re-encrypted ${done} token(s)...`);
        },
      });
      // Issue 30: processors' sealed credentials are re-sealed too (a pruned key would lose them).
      const credentials = await services.processorAccounts.reencryptAll();
      if (ctx.json) {
        ctx.out(JSON.stringify({ newKey: rotated, previousKeyId: rotated ? (previous ?? null) : null, ...result, processorCredentials: credentials }));
        if (result.failed > 0) throw new Error(`${result.failed} token(s) could not be re-encrypted`);
        if (credentials.failed > 0) throw new Error(`${credentials.failed} processor credential(s) could not be re-encrypted`);
        return;
      }
      ctx.out(rotated ? `New vault key ${current} (in ${vault.describe()}).` : `VAULT_KEY is ${current}; no key was added (the environment holds the keys).`);
      ctx.out(`Re-encrypted ${result.reencrypted} token(s) under ${current}.`);
      if (credentials.resealed > 0 || credentials.failed > 0) ctx.out(`Re-encrypted ${credentials.resealed} processor credential(s) under ${current}.`);
      if (credentials.failed > 0) {
        ctx.out(`${credentials.failed} processor credential(s) are sealed with a key this vault does not hold; add it to VAULT_OLD_KEYS and run this again.`);
        throw new Error(`${credentials.failed} processor credential(s) could not be re-encrypted`);
      }
      if (result.failed > 0) {
        ctx.out(`${result.failed} token(s) are sealed with a key this vault does not hold; add it to VAULT_OLD_KEYS and run this again.`);
        throw new Error(`${result.failed} token(s) could not be re-encrypted`);
      } else if (vault.kind === 'environment') {
        ctx.out('Every token is under VAULT_KEY: the keys in VAULT_OLD_KEYS can be removed.');
      } else {
        ctx.out('Older keys stay in the key file; payments vault prune-keys removes the ones no token uses.');
      }
    },
  },
  {
    name: 'vault prune-keys',
    summary: 'remove older keys that no token uses any more from the key file',
    usage: 'vault prune-keys',
    async run(ctx) {
      const { vault, tokens, processorAccounts } = await ctx.services();
      if (vault.kind === 'environment') {
        return ctx.out('The keys come from VAULT_KEY and VAULT_OLD_KEYS: remove old keys from the environment (payments vault status shows which are in use).');
      }
      // Issue 30: a key that seals a processor's credentials is in use too.
      const inUse = new Set([...(await tokens.keyIdsInUse()), ...(await processorAccounts.keyIdsInUse())]);
      const removed = vault.forgetKeysExcept(inUse);
      if (ctx.json) return ctx.out(JSON.stringify({ removed }));
      ctx.out(removed.length ? `Removed ${removed.length} unused key(s): ${removed.join(', ')}` : 'No unused keys.');
    },
  },
  {
    name: 'vault new-key',
    summary: 'print a new random key for VAULT_KEY (stores nothing)',
    usage: 'vault new-key',
    async run(ctx) {
      const key = generateKey();
      if (ctx.json) return ctx.out(JSON.stringify({ key: key.key.toString('base64'), keyId: key.id }));
      ctx.out(key.key.toString('base64'));
    },
  },
];

function safeCurrent(vault: { currentKeyId(): string; keyIds(): string[] }): string | undefined {
  try {
    return vault.keyIds().length ? vault.currentKeyId() : undefined;
  } catch {
    return undefined;
  }
}
