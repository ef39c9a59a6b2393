import type { Clock } from '../../platform/clock.ts';
import { VaultError } from '../../platform/errors.ts';
import { FormTokenKey } from './form-token-key.ts';
import { refuseNewKeyFileIfLost } from './key-check.ts';
import { generateKey } from './keys.ts';
import type { TokenService } from './token-service.ts';
import type { Vault } from './vault.ts';

export type { FormTokenKey } from './form-token-key.ts';

/** Which keys hold stored tokens, and whether this process holds them. */
export interface VaultStatus {
  /** Where the keys are kept, in words. */
  keys: string;
  /** Undefined while a key file vault has no key yet (made with the first token). */
  currentKeyId: string | undefined;
  tokensByKey: { keyId: string; tokens: number; current: boolean; available: boolean }[];
}

export interface KeyRotation {
  /** Whether a key was added (the key file and memory vaults); with VAULT_KEY the environment brings it. */
  newKey: boolean;
  previousKeyId: string | null;
  reencrypted: number;
  failed: number;
  currentKeyId: string;
}

/** A new random key for VAULT_KEY, in base64, with its id. Stores nothing. */
export function newVaultKey(): { key: string; keyId: string } {
  const key = generateKey();
  return { key: key.key.toString('base64'), keyId: key.id };
}

/**
 * The vault's keys as an operator and the edges use them: status, rotation with re-encryption,
 * pruning, and the key of the pay page's form tokens (a new key for VAULT_KEY: `newVaultKey`). The keys themselves stay in
 * the vault (vault.ts, keys.ts, key-file.ts); nothing here hands one out.
 */
export class VaultService {
  readonly #vault: Vault;
  readonly #tokens: TokenService;
  readonly #clock: Clock;

  constructor(deps: { vault: Vault; tokens: TokenService; clock: Clock }) {
    this.#vault = deps.vault;
    this.#tokens = deps.tokens;
    this.#clock = deps.clock;
  }

  /** Where the keys come from: VAULT_KEY (`environment`), the key file in DATA_DIR (`file`), or `memory`. */
  get kind(): Vault['kind'] {
    return this.#vault.kind;
  }

  /** Where keys are kept, in words, for operators. */
  describe(): string {
    return this.#vault.describe();
  }

  /** The tokens each key holds, and which keys this process lacks. Never creates a key file. */
  async status(): Promise<VaultStatus> {
    const usage = await this.#tokens.keyUsage();
    const known = new Set(this.#vault.keyIds());
    const current = this.#currentKeyIdIfAny();
    return {
      keys: this.#vault.describe(),
      currentKeyId: current,
      tokensByKey: usage.map((u) => ({ ...u, current: u.keyId === current, available: known.has(u.keyId) })),
    };
  }

  /**
   * Makes a new key current (with VAULT_KEY: takes VAULT_KEY as it is) and re-encrypts every
   * token under it. Refused while the key file that holds stored tokens' keys is missing: a new
   * key file made now would be overwritten when the old one is restored.
   */
  async rotateKey(options: { onBatch?: (done: number) => void } = {}): Promise<KeyRotation> {
    const lost = await refuseNewKeyFileIfLost({ tokens: this.#tokens, vault: this.#vault });
    if (lost) throw new VaultError(`${lost.why} (${lost.tokens} token(s) under ${lost.keyIds.join(', ')})`);
    const previous = this.#currentKeyIdIfAny();
    const rotated = this.#vault.kind !== 'environment';
    if (rotated) this.#vault.rotate();
    const result = await this.#tokens.reencryptAll({ onBatch: options.onBatch });
    return { newKey: rotated, previousKeyId: rotated ? (previous ?? null) : null, ...result };
  }

  /**
   * Removes older keys that no token uses, nor any of `alsoInUse` (keys of other sealed secrets),
   * from the key file; undefined with VAULT_KEY (the environment holds the keys).
   */
  async pruneKeys(alsoInUse: readonly string[] = []): Promise<string[] | undefined> {
    if (this.#vault.kind === 'environment') return undefined;
    const inUse = new Set([...(await this.#tokens.keyIdsInUse()), ...alsoInUse]);
    return this.#vault.forgetKeysExcept(inUse);
  }

  /**
   * Seals a secret that is not a card or account (a processor's credentials) under the vault's
   * current key. `context` names its owner: a ciphertext copied to another owner does not open.
   */
  sealSecret(plain: string, context: string): { ciphertext: string; keyId: string } {
    return this.#vault.seal(plain, context);
  }

  openSecret(ciphertext: string, context: string): string {
    return this.#vault.open(ciphertext, context);
  }

  /** The key new secrets are sealed under (a rotation re-seals the others). */
  currentKeyId(): string {
    return this.#vault.currentKeyId();
  }

  /** A key for the pay page's form tokens: the vault's, or its own while the vault cannot seal. One per page server. */
  formTokenKey(): FormTokenKey {
    return new FormTokenKey(this.#vault, this.#clock);
  }

  /** The current key; for a key file vault, undefined while it has no key (reading it never creates the file). */
  #currentKeyIdIfAny(): string | undefined {
    if (this.#vault.kind !== 'file') return this.#vault.currentKeyId();
    try {
      return this.#vault.keyIds().length ? this.#vault.currentKeyId() : undefined;
    } catch {
      return undefined;
    }
  }
}
