import { existsSync } from 'node:fs';
import type { Logger } from '../../platform/logging.ts';
import type { TokenService } from './token-service.ts';
import type { Vault } from './vault.ts';

/** What the checks read: the stored tokens' keys and the vault's. */
type KeyHolders = { tokens: TokenService; vault: Vault };

/**
 * Servers sharing a PostgreSQL database must share the vault keys: one started without them
 * approves payments but cannot charge the tokens others stored, and billing would fail with only
 * "VaultError". Said once at start, with what to do.
 *
 * When the embedded default's key file is missing while tokens are sealed (a data directory
 * restored without it, or lost), the vault also makes no new key file: one made now would seal
 * new tokens under a key that restoring the old file overwrites, and they would be lost. It seals
 * again once the file is back.
 */
export async function checkVaultKeysAtStart(services: KeyHolders, log: Logger): Promise<void> {
  try {
    const lost = await refuseNewKeyFileIfLost(services);
    if (lost) {
      log.error(
        { keyIds: lost.keyIds, tokens: lost.tokens },
        `${lost.why}. Until then no card or account is stored (payments asking for a token are made without one) and stored tokens cannot be charged; payments vault status lists the keys`,
      );
      return;
    }
    const missing = await keysNotHeld(services);
    if (!missing) return;
    log.warn(
      { keyIds: missing.keyIds, tokens: missing.tokens },
      'stored tokens are sealed under vault keys this process does not hold: they cannot be charged here. Give it the keys of the other servers (VAULT_KEY and VAULT_OLD_KEYS, or the same DATA_DIR key file); payments vault status lists them',
    );
  } catch (err) {
    log.warn({ err }, 'could not check the vault keys against the stored tokens');
  }
}

/** Stored tokens' keys this process lacks, with their token count; undefined when it holds them all. */
async function keysNotHeld(services: KeyHolders): Promise<{ keyIds: string[]; tokens: number } | undefined> {
  const inUse = await services.tokens.keyIdsInUse();
  // Nothing sealed yet: a new data directory has no key file until its first token.
  if (inUse.length === 0) return undefined;
  // A file vault with no key file yet holds no key (a new server given its own DATA_DIR
  // instead of VAULT_KEY): that is the case to warn of, not a failure to check.
  const held = new Set(keyFileMissing(services) ? [] : services.vault.keyIds());
  const missingIds = inUse.filter((id) => !held.has(id));
  if (missingIds.length === 0) return undefined;
  // Counted only when keys are missing, and only theirs.
  const missing = await services.tokens.keyUsage(missingIds);
  return { keyIds: missing.map((u) => u.keyId), tokens: missing.reduce((n, u) => n + u.tokens, 0) };
}

function keyFileMissing(services: KeyHolders): boolean {
  return services.vault.kind === 'file' && !existsSync(services.vault.describe());
}

/**
 * When the embedded default's key file is missing while stored tokens are sealed, tells the vault
 * to make no new one (the server at start, and `vault rotate-key`, which would make one too) and
 * returns what is missing and why; undefined otherwise.
 */
export async function refuseNewKeyFileIfLost(services: KeyHolders): Promise<{ keyIds: string[]; tokens: number; why: string } | undefined> {
  if (!keyFileMissing(services)) return undefined;
  const missing = await keysNotHeld(services);
  if (!missing) return undefined;
  const why = `the vault key file ${services.vault.describe()} is missing while stored tokens are sealed under keys it held: restore it from its backup (or give this process VAULT_KEY and VAULT_OLD_KEYS); no new key file is made meanwhile, so nothing is sealed under a key the restored file would replace`;
  services.vault.refuseNewKeyFile(why);
  return { ...missing, why };
}
