import { mkdtempSync, readFileSync, rmSync, statSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/platform/clock.ts';
import { open, seal } from '../../../src/modules/vault/cipher.ts';
import { keyFilePath } from '../../../src/modules/vault/key-file.ts';
import { generateKey, keyIdOf, parseKey } from '../../../src/modules/vault/keys.ts';
import { VaultError } from '../../../src/platform/errors.ts';
import { Vault, memoryVault, vaultFromConfig } from '../../../src/modules/vault/vault.ts';

const clock = new ManualClock();
const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'payments-vault-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Flips one bit of the base64url part `part` (2 nonce, 3 body) of a ciphertext. */
function flipBit(ciphertext: string, part: number, bit: number): string {
  const parts = ciphertext.split(':');
  const bytes = Buffer.from(parts[part]!, 'base64url');
  const i = bit % (bytes.length * 8);
  bytes[i >> 3]! ^= 1 << (i & 7);
  parts[part] = bytes.toString('base64url');
  return parts.join(':');
}

describe('AES-256-GCM sealing', () => {
  it('opens what it sealed, for any text, and never shows the plain text', () => {
    const key = generateKey();
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40 }), fc.uuid(), (plain, id) => {
        const c = seal(key, plain, id);
        expect(c.startsWith(`v1:${key.id}:`)).toBe(true);
        expect(open(key, c, id)).toBe(plain);
      }),
    );
    const c = seal(key, '4242424242424242', 'ctx');
    expect(c).not.toContain('4242424242424242');
    expect(Buffer.from(c.split(':')[3]!, 'base64url').toString('latin1')).not.toContain('4242');
  });

  it('uses a fresh nonce each time', () => {
    const key = generateKey();
    expect(seal(key, '4242424242424242', 'x')).not.toBe(seal(key, '4242424242424242', 'x'));
  });

  it('detects any flipped bit in the nonce, ciphertext or tag', () => {
    const key = generateKey();
    const c = seal(key, '5555555555554444', 'token-1');
    fc.assert(
      fc.property(fc.constantFrom(2, 3), fc.nat(), (part, bit) => {
        expect(() => open(key, flipBit(c, part, bit), 'token-1')).toThrow(VaultError);
      }),
      { numRuns: 200 },
    );
  });

  it('refuses a ciphertext moved to another context, relabelled, truncated or opened with another key', () => {
    const key = generateKey();
    const other = generateKey();
    const c = seal(key, '378282246310005', 'payment_tokens:a');
    expect(() => open(key, c, 'payment_tokens:b')).toThrow(/failed authentication/);
    expect(() => open(other, c, 'payment_tokens:a')).toThrow(VaultError);
    const relabelled = c.replace(key.id, other.id);
    expect(() => open(other, relabelled, 'payment_tokens:a')).toThrow(/failed authentication/);
    expect(() => open(key, c.slice(0, c.length - 30), 'payment_tokens:a')).toThrow(VaultError);
    expect(() => open(key, 'v2' + c.slice(2), 'payment_tokens:a')).toThrow(VaultError);
  });
});

describe('keys', () => {
  it('parses 32-byte base64 keys (standard or url-safe) and refuses anything else', () => {
    const raw = Buffer.alloc(32, 7);
    expect(parseKey(raw.toString('base64'), 'K').key).toEqual(raw);
    expect(parseKey(raw.toString('base64url'), 'K').key).toEqual(raw);
    expect(() => parseKey(Buffer.alloc(16).toString('base64'), 'VAULT_KEY')).toThrow(/VAULT_KEY must be 32 bytes/);
    expect(() => parseKey('not base64!', 'VAULT_KEY')).toThrow(/not base64/);
  });
  it('derives the same id from the same key, and different ids from different keys', () => {
    const a = generateKey();
    expect(keyIdOf(Buffer.from(a.key))).toBe(a.id);
    expect(generateKey().id).not.toBe(a.id);
    expect(a.id).toMatch(/^k[\w-]{12}$/);
  });
});

describe('Vault', () => {
  it('memory: rotation seals under the new key and still opens the old ciphertexts', () => {
    const vault = memoryVault(clock);
    const before = vault.seal('4242424242424242', 't1');
    const oldId = vault.currentKeyId();
    const newId = vault.rotate();
    expect(newId).not.toBe(oldId);
    const after = vault.seal('4242424242424242', 't1');
    expect(after.keyId).toBe(newId);
    expect(vault.open(before.ciphertext, 't1')).toBe('4242424242424242');
    expect(vault.open(after.ciphertext, 't1')).toBe('4242424242424242');
    expect(vault.forgetKeysExcept(new Set([newId]))).toEqual([oldId]);
    expect(() => vault.open(before.ciphertext, 't1')).toThrow(/has no key/);
  });

  it('file: creates DATA_DIR/vault-keys.json with mode 0600 on first seal, not before', () => {
    const dir = tempDir();
    const vault = vaultFromConfig({ dataDir: dir }, clock);
    expect(vault.kind).toBe('file');
    expect(existsSync(keyFilePath(dir))).toBe(false);
    const sealed = vault.seal('6011111111111117', 't');
    expect(statSync(keyFilePath(dir)).mode & 0o777).toBe(0o600);
    const file = JSON.parse(readFileSync(keyFilePath(dir), 'utf8'));
    expect(file.current).toBe(sealed.keyId);
    // Another process with the same data directory opens it.
    expect(vaultFromConfig({ dataDir: dir }, clock).open(sealed.ciphertext, 't')).toBe('6011111111111117');
  });

  it('file: rotation adds a key to the file, and a process that loaded the old file picks up the new key', () => {
    const dir = tempDir();
    const server = vaultFromConfig({ dataDir: dir }, clock);
    const old = server.seal('5555555555554444', 't');
    const operator = vaultFromConfig({ dataDir: dir }, clock);
    const newId = operator.rotate();
    expect(statSync(keyFilePath(dir)).mode & 0o777).toBe(0o600);
    const fresh = operator.seal('5555555555554444', 't');
    expect(fresh.keyId).toBe(newId);
    // The server seals under the new key from its next token on, without a restart, so pruning
    // the old key cannot lose what it seals after the rotation.
    expect(server.seal('4242424242424242', 't').keyId).toBe(newId);
    expect(server.open(fresh.ciphertext, 't')).toBe('5555555555554444');
    expect(operator.open(old.ciphertext, 't')).toBe('5555555555554444');
    expect(JSON.parse(readFileSync(keyFilePath(dir), 'utf8')).keys).toHaveLength(2);
    expect(operator.forgetKeysExcept(new Set([newId]))).toEqual([old.keyId]);
    const afterPrune = server.seal('378282246310005', 't');
    expect(vaultFromConfig({ dataDir: dir }, clock).open(afterPrune.ciphertext, 't')).toBe('378282246310005');
  });

  it('file: refuses to open when the key file is missing, without creating one', () => {
    const dir = tempDir();
    const sealed = memoryVault(clock).seal('4242424242424242', 't');
    const vault = vaultFromConfig({ dataDir: dir }, clock);
    expect(() => vault.open(sealed.ciphertext, 't')).toThrow(/no vault key file/);
    expect(existsSync(keyFilePath(dir))).toBe(false);
  });

  it('environment: VAULT_KEY seals, VAULT_OLD_KEYS and an existing key file only open', () => {
    const dir = tempDir();
    const fileVault = vaultFromConfig({ dataDir: dir }, clock);
    const fromFile = fileVault.seal('4242424242424242', 't');
    const oldKey = generateKey();
    const newKey = generateKey();
    const fromOld = new Vault({ kind: 'memory', current: oldKey }, clock).seal('378282246310005', 't');
    const vault = vaultFromConfig({ dataDir: dir, vaultKey: newKey.key.toString('base64'), vaultOldKeys: [oldKey.key.toString('base64')] }, clock);
    expect(vault.kind).toBe('environment');
    expect(vault.currentKeyId()).toBe(newKey.id);
    expect(vault.seal('x', 't').keyId).toBe(newKey.id);
    expect(vault.open(fromOld.ciphertext, 't')).toBe('378282246310005');
    expect(vault.open(fromFile.ciphertext, 't')).toBe('4242424242424242');
    expect(() => vault.rotate()).toThrow(/VAULT_KEY/);
  });

  it('a corrupted key file is an error, not a silent new key', () => {
    const dir = tempDir();
    writeFileSync(keyFilePath(dir), '{"current":"kX","keys":[]}');
    expect(() => vaultFromConfig({ dataDir: dir }, clock).seal('x', 't')).toThrow(/names a current key it does not hold/);
  });
});
