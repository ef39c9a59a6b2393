import { existsSync, statSync } from 'node:fs';
import type { Clock } from '../../platform/clock.ts';
import { keyIdOfCiphertext, open, seal } from './cipher.ts';
import { addKeyToFile, createKeyFile, keepOnlyKeys, keyFilePath, readKeyFile } from './key-file.ts';
import { KeyRing, type VaultKey, generateKey, parseKey } from './keys.ts';
import { VaultError } from '../../platform/errors.ts';

/**
 * Where the vault's keys come from:
 * - `environment`: VAULT_KEY seals (and opens); VAULT_OLD_KEYS only open. Keys in a key file in
 *   the data directory, if one exists, also open, so moving from the embedded default to
 *   VAULT_KEY needs no manual key copying.
 * - `file`: the embedded default, DATA_DIR/vault-keys.json, generated on first use.
 * - `memory`: tests and tools.
 */
export type VaultKeySource =
  | { kind: 'environment'; current: VaultKey; older: VaultKey[]; dataDir?: string }
  | { kind: 'file'; dataDir: string }
  | { kind: 'memory'; current: VaultKey; older?: VaultKey[] };

export interface Sealed {
  ciphertext: string;
  keyId: string;
}

/**
 * Encrypts card and account numbers (AES-256-GCM, see cipher.ts). Keys load on first use, so a
 * process that never touches a token (most CLI commands) never creates a key file.
 */
export class Vault {
  readonly #source: VaultKeySource;
  readonly #clock: Clock;
  #ring: KeyRing | undefined;
  /** The key file as last read (file source): its change time and size. */
  #fileStamp: string | undefined;
  /** Why no key file may be generated (file source), when it may not. */
  #noNewKeyFile: string | undefined;

  constructor(source: VaultKeySource, clock: Clock) {
    this.#source = source;
    this.#clock = clock;
  }

  get kind(): VaultKeySource['kind'] {
    return this.#source.kind;
  }

  /**
   * The file source makes no key file from now on, and says `reason` when one is needed: stored
   * tokens are sealed under keys of a missing file (see src/modules/vault/key-check.ts). A key
   * file put back is used as before.
   */
  refuseNewKeyFile(reason: string): void {
    this.#noNewKeyFile = reason;
  }

  /** Where keys are kept, in words, for operators. */
  describe(): string {
    const s = this.#source;
    if (s.kind === 'environment') return 'VAULT_KEY (older keys: VAULT_OLD_KEYS and any key file in DATA_DIR)';
    if (s.kind === 'file') return keyFilePath(s.dataDir);
    return 'memory';
  }

  seal(plain: string, context: string): Sealed {
    // A key rotated by another process (payments vault rotate-key) seals from the next token on,
    // without a restart: a server sealing under a retired key would keep it in use, and a
    // prune-keys meanwhile could lose what it sealed.
    if (this.#source.kind === 'file' && this.#ring && this.#fileStamp !== fileStamp(this.#source.dataDir)) this.#ring = undefined;
    const key = this.#keys(true).current;
    return { ciphertext: seal(key, plain, context), keyId: key.id };
  }

  open(ciphertext: string, context: string): string {
    const keyId = keyIdOfCiphertext(ciphertext);
    if (!keyId) throw new VaultError('not a vault ciphertext');
    let key = this.#keys(false).get(keyId);
    if (!key && this.#source.kind === 'file') {
      // Another process (the rotate-key command) may have added a key since we loaded the file.
      this.#ring = undefined;
      key = this.#keys(false).get(keyId);
    }
    if (!key) throw new VaultError(`the vault has no key ${keyId}; add it to VAULT_OLD_KEYS (or restore the key file)`);
    return open(key, ciphertext, context);
  }

  currentKeyId(): string {
    return this.#keys(true).current.id;
  }

  /** Every key id this vault can open. */
  keyIds(): string[] {
    return this.#keys(false).ids();
  }

  /**
   * Makes a new key the current one (the file and memory sources). With VAULT_KEY the new key has
   * to come from the environment: see docs/decisions.md ("Vault").
   */
  rotate(): string {
    const s = this.#source;
    if (s.kind === 'environment') {
      throw new VaultError(
        'the vault key comes from VAULT_KEY: set VAULT_KEY to a new key (payments vault new-key), move the old one to ' +
          'VAULT_OLD_KEYS, restart the servers, then run payments vault rotate-key to re-encrypt',
      );
    }
    if (s.kind === 'file') {
      if (this.#noNewKeyFile !== undefined && !existsSync(keyFilePath(s.dataDir))) throw new VaultError(this.#noNewKeyFile);
      this.#ring = addKeyToFile(s.dataDir, this.#clock.now());
    } else {
      const old = this.#keys(true);
      this.#ring = new KeyRing(generateKey(), old.ids().map((id) => old.get(id)!));
    }
    return this.#ring.current.id;
  }

  /** Forgets older keys that no ciphertext uses any more (file and memory sources). Returns their ids. */
  forgetKeysExcept(inUse: Set<string>): string[] {
    const s = this.#source;
    const ring = this.#keys(false);
    if (s.kind === 'environment') return [];
    if (s.kind === 'file') {
      const removed = keepOnlyKeys(s.dataDir, inUse, this.#clock.now());
      this.#ring = undefined;
      return removed;
    }
    const keep = ring.ids().filter((id) => id === ring.current.id || inUse.has(id));
    this.#ring = new KeyRing(ring.current, keep.map((id) => ring.get(id)!));
    return ring.ids().filter((id) => !keep.includes(id));
  }

  /** The key ring; `create` allows the embedded default to generate its key file. */
  #keys(create: boolean): KeyRing {
    if (this.#ring) return this.#ring;
    const s = this.#source;
    if (s.kind === 'memory') {
      this.#ring = new KeyRing(s.current, s.older ?? []);
    } else if (s.kind === 'environment') {
      const fromFile = s.dataDir ? safeReadKeyFile(s.dataDir) : undefined;
      const fileKeys = fromFile ? fromFile.ids().map((id) => fromFile.get(id)!) : [];
      this.#ring = new KeyRing(s.current, [...s.older, ...fileKeys]);
    } else {
      const stamp = fileStamp(s.dataDir);
      const existing = readKeyFile(s.dataDir);
      if (existing) this.#ring = existing;
      else if (create && this.#noNewKeyFile !== undefined) throw new VaultError(this.#noNewKeyFile);
      else if (create) this.#ring = createKeyFile(s.dataDir, this.#clock.now());
      else throw new VaultError(`there is no vault key file at ${keyFilePath(s.dataDir)}`);
      // Taken before reading: a write between the two is seen as a change next time.
      this.#fileStamp = existing ? stamp : fileStamp(s.dataDir);
    }
    return this.#ring;
  }
}

/** What changes when the key file is rewritten (it is replaced atomically, never edited in place). */
function fileStamp(dataDir: string): string | undefined {
  try {
    const st = statSync(keyFilePath(dataDir), { bigint: true });
    return `${st.ino}:${st.ctimeNs}:${st.size}`;
  } catch {
    return undefined;
  }
}

function safeReadKeyFile(dataDir: string): KeyRing | undefined {
  try {
    return readKeyFile(dataDir);
  } catch {
    return undefined;
  }
}

/** The vault the configuration asks for: VAULT_KEY (+ VAULT_OLD_KEYS) or the key file in DATA_DIR. */
export function vaultFromConfig(config: { vaultKey?: string; vaultOldKeys?: string[]; dataDir: string }, clock: Clock): Vault {
  if (config.vaultKey) {
    const current = parseKey(config.vaultKey, 'VAULT_KEY');
    const older = (config.vaultOldKeys ?? []).map((k, i) => parseKey(k, `VAULT_OLD_KEYS entry ${i + 1}`));
    return new Vault({ kind: 'environment', current, older, dataDir: config.dataDir }, clock);
  }
  return new Vault({ kind: 'file', dataDir: config.dataDir }, clock);
}

/** A vault with a random key that lives in this process only (tests, benchmarks). */
export function memoryVault(clock: Clock): Vault {
  return new Vault({ kind: 'memory', current: generateKey() }, clock);
}
