import { createHash, randomBytes } from 'node:crypto';
import { VaultError } from '../../platform/errors.ts';

/** AES-256 keys are 32 bytes. */
export const KEY_BYTES = 32;

export interface VaultKey {
  /** Short public name of the key, recorded in every ciphertext made with it. */
  id: string;
  key: Buffer;
}


/**
 * A key's id is derived from the key itself, so the same key always has the same id wherever it
 * comes from (VAULT_KEY, VAULT_OLD_KEYS or the key file) and an operator never has to name keys.
 * A truncated SHA-256 of a random 256-bit key reveals nothing usable about it.
 */
export function keyIdOf(key: Buffer): string {
  return 'k' + createHash('sha256').update('payments vault key id\0').update(key).digest('base64url').slice(0, 12);
}

export function vaultKey(key: Buffer): VaultKey {
  if (key.length !== KEY_BYTES) throw new VaultError(`a vault key must be ${KEY_BYTES} bytes, got ${key.length}`);
  return { id: keyIdOf(key), key };
}

/** A key written as base64 (standard or url-safe); exactly 32 bytes. `what` names it in the error. */
export function parseKey(text: string, what: string): VaultKey {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) throw new VaultError(`${what} is not base64`);
  const key = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (key.length !== KEY_BYTES) throw new VaultError(`${what} must be ${KEY_BYTES} bytes in base64 (44 characters), got ${key.length} bytes`);
  return vaultKey(key);
}

export function generateKey(): VaultKey {
  return vaultKey(randomBytes(KEY_BYTES));
}

/** The keys a vault can use: one current key that seals, any number of older ones that still open. */
export class KeyRing {
  readonly current: VaultKey;
  readonly #byId = new Map<string, VaultKey>();

  constructor(current: VaultKey, older: VaultKey[] = []) {
    this.current = current;
    for (const k of [current, ...older]) if (!this.#byId.has(k.id)) this.#byId.set(k.id, k);
  }

  get(id: string): VaultKey | undefined {
    return this.#byId.get(id);
  }

  ids(): string[] {
    return [...this.#byId.keys()];
  }
}
