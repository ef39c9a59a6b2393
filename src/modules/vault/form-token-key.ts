import type { Clock } from '../../platform/clock.ts';
import { VaultError } from '../../platform/errors.ts';
import { keyIdOfCiphertext } from './cipher.ts';
import { generateKey } from './keys.ts';
import { Vault } from './vault.ts';

/**
 * Seals and opens the pay page's form tokens with the vault's keys, so that every server sharing
 * them accepts any server's form. While the vault cannot seal (its key file is missing while
 * stored tokens need it, and it makes no new one: key-check.ts) it seals with a key of its own,
 * held by this object alone: the pages keep working, and their forms are good on this server only,
 * which the embedded store (the one with a key file) is anyway.
 */
export class FormTokenKey {
  readonly #vault: Vault;
  readonly #ownKey: Vault;

  constructor(vault: Vault, clock: Clock) {
    this.#vault = vault;
    this.#ownKey = new Vault({ kind: 'memory', current: generateKey() }, clock);
  }

  /** `plain` sealed for `context`: an opaque text. */
  seal(plain: string, context: string): string {
    try {
      return this.#vault.seal(plain, context).ciphertext;
    } catch (err) {
      if (!(err instanceof VaultError)) throw err;
      return this.#ownKey.seal(plain, context).ciphertext;
    }
  }

  /** What `sealed` holds, when it was sealed for `context` by a key held here; undefined otherwise. */
  open(sealed: string, context: string): string | undefined {
    // Only keys already held: a forged key id must not make the vault look for new keys.
    const keyId = keyIdOfCiphertext(sealed);
    if (!keyId) return undefined;
    const vault = keyId === this.#ownKey.currentKeyId() ? this.#ownKey : this.#vault;
    try {
      // keyIds() throws while a file vault has no key file yet (a fresh install before its first
      // seal): then nothing sealed can be genuine.
      if (!vault.keyIds().includes(keyId)) return undefined;
      return vault.open(sealed, context);
    } catch {
      return undefined;
    }
  }
}
