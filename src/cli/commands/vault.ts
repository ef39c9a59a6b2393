import { newVaultKey } from '../../modules/vault/vault-service.ts';
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
      const report = await (await ctx.services()).vaultService.status();
      const current = report.currentKeyId;
      // Exit 1 when a token cannot be decrypted here, for monitoring.
      const missing = report.tokensByKey.some((u) => !u.available) ? 1 : 0;
      if (ctx.json) {
        ctx.out(JSON.stringify(report));
        return missing;
      }
      ctx.out(`Vault keys: ${report.keys}`);
      ctx.out(`Current key: ${current ?? '(none yet: created with the first token)'}`);
      if (report.tokensByKey.length === 0) {
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
      const vault = (await ctx.services()).vaultService;
      const result = await vault.rotateKey({
        onBatch: (done) => {
          if (!ctx.json) ctx.out(`  re-encrypted ${done} token(s)...`);
        },
      });
      const current = result.currentKeyId;
      // Processors' sealed credentials and notification AccessTokens and signing secrets are
      // re-sealed too (a pruned key would lose them).
      const credentials = await (await ctx.services()).processorAccounts.reencryptAll();
      const notificationSecrets = await (await ctx.services()).notificationConfigs.reencryptAll();
      if (ctx.json) {
        ctx.out(JSON.stringify({ ...result, processorCredentials: credentials, notificationSecrets }));
        if (result.failed > 0) throw new Error(`${result.failed} token(s) could not be re-encrypted`);
        if (notificationSecrets.failed > 0) throw new Error(`${notificationSecrets.failed} notification secret(s) could not be re-encrypted`);
        if (credentials.failed > 0) throw new Error(`${credentials.failed} processor credential(s) could not be re-encrypted`);
        return;
      }
      ctx.out(result.newKey ? `New vault key ${current} (in ${vault.describe()}).` : `VAULT_KEY is ${current}; no key was added (the environment holds the keys).`);
      ctx.out(`Re-encrypted ${result.reencrypted} token(s) under ${current}.`);
      if (credentials.resealed > 0 || credentials.failed > 0) ctx.out(`Re-encrypted ${credentials.resealed} processor credential(s) under ${current}.`);
      if (notificationSecrets.resealed > 0 || notificationSecrets.failed > 0) ctx.out(`Re-encrypted ${notificationSecrets.resealed} notification AccessToken(s) and signing secret(s) under ${current}.`);
      // Said here; the command fails below, after the credentials' and the tokens' messages.
      if (notificationSecrets.failed > 0) {
        ctx.out(`${notificationSecrets.failed} notification secret(s) are sealed with a key this vault does not hold; add it to VAULT_OLD_KEYS and run this again.`);
      }
      if (credentials.failed > 0) {
        ctx.out(`${credentials.failed} processor credential(s) are sealed with a key this vault does not hold; add it to VAULT_OLD_KEYS and run this again.`);
        throw new Error(`${credentials.failed} processor credential(s) could not be re-encrypted`);
      }
      if (result.failed > 0) {
        ctx.out(`${result.failed} token(s) are sealed with a key this vault does not hold; add it to VAULT_OLD_KEYS and run this again.`);
        throw new Error(`${result.failed} token(s) could not be re-encrypted`);
      } else if (notificationSecrets.failed > 0) {
        throw new Error(`${notificationSecrets.failed} notification secret(s) could not be re-encrypted`);
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
      const { vaultService, processorAccounts, notificationConfigs } = await ctx.services();
      // A key that seals a processor's credentials, a notification AccessToken or signing secret is in use too.
      const removed = await vaultService.pruneKeys([...(await processorAccounts.keyIdsInUse()), ...(await notificationConfigs.keyIdsInUse())]);
      if (removed === undefined) {
        return ctx.out('The keys come from VAULT_KEY and VAULT_OLD_KEYS: remove old keys from the environment (payments vault status shows which are in use).');
      }
      if (ctx.json) return ctx.out(JSON.stringify({ removed }));
      ctx.out(removed.length ? `Removed ${removed.length} unused key(s): ${removed.join(', ')}` : 'No unused keys.');
    },
  },
  {
    name: 'vault new-key',
    summary: 'print a new random key for VAULT_KEY (stores nothing)',
    usage: 'vault new-key',
    async run(ctx) {
      // No store is opened: the key is only printed.
      const key = newVaultKey();
      if (ctx.json) return ctx.out(JSON.stringify(key));
      ctx.out(key.key);
    },
  },
];
